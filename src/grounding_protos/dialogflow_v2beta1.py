"""Dialogflow v2beta1 grounding messages (``google/cloud/dialogflow/v2beta1/grounding.proto``).

Full names are the upstream ones (``google.cloud.dialogflow.v2beta1.GroundingMetadata``);
``start_index``/``end_index`` of a :class:`Segment` are UTF-8 *byte* offsets.

>>> from grounding_protos.dialogflow_v2beta1 import GroundingMetadata, GroundingSupport, Segment
>>> meta = GroundingMetadata(
...     grounding_supports=[GroundingSupport(segment=Segment(start_index=0, end_index=5))]
... )
>>> GroundingMetadata.FromString(meta.SerializeToString()) == meta
True
"""

from grounding_protos.google.cloud.dialogflow.v2beta1.grounding_pb2 import (
    GroundingChunk,
    GroundingMetadata,
    GroundingSupport,
    SearchEntryPoint,
    Segment,
)

__all__ = ["GroundingChunk", "GroundingMetadata", "GroundingSupport", "SearchEntryPoint", "Segment"]
