"""Grounded answers of every input kind, built from one description with offsets
computed independently (``len(text[:c].encode())``), so tests can compare what
``extract`` finds with what was put in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format

from grounding_protos.dialogflow_v2beta1 import GroundingMetadata
from grounding_protos.discoveryengine_v1 import Answer
from grounding_protos.generativelanguage_v1beta3 import CitationMetadata, CitationSource

PARTS = (
    "東京は日本の首都で、人口は約1400万人です。",
    " Zürich's café culture dates to the 18th century.",
    " Emoji like 👩🏽\u200d💻 and 👍🏽 take many bytes; naïve ASCII does not.",
)
SOURCES = (
    ("https://example.com/ja/tokyo", "東京 — 概要"),
    ("https://example.com/zurich", "Zürich cafés"),
    ("https://example.com/utf8", "UTF-8 & emoji <b>"),
)


@dataclass(frozen=True)
class Span:
    part: int
    char_start: int  # within the part
    char_end: int
    sources: tuple[int, ...]


SPANS = (
    Span(0, 0, 9, (0,)),
    Span(0, 10, 23, (0, 1)),
    Span(1, 1, 49, (1,)),
    Span(2, 12, 19, (2,)),  # the ZWJ emoji sequence with a skin tone
    Span(2, 0, 0, (2,)),  # empty
    Span(2, 40, 59, (1, 2)),
)


def byte(text: str, char: int) -> int:
    return len(text[:char].encode("utf-8"))


def joined() -> str:
    return "".join(PARTS)


def expected() -> list[tuple[int, int, int, int, str, tuple[str, ...]]]:
    """(start byte, end byte, char start, char end, text, source titles) in the joined text."""
    text = joined()
    out = []
    for span in SPANS:
        base = sum(len(p) for p in PARTS[: span.part])
        cs, ce = base + span.char_start, base + span.char_end
        titles = tuple(SOURCES[i][1] for i in span.sources)
        out.append((byte(text, cs), byte(text, ce), cs, ce, text[cs:ce], titles))
    return out


def _segment(span: Span, parts_relative: bool, first_part: int = 0) -> dict[str, Any]:
    """A Segment as Gemini sends it: zero values omitted."""
    if parts_relative:
        part = PARTS[span.part]
        start, end = byte(part, span.char_start), byte(part, span.char_end)
        text = part[span.char_start : span.char_end]
    else:
        base = sum(len(p) for p in PARTS[: span.part])
        whole = joined()
        start, end = byte(whole, base + span.char_start), byte(whole, base + span.char_end)
        text = whole[base + span.char_start : base + span.char_end]
    segment: dict[str, Any] = {"endIndex": end, "text": text}
    if start:
        segment["startIndex"] = start
    if parts_relative and span.part + first_part:
        segment["partIndex"] = span.part + first_part
    return segment


def grounding_metadata_json(parts_relative: bool, first_part: int = 0) -> dict[str, Any]:
    return {
        "webSearchQueries": ["tokyo population", "zürich cafés"],
        "groundingChunks": [
            {"web": {"uri": uri, "title": title, "domain": "example.com"}} for uri, title in SOURCES
        ],
        "groundingSupports": [
            {
                "segment": _segment(span, parts_relative, first_part),
                "groundingChunkIndices": list(span.sources),
                "confidenceScores": [0.9 for _ in span.sources],
            }
            for span in SPANS
        ],
    }


def gemini_response_json(thought: bool = True) -> dict[str, Any]:
    """A generateContent response: PARTS, after a thought part if asked for; offsets
    relative to the part named by ``partIndex`` (an index into all parts; 0 omitted)."""
    parts: list[dict[str, Any]] = []
    if thought:
        parts.append({"text": "Let me think about cafés…", "thought": True})
    parts += [{"text": p} for p in PARTS]
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": parts},
                "finishReason": "STOP",
                "groundingMetadata": {
                    **grounding_metadata_json(parts_relative=True, first_part=int(thought)),
                    "retrievalMetadata": {},
                },
            }
        ],
        "usageMetadata": {"promptTokenCount": 12},
        "modelVersion": "gemini-2.5-flash",
    }


def snake(value: Any) -> Any:
    """The same JSON with snake_case keys (as SDKs dump it)."""
    import re

    if isinstance(value, dict):
        return {re.sub(r"(?<!^)(?=[A-Z])", "_", k).lower(): snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake(v) for v in value]
    return value


def grounding_metadata_message() -> GroundingMetadata:
    """Dialogflow's schema has no part_index: offsets into the joined text."""
    return json_format.ParseDict(
        grounding_metadata_json(parts_relative=False), GroundingMetadata(),
        ignore_unknown_fields=True,
    )  # fmt: skip


def answer_message() -> Answer:
    text = joined()
    references = [
        Answer.Reference(
            chunk_info=Answer.Reference.ChunkInfo(
                chunk=f"projects/p/locations/global/collections/c/dataStores/d/branches/0/documents/{i}/chunks/c{i}",
                content=f"chunk {i}",
                relevance_score=0.5,
                document_metadata=Answer.Reference.ChunkInfo.DocumentMetadata(
                    uri=uri, title=title, page_identifier=str(i + 1)
                ),
            )
        )
        for i, (uri, title) in enumerate(SOURCES)
    ]
    answer = Answer(answer_text=text, references=references, state=Answer.SUCCEEDED)
    for span, (start, end, *_rest) in zip(SPANS, expected(), strict=True):
        sources = [Answer.CitationSource(reference_id=str(i)) for i in span.sources]
        answer.citations.add(start_index=start, end_index=end, sources=sources)
        answer.grounding_supports.add(
            start_index=start, end_index=end, grounding_score=0.75, sources=sources
        )
    return answer


def citation_metadata_message() -> CitationMetadata:
    meta = CitationMetadata()
    for start, end, _cs, _ce, _text, titles in expected():
        uri = next(u for u, t in SOURCES if t == titles[0])
        meta.citation_sources.append(
            CitationSource(start_index=start, end_index=end, uri=uri, license="CC-BY-4.0")
        )
    return meta
