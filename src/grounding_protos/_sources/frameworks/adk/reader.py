"""Reading Google ADK's grounding kept in session state.

An ADK ``Event`` or ``LlmResponse`` (objects, ``model_dump()``, camelCase JSON) is a
Gemini candidate (``content`` and ``groundingMetadata``) and reads as one. A tool
that runs an agent (``AgentTool`` with ``propagate_grounding_metadata``, and
``GoogleSearchAgentTool``) keeps that agent's ``GroundingMetadata`` in session state
under ``temp:_adk_grounding_metadata``, for the calling agent's answer: a state
mapping (``session.state``, ``tool_context.state``) or a ``Session`` holding one reads
as that grounding metadata (pass the answer as ``text=`` to place its spans).

>>> raw = read_state({"temp:_adk_grounding_metadata": {"grounding_supports": [
...     {"segment": {"start_index": 0, "end_index": 5}, "grounding_chunk_indices": [0]}],
...     "grounding_chunks": [{"web": {"uri": "https://k.example"}}]}}, 0)
>>> raw.spans[0].path, raw.sources[0][1].uri
('temp:_adk_grounding_metadata.grounding_supports[0]', 'https://k.example')
"""

from __future__ import annotations

from collections.abc import Mapping

from grounding_protos._core.access import unwrap
from grounding_protos._core.raw import RawAnswer
from grounding_protos._sources.common import is_record
from grounding_protos._sources.google.gemini import reader as gemini

STATE_KEY = "temp:_adk_grounding_metadata"


def _state(obj: object) -> Mapping[str, object] | None:
    if isinstance(obj, Mapping):
        return obj
    state = getattr(obj, "state", None)  # an ADK Session, a ToolContext
    return state if isinstance(state, Mapping) else None


def is_state(obj: object) -> bool:
    """A mapping (or an object's ``state``) holding ``temp:_adk_grounding_metadata``."""
    state = _state(obj)
    return state is not None and is_record(unwrap(state.get(STATE_KEY)))


def read_state(obj: object, candidate: int) -> RawAnswer:
    state = _state(obj)
    assert state is not None
    raw = RawAnswer("grounding_metadata", "")
    gemini.read_grounding_metadata(unwrap(state.get(STATE_KEY)), f"{STATE_KEY}.", raw)
    return raw
