"""Wrong JSON types for ``fuzz_streams.py`` and ``tests/test_stream_hostile.py``: one
value of one event of a stream replaced by a value of another JSON type.

The kinds: ``null``, a bool, an int, a float, a string, a list, an object, a value
nested 50,000 deep, and a JSON text nested 100,000 deep (what a tool input's pieces
may spell). No dependency but the standard library: the tests import it too.
"""

from __future__ import annotations

import copy
from typing import Any

DEPTH = 50_000


def _deep() -> Any:
    value: Any = "Köln"
    for k in range(DEPTH):
        value = [value] if k % 2 else {"a": value}
    return value


KINDS = ("null", "bool", "int", "float", "string", "list", "object", "deep", "deep-text")
_DEEP = _deep()  # shared, never copied: no merger may change an event's values
_VALUES: dict[str, Any] = {
    "null": None, "bool": True, "int": 5, "float": 2.5, "string": "x", "list": [5, "x"],
    "object": {"x": 5}, "deep": _DEEP, "deep-text": "[" * 100_000 + "]" * 100_000,
}  # fmt: skip
_MAX_POSITIONS = 512


def positions(event: Any) -> list[tuple[Any, ...]]:
    """The path (keys and indices) of every value in ``event``, the event itself first
    (``()``), depth first."""
    out: list[tuple[Any, ...]] = [()]
    stack: list[tuple[tuple[Any, ...], Any]] = [((), event)]
    while stack and len(out) < _MAX_POSITIONS:
        path, node = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in pairs:
            out.append((*path, key))
            stack.append(((*path, key), child))
    return out


def mutated(events: list[Any], event: int, position: int, kind: str) -> tuple[list[Any], str]:
    """A copy of ``events`` whose ``event``-th event (modulo) has the value at its
    ``position``-th path (modulo) replaced by a value of ``kind``; and what was done."""
    events = list(events)
    if not events:
        return events, "no events"
    at = event % len(events)
    target = copy.deepcopy(events[at])
    paths = positions(target)
    path = paths[position % len(paths)]
    value = _VALUES[kind]
    if path:
        node = target
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    else:
        target = value
    events[at] = target
    return events, f"event {at + 1} at {'.'.join(map(str, path)) or '(itself)'} := {kind}"
