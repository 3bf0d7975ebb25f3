"""Small structural tests shared by the readers of every source.

A reader decides from structure that only its shape has; these say what a value
is (a record with fields, a list, a string) across dicts, messages and SDK objects.

>>> is_record({"a": 1}), is_record([1]), is_list((1, 2)), is_list("ab")
(True, False, True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from google.protobuf.message import Message

from grounding_protos._core.access import get, items, unwrap
from grounding_protos._core.model import Problem, Source
from grounding_protos._core.raw import SHAPES, RawAnswer
from grounding_protos._exceptions import UnsupportedInputError
from grounding_protos._quote import excerpt, shown

_SCALARS = (str, bytes, bytearray, int, float, bool, list, tuple, set, frozenset, dict)


def is_record(value: object) -> bool:
    """A dict, a message or an object with fields (an SDK model); not a scalar or list."""
    if isinstance(value, (Mapping, Message)):
        return True
    return value is not None and not isinstance(value, _SCALARS) and not is_list(value)


def is_list(value: object) -> bool:
    """A list-like value: a list, a tuple, a protobuf repeated field; not a str or dict."""
    if value is None or isinstance(value, (str, bytes, bytearray, Mapping, Message)):
        return False
    # protobuf's repeated containers iterate through __getitem__ (no __iter__)
    return isinstance(value, (list, tuple)) or (
        hasattr(value, "__len__") and hasattr(value, "__getitem__")
    )


def nonempty_list(obj: object, name: str) -> bool:
    """Whether field ``name`` of ``obj`` is a list with at least one element."""
    value = get(obj, name)
    return is_list(value) and len(value) > 0


def lists_or_absent(obj: object, *names: str) -> bool:
    """Whether each field of ``names`` is absent or a list (a present non-list is a near miss)."""
    return all(get(obj, n) is None or is_list(get(obj, n)) for n in names)


def string(obj: object, name: str) -> str | None:
    """Field ``name`` as a ``str`` (``str`` enums give their value), else ``None``."""
    value = get(obj, name)
    if isinstance(value, str):
        value = getattr(value, "value", value)
        return value if isinstance(value, str) else None
    return None


def integer_plus_one(value: object) -> object:
    """An inclusive end offset made exclusive; a value that is not an integer unchanged
    (``_core.resolve`` reports it)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value + 1
    if isinstance(value, str) and value.isascii() and value.isdecimal() and len(value) < 20:
        return int(value) + 1
    return value


def describe(obj: object) -> str:
    """What an input is, for an error message: its keys, its message type or its type."""
    if isinstance(obj, Message):
        return f"a {obj.DESCRIPTOR.full_name} message"
    if isinstance(obj, Mapping):
        names = sorted(str(k) for k, v in obj.items() if v is not None)  # null: absent
        keys = ", ".join(excerpt(n, 40) for n in names[:8]) + (", …" if len(names) > 8 else "")
        return f"a dict with keys {{{keys}}}" if names else "an empty dict"
    if obj is None:
        return "None"
    kind: Any = type(obj)
    return f"an object of type {kind.__module__}.{kind.__qualname__}"


def enum_name(obj: object, name: str) -> str | None:
    """An enum field's name, from a JSON string, a str enum (google-genai) or a message."""
    value = get(obj, name)
    if isinstance(value, str):
        value = getattr(value, "value", value)  # a str Enum member
        return value if isinstance(value, str) and value else None
    if isinstance(obj, Message) and isinstance(value, int) and value:
        field = obj.DESCRIPTOR.fields_by_name.get(name)
        enum = field.enum_type if field is not None else None
        number = enum.values_by_number.get(value) if enum is not None else None
        return number.name if number is not None else str(value)
    return None


def enum_names(obj: object, name: str) -> tuple[str, ...]:
    """The names of a repeated enum field (JSON strings, str enums or message numbers)."""
    values = get(obj, name)
    if not is_list(values):
        return ()
    enum = None
    if isinstance(obj, Message):
        field = obj.DESCRIPTOR.fields_by_name.get(name)
        enum = field.enum_type if field is not None else None
    out = []
    for value in values:
        if isinstance(value, str):
            value = getattr(value, "value", value)
            if isinstance(value, str) and value:
                out.append(value)
        elif isinstance(value, int) and not isinstance(value, bool) and enum is not None:
            known = enum.values_by_number.get(value)
            out.append(known.name if known is not None else str(value))
    return tuple(out)


class SourceTable:
    """The sources of a reader that finds them inline (per citation): each distinct
    source once in ``raw.sources``, pointed at by a ``chunk_index`` reference."""

    def __init__(self, raw: RawAnswer) -> None:
        self.raw = raw
        self.seen: dict[Source, int] = {}
        self.built: dict[Hashable, int] = {}  # the values a source was built from
        raw.source_kind = "chunks"

    def ref_of(self, values: Hashable, build: Callable[[Any], Source], path: str) -> int:
        """A reference to ``build(values)``, built only the first time these values are
        seen (a source cited again costs a lookup; ``values`` must decide the source)."""
        index = self.built.get(values)
        if index is None:
            index = self.built[values] = self.ref(build(values), path)
        return index

    def ref(self, source: Source, path: str) -> int:
        """A reference to ``source``: its index in ``raw.sources`` (added on first
        sight; ``path`` is where it was)."""
        index = self.seen.get(source)
        if index is None:
            index = self.seen[source] = len(self.raw.sources)
            self.raw.sources.append((path, source))
        return index


def metadata_pairs(value: object) -> tuple[tuple[str, str], ...]:
    """A flat ``{key: scalar}`` mapping as ``(key, value)`` strings (others left out)."""
    if not isinstance(value, Mapping):
        return ()
    out = []
    for key, item in value.items():
        if isinstance(item, bool) or not isinstance(item, (str, int, float)) or item == "":
            continue
        out.append((str(key), str(item)))
    return tuple(out)


def wrong_type(raw: RawAnswer, path: str, value: object, expected: str) -> None:
    """Record that field ``path`` holds ``value`` where its shape has ``expected``: the
    value is left out, with a ``wrong-type`` problem (``"strict"`` raises it), never read
    as absent without a word.

    >>> raw = RawAnswer("none", "")
    >>> wrong_type(raw, "output[0].action.queries", "Köln", "a list of strings")
    >>> str(raw.notes[0])
    "output[0].action.queries: must be a list of strings, not 'Köln'; left out [wrong-type]"
    """
    raw.notes.append(
        Problem("wrong-type", f"must be {expected}, not {shown(value)}; left out", path)
    )


def unsupported(obj: object, why: str = "") -> UnsupportedInputError:
    """The error for an input of no supported shape: what it is, and the shapes known."""
    if why.startswith(" (JSON text?)"):  # a str or bytes: the fix, not the shapes
        return UnsupportedInputError(f"cannot read citations from {describe(obj)}{why}")
    return UnsupportedInputError(
        f"cannot read citations from {describe(obj)}{why}: it has none of the supported "
        f"shapes ({', '.join(SHAPES)}; as REST JSON, messages, official client or SDK "
        "objects)"
    )


def chat_choice(obj: object, candidate: int) -> object:
    """A chat completion's ``choices[candidate]`` (OpenAI's shape, which Mistral, Azure,
    xAI, OpenRouter and Perplexity share).

    Raises:
        UnsupportedInputError: ``candidate`` names no choice.
    """
    choices = items(obj, "choices")
    if not 0 <= candidate < len(choices):
        raise UnsupportedInputError(
            f"the chat completion has {len(choices)} choices; candidate={candidate} is out of range"
        )
    return unwrap(choices[candidate])
