"""A ``None`` (JSON ``null``) value means the field is absent, wherever ``read``,
``validate`` and the command line meet it.

proto3 JSON allows ``null`` for an absent field (``json_format.ParseDict`` and our
codec take it so), and google-genai's ``model_dump()`` writes ``None`` for every field
that is not set: Gemini's frequent ``"retrievalMetadata": {}`` becomes
``{"google_search_dynamic_retrieval_score": None}``. The oracle is the REST JSON of
the same response: a dump may hold fewer problems (google-genai drops what it does
not know), never one that the REST JSON lacks.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import codec, validate
from grounding_protos.citations import Grounded, StreamReader, read
from grounding_protos.cli import main
from tests import citation_cases as cases
from tests import google_cases, markdown_cases, openai_streams, vendor_cases
from tests.test_sources_registry import BLOCKED
from tests.test_validate_quick import _gemini_with_extras

genai_types = pytest.importorskip("google.genai.types")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _real_shaped() -> dict[str, Any]:
    """A Vertex AI Gemini response with what recorded ones carry beside the grounding:
    an empty ``retrievalMetadata``, safety ratings with scores, log probabilities,
    usage details, URL-context results, a maps chunk and a retrieved context."""
    text = "👩🏽‍💻 Das Café in Köln öffnet um 9. 東京の店は10時に開きます。 Ελλάδα: 08:00."
    parts = [text[:30], text[30:]]
    first = len(text[:12].encode())
    supports = [
        {"segment": {"startIndex": first, "endIndex": len(text[:35].encode()),
                     "text": text[12:35]},
         "groundingChunkIndices": [0, 1], "confidenceScores": [0.9, 0.7]},
        {"segment": {"startIndex": len(text[:36].encode()),
                     "endIndex": len(text[:54].encode()), "text": text[36:54]},
         "groundingChunkIndices": [2]},
    ]  # fmt: skip
    return {
        "candidates": [{
            "content": {"role": "model", "parts": [{"text": p} for p in parts]},
            "finishReason": "STOP",
            "avgLogprobs": -0.31,
            "safetyRatings": [
                {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE",
                 "probabilityScore": 0.02, "severity": "HARM_SEVERITY_NEGLIGIBLE",
                 "severityScore": 0.01},
            ],
            "groundingMetadata": {
                "webSearchQueries": ["Café Köln Öffnungszeiten", "東京 店 営業時間"],
                "retrievalMetadata": {},
                "searchEntryPoint": {"renderedContent": "<div class=\"chip\">Köln</div>"},
                "groundingChunks": [
                    {"web": {"uri": "https://koeln.example/cafe", "title": "koeln.example"}},
                    {"maps": {"uri": "https://maps.example/?cid=1", "title": "Café Köln",
                              "placeId": "places/ChIJ"}},
                    {"retrievedContext": {"uri": "gs://b/tokyo.pdf", "title": "tokyo.pdf",
                                          "text": "10時に開店"}},
                ],
                "groundingSupports": supports,
            },
            "urlContextMetadata": {"urlMetadata": [
                {"retrievedUrl": "https://koeln.example/cafe",
                 "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS"}]},
        }],
        "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 40,
                          "totalTokenCount": 52,
                          "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 12}]},
        "modelVersion": "gemini-2.5-flash",
        "createTime": "2025-06-01T09:30:00.123456Z",
        "responseId": "r-1",
    }  # fmt: skip


def _stream_chunks() -> list[dict[str, Any]]:
    lines = (EXAMPLES / "gemini_stream.sse").read_text(encoding="utf-8").splitlines()
    return [json.loads(line.removeprefix("data: ")) for line in lines if line.startswith("data:")]


def _merged_stream() -> dict[str, Any]:
    reader = StreamReader()
    for chunk in _stream_chunks():
        reader.feed(chunk)
    return reader.merged()


def gemini_fixtures() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every Gemini response the tests and examples hold, and a real-shaped one."""
    yield "citation cases", cases.gemini_response_json()
    yield "citation cases without thought", cases.gemini_response_json(thought=False)
    yield "snake_case", cases.snake(cases.gemini_response_json())
    yield "with safety and citation metadata", _gemini_with_extras()
    yield "markdown answer", markdown_cases.gemini_document()
    for path in sorted(EXAMPLES.glob("gemini_*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "candidates" in data:  # generateContent responses
            yield path.name, data
    yield "real-shaped", _real_shaped()
    yield "merged stream", _merged_stream()
    for number, chunk in enumerate(_stream_chunks(), 1):
        yield f"stream chunk {number}", chunk  # the last one alone: problems in both
    for name, blocked in BLOCKED:
        if "candidates" in blocked or "promptFeedback" in blocked:
            yield name, blocked


FIXTURES = list(gemini_fixtures())


def _dumps(rest: dict[str, Any]) -> Iterator[tuple[str, object]]:
    response = genai_types.GenerateContentResponse.model_validate(rest)
    yield "model_dump()", response.model_dump()
    yield 'model_dump(mode="json")', response.model_dump(mode="json")
    yield "object", response


def _found(problems: list[Any]) -> set[tuple[str, str]]:
    return {(p.code, p.path) for p in problems}


@pytest.mark.parametrize(("name", "rest"), FIXTURES, ids=[n for n, _ in FIXTURES])
def test_google_genai_dumps_have_no_problem_the_rest_json_lacks(
    name: str, rest: dict[str, Any]
) -> None:
    expected = _found(validate(rest))
    for form, dumped in _dumps(rest):
        extra = _found(validate(dumped)) - expected
        assert extra == set(), f"{form} of {name}"


def _read(obj: object) -> Grounded | str:
    try:
        return read(obj)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize(("name", "rest"), FIXTURES, ids=[n for n, _ in FIXTURES])
def test_google_genai_dumps_read_like_the_rest_json(name: str, rest: dict[str, Any]) -> None:
    want = _read(rest)
    for form, dumped in _dumps(rest):
        got = _read(dumped)
        if isinstance(want, str):
            assert isinstance(got, str), f"{form} of {name}: {got}"
            continue
        assert isinstance(got, Grounded), f"{form} of {name}: {got}"
        assert (got.text, got.citations, got.problems) == (
            want.text,
            want.citations,
            want.problems,
        ), form
        assert (got.declared_sources, got.search, got.finish_reason) == (
            want.declared_sources,
            want.search,
            want.finish_reason,
        ), form


def test_an_empty_retrieval_metadata_is_clean_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    response = genai_types.GenerateContentResponse.model_validate(_real_shaped())
    dumped = response.model_dump(mode="json")
    retrieval = dumped["candidates"][0]["grounding_metadata"]["retrieval_metadata"]
    assert retrieval == {"google_search_dynamic_retrieval_score": None}  # what users meet
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(dumped), encoding="utf-8")
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out == ""
    assert main(["render", str(path)]) == 0
    jsonl = tmp_path / "dumps.jsonl"
    jsonl.write_text(json.dumps(dumped) + "\n" + json.dumps(_real_shaped()) + "\n")
    capsys.readouterr()
    assert main(["validate", "--jsonl", str(jsonl)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["problems"] for line in lines] == [[], []]


# --- Any field: null is absent, everywhere -------------------------------------------------

BASES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    (cases.gemini_response_json(), {}),
    (cases.snake(cases.gemini_response_json()), {}),
    (_real_shaped(), {}),
    (codec.to_dict(cases.answer_message()), {}),
    (json.loads((EXAMPLES / "discoveryengine_answer.json").read_text(encoding="utf-8")), {}),
    (json.loads((EXAMPLES / "broken_answer.json").read_text(encoding="utf-8")), {}),
    (cases.grounding_metadata_json(parts_relative=False), {"text": cases.joined()}),
    (json.loads((EXAMPLES / "citation_metadata.json").read_text(encoding="utf-8")), {}),
    (vendor_cases.openai_response(), {}),
    (vendor_cases.anthropic_message(), {}),
    (vendor_cases.cohere_chat(), {}),
    (vendor_cases.bedrock_response(), {}),
    (vendor_cases.bedrock_converse(), {}),
    (openai_streams.thread_message(), {}),
    (openai_streams.chat_final(), {}),
    (openai_streams.perplexity_final(), {}),
    (google_cases.gemini_chunks_response(), {}),
    (google_cases.aqa_response(), {}),
    (google_cases.interaction(), {}),
    (google_cases.assist_answer(), {}),
    (google_cases.check_grounding_response(), {"text": google_cases.TEXT}),
    (google_cases.grounded_generation_response(), {}),
    (google_cases.live_turn()[-4], {}),
]


def _places(node: object, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every dict in a JSON tree."""
    if isinstance(node, dict):
        yield path
        for key, value in node.items():
            yield from _places(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _places(value, (*path, i))


def _at(node: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        node = node[step]
    return node


def _outcome(obj: object, options: dict[str, Any]) -> object:
    try:
        grounded = read(obj, **options)
    except Exception as exc:
        outcome: object = (type(exc).__name__, str(exc))
    else:
        outcome = (grounded.text, grounded.citations, grounded.problems, grounded.search,
                   grounded.declared_sources, grounded.finish_reason)  # fmt: skip
    return outcome, sorted(map(str, validate(obj, **options)))


_SNAKE = re.compile(r"(?<!^)(?=[A-Z])")


def _spellings(key: str) -> set[str]:
    snake = _SNAKE.sub("_", key).lower()
    return {key, snake, re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), snake)}


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_null_field_reads_as_the_field_left_out(data: st.DataObject) -> None:
    base, options = data.draw(st.sampled_from(BASES))
    places = [p for p in _places(base) if _at(base, p)]
    path = data.draw(st.sampled_from(places))
    key = data.draw(st.sampled_from(sorted(_at(base, path))))
    nulled, dropped = copy.deepcopy(base), copy.deepcopy(base)
    _at(nulled, path)[key] = None
    del _at(dropped, path)[key]
    assert _outcome(nulled, options) == _outcome(dropped, options)


# Field names of every shape, in both spellings: what a dump adds as None.
_NAMES = sorted(
    {s for base, _ in BASES for p in _places(base) for k in _at(base, p) for s in _spellings(k)}
)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_absent_fields_written_as_null_change_nothing(data: st.DataObject) -> None:
    base, options = data.draw(st.sampled_from(BASES))
    padded = copy.deepcopy(base)
    for path in data.draw(st.lists(st.sampled_from(list(_places(base))), max_size=6)):
        node = _at(padded, path)
        for name in data.draw(st.lists(st.sampled_from(_NAMES), max_size=8)):
            if not _spellings(name) & set(node):  # absent in either spelling
                node[name] = None
    assert _outcome(padded, options) == _outcome(base, options)
