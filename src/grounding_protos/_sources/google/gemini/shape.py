"""Gemini's ``GenerateContentResponse`` as declared shapes (``msgspec.Struct``), and the
fast reader of what they hold exactly.

The Structs follow the REST JSON of the Gemini API and Vertex AI (camelCase, every
field optional, ``null`` as absent) and refuse any field they do not declare: a
snake_case key, a Vertex AI grounded generation field, a field added since. They are
decoded straight from JSON text (:func:`decode`) or converted from a dict
(:func:`convert`); a wrong JSON type anywhere fails the decode. :func:`grounded` reads
what the common case holds (one text part, thought parts, web or empty grounding
chunks, supports with in-range whole-text offsets whose ``segment.text`` agrees) into
the very ``Grounded`` the tolerant reader (``reader.py``) and ``_core.resolve`` give,
and says ``None`` for anything else: citation metadata, URL context, retrieved context,
maps, images, several text parts, an offset that is out of range, splits a character
or disagrees with its text. The caller then reads the input the tolerant way, so
every repair, problem and error stays where it is.
"""

from __future__ import annotations

from typing import Any

import msgspec

from grounding_protos._core.fast import Codec, Span, place
from grounding_protos._core.model import Grounded, SearchInfo, Source, new_grounded, new_source
from grounding_protos._offsets import Unit


class _Shape(
    msgspec.Struct, rename="camel", omit_defaults=True, forbid_unknown_fields=True, gc=False
):
    """A declared Gemini JSON object: camelCase, every field optional, no other field;
    never in a reference cycle, so not tracked by the garbage collector (``gc=False``)."""


class Web(_Shape):
    uri: str | None = None
    title: str | None = None
    domain: str | None = None


class GroundingChunk(_Shape):
    web: Web | None = None
    # read by the tolerant reader only (their sources carry more than a web page's)
    retrieved_context: Any = None
    maps: Any = None
    image: Any = None


class Segment(_Shape):
    part_index: int | None = None
    start_index: int | None = None
    end_index: int | None = None
    text: str | None = None


class GroundingSupport(_Shape):
    segment: Segment | None = None
    grounding_chunk_indices: list[int] | None = None
    confidence_scores: list[float] | None = None


class SearchEntryPoint(_Shape):
    rendered_content: str | None = None
    sdk_blob: Any = None


class GroundingMetadata(_Shape):
    grounding_chunks: list[GroundingChunk] | None = None
    grounding_supports: list[GroundingSupport] | None = None
    web_search_queries: list[str] | None = None
    search_entry_point: SearchEntryPoint | None = None
    retrieval_queries: list[str] | None = None
    image_search_queries: list[str] | None = None
    retrieval_metadata: Any = None
    google_maps_widget_context_token: Any = None
    source_flagging_uris: Any = None  # flags of Maps places: read by the tolerant reader


class Part(_Shape):
    text: str | None = None
    thought: bool | None = None
    thought_signature: Any = None
    inline_data: Any = None
    file_data: Any = None
    function_call: Any = None
    function_response: Any = None
    executable_code: Any = None
    code_execution_result: Any = None
    video_metadata: Any = None
    part_metadata: Any = None
    media_resolution: Any = None


class Content(_Shape):
    parts: list[Part] | None = None
    role: Any = None


class Candidate(_Shape):
    content: Content | None = None
    finish_reason: str | None = None
    grounding_metadata: GroundingMetadata | None = None
    safety_ratings: Any = None
    token_count: Any = None
    avg_logprobs: Any = None
    logprobs_result: Any = None
    index: Any = None
    finish_message: Any = None
    # read by the tolerant reader only
    citation_metadata: Any = None
    url_context_metadata: Any = None
    grounding_attributions: Any = None


class Response(_Shape):
    """A ``GenerateContentResponse``: its top-level fields are what the dispatcher
    looks at (``tests/test_gemini_shape.py`` checks which readers share them)."""

    candidates: list[Candidate] | None = None
    prompt_feedback: Any = None
    usage_metadata: Any = None
    model_version: Any = None
    response_id: Any = None
    create_time: Any = None
    model_status: Any = None


UNIT: Unit = "byte"
"""What the offsets of the supports count: UTF-8 bytes of the joined text."""

TOP_LEVEL = frozenset(f.encode_name for f in msgspec.structs.fields(Response))
"""The top-level keys a declared response may have (camelCase)."""

