"""Reading pydantic-ai's ``ModelResponse`` and the JSON of ``ModelMessagesTypeAdapter``
(a message history: its last ``response`` is read).

pydantic-ai is not imported: a response is ``kind: "response"`` with a list of
``parts``, each with a ``part_kind``. The answer text is its ``text`` parts joined.
A ``TextPart`` carries ``citations`` (pydantic-ai's own: ``anchor.start``/``anchor.end``
count characters of that part's ``content``; ``kind: "marker"`` spans a marker the
model wrote; no anchor, a source of the whole answer) and, from its Google model,
``provider_details["citations"]``: Gemini's grounding supports, index for index beside
``citations``, each with the ``grounding_chunks`` its indices name. Where a support is
there, it is read (Gemini's UTF-8 byte offsets, into the joined text or, with a
``part_index``, into this part) and pydantic-ai's own anchor is checked against it: a
difference is a ``framework-disagreement`` problem (raised under ``errors="strict"``),
so one framework checks the other. Elsewhere (other providers) pydantic-ai's own
citations are read.

>>> raw = read_response({"kind": "response", "parts": [{"part_kind": "text",
...     "content": "Grüße aus Köln.", "citations": [{"sources": [{"kind": "web",
...     "url": "https://k.example"}], "anchor": {"kind": "content", "start": 10, "end": 14}}]}]}, 0)
>>> raw.text, raw.unit, (raw.spans[0].start, raw.spans[0].end)
('Grüße aus Köln.', 'byte', (12, 17))
"""

from __future__ import annotations

from grounding_protos._core.access import get, items, text_or_none, unwrap
from grounding_protos._core.model import Problem, Source
from grounding_protos._core.raw import RawAnswer, RawPart, RawSpan
from grounding_protos._exceptions import UnsupportedInputError
from grounding_protos._quote import shown
from grounding_protos._sources.common import SourceTable, is_list, is_record, string
from grounding_protos._sources.google.gemini import reader as gemini

_THOUGHT = "thinking"


def _is_part(part: object) -> bool:
    return is_record(part) and isinstance(string(part, "part_kind"), str)


def is_response(obj: object) -> bool:
    """A ``ModelResponse`` (``kind`` ``"response"``, ``parts`` of ``part_kind``s), or a
    message history (a list of ``request``/``response`` messages) with one."""
    if isinstance(obj, (list, tuple)):
        kinds = [string(m, "kind") for m in obj]
        return (
            bool(kinds) and "response" in kinds and all(k in ("request", "response") for k in kinds)
        )
    if string(obj, "kind") != "response":
        return False
    parts = get(obj, "parts")
    return is_list(parts) and all(map(_is_part, parts))


def read_response(obj: object, candidate: int) -> RawAnswer:
    prefix = ""
    if isinstance(obj, (list, tuple)):
        responses = [i for i, m in enumerate(obj) if string(m, "kind") == "response"]
        if candidate != 0:
            raise UnsupportedInputError(
                f"a pydantic-ai message history has one answer per response (its last is "
                f"read); candidate={candidate} does not apply"
            )
        prefix = f"[{responses[-1]}]."
        obj = unwrap(obj[responses[-1]])
    elif candidate != 0:
        raise UnsupportedInputError(
            f"a pydantic-ai ModelResponse has one answer; candidate={candidate} is out of range"
        )
    raw = RawAnswer("none", prefix)
    raw.parts = []
    texts: list[str] = []
    spans: list[tuple[int, int, object, str]] = []  # index, byte start, part, content
    at_byte = 0
    for i, part in enumerate(items(obj, "parts")):
        kind = string(part, "part_kind")
        content = string(part, "content")
        if kind != "text" or content is None:
            raw.parts.append(RawPart(i, content if kind == _THOUGHT else None, kind == _THOUGHT))
            continue
        raw.parts.append(RawPart(i, content, False))
        texts.append(content)
        spans.append((i, at_byte, part, content))
        at_byte += len(content.encode("utf-8", "surrogatepass"))
    raw.text = "".join(texts) if texts else None
    _Citations(raw, prefix).read(spans)
    reason = string(obj, "finish_reason")
    raw.finish_reason = reason
    return raw


