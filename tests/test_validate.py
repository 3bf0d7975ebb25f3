"""validate: every problem with its path, for every input kind; never raises."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import Problem, UnsupportedInputError, validate
from grounding_protos.discoveryengine_v1 import Answer
from tests import citation_cases as cases
from tests.strategies import JSON, any_message

pytestmark = pytest.mark.smoke

TEXT = cases.joined()


def _codes(problems: list[Problem]) -> list[tuple[str, str]]:
    return [(p.code, p.path) for p in problems]


def test_clean_inputs_have_no_problems() -> None:
    assert validate(cases.answer_message()) == []
    assert validate(cases.gemini_response_json()) == []
    assert validate(cases.gemini_response_json(thought=False)) == []
    assert validate(cases.grounding_metadata_message(), text=TEXT) == []
    assert validate(cases.citation_metadata_message(), text=TEXT) == []


def test_broken_answer_reports_every_problem() -> None:
    answer = cases.answer_message()
    answer.citations[0].end_index = 10_000
    answer.citations[1].start_index += 1  # splits 人
    answer.citations[2].start_index = answer.citations[2].end_index + 1
    answer.citations[3].sources[0].reference_id = "9"
    answer.citations[4].sources[0].reference_id = "x"
    answer.grounding_supports[0].grounding_score = 1.5
    answer.references[0].chunk_info.relevance_score = -0.25
    answer.grounding_score = float("nan")
    assert _codes(validate(answer)) == [
        ("score-out-of-range", "grounding_score"),
        ("score-out-of-range", "grounding_supports[0].grounding_score"),
        ("score-out-of-range", "references[0].chunk_info.relevance_score"),
        ("offset-out-of-range", "citations[0].end_index"),
        ("offset-splits-character", "citations[1].start_index"),
        ("offset-inverted", "citations[2].end_index"),
        ("reference-id-out-of-range", "citations[3].sources[0].reference_id"),
        ("reference-id-not-a-number", "citations[4].sources[0].reference_id"),
    ]


def test_gemini_problems_with_paths() -> None:
    response = cases.gemini_response_json()
    meta = response["candidates"][0]["groundingMetadata"]
    meta["groundingSupports"][0]["segment"]["text"] = "not what the offsets say"
    meta["groundingSupports"][1]["groundingChunkIndices"] = [5]
    meta["groundingSupports"][2]["confidenceScores"] = [2.0]
    meta["groundingSupports"][3]["segment"]["partIndex"] = 0
    prefix = "candidates[0].grounding_metadata.grounding_supports"
    assert _codes(validate(response)) == [
        ("score-out-of-range", f"{prefix}[2].confidence_scores[0]"),
        ("segment-text-mismatch", f"{prefix}[0].segment.text"),
        ("chunk-index-out-of-range", f"{prefix}[1].grounding_chunk_indices[0]"),
        ("part-index-out-of-range", f"{prefix}[3].segment.part_index"),
    ]


def test_without_text_offsets_are_not_checked_and_it_says_so() -> None:
    problems = validate(cases.grounding_metadata_message())
    assert _codes(problems) == [("text-missing", "")]
    assert "6 spans were not checked" in problems[0].message


def test_wrong_json_types_are_reported_not_raised() -> None:
    body: dict[str, Any] = {"answerText": "abc", "citations": [{"startIndex": "x", "endIndex": 2}]}
    codes = [p.code for p in validate(body)]
    assert "invalid-json-value" in codes and "not-an-integer" in codes
    assert _codes(validate({"foo": 1})) == [("unrecognized-input", "")]


def test_messages_without_citations_get_field_checks_only() -> None:
    from grounding_protos.discoveryengine_v1 import SafetyRating

    assert validate(SafetyRating(probability_score=0.5)) == []
    assert _codes(validate(SafetyRating(severity_score=3.0))) == [
        ("score-out-of-range", "severity_score")
    ]


def test_official_and_genai_objects() -> None:
    de = pytest.importorskip("google.cloud.discoveryengine_v1", reason="official libs")
    answer = cases.answer_message()
    answer.citations[1].start_index += 1
    official = de.Answer.deserialize(answer.SerializeToString())
    assert _codes(validate(official)) == [("offset-splits-character", "citations[1].start_index")]
    genai = pytest.importorskip("google.genai.types", reason="google-genai is a test extra")
    response = cases.gemini_response_json()
    response["candidates"][0]["groundingMetadata"]["groundingSupports"][0]["confidenceScores"] = [
        1.25
    ]
    got = validate(genai.GenerateContentResponse.model_validate(response))
    assert _codes(got) == [
        ("score-out-of-range",
         "candidates[0].grounding_metadata.grounding_supports[0].confidence_scores[0]")
    ]  # fmt: skip


def test_problem_str() -> None:
    problem = Problem("score-out-of-range", "score 2.0 is outside [0, 1]", "grounding_score")
    assert str(problem) == "grounding_score: score 2.0 is outside [0, 1] [score-out-of-range]"


@pytest.mark.parametrize("obj", [42, "text", object()])
def test_non_containers_are_unsupported(obj: object) -> None:
    with pytest.raises(UnsupportedInputError):
        validate(obj)


@settings(max_examples=300, deadline=None)
@given(any_message(), st.one_of(st.none(), st.text(max_size=30)))
def test_never_raises_on_any_message(message: Message, text: str | None) -> None:
    problems = validate(message, text=text)
    assert all(isinstance(p, Problem) and p.code for p in problems)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(["answerText", "citations", "candidates",
                                        "groundingSupports", "citationSources", "answer"]),
                       JSON, min_size=1, max_size=4))  # fmt: skip
def test_never_raises_on_json_like_dicts(body: dict[str, Any]) -> None:
    for problem in validate(body):
        assert isinstance(problem, Problem)


def test_answer_from_strategies_round_trip_is_valid() -> None:
    assert validate(Answer()) == []