_codec = Codec(Response)
decode = _codec.decode
"""The declared response in JSON text, or ``None`` when the text is not one (invalid
JSON, another shape, a field it does not declare or of another type)."""
convert = _codec.convert
"""The declared response a REST JSON dict is (camelCase), or ``None``."""


def grounded(response: Response, candidate: int) -> Grounded | None:
    """What ``read`` gives for candidate ``candidate`` of ``response`` (with the default
    options), when the declared fields hold all of it; ``None`` otherwise."""
    candidates = response.candidates
    if not candidates or not 0 <= candidate < len(candidates):
        return None
    chosen = candidates[candidate]
    content = chosen.content
    if content is None or content.parts is None:
        return None
    if (
        chosen.citation_metadata is not None
        or chosen.url_context_metadata is not None
        or chosen.grounding_attributions is not None
    ):
        return None
    text: str | None = None
    only = -1  # the index of the one text part
    for i, piece in enumerate(content.parts):
        if piece.text is not None and piece.thought is not True:
            if text is not None:
                return None  # several text parts: offsets per part, read the tolerant way
            text, only = piece.text, i
    if text is None:
        return None
    text = "".join((text,))  # a str subclass of a converted dict as a str, as the reader joins
    reason = chosen.finish_reason
    if type(reason) is not str and reason is not None:  # a str enum (a converted dict's)
        reason = getattr(reason, "value", reason)
        if not isinstance(reason, str):
            return None
    meta = chosen.grounding_metadata
    search = SearchInfo()
    table: list[Source] = []
    spans: list[Span] = []
    if meta is not None:
        if meta.source_flagging_uris is not None:
            return None
        entry = meta.search_entry_point
        rendered = entry.rendered_content if entry is not None else None
        search = SearchInfo(
            queries=_strings(meta.web_search_queries),
            rendered_content=rendered or None,
            retrieval_queries=_strings(meta.retrieval_queries),
            image_queries=_strings(meta.image_search_queries),
        )
        for i, chunk in enumerate(meta.grounding_chunks or ()):
            if (
                chunk.retrieved_context is not None
                or chunk.maps is not None
                or chunk.image is not None
            ):
                return None  # read by the tolerant reader (their sources carry more)
            web = chunk.web
            if web is None:
                table.append(new_source(None, None, str(i), "other"))
            else:
                uri, title, domain = web.uri or None, web.title or None, web.domain or None
                table.append(new_source(uri, title, str(i), "web", domain))
        supports = meta.grounding_supports or ()
        paths = _paths(candidate, len(supports))
        size = len(table)
        for i, support in enumerate(supports):
            segment = support.segment
            start = end = 0
            part = cited = None
            if segment is not None:
                start, end = segment.start_index or 0, segment.end_index or 0
                part, cited = segment.part_index, segment.text
                if part is not None and part != only:
                    return None  # offsets into a part that is not the text: a problem
            sources = []
            for ref in support.grounding_chunk_indices or ():
                if not 0 <= ref < size:
                    return None
                sources.append(table[ref])
            scores = support.confidence_scores
            if scores:
                for score in scores:
                    if not 0.0 <= score <= 1.0:  # NaN too
                        return None
                source_scores = tuple(scores)
            else:
                source_scores = ()
            spans.append((start, end, cited, tuple(sources), source_scores, part, paths[i]))
    citations = place(text, spans, "support")
    if citations is None:
        return None
    return new_grounded(text, citations, table, "gemini_response", search, reason or None)


_PATHS: dict[int, list[str]] = {}
_MOST_PATHS = 1024  # kept for the first candidates, up to this many supports: 0.3 MB


def _paths(candidate: int, count: int) -> list[str]:
    """The paths of the first ``count`` supports of candidate ``candidate``: made once
    and shared by every response read (as many as most responses have), not formatted
    again for each.

    >>> _paths(1, 2)[:2]  # (a longer list when more were made before)
    ['candidates[1].grounding_metadata.grounding_supports[0]', \
'candidates[1].grounding_metadata.grounding_supports[1]']
    """
    made = _PATHS.get(candidate)
    if made is not None and count <= len(made):
        return made
    prefix = f"candidates[{candidate}].grounding_metadata.grounding_supports["
    paths = [f"{prefix}{i}]" for i in range(count)]
    if candidate < 4 and count <= _MOST_PATHS:
        _PATHS[candidate] = paths
    return paths


def _strings(values: list[str] | None) -> tuple[str, ...]:
    return tuple(filter(None, values)) if values else ()  # the empty ones left out