class _Citations:
    """The spans of every text part: Gemini's supports where they are, else pydantic-ai's."""

    def __init__(self, raw: RawAnswer, prefix: str) -> None:
        self.raw = raw
        self.prefix = prefix
        self.table = SourceTable(raw)
        self.chunks: dict[int, int] = {}  # a Gemini chunk index -> its ref in raw.sources

    def read(self, parts: list[tuple[int, int, object, str]]) -> None:
        for index, at_byte, part, content in parts:
            details = get(get(part, "provider_details"), "citations")
            supports = list(details) if is_list(details) else []
            for j, citation in enumerate(items(part, "citations")):
                path = f"parts[{index}].citations[{j}]"
                support = supports[j] if j < len(supports) else None
                if is_record(support) and is_record(get(support, "segment")):
                    self.support(support, f"parts[{index}].provider_details.citations[{j}]",
                                 index, at_byte, content, citation, path)  # fmt: skip
                else:
                    self.own(citation, path, at_byte, content)

    def support(
        self,
        support: object,
        path: str,
        index: int,
        at_byte: int,
        content: str,
        citation: object,
        own_path: str,
    ) -> None:
        """A Gemini support kept in ``provider_details``, checked against pydantic-ai's anchor."""
        segment = get(support, "segment")
        start, end, part = (get(segment, n) for n in ("start_index", "end_index", "part_index"))
        span = RawSpan(
            self.prefix + path, start, end, "support", index if part is not None else None,
            True, get(segment, "text"), ref_path=".grounding_chunk_indices[{}]",
            offsets=".segment",
        )  # fmt: skip
        chunks = items(support, "grounding_chunks")
        for k, chunk_index in enumerate(items(support, "grounding_chunk_indices")):
            ref = self.chunks.get(chunk_index) if isinstance(chunk_index, int) else None
            if (
                ref is None
                and k < len(chunks)
                and is_record(chunks[k])
                and isinstance(chunk_index, int)
            ):
                source = gemini.chunk_source(chunks[k], chunk_index)
                where = f"{self.prefix}{path}.grounding_chunks[{k}]"
                ref = self.chunks[chunk_index] = self.table.ref(source, where)
            if ref is None:
                self.raw.notes.append(
                    Problem(
                        "chunk-index-out-of-range",
                        f"grounding chunk index {shown(chunk_index)} names no chunk that "
                        "pydantic-ai kept beside the support; the source was left out",
                        f"{self.prefix}{path}.grounding_chunk_indices[{k}]",
                    )
                )
            else:
                span.refs.append(ref)
        span.source_scores = items(support, "confidence_scores")
        self.raw.spans.append(span)
        self.check(span, at_byte if part is None else 0, content, citation, own_path)

    def check(self, span: RawSpan, origin: int, content: str, citation: object, path: str) -> None:
        """pydantic-ai's anchor of the same citation must cover the support's text."""
        anchor = get(citation, "anchor")
        own = (get(anchor, "start"), get(anchor, "end"))
        start, end = span.start if span.start is not None else 0, span.end
        if not all(isinstance(v, int) for v in (*own, start, end)):
            return
        data = content.encode("utf-8", "surrogatepass")
        first, last = start - origin, end - origin  # type: ignore[operator]
        if not 0 <= first <= last <= len(data):
            return  # out of this part: resolve reports the support's offsets
        try:
            chars = (len(data[:first].decode()), len(data[:last].decode()))
        except UnicodeDecodeError:
            return  # the support splits a character: resolve reports it
        if chars != own:
            self.raw.notes.append(
                Problem(
                    "framework-disagreement",
                    f"pydantic-ai places this citation at characters {shown(own[0])}.."
                    f"{shown(own[1])} of its part, Gemini's support at {chars[0]}..{chars[1]}",
                    f"{self.prefix}{path}.anchor",
                )
            )

    def own(self, citation: object, path: str, at_byte: int, content: str) -> None:
        """pydantic-ai's own citation: character positions within the part. Without a
        position (no anchor, or one with neither ``start`` nor ``end``) its sources are
        sources of the whole answer, declared once; an anchor that is no record keeps
        its value as both positions, for resolve to report."""
        anchor = get(citation, "anchor")
        if is_record(anchor):
            start, end = get(anchor, "start"), get(anchor, "end")
        else:
            start = end = anchor
        if start is None and end is None:
            for k, s in enumerate(items(citation, "sources")):
                self.raw.answer_sources.append((f"{self.prefix}{path}.sources[{k}]", _source(s)))
            return
        sources = [self.source(s, f"{path}.sources[{k}]")
                   for k, s in enumerate(items(citation, "sources"))]  # fmt: skip
        start, end = _byte(start, content, at_byte), _byte(end, content, at_byte)
        span = RawSpan(self.prefix + path, start, end, "citation", ref_path=".sources[{}]",
                       offsets=".anchor", names=("start", "end", "part_index"))  # fmt: skip
        span.refs = list(sources)
        self.raw.spans.append(span)

    def source(self, value: object, path: str) -> int:
        return self.table.ref(_source(value), self.prefix + path)


def _byte(value: object, content: str, at_byte: int) -> object:
    """A character position of a part as a byte offset into the joined text; one past the
    part stays past it (resolve reports it), what is not an int as it is."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return value
    if 0 <= value <= len(content):
        return at_byte + len(content[:value].encode("utf-8", "surrogatepass"))
    return at_byte + len(content.encode("utf-8", "surrogatepass")) + max(value - len(content), 1)


def _source(value: object) -> Source:
    kind = string(value, "kind")
    excerpts = [e for e in items(value, "excerpts") if isinstance(e, str) and e]
    text = "\n".join(excerpts) or None
    if kind == "web":
        return Source(uri=text_or_none(get(value, "url")), title=text_or_none(get(value, "title")),
                      kind="web", text=text)  # fmt: skip
    return Source(title=text_or_none(get(value, "title")), kind="document",
                  document=text_or_none(get(value, "document_id")), text=text)  # fmt: skip
