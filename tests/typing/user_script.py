"""A user-style script type-checked with ``mypy --strict`` by tests/test_typing.py.

It is also run as a program, so everything here must work at run time too.
"""

from __future__ import annotations

import datetime

from google.protobuf import __version__ as protobuf_version

from grounding_protos import from_bytes, message_class
from grounding_protos.dialogflow_v2beta1 import (
    GroundingChunk,
    GroundingMetadata,
    GroundingSupport,
    Segment,
)
from grounding_protos.discoveryengine_v1 import Answer, HarmCategory, SafetyRating
from grounding_protos.discoveryengine_v1beta import FactChunk
from grounding_protos.generativelanguage_v1beta3 import CitationMetadata, CitationSource
from grounding_protos.well_known import struct, timestamp


def build_answer() -> Answer:
    citation = Answer.Citation(
        start_index=0, end_index=5, sources=[Answer.CitationSource(reference_id="0")]
    )
    info = Answer.Reference.UnstructuredDocumentInfo(
        document="projects/p/locations/l/dataStores/d/branches/0/documents/x",
        uri="https://example.com/x",
        title="X",
        chunk_contents=[
            Answer.Reference.UnstructuredDocumentInfo.ChunkContent(content="…", relevance_score=0.5)
        ],
        struct_data=struct({"lang": "ja"}),
    )
    state: Answer.State.ValueType = Answer.SUCCEEDED
    return Answer(
        answer_text="Hello, wörld",
        state=state,
        citations=[citation],
        references=[Answer.Reference(unstructured_document_info=info)],
        create_time=timestamp(datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)),
        safety_ratings=[
            SafetyRating(
                category=HarmCategory.HARM_CATEGORY_HARASSMENT,
                probability=SafetyRating.HarmProbability.LOW,
                severity=SafetyRating.HARM_SEVERITY_LOW,
            )
        ],
    )


def first_cited_text(answer: Answer) -> str:
    citation = answer.citations[0]
    start: int = citation.start_index
    end: int = citation.end_index
    return answer.answer_text.encode("utf-8")[start:end].decode("utf-8")


def grounding() -> GroundingMetadata:
    chunk = GroundingChunk(web=GroundingChunk.Web(uri="https://a.example", title="A"))
    support = GroundingSupport(
        segment=Segment(start_index=0, end_index=3, text="abc"), grounding_chunk_indices=[0]
    )
    return GroundingMetadata(grounding_chunks=[chunk], grounding_supports=[support])


def plain_values() -> Answer:
    """protobuf >= 5.28 converts datetime and dict; the stubs accept them too."""
    info = Answer.Reference.StructuredDocumentInfo(struct_data={"year": 2025, "tags": ["a"]})
    return Answer(
        create_time=datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC),
        references=[Answer.Reference(structured_document_info=info)],
    )


def main() -> None:
    answer = build_answer()
    data: bytes = answer.SerializeToString(deterministic=True)
    again = from_bytes(Answer, data)
    assert again == answer
    assert first_cited_text(again) == "Hello"
    which: str | None = answer.references[0].WhichOneof("content")
    assert which == "unstructured_document_info"
    name: str = HarmCategory.Name(answer.safety_ratings[0].category)
    assert name == "HARM_CATEGORY_HARASSMENT"
    meta = grounding()
    assert meta.grounding_chunks[0].web.title == "A"
    source = CitationSource(start_index=0, end_index=4, uri="https://b.example")
    assert source.HasField("license") is False
    assert CitationMetadata(citation_sources=[source]).citation_sources[0].uri
    chunk = FactChunk(chunk_text="t", source_metadata={"k": "v"})
    assert dict(chunk.source_metadata) == {"k": "v"}
    cls = message_class("Answer")
    assert cls is Answer
    if tuple(int(p) for p in protobuf_version.split(".")[:2]) >= (5, 28):
        assert plain_values().create_time.ToJsonString() == "2025-01-01T00:00:00Z"


if __name__ == "__main__":
    main()
