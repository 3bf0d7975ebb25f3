"""``_citations.json_check.parses`` may only say True where json_format certainly parses:
checked against json_format on random JSON shaped like the schemas."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos._citations.json_check import parses
from grounding_protos.dialogflow_v2beta1 import GroundingMetadata
from grounding_protos.discoveryengine_v1 import Answer
from grounding_protos.generativelanguage_v1beta3 import CitationMetadata

SCALARS = (
    st.none() | st.booleans() | st.integers(-(2**65), 2**65) | st.floats(allow_nan=True)
    | st.sampled_from(["", "7", "-3", "1e3", "NaN", "18446744073709551616", "--1", "SUCCEEDED",
                       "STREAMING", "2024-01-01T00:00:00Z", "https://x.example"])
)  # fmt: skip
KEYS = st.sampled_from([
    "groundingSupports", "grounding_supports", "segment", "startIndex", "start_index",
    "endIndex", "partIndex", "text", "groundingChunkIndices", "confidenceScores",
    "groundingChunks", "web", "uri", "title", "retrievedContext", "maps", "answerText",
    "citations", "sources", "referenceId", "state", "createTime", "references", "chunkInfo",
    "relevanceScore", "structData", "citationSources", "license", "webSearchQueries",
    "searchEntryPoint", "renderedContent", "sdkBlob", "unknownField",
])  # fmt: skip
JSON: st.SearchStrategy[Any] = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from([GroundingMetadata, Answer, CitationMetadata]), JSON)
def test_true_only_when_json_format_parses(cls: Any, data: Any) -> None:
    if parses(cls.DESCRIPTOR, data):
        json_format.ParseDict(data, cls(), ignore_unknown_fields=True)


def test_a_real_shape_is_proved_without_parsing() -> None:
    data = {
        "webSearchQueries": ["q"],
        "groundingChunks": [{"web": {"uri": "https://a.example", "title": "A"}}],
        "groundingSupports": [
            {"segment": {"startIndex": 0, "endIndex": "12", "text": "x"},
             "groundingChunkIndices": [0], "confidenceScores": [0.5, 1]}
        ],
    }  # fmt: skip
    assert parses(GroundingMetadata.DESCRIPTOR, data)
    assert not parses(GroundingMetadata.DESCRIPTOR, {"groundingSupports": [None]})
    assert not parses(Answer.DESCRIPTOR, {"answerText": "a", "answer_text": "b"})
    assert not parses(Answer.DESCRIPTOR, {"createTime": "2024-01-01T00:00:00Z"})
