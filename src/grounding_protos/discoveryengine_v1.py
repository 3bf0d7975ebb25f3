"""Discovery Engine v1 answer messages (``google/cloud/discoveryengine/v1/answer.proto``
and ``safety.proto``).

Spans (``Answer.Citation``, ``Answer.GroundingSupport``) are UTF-8 *byte* offsets into
``answer_text``. ``create_time``/``complete_time`` hold this package's own Timestamp
class and ``struct_data`` its own Struct (see :mod:`grounding_protos.well_known`); on
protobuf >= 5.28 they also accept a ``datetime`` and a ``dict``.

>>> from grounding_protos.discoveryengine_v1 import Answer
>>> answer = Answer(
...     answer_text="Café au lait.",
...     citations=[Answer.Citation(start_index=0, end_index=5,
...                                sources=[Answer.CitationSource(reference_id="0")])],
... )
>>> answer.state = Answer.SUCCEEDED
>>> Answer.FromString(answer.SerializeToString()) == answer
True
"""

from grounding_protos.google.cloud.discoveryengine.v1.answer_pb2 import Answer
from grounding_protos.google.cloud.discoveryengine.v1.safety_pb2 import HarmCategory, SafetyRating

__all__ = ["Answer", "HarmCategory", "SafetyRating"]
