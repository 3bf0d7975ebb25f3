"""grounding_protos.codec against json_format, the oracle, on the installed runtime.

Differential tests: Hypothesis messages of every type under every option
combination must give json_format's dict (same keys, same order, same value types),
json_format's text, and equal messages back; mutated and random JSON must be
accepted or rejected exactly as json_format does.
"""

from __future__ import annotations

import copy
import inspect
import itertools
import json
import math
import os
import threading
from typing import Any, TypedDict, cast

import pytest
from google.protobuf import json_format, struct_pb2, timestamp_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.internal import type_checkers
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_protos import (
    ArgumentValueError,
    GroundingProtosError,
    JSONParseError,
    codec,
    message_class,
)
from grounding_protos._codec import codec as _codec
from grounding_protos._codec import plan as _codec_plan
from grounding_protos._codec import runtime as _codec_support
from grounding_protos._proto.pool import is_repeated
from grounding_protos.dialogflow_v2beta1 import GroundingMetadata, GroundingSupport, Segment
from grounding_protos.discoveryengine_v1 import Answer, HarmCategory, SafetyRating
from grounding_protos.discoveryengine_v1beta import FactChunk, GroundingFact
from grounding_protos.generativelanguage_v1beta3 import CitationSource
from grounding_protos.well_known import ListValue, Struct, Timestamp, Value
from tests.descriptors import descriptor_of, message_type_of
from tests.strategies import any_message, messages

# CODEC_FUZZ=20 runs the random-input tests 20 times longer (the default keeps the file ~15 s).
FUZZ = int(os.environ.get("CODEC_FUZZ", "1"))
PRINT_PARAMS = set(inspect.signature(json_format.MessageToDict).parameters)
HAS_UNQUOTE = "unquote_int64_if_possible" in PRINT_PARAMS
HAS_FLOAT_PRECISION = "float_precision" in PRINT_PARAMS


class EmitOptions(TypedDict, total=False):
    """The json_format printing options the codec mirrors (as keyword arguments)."""

    preserving_proto_field_name: bool
    use_integers_for_enums: bool
    always_print_fields_with_no_presence: bool
    unquote_int64_if_possible: bool


class ParseOptions(TypedDict, total=False):
    ignore_unknown_fields: bool


def _emit_option_sets() -> list[EmitOptions]:
    names = [
        "preserving_proto_field_name",
        "use_integers_for_enums",
        "always_print_fields_with_no_presence",
    ]
    if HAS_UNQUOTE:
        names.append("unquote_int64_if_possible")
    combinations = itertools.product([False, True], repeat=len(names))
    return [cast(EmitOptions, dict(zip(names, flags, strict=True))) for flags in combinations]


EMIT_OPTIONS = _emit_option_sets()
PARSE_OPTIONS = [ParseOptions(ignore_unknown_fields=flag) for flag in (False, True)]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def same_json(ours: Any, theirs: Any) -> bool:
    """Equal values, key order and number types; NaN equals NaN (json.dumps spells it)."""
    return json.dumps(ours) == json.dumps(theirs)


def wire(message: Message) -> bytes:
    return message.SerializePartialToString(deterministic=True)


def outcome(parse: Any) -> tuple[str, Any]:
    """("ok", wire bytes) or ("error", the exception); errors compare by kind only."""
    try:
        return "ok", wire(parse())
    except Exception as error:  # json_format lets a few TypeErrors out (ParseDict(None, …))
        return "error", _Rejected(error)


class _Rejected:
    def __init__(self, error: Exception) -> None:
        self.error = error

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Rejected)

    def __repr__(self) -> str:
        return f"rejected: {self.error}"

    __hash__ = None  # type: ignore[assignment]


# --- to_dict / to_json ---------------------------------------------------------------


@SETTINGS
@given(message=any_message(), options=st.sampled_from(EMIT_OPTIONS))
def test_to_dict_is_message_to_dict(message: Message, options: EmitOptions) -> None:
    assert same_json(
        codec.to_dict(message, **options), json_format.MessageToDict(message, **options)
    )


