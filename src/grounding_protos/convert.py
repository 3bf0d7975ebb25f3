"""Moving grounded answers between the schemas and Google's official client types.

>>> from grounding_protos.convert import to_grounding_metadata
>>> from grounding_protos.discoveryengine_v1 import Answer
>>> answer = Answer(
...     answer_text="Café!",
...     grounding_supports=[Answer.GroundingSupport(start_index=0, end_index=5,
...         grounding_score=0.9, sources=[Answer.CitationSource(reference_id="0")])],
...     references=[Answer.Reference(structured_document_info=
...         Answer.Reference.StructuredDocumentInfo(uri="https://c.example", title="Café"))],
... )
>>> meta, losses = to_grounding_metadata(answer)
>>> meta.grounding_supports[0].segment.text, meta.grounding_chunks[0].retrieved_context.title
('Café', 'Café')
>>> for loss in losses:
...     print(loss)
grounding_supports[0]: grounding score 0.9 has no place in GroundingSupport [not-representable]
"""

from grounding_protos._citations.convert import (
    Converted,
    fact_chunk_to_source,
    from_official,
    grounding_fact_losses,
    grounding_fact_to_source,
    source_to_fact_chunk,
    source_to_grounding_fact,
    to_citation_metadata,
    to_grounding_metadata,
    to_official,
)
from grounding_protos._citations.export import (
    OpenAIApi,
    to_ai_message,
    to_langchain_blocks,
    to_openai_annotations,
)

__all__ = [
    "Converted",
    "OpenAIApi",
    "fact_chunk_to_source",
    "from_official",
    "grounding_fact_losses",
    "grounding_fact_to_source",
    "source_to_fact_chunk",
    "source_to_grounding_fact",
    "to_ai_message",
    "to_citation_metadata",
    "to_grounding_metadata",
    "to_langchain_blocks",
    "to_official",
    "to_openai_annotations",
]
