"""Hypothesis strategies for the package's messages, driven by their descriptors.

Every field kind is covered (scalars at their limits, enums including unknown
numbers, nested and repeated messages, maps, oneofs, Timestamp and Struct), so a
new field in a schema is exercised without touching the tests.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor, OneofDescriptor
from google.protobuf.message import Message
from hypothesis import strategies as st

from grounding_protos import message_class, message_types
from grounding_protos._proto import pool as _pool
from grounding_protos._proto.pool import is_repeated
from tests.descriptors import descriptor_of, enum_type_of, message_type_of

F = FieldDescriptor
INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)
UINT32 = st.integers(0, 2**32 - 1)
UINT64 = st.integers(0, 2**64 - 1)
# Text from several scripts, astral characters and emoji included; no surrogates.
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
# Seconds of 0001-01-01 … 9999-12-31, the range proto3 JSON allows.
TIMESTAMP_SECONDS = st.integers(-62135596800, 253402300799)
MAX_DEPTH = 3  # nesting levels of generated messages
FLOAT32_SAFE = 3.3999999521443642e38  # a float32 just below json_format's edge

SCALARS: dict[int, st.SearchStrategy[Any]] = {
    F.TYPE_INT32: INT32, F.TYPE_SINT32: INT32, F.TYPE_SFIXED32: INT32,
    F.TYPE_INT64: INT64, F.TYPE_SINT64: INT64, F.TYPE_SFIXED64: INT64,
    F.TYPE_UINT32: UINT32, F.TYPE_FIXED32: UINT32,
    F.TYPE_UINT64: UINT64, F.TYPE_FIXED64: UINT64,
    F.TYPE_BOOL: st.booleans(),
    F.TYPE_STRING: TEXT,
    F.TYPE_BYTES: st.binary(max_size=12),
    F.TYPE_DOUBLE: st.floats(allow_nan=False),
    # json_format prints the largest float32 values rounded up, then refuses to parse
    # them back ("Float value too large"): keep finite ones below that edge.
    F.TYPE_FLOAT: st.floats(width=32, min_value=-FLOAT32_SAFE, max_value=FLOAT32_SAFE)
    | st.sampled_from([float("inf"), float("-inf")]),
}  # fmt: skip


def _value(field: FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    if field.full_name == "google.protobuf.Value.number_value":
        return st.floats(allow_nan=False, allow_infinity=False)  # JSON has no NaN here
    if field.full_name == "google.protobuf.Value.null_value":
        return st.just(0)
    if field.type == F.TYPE_MESSAGE:
        return messages(message_type_of(field), depth + 1)
    if field.type == F.TYPE_ENUM:
        known = [v.number for v in enum_type_of(field).values]
        # proto3 enums are open: unknown numbers must survive too.
        return st.one_of(st.sampled_from(known), st.integers(0, 2**31 - 1))
    return SCALARS[field.type]


@st.composite
def _populate(draw: st.DrawFn, descriptor: Descriptor, depth: int) -> Message:
    message = _pool.message_class(descriptor.full_name)()
    if descriptor.full_name == "google.protobuf.Timestamp":
        message.seconds = draw(TIMESTAMP_SECONDS)  # type: ignore[attr-defined]
        message.nanos = draw(st.integers(0, 999_999_999))  # type: ignore[attr-defined]
        return message
    chosen_oneof = {
        o.name: draw(st.sampled_from(_oneof_choices(o, depth))) for o in descriptor.oneofs
        if not o.name.startswith("_")  # synthetic oneofs of proto3 `optional`
    }  # fmt: skip
    too_deep = depth >= MAX_DEPTH
    for field in descriptor.fields:
        oneof = field.containing_oneof
        if oneof is not None and oneof.name in chosen_oneof:
            if chosen_oneof[oneof.name] is not field:
                continue
        elif not draw(st.booleans()):
            continue
        if too_deep and field.type == F.TYPE_MESSAGE:
            continue
        _set_field(draw, message, field, depth)
    return message


def _oneof_choices(oneof: OneofDescriptor, depth: int) -> list[FieldDescriptor | None]:
    fields = [f for f in oneof.fields if depth < MAX_DEPTH or f.type != F.TYPE_MESSAGE]
    # A Value without a kind has no JSON form (it would come back as null).
    if oneof.full_name == "google.protobuf.Value.kind":
        return list(fields)
    return [None, *fields]


def _set_field(draw: st.DrawFn, message: Message, field: FieldDescriptor, depth: int) -> None:
    target = getattr(message, field.name)
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        key_field = field.message_type.fields_by_name["key"]
        value_field = field.message_type.fields_by_name["value"]
        entries = draw(st.dictionaries(_value(key_field, depth), _value(value_field, depth),
                                       max_size=3))  # fmt: skip
        for key, value in entries.items():
            if value_field.type == F.TYPE_MESSAGE:
                target[key].CopyFrom(value)
            else:
                target[key] = value
    elif is_repeated(field):
        values = draw(st.lists(_value(field, depth), max_size=3))
        if field.type == F.TYPE_MESSAGE:
            for value in values:
                target.add().CopyFrom(value)
        else:
            target.extend(values)
    elif field.type == F.TYPE_MESSAGE:
        target.CopyFrom(draw(_value(field, depth)))
        if not target.ListFields():
            target.SetInParent()
    else:
        setattr(message, field.name, draw(_value(field, depth)))


def messages(descriptor: Descriptor, depth: int = 0) -> st.SearchStrategy[Message]:
    """Messages of one type, all field kinds drawn, nesting bounded."""
    return _populate(descriptor, depth)


def any_message() -> st.SearchStrategy[Message]:
    """A message of any type of the package, nested types included."""
    return st.sampled_from(message_types()).flatmap(
        lambda name: messages(descriptor_of(message_class(name)))
    )


# JSON-like values whose keys are the field names of grounded answers, so that
# random documents reach deep into the readers.
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["citations", "startIndex", "endIndex", "sources", "referenceId",
                             "answerText", "groundingSupports", "segment", "partIndex",
                             "groundingChunkIndices", "groundingChunks", "web", "candidates",
                             "content", "parts", "text", "thought", "confidenceScores",
                             "citationSources", "references", "chunkInfo", "answer"]),
            inner, max_size=5,
        ),
    ),
    max_leaves=25,
)  # fmt: skip
