"""Timestamp and Struct fields: pool-own classes, datetime/dict, helpers."""

from __future__ import annotations

import datetime

import pytest
from google.protobuf import __version__ as protobuf_version
from google.protobuf import struct_pb2 as default_struct_pb2
from google.protobuf import timestamp_pb2 as default_timestamp_pb2

from grounding_protos import ArgumentTypeError
from grounding_protos.discoveryengine_v1 import Answer
from grounding_protos.well_known import ListValue, Struct, Timestamp, struct, timestamp

pytestmark = pytest.mark.smoke

NATIVE = tuple(int(p) for p in protobuf_version.split(".")[:2]) >= (5, 28)
WHEN = datetime.datetime(2025, 3, 4, 5, 6, 7, 890000, tzinfo=datetime.UTC)
Info = Answer.Reference.StructuredDocumentInfo


def test_fields_hold_the_pool_own_classes() -> None:
    answer = Answer()
    assert type(answer.create_time) is Timestamp
    assert type(Info().struct_data) is Struct
    # mypy knows these are two classes; the point is that the runtime agrees.
    assert Timestamp is not default_timestamp_pb2.Timestamp  # type: ignore[comparison-overlap]
    assert Timestamp.DESCRIPTOR.full_name == "google.protobuf.Timestamp"


def test_helpers_work_on_every_runtime() -> None:
    answer = Answer(create_time=timestamp(WHEN))
    assert answer.create_time.ToDatetime(tzinfo=datetime.UTC) == WHEN
    assert answer.create_time.ToJsonString() == "2025-03-04T05:06:07.890Z"
    info = Info(struct_data=struct({"n": 1.5, "tags": ["x", None], "o": {"k": True}}))
    inner, tags = info.struct_data["o"], info.struct_data["tags"]
    assert isinstance(inner, Struct) and inner["k"] is True
    assert isinstance(tags, ListValue) and list(tags) == ["x", None]


def test_naive_datetime_is_utc() -> None:
    assert timestamp(datetime.datetime(2024, 1, 1)).ToJsonString() == "2024-01-01T00:00:00Z"


@pytest.mark.skipif(not NATIVE, reason=f"protobuf {protobuf_version} < 5.28 has no conversion")
def test_datetime_and_dict_are_accepted_natively() -> None:
    answer = Answer(create_time=WHEN)
    assert answer.create_time == timestamp(WHEN)
    answer.complete_time = WHEN  # type: ignore[misc, assignment]  # not in the stubs
    assert answer.complete_time == timestamp(WHEN)
    info = Info(struct_data={"a": [1, "b"]})
    assert info.struct_data == struct({"a": [1, "b"]})
    document = {"structured_document_info": {"struct_data": {"k": "v"}}}
    nested = Answer(references=[document])  # type: ignore[list-item]  # not in the stubs
    assert nested.references[0].structured_document_info.struct_data["k"] == "v"


@pytest.mark.skipif(NATIVE, reason=f"protobuf {protobuf_version} converts natively")
def test_old_runtimes_reject_plain_values_loudly() -> None:
    with pytest.raises(TypeError):
        Answer(create_time=WHEN)


def test_default_pool_timestamp_is_refused() -> None:
    # protobuf's own error: TypeError, or AttributeError from its datetime path on 6.x.
    with pytest.raises((TypeError, AttributeError)):
        Answer(create_time=default_timestamp_pb2.Timestamp(seconds=1))  # type: ignore[arg-type]


def test_default_pool_struct_converts_with_the_helper() -> None:
    theirs = default_struct_pb2.Struct()
    theirs.update({"a": 1, "b": [True, {"c": None}], "d": {"e": "f"}})
    # struct() takes it (a Mapping at run time), though the stubs do not say so.
    assert Info(struct_data=struct(theirs)).struct_data == struct(  # type: ignore[arg-type]
        {"a": 1, "b": [True, {"c": None}], "d": {"e": "f"}}
    )
    # The runtime itself converts it as a mapping on 6.x and later, refuses it before.
    try:
        converted = Info(struct_data=theirs).struct_data  # type: ignore[arg-type]
    except TypeError:
        return
    assert converted == struct(theirs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value, where",
    [({"a": {1, 2}}, "$.a"), ({"a": [1, object()]}, "$.a[1]"), ({1: "x"}, "$"),
     ({"a": {"b": b"raw"}}, "$.a.b")],
)  # fmt: skip
def test_struct_rejects_non_json_values_with_a_path(value: object, where: str) -> None:
    with pytest.raises(ArgumentTypeError, match=r"at " + __import__("re").escape(where)):
        struct(value)  # type: ignore[arg-type]


def test_timestamp_rejects_non_datetimes() -> None:
    with pytest.raises(ArgumentTypeError, match="takes a datetime, not str"):
        timestamp("2024-01-01")  # type: ignore[arg-type]
