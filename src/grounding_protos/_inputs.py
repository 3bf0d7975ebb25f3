"""Reading grounded answers of every input kind into raw span records.

One reader serves all inputs: our messages and the official raw protobuf messages
(field access by proto name), proto-plus objects (unwrapped to their raw message
with ``type(obj).pb(obj)``), google-genai objects (attributes in snake_case, ``None``
when absent) and REST JSON dicts (camelCase or snake_case keys). Nothing here
imports the official libraries or google-genai.

The records keep raw values (an int64 may be a JSON string, a score anything);
``_resolve`` checks and converts them, so ``extract`` and ``validate`` share every
check.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from google.protobuf.message import Message

from grounding_protos._exceptions import UnsupportedInputError
from grounding_protos._model import CitationKind, Source, SourceKind
from grounding_protos._pool import is_repeated

Shape = Literal["answer", "grounding_metadata", "citation_metadata", "candidate", "none"]

_BY_FULL_NAME: dict[str, Shape] = {
    "google.cloud.discoveryengine.v1.Answer": "answer",
    "google.cloud.dialogflow.v2beta1.GroundingMetadata": "grounding_metadata",
    "google.ai.generativelanguage.v1beta3.CitationMetadata": "citation_metadata",
}
_CAMEL = re.compile(r"_([a-z0-9])")


# --- Field access over dicts, messages and SDK objects --------------------------------


def camel(name: str) -> str:
    """``start_index`` -> ``startIndex`` (proto3 JSON names)."""
    return _CAMEL.sub(lambda m: m.group(1).upper(), name)


def get(obj: object, name: str) -> Any:
    """Field ``name`` (snake_case) of ``obj``, or ``None`` when absent or unset."""
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        if name in obj:
            return obj[name]
        return obj.get(camel(name))
    if isinstance(obj, Message):
        fields = obj.DESCRIPTOR.fields_by_name
        # proto-plus libraries name fields that shadow builtins with a "_" (license_).
        descriptor = fields.get(name) or fields.get(name + "_")
        if descriptor is None:
            return None
        name = descriptor.name
        if not is_repeated(descriptor) and descriptor.has_presence and not obj.HasField(name):
            return None
        return getattr(obj, name)
    return getattr(obj, name, None)


def has(obj: object, name: str) -> bool:
    """Whether ``obj`` carries field ``name`` with a non-empty value."""
    value = get(obj, name)
    if value is None:
        return False
    if isinstance(value, (str, bytes, Mapping)) or hasattr(value, "__len__"):
        try:
            return len(value) > 0
        except TypeError:
            return True
    return True


def items(obj: object, name: str) -> list[Any]:
    """The elements of a repeated field (``[]`` when absent; a non-list counts as absent)."""
    value = get(obj, name)
    if value is None or isinstance(value, (str, bytes, Mapping)):
        return []
    try:
        return list(value)
    except TypeError:
        return []


def unwrap(obj: object) -> object:
    """A proto-plus object's raw protobuf message; anything else unchanged."""
    if isinstance(obj, (Mapping, Message)):
        return obj
    pb = getattr(type(obj), "pb", None)
    if callable(pb) and hasattr(type(obj), "meta"):
        try:
            raw = pb(obj)
        except Exception:
            return obj
        if isinstance(raw, Message):
            return raw
    return obj


def _titled(obj: object, ident: str, kind: SourceKind, **fields: Any) -> Source:
    """A :class:`Source` with the ``uri`` and ``title`` of ``obj`` and the given fields."""
    uri, title = text_or_none(get(obj, "uri")), text_or_none(get(obj, "title"))
    return Source(uri=uri, title=title, id=ident, kind=kind, **fields)


def text_or_none(value: object) -> str | None:
    """A string value, or ``None`` for absent, empty or non-string values."""
    return value if isinstance(value, str) and value else None


# --- Raw records ----------------------------------------------------------------------


@dataclass
class RawRef:
    """A pointer from a span to a source: a chunk index or a ``reference_id``."""

    path: str
    value: object
    kind: Literal["chunk_index", "reference_id"]


@dataclass
class RawSpan:
    """A span as found in the input, values unchecked."""

    path: str  # the span record: "citations[3]"
    offsets_path: str  # where start_index/end_index live: "…segment"
    start: object
    end: object
    kind: CitationKind
    part: object = None
    part_relative: bool = False  # offsets relative to the content part `part` (Gemini)
    segment_text: object = None
    refs: list[RawRef] = field(default_factory=list)
    inline_source: Source | None = None  # CitationSource carries its own source
    score: object = None
    source_scores: list[object] = field(default_factory=list)


@dataclass
class RawPart:
    """One part of the answer's content (Gemini), by its index among all parts."""

    index: int
    text: str | None  # None: not a text part
    thought: bool


