"""Reading Gemini Interactions API responses (``POST /v1beta/interactions``, google-genai's
``client.interactions``): an ``Interaction`` and its ``steps``.

The answer is the text of the ``model_output`` steps: each ``text`` content of each
such step is one part, joined in order (``thought`` steps and tool steps are not
part of it). A text content's ``annotations`` are an open union:

- ``url_citation`` (``url``, ``title``): a web source;
- ``file_citation`` (``document_uri``, ``file_name``, ``source``, ``page_number``,
  ``media_id``, ``custom_metadata``): retrieved context (File Search, RAG);
- ``place_citation`` (``place_id``, ``name``, ``url``, ``review_snippets``): a Google
  Maps place;
- any other type with offsets is kept as a span of a source of kind ``other`` whose
  ``custom_metadata`` holds the annotation's type and scalar fields; the SDK's
  non-citation annotations of speech (``speech_metadata``, ``word_info``) are not
  citations and are not read.

Each annotation's ``start_index``/``end_index`` count within its own text content:
UTF-8 bytes, as the SDK documents them ("measured in bytes"); ``read(obj, unit=)``
takes another reading (docs/vendors.md). Tool steps feed ``Grounded.search``:
``google_search_call`` queries, ``google_search_result`` ``search_suggestions`` (the
Search Suggestions chip, as Gemini's ``searchEntryPoint``), ``url_context_result``
statuses, ``retrieval_call`` queries; ``google_maps_result`` places are declared
sources. ``Grounded.finish_reason`` is the interaction's ``status``.

>>> raw = read_interaction({"object": "interaction", "status": "completed", "steps": [
...     {"type": "thought", "summary": [{"type": "text", "text": "Hmm"}]},
...     {"type": "model_output", "content": [{"type": "text", "text": "Köln liegt am Rhein.",
...      "annotations": [{"type": "url_citation", "url": "https://k.example", "title": "Köln",
...                       "start_index": 0, "end_index": 5}]}]}]}, 0)
>>> raw.text, raw.spans[0].path, raw.sources[0][1].uri, raw.finish_reason
('Köln liegt am Rhein.', 'steps[1].content[0].annotations[0]', 'https://k.example', 'completed')
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from grounding_protos._core.access import get, items, text_or_none
from grounding_protos._core.model import FileInfo, SearchInfo, Source, UrlStatus
from grounding_protos._core.raw import RawAnswer, RawPart, RawSpan
from grounding_protos._sources.common import (
    SourceTable,
    is_list,
    is_record,
    metadata_pairs,
    string,
)
from grounding_protos._sources.google.gemini.reader import place_info

# The step types of google-genai's Interactions types (``_STEP_VARIANTS``).
STEP_TYPES = frozenset({
    "code_execution_call", "code_execution_result", "file_search_call", "file_search_result",
    "function_call", "function_result", "google_maps_call", "google_maps_result",
    "google_search_call", "google_search_result", "mcp_server_tool_call",
    "mcp_server_tool_result", "model_output", "processing_call", "processing_result",
    "retrieval_call", "retrieval_result", "thought", "tool_search_call", "tool_search_result",
    "url_context_call", "url_context_result", "user_input",
})  # fmt: skip
_NOT_CITATIONS = frozenset({"speech_metadata", "word_info"})


def kind_of(value: object) -> str | None:
    """A step's, content's or annotation's ``type``; an SDK object the SDK did not
    recognize (``type == "UNKNOWN"``) by the type of its raw payload."""
    kind = string(value, "type")
    if kind == "UNKNOWN":
        return string(get(value, "raw"), "type")
    return kind


def payload(value: object) -> object:
    """An SDK object's raw payload where the SDK did not recognize it, else itself."""
    if string(value, "type") == "UNKNOWN" and get(value, "raw") is not None:
        return get(value, "raw")
    return value


def is_interaction(obj: object) -> bool:
    """An ``Interaction``: ``steps`` a list (empty while in progress) with
    ``object: "interaction"``, or a list holding a step of a type the Interactions API
    names."""
    steps = get(obj, "steps")
    if not is_list(steps):
        return False
    if string(obj, "object") == "interaction":
        return True
    return any(is_record(step) and kind_of(step) in STEP_TYPES for step in steps)


