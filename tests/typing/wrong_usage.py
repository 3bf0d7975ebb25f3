"""Code mypy --strict must reject: the stubs are precise, not Any."""

from grounding_protos.dialogflow_v2beta1 import Segment
from grounding_protos.discoveryengine_v1 import Answer

Segment(start_index="0")  # E: str for an int field
Answer(answer_txt="typo")  # E: unknown keyword
Answer.Citation().end_index = "3"  # E: str assigned to an int64 field
bad: str = Answer().state  # E: an enum value is not a str
