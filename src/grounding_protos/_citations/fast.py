"""The fast paths of ``read`` and ``read_json``: a declared shape, decoded at C speed.

A response whose declared shape (``_sources.registry.declared``: Gemini's, OpenAI
Responses' and Anthropic's, each in a ``shape.py`` beside its reader) holds all of it
is read straight from its Structs; anything else, and any doubt, goes the tolerant way
(``read_input`` and ``_core.resolve``), which gives the same result where both apply
(tests/test_gemini_shape.py, test_openai_shape.py and test_anthropic_shape.py check it
on generated responses).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import msgspec

from grounding_protos._core.model import Grounded
from grounding_protos._core.raw import InputShape
from grounding_protos._exceptions import ArgumentTypeError, ArgumentValueError
from grounding_protos._sources.registry import DECLARED, READERS, Declared, declared, reader_for

_KEYS = frozenset(key for r in READERS if r.shape in DECLARED for key in r.keys)
"""The top-level keys (both spellings) of the shapes with a declared shape: a dict with
none of them goes the tolerant way without being dispatched twice."""


def read_dict(obj: dict[str, Any], candidate: int, unit: str | None = None) -> Grounded | None:
    """``read(obj)`` with the default options (``unit``: ``None`` or what the shape's
    offsets count, its ``UNIT``), if the fast path can give it."""
    if _KEYS.isdisjoint(obj):
        return None
    try:
        shape = declared(reader_for(obj).shape)
    except Exception:  # the tolerant path raises what is wrong
        return None
    if shape is None or (unit is not None and unit != shape.UNIT):
        return None
    response = shape.convert(obj)
    return None if response is None else shape.grounded(response, candidate)


def read_text(data: str | bytes, candidate: int) -> Grounded | None:
    """``read(json.loads(data))`` with the default options, if the fast path can give it.

    Each declared shape of :data:`_DECODED` is tried in turn, without the dispatcher:
    its top-level keys are its own (undeclared keys fail the decode), and what it
    decodes the dispatcher would give its reader. For Gemini's, only ``candidates`` is
    shared with a reader tried before it (grounded generation, whose fields the
    declared candidates refuse); for Anthropic's, only ``content``, with Assistants'
    thread messages (whose text parts, objects, the declared blocks refuse; and
    ``object``, the message does not declare). Their tests check which readers these are."""
    for shape in _decoded():
        response = shape.decode(data)
        if response is not None:
            return shape.grounded(response, candidate)
    return None


_DECODED: tuple[InputShape, ...] = ("gemini_response", "anthropic_message")
"""The declared shapes ``read_text`` decodes JSON text into, in this order (their
top-level keys are disjoint: an object with a key decodes into one of them at most)."""


@cache
def _decoded() -> tuple[Declared, ...]:
    """The declared shapes of :data:`_DECODED`, looked up once."""
    shapes = tuple(map(declared, _DECODED))
    assert all(shapes)
    return shapes  # type: ignore[return-value]


def loads(data: str | bytes | bytearray | memoryview) -> object:
    """``json.loads(data)``, decoded by msgspec where it gives the same value (it
    refuses what ``json.loads`` takes besides JSON: ``NaN``, a lone surrogate, a byte
    order mark, UTF-16).

    Raises:
        ArgumentTypeError: ``data`` is neither text nor bytes.
        ArgumentValueError: ``data`` is not JSON.
    """
    if not isinstance(data, (str, bytes, bytearray, memoryview)):
        raise ArgumentTypeError(f"data must be JSON text (str or bytes), not {type(data).__name__}")
    try:
        return msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):  # json.loads says what is wrong
        pass
    try:
        return json.loads(data if not isinstance(data, memoryview) else bytes(data))
    except json.JSONDecodeError as exc:
        raise ArgumentValueError(f"data is not JSON: {exc}") from exc
    except (ValueError, RecursionError) as exc:  # undecodable bytes, too deep, too long
        raise ArgumentValueError(f"data is not JSON: {exc}") from exc
