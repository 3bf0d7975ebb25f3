"""Field access over every input kind: dicts, protobuf messages, proto-plus and SDK objects.

Our messages and the official raw protobuf messages are read by proto field name,
proto-plus objects are unwrapped to their raw message (``type(obj).pb(obj)``),
google-genai objects by attribute (snake_case, ``None`` when absent), and REST JSON
dicts by camelCase or snake_case key. Nothing here imports the official libraries
or google-genai.

>>> get({"startIndex": 3}, "start_index"), items({"parts": "x"}, "parts")
(3, [])
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from google.protobuf.message import Message

from grounding_protos._core.model import Source, SourceKind
from grounding_protos._proto.pool import is_repeated

_CAMEL = re.compile(r"_([a-z0-9])")


def camel(name: str) -> str:
    """``start_index`` -> ``startIndex`` (proto3 JSON names).

    >>> camel("grounding_chunk_indices"), camel("text")
    ('groundingChunkIndices', 'text')
    """
    spelled = _CAMELS.get(name)
    if spelled is None:
        spelled = _CAMEL.sub(lambda m: m.group(1).upper(), name)
        if len(_CAMELS) < 4096:  # field names are few; never grow without bound
            _CAMELS[name] = spelled
    return spelled


_CAMELS: dict[str, str] = {}
_PLAIN = frozenset({dict, list, str, int, float, bool})
_MISSING: Any = object()


def get(obj: object, name: str) -> Any:
    """Field ``name`` (snake_case) of ``obj``, or ``None`` when absent or unset."""
    if type(obj) is dict:  # REST JSON: the common case, without an ABC check
        value = obj.get(name, _MISSING)
        if value is not _MISSING:
            return value
        spelled = _CAMELS.get(name) or camel(name)  # the cache first: no call
        return obj.get(spelled) if spelled != name else None
    if obj is None:
        return None
    if isinstance(obj, Message):
        plan = _plan(obj.DESCRIPTOR, name)
        if plan is None:
            return None
        field, presence = plan
        if presence and not obj.HasField(field):
            return None
        return getattr(obj, field)
    if isinstance(obj, Mapping):
        if name in obj:
            return obj[name]
        return obj.get(camel(name))
    value = getattr(obj, name, None)
    if value is not None and type(value).__name__ == "Unset":
        return None  # the unset sentinel of Speakeasy-made SDKs (mistralai's UNSET)
    return value


_PLANS: dict[tuple[Any, str], tuple[str, bool] | None] = {}


def _plan(descriptor: Any, name: str) -> tuple[str, bool] | None:
    """How to read field ``name`` of a message type: its proto name and whether it has
    presence to check; ``None`` when the type has no such field (cached per type)."""
    key = (descriptor, name)
    plan = _PLANS.get(key, _MISSING)
    if plan is _MISSING:
        fields = descriptor.fields_by_name
        # proto-plus libraries name fields that shadow builtins with a "_" (license_).
        field = fields.get(name) or fields.get(name + "_")
        if field is None:
            plan = None
        else:
            plan = (field.name, not is_repeated(field) and field.has_presence)
        if len(_PLANS) < 8192:  # types x field names: few, but never unbounded
            _PLANS[key] = plan
    return plan  # type: ignore[no-any-return]


def fields(obj: object, *names: str) -> list[Any]:
    """Several fields of ``obj`` at once, as :func:`get` reads each one (a JSON dict is
    looked up in camelCase first, REST JSON's spelling; ``null`` counts as absent).

    >>> fields({"startIndex": 3, "text": "é"}, "start_index", "end_index", "text")
    [3, None, 'é']
    """
    if type(obj) is not dict:
        return [get(obj, name) for name in names]
    spellings = _SPELLINGS.get(names)
    if spellings is None:
        spellings = (names, tuple(camel(name) for name in names))
        if len(_SPELLINGS) < 1024:
            _SPELLINGS[names] = spellings
    get_value = obj.get
    values = list(map(get_value, spellings[1]))
    if None in values:  # absent in camelCase: snake_case, or absent
        snakes = spellings[0]
        for i, value in enumerate(values):
            if value is None:
                values[i] = get_value(snakes[i])
    return values


_SPELLINGS: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}


def has(obj: object, name: str) -> bool:
    """Whether ``obj`` carries field ``name`` with a non-empty value."""
    value = get(obj, name)
    if value is None:
        return False
    kind = type(value)
    if kind is str or kind is list or kind is dict:
        return len(value) > 0
    if isinstance(value, (str, bytes, Mapping)) or hasattr(value, "__len__"):
        try:
            return len(value) > 0
        except TypeError:
            return True
    return True


def not_a_list(value: object) -> bool:
    """Whether a repeated field's value is a JSON scalar or object instead of a list
    (``"groundingChunkIndices": "0"``): not to be read as empty without a word.

    >>> not_a_list("0"), not_a_list({"a": 1}), not_a_list(None), not_a_list([0])
    (True, True, False, False)
    """
    return isinstance(value, (str, bytes, Mapping, int, float))


def items(obj: object, name: str) -> list[Any]:
    """The elements of a repeated field (``[]`` when absent; a non-list counts as absent)."""
    value = get(obj, name)
    if type(value) is list:
        return value  # callers only read it
    if value is None or isinstance(value, (str, bytes, Mapping)):
        return []
    try:
        return list(value)
    except TypeError:
        return []


def unwrap(obj: object) -> object:
    """A proto-plus object's raw protobuf message; anything else unchanged."""
    if obj is None or type(obj) in _PLAIN:  # JSON values: no ABC check
        return obj
    if isinstance(obj, (Mapping, Message)):
        return obj
    pb = getattr(type(obj), "pb", None)
    if callable(pb) and hasattr(type(obj), "meta"):
        try:
            raw = pb(obj)
        except Exception:
            return obj
        if isinstance(raw, Message):
            return raw
    return obj


def titled(obj: object, ident: str, kind: SourceKind, **fields: Any) -> Source:
    """A :class:`Source` with the ``uri`` and ``title`` of ``obj`` and the given fields."""
    uri, title = text_or_none(get(obj, "uri")), text_or_none(get(obj, "title"))
    return Source(uri=uri, title=title, id=ident, kind=kind, **fields)


def text_or_none(value: object) -> str | None:
    """A string value, or ``None`` for absent, empty or non-string values."""
    return value if isinstance(value, str) and value else None


def float_or_none(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:  # an int too large for a float
        return math.inf if value > 0 else -math.inf
