"""``validate``'s quick walk (``_citations.quick_check``) against the exact checks it stands in for.

The oracle is ``validate`` as it was before the quick walk, kept here: every exact
check (``_required``, ``_scores``, ``_json_types``) run on every input. On random
mutations of valid responses (wrong JSON types, scores out of range or NaN, huge
ints, nulls, both spellings of a field, REQUIRED fields cleared) ``validate`` must
report the same problems, in the same order; and whatever the quick walk calls clean
must be clean for the exact checks and, for JSON types, parse with ``json_format``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

import pytest
from google.api import field_behavior_pb2  # type: ignore[import-untyped]
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import Problem, UnsupportedInputError, validate
from grounding_protos._citations import validate as exact
from grounding_protos._citations.quick_check import json_clean, message_clean
from grounding_protos._core.access import unwrap
from grounding_protos._core.resolve import resolve
from grounding_protos._proto.pool import FILE_SET
from grounding_protos._proto.registry import message_class
from grounding_protos._sources.registry import read_input
from grounding_protos.discoveryengine_v1 import Answer, HarmCategory, SafetyRating
from tests import citation_cases as cases
from tests.strategies import any_message

pytestmark = pytest.mark.smoke


def reference(obj: object, text: str | None = None) -> list[Problem]:
    """``validate`` before the quick walk: every exact check on every input."""
    obj = unwrap(obj)
    problems: list[Problem] = []
    if isinstance(obj, Message):
        problems += exact._required(obj, "")
    problems += exact._scores(obj)
    try:
        raw = read_input(obj)
    except UnsupportedInputError as exc:
        if isinstance(obj, Message):
            return problems
        assert isinstance(obj, Mapping)
        return [*problems, Problem("unrecognized-input", str(exc), "")]
    if isinstance(obj, Mapping):
        problems += exact._json_types(exact._targets(obj, raw, 0))
    try:
        resolution = resolve(raw, text, mode="collect")
    except Exception as exc:
        return [*problems, Problem("invalid-text", str(exc), "")]
    problems += resolution.problems
    if resolution.text is None and raw.spans:
        problems.append(
            Problem(
                "text-missing",
                f"no answer text in the input and no text= given: the offsets of "
                f"{len(raw.spans)} spans were not checked",
                "",
            )
        )
    return problems


# --- JSON ---------------------------------------------------------------------------------


def _answer_json() -> dict[str, Any]:
    answer = cases.answer_message()
    answer.grounding_score = 0.5
    answer.safety_ratings.add(
        category=HarmCategory.HARM_CATEGORY_HATE_SPEECH, probability_score=0.25, severity_score=0.75
    )
    answer.create_time.FromJsonString("2025-03-01T10:00:00.125Z")
    answer.complete_time.FromJsonString("2025-03-01T10:00:02Z")
    answer.references[0].chunk_info.document_metadata.struct_data.update(
        {"author": "A", "year": 2024, "tags": ["x", {"weight": 0.5}], "rating": {"userScore": 0.25}}
    )
    body: dict[str, Any] = json_format.MessageToDict(answer)
    return body


def _gemini_with_extras() -> dict[str, Any]:
    """A Gemini response with scores outside the schema (safety ratings) and the
    Gemini spelling of citation metadata."""
    response = cases.gemini_response_json()
    candidate = response["candidates"][0]
    candidate["safetyRatings"] = [
        {"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE",
         "probabilityScore": 0.03, "severity": "HARM_SEVERITY_NEGLIGIBLE",
         "severityScore": 0.01},
    ]  # fmt: skip
    candidate["citationMetadata"] = {"citations": [{"startIndex": 0, "endIndex": 3}]}
    candidate["avgLogprobs"] = -0.4
    return response


BASES: list[dict[str, Any]] = [
    cases.gemini_response_json(),
    cases.gemini_response_json(thought=False),
    _gemini_with_extras(),
    cases.snake(cases.gemini_response_json()),
    _answer_json(),
    {"answer": _answer_json()},
    cases.snake(_answer_json()),
    cases.grounding_metadata_json(parts_relative=False),
    json_format.MessageToDict(cases.citation_metadata_message()),
]
TIMES = [
    "2024-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
    "0000-01-01T00:00:00Z", "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z",
    "2024-02-29T23:59:60Z", "2024-01-01t00:00:00Z", "2024-01-01T00:00:00.1234567891Z",
    "2024-01-01T00:00:00+01:00", "2024-01-01T24:00:00Z", "2024-1-01T00:00:00Z",
    "2024-01-01T00:00:00.Z", "\uff12\uff10\uff12\uff14-01-01T00:00:00Z", "2024-01-01T00:00:00z",
]  # fmt: skip
WEIRD: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, 1, -1, 2**31, 2**53 + 1, 2**63, 2**64]),
    st.floats(),
    st.sampled_from([0.0, 1.0, 0.5, -0.0, 1.0000001, 3.5e38, float("nan"), float("inf")]),
    st.sampled_from(["", "7", "-3", "1e3", "NaN", "x", "STOP", "SUCCEEDED",
                     "18446744073709551616", "2024-01-01T00:00:00Z"]),
    st.sampled_from(TIMES),
    st.dictionaries(st.sampled_from(["a", "bScore", "c"]),
                    st.one_of(st.floats(), st.integers(-(2**60), 2**60), st.none(),
                              st.lists(st.floats(), max_size=2), st.just({"dScore": 3})),
                    max_size=3),
    st.lists(st.one_of(st.floats(), st.integers(-3, 3), st.none(), st.text(max_size=2)),
             max_size=3),
    st.sampled_from([[], {}, [{}], [None], {"relevanceScore": 2.0}, [{"fooScore": -1}],
                     {"web": {"uri": 3}}, {"segment": None}, [[0.5]]]),
)  # fmt: skip
KEYS = st.sampled_from([
    "relevanceScore", "groundingScore", "probabilityScore", "confidence_scores",
    "confidenceScores", "sourceScores", "score", "startIndex", "start_index", "endIndex",
    "text", "web", "retrievedContext", "segment", "groundingSupports", "citations",
    "chunkInfo", "unknownField", "state", "createTime", "partIndex", "completeTime",
    "structData", "documentMetadata",
])  # fmt: skip
_SNAKE = re.compile(r"(?<!^)(?=[A-Z])")


def _spots(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every dict member and list element in a JSON value."""
    out: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        items: list[tuple[Any, Any]] = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        return out
    for step, child in items:
        out.append((*path, step))
        out += _spots(child, (*path, step))
    return out


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    """A valid response with one to three random mutations."""
    doc: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(1, 3))):
        spots = _spots(doc)
        if not spots:
            break
        path = draw(st.sampled_from(spots))
        parent, step = _at(doc, path[:-1]), path[-1]
        op = draw(st.sampled_from(["replace", "replace", "delete", "add", "respell"]))
        if op == "replace":
            parent[step] = copy.deepcopy(draw(WEIRD))  # drawn objects are shared
        elif op == "delete":
            del parent[step]
        elif op == "add":
            target = parent[step] if isinstance(parent[step], dict) else parent
            if isinstance(target, dict):
                target[draw(KEYS)] = copy.deepcopy(draw(WEIRD))
        elif isinstance(step, str):  # both spellings of one field
            parent[_SNAKE.sub("_", step).lower()] = copy.deepcopy(parent[step])
    return doc