@SETTINGS
@given(
    message=any_message(),
    options=st.sampled_from(EMIT_OPTIONS),
    indent=st.sampled_from([None, 0, 2, "\t"]),
    sort_keys=st.booleans(),
    ensure_ascii=st.booleans(),
)
def test_to_json_is_message_to_json(
    message: Message, options: EmitOptions, indent: Any, sort_keys: bool, ensure_ascii: bool
) -> None:
    text = {"indent": indent, "sort_keys": sort_keys, "ensure_ascii": ensure_ascii}
    ours = codec.to_json(message, **text, **options)
    assert ours == json_format.MessageToJson(message, **text, **options)


def test_to_json_defaults_are_message_to_json() -> None:
    answer = Answer(answer_text="東京 👍🏽", grounding_score=0.25, state=Answer.SUCCEEDED)
    assert codec.to_json(answer) == json_format.MessageToJson(answer)


@pytest.mark.parametrize("name", ["Answer", "GroundingMetadata", "FactChunk", "CitationMetadata"])
@pytest.mark.parametrize("options", EMIT_OPTIONS, ids=lambda o: "-".join(k for k in o if o[k]))
def test_to_dict_empty_message_every_option(name: str, options: EmitOptions) -> None:
    message = message_class(name)()
    assert same_json(
        codec.to_dict(message, **options), json_format.MessageToDict(message, **options)
    )


def test_to_dict_field_kinds() -> None:
    answer = Answer(
        state=Answer.SUCCEEDED,
        grounding_score=float("nan"),
        answer_skipped_reasons=[
            Answer.ADVERSARIAL_QUERY_IGNORED,
            Answer.AnswerSkippedReason.ValueType(99),
        ],
        citations=[Answer.Citation(start_index=2**62, end_index=-(2**63))],
    )
    answer.create_time.FromJsonString("2024-02-29T12:00:00.5Z")
    answer.references.add().chunk_info.relevance_score = 0.1  # float32 rounding
    answer.references[0].chunk_info.document_metadata.struct_data.update(
        {"n": None, "x": [1, "a", {"b": True}]}
    )
    unknown = HarmCategory.ValueType(77)
    rating = SafetyRating(probability_score=float("-inf"), severity_score=-0.0, category=unknown)
    for message in (answer, rating, FactChunk(source_metadata={"k": "v", "": "é"})):
        for options in EMIT_OPTIONS:
            assert same_json(
                codec.to_dict(message, **options), json_format.MessageToDict(message, **options)
            )
    data = codec.to_dict(answer)
    assert data["groundingScore"] == "NaN"
    assert data["answerSkippedReasons"] == ["ADVERSARIAL_QUERY_IGNORED", 99]
    assert data["citations"][0]["startIndex"] == str(2**62)
    assert data["references"][0]["chunkInfo"]["relevanceScore"] == 0.1
    assert codec.to_dict(rating) == {
        "category": 77,
        "probabilityScore": "-Infinity",
        "severityScore": -0.0,
    }


def test_to_dict_error_is_json_formats() -> None:
    info = Answer.Reference.StructuredDocumentInfo()
    info.struct_data.update({"x": float("nan")})
    with pytest.raises(json_format.SerializeToJsonError) as theirs:
        json_format.MessageToDict(info)
    with pytest.raises(json_format.SerializeToJsonError) as ours:
        codec.to_dict(info)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.skipif(not HAS_FLOAT_PRECISION, reason="json_format has no float_precision")
@pytest.mark.filterwarnings("ignore:float_precision option is deprecated")
def test_float_precision_is_json_formats() -> None:
    rating = SafetyRating(probability_score=0.123456789, severity_score=2.5)
    for digits in (1, 3, 8):
        # Older json_format only (and its stubs): passed untyped to keep one test file.
        precision: dict[str, Any] = {"float_precision": digits}
        expected = json_format.MessageToDict(rating, **precision)
        assert codec.to_dict(rating, float_precision=digits) == expected
        text = json_format.MessageToJson(rating, **precision)
        assert codec.to_json(rating, float_precision=digits) == text


