"""Reading grounded answers of every input kind into raw span records.

:func:`read_input` decides which shape an input has and runs that shape's reader;
each reader turns it into a :class:`~grounding_protos._raw.RawAnswer` through the
field access of ``_access`` (messages, proto-plus and SDK objects, REST JSON dicts
in camelCase or snake_case alike). The records keep raw values (an int64 may be a
JSON string, a score anything); ``_resolve`` checks and converts them, so ``read``
and ``validate`` share every check.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from google.protobuf.message import Message

from grounding_protos._access import (
    fields,
    float_or_none,
    get,
    has,
    items,
    text_or_none,
    titled,
    unwrap,
)
from grounding_protos._exceptions import UnsupportedInputError
from grounding_protos._model import CitationKind, SearchInfo, Source, UrlStatus
from grounding_protos._raw import RawAnswer, RawPart, RawRef, RawSpan, Shape

_BY_FULL_NAME: dict[str, Shape] = {
    "google.cloud.discoveryengine.v1.Answer": "answer",
    "google.cloud.dialogflow.v2beta1.GroundingMetadata": "grounding_metadata",
    "google.ai.generativelanguage.v1beta3.CitationMetadata": "citation_metadata",
}


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
    raw = _read_shape(obj, candidate)
    if not raw.input_shape:
        raw.input_shape = "gemini_candidate" if raw.shape == "candidate" else raw.shape
    return raw


def _read_shape(obj: object, candidate: int) -> RawAnswer:
    prefix = ""
    outer = ""
    if not isinstance(obj, Message) or obj.DESCRIPTOR.full_name not in _BY_FULL_NAME:
        inner = get(obj, "answer")  # a Discovery Engine AnswerQueryResponse
        if inner is not None and classify(unwrap(inner)) == "answer":
            obj, prefix, outer = unwrap(inner), "answer.", "answer_query_response"
        elif has(obj, "candidates"):  # a Gemini GenerateContentResponse
            candidates = items(obj, "candidates")
            if not 0 <= candidate < len(candidates):
                raise UnsupportedInputError(
                    f"the response has {len(candidates)} candidates; "
                    f"candidate={candidate} is out of range"
                )
            obj, prefix = unwrap(candidates[candidate]), f"candidates[{candidate}]."
            outer = "gemini_response"
    shape = classify(obj)
    if shape == "answer":
        raw = _read_answer(obj, prefix)
    elif shape == "grounding_metadata":
        raw = RawAnswer(shape, prefix)
        _read_grounding_metadata(obj, prefix, raw)
    elif shape == "citation_metadata":
        raw = RawAnswer(shape, prefix)
        _read_citation_metadata(obj, prefix, raw)
    elif shape == "candidate":
        raw = _read_candidate(obj, prefix)
    else:
        raise _unsupported(obj)
    raw.input_shape = outer
    return raw


def _unsupported(obj: object) -> UnsupportedInputError:
    return UnsupportedInputError(
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
        return titled(
            meta,
            ident,
            "chunk",
            document=text_or_none(get(meta, "document")),
            chunk=text_or_none(get(chunk, "chunk")),
            page=text_or_none(get(meta, "page_identifier")),
            text=text_or_none(get(chunk, "content")),
            score=float_or_none(get(chunk, "relevance_score")),
        )
    info = get(reference, "unstructured_document_info")
    if info is not None:
        contents = items(info, "chunk_contents")
        texts = [t for t in (text_or_none(get(c, "content")) for c in contents) if t]
        pages = [p for p in (text_or_none(get(c, "page_identifier")) for c in contents) if p]
        scores = [
            s for s in (float_or_none(get(c, "relevance_score")) for c in contents) if s is not None
        ]
        return titled(
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
        return titled(
            info,
            ident,
            "structured_document",
            document=text_or_none(get(info, "document")),
        )
    return Source(id=ident, kind="other")


# --- Gemini / Dialogflow GroundingMetadata ----------------------------------------------


def _read_grounding_metadata(meta: object, prefix: str, raw: RawAnswer) -> None:
    entry = get(meta, "search_entry_point")
    raw.search = SearchInfo(
        queries=_strings(meta, "web_search_queries"),
        rendered_content=text_or_none(get(entry, "rendered_content")),
        retrieval_queries=_strings(meta, "retrieval_queries"),
        url_statuses=raw.search.url_statuses,
    )
    raw.source_kind = "chunks"
    for i, chunk in enumerate(items(meta, "grounding_chunks")):
        raw.sources.append((f"{prefix}grounding_chunks[{i}]", _chunk_source(chunk, i)))
    for i, support in enumerate(items(meta, "grounding_supports")):
        path = f"{prefix}grounding_supports[{i}]"
        segment, indices, scores = fields(
            support, "segment", "grounding_chunk_indices", "confidence_scores"
        )
        start, end, part, text = fields(segment, "start_index", "end_index", "part_index", "text")
        span = RawSpan(
            path, f"{path}.segment", start, end, "support", part=part, part_relative=True,
            segment_text=text,
        )  # fmt: skip
        if type(indices) is not list:
            indices = items(support, "grounding_chunk_indices")
        span.refs = [
            RawRef(f"{path}.grounding_chunk_indices[{j}]", index, "chunk_index")
            for j, index in enumerate(indices)
        ]
        span.source_scores = scores if type(scores) is list else items(support, "confidence_scores")
        raw.spans.append(span)


def _chunk_source(chunk: object, index: int) -> Source:
    ident = str(index)
    web = get(chunk, "web")
    if web is not None:
        return titled(
            web,
            ident,
            "web",
            domain=text_or_none(get(web, "domain")),
        )
    context = get(chunk, "retrieved_context")
    if context is not None:
        page = get(context, "page_number")
        return titled(
            context,
            ident,
            "retrieved_context",
            document=text_or_none(get(context, "document_name")),
            page=str(page) if isinstance(page, (int, str)) and page != "" else None,
            text=text_or_none(get(context, "text")),
            file_search_store=text_or_none(get(context, "file_search_store")),
            custom_metadata=_custom_metadata(context),
        )
    maps = get(chunk, "maps")
    if maps is not None:
        return titled(
            maps,
            ident,
            "maps",
            text=text_or_none(get(maps, "text")),
            place_id=text_or_none(get(maps, "place_id")),
        )
    return Source(id=ident, kind="other")


def _custom_metadata(obj: object) -> tuple[tuple[str, str], ...]:
    """File Search ``customMetadata`` entries as ``(key, value)`` strings."""
    out = []
    for entry in items(obj, "custom_metadata"):
        key = text_or_none(get(entry, "key"))
        if key is None:
            continue
        value: object = get(entry, "string_value")
        if value is None and get(entry, "numeric_value") is not None:
            value = get(entry, "numeric_value")
        if value is None:
            values = items(get(entry, "string_list_value"), "values")
            value = ", ".join(v for v in values if isinstance(v, str)) if values else None
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        out.append((key, str(value)))
    return tuple(out)


def _strings(obj: object, name: str) -> tuple[str, ...]:
    return tuple(v for v in items(obj, name) if isinstance(v, str) and v)


# --- CitationMetadata (v1beta3, Gemini, Vertex) -------------------------------------


def _read_citation_metadata(meta: object, prefix: str, raw: RawAnswer) -> None:
    name = "citation_sources" if has(meta, "citation_sources") else "citations"
    for i, item in enumerate(items(meta, name)):
        path = f"{prefix}{name}[{i}]"
        span = RawSpan(path, path, get(item, "start_index"), get(item, "end_index"), "citation")
        span.inline_source = titled(
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
    raw.finish_reason = _enum_name(candidate, "finish_reason")
    statuses = []
    for entry in items(get(candidate, "url_context_metadata"), "url_metadata"):
        url = text_or_none(get(entry, "retrieved_url"))
        if url is not None:
            statuses.append(UrlStatus(url, _enum_name(entry, "url_retrieval_status") or ""))
    if statuses:
        raw.search = SearchInfo(
            raw.search.queries, raw.search.rendered_content, raw.search.retrieval_queries,
            tuple(statuses),
        )  # fmt: skip
    citations = get(candidate, "citation_metadata")
    if citations is not None:
        cited = RawAnswer("citation_metadata", "")
        _read_citation_metadata(unwrap(citations), f"{prefix}citation_metadata.", cited)
        raw.spans.extend(cited.spans)
    return raw


def _enum_name(obj: object, name: str) -> str | None:
    """An enum field's name, from a JSON string, a str enum (google-genai) or a message."""
    value = get(obj, name)
    if isinstance(value, str):
        value = getattr(value, "value", value)  # a str Enum member
        return value if isinstance(value, str) and value else None
    if isinstance(obj, Message) and isinstance(value, int) and value:
        field = obj.DESCRIPTOR.fields_by_name.get(name)
        enum = field.enum_type if field is not None else None
        number = enum.values_by_number.get(value) if enum is not None else None
        return number.name if number is not None else str(value)
    return None


def _parts(parts: Sequence[object]) -> Iterator[RawPart]:
    for i, part in enumerate(parts):
        text = get(part, "text")
        yield RawPart(i, text if isinstance(text, str) else None, get(part, "thought") is True)