def _targets(doc: dict[str, Any]) -> list[tuple[Any, str, str]]:
    try:
        raw = read_input(doc)
    except UnsupportedInputError:
        return []
    return exact._targets(doc, raw, 0)


def test_valid_responses_are_proved_clean_by_the_quick_walk() -> None:
    for doc in BASES:
        targets = [(p, message_class(n).DESCRIPTOR) for p, n, _ in _targets(doc)]
        assert json_clean(doc, targets) == (True, True), doc
        problems = validate(doc)
        assert problems == reference(doc)
        assert [p.code for p in problems] in ([], ["text-missing"])  # no text in some shapes
    assert message_clean(cases.answer_message())
    assert message_clean(cases.grounding_metadata_message())


@settings(max_examples=700, deadline=None)
@given(mutated())
def test_mutated_json_same_problems_as_the_exact_checks(doc: dict[str, Any]) -> None:
    assert validate(doc) == reference(doc)


@settings(max_examples=500, deadline=None)
@given(mutated())
def test_what_the_quick_walk_calls_clean_is_clean(doc: dict[str, Any]) -> None:
    targets = _targets(doc)
    scores_clean, types_clean = json_clean(
        doc, [(p, message_class(n).DESCRIPTOR) for p, n, _ in targets]
    )
    if scores_clean:
        assert exact._scores(doc) == []
    if types_clean:  # json_format as the oracle of the types
        for part, full_name, _ in targets:
            json_format.ParseDict(part, message_class(full_name)(), ignore_unknown_fields=True)


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ({"x": {"yScore": float("nan")}}, (False, True)),
        ({"x": [{"yScores": [0.5, float("nan")]}]}, (False, True)),
        ({"x": [{"yScores": [0.5, 1]}], "zScore": 0}, (True, True)),
        ({"x": [[{"yScore": 7}]]}, (False, True)),
        ({"x": ({"yScore": 0.5},)}, (False, False)),  # a tuple: left to the exact check
        ({"x_score": True}, (False, True)),
    ],
)
def test_json_clean_on_small_cases(doc: dict[str, Any], expected: tuple[bool, bool]) -> None:
    assert json_clean(doc, ()) == expected


