"""Citations for other vendors' consumers: OpenAI annotations, LangChain v1 content blocks.

Every exported record is one (span, source) pair, with offsets in the unit the
consumer indexes by (``"char"``: Python code points, ``"utf16"``: JavaScript/Java,
``"byte"``: UTF-8), converted in one bulk pass over the text. See ``docs/export.md``
and, for what each vendor's consumers expect, ``docs/vendors.md``.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from typing import Any, Literal

from grounding_protos._citations.read import read
from grounding_protos._core.model import Citation, Grounded, Problem, Source, SpanPolicy
from grounding_protos._exceptions import (
    ArgumentValueError,
    CitationError,
    GroundingProtosError,
    MissingDependencyError,
    OffsetError,
)
from grounding_protos._offsets import TextIndex, Unit
from grounding_protos._public import public
from grounding_protos._quote import excerpt

OpenAIApi = Literal["responses", "chat"]
_APIS = ("responses", "chat")


def _check_unit(unit: object) -> Unit:
    if unit == "char" or unit == "utf16" or unit == "byte":
        return unit
    raise ArgumentValueError(f"unit must be one of 'char', 'utf16', 'byte', not {unit!r}")


def _grounded(
    obj: object, text: str | bytes | None, candidate: int, errors: SpanPolicy = "repair"
) -> Grounded:
    if isinstance(obj, Grounded):
        if text is not None:
            raise ArgumentValueError(
                "text= cannot be combined with a Grounded, which carries its own text"
            )
        return obj
    return read(obj, text=text, candidate=candidate, errors=errors)


def _no_text(target: str, unit: str) -> CitationError:
    return CitationError(
        f"{target} needs the answer text to give {unit!r} offsets, and the input holds "
        "none: pass text= (the answer text)" + (", or unit='byte'" if unit != "byte" else ""),
        code="text-missing",
    )


def spans_in(grounded: Grounded, unit: Unit, target: str) -> list[tuple[int, int]]:
    """Each citation's (start, end) in ``unit``, all converted in one bulk pass.

    >>> g = Grounded("Café 😀 ok", [Citation(6, 13, 5, 9, "😀 ok", ())])
    >>> spans_in(g, "char", "x"), spans_in(g, "utf16", "x"), spans_in(g, "byte", "x")
    ([(5, 9)], [(5, 10)], [(6, 13)])
    """
    citations = grounded.citations
    if unit == "byte":
        return [(c.start, c.end) for c in citations]
    if grounded.text is None:
        raise _no_text(target, unit)
    index = TextIndex(grounded.text)
    flat: list[int] = []
    for i, c in enumerate(citations):
        if c.start > c.end:
            raise OffsetError(
                f"{c.path or f'citations[{i}]'}: span start {c.start} is after its end {c.end}"
            )
        flat.append(c.start)
        flat.append(c.end)
    try:
        converted = index.to_chars(flat) if unit == "char" else index.to_utf16s(flat)
    except OffsetError:
        _raise_first_bad(index, citations)
        raise
    it = iter(converted)
    return list(zip(it, it, strict=True))


def _raise_first_bad(index: TextIndex, citations: Sequence[Citation]) -> None:
    """Re-raise a bulk conversion's failure naming the citation's field path."""
    for i, c in enumerate(citations):
        path = c.path or f"citations[{i}]"
        for name, offset in (("start_index", c.start), ("end_index", c.end)):
            try:
                index.to_char(offset)
            except OffsetError as exc:
                raise OffsetError(f"{path}.{name}: {exc}") from None


def _not_representable(
    message: str, path: str, problems: list[Problem] | None, code: str = "not-representable"
) -> None:
    problem = Problem(code, message, path)
    if problems is None:
        raise CitationError(
            f"{problem}; pass problems=[] to leave such citations out and list them there",
            path=path,
            code=code,
        )
    problems.append(problem)


def to_openai_annotations(
    obj: object,
    *,
    unit: Unit = "char",
    api: OpenAIApi = "responses",
    text: str | bytes | None = None,
    candidate: int = 0,
    errors: SpanPolicy = "repair",
    problems: list[Problem] | None = None,
) -> list[dict[str, Any]]:
    """OpenAI-style ``url_citation`` annotations of any input :func:`read` accepts, or of
    a :class:`Grounded`: one per (span, source) pair, in citation then source order.

    ``api="responses"`` gives the Responses API ``output_text`` shape
    (``{"type": "url_citation", "url", "title", "start_index", "end_index"}``),
    ``api="chat"`` the Chat Completions one (``{"type": "url_citation",
    "url_citation": {...}}``). ``title`` is :attr:`Source.label`; offsets are in
    ``unit`` (``"char"``, ``"utf16"`` or ``"byte"``) into the answer text, end exclusive.

    A ``url_citation`` needs a URL: a source without one (a file-search chunk, a
    document known only by name) cannot be one, nor can a span without any source.
    Without ``problems`` such a pair raises :class:`CitationError` (code
    ``"not-representable"``, or ``"no-source"``); with a list, it is left out and a
    :class:`Problem` naming it is appended.

    >>> from grounding_protos.citations import Citation, Grounded, Source
    >>> g = Grounded("Grüße aus Köln.", [Citation(12, 17, 10, 14, "Köln",
    ...     (Source(uri="https://koeln.example", title="Köln"),))])
    >>> from pprint import pprint
    >>> pprint(to_openai_annotations(g), sort_dicts=False)
    [{'type': 'url_citation',
      'url': 'https://koeln.example',
      'title': 'Köln',
      'start_index': 10,
      'end_index': 14}]
    >>> to_openai_annotations(g, unit="byte", api="chat")[0]["url_citation"]["start_index"]
    12

    ``text=``, ``candidate=`` and ``errors=`` (the span policy) are :func:`read`'s.

    Raises:
        ArgumentValueError: an unknown ``unit`` or ``api``, or ``text=`` with a Grounded.
        CitationError: no answer text for a ``"char"``/``"utf16"`` export (code
            ``"text-missing"``), or a pair that cannot be expressed (see above).
        OffsetError: a span that does not fit the text (with the citation's path).
    """
    unit = _check_unit(unit)
    if api not in _APIS:
        raise ArgumentValueError(f"api must be one of 'responses', 'chat', not {api!r}")
    grounded = _grounded(obj, text, candidate, errors)
    spans = spans_in(grounded, unit, "to_openai_annotations")
    chat = api == "chat"
    out: list[dict[str, Any]] = []
    for i, (c, (start, end)) in enumerate(zip(grounded.citations, spans, strict=True)):
        path = c.path or f"citations[{i}]"
        if not c.sources:
            _not_representable(
                f"span [{start}, {end}) cites no source, so it has no url_citation",
                path,
                problems,
                "no-source",
            )
        for j, source in enumerate(c.sources):
            if not source.uri:
                _not_representable(
                    f"source {j} ({excerpt(source.label)}, kind {source.kind}) has no URL, which a "
                    "url_citation requires",
                    f"{path}.sources[{j}]",
                    problems,
                )
                continue
            body = {
                "url": source.uri,
                "title": source.label,
                "start_index": start,
                "end_index": end,
            }
            if chat:
                out.append({"type": "url_citation", "url_citation": body})
            else:
                out.append({"type": "url_citation", **body})
    return out


def to_langchain_blocks(
    obj: object,
    *,
    unit: Unit = "char",
    text: str | bytes | None = None,
    candidate: int = 0,
    errors: SpanPolicy = "repair",
) -> list[dict[str, Any]]:
    """LangChain v1 standard content blocks of any input :func:`read` accepts, or of a
    :class:`Grounded`: one ``text`` block holding the answer text, with an ``annotations``
    list of ``citation`` blocks (plain dicts; LangChain is not imported).

    One citation per (span, source) pair; a span without sources still gets one
    (without ``url`` and ``title``), so nothing is left out. ``url`` is the source's
    URI where it has one, ``title`` its :attr:`Source.label`, ``start_index`` and
    ``end_index`` the span in ``unit`` (end exclusive), ``cited_text`` the cited text
    of the answer; ``extras`` holds what else identifies the source (``source_id``,
    ``source_kind``, ``document``, ``chunk``, ``page``, ``place_id``,
    ``file_search_store``, ``custom_metadata``, ``source_text``, scores, …), each only
    when set, and ``details``: what the source's kind carries besides (a place's review
    snippets with their authors and report links, its own report link and route; a RAG
    chunk's pages; an image's URI; as :func:`details_dict` gives them). No ``id`` is
    generated, so the output is deterministic.

    >>> from grounding_protos.citations import Citation, Grounded, Source
    >>> g = Grounded("東京は首都です。", [Citation(0, 9, 0, 3, "東京は",
    ...     (Source(title="Tokyo guide", kind="retrieved_context", document="docs/7"),))])
    >>> [block] = to_langchain_blocks(g, unit="utf16")
    >>> from pprint import pprint
    >>> pprint(block["annotations"], sort_dicts=False)
    [{'type': 'citation',
      'title': 'Tokyo guide',
      'start_index': 0,
      'end_index': 3,
      'cited_text': '東京は',
      'extras': {'source_kind': 'retrieved_context', 'document': 'docs/7'}}]

    Raises:
        ArgumentValueError: an unknown ``unit``, or ``text=`` with a Grounded.
        CitationError: the input has no answer text (code ``"text-missing"``): a text
            block needs it whatever the unit.
        OffsetError: a span that does not fit the text (with the citation's path).
    """
    unit = _check_unit(unit)
    grounded = _grounded(obj, text, candidate, errors)
    if grounded.text is None:
        raise _no_text("to_langchain_blocks", unit)
    spans = spans_in(grounded, unit, "to_langchain_blocks")
    annotations = _lc_annotations(grounded, spans)
    return [{"type": "text", "text": grounded.text, "annotations": annotations}]


def _lc_annotations(grounded: Grounded, spans: list[tuple[int, int]]) -> list[dict[str, Any]]:
    """One ``citation`` block per (span, source) pair, in the order of the citations."""
    annotations: list[dict[str, Any]] = []
    # What a source contributes to a record, once per source (sources recur across spans).
    described: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
    for c, (start, end) in zip(grounded.citations, spans, strict=True):
        span: dict[str, Any] = {"start_index": start, "end_index": end}  # once per span
        if c.text is not None:
            span["cited_text"] = c.text
        if not c.sources:
            annotations.append(_lc_record({}, span, {}, None, c.score))
        scores = c.source_scores
        for j, source in enumerate(c.sources):
            parts = described.get(id(source))
            if parts is None:
                parts = described[id(source)] = _lc_source(source)
            score = scores[j] if j < len(scores) else None
            annotations.append(_lc_record(parts[0], span, parts[1], score, c.score))
    return annotations


def to_ai_message(
    obj: object,
    *,
    text: str | bytes | None = None,
    candidate: int = 0,
    errors: SpanPolicy = "repair",
) -> Any:
    """A LangChain ``AIMessage`` of any input :func:`read` accepts (an ``AIMessage``
    that LangChain's own Google integration made included), whose content is LangChain
    v1 standard blocks (``response_metadata["output_version"] == "v1"``) carrying the
    citations right: one ``text`` block per text part of the answer, each citation on the
    block it is in, ``start_index``/``end_index`` Python string indices into that block's
    ``text``, one ``citation`` per (span, source) pair, with the fields of
    :func:`to_langchain_blocks`. A span that crosses from one part into the next (no
    provider was seen to send one) becomes one citation per block it covers.

    An ``AIMessage`` given is copied (``model_copy(deep=True)``), never changed: its
    text items become the new text blocks (a text block's other keys, such as Gemini 3's
    thought ``extras``, kept), its other content blocks stay where they are, and its
    other fields (``response_metadata`` with Gemini's ``grounding_metadata``, tool
    calls, usage) are kept. Needs ``langchain-core``
    (extra ``langchain``).

    >>> message = to_ai_message({"type": "ai", "content": ["Grüße ", "aus Köln 🌉."],
    ...     "response_metadata": {"grounding_metadata": {
    ...         "grounding_chunks": [{"web": {"uri": "https://k.example", "title": "Köln"}}],
    ...         "grounding_supports": [{"segment": {"start_index": 12, "end_index": 17},
    ...             "grounding_chunk_indices": [0]}]}}})
    >>> [(b["text"], [(a["start_index"], a["end_index"], a["cited_text"]) for a in
    ...     b["annotations"]]) for b in message.content]
    [('Grüße ', []), ('aus Köln 🌉.', [(4, 8, 'Köln')])]

    Raises:
        MissingDependencyError: langchain-core is not installed (``pip install
            'grounding-protos[langchain]'``); an ``ImportError`` too.
        CitationError: the input has no answer text (code ``"text-missing"``).
        UnsupportedInputError, OffsetError, ArgumentValueError: as :func:`read`.
    """
    try:
        from langchain_core.messages import AIMessage
    except ImportError as exc:
        raise MissingDependencyError(
            "to_ai_message builds a LangChain AIMessage and needs langchain-core: "
            "pip install 'grounding-protos[langchain]'"
        ) from exc
    grounded = _grounded(obj, text, candidate, errors)
    if grounded.text is None:
        raise _no_text("to_ai_message", "char")
    texts = _text_parts(obj, grounded, candidate)
    blocks = _blocks(grounded, texts)
    if isinstance(obj, AIMessage):
        content = _merged_content(obj.content, blocks)
        meta = {**copy.deepcopy(obj.response_metadata), "output_version": "v1"}
        return obj.model_copy(update={"content": content, "response_metadata": meta}, deep=True)
    return AIMessage(content=blocks, response_metadata={"output_version": "v1"})  # type: ignore[arg-type]


def _text_parts(obj: object, grounded: Grounded, candidate: int) -> list[str]:
    """The answer's text parts (thought parts left out), when they join into its text."""
    if not isinstance(obj, Grounded):
        from grounding_protos._sources.registry import read_input

        try:
            raw = read_input(obj, candidate=candidate)
        except GroundingProtosError:  # pragma: no cover - read() read it just now
            raw = None
        parts = raw.parts if raw is not None else None
        if parts:
            texts = [p.text for p in parts if p.text is not None and not p.thought]
            if texts and "".join(texts) == grounded.text:
                return texts
    return [grounded.text or ""]


def _blocks(grounded: Grounded, texts: list[str]) -> list[dict[str, Any]]:
    """One v1 text block per part; each citation on its block, in string indices."""
    spans = spans_in(grounded, "char", "to_ai_message")
    annotations = _lc_annotations(grounded, spans)
    bounds: list[tuple[int, int]] = []
    at = 0
    for t in texts:
        bounds.append((at, at + len(t)))
        at += len(t)
    blocks: list[dict[str, Any]] = [{"type": "text", "text": t, "annotations": []} for t in texts]
    full = grounded.text or ""
    for record in annotations:
        start, end = record["start_index"], record["end_index"]
        for b, (first, last) in enumerate(bounds):
            lo, hi = max(start, first), min(end, last)
            if start == end:  # an empty span: on the block it starts, or the last one
                if not (first <= start < last or (b == len(bounds) - 1 and start == last)):
                    continue
            elif lo >= hi:
                continue  # not on this block
            piece = dict(record)
            piece["start_index"], piece["end_index"] = lo - first, hi - first
            if (lo, hi) != (start, end):  # a piece of a span that crosses blocks
                piece["cited_text"] = full[lo:hi]
            if "extras" in piece:
                piece["extras"] = copy.deepcopy(piece["extras"])
            blocks[b]["annotations"].append(piece)
            if start == end:
                break
    return blocks


def _merged_content(content: object, blocks: list[dict[str, Any]]) -> list[Any]:
    """A message's content with its text items replaced, in order, by ``blocks``."""
    if isinstance(content, str):
        return list(blocks)
    out: list[Any] = []
    pending = iter(blocks)
    for item in content if isinstance(content, list) else []:
        is_text = isinstance(item, str) or (isinstance(item, dict) and item.get("type") == "text")
        if is_text:
            block = next(pending, None)
            if block is not None:  # a dict block's other keys (id, extras) are kept
                kept = copy.deepcopy(item) if isinstance(item, dict) else {}
                out.append({**kept, **block})
        else:
            out.append(copy.deepcopy(item))
    out.extend(pending)
    return out


def _lc_source(source: Source) -> tuple[dict[str, Any], dict[str, Any]]:
    """A source's ``url`` and ``title``, and its ``extras``."""
    head: dict[str, Any] = {}
    if source.uri:
        head["url"] = source.uri
    head["title"] = source.label
    return head, _extras(source)


def _lc_record(
    head: dict[str, Any],
    span: dict[str, Any],
    source_extras: dict[str, Any],
    confidence: float | None,
    grounding: float | None,
) -> dict[str, Any]:
    """One citation block: the source's head, the span, then the extras; each record
    owns its dicts (no aliasing between records)."""
    record: dict[str, Any] = {"type": "citation", **head, **span}
    extras = {**source_extras}
    if "custom_metadata" in extras:
        extras["custom_metadata"] = dict(extras["custom_metadata"])
    if "details" in extras:
        extras["details"] = copy.deepcopy(extras["details"])
    if confidence is not None:
        extras["confidence_score"] = confidence
    if grounding is not None:
        extras["grounding_score"] = grounding
    if extras:
        record["extras"] = extras
    return record


def _extras(source: Source) -> dict[str, Any]:
    """What else identifies ``source``, each only when set."""
    fields: tuple[tuple[str, object], ...] = (
        ("source_id", source.id),
        ("source_kind", source.kind if source.kind != "other" else None),
        ("domain", source.domain),
        ("document", source.document),
        ("chunk", source.chunk),
        ("page", source.page),
        ("place_id", source.place_id),
        ("file_search_store", source.file_search_store),
        ("custom_metadata", dict(source.custom_metadata) or None),
        ("license", source.license),
        ("publication_date", source.publication_date),
        ("relevance_score", source.score),
        ("redirect_uri", source.redirect_uri),
        ("source_text", source.text),
    )
    out = {k: v for k, v in fields if v is not None}
    details = details_dict(source)
    for name in ("place_id", "store", "license", "publication_date"):  # already above
        details.pop(name, None)
    if details:
        out["details"] = details
    return out


def details_dict(source: Source) -> dict[str, Any]:
    """``source.details`` as plain JSON values (only the fields that are set; review
    snippets and their authors as dicts), ``{}`` when it has none.

    >>> from grounding_protos.citations import PlaceInfo, ReviewSnippet, Source
    >>> details_dict(Source(kind="maps", details=PlaceInfo(
    ...     "ChIJ7", (ReviewSnippet(id="r1", flag_uri="https://maps.example/flag"),))))
    {'place_id': 'ChIJ7', 'reviews': [{'id': 'r1', 'flag_uri': 'https://maps.example/flag'}]}
    """
    details = source.details
    return _plain(details) if details is not None else {}


def _plain(record: object) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(record):  # type: ignore[arg-type]
        value = getattr(record, f.name)
        if value is None or value == ():
            continue
        if dataclasses.is_dataclass(value):
            value = _plain(value)
        elif isinstance(value, tuple):
            value = [_plain(v) if dataclasses.is_dataclass(v) else v for v in value]
        out[f.name] = value
    return out


public("grounding_protos.convert", to_openai_annotations, to_langchain_blocks, to_ai_message)