@dataclass
class RawAnswer:
    """Everything read from one input, before checks."""

    shape: Shape
    prefix: str  # path prefix of the citation-bearing object ("candidates[0].")
    text: str | None = None
    parts: list[RawPart] | None = None  # Gemini content parts, when present
    spans: list[RawSpan] = field(default_factory=list)
    sources: list[tuple[str, Source]] = field(default_factory=list)  # (path, source)
    source_kind: Literal["chunks", "references", "none"] = "none"


# --- Shapes ---------------------------------------------------------------------------


def classify(obj: object) -> Shape:
    """Which schema an object has (by full name for messages, by fields otherwise)."""
    if isinstance(obj, Message):
        known = _BY_FULL_NAME.get(obj.DESCRIPTOR.full_name)
        if known is not None:
            return known
    if has(obj, "answer_text") or has(obj, "references"):
        return "answer"
    if any(has(c, "sources") for c in items(obj, "citations")) or any(
        has(s, "sources") or has(s, "start_index") for s in items(obj, "grounding_supports")
    ):
        return "answer"
    if has(obj, "content") or has(obj, "grounding_metadata") or has(obj, "citation_metadata"):
        return "candidate"
    if any(has(obj, n) for n in ("grounding_supports", "grounding_chunks", "web_search_queries")):
        return "grounding_metadata"
    if has(obj, "citation_sources") or has(obj, "citations"):
        return "citation_metadata"
    return "none"


def read_input(obj: object, *, candidate: int = 0) -> RawAnswer:
    """Read any supported input into a :class:`RawAnswer`.

    Raises:
        UnsupportedInputError: the object has none of the supported shapes.
    """
    obj = unwrap(obj)
    prefix = ""
    if not isinstance(obj, Message) or obj.DESCRIPTOR.full_name not in _BY_FULL_NAME:
        inner = get(obj, "answer")  # a Discovery Engine AnswerQueryResponse
        if inner is not None and classify(unwrap(inner)) == "answer":
            obj, prefix = unwrap(inner), "answer."
        elif has(obj, "candidates"):  # a Gemini GenerateContentResponse
            candidates = items(obj, "candidates")
            if not 0 <= candidate < len(candidates):
                raise UnsupportedInputError(
                    f"the response has {len(candidates)} candidates; "
                    f"candidate={candidate} is out of range"
                )
            obj, prefix = unwrap(candidates[candidate]), f"candidates[{candidate}]."
    shape = classify(obj)
    if shape == "answer":
        return _read_answer(obj, prefix)
    if shape == "grounding_metadata":
        raw = RawAnswer(shape, prefix)
        _read_grounding_metadata(obj, prefix, raw)
        return raw
    if shape == "citation_metadata":
        raw = RawAnswer(shape, prefix)
        _read_citation_metadata(obj, prefix, raw)
        return raw
    if shape == "candidate":
        return _read_candidate(obj, prefix)
    raise UnsupportedInputError(
        f"cannot read citations from {_describe(obj)}: expected a Discovery Engine Answer "
        "(or answer response), a Gemini response or candidate, a GroundingMetadata or a "
        "CitationMetadata — as a message, an official client or google-genai object, "
        "or a REST JSON dict"
    )


def _describe(obj: object) -> str:
    if isinstance(obj, Message):
        return f"a {obj.DESCRIPTOR.full_name} message"
    if isinstance(obj, Mapping):
        keys = ", ".join(sorted(map(str, obj))[:6])
        return f"a dict with keys {{{keys}}}" if obj else "an empty dict"
    return f"an object of type {type(obj).__module__}.{type(obj).__qualname__}"


# --- Discovery Engine Answer ----------------------------------------------------------


def _read_answer(answer: object, prefix: str) -> RawAnswer:
    text = get(answer, "answer_text")
    raw = RawAnswer("answer", prefix, text=text if isinstance(text, str) else None)
    raw.source_kind = "references"
    for i, reference in enumerate(items(answer, "references")):
        raw.sources.append((f"{prefix}references[{i}]", _reference_source(reference, i)))
    kinds: tuple[tuple[str, CitationKind], ...] = (
        ("citations", "citation"), ("grounding_supports", "support"),
    )  # fmt: skip
    for name, kind in kinds:
        for i, item in enumerate(items(answer, name)):
            path = f"{prefix}{name}[{i}]"
            span = RawSpan(path, path, get(item, "start_index"), get(item, "end_index"), kind)
            for j, source in enumerate(items(item, "sources")):
                span.refs.append(
                    RawRef(f"{path}.sources[{j}].reference_id", get(source, "reference_id"),
                           "reference_id")
                )  # fmt: skip
            if kind == "support":
                span.score = get(item, "grounding_score")
            raw.spans.append(span)
    return raw