def read_interaction(obj: object, candidate: int) -> RawAnswer:
    """The text contents of the ``model_output`` steps, joined, with their annotations."""
    raw = RawAnswer("none", "")
    table = SourceTable(raw)
    parts: list[RawPart] = []
    queries: list[str] = []
    retrieval: list[str] = []
    suggestions: list[str] = []
    statuses: list[UrlStatus] = []
    for i, step in enumerate(items(obj, "steps")):
        kind = kind_of(step)
        step = payload(step)
        if kind == "model_output":
            for j, content in enumerate(items(step, "content")):
                content = payload(content)
                text = get(content, "text")
                if kind_of(content) != "text" or not isinstance(text, str):
                    parts.append(RawPart(len(parts), None, False))
                    continue
                part = len(parts)
                parts.append(RawPart(part, text, False))
                for k, annotation in enumerate(items(content, "annotations")):
                    path = f"steps[{i}].content[{j}].annotations[{k}]"
                    span = annotation_span(payload(annotation), path, table)
                    if span is not None:
                        span.part, span.part_relative = part, True
                        raw.spans.append(span)
        elif kind == "google_search_call":
            queries += _strings(get(step, "arguments"), "queries")
        elif kind == "retrieval_call":
            retrieval += _strings(get(step, "arguments"), "queries")
        elif kind == "google_search_result":
            for result in items(step, "result"):
                chip = text_or_none(get(result, "search_suggestions"))
                if chip is not None:
                    suggestions.append(chip)
        elif kind == "url_context_result":
            for result in items(step, "result"):
                url = text_or_none(get(result, "url"))
                if url is not None:
                    statuses.append(UrlStatus(url, string(result, "status") or ""))
        elif kind == "google_maps_result":
            for r, result in enumerate(items(step, "result")):
                for p, place in enumerate(items(result, "places")):
                    raw.answer_sources.append(
                        (f"steps[{i}].result[{r}].places[{p}]", _place(place, None))
                    )
    raw.parts = parts
    texts = [p.text for p in parts if p.text is not None]
    raw.text = "".join(texts) if texts else None
    raw.search = SearchInfo(
        queries=tuple(queries),
        rendered_content="\n".join(suggestions) if suggestions else None,
        retrieval_queries=tuple(retrieval),
        url_statuses=tuple(statuses),
    )
    raw.finish_reason = string(obj, "status")
    return raw


def annotation_span(annotation: object, path: str, table: SourceTable) -> RawSpan | None:
    """The span of one annotation (``None`` for one that is not a citation)."""
    kind = kind_of(annotation)
    if kind in _NOT_CITATIONS:
        return None
    start, end = get(annotation, "start_index"), get(annotation, "end_index")
    if kind == "url_citation":
        url, title = text_or_none(get(annotation, "url")), text_or_none(get(annotation, "title"))
        ref = table.ref_of(("web", url, title), _web, path)
    elif kind == "file_citation":
        ref = table.ref(_file(annotation), path)
    elif kind == "place_citation":
        ref = table.ref(_place(annotation, kind), path)
    else:
        if start is None and end is None:
            return None  # no span: nothing to place
        ref = table.ref(_other(annotation, kind), path)
    span = RawSpan(path, start, end, "citation")
    span.refs.append(ref)
    return span


def _web(values: Any) -> Source:
    _, url, title = values
    return Source(uri=url, title=title, kind="web")


def _file(annotation: object) -> Source:
    page = get(annotation, "page_number")
    media = text_or_none(get(annotation, "media_id"))
    metadata = metadata_pairs(get(annotation, "custom_metadata"))
    source = text_or_none(get(annotation, "source"))
    if source is not None:
        metadata = (("source", source), *metadata)
    return Source(
        uri=text_or_none(get(annotation, "document_uri")),
        title=text_or_none(get(annotation, "file_name")),
        kind="retrieved_context",
        page=str(page) if isinstance(page, int) and not isinstance(page, bool) else None,
        custom_metadata=metadata,
        details=FileInfo(media_id=media) if media else None,
    )


def _place(place: object, kind: str | None) -> Source:
    return Source(
        uri=text_or_none(get(place, "url")),
        title=text_or_none(get(place, "name")),
        kind="maps",
        details=place_info(place),
    )


def _other(annotation: object, kind: str | None) -> Source:
    fields: dict[str, Hashable] = {}
    if isinstance(annotation, Mapping):
        fields = dict(annotation)
    elif hasattr(annotation, "model_dump"):
        dumped = annotation.model_dump(exclude_none=True)
        fields = dumped if isinstance(dumped, dict) else {}
    pairs = metadata_pairs({k: v for k, v in fields.items()
                            if k not in ("type", "start_index", "end_index", "startIndex",
                                         "endIndex")})  # fmt: skip
    return Source(kind="other", custom_metadata=(("type", kind or ""), *pairs))


def _strings(obj: object, name: str) -> list[str]:
    return [v for v in items(obj, name) if isinstance(v, str) and v]