@pytest.mark.parametrize("time", TIMES)
def test_timestamps_proved_only_where_json_format_parses(time: str) -> None:
    answer = message_class("google.cloud.discoveryengine.v1.Answer")
    part = {"createTime": time}
    _, types_clean = json_clean({"a": part}, [(part, answer.DESCRIPTOR)])
    try:
        json_format.ParseDict(part, answer())
    except json_format.ParseError:
        assert not types_clean
    else:  # Google's form is proved; offsets and looser forms may be left to parsing
        canonical = ("2024-01-01T00:00:00Z", "0001-01-01T00:00:00Z",
                     "9999-12-31T23:59:59.999999999Z")  # fmt: skip
        assert types_clean or time not in canonical


def test_json_clean_type_cases() -> None:
    meta = message_class("google.cloud.dialogflow.v2beta1.GroundingMetadata").DESCRIPTOR

    def check(part: dict[str, Any]) -> tuple[bool, bool]:
        return json_clean({"m": part}, [(part, meta)])

    assert check({"groundingSupports": [{"segment": {"startIndex": "12"}}]}) == (True, True)
    assert check({"groundingSupports": [{"segment": {"startIndex": 2**31}}]}) == (True, False)
    assert check({"groundingSupports": [{"segment": {"startIndex": 1.5}}]}) == (True, False)
    assert check({"groundingSupports": [{"groundingChunkIndices": [0, None]}]}) == (True, False)
    assert check({"groundingSupports": [{"groundingChunkIndices": [{"aScore": 2}]}]}) == (
        False,
        False,
    )
    assert check({"groundingSupports": [{}], "grounding_supports": []}) == (True, False)
    assert check({"webSearchQueries": ["a", 3]}) == (True, False)
    assert check({"groundingSupports": {"confidenceScores": [3]}}) == (False, False)
    # a part the walk cannot reach as a dict is left to the exact check
    assert json_clean({}, [({}, meta)]) == (True, False)


# --- Messages -------------------------------------------------------------------------------

SCORE = st.one_of(
    st.floats(width=32),
    st.sampled_from([0.0, 1.0, 0.5, -0.25, 1.5, float("nan"), float("inf"), float("-inf")]),
)


@st.composite
def mutated_answers(draw: st.DrawFn) -> Answer:
    answer = cases.answer_message()
    if draw(st.booleans()):
        answer.grounding_score = draw(SCORE)
    for support in answer.grounding_supports:
        if draw(st.booleans()):
            support.grounding_score = draw(SCORE)
    for reference_ in answer.references:
        if draw(st.booleans()):
            reference_.chunk_info.relevance_score = draw(SCORE)
    if draw(st.booleans()):
        content = answer.references.add().unstructured_document_info.chunk_contents.add()
        content.content = "x"
        if draw(st.booleans()):
            content.relevance_score = draw(SCORE)
    for _ in range(draw(st.integers(0, 2))):
        answer.safety_ratings.add(probability_score=draw(SCORE), severity_score=draw(SCORE))
    if draw(st.booleans()):
        answer.steps.add().actions.add().observation.search_results.add().chunk_info.add(
            relevance_score=draw(SCORE)
        )
    return answer


@settings(max_examples=300, deadline=None)
@given(mutated_answers())
def test_mutated_answers_same_problems_as_the_exact_checks(answer: Answer) -> None:
    assert validate(answer) == reference(answer)
    if message_clean(answer):
        assert exact._required(answer, "") == exact._scores(answer) == []


@settings(max_examples=300, deadline=None)
@given(any_message())
def test_any_message_same_problems_as_the_exact_checks(message: Message) -> None:
    assert validate(message) == reference(message)
    if message_clean(message):
        assert exact._required(message, "") == exact._scores(message) == []


def test_message_clean_cases() -> None:
    assert not message_clean(SafetyRating(severity_score=float("nan")))
    assert message_clean(SafetyRating(severity_score=1.0))
    answer = cases.answer_message()
    answer.steps.add().actions.add().observation.search_results.add().chunk_info.add(
        relevance_score=-1.0
    )
    assert not message_clean(answer)


# A type with REQUIRED fields of every kind (no schema of the package has one that is
# checked), and odd score fields, in a pool of its own.