def _reference_source(reference: object, index: int) -> Source:
    ident = str(index)
    chunk = get(reference, "chunk_info")
    if chunk is not None:
        meta = get(chunk, "document_metadata")
        return _titled(
            meta,
            ident,
            "chunk",
            document=text_or_none(get(meta, "document")),
            chunk=text_or_none(get(chunk, "chunk")),
            page=text_or_none(get(meta, "page_identifier")),
            text=text_or_none(get(chunk, "content")),
            score=_float_or_none(get(chunk, "relevance_score")),
        )
    info = get(reference, "unstructured_document_info")
    if info is not None:
        contents = items(info, "chunk_contents")
        texts = [t for t in (text_or_none(get(c, "content")) for c in contents) if t]
        pages = [p for p in (text_or_none(get(c, "page_identifier")) for c in contents) if p]
        scores = [
            s
            for s in (_float_or_none(get(c, "relevance_score")) for c in contents)
            if s is not None
        ]
        return _titled(
            info,
            ident,
            "unstructured_document",
            document=text_or_none(get(info, "document")),
            page=pages[0] if pages else None,
            text="\n".join(texts) if texts else None,
            score=max(scores) if scores else None,
        )
    info = get(reference, "structured_document_info")
    if info is not None:
        return _titled(
            info,
            ident,
            "structured_document",
            document=text_or_none(get(info, "document")),
        )
    return Source(id=ident, kind="other")


# --- Gemini / Dialogflow GroundingMetadata ----------------------------------------------


def _read_grounding_metadata(meta: object, prefix: str, raw: RawAnswer) -> None:
    raw.source_kind = "chunks"
    for i, chunk in enumerate(items(meta, "grounding_chunks")):
        raw.sources.append((f"{prefix}grounding_chunks[{i}]", _chunk_source(chunk, i)))
    for i, support in enumerate(items(meta, "grounding_supports")):
        path = f"{prefix}grounding_supports[{i}]"
        segment = get(support, "segment")
        span = RawSpan(
            path,
            f"{path}.segment",
            get(segment, "start_index"),
            get(segment, "end_index"),
            "support",
            part=get(segment, "part_index"),
            part_relative=True,
            segment_text=get(segment, "text"),
        )
        for j, index in enumerate(items(support, "grounding_chunk_indices")):
            span.refs.append(RawRef(f"{path}.grounding_chunk_indices[{j}]", index, "chunk_index"))
        span.source_scores = items(support, "confidence_scores")
        raw.spans.append(span)


def _chunk_source(chunk: object, index: int) -> Source:
    ident = str(index)
    web = get(chunk, "web")
    if web is not None:
        return _titled(
            web,
            ident,
            "web",
            domain=text_or_none(get(web, "domain")),
        )
    context = get(chunk, "retrieved_context")
    if context is not None:
        page = get(context, "page_number")
        return _titled(
            context,
            ident,
            "retrieved_context",
            document=text_or_none(get(context, "document_name")),
            page=str(page) if isinstance(page, (int, str)) and page != "" else None,
            text=text_or_none(get(context, "text")),
        )
    maps = get(chunk, "maps")
    if maps is not None:
        return _titled(
            maps,
            ident,
            "maps",
            text=text_or_none(get(maps, "text")),
        )
    return Source(id=ident, kind="other")


# --- CitationMetadata (v1beta3, Gemini, Vertex) -------------------------------------


def _read_citation_metadata(meta: object, prefix: str, raw: RawAnswer) -> None:
    name = "citation_sources" if has(meta, "citation_sources") else "citations"
    for i, item in enumerate(items(meta, name)):
        path = f"{prefix}{name}[{i}]"
        span = RawSpan(path, path, get(item, "start_index"), get(item, "end_index"), "citation")
        span.inline_source = _titled(
            item,
            str(i),
            "citation_source",
            license=text_or_none(get(item, "license")),
            publication_date=_date(get(item, "publication_date")),
        )
        raw.spans.append(span)


def _date(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return text_or_none(value)
    year, month, day = (get(value, k) for k in ("year", "month", "day"))
    if not isinstance(year, int) or not year:
        return None
    out = f"{year:04d}"
    if isinstance(month, int) and month:
        out += f"-{month:02d}"
        if isinstance(day, int) and day:
            out += f"-{day:02d}"
    return out


# --- Gemini Candidate ---------------------------------------------------------------


def _read_candidate(candidate: object, prefix: str) -> RawAnswer:
    raw = RawAnswer("candidate", prefix)
    content = get(candidate, "content")
    if content is not None:
        raw.parts = list(_parts(items(content, "parts")))
        texts = [p.text for p in raw.parts if p.text is not None and not p.thought]
        raw.text = "".join(texts) if texts else None
    meta = get(candidate, "grounding_metadata")
    if meta is not None:
        _read_grounding_metadata(unwrap(meta), f"{prefix}grounding_metadata.", raw)
    citations = get(candidate, "citation_metadata")
    if citations is not None:
        cited = RawAnswer("citation_metadata", "")
        _read_citation_metadata(unwrap(citations), f"{prefix}citation_metadata.", cited)
        raw.spans.extend(cited.spans)
    return raw


def _parts(parts: Sequence[object]) -> Iterator[RawPart]:
    for i, part in enumerate(parts):
        text = get(part, "text")
        yield RawPart(i, text if isinstance(text, str) else None, get(part, "thought") is True)


def _float_or_none(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:  # an int too large for a float
        return math.inf if value > 0 else -math.inf
