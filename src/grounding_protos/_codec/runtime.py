"""What the generated JSON plans call at run time, and what json_format does per version.

The plans (see ``_codec.plan``) handle the common shapes inline; the helpers here
handle the rest: well-known types (Struct, Value, ListValue), scalars in unusual
spellings, and failures. Rare inputs are converted by json_format's own scalar
converter, so they behave exactly as on the installed protobuf runtime.

A plan that meets a problem raises :class:`Fail`; ``_codec.codec`` then re-runs
json_format, which has the last word (see ``_codec.from_dict``).
"""

from __future__ import annotations

import base64
import datetime
import inspect
import math
import re
import struct
import threading
from collections.abc import Callable
from typing import Any

from google.protobuf import descriptor_pool, json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.internal import type_checkers
from google.protobuf.message import Message

from grounding_protos._quote import shown

__all__ = [
    "SKIP",
    "TOO_DEEP",
    "Fail",
    "b64decode",
    "b64encode",
    "convert_scalar",
    "float32",
    "list_value_from",
    "list_value_to",
    "message_value",
    "nonfinite",
    "struct_from",
    "struct_to",
    "value_from",
    "value_to",
]

#: Returned by :func:`convert_scalar` for an unknown enum name that is ignored.
SKIP: Any = object()
#: Problem text of a nesting deeper than ``max_recursion_depth``.
TOO_DEEP = "message too deep: max_recursion_depth is {max_depth}"

FLOAT_MAX: float = type_checkers._FLOAT_MAX  # type: ignore[attr-defined]  # json_format's limit
copysign = math.copysign
_pack_f32 = struct.Struct("<f").pack
_unpack_f32 = struct.Struct("<f").unpack


class Fail(Exception):
    """A plan could not convert a value. Internal: never leaves the codec.

    ``parts`` collects the JSON path while the exception unwinds (innermost
    first); ``exact`` says whether json_format is known to fail at the same place
    (False for inputs that are not plain JSON values, which json_format decides).
    """

    def __init__(self, problem: str, *, exact: bool = True, skippable: bool = False) -> None:
        super().__init__(problem)
        self.problem = problem
        self.exact = exact
        self.skippable = skippable
        self.parts: list[str] = []

    def path(self) -> str:
        return "".join(reversed(self.parts)).removeprefix(".")


def fail_from(error: BaseException) -> Fail:
    """A :class:`Fail` for an exception raised while setting a field.

    json_format turns ``ValueError`` and ``TypeError`` into ``ParseError``; anything
    else escapes it raw, so the place is not known to be the same.
    """
    if isinstance(error, Fail):
        return error
    if isinstance(error, RecursionError):
        return Fail("nesting too deep for Python's recursion limit", exact=False)
    exact = isinstance(error, (ValueError, TypeError))
    failure = Fail(str(error) or type(error).__name__, exact=exact)
    failure.__cause__ = error
    return failure


# --- Emitting ------------------------------------------------------------------


def nonfinite(value: float) -> str | float:
    """json_format's spelling of a float that is not finite."""
    if value != value:
        return "NaN"
    if value == math.inf:
        return "Infinity"
    if value == -math.inf:
        return "-Infinity"
    return value


def float32(value: float) -> str | float:
    """json_format's value of a float (32-bit) field: the shortest that round-trips.

    protobuf's ``type_checkers.ToShortestFloat``, with the struct codec bound once.
    """
    if value - value != 0.0:
        return nonfinite(value)
    precision = 6
    rounded = float(f"{value:.6g}")
    try:
        while _unpack_f32(_pack_f32(rounded))[0] != value:
            precision += 1
            rounded = float(f"{value:.{precision}g}")
    except (OverflowError, struct.error):
        return type_checkers.ToShortestFloat(value)
    return rounded


def b64encode(value: bytes) -> str:
    return base64.b64encode(value).decode("utf-8")


def value_to(value: Message) -> Any:
    """A ``google.protobuf.Value`` as json_format prints it."""
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value  # type: ignore[attr-defined]
    if kind == "number_value":
        number = value.number_value  # type: ignore[attr-defined]
        if number - number != 0.0:
            # json_format refuses these; the caller re-runs it for its exact error.
            raise ValueError("Value.number_value is not finite")
        return number
    if kind == "list_value":
        return [value_to(item) for item in value.list_value.values[:]]  # type: ignore[attr-defined]
    if kind == "struct_value":
        return struct_to(value.struct_value)  # type: ignore[attr-defined]
    if kind == "bool_value":
        return value.bool_value  # type: ignore[attr-defined]
    return None  # null_value, or no kind at all


def struct_to(struct: Message) -> dict[str, Any]:
    """A ``google.protobuf.Struct`` as json_format prints it (same key order)."""
    fields = struct.fields  # type: ignore[attr-defined]
    return {key: value_to(fields[key]) for key in fields}


def list_value_to(list_value: Message) -> list[Any]:
    return [value_to(item) for item in list_value.values[:]]  # type: ignore[attr-defined]


