"""Discovery Engine v1beta grounding messages.

From ``google/cloud/discoveryengine/v1beta/grounding.proto``.

The official ``FactChunk`` has fields this schema lacks; they are kept as unknown
fields and survive a parse/serialize round trip.

>>> from grounding_protos.discoveryengine_v1beta import FactChunk
>>> chunk = FactChunk(chunk_text="Tokyo is the capital.", source="0",
...                   source_metadata={"title": "Japan"})
>>> chunk.source_metadata["title"]
'Japan'
"""

from grounding_protos.google.cloud.discoveryengine.v1beta.grounding_pb2 import (
    FactChunk,
    GroundingFact,
)

__all__ = ["FactChunk", "GroundingFact"]