def _required_types() -> tuple[Any, Any]:  # classes made at run time
    pool = descriptor_pool.DescriptorPool()
    for file in FILE_SET.file:
        if file.name in ("google/protobuf/descriptor.proto", "google/api/field_behavior.proto"):
            pool.Add(file)
    proto = descriptor_pb2.FileDescriptorProto(
        name="quick_required_test.proto",
        package="quicktest",
        syntax="proto3",
        dependency=["google/api/field_behavior.proto"],
    )
    node = proto.message_type.add(name="Node")
    f = descriptor_pb2.FieldDescriptorProto
    fields = [
        ("name", 1, f.TYPE_STRING, f.LABEL_OPTIONAL, True, None),
        ("tag", 2, f.TYPE_STRING, f.LABEL_OPTIONAL, True, "proto3"),
        ("items", 3, f.TYPE_STRING, f.LABEL_REPEATED, True, None),
        ("child", 4, f.TYPE_MESSAGE, f.LABEL_OPTIONAL, True, None),
        ("children", 5, f.TYPE_MESSAGE, f.LABEL_REPEATED, False, None),
        ("count", 6, f.TYPE_INT64, f.LABEL_OPTIONAL, True, None),
        ("relevance_score", 7, f.TYPE_FLOAT, f.LABEL_OPTIONAL, False, None),
        ("confidence_scores", 8, f.TYPE_DOUBLE, f.LABEL_REPEATED, False, None),
    ]
    for name, number, kind, label, required, optional in fields:
        field = node.field.add(name=name, number=number, type=kind, label=label)
        if kind == f.TYPE_MESSAGE:
            field.type_name = ".quicktest.Node"
        if optional:
            field.proto3_optional = True
            field.oneof_index = len(node.oneof_decl)
            node.oneof_decl.add(name=f"_{name}")
        if required:
            field.options.Extensions[field_behavior_pb2.field_behavior].append(
                field_behavior_pb2.REQUIRED
            )
    odd = proto.message_type.add(name="Odd")
    odd.field.add(name="label_score", number=1, type=f.TYPE_STRING, label=f.LABEL_OPTIONAL)
    pool.Add(proto)
    return (
        message_factory.GetMessageClass(pool.FindMessageTypeByName("quicktest.Node")),
        message_factory.GetMessageClass(pool.FindMessageTypeByName("quicktest.Odd")),
    )


NODE, ODD = _required_types()


@st.composite
def nodes(draw: st.DrawFn, depth: int = 0) -> Message:
    node: Any = NODE()
    if draw(st.booleans()):
        node.name = draw(st.sampled_from(["", "n"]))
    if draw(st.booleans()):
        node.tag = draw(st.sampled_from(["", "t"]))
    node.items.extend(draw(st.lists(st.just("i"), max_size=2)))
    if draw(st.booleans()):
        node.count = draw(st.integers(0, 2))
    if draw(st.booleans()):
        node.relevance_score = draw(SCORE)
    node.confidence_scores.extend(draw(st.lists(SCORE, max_size=2)))
    if depth < 3:
        if draw(st.booleans()):
            node.child.CopyFrom(draw(nodes(depth + 1)))
        for child in draw(st.lists(nodes(depth + 1), max_size=2)):
            node.children.add().CopyFrom(child)
    message: Message = node
    return message


@settings(max_examples=300, deadline=None)
@given(nodes())
def test_required_fields_same_problems_as_the_exact_checks(node: Message) -> None:
    assert validate(node) == reference(node)
    if message_clean(node):
        assert exact._required(node, "") == exact._scores(node) == []


def test_required_fields_are_found() -> None:
    node: Any = NODE(name="n", tag="", items=["i"], count=0)
    node.child.name = "c"
    node.child.tag = "t"
    node.child.items.append("j")
    node.child.child.SetInParent()
    assert not message_clean(node)
    got = [(p.code, p.path) for p in validate(node)]
    assert got == [
        ("required-field-missing", "child.child.name"),
        ("required-field-missing", "child.child.tag"),
        ("required-field-missing", "child.child.items"),
        ("required-field-missing", "child.child.child"),
    ]
    node.child.child.MergeFrom(NODE(name="x", tag="", items=["k"], child=NODE(name="y")))
    assert [(p.code, p.path) for p in validate(node)] == [
        ("required-field-missing", "child.child.child.tag"),
        ("required-field-missing", "child.child.child.items"),
        ("required-field-missing", "child.child.child.child"),
    ]


def test_odd_score_fields_go_to_the_exact_check() -> None:
    odd: Any = ODD()
    assert not message_clean(odd)
    assert [(p.code, p.path) for p in validate(odd)] == [("score-not-a-number", "label_score")]


def test_scores_inside_struct_data_are_checked() -> None:
    doc = _answer_json()
    struct = doc["references"][0]["chunkInfo"]["documentMetadata"]["structData"]
    struct["rating"]["userScore"] = 7
    problems = validate(doc)
    assert problems == reference(doc)
    assert [(p.code, p.path) for p in problems] == [
        ("score-out-of-range",
         "references[0].chunk_info.document_metadata.struct_data.rating.user_score")
    ]  # fmt: skip
    struct["rating"]["userScore"] = 0.5
    struct["tags"][1]["weightScores"] = [0.5, float("nan")]
    assert [p.code for p in validate(doc)] == ["score-out-of-range"]
