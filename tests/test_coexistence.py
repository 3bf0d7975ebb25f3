"""Coexistence with Google's official client libraries (DESIGN decisions 1, 2 and 4).

Both sets of classes load in one process in either order, exchange wire bytes
field for field, and agree on every field's number, name, type and presence. The
official libraries are a test-only extra: without them this module is skipped.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

import grounding_protos
from grounding_protos._proto import pool as _pool
from grounding_protos._proto.pool import is_repeated
from tests.descriptors import descriptor_of, message_type_of

# The official types modules that register our messages' full names in the default pool.
OFFICIAL_MODULES = (
    "google.cloud.dialogflow_v2beta1.types.grounding",
    "google.cloud.discoveryengine_v1.types.answer",
    "google.cloud.discoveryengine_v1.types.safety",
    "google.cloud.discoveryengine_v1beta.types.grounding",
    "google.ai.generativelanguage_v1beta3.types.citation",
)
for _name in OFFICIAL_MODULES:
    pytest.importorskip(_name, reason="the official client libraries are not installed")

F = FieldDescriptor
TYPES = grounding_protos.message_types()
DEFAULT_POOL = descriptor_pool.Default()


def ours(full_name: str) -> Descriptor:
    """Our descriptor for a full name (the package's isolated pool)."""
    return _pool.POOL.FindMessageTypeByName(full_name)


def official(full_name: str) -> Descriptor:
    """The official descriptor for a full name (protobuf's default pool)."""
    return DEFAULT_POOL.FindMessageTypeByName(full_name)


def cls_of(descriptor: Descriptor) -> type[Message]:
    """The message class of a descriptor of either pool."""
    return message_factory.GetMessageClass(descriptor)


def is_map(field: FieldDescriptor) -> bool:
    """Whether a field is a map (a repeated field of a map-entry message)."""
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def upstream_name(name: str) -> str:
    """A name as in the ``.proto``: the official proto-plus types append ``_`` to
    names that shadow Python builtins (``license_``, ``type_``); AIP-140 field
    names never end with ``_``."""
    return name.removesuffix("_")


# ---------------------------------------------------------------------------
# A descriptor-driven populator, for messages of either pool
# ---------------------------------------------------------------------------

KeepField = Callable[[FieldDescriptor], bool]
_INT32 = {F.TYPE_INT32, F.TYPE_SINT32, F.TYPE_SFIXED32}
_INT64 = {F.TYPE_INT64, F.TYPE_SINT64, F.TYPE_SFIXED64}
_UINT32 = {F.TYPE_UINT32, F.TYPE_FIXED32}
_UINT64 = {F.TYPE_UINT64, F.TYPE_FIXED64}
_ZERO: dict[int, Any] = {F.TYPE_BOOL: False, F.TYPE_STRING: "", F.TYPE_BYTES: b""}


class Populator:
    """Sets every field of a message: nested and repeated messages, maps, enums,
    one member of each oneof, non-ASCII text, Timestamps and Structs.

    ``variant`` rotates which oneof member and which enum value is chosen, and on
    odd variants sets fields with presence to their zero value (which must still
    be sent). Every scalar gets a distinct value, so swapped fields show up.
    ``keep`` leaves out the fields it rejects.
    """

    MAX_REPEATS = 2  # a message type may occur this often on one path (Struct/Value)

    def __init__(self, variant: int = 0, keep: KeepField | None = None) -> None:
        self.variant = variant
        self.keep = keep or (lambda field: True)
        self.counter = 0

    def fill(self, message: Message, path: tuple[str, ...] = ()) -> Message:
        descriptor = descriptor_of(message)
        path = (*path, descriptor.full_name)
        if descriptor.full_name in ("google.protobuf.Timestamp", "google.protobuf.Duration"):
            message.seconds = 1_700_000_000 + self._next()  # type: ignore[attr-defined]
            message.nanos = 123_000_000 + self.variant  # type: ignore[attr-defined]
            return message
        chosen: dict[str, FieldDescriptor] = {}
        for group in descriptor.oneofs:
            members = [f for f in group.fields if self.keep(f) and self._can_enter(f, path)]
            if members:
                chosen[group.name] = members[self.variant % len(members)]
        for field in descriptor.fields:
            if not self.keep(field) or not self._can_enter(field, path):
                continue
            oneof = field.containing_oneof
            if oneof is not None and chosen.get(oneof.name) is not field:
                continue
            self._set(message, field, path)
        return message

    def _next(self) -> int:
        self.counter += 1
        return self.counter

    def _can_enter(self, field: FieldDescriptor, path: tuple[str, ...]) -> bool:
        if field.message_type is None or is_map(field):
            return True
        return path.count(field.message_type.full_name) < self.MAX_REPEATS

    def _set(self, message: Message, field: FieldDescriptor, path: tuple[str, ...]) -> None:
        value = getattr(message, field.name)
        if is_map(field):
            key_field = message_type_of(field).fields_by_name["key"]
            value_field = message_type_of(field).fields_by_name["value"]
            for _ in range(2):
                key = self._scalar(key_field)
                if value_field.message_type is not None:
                    self.fill(value[key], path)
                else:
                    value[key] = self._scalar(value_field)
        elif field.message_type is not None:
            if is_repeated(field):
                for _ in range(2):
                    self.fill(value.add(), path)
            else:
                self.fill(value, path)
                value.SetInParent()
        elif is_repeated(field):
            if field.enum_type is not None:
                value.extend(v.number for v in field.enum_type.values)
            else:
                value.extend(self._scalar(field) for _ in range(3))
        elif field.has_presence and self.variant % 2:
            setattr(message, field.name, _ZERO.get(field.type, 0))
        else:
            setattr(message, field.name, self._scalar(field))

    def _scalar(self, field: FieldDescriptor) -> Any:
        n = self._next()
        sign = -1 if n % 2 else 1
        kind = field.type
        if field.enum_type is not None:
            numbers = [v.number for v in field.enum_type.values if v.number] or [0]
            return numbers[(self.variant + n) % len(numbers)]
        if kind in _INT32:
            return sign * (n * 1_000_003 + self.variant)
        if kind in _INT64:
            return sign * (n * 10**15 + self.variant)
        if kind in _UINT32:
            return 2**31 + n
        if kind in _UINT64:
            return 2**63 + n
        if kind == F.TYPE_FLOAT:
            return n + 0.25  # exact in float32
        if kind == F.TYPE_DOUBLE:
            return sign * (n + 0.1)
        if kind == F.TYPE_BOOL:
            return True
        if kind == F.TYPE_STRING:
            return f"Café ☕ 日本語 🎉 {field.name} {n}"
        if kind == F.TYPE_BYTES:
            return bytes([0, 255, n % 256]) + "é".encode()
        raise AssertionError(f"no value for {field.full_name} (type {kind})")


def variants(descriptor: Descriptor) -> int:
    """How many variants visit every oneof member and every enum value below a type."""
    seen: set[str] = set()
    most = 2

    def walk(d: Descriptor) -> None:
        nonlocal most
        if d.full_name in seen:
            return
        seen.add(d.full_name)
        most = max(most, *(len(o.fields) for o in d.oneofs), 0)
        for field in d.fields:
            if field.enum_type is not None:
                most = max(most, len(field.enum_type.values))
            if field.message_type is not None:
                walk(field.message_type)

    walk(descriptor)
    return most


def known_to_ours(field: FieldDescriptor) -> bool:
    """Whether our schema has a field (by number) for an official field."""
    assert field.containing_type is not None
    try:
        mine = ours(field.containing_type.full_name)
    except KeyError:
        return False
    return field.number in mine.fields_by_number


def as_dict(message: Message) -> dict[str, Any]:
    """Proto3 JSON of a message (json names: same on both sides, unlike proto-plus names)."""
    return json_format.MessageToDict(message)


# ---------------------------------------------------------------------------
# Importing both in one process, in either order
# ---------------------------------------------------------------------------

CHILD = """
import json, sys

def load_ours():
    import grounding_protos.dialogflow_v2beta1 as df
    import grounding_protos.discoveryengine_v1 as de1
    import grounding_protos.discoveryengine_v1beta as de1b
    import grounding_protos.generativelanguage_v1beta3 as gl
    return [df.GroundingMetadata, de1.Answer, de1.SafetyRating, de1b.GroundingFact,
            gl.CitationMetadata]

def load_official():
    from google.cloud.dialogflow_v2beta1.types import grounding as df
    from google.cloud.discoveryengine_v1.types import answer, safety
    from google.cloud.discoveryengine_v1beta.types import grounding as de1b
    from google.ai.generativelanguage_v1beta3.types import citation as gl
    return [df.GroundingMetadata, answer.Answer, safety.SafetyRating, de1b.GroundingFact,
            gl.CitationMetadata]

KWARGS = [
    dict(web_search_queries=["café 日本"], grounding_supports=[
        dict(segment=dict(start_index=1, end_index=6, text="é"), grounding_chunk_indices=[0])]),
    dict(answer_text="Café 🎉", state=3, citations=[dict(start_index=0, end_index=5)]),
    dict(category=5, probability=2, severity_score=0.5, blocked=True),
    dict(fact_text="日本", attributes={"ключ": "значение"}),
    dict(citation_sources=[dict(start_index=2, uri="https://ex.com/é", license="MIT")]),
]

def build_ours(classes):
    return [cls(**kw).SerializeToString(deterministic=True) for cls, kw in zip(classes, KWARGS)]

def build_official(classes):
    out = []
    for cls, kw in zip(classes, KWARGS):
        kw = {"license_" if k == "license" else k: v for k, v in kw.items()}
        if "citation_sources" in kw:
            kw["citation_sources"] = [
                {"license_" if k == "license" else k: v for k, v in source.items()}
                for source in kw["citation_sources"]
            ]
        out.append(cls.pb(cls(**kw)).SerializeToString(deterministic=True))
    return out

if sys.argv[1] == "ours-first":
    mine = load_ours(); mine_bytes = build_ours(mine)
    theirs = load_official(); theirs_bytes = build_official(theirs)
else:
    theirs = load_official(); theirs_bytes = build_official(theirs)
    mine = load_ours(); mine_bytes = build_ours(mine)

import grounding_protos
from google.protobuf import descriptor_pool, message_factory
default = descriptor_pool.Default()
pairs = {}
for name in grounding_protos.message_types():
    a = grounding_protos.message_class(name)
    b = message_factory.GetMessageClass(default.FindMessageTypeByName(name))
    pairs[name] = [a.DESCRIPTOR.full_name, b.DESCRIPTOR.full_name, a is b,
                   a.DESCRIPTOR.file.pool is default]
print(json.dumps({
    "pairs": pairs,
    "ours": [m.hex() for m in mine_bytes],
    "official": [m.hex() for m in theirs_bytes],
    "pb_classes": [[a.DESCRIPTOR.full_name, b.pb().DESCRIPTOR.full_name, a is b.pb()]
                   for a, b in zip(mine, theirs)],
}))
"""


@pytest.mark.parametrize("order", ["ours-first", "official-first"])
def test_both_import_orders_coexist(order: str) -> None:
    """Ours and the official types load in one process, each side builds and
    serializes messages, and same-named classes stay distinct."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHILD), order],
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = proc.stdout + proc.stderr
    assert "duplicate symbol" not in output.lower(), output
    assert proc.returncode == 0, output
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(report["pairs"]) == set(TYPES)
    for name, (ours_name, official_name, same, in_default) in report["pairs"].items():
        assert ours_name == official_name == name
        assert not same, f"{name}: ours is the official class"
        assert not in_default, f"{name}: ours lives in the default pool"
    for ours_name, official_name, same in report["pb_classes"]:
        assert ours_name == official_name and not same
    # The same content built on each side gives the same bytes.
    assert report["ours"] == report["official"]
    assert all(report["ours"])


# ---------------------------------------------------------------------------
# Wire exchange, both ways, for every message type
# ---------------------------------------------------------------------------


def exchange(
    src: type[Message], dst: type[Message], keep: KeepField | None = None
) -> Iterator[tuple[int, Message, Message]]:
    """Per variant: build on ``src``, send the bytes to ``dst``; yield both messages."""
    for variant in range(variants(descriptor_of(src))):
        message = Populator(variant, keep).fill(src())
        data = message.SerializeToString(deterministic=True)
        received = dst.FromString(data)
        assert received.SerializeToString(deterministic=True) == data, f"variant {variant}"
        back = src.FromString(received.SerializeToString(deterministic=True))
        assert back == message, f"variant {variant}"
        yield variant, message, received


@pytest.mark.parametrize("name", TYPES)
def test_wire_ours_to_official(name: str) -> None:
    mine, theirs = cls_of(ours(name)), cls_of(official(name))
    for variant, sent, received in exchange(mine, theirs):
        assert sent.ByteSize() > 0
        assert as_dict(received) == as_dict(sent), f"variant {variant}"


@pytest.mark.parametrize("name", TYPES)
def test_wire_official_to_ours(name: str) -> None:
    mine, theirs = cls_of(ours(name)), cls_of(official(name))
    for variant, sent, received in exchange(theirs, mine, keep=known_to_ours):
        assert sent.ByteSize() > 0
        assert as_dict(received) == as_dict(sent), f"variant {variant}"


def test_populator_sets_every_field() -> None:
    """The exchange tests are only as good as the populator: nothing stays unset."""
    for name in TYPES:
        descriptor = ours(name)
        seen: set[str] = set()
        for variant in range(variants(descriptor)):
            message = Populator(variant).fill(cls_of(descriptor)())
            seen.update(field.name for field, _ in message.ListFields())
        assert seen == {f.name for f in descriptor.fields}, name


# ---------------------------------------------------------------------------
# Descriptor comparison
# ---------------------------------------------------------------------------


def enum_values(enum: EnumDescriptor) -> dict[str, int]:
    return {value.name: value.number for value in enum.values}


def field_mismatches(mine: FieldDescriptor, theirs: FieldDescriptor) -> list[str]:
    """How our field differs from the official one with the same number."""
    problems = []

    def check(what: str, a: object, b: object) -> None:
        if a != b:
            problems.append(f"{mine.full_name}: {what} is {a!r}, official {b!r}")

    check("name", mine.name, upstream_name(theirs.name))
    check("json_name", mine.json_name, theirs.json_name)
    check("type", mine.type, theirs.type)
    check("repeated", is_repeated(mine), is_repeated(theirs))
    check("presence", mine.has_presence, theirs.has_presence)
    check("map", is_map(mine), is_map(theirs))
    # ``is_packed`` is missing on older runtimes; the wire tests catch packing there.
    check("packed", getattr(mine, "is_packed", None), getattr(theirs, "is_packed", None))
    for attr in ("message_type", "enum_type"):
        a, b = getattr(mine, attr), getattr(theirs, attr)
        check(attr, a and a.full_name, b and b.full_name)
    oneof_a, oneof_b = mine.containing_oneof, theirs.containing_oneof
    check("oneof", oneof_a and oneof_a.name, oneof_b and upstream_name(oneof_b.name))
    if mine.enum_type is not None and theirs.enum_type is not None:
        a_values, b_values = enum_values(mine.enum_type), enum_values(theirs.enum_type)
        check("enum values", a_values, {k: v for k, v in b_values.items() if k in a_values})
    if is_map(mine) and is_map(theirs):
        for part in ("key", "value"):
            problems += field_mismatches(
                message_type_of(mine).fields_by_name[part],
                message_type_of(theirs).fields_by_name[part],
            )
    return problems


@pytest.mark.parametrize("name", TYPES)
def test_fields_match_official(name: str) -> None:
    mine, theirs = ours(name), official(name)
    problems = []
    for field in mine.fields:
        other = theirs.fields_by_number.get(field.number)
        if other is None:
            problems.append(f"{field.full_name} (#{field.number}): not in the official schema")
        else:
            problems += field_mismatches(field, other)
    mine_oneofs = {o.name: {f.number for f in o.fields} for o in mine.oneofs}
    their_oneofs = {
        upstream_name(o.name): {f.number for f in o.fields if known_to_ours(f)}
        for o in theirs.oneofs
    }
    if mine_oneofs != {k: v for k, v in their_oneofs.items() if v}:
        problems.append(f"{name}: oneofs {mine_oneofs}, official {their_oneofs}")
    assert not problems, "\n".join(problems)


def our_enums() -> Iterator[EnumDescriptor]:
    """Every enum declared in our schemas' files, nested ones included."""
    for name in TYPES:
        yield from ours(name).enum_types
    for file in _pool.FILE_SET.file:
        if not file.name.startswith(("google/protobuf/", "google/api/")):
            yield from _pool.file_descriptor(file.name).enum_types_by_name.values()


def test_enums_match_official() -> None:
    enums = list(our_enums())
    assert "google.cloud.discoveryengine.v1.HarmCategory" in {e.full_name for e in enums}
    for enum in enums:
        theirs = enum_values(DEFAULT_POOL.FindEnumTypeByName(enum.full_name))
        mine = enum_values(enum)
        assert mine == {k: v for k, v in theirs.items() if k in mine}, enum.full_name


def official_only_fields() -> dict[str, list[FieldDescriptor]]:
    """Fields of the official schema that ours lacks (by number), by message type."""
    extra = {}
    for name in TYPES:
        fields = [f for f in official(name).fields if not known_to_ours(f)]
        if fields:
            extra[name] = fields
    return extra


def test_official_only_fields_are_additions() -> None:
    """Ours may lag behind (the official v1beta ``FactChunk`` has index, uri, title
    and domain), but an official-only field must not be one of ours renumbered."""
    extra = official_only_fields()
    print("official-only fields:", {k: [f.name for f in v] for k, v in extra.items()})
    for name, fields in extra.items():
        mine = {f.name for f in ours(name).fields}
        renumbered = [f.full_name for f in fields if upstream_name(f.name) in mine]
        assert not renumbered, f"fields with another number in ours: {renumbered}"


@pytest.mark.parametrize("name", TYPES)
def test_official_only_fields_survive_our_round_trip(name: str) -> None:
    """A fully populated official message (newer fields included) passes through
    ours unchanged: official -> ours -> official."""
    mine, theirs = cls_of(ours(name)), cls_of(official(name))
    extra_json = {f.json_name for f in official_only_fields().get(name, [])}
    for variant in range(variants(descriptor_of(theirs))):
        sent = Populator(variant).fill(theirs())
        data = sent.SerializeToString(deterministic=True)
        middle = grounding_protos.from_bytes(mine, data)
        assert extra_json.isdisjoint(as_dict(middle))
        again = middle.SerializeToString(deterministic=True)
        assert theirs.FromString(again) == sent, f"variant {variant}"
        assert as_dict(theirs.FromString(again)) == as_dict(sent)


# ---------------------------------------------------------------------------
# Unknown fields in raw bytes
# ---------------------------------------------------------------------------


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


UNKNOWN = b"".join([
    tag(999, 0) + varint(2**64 - 1),
    tag(1000, 2) + varint(6) + "日本".encode(),
    tag(1001, 5) + b"\x01\x02\x03\x04",
    tag(1002, 1) + b"\xff" * 8,
    tag(1003, 3) + tag(1, 0) + varint(7) + tag(1003, 4),  # a group
    tag(2**29 - 1, 0) + varint(1),  # the largest field number
])  # fmt: skip


@pytest.mark.parametrize("name", TYPES)
def test_unknown_fields_survive(name: str) -> None:
    mine, theirs = cls_of(ours(name)), cls_of(official(name))
    data = Populator().fill(mine()).SerializeToString(deterministic=True) + UNKNOWN
    parsed = grounding_protos.from_bytes(mine, data)
    assert parsed.SerializeToString(deterministic=True) == data
    copy = mine()
    copy.CopyFrom(parsed)
    assert copy.SerializeToString(deterministic=True) == data
    assert theirs.FromString(data).SerializeToString(deterministic=True) == data


def first_message_field(descriptor: Descriptor) -> FieldDescriptor | None:
    return next((f for f in descriptor.fields if f.message_type and not is_map(f)), None)


NESTING = [n for n in TYPES if first_message_field(ours(n)) is not None]


@pytest.mark.parametrize("name", NESTING)
def test_unknown_fields_survive_in_sub_messages(name: str) -> None:
    mine = cls_of(ours(name))
    field = first_message_field(ours(name))
    assert field is not None
    inner = Populator().fill(cls_of(message_type_of(field))()).SerializeToString(deterministic=True)
    inner += UNKNOWN
    data = tag(field.number, 2) + varint(len(inner)) + inner + UNKNOWN
    parsed = grounding_protos.from_bytes(mine, data)
    assert parsed.SerializeToString(deterministic=True) == data
    sub = getattr(parsed, field.name)
    sub = sub[0] if is_repeated(field) else sub
    assert sub.SerializeToString(deterministic=True) == inner
