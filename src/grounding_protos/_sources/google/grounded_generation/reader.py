"""Reading Discovery Engine ``GenerateGroundedContentResponse``
(``GroundedGenerationService.GenerateGroundedContent``, and each message of its
stream once merged).

A candidate's ``content.parts`` hold the answer text; its ``groundingMetadata`` has
``supportChunks`` (``FactChunk``), ``groundingSupport`` ``{claimText,
supportChunkIndices, supportScore}`` — claims **without offsets** — ``webSearchQueries``,
``searchEntryPoint``, ``images`` and ``retrievalMetadata``; ``groundingScore`` rates
the whole candidate (``Grounded.score``). Each claim is placed where its text occurs
in the candidate's text, exact matches only: a claim that does not occur, or occurs
more than once, is a problem (``claim-not-found``, ``claim-ambiguous``) and is left
out, never placed by a guess (``errors="strict"`` raises it).

>>> raw = read_grounded_generation({"candidates": [{"content": {"parts": [
...     {"text": "Köln liegt am Rhein."}]}, "groundingScore": 0.9, "groundingMetadata": {
...     "supportChunks": [{"chunkText": "Köln am Rhein"}],
...     "groundingSupport": [{"claimText": "Köln liegt am Rhein.",
...                           "supportChunkIndices": [0]}]}}]}, 0)
>>> raw.text, raw.spans[0].anchor, raw.score
('Köln liegt am Rhein.', True, 0.9)
"""

from __future__ import annotations

from grounding_protos._core.access import get, items, text_or_none, unwrap
from grounding_protos._core.model import ImageInfo, SearchInfo, Source
from grounding_protos._core.raw import RawAnswer, RawPart, RawSpan
from grounding_protos._exceptions import UnsupportedInputError
from grounding_protos._sources.common import is_list, is_record
from grounding_protos._sources.google.check_grounding import fact_chunk_source

_OWN_KEYS = ("groundingSupport", "grounding_support", "supportChunks", "support_chunks")


def is_response(obj: object) -> bool:
    """A ``GenerateGroundedContentResponse``: a candidate with a grounding score, or
    grounding metadata of its own kind (``groundingSupport``, ``supportChunks``; a
    Gemini candidate has ``groundingSupports`` and ``groundingChunks``)."""
    candidates = get(obj, "candidates")
    if not is_list(candidates) or not candidates:
        return False
    first = unwrap(candidates[0])
    if type(first) is dict:  # REST JSON, the common case: a few key lookups (null: absent)
        if first.get("groundingScore") is not None or first.get("grounding_score") is not None:
            return True
        meta = first.get("groundingMetadata")
        if meta is None:
            meta = first.get("grounding_metadata")
        return type(meta) is dict and any(meta.get(key) is not None for key in _OWN_KEYS)
    if not is_record(first):
        return False
    if get(first, "grounding_score") is not None:
        return True
    meta = get(first, "grounding_metadata")
    return any(get(meta, n) is not None for n in ("grounding_support", "support_chunks"))


def read_grounded_generation(obj: object, candidate: int) -> RawAnswer:
    candidates = items(obj, "candidates")
    if not 0 <= candidate < len(candidates):
        raise UnsupportedInputError(
            f"the response has {len(candidates)} candidate{'' if len(candidates) == 1 else 's'}; "
            f"candidate={candidate} is out of range"
        )
    chosen = unwrap(candidates[candidate])
    prefix = f"candidates[{candidate}]."
    raw = RawAnswer("none", prefix)
    raw.offsets = False  # claims are placed by their text: unit= does not apply
    raw.source_kind = "chunks"
    raw.score = get(chosen, "grounding_score")
    parts = items(get(chosen, "content"), "parts")
    raw.parts = [
        RawPart(i, text if isinstance(text := get(part, "text"), str) else None, False)
        for i, part in enumerate(parts)
    ]
    texts = [p.text for p in raw.parts if p.text is not None]
    raw.text = "".join(texts) if texts else None
    meta = get(chosen, "grounding_metadata")
    where = f"{prefix}grounding_metadata."
    for i, chunk in enumerate(items(meta, "support_chunks")):
        raw.sources.append((f"{where}support_chunks[{i}]", fact_chunk_source(chunk, i)))
    for i, support in enumerate(items(meta, "grounding_support")):
        span = RawSpan(
            f"{where}grounding_support[{i}]", None, None, "support",
            segment_text=get(support, "claim_text"),
            refs=list(items(support, "support_chunk_indices")),
            ref_path=".support_chunk_indices[{}]", names=("claim_text", "", ""),
        )  # fmt: skip
        span.anchor = True
        span.score = get(support, "support_score")
        raw.spans.append(span)
    for i, image in enumerate(items(meta, "images")):
        raw.answer_sources.append((f"{where}images[{i}]", _image(image, i)))
    entry = get(meta, "search_entry_point")
    raw.search = SearchInfo(
        queries=tuple(q for q in items(meta, "web_search_queries") if isinstance(q, str) and q),
        rendered_content=text_or_none(get(entry, "rendered_content")),
    )
    return raw


def _image(metadata: object, index: int) -> Source:
    image, thumbnail, site = (get(metadata, n) for n in ("image", "thumbnail", "source"))
    width, height = get(image, "width"), get(image, "height")
    return Source(
        uri=text_or_none(get(site, "uri")),
        title=text_or_none(get(site, "title")),
        id=str(index),
        kind="image",
        details=ImageInfo(
            image_uri=text_or_none(get(image, "uri")),
            thumbnail_uri=text_or_none(get(thumbnail, "uri")),
            width=width if isinstance(width, int) and not isinstance(width, bool) else None,
            height=height if isinstance(height, int) and not isinstance(height, bool) else None,
        ),
    )