@pytest.mark.skipif(HAS_FLOAT_PRECISION, reason="json_format has float_precision")
def test_float_precision_refused_where_json_format_lacks_it() -> None:
    with pytest.raises(TypeError, match="float_precision"):
        codec.to_dict(SafetyRating(), float_precision=3)


@pytest.mark.skipif(HAS_UNQUOTE, reason="json_format has unquote_int64_if_possible")
def test_unquote_refused_where_json_format_lacks_it() -> None:
    with pytest.raises(TypeError, match="unquote_int64_if_possible"):
        codec.to_dict(Answer(), unquote_int64_if_possible=True)


@settings(max_examples=300, deadline=None)
@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_float32_shortest_is_protobufs(value: float) -> None:
    assert _codec_support.float32(value) == type_checkers.ToShortestFloat(value)


# --- from_dict / from_json: valid input ------------------------------------------------


@SETTINGS
@given(
    message=any_message(),
    emit=st.sampled_from(EMIT_OPTIONS),
    parse=st.sampled_from(PARSE_OPTIONS),
)
def test_from_dict_is_parse_dict(message: Message, emit: EmitOptions, parse: ParseOptions) -> None:
    data = json_format.MessageToDict(message, **emit)
    # Not always ok: json_format prints the largest floats (32-bit) rounded up, then
    # refuses them ("Float value too large").
    theirs = outcome(lambda: json_format.ParseDict(copy.deepcopy(data), type(message)(), **parse))
    rescued = _codec.rescued
    assert outcome(lambda: codec.from_dict(type(message), data, **parse)) == theirs
    if theirs[0] == "ok":
        assert _codec.rescued == rescued  # the plan itself parsed it, no json_format rerun
    assert type(codec.from_dict(type(message), {})) is type(message)
    assert same_json(data, json_format.MessageToDict(message, **emit))  # input left alone


@SETTINGS
@given(message=any_message(), indent=st.sampled_from([None, 2]))
def test_from_json_is_parse(message: Message, indent: Any) -> None:
    text = json_format.MessageToJson(message, indent=indent)
    theirs = outcome(lambda: json_format.Parse(text, type(message)()))
    assert outcome(lambda: codec.from_json(type(message), text)) == theirs
    assert outcome(lambda: codec.from_json(type(message), text.encode())) == theirs


@SETTINGS
@given(
    target=messages(descriptor_of(Answer)),
    source=messages(descriptor_of(Answer)),
    parse=st.sampled_from(PARSE_OPTIONS),
)
def test_from_dict_merges_into_a_message(
    target: Message, source: Message, parse: ParseOptions
) -> None:
    data = json_format.MessageToDict(source, preserving_proto_field_name=True)
    expected = copy.deepcopy(target)
    theirs = outcome(lambda: json_format.ParseDict(data, expected, **parse))
    ours = outcome(lambda: codec.from_dict(target, data, **parse))
    assert ours[0] == theirs[0]
    assert wire(target) == wire(expected)
    if ours[0] == "ok":
        assert codec.from_dict(target, {}) is target


def test_from_dict_takes_a_type_name() -> None:
    segment = codec.from_dict("v2beta1.Segment", {"startIndex": 3, "text": "é"})
    assert segment == Segment(start_index=3, text="é")


def test_both_names_accepted_last_wins() -> None:
    data = {"startIndex": "1", "start_index": 2}
    assert codec.from_dict(Answer.Citation, data) == json_format.ParseDict(data, Answer.Citation())
    assert codec.from_dict(Answer.Citation, data).start_index == 2


# --- Rejected input: json_format's verdict, our path -------------------------------------