# --- Parsing: scalars ------------------------------------------------------------

_MARK = "\x00"  # stands for the path in json_format's messages; cut out again
_convert: Callable[..., Any] | None = getattr(json_format, "_ConvertScalarFieldValue", None)
_CONVERT_PARAMS = set(inspect.signature(_convert).parameters) if _convert else set()
# protobuf >= 5.27 lets ignore_unknown_fields skip unknown enum names.
_ENUM_NAME_ERROR: type[Exception] | None = getattr(json_format, "EnumStringValueParseError", None)


def _enum_json_extension() -> Any:
    try:
        return descriptor_pool.Default().FindExtensionByName("pb.enumvalue.json")
    except KeyError:
        return None


def _clean(message: str) -> str:
    return message.replace(f" at {_MARK}", "").replace(_MARK, "")


def convert_scalar(value: Any, field: FieldDescriptor, require_str: bool = False) -> Any:
    """Convert one scalar as the installed json_format does, for the rare spellings.

    Raises :class:`Fail` with json_format's own problem text; an unknown enum name
    is ``skippable`` where the runtime lets ``ignore_unknown_fields`` skip it.
    """
    if _convert is None or not {"value", "field", "path"} <= _CONVERT_PARAMS:
        raise Fail(f"cannot convert {shown(value)}", exact=False)
    args: list[Any] = [value, field, _MARK]
    if "custom_enum_names_cache" in _CONVERT_PARAMS:  # protobuf >= 7
        args += [{}, _enum_json_extension()]
    try:
        if require_str:
            return _convert(*args, require_str=True)
        return _convert(*args)
    except json_format.ParseError as error:
        skippable = _ENUM_NAME_ERROR is not None and isinstance(error, _ENUM_NAME_ERROR)
        raise Fail(_clean(str(error)), skippable=skippable) from error
    except (ValueError, TypeError) as error:
        raise Fail(str(error)) from error
    except Exception as error:
        raise Fail(str(error), exact=False) from error


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{type(value).__name__} {text}"


def scalar(value: Any, field: FieldDescriptor, ignore: bool) -> Any:
    """:func:`convert_scalar`, returning :data:`SKIP` for an ignored enum name."""
    try:
        return convert_scalar(value, field)
    except Fail as error:
        if ignore and error.skippable:
            return SKIP
        raise


def b64decode(value: str) -> bytes:
    """json_format's decoding of a bytes field (padding added, URL-safe alphabet)."""
    encoded = value.encode("utf-8")
    return base64.urlsafe_b64decode(encoded + b"=" * (4 - len(encoded) % 4))


# --- Parsing: messages and well-known types ---------------------------------------

_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?Z"
).fullmatch
_EPOCH = datetime.datetime(1970, 1, 1)
_MIN_SECONDS, _MAX_SECONDS = -62135596800, 253402300799
_timestamp_checked: bool | None = None


def timestamp_from(value: Any, timestamp: Message) -> None:
    """``Timestamp.FromJsonString``, with a quick path for ``YYYY-MM-DDThh:mm:ss[.f]Z``.

    The quick path does FromJsonString's arithmetic (checked against it once);
    any other spelling, and every error, goes to FromJsonString itself.
    """
    global _timestamp_checked
    match = _TIMESTAMP(value) if type(value) is str else None
    if match is not None and _timestamp_checked is not False:
        if _timestamp_checked is None:
            _timestamp_checked = _check_timestamp_path(type(timestamp))
            timestamp_from(value, timestamp)
            return
        year, month, day, hour, minute, second, fraction = match.groups()
        try:
            delta = (
                datetime.datetime(
                    int(year), int(month), int(day), int(hour), int(minute), int(second)
                )
                - _EPOCH
            )
        except ValueError:
            pass  # FromJsonString gives the error
        else:
            seconds = delta.seconds + delta.days * 86400
            nanos = round(float("0." + fraction) * 1e9) if fraction else 0
            if _MIN_SECONDS <= seconds <= _MAX_SECONDS and nanos <= 999_999_999:
                timestamp.seconds = seconds  # type: ignore[attr-defined]
                timestamp.nanos = nanos  # type: ignore[attr-defined]
                return
    timestamp.FromJsonString(value)  # type: ignore[attr-defined]


def _check_timestamp_path(cls: type[Message]) -> bool:
    global _timestamp_checked
    _timestamp_checked = True
    for text in (
        "2024-02-29T23:59:59.999999999Z",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59.5Z",
        "1969-12-31T23:59:59.000000001Z",
        "2000-01-01T00:00:00.1234Z",
    ):
        ours, theirs = cls(), cls()
        timestamp_from(text, ours)
        theirs.FromJsonString(text)  # type: ignore[attr-defined]
        if ours != theirs:
            return False
    return True


