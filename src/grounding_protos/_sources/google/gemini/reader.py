"""Reading Gemini responses: ``GenerateContentResponse``, a bare ``Candidate``, and the
``GroundingMetadata`` (Gemini's, Vertex AI's and Dialogflow v2beta1's) and
``CitationMetadata`` (Generative Language v1beta3, Gemini, Vertex) they carry.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from google.protobuf.message import Message

from grounding_protos._core.access import (
    fields,
    get,
    has,
    items,
    not_a_list,
    text_or_none,
    titled,
    unwrap,
)
from grounding_protos._core.model import (
    FileInfo,
    ImageInfo,
    PassageInfo,
    PlaceInfo,
    ReviewAuthor,
    ReviewSnippet,
    Route,
    SearchInfo,
    Source,
    UrlStatus,
)
from grounding_protos._core.raw import RawAnswer, RawPart, RawSpan
from grounding_protos._exceptions import UnsupportedInputError
from grounding_protos._sources.common import (
    enum_name,
    is_list,
    is_record,
    lists_or_absent,
    nonempty_list,
    unsupported,
    wrong_type,
)

# Gemini's Candidate.FinishReason names (google.ai.generativelanguage v1beta, Vertex AI).
_FINISH_REASONS = frozenset({
    "FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "LANGUAGE",
    "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL",
    "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "IMAGE_OTHER",
    "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "NO_IMAGE", "MISSING_THOUGHT_SIGNATURE",
})  # fmt: skip


def is_response(obj: object) -> bool:
    """``candidates`` holding a record, or (a blocked prompt) no candidates and a
    ``promptFeedback`` with a ``blockReason``."""
    candidates = get(obj, "candidates")
    if is_list(candidates) and any(map(is_record, candidates)):
        return True
    blocked = get(get(obj, "prompt_feedback"), "block_reason") not in (None, "", 0)
    return (candidates is None or (is_list(candidates) and not candidates)) and blocked


def is_candidate(obj: object) -> bool:
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


def is_grounding_metadata(obj: object) -> bool:
    names = ("grounding_supports", "grounding_chunks", "web_search_queries", "retrieval_queries")
    if not lists_or_absent(obj, *names):
        return False
    return any(nonempty_list(obj, n) for n in names) or is_record(get(obj, "search_entry_point"))


_CITATION_FIELDS = ("start_index", "end_index", "uri", "title", "license", "publication_date")


def is_citation_metadata(obj: object) -> bool:
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


def is_answer_response(obj: object) -> bool:
    """An AQA ``GenerateAnswerResponse``: an ``answer`` that is a Gemini candidate, beside
    ``answerableProbability`` or ``inputFeedback``, or with grounding attributions."""
    answer = unwrap(get(obj, "answer"))
    if not is_record(answer) or not is_candidate(answer):
        return False
    return (
        get(obj, "answerable_probability") is not None
        or get(obj, "input_feedback") is not None
        or nonempty_list(answer, "grounding_attributions")
    )


def read_answer_response(obj: object, candidate: int) -> RawAnswer:
    return _read_candidate(unwrap(get(obj, "answer")), "answer.")


def read_response(obj: object, candidate: int) -> RawAnswer:
    candidates = items(obj, "candidates")
    if not candidates and is_record(get(obj, "prompt_feedback")):
        raw = RawAnswer("candidate", "")  # the prompt was blocked: no candidate at all
        raw.finish_reason = enum_name(get(obj, "prompt_feedback"), "block_reason")
        return raw
    if not 0 <= candidate < len(candidates):
        raise UnsupportedInputError(
            f"the response has {len(candidates)} candidate{'' if len(candidates) == 1 else 's'}; "
            f"candidate={candidate} is out of range"
        )
    chosen = unwrap(candidates[candidate])
    if not is_candidate(chosen):
        raise unsupported(chosen, f" (candidates[{candidate}] of a Gemini response)")
    return _read_candidate(chosen, f"candidates[{candidate}].")


def read_bare_candidate(obj: object, candidate: int) -> RawAnswer:
    return _read_candidate(obj, "")


def read_candidate(candidate: object, prefix: str) -> RawAnswer:
    """A Gemini candidate (or what reads as one: a Live turn), its paths after ``prefix``."""
    return _read_candidate(candidate, prefix)


def read_bare_grounding_metadata(obj: object, candidate: int) -> RawAnswer:
    raw = RawAnswer("grounding_metadata", "")
    _read_grounding_metadata(obj, "", raw)
    return raw


def read_bare_citation_metadata(obj: object, candidate: int) -> RawAnswer:
    raw = RawAnswer("citation_metadata", "")
    _read_citation_metadata(obj, "", raw)
    return raw


# --- Gemini / Dialogflow GroundingMetadata ----------------------------------------------


def read_grounding_metadata(meta: object, prefix: str, raw: RawAnswer) -> None:
    """Gemini's ``GroundingMetadata`` into ``raw`` (spans, sources, search), paths after
    ``prefix``: for the frameworks that carry it beside their own message."""
    _read_grounding_metadata(meta, prefix, raw)


def chunk_source(chunk: object, index: int) -> Source:
    """The source of grounding chunk ``index`` (``Source.id`` is the index)."""
    return _chunk_source(chunk, index)


def _read_grounding_metadata(meta: object, prefix: str, raw: RawAnswer) -> None:
    entry = get(meta, "search_entry_point")
    raw.search = SearchInfo(
        queries=_strings(meta, "web_search_queries"),
        rendered_content=text_or_none(get(entry, "rendered_content")),
        retrieval_queries=_strings(meta, "retrieval_queries"),
        url_statuses=raw.search.url_statuses,
        image_queries=_strings(meta, "image_search_queries"),
    )
    raw.source_kind = "chunks"
    flags = _flags(meta)
    for i, chunk in enumerate(items(meta, "grounding_chunks")):
        raw.sources.append((f"{prefix}grounding_chunks[{i}]", _chunk_source(chunk, i, flags)))
    for i, support in enumerate(items(meta, "grounding_supports")):
        path = f"{prefix}grounding_supports[{i}]"
        segment, indices, scores = fields(
            support, "segment", "grounding_chunk_indices", "confidence_scores"
        )
        start, end, part, text = fields(segment, "start_index", "end_index", "part_index", "text")
        if part == 0 and isinstance(segment, Message):
            part = None  # proto3 cannot tell 0 from absent: the whole answer
        wrong = None
        if type(indices) is not list:
            wrong = indices if not_a_list(indices) else None  # reported by resolve
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
        if wrong is not None:
            span.refs_not_a_list = wrong
        raw.spans.append(span)


def _flags(meta: object) -> dict[str, str] | None:
    """``sourceFlaggingUris`` (Maps grounding) by the place or review id they flag."""
    entries = items(meta, "source_flagging_uris")
    if not entries:
        return None
    flags: dict[str, str] = {}
    for entry in entries:
        ident, uri = (
            text_or_none(get(entry, "source_id")),
            text_or_none(get(entry, "flag_content_uri")),
        )
        if ident is not None and uri is not None:
            flags.setdefault(ident, uri)
    return flags


def _chunk_source(chunk: object, index: int, flags: dict[str, str] | None = None) -> Source:
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
        return _context_source(context, ident)
    maps = get(chunk, "maps")
    if maps is not None:
        return titled(
            maps,
            ident,
            "maps",
            text=text_or_none(get(maps, "text")),
            details=place_info(maps, flags),
        )
    image = get(chunk, "image")
    if image is not None:
        image_uri = text_or_none(get(image, "image_uri"))
        return Source(
            uri=text_or_none(get(image, "source_uri")),
            title=text_or_none(get(image, "title")),
            id=ident,
            kind="image",
            domain=text_or_none(get(image, "domain")),
            details=ImageInfo(image_uri=image_uri) if image_uri else None,
        )
    return Source(id=ident, kind="other")


def _context_source(context: object, ident: str) -> Source:
    """A ``retrievedContext`` chunk (File Search, RAG Engine, Vertex AI Search)."""
    page = get(context, "page_number")
    page = str(page) if isinstance(page, (int, str)) and page != "" else None
    rag = get(context, "rag_chunk")
    text = text_or_none(get(context, "text"))
    first = last = None
    chunk_id = file_id = None
    if rag is not None:
        if text is None:
            text = text_or_none(get(rag, "text"))
        span = get(rag, "page_span")
        first, last = _page(get(span, "first_page")), _page(get(span, "last_page"))
        if page is None and first is not None:
            page = str(first) if last in (None, first) else f"{first}-{last}"
        chunk_id = text_or_none(get(rag, "chunk_id"))
        file_id = text_or_none(get(rag, "file_id"))
    store = text_or_none(get(context, "file_search_store"))
    media = text_or_none(get(context, "media_id"))
    details = None
    if store or media or first is not None or last is not None or chunk_id or file_id:
        details = FileInfo(store, first, last, media, chunk_id, file_id)
    return titled(
        context,
        ident,
        "retrieved_context",
        document=text_or_none(get(context, "document_name")),
        page=page,
        text=text,
        custom_metadata=_custom_metadata(context),
        details=details,
    )


def _page(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdecimal() and len(value) < 12:
        return int(value)
    return None


def place_info(maps: object, flags: dict[str, str] | None = None) -> PlaceInfo | None:
    """What a Maps chunk (or an Interactions ``place_citation``) says about its place:
    the place id, the review snippets with their authors and flag links, the place's
    flag link and route. ``flags`` are ``sourceFlaggingUris`` by place or review id."""
    place_id = text_or_none(get(maps, "place_id"))
    answer_sources = get(maps, "place_answer_sources")
    snippets = items(answer_sources, "review_snippets") or items(answer_sources, "review_snippet")
    if not snippets:
        snippets = items(maps, "review_snippets")  # Interactions' place_citation
    reviews = tuple(_review(snippet, flags) for snippet in snippets)
    flag = text_or_none(get(answer_sources, "flag_content_uri"))
    if flag is None and flags and place_id:
        flag = flags.get(place_id)
    route = get(maps, "route")
    routed = None
    if route is not None:
        distance = get(route, "distance_meters")
        duration = get(route, "duration")
        routed = Route(
            distance if isinstance(distance, int) and not isinstance(distance, bool) else None,
            _duration(duration),
            text_or_none(get(route, "encoded_polyline")),
        )
    if place_id is None and not reviews and flag is None and routed is None:
        return None
    return PlaceInfo(place_id, reviews, flag, routed)


def _review(snippet: object, flags: dict[str, str] | None) -> ReviewSnippet:
    author = get(snippet, "author_attribution")
    by = None
    if author is not None:
        by = ReviewAuthor(
            text_or_none(get(author, "display_name")),
            text_or_none(get(author, "uri")),
            text_or_none(get(author, "photo_uri")),
        )
    ident = text_or_none(get(snippet, "review_id"))
    flag = text_or_none(get(snippet, "flag_content_uri"))
    if flag is None and flags and ident:
        flag = flags.get(ident)
    return ReviewSnippet(
        id=ident,
        title=text_or_none(get(snippet, "title")),
        uri=text_or_none(get(snippet, "google_maps_uri")) or text_or_none(get(snippet, "url")),
        text=text_or_none(get(snippet, "review")),
        author=by,
        flag_uri=flag,
        published=text_or_none(get(snippet, "relative_publish_time_description")),
    )


def _duration(value: object) -> str | None:
    """A ``google.protobuf.Duration`` as its JSON spelling (``"90s"``); a string as it is."""
    if isinstance(value, str):
        return value or None
    seconds, nanos = get(value, "seconds"), get(value, "nanos")
    if isinstance(seconds, int) or isinstance(nanos, int):
        total = (seconds or 0) + (nanos or 0) / 1e9
        return f"{total:g}s"
    total_seconds = getattr(value, "total_seconds", None)  # a datetime.timedelta
    if callable(total_seconds):
        return f"{total_seconds():g}s"
    return None


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


def _read_url_context(context: object, meta: object, prefix: str, raw: RawAnswer) -> None:
    """``urlContextMetadata``: each retrieved URL with its retrieval status, in
    ``search.url_statuses``; when no grounding support cites the text (the URL context
    tool alone), the URLs are also sources of the whole answer, each with its status."""
    if context is None:
        return
    path = f"{prefix}url_context_metadata"
    if not is_record(context):
        wrong_type(raw, path, context, "an object")
        return
    entries = get(context, "url_metadata")
    if entries is None:
        return
    if not is_list(entries):
        wrong_type(raw, f"{path}.url_metadata", entries, "a list")
        return
    declared = not nonempty_list(meta, "grounding_supports")
    statuses = []
    for k, entry in enumerate(entries):
        where = f"{path}.url_metadata[{k}]"
        if not is_record(entry):
            wrong_type(raw, where, entry, "an object")
            continue
        url = get(entry, "retrieved_url")
        if url is not None and not isinstance(url, str):
            wrong_type(raw, f"{where}.retrieved_url", url, "a URL string")
            continue
        if not url:
            continue
        status = enum_name(entry, "url_retrieval_status") or ""
        statuses.append(UrlStatus(url, status))
        if declared:
            pairs = (("url_retrieval_status", status),) if status else ()
            raw.answer_sources.append((where, Source(uri=url, kind="web", custom_metadata=pairs)))
    if statuses:
        raw.search = replace(raw.search, url_statuses=tuple(statuses))


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
    _read_url_context(get(candidate, "url_context_metadata"), meta, prefix, raw)
    citations = get(candidate, "citation_metadata")
    if citations is not None:
        cited = RawAnswer("citation_metadata", "")
        _read_citation_metadata(unwrap(citations), f"{prefix}citation_metadata.", cited)
        raw.spans.extend(cited.spans)
    attributions = items(candidate, "grounding_attributions")
    if attributions:
        for i, attribution in enumerate(attributions):
            raw.answer_sources.append(
                (f"{prefix}grounding_attributions[{i}]", _attribution_source(attribution, i))
            )
    return raw


def _attribution_source(attribution: object, index: int) -> Source:
    """An AQA ``GroundingAttribution``: a source of the whole answer (it has no span).

    ``sourceId.groundingPassage`` names an inline passage of the request (its id, the
    part of its content); ``sourceId.semanticRetrieverChunk`` a chunk of a corpus or
    document (``source``) by name (``chunk``). ``content`` is the attributed text."""
    source_id = get(attribution, "source_id")
    texts = [t for t in (get(p, "text") for p in items(get(attribution, "content"), "parts"))
             if isinstance(t, str) and t]  # fmt: skip
    text = "".join(texts) or None
    passage = get(source_id, "grounding_passage")
    if passage is not None:
        part = get(passage, "part_index")  # an int32 proto3 JSON omits when 0
        part = part if isinstance(part, int) and not isinstance(part, bool) else 0
        return Source(
            id=text_or_none(get(passage, "passage_id")) or str(index),
            kind="passage",
            text=text,
            details=PassageInfo(part),
        )
    chunk = get(source_id, "semantic_retriever_chunk")
    if chunk is not None:
        return Source(
            id=str(index),
            kind="chunk",
            document=text_or_none(get(chunk, "source")),
            chunk=text_or_none(get(chunk, "chunk")),
            text=text,
        )
    return Source(id=str(index), kind="other", text=text)


def _parts(parts: Sequence[object]) -> Iterator[RawPart]:
    for i, part in enumerate(parts):
        text = get(part, "text")
        yield RawPart(i, text if isinstance(text, str) else None, get(part, "thought") is True)