ANSWER_ERRORS: list[tuple[Any, str]] = [
    ({"citations": [{}, {}, {}, {"startIndex": 1.5}]}, "citations[3].startIndex"),
    ({"citations": [{"startIndex": "abc"}]}, "citations[0].startIndex"),
    ({"citations": [{"startIndex": True}]}, "citations[0].startIndex"),
    ({"citations": [{"startIndex": str(2**64)}]}, "citations[0].startIndex"),
    ({"citations": [{"startIndex": "1 "}]}, "citations[0].startIndex"),
    ({"citations": [{"sources": [{"referenceId": 5}]}]}, "citations[0].sources[0].referenceId"),
    ({"citations": [{"sources": [None]}]}, "citations[0].sources[0]"),
    (
        {"citations": [{"sources": [{}, {"referenceId": "\udc00"}]}]},
        "citations[0].sources[1].referenceId",
    ),
    ({"citations": {"startIndex": 1}}, "citations"),
    ({"citations": [5]}, "citations[0]"),
    ({"state": "NOT_A_STATE"}, "state"),
    ({"state": 2**31}, "state"),
    ({"state": []}, "state"),
    ({"name": 5}, "name"),
    ({"name": "\ud800"}, "name"),
    ({"groundingScore": "fast"}, "groundingScore"),
    ({"groundingScore": float("nan")}, "groundingScore"),
    ({"groundingScore": float("inf")}, "groundingScore"),
    ({"groundingScore": "nan"}, "groundingScore"),
    ({"groundingScore": 1, "grounding_score": 2}, "grounding_score"),
    (
        {"references": [{"chunkInfo": {}, "structuredDocumentInfo": {}}]},
        "references[0].structuredDocumentInfo",
    ),
    (
        {"references": [{"chunkInfo": {"relevanceScore": 1e39}}]},
        "references[0].chunkInfo.relevanceScore",
    ),
    (
        {"references": [{"chunkInfo": {"documentMetadata": {"structData": []}}}]},
        "references[0].chunkInfo.documentMetadata.structData",
    ),
    ({"createTime": "yesterday"}, "createTime"),
    ({"createTime": "2024-13-01T00:00:00Z"}, "createTime"),
    ({"relatedQuestions": "why?"}, "relatedQuestions"),
    ({"relatedQuestions": ["a", None]}, "relatedQuestions[1]"),
    ({"answerSkippedReasons": ["NOPE"]}, "answerSkippedReasons[0]"),
    ({"noSuchField": 1}, "noSuchField"),
    (
        {"citations": [{"sources": [{"referenceId": "1", "extra": 0}]}]},
        "citations[0].sources[0].extra",
    ),
    ({"[some.extension]": 1}, "[some.extension]"),
    (
        {"steps": [{"actions": [{"searchAction": {"query": "q"}, "observation": 7}]}]},
        "steps[0].actions[0].observation",
    ),
    ({"queryUnderstandingInfo": "x"}, "queryUnderstandingInfo"),
]


@pytest.mark.parametrize(("data", "path"), ANSWER_ERRORS)
def test_rejected_as_json_format_rejects(data: Any, path: str) -> None:
    with pytest.raises(json_format.ParseError):
        json_format.ParseDict(copy.deepcopy(data), Answer())
    with pytest.raises(JSONParseError) as ours:
        codec.from_dict(Answer, data)
    error = ours.value
    assert isinstance(error, json_format.ParseError)
    assert isinstance(error, GroundingProtosError)
    assert error.path == path
    assert f" at {path}: " in str(error)
    assert "google.cloud.discoveryengine.v1.Answer" in str(error)
    assert isinstance(error.__cause__, json_format.ParseError)  # json_format's own verdict


def test_error_message_names_path_and_problem() -> None:
    data = {"citations": [{}, {}, {}, {"startIndex": 1.5}]}
    with pytest.raises(JSONParseError) as caught:
        codec.from_dict(Answer, data)
    assert str(caught.value) == (
        "invalid JSON for google.cloud.discoveryengine.v1.Answer at citations[3].startIndex: "
        "Couldn't parse integer: 1.5"
    )


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"sourceMetadata": {"k": 5}}, "sourceMetadata[k]"),
        ({"sourceMetadata": {"k": None}}, "sourceMetadata[k]"),
        ({"sourceMetadata": ["k"]}, "sourceMetadata"),
        ({"chunkText": ["a"]}, "chunkText"),
    ],
)
def test_map_errors(data: Any, path: str) -> None:
    with pytest.raises(json_format.ParseError):
        json_format.ParseDict(copy.deepcopy(data), FactChunk())
    with pytest.raises(JSONParseError) as caught:
        codec.from_dict(FactChunk, data)
    assert caught.value.path == path


