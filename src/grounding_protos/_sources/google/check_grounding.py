"""Reading Discovery Engine ``CheckGroundingResponse`` (``GroundedGenerationService.
CheckGrounding``) and the ``FactChunk`` sources it shares with grounded generation.

A check grounding response grades an answer candidate the caller wrote against facts
the caller sent: ``claims`` ``{startPos, endPos, claimText, citationIndices,
groundingCheckRequired, score}`` are spans of *that* answer ("measured in bytes",
``grounded_generation_service.proto``), so its text is not in the response: pass it
as ``read(response, text=answer_candidate)``. ``citationIndices`` point into
``citedChunks`` (``FactChunk``: ``chunkText``, ``source``, ``sourceMetadata``, and
in v1 ``uri``, ``title``, ``domain``), else, where a response has only them, into
``citedFacts`` (``chunkText``). Every claim is a span (a support), also a claim that
cites nothing: it is a claim the facts do not support (``groundingCheckRequired:
false`` claims were not checked). ``supportScore`` is ``Grounded.score``.

>>> raw = read_check_grounding({"supportScore": 0.5, "claims": [
...     {"startPos": 6, "endPos": 11, "claimText": "Zürich", "citationIndices": [0]}],
...     "citedChunks": [{"chunkText": "Zürich liegt am See.", "source": "0"}]}, 0)
>>> raw.spans[0].segment_text, raw.sources[0][1].kind, raw.score
('Zürich', 'fact_chunk', 0.5)
"""

from __future__ import annotations

from collections.abc import Mapping

from grounding_protos._core.access import get, items, text_or_none
from grounding_protos._core.model import Source
from grounding_protos._core.raw import RawAnswer, RawSpan
from grounding_protos._sources.common import is_list, is_record, metadata_pairs

_CLAIM_FIELDS = ("start_pos", "end_pos", "claim_text", "citation_indices")


def is_check_grounding(obj: object) -> bool:
    """A ``CheckGroundingResponse``: ``claims`` whose records have claim fields, or
    ``citedChunks``/``citedFacts`` of records with ``chunkText``."""
    claims = get(obj, "claims")
    if (
        is_list(claims)
        and claims
        and all(is_record(c) and any(get(c, f) is not None for f in _CLAIM_FIELDS) for c in claims)
    ):
        return True
    for name in ("cited_chunks", "cited_facts"):
        cited = get(obj, name)
        if (
            is_list(cited)
            and cited
            and all(is_record(c) and get(c, "chunk_text") is not None for c in cited)
        ):
            return get(obj, "claims") is None or is_list(claims)
    return False


def read_check_grounding(obj: object, candidate: int) -> RawAnswer:
    raw = RawAnswer("none", "")
    raw.source_kind = "chunks"
    raw.score = get(obj, "support_score")
    name = "cited_chunks" if items(obj, "cited_chunks") else "cited_facts"
    for i, chunk in enumerate(items(obj, name)):
        raw.sources.append((f"{name}[{i}]", fact_chunk_source(chunk, i)))
    for i, claim in enumerate(items(obj, "claims")):
        span = RawSpan(
            f"claims[{i}]", get(claim, "start_pos"), get(claim, "end_pos"), "support",
            segment_text=get(claim, "claim_text"), refs=list(items(claim, "citation_indices")),
            ref_path=".citation_indices[{}]",
            names=("start_pos", "end_pos", "part_index"),
        )  # fmt: skip
        span.score = get(claim, "score")
        raw.spans.append(span)
    return raw


def fact_chunk_source(chunk: object, index: int) -> Source:
    """A ``FactChunk`` (check grounding's ``citedChunks``, grounded generation's
    ``supportChunks``): its text, URI, title and domain (v1; else from its
    ``sourceMetadata``), its ``source`` (the index of the request's fact it came from)
    and ``sourceMetadata`` in ``custom_metadata``."""
    metadata = get(chunk, "source_metadata")
    pairs = metadata_pairs(dict(metadata) if isinstance(metadata, Mapping) or (
        metadata is not None and hasattr(metadata, "items")) else None)  # fmt: skip
    found = dict(pairs)
    source = text_or_none(get(chunk, "source"))
    if source is not None:
        pairs = (("source", source), *pairs)
    return Source(
        uri=text_or_none(get(chunk, "uri")) or found.get("uri") or found.get("url"),
        title=text_or_none(get(chunk, "title")) or found.get("title"),
        id=str(index),
        kind="fact_chunk",
        domain=text_or_none(get(chunk, "domain")),
        text=text_or_none(get(chunk, "chunk_text")),
        custom_metadata=pairs,
    )
