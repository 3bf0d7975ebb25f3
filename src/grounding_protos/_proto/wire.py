"""Parsing wire bytes with an error that says where and why they are malformed.

protobuf's own parser only says "Error parsing message". When it fails, a small
descriptor-guided walk over the bytes finds the first problem and names its byte
offset and field path. The walk runs only after a failure, so parsing valid bytes
costs exactly what ``ParseFromString`` costs.
"""

from __future__ import annotations

from typing import TypeVar, cast

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message

from grounding_protos._exceptions import ArgumentTypeError
from grounding_protos._proto.errors import WireFormatError
from grounding_protos._proto.pool import is_repeated
from grounding_protos._proto.registry import resolve_class
from grounding_protos._public import public

M = TypeVar("M", bound=Message)

_MAX_DEPTH = 100  # protobuf's default recursion limit for parsing
_MAX_FIELD_NUMBER = 2**29 - 1
_VARINT_KINDS = {
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_BOOL, FieldDescriptor.TYPE_ENUM,
}  # fmt: skip
_FIXED_SIZES = {
    FieldDescriptor.TYPE_FIXED64: 8, FieldDescriptor.TYPE_SFIXED64: 8,
    FieldDescriptor.TYPE_DOUBLE: 8, FieldDescriptor.TYPE_FIXED32: 4,
    FieldDescriptor.TYPE_SFIXED32: 4, FieldDescriptor.TYPE_FLOAT: 4,
}  # fmt: skip


def from_bytes(message_type: str | type[M], data: bytes | bytearray | memoryview) -> M:
    """Parse wire bytes into a new message; malformed bytes raise :class:`WireFormatError`.

    ``message_type`` is a message class or a name ``message_class`` accepts.

    >>> from grounding_protos.discoveryengine_v1 import Answer
    >>> from_bytes(Answer, b"\\x1a\\x02hi").answer_text
    'hi'
    >>> from_bytes("Answer", b"\\x1a\\x09hi")
    Traceback (most recent call last):
    ...
    grounding_protos.WireFormatError: cannot parse 4 bytes as \
google.cloud.discoveryengine.v1.Answer: Answer.answer_text at byte 2: length-delimited \
value needs 9 bytes, only 2 remain (the enclosing message ends at byte 4)
    """
    cls = resolve_class(message_type)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ArgumentTypeError(f"wire data must be bytes, not {type(data).__name__}")
    data = bytes(data)
    message = cls()
    try:
        message.ParseFromString(data)
    except DecodeError as exc:
        raise _wire_error(cast(Descriptor, cls.DESCRIPTOR), data, exc) from None
    return message  # type: ignore[return-value]


def _wire_error(descriptor: Descriptor, data: bytes, cause: Exception) -> WireFormatError:
    problem = diagnose(descriptor, data)
    head = f"cannot parse {len(data)} bytes as {descriptor.full_name}"
    if problem is None:
        return WireFormatError(
            f"{head}: {cause}", type_name=descriptor.full_name, offset=None, path=descriptor.name
        )
    offset, path, reason = problem
    return WireFormatError(
        f"{head}: {path} at byte {offset}: {reason}",
        type_name=descriptor.full_name,
        offset=offset,
        path=path,
    )


class _Malformed(Exception):
    def __init__(self, offset: int, path: str, reason: str) -> None:
        super().__init__(reason)
        self.offset, self.path, self.reason = offset, path, reason


def diagnose(descriptor: Descriptor, data: bytes) -> tuple[int, str, str] | None:
    """The first problem in ``data`` as ``(byte offset, field path, reason)``, or ``None``.

    Checks what protobuf's parser rejects: truncated or overlong varints, lengths past
    the end, invalid wire types and field number 0, unbalanced groups, invalid UTF-8
    in ``string`` fields, and nesting deeper than protobuf's limit.
    """
    try:
        _walk(descriptor, data, 0, len(data), descriptor.name, 0)
    except _Malformed as bad:
        return bad.offset, bad.path, bad.reason
    return None


