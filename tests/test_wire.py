"""from_bytes: parses like protobuf, and explains malformed bytes precisely."""

from __future__ import annotations

import pytest
from google.protobuf.message import DecodeError, Message
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import ArgumentTypeError, GroundingProtosError, WireFormatError, from_bytes
from grounding_protos._proto.wire import diagnose
from grounding_protos.discoveryengine_v1 import Answer
from grounding_protos.generativelanguage_v1beta3 import CitationMetadata
from tests.descriptors import descriptor_of
from tests.strategies import any_message

pytestmark = pytest.mark.smoke


def test_parses_valid_bytes_from_class_or_name() -> None:
    data = Answer(
        answer_text="日本語", citations=[Answer.Citation(end_index=9)]
    ).SerializeToString()
    assert from_bytes(Answer, data) == Answer.FromString(data)
    assert (
        from_bytes("google.cloud.discoveryengine.v1.Answer", bytearray(data)).answer_text
        == "日本語"
    )
    assert from_bytes("Answer", memoryview(data)).citations[0].end_index == 9


@pytest.mark.parametrize(
    "data, offset, path, reason",
    [
        (b"\x1a\x09hi", 2, "Answer.answer_text", "needs 9 bytes, only 2 remain"),
        (b"\x1a\x02\xff\xfe", 2, "Answer.answer_text", "invalid UTF-8"),
        (b"\x1a\x02a\xc3", 3, "Answer.answer_text", "invalid UTF-8"),
        (b"\x0f", 0, "Answer", "invalid wire type 7 for field 1"),
        (b"\x00", 0, "Answer", "field number 0"),
        (b"\xb1\x80\x80\x80\x80\x00" + bytes(8), 0, "Answer", "tag takes 6 bytes, more than 5"),
        (b"\x10\x80", 1, "Answer.state", "truncated varint"),
        (b"\x10" + b"\xff" * 10 + b"\x01", 1, "Answer.state", "longer than 10 bytes"),
        (b"\x22\x02\x0c\x00", 2, "Answer.citations[0].start_index", "end-group tag without"),
        (b"\x22\x00\x22\x03\x1a\x01", 4, "Answer.citations[1]", "needs 3 bytes, only 2"),
        (b"\x22\x04\x1a\x02\x0a\x01", 6, "Answer.citations[0].sources[0].reference_id",
         "needs 1 bytes, only 0"),
        (b"\xbb\x3e\x08\x01", 4, "Answer.<field 999>", "group 999 has no end-group tag"),
        (b"\xbb\x3e\xc4\x3e", 2, "Answer.<field 999>", "end-group 1000 closes group 999"),
        (b"\x71\x01\x02", 1, "Answer.safety_ratings[0]", "fixed64 value needs 8 bytes"),
        (b"\xf9\x3e\x01", 2, "Answer.<field 1007>", "fixed64 value needs 8 bytes"),
    ],
)  # fmt: skip
def test_malformed_bytes_are_located(data: bytes, offset: int, path: str, reason: str) -> None:
    with pytest.raises(DecodeError):  # protobuf agrees they are malformed
        Answer.FromString(data)
    with pytest.raises(WireFormatError) as info:
        from_bytes(Answer, data)
    error = info.value
    assert (error.offset, error.path, error.type_name) == (
        offset, path, "google.cloud.discoveryengine.v1.Answer",
    )  # fmt: skip
    assert reason in str(error)
    assert str(error).startswith(f"cannot parse {len(data)} bytes as google.cloud")
    assert isinstance(error, DecodeError) and isinstance(error, GroundingProtosError)


def test_packed_fields_are_checked() -> None:
    from grounding_protos.dialogflow_v2beta1 import GroundingSupport

    good = GroundingSupport(grounding_chunk_indices=[1, 300]).SerializeToString()
    assert good[0] == 0x12  # packed, length-delimited
    bad = b"\x12\x02\x01\x80"  # second varint truncated inside the packed run
    with pytest.raises(WireFormatError, match=r"grounding_chunk_indices\[0\] at byte 3"):
        from_bytes(GroundingSupport, bad)


def test_too_deep_nesting() -> None:
    from grounding_protos.well_known import Struct

    data = b""
    for _ in range(60):  # Struct.fields[""] -> entry.value -> Value.struct_value -> Struct
        value = b"\x2a" + _len(data) + data
        entry = b"\x12" + _len(value) + value
        data = b"\x0a" + _len(entry) + entry
    with pytest.raises(DecodeError):
        Struct.FromString(data)
    with pytest.raises(WireFormatError, match="nested deeper than 100"):
        from_bytes(Struct, data)


def _len(data: bytes) -> bytes:
    n, out = len(data), bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def test_wrong_argument_types() -> None:
    with pytest.raises(ArgumentTypeError, match="must be bytes, not str"):
        from_bytes(Answer, "text")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="message class or a type name"):
        from_bytes(3, b"")  # type: ignore[arg-type]


@st.composite
def _mutated(draw: st.DrawFn) -> tuple[Message, bytes]:
    message = draw(any_message())
    data = bytearray(message.SerializeToString())
    for _ in range(draw(st.integers(1, 3))):
        edit = draw(st.sampled_from(["flip", "cut", "insert"]))
        where = draw(st.integers(0, len(data)))
        if edit == "flip" and where < len(data):
            data[where] = draw(st.integers(0, 255))
        elif edit == "cut":
            del data[where:]
        else:
            data[where:where] = draw(st.binary(min_size=1, max_size=3))
    return message, bytes(data)


@settings(max_examples=400, deadline=None)
@given(_mutated())
def test_diagnosis_agrees_with_protobuf(case: tuple[Message, bytes]) -> None:
    """protobuf's parser is the oracle: a problem is reported iff it rejects the bytes."""
    message, data = case
    cls = type(message)
    try:
        expected = cls.FromString(data)
    except DecodeError:
        expected = None
    problem = diagnose(descriptor_of(cls), data)
    if expected is None:
        assert problem is not None
        with pytest.raises(WireFormatError):
            from_bytes(cls, data)
    else:
        assert problem is None
        # Bytes, not ==: protobuf 5.26's == finds a NaN float field unequal to itself.
        got = from_bytes(cls, data)
        assert type(got) is cls
        assert got.SerializeToString(deterministic=True) == expected.SerializeToString(
            deterministic=True
        )


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_random_bytes_parse_or_raise_wire_format_error(data: bytes) -> None:
    try:
        expected = CitationMetadata.FromString(data)
    except DecodeError:
        with pytest.raises(WireFormatError):
            from_bytes(CitationMetadata, data)
        assert diagnose(CitationMetadata.DESCRIPTOR, data) is not None
    else:
        assert from_bytes(CitationMetadata, data) == expected
