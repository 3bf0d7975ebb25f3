"""A pydantic-ai message history (``result.all_messages()``, the JSON of
``ModelMessagesTypeAdapter``) given where a stream is taken (``read_stream``, the CLI
on a JSON array): its last ``ModelResponse`` is the answer, as ``read`` of the whole
history gives it.

>>> answer, problems = merge_messages(enumerate([
...     {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Wo?"}]},
...     {"kind": "response", "parts": [{"part_kind": "text", "content": "In Köln."}]}], 1))
>>> answer["parts"][0]["content"], problems
('In Köln.', [])
"""

from __future__ import annotations

from collections.abc import Iterable

from grounding_protos._core.access import get, unwrap
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._sources.common import describe, is_list, is_record, string

_KINDS = ("request", "response")


def is_message(value: object) -> bool:
    """A pydantic-ai ``ModelRequest`` or ``ModelResponse`` (``kind`` and a ``parts``
    list of records with a ``part_kind``)."""
    value = unwrap(value)
    if isinstance(value, (str, bytes, bytearray)) or string(value, "kind") not in _KINDS:
        return False
    parts = get(value, "parts")
    return is_list(parts) and all(
        is_record(p) and isinstance(string(p, "part_kind"), str) for p in parts
    )


def merge_messages(events: Iterable[tuple[int, object]]) -> tuple[object, list[Problem]]:
    """The history's last response.

    Raises:
        StreamError: an item that is not a pydantic-ai message, or no response at all.
    """
    answer: object = None
    count = 0
    for number, value in events:
        message = unwrap(value)
        if not is_message(message):
            raise StreamError(f"not a pydantic-ai message: {describe(message)}", event=number)
        count += 1
        if string(message, "kind") == "response":
            answer = message
    if answer is None:
        raise StreamError(f"the pydantic-ai history of {count} messages has no response")
    return answer, []
