"""A quick proof that a JSON object parses into a message type, for ``validate``.

``validate`` reports values of the wrong JSON type exactly as ``json_format`` (and so
``codec.from_dict``) does. Parsing builds the whole message, which costs as much as
reading the citations; :func:`parses` instead walks the JSON against the type's
fields and says ``True`` only when every value is of a kind that certainly parses.
Anything unusual (null, a second spelling of a field, two members of a oneof, maps,
well-known types, bytes, strings for numbers other than decimal integers, unknown
enum values) answers ``False``, and ``validate`` then parses for the exact message.
So it can make ``validate`` faster, never different.

>>> from grounding_protos.dialogflow_v2beta1 import GroundingMetadata
>>> parses(GroundingMetadata.DESCRIPTOR, {"groundingSupports": [{"segment": {"endIndex": "9"}}]})
True
>>> parses(GroundingMetadata.DESCRIPTOR, {"groundingChunks": [{"web": {"uri": 1}}]})
False
"""

from __future__ import annotations

import functools
import math
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from grounding_protos._proto.pool import is_repeated

_MAX_DEPTH = 64
FLOAT_MAX = 3.4028234663852886e38  # json_format's limit for float fields
_T = FieldDescriptor
INT_RANGES = {  # the values each integer type holds
    _T.TYPE_INT32: (-(2**31), 2**31 - 1),
    _T.TYPE_SINT32: (-(2**31), 2**31 - 1),
    _T.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    _T.TYPE_UINT32: (0, 2**32 - 1),
    _T.TYPE_FIXED32: (0, 2**32 - 1),
    _T.TYPE_INT64: (-(2**63), 2**63 - 1),
    _T.TYPE_SINT64: (-(2**63), 2**63 - 1),
    _T.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    _T.TYPE_UINT64: (0, 2**64 - 1),
    _T.TYPE_FIXED64: (0, 2**64 - 1),
}


# How to check one field: (number, oneof index or -1, repeated, check, argument).
_Plan = tuple[int, int, bool, str, Any]


@functools.cache
def _fields(descriptor: Any) -> dict[str, _Plan]:
    """A message type's field plans, by JSON name and by proto name (made once)."""
    out: dict[str, _Plan] = {}
    for field in descriptor.fields:
        oneof = field.containing_oneof
        plan = (
            field.number,
            oneof.index if oneof is not None else -1,
            is_repeated(field),
            *_check(field),
        )
        out[field.name] = plan
        out[field.json_name] = plan
    return out


def _check(field: FieldDescriptor) -> tuple[str, Any]:
    kind = field.type
    if kind == _T.TYPE_STRING:
        return "str", None
    if kind == _T.TYPE_BOOL:
        return "bool", None
    if kind == _T.TYPE_MESSAGE:
        message = field.message_type
        if message is None or message.full_name.startswith("google.protobuf."):
            return "no", None  # Timestamp, Struct, wrappers: their own JSON forms
        if message.GetOptions().map_entry:
            return "no", None
        return "message", message
    if kind == _T.TYPE_ENUM and field.enum_type is not None:
        values = field.enum_type.values
        return "enum", (frozenset(v.name for v in values), frozenset(v.number for v in values))
    if kind in (_T.TYPE_FLOAT, _T.TYPE_DOUBLE):
        return "float", None
    bounds = INT_RANGES.get(kind)
    if bounds is None:
        return "no", None  # bytes, groups
    return "int", bounds


def parses(descriptor: Any, data: object, depth: int = 0) -> bool:
    """Whether ``data`` certainly parses as message type ``descriptor`` (unknown fields
    ignored); ``False`` means "parse it to find out"."""
    if type(data) is not dict or depth > _MAX_DEPTH:
        return False
    fields = _fields(descriptor)
    seen: set[int] = set()
    oneofs: set[int] = set()
    for key, value in data.items():
        plan = fields.get(key) if type(key) is str else None
        if plan is None:
            continue  # an unknown field: ignored
        number, oneof, repeated, check, argument = plan
        if number in seen:
            return False  # both spellings of one field
        seen.add(number)
        if oneof >= 0:
            if oneof in oneofs:
                return False
            oneofs.add(oneof)
        if repeated:
            if type(value) is not list:
                return False
            for item in value:
                if not _value(check, argument, item, depth):
                    return False
        elif not _value(check, argument, value, depth):
            return False
    return True


def _value(check: str, argument: Any, value: object, depth: int) -> bool:
    if check == "str":
        return type(value) is str
    if check == "message":
        return parses(argument, value, depth + 1)
    if check == "float":
        if type(value) is float:
            return math.isfinite(value) and abs(value) <= FLOAT_MAX
        return type(value) is int and abs(value) <= 2**53
    if check == "int":
        if type(value) is str:
            digits = value[1:] if value.startswith("-") else value
            if not (digits.isascii() and digits.isdigit()) or len(value) > 21:
                return False
            number = int(value)
        elif type(value) is int:
            number = value
        else:
            return False
        return bool(argument[0] <= number <= argument[1])
    if check == "bool":
        return type(value) is bool
    if check == "enum":
        if type(value) is str:
            return value in argument[0]
        return type(value) is int and value in argument[1]
    return False
