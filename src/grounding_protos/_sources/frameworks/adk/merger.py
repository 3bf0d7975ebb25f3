"""Merging the ``Event`` s of a Google ADK run (``runner.run_async(...)``) into the
answer they end with.

Every event of a run is one agent's output: a model answer (``content`` and, with a
grounding tool, ``groundingMetadata``), a function call or response, a state change.
With streaming on (``RunConfig(streaming_mode=StreamingMode.SSE)``) the model's answer
first comes as ``partial`` events, each a piece of the text, then once whole in a
non-partial event. The answer of a run is its **last** non-partial event that holds
text and no function call (ADK's ``is_final_response``), read as that agent's Gemini
candidate. Partial events after it (or without one) are a streamed answer the run
did not finish: they merge by the rules of Gemini streams into the answer read, with a
``stream-incomplete`` problem. ``user`` events are the request, not an answer.

>>> answer, problems = merge_events(enumerate([
...     {"invocationId": "e-1", "author": "helper", "partial": True,
...      "content": {"parts": [{"text": "Köln"}]}},
...     {"invocationId": "e-1", "author": "helper",
...      "content": {"parts": [{"text": "Köln 🌉."}]}}], 1))
>>> answer["content"]["parts"], problems
([{'text': 'Köln 🌉.'}], [])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from grounding_protos._core.access import get, items, unwrap
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._sources.common import describe, string
from grounding_protos._sources.google.gemini.merger import Candidate
from grounding_protos._sources.merging import field

_ANSWER_FIELDS = ("content", "grounding_metadata", "citation_metadata", "finish_reason")


def is_event(value: object) -> bool:
    """Whether ``value`` is an ADK ``Event`` (an object of ``google.adk``, or its dump:
    an ``invocation_id`` and an ``author``)."""
    value = unwrap(value)
    if isinstance(value, (str, bytes, bytearray)):
        return False
    module = getattr(type(value), "__module__", None)  # None for some protobuf classes
    if not isinstance(value, Mapping) and not (module or "").startswith("google.adk."):
        return False
    return isinstance(string(value, "invocation_id"), str) and isinstance(
        string(value, "author"), str
    )


def _answers(event: object) -> bool:
    """A final answer: text that is not a thought, and no function call."""
    texts = False
    for part in items(get(event, "content"), "parts"):
        if get(part, "function_call") is not None:
            return False
        if isinstance(get(part, "text"), str) and get(part, "thought") is not True:
            texts = True
    return texts


def merge_events(events: Iterable[tuple[int, object]]) -> tuple[object, list[Problem]]:
    """The run's answer (its final event, or the partial events it ended in, merged).

    Raises:
        StreamError: an item that is not an ADK event.
    """
    answer: object = None
    partial: list[tuple[int, object]] = []
    count = 0
    for number, value in events:
        event = unwrap(value)
        if not is_event(event):
            raise StreamError(f"not a Google ADK Event: {describe(event)}", event=number)
        count += 1
        if string(event, "author") == "user":
            continue
        if field(event, "partial", bool, number=number):
            partial.append((number, event))
            continue
        partial = []  # a whole event closes the partial ones before it
        if _answers(event):
            answer = event
    if partial:
        merged = Candidate(0, False)
        for number, event in partial:
            fields = {n: get(event, n) for n in _ANSWER_FIELDS}
            merged.add(number, {n: v for n, v in fields.items() if v is not None})
        first = partial[0][0]
        return merged.merged(), [
            *merged.problems,
            Problem(
                "stream-incomplete",
                f"the run ended after {len(partial)} partial events of an answer (from event "
                f"{first}) without the whole answer (interrupted?): the text and citations "
                "are those that arrived",
                "partial",
            ),
        ]
    if answer is None:
        return {"content": {"parts": []}}, [
            Problem(
                "no-answer",
                f"none of the run's {count} events is an agent's answer (text that is not "
                "partial, without a function call)",
                "",
            )
        ]
    return answer, []