def _varint(data: bytes, pos: int, end: int, path: str) -> tuple[int, int]:
    start, value, shift = pos, 0, 0
    while True:
        if pos >= end:
            raise _Malformed(start, path, "truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise _Malformed(start, path, "varint longer than 10 bytes")


def _take(pos: int, size: int, end: int, path: str, what: str) -> int:
    if size > end - pos:
        raise _Malformed(
            pos, path,
            f"{what} needs {size} bytes, only {end - pos} remain "
            f"(the enclosing message ends at byte {end})",
        )  # fmt: skip
    return pos + size


def _walk(descriptor: Descriptor, data: bytes, pos: int, end: int, path: str,
          depth: int) -> None:  # fmt: skip
    if depth > _MAX_DEPTH:
        raise _Malformed(pos, path, f"messages nested deeper than {_MAX_DEPTH} levels")
    seen: dict[int, int] = {}
    while pos < end:
        tag_at = pos
        number, wire_type, pos = _tag(data, pos, end, path)
        field = descriptor.fields_by_number.get(number)
        index = seen.get(number, 0)
        seen[number] = index + 1
        where = _field_path(path, field, number, index)
        if wire_type == 4:
            raise _Malformed(tag_at, where, "end-group tag without a matching start-group")
        if wire_type == 2 and field is not None:
            length, pos = _varint(data, pos, end, where)
            stop = _take(pos, length, end, where, "length-delimited value")
            _check_payload(field, data, pos, stop, where, depth)
            pos = stop
        else:
            pos = _skip(data, pos, end, where, number, wire_type, depth)


def _tag(data: bytes, pos: int, end: int, path: str) -> tuple[int, int, int]:
    tag_at = pos
    tag, pos = _varint(data, pos, end, path)
    if pos - tag_at > 5:  # upb reads tags as 32-bit varints: at most 5 bytes
        raise _Malformed(tag_at, path, f"tag takes {pos - tag_at} bytes, more than 5")
    if tag > 0xFFFFFFFF:
        raise _Malformed(tag_at, path, f"tag {tag} does not fit in 32 bits")
    if tag >> 3 > _MAX_FIELD_NUMBER:
        raise _Malformed(tag_at, path, f"field number {tag >> 3} is above {_MAX_FIELD_NUMBER}")
    if tag >> 3 == 0:
        raise _Malformed(tag_at, path, "field number 0 is not allowed")
    if tag & 7 > 5:
        raise _Malformed(tag_at, path, f"invalid wire type {tag & 7} for field {tag >> 3}")
    return tag >> 3, tag & 7, pos


def _skip(data: bytes, pos: int, end: int, path: str, number: int, wire_type: int,
          depth: int) -> int:  # fmt: skip
    """Skip one value of an unknown field (or a known non-length-delimited one)."""
    if wire_type == 0:
        return _varint(data, pos, end, path)[1]
    if wire_type == 1:
        return _take(pos, 8, end, path, "fixed64 value")
    if wire_type == 5:
        return _take(pos, 4, end, path, "fixed32 value")
    if wire_type == 2:
        length, pos = _varint(data, pos, end, path)
        return _take(pos, length, end, path, "length-delimited value")
    if wire_type == 3:
        if depth + 1 > _MAX_DEPTH:
            raise _Malformed(pos, path, f"groups nested deeper than {_MAX_DEPTH} levels")
        while True:
            if pos >= end:
                raise _Malformed(pos, path, f"group {number} has no end-group tag")
            tag_at = pos
            inner, inner_type, pos = _tag(data, pos, end, path)
            if inner_type == 4:
                if inner != number:
                    raise _Malformed(tag_at, path, f"end-group {inner} closes group {number}")
                return pos
            pos = _skip(data, pos, end, path, inner, inner_type, depth + 1)
    raise AssertionError(f"wire type {wire_type} was checked by _tag")


def _field_path(path: str, field: FieldDescriptor | None, number: int, index: int) -> str:
    if field is None:
        return f"{path}.<field {number}>"
    return f"{path}.{field.name}[{index}]" if is_repeated(field) else f"{path}.{field.name}"


def _check_payload(field: FieldDescriptor, data: bytes, pos: int, stop: int, where: str,
                   depth: int) -> None:  # fmt: skip
    if field.message_type is not None:
        _walk(field.message_type, data, pos, stop, where, depth + 1)
    elif field.type == FieldDescriptor.TYPE_STRING:
        try:
            data[pos:stop].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _Malformed(pos + exc.start, where, "invalid UTF-8 in a string field") from None
    elif not is_repeated(field):
        return  # a scalar sent length-delimited: protobuf keeps it as an unknown field
    elif field.type in _VARINT_KINDS:  # packed
        while pos < stop:
            _, pos = _varint(data, pos, stop, where)
    elif field.type in _FIXED_SIZES and (stop - pos) % _FIXED_SIZES[field.type]:
        raise _Malformed(
            pos, where,
            f"packed length {stop - pos} is not a multiple of {_FIXED_SIZES[field.type]}",
        )  # fmt: skip


public("grounding_protos", from_bytes)
