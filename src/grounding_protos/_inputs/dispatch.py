"""Reading grounded answers of every input kind into raw span records.

:func:`read_input` decides which shape an input has and runs that shape's reader;
each reader turns it into a :class:`~grounding_protos._core.raw.RawAnswer` through the
field access of ``_access`` (messages, proto-plus and SDK objects, REST JSON dicts
in camelCase or snake_case alike). The records keep raw values (an int64 may be a
JSON string, a score anything); ``_resolve`` checks and converts them, so ``read``
and ``validate`` share every check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from google.protobuf.message import Message

from grounding_protos._core.access import (
    camel,
    fields,
    float_or_none,
    get,
    has,
    items,
    text_or_none,
    titled,
    unwrap,
)
from grounding_protos._core.model import CitationKind, SearchInfo, Source, UrlStatus
from grounding_protos._core.raw import SHAPES, InputShape, RawAnswer, RawPart, RawSpan
from grounding_protos._exceptions import ArgumentValueError, UnsupportedInputError
from grounding_protos._inputs import anthropic, bedrock, cohere, openai, search
from grounding_protos._inputs.common import (
    describe,
    enum_name,
    enum_names,
    is_list,
    is_record,
    lists_or_absent,
    nonempty_list,
    string,
)
from grounding_protos._offsets import Unit

# --- Dispatch -------------------------------------------------------------------------


@dataclass(frozen=True)
class Reader:
    """One input shape: how to recognize it (from structure only it has) and read it.

    ``keys`` are the fields (snake_case) of which a dict of this shape has at least one:
    the dispatcher skips the reader for a dict with none of them, in either spelling,
    without calling ``matches``.
    """

    shape: InputShape
    matches: Callable[[object], bool]
    read: Callable[[object, int], RawAnswer]  # (input, candidate) -> raw records
    keys: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        spelled = self.keys | {camel(k) for k in self.keys}
        object.__setattr__(self, "keys", frozenset(spelled))


def read_input(obj: object, *, candidate: int = 0, unit: Unit | None = None) -> RawAnswer:
    """Read any supported input into a :class:`RawAnswer`; ``unit`` overrides what the
    shape's offsets are taken to count.

    The readers are tried in the order of :data:`READERS`; a message is read by its
    full type name. ``input_shape`` says which one read it.

    Raises:
        UnsupportedInputError: the object has none of the supported shapes (the
            message names what it saw and the shapes known).
        ArgumentValueError: ``unit`` given for a shape whose spans have no offsets.
    """
    obj = unwrap(obj)
    reader = reader_for(obj)
    raw = reader.read(obj, candidate)
    if raw.input_shape is None:
        raw.input_shape = reader.shape
    if unit is not None:
        if not raw.offsets:
            raise ArgumentValueError(
                f"unit={unit!r} does not apply to {raw.input_shape}: its spans are whole "
                "text blocks, not offsets"
            )
        raw.unit = unit
    return raw


def reader_for(obj: object) -> Reader:
    """The reader of ``obj``'s shape.

    Raises:
        UnsupportedInputError: no reader recognizes it.
    """
    if isinstance(obj, Message):
        shape = _message_shape(obj.DESCRIPTOR.full_name)
        if shape is not None:
            return _BY_SHAPE[shape]
        for reader in READERS:  # another API's message (Gemini, Vertex AI): by structure
            if reader.matches(obj):
                return reader
    elif isinstance(obj, Mapping):
        for reader in READERS:
            if not reader.keys.isdisjoint(obj.keys()) and reader.matches(obj):
                return reader
    else:
        for reader in READERS:
            if reader.matches(obj):
                return reader
    raise unsupported(obj)


def classify(obj: object) -> InputShape | None:
    """The shape ``obj`` has, or ``None`` (no exception).

    >>> classify({"summary": {"summaryText": "…"}}), classify({"content": []})
    ('search_response', None)
    """
    try:
        return reader_for(unwrap(obj)).shape
    except UnsupportedInputError:
        return None


def _message_shape(full_name: str) -> InputShape | None:
    for prefix, names in _MESSAGE_FAMILIES:
        if full_name.startswith(prefix):
            version, _, name = full_name[len(prefix) :].partition(".")
            if version.startswith("v1"):  # v1, v1beta, v1beta1, v1alpha
                return names.get(name)
    return _MESSAGES.get(full_name)


_DISCOVERY_ENGINE_MESSAGES: dict[str, InputShape] = {
    "Answer": "answer",
    "AnswerQueryResponse": "answer_query_response",
    "SearchResponse": "search_response",
    "SearchResponse.Summary": "search_summary",
    "SearchResponse.Summary.SummaryWithMetadata": "summary_with_metadata",
}
# Gemini's messages, in the Gemini API's and Vertex AI's official clients
_GEMINI_MESSAGES: dict[str, InputShape] = {
    "GenerateContentResponse": "gemini_response",
    "Candidate": "gemini_candidate",
    "GroundingMetadata": "grounding_metadata",
    "CitationMetadata": "citation_metadata",
}
_MESSAGE_FAMILIES: tuple[tuple[str, dict[str, InputShape]], ...] = (
    ("google.cloud.discoveryengine.", _DISCOVERY_ENGINE_MESSAGES),
    ("google.ai.generativelanguage.", _GEMINI_MESSAGES),
    ("google.cloud.aiplatform.", _GEMINI_MESSAGES),
)
_MESSAGES: dict[str, InputShape] = {
    "google.cloud.dialogflow.v2beta1.GroundingMetadata": "grounding_metadata",
    "google.ai.generativelanguage.v1beta3.CitationMetadata": "citation_metadata",
}


def unsupported(obj: object, why: str = "") -> UnsupportedInputError:
    """The error for an input of no supported shape: what it is, and the shapes known."""
    return UnsupportedInputError(
        f"cannot read citations from {describe(obj)}{why}: it has none of the supported "
        f"shapes ({', '.join(SHAPES)}; as REST JSON, messages, official client or SDK "
        "objects)"
    )


# --- Recognizing the Google shapes -------------------------------------------------------

_ANSWER_STATES = frozenset({"STATE_UNSPECIFIED", "IN_PROGRESS", "FAILED", "SUCCEEDED", "STREAMING"})
# Gemini's Candidate.FinishReason names (google.ai.generativelanguage v1beta, Vertex AI).
_FINISH_REASONS = frozenset({
    "FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "LANGUAGE",
    "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL",
    "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "IMAGE_OTHER",
    "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "NO_IMAGE", "MISSING_THOUGHT_SIGNATURE",
})  # fmt: skip
_REFERENCE_KINDS = ("chunk_info", "unstructured_document_info", "structured_document_info")


def _is_gemini_response(obj: object) -> bool:
    """``candidates`` holding a record, or (a blocked prompt) no candidates and a
    ``promptFeedback`` with a ``blockReason``."""
    candidates = get(obj, "candidates")
    if is_list(candidates) and any(map(is_record, candidates)):
        return True
    blocked = get(get(obj, "prompt_feedback"), "block_reason") not in (None, "", 0)
    return (candidates is None or (is_list(candidates) and not candidates)) and blocked


def _is_candidate(obj: object) -> bool:
    """A Gemini candidate: ``content.parts`` a list, grounding or citation metadata, or
    (a blocked candidate) a finish reason with an empty or absent ``content``."""
    if not is_record(obj):
        return False
    content = get(obj, "content")
    if content is not None:
        if not is_record(content):
            return False  # Anthropic's content list, a string
        parts = get(content, "parts")
        if parts is not None:
            return is_list(parts)
    if any(is_record(get(obj, n)) for n in ("grounding_metadata", "citation_metadata")):
        return True
    if any(get(obj, n) is not None for n in ("message", "choices", "output")):
        return False  # another vendor's response with a finish reason
    reason = get(obj, "finish_reason")
    if isinstance(reason, str):
        return getattr(reason, "value", reason) in _FINISH_REASONS
    return isinstance(reason, int) and not isinstance(reason, bool) and reason > 0


def _is_grounding_metadata(obj: object) -> bool:
    names = ("grounding_supports", "grounding_chunks", "web_search_queries", "retrieval_queries")
    if not lists_or_absent(obj, *names):
        return False
    return any(nonempty_list(obj, n) for n in names) or is_record(get(obj, "search_entry_point"))


_CITATION_FIELDS = ("start_index", "end_index", "uri", "title", "license", "publication_date")


def _is_citation_metadata(obj: object) -> bool:
    for name in ("citation_sources", "citations"):
        cited = get(obj, name)
        if (
            is_list(cited)
            and cited
            and all(
                is_record(c)
                and get(c, "sources") is None
                and any(get(c, f) is not None for f in _CITATION_FIELDS)
                for c in cited
            )
        ):
            return True
    return False


def _is_answer(obj: object) -> bool:
    if not is_record(obj):
        return False
    if string(obj, "answer_text") is not None or nonempty_list(obj, "answer_skipped_reasons"):
        return True
    for name in ("citations", "grounding_supports"):
        for item in items(obj, name):
            if any(get(s, "reference_id") is not None for s in items(item, "sources")):
                return True
    for reference in items(obj, "references"):
        if any(get(reference, n) is not None for n in _REFERENCE_KINDS):
            return True
    return string(obj, "state") in _ANSWER_STATES and string(obj, "name") is not None


def _is_answer_query_response(obj: object) -> bool:
    return _is_answer(unwrap(get(obj, "answer")))


# --- Reading the Google shapes -----------------------------------------------------------


def _read_gemini_response(obj: object, candidate: int) -> RawAnswer:
    candidates = items(obj, "candidates")
    if not candidates and is_record(get(obj, "prompt_feedback")):
        raw = RawAnswer("candidate", "")  # the prompt was blocked: no candidate at all
        raw.finish_reason = enum_name(get(obj, "prompt_feedback"), "block_reason")
        return raw
    if not 0 <= candidate < len(candidates):
        raise UnsupportedInputError(
            f"the response has {len(candidates)} candidates; candidate={candidate} is out of range"
        )
    chosen = unwrap(candidates[candidate])
    if not _is_candidate(chosen):
        raise unsupported(chosen, f" (candidates[{candidate}] of a Gemini response)")
    return _read_candidate(chosen, f"candidates[{candidate}].")


def _read_answer_query_response(obj: object, candidate: int) -> RawAnswer:
    answer = unwrap(get(obj, "answer"))
    if answer is None:
        raise unsupported(obj, " (an answer response without its answer)")
    return _read_answer(answer, "answer.")


def _read_bare_answer(obj: object, candidate: int) -> RawAnswer:
    return _read_answer(obj, "")


def _read_bare_candidate(obj: object, candidate: int) -> RawAnswer:
    return _read_candidate(obj, "")


def _read_bare_grounding_metadata(obj: object, candidate: int) -> RawAnswer:
    raw = RawAnswer("grounding_metadata", "")
    _read_grounding_metadata(obj, "", raw)
    return raw


def _read_bare_citation_metadata(obj: object, candidate: int) -> RawAnswer:
    raw = RawAnswer("citation_metadata", "")
    _read_citation_metadata(obj, "", raw)
    return raw


# --- Discovery Engine Answer ----------------------------------------------------------


def _read_answer(answer: object, prefix: str) -> RawAnswer:
    text = get(answer, "answer_text")
    raw = RawAnswer("answer", prefix, text=text if isinstance(text, str) else None)
    raw.source_kind = "references"
    raw.skipped_reasons = enum_names(answer, "answer_skipped_reasons")
    for i, reference in enumerate(items(answer, "references")):
        raw.sources.append((f"{prefix}references[{i}]", _reference_source(reference, i)))
    kinds: tuple[tuple[str, CitationKind], ...] = (
        ("citations", "citation"), ("grounding_supports", "support"),
    )  # fmt: skip
    for name, kind in kinds:
        for i, item in enumerate(items(answer, name)):
            path = f"{prefix}{name}[{i}]"
            span = RawSpan(
                path, get(item, "start_index"), get(item, "end_index"), kind,
                refs=[get(source, "reference_id") for source in items(item, "sources")],
                ref_kind="reference_id", ref_path=".sources[{}].reference_id",
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
        if part == 0 and isinstance(segment, Message):
            part = None  # proto3 cannot tell 0 from absent: the whole answer
        if type(indices) is not list:
            indices = items(support, "grounding_chunk_indices")
        if type(scores) is not list:
            scores = items(support, "confidence_scores")
        # positional, in RawSpan's field order (the reader's hot loop): path, start, end,
        # kind, part, part_relative, segment_text, refs, ref_kind, ref_path, offsets
        span = RawSpan(
            path, start, end, "support", part, True, text, indices, "chunk_index",
            ".grounding_chunk_indices[{}]", ".segment",
        )  # fmt: skip
        span.source_scores = scores
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
        span = RawSpan(path, get(item, "start_index"), get(item, "end_index"), "citation")
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
    raw.finish_reason = enum_name(candidate, "finish_reason")
    statuses = []
    for entry in items(get(candidate, "url_context_metadata"), "url_metadata"):
        url = text_or_none(get(entry, "retrieved_url"))
        if url is not None:
            statuses.append(UrlStatus(url, enum_name(entry, "url_retrieval_status") or ""))
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


def _parts(parts: Sequence[object]) -> Iterator[RawPart]:
    for i, part in enumerate(parts):
        text = get(part, "text")
        yield RawPart(i, text if isinstance(text, str) else None, get(part, "thought") is True)


# --- The readers, in the order they are tried -------------------------------------------


def _keys(*names: str) -> frozenset[str]:
    return frozenset(names)


READERS: tuple[Reader, ...] = (
    Reader("gemini_response", _is_gemini_response, _read_gemini_response,
           _keys("candidates", "prompt_feedback")),
    Reader("answer_query_response", _is_answer_query_response, _read_answer_query_response,
           _keys("answer")),
    Reader("answer", _is_answer, _read_bare_answer,
           _keys("answer_text", "answer_skipped_reasons", "citations", "grounding_supports",
                 "references", "state")),
    Reader("search_response", search.is_search_response, search.read_search_response,
           _keys("summary")),
    Reader("search_summary", search.is_summary, search.read_summary,
           _keys("summary_text", "summary_with_metadata", "summary_skipped_reasons",
                 "safety_attributes")),
    Reader("summary_with_metadata", search.is_summary_with_metadata,
           search.read_summary_with_metadata, _keys("summary")),
    Reader("openai_response", openai.is_response, openai.read_response, _keys("output")),
    Reader("openai_chat_completion", openai.is_chat_completion, openai.read_chat_completion,
           _keys("choices")),
    Reader("anthropic_message", anthropic.is_message, anthropic.read_message,
           _keys("content")),
    Reader("cohere_chat", cohere.is_chat, cohere.read_chat, _keys("message")),
    Reader("bedrock_retrieve_and_generate", bedrock.is_retrieve_and_generate,
           bedrock.read_retrieve_and_generate, _keys("output")),
    Reader("gemini_candidate", _is_candidate, _read_bare_candidate,
           _keys("content", "grounding_metadata", "citation_metadata", "finish_reason")),
    Reader("grounding_metadata", _is_grounding_metadata, _read_bare_grounding_metadata,
           _keys("grounding_supports", "grounding_chunks", "web_search_queries",
                 "retrieval_queries", "search_entry_point")),
    Reader("citation_metadata", _is_citation_metadata, _read_bare_citation_metadata,
           _keys("citation_sources", "citations")),
)  # fmt: skip
"""Every reader; the first whose ``matches`` accepts an input reads it."""

_BY_SHAPE: dict[InputShape, Reader] = {r.shape: r for r in READERS}