def message_value(
    value: Any,
    plan: Callable[[dict[str, Any], Message, int], None],
    target: Message,
    remaining: int,
) -> None:
    """Parse ``value`` into the sub-message ``target`` when the inline check failed.

    ``remaining`` is how many more levels of nesting are allowed below the parent.
    json_format iterates whatever it is given as an object: ``[]`` and ``""`` are an
    empty message to it, numbers fail ("not iterable").
    """
    if remaining <= 0:
        raise Fail(TOO_DEEP)
    if type(value) is dict:
        plan(value, target, remaining - 1)
    elif isinstance(value, (list, str)) and not value:
        return
    elif isinstance(value, (int, float)):  # bool included
        raise Fail(f"expected a JSON object, got {type(value).__name__} {shown(value)}")
    else:
        raise Fail(f"expected a JSON object, got {type(value).__name__}", exact=False)


class DepthRules:
    """Which levels inside a Struct count toward ``max_recursion_depth``.

    protobuf 7 counts every Value, Struct and ListValue inside a Struct; earlier
    runtimes count only the Struct field itself. Probed on first use
    (:func:`probe_depth_rules`), which also makes the Struct parsers.
    """

    values = struct_in_value = list_in_value = list_items = False
    probed = False


_probe_lock = threading.Lock()


def probe_depth_rules(struct_class: type[Message]) -> None:
    """Find :class:`DepthRules` by asking json_format (each probe is one small parse)."""
    if DepthRules.probed:
        return
    with _probe_lock:
        if not DepthRules.probed:
            _probe(struct_class)


def _probe(struct_class: type[Message]) -> None:
    def fails(data: dict[str, Any], max_depth: int) -> bool:
        try:
            json_format.ParseDict(data, struct_class(), max_recursion_depth=max_depth)
        except json_format.ParseError:
            return True
        return False

    values = fails({"a": 1}, 1)
    base = 1 + values
    list_in_value = fails({"a": []}, base)
    DepthRules.struct_in_value = fails({"a": {}}, base)
    DepthRules.list_items = fails({"a": [1]}, base + list_in_value)
    DepthRules.list_in_value = list_in_value
    DepthRules.values = values
    global struct_from, value_from, list_value_from
    struct_from, value_from, list_value_from = _struct_parsers(
        values, DepthRules.struct_in_value, list_in_value, DepthRules.list_items
    )
    DepthRules.probed = True


_Parse = Callable[..., None]


def _struct_parsers(
    values: bool, struct_in_value: bool, list_in_value: bool, list_items: bool
) -> tuple[_Parse, _Parse, _Parse]:
    """Struct, Value and ListValue parsers for one set of :class:`DepthRules`.

    Each takes ``(data, message, remaining)``, ``remaining`` being how many levels
    may nest below ``message``; ``value_from`` also takes ``counted``: whether the
    Value itself counts (it does inside a Struct on protobuf 7).
    """

    def struct_from(data: Any, struct: Message, remaining: int) -> None:
        if type(data) is not dict:
            if isinstance(data, dict):
                raise Fail("a dict subclass for a Struct", exact=False)
            raise Fail(f"Struct must be a JSON object, not {type(data).__name__}")
        struct.Clear()
        fields = struct.fields  # type: ignore[attr-defined]
        key = None
        try:
            for key, item in data.items():
                value_from(item, fields[key], remaining, values)
        except Exception as error:
            failure = fail_from(error)
            failure.parts.append(f".{key}")
            raise failure  # noqa: B904 (the cause is kept by fail_from)

    def list_value_from(data: Any, list_value: Message, remaining: int) -> None:
        if type(data) is not list:
            raise Fail(f"ListValue must be a JSON array, not {type(data).__name__}", exact=False)
        list_value.ClearField("values")
        add = list_value.values.add  # type: ignore[attr-defined]
        index = 0
        try:
            for item in data:
                value_from(item, add(), remaining, list_items)
                index += 1
        except Exception as error:
            failure = fail_from(error)
            failure.parts.append(f"[{index}]")
            raise failure  # noqa: B904 (the cause is kept by fail_from)

    def value_from(data: Any, value: Message, remaining: int, counted: bool) -> None:
        if counted:
            if remaining <= 0:
                raise Fail(TOO_DEEP)
            remaining -= 1
        kind = type(data)
        if kind is str:
            value.string_value = data  # type: ignore[attr-defined]
        elif kind is float or kind is int:
            value.number_value = data  # type: ignore[attr-defined]
        elif kind is bool:
            value.bool_value = data  # type: ignore[attr-defined]
        elif data is None:
            value.null_value = 0  # type: ignore[attr-defined]
        elif kind is dict:
            if struct_in_value:
                if remaining <= 0:
                    raise Fail(TOO_DEEP)
                remaining -= 1
            struct_from(data, value.struct_value, remaining)  # type: ignore[attr-defined]
        elif kind is list:
            if list_in_value:
                if remaining <= 0:
                    raise Fail(TOO_DEEP)
                remaining -= 1
            list_value_from(data, value.list_value, remaining)  # type: ignore[attr-defined]
        else:
            raise Fail(f"a {kind.__name__} is not a JSON value", exact=False)

    return struct_from, value_from, list_value_from


struct_from, value_from, list_value_from = _struct_parsers(False, False, False, False)
