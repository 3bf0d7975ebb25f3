"""Generative Language v1beta3 citation messages.

From ``google/ai/generativelanguage/v1beta3/citation.proto``.

``start_index``/``end_index`` are UTF-8 *byte* offsets and have explicit presence.

>>> from grounding_protos.generativelanguage_v1beta3 import CitationMetadata, CitationSource
>>> meta = CitationMetadata(citation_sources=[CitationSource(start_index=0, end_index=4)])
>>> meta.citation_sources[0].HasField("uri")
False
"""

from grounding_protos.google.ai.generativelanguage.v1beta3.citation_pb2 import (
    CitationMetadata,
    CitationSource,
)

__all__ = ["CitationMetadata", "CitationSource"]