def test_unknown_fields_ignored_when_asked() -> None:
    data = {"text": "t", "nope": {"deep": [1]}, "startIndex": 4}
    with pytest.raises(JSONParseError):
        codec.from_dict(Segment, data)
    assert codec.from_dict(Segment, data, ignore_unknown_fields=True) == Segment(
        text="t", start_index=4
    )


@pytest.mark.parametrize("ignore", [False, True])
def test_unknown_enum_names_as_json_format(ignore: bool) -> None:
    # protobuf >= 5.27 skips unknown enum names with ignore_unknown_fields; 5.26 fails.
    data = {
        "state": "FUTURE_STATE",
        "answerSkippedReasons": ["X", "OUT_OF_DOMAIN_QUERY_IGNORED"],
        "answerText": "a",
    }
    assert (
        outcome(lambda: codec.from_dict(Answer, data, ignore_unknown_fields=ignore))[0]
        == (outcome(lambda: json_format.ParseDict(data, Answer(), ignore_unknown_fields=ignore))[0])
    )
    try:
        expected = json_format.ParseDict(data, Answer(), ignore_unknown_fields=ignore)
    except json_format.ParseError:
        with pytest.raises(JSONParseError, match="state"):
            codec.from_dict(Answer, data, ignore_unknown_fields=ignore)
    else:
        assert codec.from_dict(Answer, data, ignore_unknown_fields=ignore) == expected


def _nested_struct(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("max_depth", [0, 1, 2, 3, 4, 5, 6, 8, 12])
@pytest.mark.parametrize("struct_depth", [0, 1, 3])
def test_max_recursion_depth_as_json_format(max_depth: int, struct_depth: int) -> None:
    data = {
        "references": [
            {"chunkInfo": {"documentMetadata": {"structData": _nested_struct(struct_depth)}}}
        ]
    }
    theirs = outcome(lambda: json_format.ParseDict(data, Answer(), max_recursion_depth=max_depth))
    ours = outcome(lambda: codec.from_dict(Answer, data, max_recursion_depth=max_depth))
    assert ours[0] == theirs[0]
    if ours[0] == "ok":
        assert ours[1] == theirs[1]
    else:
        assert isinstance(ours[1].error, JSONParseError)
        assert "max_recursion_depth" in str(ours[1].error) or "deep" in str(ours[1].error)


def test_too_deep_names_the_level() -> None:
    with pytest.raises(JSONParseError) as caught:
        codec.from_dict(
            Answer, {"references": [{"chunkInfo": {"documentMetadata": {}}}]}, max_recursion_depth=3
        )
    assert caught.value.path == "references[0].chunkInfo.documentMetadata"
    assert "max_recursion_depth is 3" in str(caught.value)


def test_from_json_rejects_what_parse_rejects() -> None:
    texts = [
        '{"answerText": "a", "answerText": "b"}',
        "{",
        "[]",
        "nul",
        '{"name": NaN}',
        "5",
        '"x"',
        '{"state": 1.5}',
        '{"citations": [{"startIndex": 1e3}]}',
    ]
    for text in texts:
        theirs = outcome(lambda: json_format.Parse(text, Answer()))  # noqa: B023
        ours = outcome(lambda: codec.from_json(Answer, text))  # noqa: B023
        assert ours[0] == theirs[0], text
        if ours[0] == "ok":
            assert ours[1] == theirs[1]
        else:
            assert isinstance(ours[1].error, JSONParseError)
    with pytest.raises(JSONParseError, match="duplicate key 'a'"):
        codec.from_json(
            Answer,
            '{"references": [{"chunkInfo": {'
            '"documentMetadata": {"structData": {"a": 1, "a": 2}}}}]}',
        )


def test_failed_merge_leaves_json_formats_state() -> None:
    target = Answer(answer_text="kept", related_questions=["q"])
    expected = copy.deepcopy(target)
    data = {"relatedQuestions": ["new"], "name": "n", "citations": [{"startIndex": "x"}]}
    with pytest.raises(json_format.ParseError):
        json_format.ParseDict(data, expected)
    with pytest.raises(JSONParseError):
        codec.from_dict(target, data)
    assert wire(target) == wire(expected)


# --- Random and mutated JSON: json_format is the oracle -------------------------------------

SCALAR_JSON = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**65), 2**65),
    st.sampled_from([0, 1, -1, 2**31 - 1, 2**31, -(2**31) - 1, 2**32, 2**63, -(2**63) - 1]),
    st.floats(),
    st.sampled_from([1.0, -0.0, 1e39, 2.5, 1e20, float("nan"), float("inf")]),
    st.sampled_from(
        [
            "",
            "0",
            "12",
            "-7",
            "1e3",
            "1.5",
            " 4",
            "4 ",
            "+5",
            "1_0",
            "0x10",
            "١٢",
            "NaN",
            "Infinity",
            "-Infinity",
            "nan",
            "inf",
            "true",
            "false",
            "SUCCEEDED",
            "HARM_CATEGORY_HATE_SPEECH",
            "LOW",
            "NEGLIGIBLE",
            "2",
            "2024-01-02T03:04:05Z",
            "2024-01-02T03:04:05.123456789+01:00",
            "1970-01-01T00:00:00Z",
            "YWJj",
            "YW-_",
            "a=b",
            "\ud800",
        ]
    ),
    st.text(max_size=6),
)
JSON = st.recursive(
    SCALAR_JSON,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.text(max_size=4) | st.sampled_from(["a", "x", "[e]"]), inner, max_size=3
        ),
    ),
    max_leaves=6,
)


