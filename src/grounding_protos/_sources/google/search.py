"""Reading Vertex AI Search (Discovery Engine) search summaries.

``SearchResponse.summary.summaryWithMetadata`` holds the summary text, citations
``{startIndex, endIndex, sources: [{referenceIndex}]}`` and ``references`` (title,
document, uri, chunk contents). Read from a whole ``SearchResponse``, its
``summary``, or a bare ``summaryWithMetadata``.

Traps handled here: ``referenceIndex`` is an int64 that proto3 JSON omits when it
is 0, so a source ``{}`` points at reference 0; offsets are UTF-8 bytes by default
(the API reference says "bytes/unicode"; see docs/inputs.md), ``unit=`` on ``read``
overrides that.

>>> raw = read_summary_with_metadata({"summary": "Köln [1]", "citationMetadata": {
...     "citations": [{"endIndex": "5", "sources": [{}]}]},
...     "references": [{"title": "Köln", "document": "d/1"}]}, 0)
>>> raw.text, raw.spans[0].refs[0], raw.sources[0][1].title
('Köln [1]', 0, 'Köln')
"""

from __future__ import annotations

from grounding_protos._core.access import float_or_none, get, items, text_or_none, titled, unwrap
from grounding_protos._core.model import Source
from grounding_protos._core.raw import RawAnswer, RawSpan
from grounding_protos._exceptions import UnsupportedInputError
from grounding_protos._sources.common import (
    describe,
    enum_names,
    is_list,
    is_record,
    lists_or_absent,
    nonempty_list,
    string,
)

# --- Recognizing ----------------------------------------------------------------------


def is_search_response(obj: object) -> bool:
    """A ``SearchResponse`` with a summary (one without is not a grounded answer)."""
    return is_summary(unwrap(get(obj, "summary")))


def is_summary(obj: object) -> bool:
    """A ``SearchResponse.Summary``: summary text, a summary with metadata, or only the
    reasons it was skipped."""
    if not is_record(obj) or not lists_or_absent(obj, "summary_skipped_reasons"):
        return False
    return (
        string(obj, "summary_text") is not None
        or is_summary_with_metadata(unwrap(get(obj, "summary_with_metadata")))
        or nonempty_list(obj, "summary_skipped_reasons")
        or is_record(get(obj, "safety_attributes"))
    )


def is_summary_with_metadata(obj: object) -> bool:
    """A ``SummaryWithMetadata``: a ``summary`` string with citation metadata or references."""
    if not is_record(obj) or string(obj, "summary") is None:
        return False
    references = get(obj, "references")
    if references is not None and not is_list(references):
        return False
    return is_record(get(obj, "citation_metadata")) or is_list(references)


# --- Reading ----------------------------------------------------------------------------


def read_search_response(obj: object, candidate: int) -> RawAnswer:
    """A whole ``SearchResponse``: its summary.

    Raises:
        UnsupportedInputError: a ``SearchResponse`` message without a summary.
    """
    summary = unwrap(get(obj, "summary"))
    if summary is None:
        raise UnsupportedInputError(
            f"cannot read citations from {describe(obj)}: a SearchResponse without a "
            "summary has no grounded answer (ask for one with contentSearchSpec.summarySpec)"
        )
    return _read_summary(summary, "summary.")


def read_summary(obj: object, candidate: int) -> RawAnswer:
    """A ``SearchResponse.Summary``."""
    return _read_summary(obj, "")


def read_summary_with_metadata(obj: object, candidate: int) -> RawAnswer:
    """A bare ``SummaryWithMetadata``."""
    raw = RawAnswer("none", "")
    _read_with_metadata(obj, "", raw)
    return raw


def _read_summary(summary: object, prefix: str) -> RawAnswer:
    raw = RawAnswer("none", prefix)
    metadata = unwrap(get(summary, "summary_with_metadata"))
    if is_summary_with_metadata(metadata):
        _read_with_metadata(metadata, f"{prefix}summary_with_metadata.", raw)
    else:
        raw.text = string(summary, "summary_text")
    raw.skipped_reasons = enum_names(summary, "summary_skipped_reasons")
    attributes = get(summary, "safety_attributes")
    categories = [c for c in items(attributes, "categories") if isinstance(c, str)]
    scores = items(attributes, "scores")
    raw.safety = tuple(
        (c, float_or_none(scores[i]) if i < len(scores) else None) for i, c in enumerate(categories)
    )
    return raw


def _read_with_metadata(metadata: object, prefix: str, raw: RawAnswer) -> None:
    raw.prefix = prefix
    raw.text = string(metadata, "summary")
    raw.source_kind = "references"
    for i, reference in enumerate(items(metadata, "references")):
        raw.sources.append((f"{prefix}references[{i}]", _reference_source(reference, i)))
    citations = get(metadata, "citation_metadata")
    for i, citation in enumerate(items(citations, "citations")):
        path = f"{prefix}citation_metadata.citations[{i}]"
        indices = (get(source, "reference_index") for source in items(citation, "sources"))
        span = RawSpan(
            path, get(citation, "start_index"), get(citation, "end_index"), "citation",
            # proto3 JSON omits 0: {} is reference 0
            refs=[0 if index is None else index for index in indices],
            ref_kind="reference_id", ref_path=".sources[{}].reference_index",
        )  # fmt: skip
        raw.spans.append(span)


def _reference_source(reference: object, index: int) -> Source:
    contents = items(reference, "chunk_contents")
    texts = [t for t in (text_or_none(get(c, "content")) for c in contents) if t]
    pages = [p for p in (text_or_none(get(c, "page_identifier")) for c in contents) if p]
    return titled(
        reference,
        str(index),
        "unstructured_document",
        document=text_or_none(get(reference, "document")),
        page=pages[0] if pages else None,
        text="\n".join(texts) if texts else None,
    )
