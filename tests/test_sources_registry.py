"""The reader dispatcher: every shape named, near misses refused, nothing accepted by accident."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import UnsupportedInputError, codec, validate
from grounding_protos.citations import SHAPES, Grounded, read, render
from tests import citation_cases as cases

pytestmark = pytest.mark.smoke

# Inputs that look like a supported shape but are not one: each must raise, never
# read to an empty Grounded.
NEAR_MISSES: list[tuple[str, object]] = [
    ("none", None),
    ("number", 42),
    ("float", 1.5),
    ("string", "Grüße aus Köln"),
    ("bool", True),
    ("list", [cases.gemini_response_json()]),
    ("empty list", []),
    ("empty dict", {}),
    ("unrelated dict", {"foo": 1, "bar": [1, 2]}),
    ("search response without a summary",
     {"results": [{"id": "1", "document": {"name": "d/1"}}], "totalSize": 1,
      "attributionToken": "tok"}),
    ("search response with an empty summary", {"results": [], "summary": {}}),
    ("gemini content whose parts is not a list",
     {"content": {"parts": "東京は日本の首都です。", "role": "model"}}),
    ("gemini content whose parts is a dict", {"content": {"parts": {"text": "x"}}}),
    ("gemini content without parts or finish reason", {"content": {"role": "model"}}),
    ("content as a string", {"content": "plain text", "role": "assistant"}),
    ("a list of content blocks without a message type",
     {"content": [{"type": "text", "text": "Café"}]}),
    ("candidates that are not records", {"candidates": [1, "x"]}),
    ("prompt feedback without a block reason", {"promptFeedback": {"safetyRatings": []}}),
    ("a candidate that is no candidate", {"candidates": [{"role": "model"}]}),
    ("grounding supports not a list", {"groundingSupports": {"segment": {}}}),
    ("empty grounding lists", {"groundingSupports": [], "groundingChunks": []}),
    ("citations of another kind", {"citations": [{"foo": 1}]}),
    ("answer text not a string", {"answerText": 7}),
    ("answer response without an answer", {"answer": {"foo": 1}, "session": "s"}),
    ("summary with metadata without citations or references", {"summary": "Zürich"}),
    ("summary with references not a list",
     {"summary": "Zürich", "references": {"title": "x"}}),
    ("choices without a message", {"choices": [{"text": "legacy completion"}]}),
    ("output that is a string", {"output": "text"}),
    ("message without content", {"message": {"role": "assistant"}}),
    ("citations without output text", {"citations": [{"retrievedReferences": []}]}),
    ("a finish reason that is not Gemini's", {"finishReason": "COMPLETE", "id": "x"}),
    ("another vendor's finish reason beside a message",
     {"finish_reason": "MAX_TOKENS", "message": {"role": "user", "content": "hi"}}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "obj"), NEAR_MISSES, ids=[n for n, _ in NEAR_MISSES])
def test_near_misses_raise_naming_what_was_seen(name: str, obj: object) -> None:
    with pytest.raises(UnsupportedInputError) as info:
        read(obj)
    message = str(info.value)
    assert "cannot read citations from" in message
    if isinstance(obj, (str, bytes)):  # JSON text, most likely: the fix, not the shapes
        assert "parse it first (json.loads)" in message
    else:
        assert "gemini_response" in message and "search_summary" in message  # the shapes
    if isinstance(obj, dict) and obj:
        assert sorted(obj)[0] in message  # its keys
    elif not isinstance(obj, dict):
        assert (type(obj).__name__ if obj is not None else "None") in message


_DICT_MISSES = [(n, o) for n, o in NEAR_MISSES if isinstance(o, dict)]


@pytest.mark.parametrize(("name", "obj"), _DICT_MISSES, ids=[n for n, _ in _DICT_MISSES])
def test_validate_reports_near_miss_dicts(name: str, obj: object) -> None:
    problems = validate(obj)
    assert [p.code for p in problems] == ["unrecognized-input"]
    assert "cannot read citations from" in problems[0].message  # the message read raises


BLOCKED: list[tuple[str, dict[str, Any]]] = [
    ("candidate with empty content", {"finishReason": "SAFETY", "content": {}}),
    ("candidate without content", {"finishReason": "SAFETY", "index": 0,
                                   "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT"}]}),
    ("response with a blocked candidate",
     {"candidates": [{"finishReason": "SAFETY", "content": {}}], "modelVersion": "m"}),
    ("response with a blocked prompt",
     {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "candidates": []}),
    ("response with a blocked prompt and no candidates",
     {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "modelVersion": "m"}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "obj"), BLOCKED, ids=[n for n, _ in BLOCKED])
def test_blocked_gemini_outputs_read_empty(name: str, obj: dict[str, Any]) -> None:
    grounded = read(obj)
    assert grounded.citations == [] and grounded.text == ""  # empty, not unknown
    reason = grounded.finish_reason
    assert reason in ("SAFETY", "PROHIBITED_CONTENT")
    for style in ("markdown", "plain"):  # it renders, saying why it is empty
        assert render(grounded, style) == f"(the answer has no text: finish reason {reason})\n"
    assert render(grounded, "html").startswith("<!DOCTYPE html>")
    assert grounded.shape in ("gemini_candidate", "gemini_response")
    assert grounded.finish_reason in ("SAFETY", "PROHIBITED_CONTENT")
    assert validate(obj) == []


def test_a_candidate_with_parts_and_no_metadata_is_empty_not_unsupported() -> None:
    grounded = read({"content": {"parts": [{"text": "東京"}], "role": "model"}})
    assert (grounded.text, grounded.citations, grounded.shape) == ("東京", [], "gemini_candidate")


@pytest.mark.parametrize(
    ("obj", "shape"),
    [
        (cases.gemini_response_json(), "gemini_response"),
        (cases.gemini_response_json()["candidates"][0], "gemini_candidate"),
        (cases.grounding_metadata_json(parts_relative=False), "grounding_metadata"),
        (codec.to_dict(cases.answer_message()), "answer"),
        (
            {"answer": codec.to_dict(cases.answer_message()), "session": "s"},
            "answer_query_response",
        ),
        (cases.answer_message(), "answer"),
    ],
)
def test_google_shapes_are_named(obj: object, shape: str) -> None:
    assert read(obj, text=None if shape != "grounding_metadata" else cases.joined()).shape == shape


def test_shapes_are_documented() -> None:
    from pathlib import Path

    from grounding_protos._cli.commands import _SHAPE_WORDS
    from grounding_protos._sources.registry import READERS

    assert sorted(SHAPES) == sorted({r.shape for r in READERS}) == sorted(_SHAPE_WORDS)

    doc = (Path(__file__).parent.parent / "docs" / "inputs.md").read_text(encoding="utf-8")
    for shape in SHAPES:
        assert f"`{shape}`" in doc


# --- Property: any JSON value is read to a named shape or refused ----------------------

_KEYS = sorted({
    "candidates", "content", "parts", "text", "finishReason", "groundingMetadata",
    "groundingSupports", "groundingChunks", "segment", "startIndex", "endIndex",
    "groundingChunkIndices", "web", "uri", "title", "citationMetadata", "citations",
    "citationSources", "answer", "answerText", "references", "sources", "referenceId",
    "chunkInfo", "state", "summary", "summaryText", "summaryWithMetadata",
    "summarySkippedReasons", "safetyAttributes", "referenceIndex", "chunkContents",
    "output", "type", "annotations", "start_index", "end_index", "index", "url",
    "choices", "message", "role", "start", "end", "document", "id",
    "generatedResponsePart", "textResponsePart", "span", "retrievedReferences",
    "location", "cited_text", "document_index", "start_char_index", "end_char_index",
    "object", "url_citation", "promptFeedback", "outputs", "reference_ids", "phase",
    "action", "urlContextMetadata",
})  # fmt: skip
_TYPES = st.sampled_from(["message", "text", "output_text", "url_citation", "response",
                          "char_location", "document", "assistant", "chat.completion",
                          "reference", "tool_reference", "message.output"])  # fmt: skip
_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 40), st.floats(), st.text(max_size=6),
              _TYPES),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(_KEYS), inner, max_size=5),
    ),
    max_leaves=30,
)  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(_JSON)
def test_any_json_value_reads_to_a_named_shape_or_is_refused(value: object) -> None:
    """With errors="skip" the only exception ``read`` raises on a JSON value is
    UnsupportedInputError; whatever it reads has a shape of ``SHAPES``."""
    try:
        grounded = read(value, errors="skip")
    except UnsupportedInputError:
        return
    assert isinstance(grounded, Grounded)
    assert grounded.shape in SHAPES


def test_google_genai_blocked_prompt_and_candidate() -> None:
    genai = pytest.importorskip("google.genai.types", reason="google-genai is a test extra")
    blocked = genai.GenerateContentResponse.model_validate(
        {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}}
    )
    grounded = read(blocked)
    assert (grounded.shape, grounded.finish_reason) == ("gemini_response", "PROHIBITED_CONTENT")
    candidate = genai.Candidate.model_validate({"finishReason": "SAFETY"})
    assert read(candidate).finish_reason == "SAFETY"


def test_official_answer_query_response_and_v1beta_answer() -> None:
    de = pytest.importorskip("google.cloud.discoveryengine_v1", reason="official extra")
    beta = pytest.importorskip("google.cloud.discoveryengine_v1beta", reason="official extra")
    answer = cases.answer_message()
    response = de.AnswerQueryResponse(answer=de.Answer.deserialize(answer.SerializeToString()))
    expected = [(c.start, c.end, c.text) for c in read(answer).citations]
    grounded = read(response)
    assert grounded.shape == "answer_query_response"
    assert [(c.start, c.end, c.text) for c in grounded.citations] == expected
    assert read(beta.Answer.deserialize(answer.SerializeToString())).shape == "answer"
    with pytest.raises(UnsupportedInputError, match="SearchResponse message"):
        read(de.SearchResponse(total_size=3))  # no summary: nothing to read


def _paths(value: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every path to a value inside ``value`` (dict keys and list indices)."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, (*prefix, index))
    return out


def _replaced(document: Any, path: tuple[object, ...], new: object) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(document, dict):
        return {k: (_replaced(v, rest, new) if k == head else v) for k, v in document.items()}
    return [(_replaced(v, rest, new) if i == head else v) for i, v in enumerate(document)]


def _fixtures() -> list[Any]:
    from tests import google_cases as gc
    from tests import openai_streams as oa
    from tests import vendor_cases as vc
    from tests import wild_cases as wc
    from tests.test_google_search import search_response

    return [
        cases.gemini_response_json(), codec.to_dict(cases.answer_message()), search_response(),
        vc.openai_response(), vc.openai_chat_completion(), vc.anthropic_message(),
        vc.cohere_chat(), vc.bedrock_response(), vc.bedrock_converse(),
        gc.gemini_chunks_response(), gc.aqa_response(), gc.interaction(), gc.assist_answer(),
        gc.check_grounding_response(), gc.grounded_generation_response(), gc.live_turn()[-4],
        oa.thread_message(), oa.responses_final(), oa.chat_final(), oa.perplexity_final(),
        wc.mistral_chat(wc.mistral_chunks()[0]), wc.conversation(wc.conversation_chunks()[0]),
        wc.responses_with_search(), wc.gemini_url_context(),
    ]  # fmt: skip


_FIXTURES = _fixtures()


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_any_damage_to_a_real_shape_reads_or_is_refused(data: st.DataObject) -> None:
    """A supported response with one value anywhere replaced by any JSON value: with
    errors="skip", ``read`` returns a Grounded of a named shape or raises
    UnsupportedInputError, nothing else."""
    document = data.draw(st.sampled_from(_FIXTURES))
    path = data.draw(st.sampled_from(_paths(document)))
    damaged = _replaced(document, path, data.draw(_JSON))
    try:
        grounded = read(damaged, errors="skip")
    except UnsupportedInputError:
        return
    assert grounded.shape in SHAPES


@settings(max_examples=400, deadline=None)
@given(st.one_of(_JSON, st.sampled_from(_FIXTURES)))
def test_the_key_prefilter_never_hides_a_match(value: object) -> None:
    """A reader whose ``matches`` accepts a dict always has one of its ``keys`` there,
    so skipping readers by keys changes nothing."""
    from grounding_protos._sources.registry import READERS

    if not isinstance(value, dict):
        return
    for reader in READERS:
        if reader.matches(value):
            assert not reader.keys.isdisjoint(value), reader.shape
