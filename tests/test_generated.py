"""The generated layer: every message type imports, constructs and round-trips."""

from __future__ import annotations

import copy
import importlib
import pickle
import re
from pathlib import Path

import pytest
from google.protobuf import json_format, text_format
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

import grounding_protos
from grounding_protos import message_class, message_types
from grounding_protos._proto import pool as _pool
from tests.descriptors import descriptor_of
from tests.strategies import any_message, messages

pytestmark = pytest.mark.smoke

ALL_TYPES = message_types()
PROTOS = Path(__file__).resolve().parents[1] / "protos"
FACADES = {
    "grounding_protos.dialogflow_v2beta1": ["google/cloud/dialogflow/v2beta1/grounding.proto"],
    "grounding_protos.discoveryengine_v1": [
        "google/cloud/discoveryengine/v1/answer.proto",
        "google/cloud/discoveryengine/v1/safety.proto",
    ],
    "grounding_protos.discoveryengine_v1beta": [
        "google/cloud/discoveryengine/v1beta/grounding.proto"
    ],
    "grounding_protos.generativelanguage_v1beta3": [
        "google/ai/generativelanguage/v1beta3/citation.proto"
    ],
}


def _wire(message: Message) -> bytes:
    return message.SerializeToString(deterministic=True)


def test_every_schema_type_is_listed() -> None:
    # Independent oracle: the `message X {` declarations in the vendored .proto text.
    declared = sorted(
        match
        for path in PROTOS.rglob("*.proto")
        for match in re.findall(r"^\s*message (\w+) \{", path.read_text(), flags=re.M)
    )
    assert sorted(name.rpartition(".")[2] for name in ALL_TYPES) == declared
    assert len(set(ALL_TYPES)) == len(ALL_TYPES) == 31
    assert "google.cloud.discoveryengine.v1.Answer.Step.Action.Observation.SearchResult" \
        ".SnippetInfo" in ALL_TYPES  # fmt: skip
    assert not any(name.startswith(("google.protobuf.", "google.api.")) for name in ALL_TYPES)


@pytest.mark.parametrize("name", ALL_TYPES)
def test_type_imports_and_constructs(name: str) -> None:
    cls = message_class(name)
    assert cls.DESCRIPTOR.full_name == name
    message = cls()
    assert _wire(message) == b""
    # The class is reachable at the name it reports (needed by pickle, docs, tools).
    module = importlib.import_module(cls.__module__)
    obj: object = module
    for part in cls.__qualname__.split("."):
        obj = getattr(obj, part)
    assert obj is cls
    assert (
        cls.__module__
        == "grounding_protos."
        + cls.DESCRIPTOR.file.name.removesuffix(".proto").replace("/", ".")
        + "_pb2"
    )


@pytest.mark.parametrize("facade, files", FACADES.items())
def test_facades_export_their_files_top_level_types(facade: str, files: list[str]) -> None:
    module = importlib.import_module(facade)
    expected = set()
    for file in files:
        descriptor = _pool.file_descriptor(file)
        expected |= set(descriptor.message_types_by_name) | set(descriptor.enum_types_by_name)
    assert set(module.__all__) == expected
    for name in module.__all__:
        assert getattr(module, name).DESCRIPTOR.name == name


def test_full_names_are_upstream() -> None:
    from grounding_protos.discoveryengine_v1 import Answer, HarmCategory

    assert Answer.DESCRIPTOR.full_name == "google.cloud.discoveryengine.v1.Answer"
    assert HarmCategory.DESCRIPTOR.full_name == "google.cloud.discoveryengine.v1.HarmCategory"
    assert Answer.DESCRIPTOR.file.pool is _pool.POOL


@settings(max_examples=150, deadline=None)
@given(any_message())
def test_wire_round_trip_is_byte_identical(message: Message) -> None:
    data = _wire(message)
    again = type(message).FromString(data)
    assert _wire(again) == data
    assert grounding_protos.from_bytes(type(message), data) == again


@settings(max_examples=150, deadline=None)
@given(any_message())
def test_json_format_round_trip(message: Message) -> None:
    for names in (False, True):
        text = json_format.MessageToJson(message, preserving_proto_field_name=names)
        parsed = json_format.Parse(text, type(message)())
        assert _wire(parsed) == _wire(message)
    as_dict = json_format.MessageToDict(message)
    assert _wire(json_format.ParseDict(as_dict, type(message)())) == _wire(message)


@settings(max_examples=150, deadline=None)
@given(any_message())
def test_text_format_round_trip(message: Message) -> None:
    text = text_format.MessageToString(message)
    assert _wire(text_format.Parse(text, type(message)())) == _wire(message)


@settings(max_examples=60, deadline=None)
@given(any_message())
def test_pickle_and_copy(message: Message) -> None:
    for clone in (pickle.loads(pickle.dumps(message)), copy.deepcopy(message)):
        assert type(clone) is type(message)
        assert _wire(clone) == _wire(message)


@settings(max_examples=40, deadline=None)
@given(messages(descriptor_of(message_class("Answer"))), st.data())
def test_nested_messages_pickle_through_their_own_pool(
    message: Message, data: st.DataObject
) -> None:
    from grounding_protos.discoveryengine_v1 import Answer

    assert isinstance(message, Answer)
    citation = Answer.Citation(start_index=data.draw(st.integers(0, 99)))
    clone = pickle.loads(pickle.dumps(citation))
    assert type(clone) is Answer.Citation and clone == citation