def _keys(descriptor: Descriptor) -> list[str]:
    names = [f.json_name for f in descriptor.fields] + [f.name for f in descriptor.fields]
    return [*names, "unknownKey", "[ext.name]"]


@st.composite
def _json_for(draw: st.DrawFn, descriptor: Descriptor, depth: int = 0) -> Any:
    """A JSON object with mostly the type's own keys and values of any kind."""
    if depth > 3 or draw(st.integers(0, 9)) == 0:
        return draw(JSON)
    result: dict[str, Any] = {}
    for _ in range(draw(st.integers(0, 4))):
        key = draw(st.sampled_from(_keys(descriptor)))
        field = descriptor.fields_by_name.get(key) or next(
            (f for f in descriptor.fields if f.json_name == key), None
        )
        result[key] = draw(_value_for(field, depth) if field is not None else JSON)
    return result


def _value_for(field: FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    nested: st.SearchStrategy[Any]
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        message_type = message_type_of(field)
        if message_type.GetOptions().map_entry:
            nested = st.dictionaries(st.text(max_size=3), SCALAR_JSON, max_size=3)
        elif message_type.full_name.startswith("google.protobuf."):
            nested = JSON
        else:
            nested = _json_for(message_type, depth + 1)
    else:
        nested = SCALAR_JSON
    is_map = field.message_type is not None and field.message_type.GetOptions().map_entry
    if is_repeated(field) and not is_map:
        return st.one_of(st.lists(nested, max_size=3), nested)
    return st.one_of(nested, nested, JSON)


@st.composite
def _random_case(draw: st.DrawFn) -> tuple[type[Message], Any]:
    from grounding_protos import message_types

    cls = message_class(draw(st.sampled_from(message_types())))
    return cls, draw(_json_for(descriptor_of(cls)))


def _check_against_json_format(cls: type[Message], data: Any, options: ParseOptions) -> None:
    theirs = outcome(lambda: json_format.ParseDict(copy.deepcopy(data), cls(), **options))
    ours = outcome(lambda: codec.from_dict(cls, data, **options))
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "ok":
        assert ours[1] == theirs[1]
    else:
        assert isinstance(ours[1].error, JSONParseError), ours[1]


@settings(max_examples=600 * FUZZ, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=_random_case(), options=st.sampled_from(PARSE_OPTIONS))
def test_random_json_accepted_or_rejected_as_json_format(
    case: tuple[type[Message], Any], options: ParseOptions
) -> None:
    _check_against_json_format(*case, options)


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _leaves(item, (*path, index))
    return found


@settings(max_examples=400 * FUZZ, deadline=None, suppress_health_check=list(HealthCheck))
@given(message=any_message(), data=st.data(), options=st.sampled_from(PARSE_OPTIONS))
def test_mutated_json_accepted_or_rejected_as_json_format(
    message: Message, data: st.DataObject, options: ParseOptions
) -> None:
    document = json_format.MessageToDict(message)
    paths = _leaves(document)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        if not path:
            continue
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        if isinstance(parent, dict) and data.draw(st.booleans()):
            parent[data.draw(st.sampled_from(["x", "[a.b]", str(path[-1]) + "_"]))] = 1
        else:
            parent[path[-1]] = data.draw(JSON)
        paths = _leaves(document)
    _check_against_json_format(type(message), document, options)


# --- Other field kinds: the dependency types of the pool the plans also cover ----------------


def _dependency_types() -> list[str]:
    """Planned pool types outside the package's schemas: proto2 presence, bytes, uint64,
    int64 and double fields, required fields, recursion (google/api, descriptor.proto)."""
    from grounding_protos import message_types
    from grounding_protos._proto import pool as _pool

    own = set(message_types())
    names: list[str] = []

    def walk(descriptor: Descriptor) -> None:
        if descriptor.GetOptions().map_entry:
            return
        planned = _codec_plan.emit_plan(descriptor, _codec_plan.EmitOptions()) is not None
        if descriptor.full_name not in own and planned:
            names.append(descriptor.full_name)
        for nested in descriptor.nested_types:
            walk(nested)

    for file in _pool.FILE_SET.file:
        for message in _pool.file_descriptor(file.name).message_types_by_name.values():
            walk(message)
    return names


DEPENDENCY_TYPES = _dependency_types()


def test_dependency_types_are_planned() -> None:
    assert "google.protobuf.UninterpretedOption" in DEPENDENCY_TYPES
    assert "google.api.ResourceDescriptor" in DEPENDENCY_TYPES


@st.composite
def _dependency_message(draw: st.DrawFn) -> Message:
    from grounding_protos._proto import pool as _pool

    name = draw(st.sampled_from(DEPENDENCY_TYPES))
    return draw(messages(_pool.POOL.FindMessageTypeByName(name)))


@settings(max_examples=200 * FUZZ, deadline=None, suppress_health_check=list(HealthCheck))
@given(message=_dependency_message(), options=st.sampled_from(EMIT_OPTIONS), data=st.data())
def test_other_field_kinds_as_json_format(
    message: Message, options: EmitOptions, data: st.DataObject
) -> None:
    assert same_json(
        codec.to_dict(message, **options), json_format.MessageToDict(message, **options)
    )
    document = json_format.MessageToDict(message, **options)
    _check_against_json_format(type(message), document, {})
    _check_against_json_format(type(message), data.draw(_json_for(descriptor_of(message))), {})


# --- Outside the plans: json_format itself -----------------------------------------------------


def test_default_pool_messages_use_json_format() -> None:
    stamp = timestamp_pb2.Timestamp(seconds=5)
    assert codec.to_dict(stamp) == json_format.MessageToDict(stamp)
    assert codec.from_dict(timestamp_pb2.Timestamp, "1970-01-01T00:00:05Z") == stamp
    theirs_struct = struct_pb2.Struct()
    theirs_struct.update({"a": [1, None]})
    assert codec.to_dict(theirs_struct) == {"a": [1.0, None]}
    with pytest.raises(JSONParseError) as caught:
        codec.from_dict(timestamp_pb2.Timestamp, "never")
    assert isinstance(caught.value.__cause__, json_format.ParseError)


def test_well_known_types_at_the_top() -> None:
    value = Value(list_value=ListValue())
    value.list_value.values.add().string_value = "x"
    stamp = Timestamp(seconds=1, nanos=5000)
    struct = Struct()
    struct.update({"k": {"n": 1.5}})
    for message in (value, stamp, struct):
        assert codec.to_dict(message) == json_format.MessageToDict(message)
        data = json_format.MessageToDict(message)
        assert codec.from_dict(type(message), data) == message
        assert codec.to_json(message) == json_format.MessageToJson(message)


def test_arguments_are_checked() -> None:
    with pytest.raises(TypeError):
        codec.to_dict({"not": "a message"})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        codec.from_json(Answer, 5)  # type: ignore[call-overload]
    with pytest.raises(LookupError):
        codec.from_dict("NoSuchType", {})


def test_generated_source_is_readable_python() -> None:
    source = codec.generated_source(Answer, "from_dict", ignore_unknown_fields=True)
    assert source is not None
    assert "def from_dict_Answer_Citation(js, m, rem):" in source
    compile(source, "<test>", "exec")
    emit = codec.generated_source(
        "v2beta1.GroundingSupport", always_print_fields_with_no_presence=True
    )
    assert emit is not None and "'groundingChunkIndices' not in d" in emit
    assert codec.generated_source(timestamp_pb2.Timestamp) is None
    with pytest.raises(ArgumentValueError, match="kind must be"):
        codec.generated_source(Answer, "to_yaml")


# --- The cache: one plan per (type, options), built once under concurrency ----------------


def test_plans_built_once_and_thread_safe() -> None:
    _codec_plan._emit_plans.clear()
    _codec_plan._parse_plans.clear()
    _codec._emitters.clear()
    _codec._parsers.clear()
    types = [Answer, GroundingMetadata, GroundingSupport, GroundingFact, FactChunk, CitationSource]
    samples = {cls: cls() for cls in types}
    samples[Answer] = codec.from_dict(Answer, {"answerText": "é", "citations": [{"endIndex": 3}]})
    expected = {cls: json_format.MessageToDict(m) for cls, m in samples.items()}
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            barrier.wait()
            for _ in range(20):
                for cls, message in samples.items():
                    assert codec.to_dict(message) == expected[cls]
                    assert codec.from_dict(cls, expected[cls]) == message
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    built = list(_codec_plan.iter_plans())
    assert len(built) == len({name for name, _ in built}) == 2 * len(types)
    assert all(plan is not None for _, plan in built)


def test_nan_compare_helper() -> None:
    assert same_json({"a": math.nan}, {"a": math.nan})
    assert not same_json({"a": 1}, {"a": 1.0})


# --- Codec: the reusable per-type object -------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(message=messages(descriptor_of(Answer)), options=st.sampled_from(EMIT_OPTIONS))
def test_codec_object_is_the_module_functions(message: Message, options: EmitOptions) -> None:
    assert isinstance(message, Answer)
    answers = codec.Codec(Answer, **options, indent=None, ignore_unknown_fields=True)
    assert same_json(answers.to_dict(message), json_format.MessageToDict(message, **options))
    text = answers.to_json(message)
    assert text == json_format.MessageToJson(message, indent=None, **options)
    assert outcome(lambda: answers.from_json(text)) == outcome(
        lambda: json_format.Parse(text, Answer(), ignore_unknown_fields=True)
    )
    data = json_format.MessageToDict(message, **options)
    target = Answer(name="kept")
    expected = copy.deepcopy(target)
    assert outcome(lambda: answers.from_dict(data, target)) == outcome(
        lambda: json_format.ParseDict(data, expected, ignore_unknown_fields=True)
    )
    assert wire(target) == wire(expected)


def test_codec_object_checks_types() -> None:
    answers = codec.Codec(Answer)
    with pytest.raises(TypeError, match=r"converts google\.cloud\.discoveryengine\.v1\.Answer"):
        answers.to_dict(Segment())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        codec.Codec("Answer")  # type: ignore[arg-type]
    with pytest.raises(JSONParseError) as caught:
        answers.from_dict({"citations": [{"endIndex": []}]})
    assert caught.value.path == "citations[0].endIndex"
    assert repr(answers) == "Codec(google.cloud.discoveryengine.v1.Answer)"