UNKNOWN_FIELDS = [
    b"\xb8\x3e\x2a",  # field 999, varint 42
    b"\xba\x3e\x03abc",  # field 999, length-delimited
    b"\xbd\x3e\x01\x02\x03\x04",  # field 999, fixed32
    b"\xb9\x3e" + bytes(range(8)),  # field 999, fixed64
    b"\xbb\x3e\x08\x01\xbc\x3e",  # field 999, a group holding field 1
]


@pytest.mark.parametrize("name", ALL_TYPES)
@pytest.mark.parametrize("unknown", UNKNOWN_FIELDS)
def test_unknown_fields_survive(name: str, unknown: bytes) -> None:
    cls = message_class(name)
    message = cls.FromString(unknown)
    assert message.SerializeToString() == unknown
    assert pickle.loads(pickle.dumps(message)).SerializeToString() == unknown


def test_unknown_fields_inside_a_nested_message_survive() -> None:
    from grounding_protos.discoveryengine_v1 import Answer

    inner = Answer.Citation(start_index=3).SerializeToString() + b"\xb8\x3e\x07"
    data = b"\x1a\x02ok" + b"\x22" + bytes([len(inner)]) + inner
    answer = Answer.FromString(data)
    assert answer.citations[0].start_index == 3
    assert answer.SerializeToString() == data


def test_enums() -> None:
    from grounding_protos.discoveryengine_v1 import Answer, HarmCategory, SafetyRating
    from grounding_protos.google.cloud.discoveryengine.v1 import safety_pb2

    assert HarmCategory.Name(HarmCategory.ValueType(5)) == "HARM_CATEGORY_CIVIC_INTEGRITY"
    assert HarmCategory.Value("HARM_CATEGORY_HARASSMENT") == 3
    assert safety_pb2.HARM_CATEGORY_SEXUALLY_EXPLICIT == 4
    assert SafetyRating.HarmProbability.Name(SafetyRating.HarmProbability.ValueType(4)) == "HIGH"
    assert SafetyRating.HARM_SEVERITY_LOW == 2
    assert Answer.State.Value("STREAMING") == 4
    assert Answer.UNHELPFUL_ANSWER == 11
    unknown = SafetyRating.HarmProbability.ValueType(7)
    rating = SafetyRating(category=HarmCategory.HARM_CATEGORY_HATE_SPEECH, probability=unknown)
    assert SafetyRating.FromString(rating.SerializeToString()).probability == 7  # open enum


def test_safety_wire_facts() -> None:
    """safety.proto was written here: check it against the facts in DESIGN.md."""
    from google.api import field_behavior_pb2  # type: ignore[import-untyped]

    from grounding_protos.discoveryengine_v1 import HarmCategory, SafetyRating

    assert dict(HarmCategory.items()) == {
        "HARM_CATEGORY_UNSPECIFIED": 0, "HARM_CATEGORY_HATE_SPEECH": 1,
        "HARM_CATEGORY_DANGEROUS_CONTENT": 2, "HARM_CATEGORY_HARASSMENT": 3,
        "HARM_CATEGORY_SEXUALLY_EXPLICIT": 4, "HARM_CATEGORY_CIVIC_INTEGRITY": 5,
    }  # fmt: skip
    fields = {f.name: (f.number, f.type) for f in SafetyRating.DESCRIPTOR.fields}
    F = SafetyRating.DESCRIPTOR.fields[0].__class__
    assert fields == {
        "category": (1, F.TYPE_ENUM), "probability": (2, F.TYPE_ENUM),
        "probability_score": (5, F.TYPE_FLOAT), "severity": (6, F.TYPE_ENUM),
        "severity_score": (7, F.TYPE_FLOAT), "blocked": (3, F.TYPE_BOOL),
    }  # fmt: skip
    assert dict(SafetyRating.HarmProbability.items()) == {
        "HARM_PROBABILITY_UNSPECIFIED": 0, "NEGLIGIBLE": 1, "LOW": 2, "MEDIUM": 3, "HIGH": 4,
    }  # fmt: skip
    assert dict(SafetyRating.HarmSeverity.items()) == {
        "HARM_SEVERITY_UNSPECIFIED": 0, "HARM_SEVERITY_NEGLIGIBLE": 1, "HARM_SEVERITY_LOW": 2,
        "HARM_SEVERITY_MEDIUM": 3, "HARM_SEVERITY_HIGH": 4,
    }  # fmt: skip
    for field in SafetyRating.DESCRIPTOR.fields:
        behavior = field.GetOptions().Extensions[field_behavior_pb2.field_behavior]
        assert list(behavior) == [field_behavior_pb2.OUTPUT_ONLY], field.name


def test_vendored_protos_compile_with_protoc_to_the_shipped_descriptors(tmp_path: Path) -> None:
    """protoc is the oracle: compiling protos/ now gives the descriptors the pool holds."""
    pytest.importorskip("grpc_tools", reason="grpcio-tools not installed")
    import subprocess
    import sys

    from google.protobuf import descriptor_pb2

    import build_protos  # the repository root is on sys.path (tests is a package)

    own = build_protos.vendored_files()
    out = tmp_path / "set.binpb"
    includes = [build_protos.PROTO_DIR, build_protos.googleapis_include(),
                build_protos.well_known_include()]  # fmt: skip
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", *(f"-I{i}" for i in includes),
         f"--descriptor_set_out={out}", *own],
        check=True, capture_output=True,
    )  # fmt: skip
    compiled = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    shipped = {f.name: f for f in _pool.FILE_SET.file}
    assert sorted(f.name for f in compiled.file) == own
    reparse = descriptor_pb2.FileDescriptorProto.FromString  # same extension registry
    for file in compiled.file:
        assert reparse(file.SerializeToString()) == reparse(
            shipped[file.name].SerializeToString()
        ), file.name
