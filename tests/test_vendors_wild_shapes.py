"""Citation shapes of issue 32 beside Mistral's: Perplexity's closing
``chat.completion.done`` event, an OpenAI Responses ``web_search_call``'s queries and
sources, DeepSeek's commentary message, Gemini's URL context tool alone. Fixtures in
``tests/wild_cases.py`` (recorded shapes or documented ones, as each says)."""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

import pytest

from grounding_protos import GroundingProtosError, StreamError, validate
from grounding_protos.citations import Grounded, StreamReader, read, read_stream
from tests import openai_streams as openai
from tests import wild_cases as cases


def cited(grounded: Grounded) -> list[tuple[str, list[str | None]]]:
    """Each citation's text (checked against a slice of the answer) and its sources' URIs."""
    assert grounded.text is not None
    out = []
    for c in grounded.citations:
        assert c.char_start is not None and c.char_end is not None
        assert c.text == grounded.text[c.char_start : c.char_end]
        out.append((c.text, [s.uri for s in c.sources]))
    return out


# --- Perplexity: the stream's closing event -----------------------------------------------------


def test_perplexity_streams_end_with_the_whole_response_which_is_kept() -> None:
    events = cases.perplexity_events()
    for stream in (events, cases.sse_data(events)):
        grounded = read_stream(stream)
        assert grounded.shape == "perplexity_chat_completion" and grounded.problems == []
        assert grounded.text == cases.PERPLEXITY_TEXT and grounded.finish_reason == "stop"
        assert cited(grounded) == [
            ("🌉 Grüße aus Köln: Köln liegt am Rhein", ["https://k.example"]),
            ("東京は首都です。", ["https://t.example"]),
            ("مرحبا 😀", ["https://k.example", "https://t.example"]),
        ]
        # search_results came only in the closing event: kept on the merged response
        first = grounded.citations[0].sources[0]
        assert (first.title, first.publication_date) == ("Köln - Stadt am Rhein", "2024-05-01")
    final = {k: v for k, v in events[-1].items() if k != "object"}
    final["choices"] = [{k: v for k, v in c.items() if k != "delta"} for c in final["choices"]]
    assert cited(read(final)) == cited(read_stream(events))


def test_a_closing_event_that_disagrees_with_the_deltas_is_a_stream_mismatch() -> None:
    other = cases.PERPLEXITY_TEXT.replace("Rhein", "Rhein und Main")
    grounded = read_stream(cases.perplexity_events(done_text=other))
    assert [(p.code, p.path) for p in grounded.problems] == [
        ("stream-mismatch", "choices[0].message.content")
    ]
    assert grounded.text == other  # the vendor's final version is kept


def test_the_stream_reader_takes_the_closing_event() -> None:
    reader = StreamReader()
    texts = [reader.feed(event).text for event in cases.perplexity_events()]
    assert "".join(texts) == cases.PERPLEXITY_TEXT and texts[-1] == ""
    assert reader.finish().citations == read_stream(cases.perplexity_events()).citations


@pytest.mark.parametrize(
    ("change", "message"),
    [({"message": "x"}, r"choices\[0\]\.message is not a JSON object"),
     ({"message": {"role": "assistant", "content": ["x"]}}, r"message\.content is not text"),
     ({"index": "0"}, r"choices\[0\]\.index")],
)  # fmt: skip
def test_wrong_types_in_the_closing_event_are_stream_errors(
    change: dict[str, Any], message: str
) -> None:
    events = cases.perplexity_events()
    events[-1]["choices"][0].update(change)
    with pytest.raises(StreamError, match=message) as info:
        read_stream(events)
    assert info.value.event == len(events)


# --- OpenAI Responses: web search, commentary -------------------------------------------------


def test_web_search_queries_and_sources_reach_grounded() -> None:
    grounded = read(cases.responses_with_search())
    assert grounded.search.queries == ("Köln Rhein", "東京 首都")
    assert [s.uri for s in grounded.uncited_sources] == ["https://t.example/東京"]
    assert [s.uri for s in grounded.declared_sources] == [
        "https://k.example",
        "https://k.example",
        "https://t.example/東京",
    ]
    assert grounded.problems == []


def test_a_commentary_message_is_not_the_answer() -> None:
    grounded = read(cases.responses_with_search())
    assert grounded.text == cases.ANSWER  # not COMMENTARY glued before it
    assert cited(grounded) == [("([k.example](https://k.example))", ["https://k.example"])]
    assert "https://commentary.example" not in {s.uri for s in grounded.declared_sources}


def test_the_openai_sdks_response_reads_the_same() -> None:
    """openai-python's ``Response`` (its ``ActionSearch`` with ``sources``, a message's
    ``phase``), read by attribute."""
    responses = pytest.importorskip("openai.types.responses")
    data = cases.responses_with_search()
    typed = responses.Response.model_validate(
        {**data, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    )
    grounded, plain = read(typed), read(data)
    assert (grounded.text, grounded.search, grounded.declared_sources, grounded.citations) == (
        plain.text, plain.search, plain.declared_sources, plain.citations)  # fmt: skip


@pytest.mark.parametrize("deltas_only", [False, True])
def test_the_stream_keeps_the_search_action_and_the_phase(deltas_only: bool) -> None:
    final = cases.responses_with_search()
    events = openai.responses_events(final, cuts=(4, 9))
    if deltas_only:
        events = openai.deltas_only(events)
    grounded = read_stream(events)
    assert grounded.text == cases.ANSWER
    assert grounded.search == read(final).search
    assert grounded.declared_sources == read(final).declared_sources
    assert cited(grounded) == cited(read(final))


def test_the_action_of_a_search_item_done_is_kept_without_response_completed() -> None:
    """As streamed: the item added without its ``action`` (the search not run yet), the
    item done with it; a stream cut before ``response.completed`` still has it."""
    final = cases.responses_with_search()
    events = openai.responses_events(final, completed=False)
    for event in events:
        if event["type"] == "response.output_item.added" and event["item"]["id"] == "ws_1":
            del event["item"]["action"]
    grounded = read_stream(events)
    assert [p.code for p in grounded.problems] == ["stream-incomplete"]
    assert grounded.search.queries == ("Köln Rhein", "東京 首都")
    assert grounded.declared_sources == read(final).declared_sources


def _action(**fields: object) -> dict[str, Any]:
    data = cases.responses_with_search()
    data["output"][1]["action"] = {"type": "search", **fields}
    return data


@pytest.mark.parametrize(
    ("data", "path"),
    [(_action(query=7), "output[1].action.query"),
     (_action(query=["Köln"]), "output[1].action.query"),
     (_action(queries="Köln"), "output[1].action.queries"),
     (_action(queries=["Köln", 5]), "output[1].action.queries[1]"),
     (_action(sources={"url": "https://k.example"}), "output[1].action.sources"),
     (_action(sources=["https://k.example"]), "output[1].action.sources[0]"),
     (_action(sources=[{"type": "url", "url": 5}]), "output[1].action.sources[0].url"),
     (_action(sources=[{"type": "url", "url": None}]), "output[1].action.sources[0].url")],
)  # fmt: skip
def test_another_json_type_in_a_search_action_is_a_typed_problem(data: object, path: str) -> None:
    assert any(p.code == "wrong-type" and p.path == path for p in read(data).problems)
    with pytest.raises(GroundingProtosError, match=path.replace("[", r"\[").replace("]", r"\]")):
        read(data, errors="strict")
    assert any(p.path == path for p in validate(data))


def test_an_action_that_is_no_object_is_a_typed_problem() -> None:
    data = cases.responses_with_search()
    data["output"][1]["action"] = "search"
    assert [(p.code, p.path) for p in read(data).problems] == [("wrong-type", "output[1].action")]


# --- Gemini: the URL context tool alone ---------------------------------------------------------


def test_url_context_alone_declares_the_urls_read_with_their_status() -> None:
    grounded = read(cases.gemini_url_context())
    assert grounded.text == cases.URL_TEXT and grounded.citations == []
    assert [(s.uri, s.kind, s.custom_metadata) for s in grounded.declared_sources] == [
        (url, "web", (("url_retrieval_status", status),)) for url, status in cases.URLS
    ]
    assert [(u.url, u.status) for u in grounded.search.url_statuses] == cases.URLS
    assert grounded.problems == []


def test_url_context_beside_grounding_supports_stays_in_search() -> None:
    grounded = read(cases.gemini_url_context(supports=True))
    assert [s.uri for s in grounded.declared_sources] == [cases.URLS[0][0]]
    assert cited(grounded) == [("Köln 🌉 liegt am Rhein.", [cases.URLS[0][0]])]
    assert grounded.search.queries == ("Köln Rhein",)
    assert len(grounded.search.url_statuses) == 3


def test_url_context_alone_reads_the_same_streamed() -> None:
    final = cases.gemini_url_context()
    text = cases.URL_TEXT
    first = copy.deepcopy(final)
    first["candidates"][0]["content"]["parts"] = [{"text": text[:9]}]
    del first["candidates"][0]["finishReason"]
    second = copy.deepcopy(final)
    second["candidates"][0]["content"]["parts"] = [{"text": text[9:]}]
    del second["candidates"][0]["urlContextMetadata"]
    grounded = read_stream([first, second])
    assert grounded.declared_sources == read(final).declared_sources
    assert grounded.text == text


@pytest.mark.parametrize(
    ("context", "path"),
    [(7, "candidates[0].url_context_metadata"),
     ({"urlMetadata": "https://k.example"}, "candidates[0].url_context_metadata.url_metadata"),
     ({"urlMetadata": ["https://k.example"]},
      "candidates[0].url_context_metadata.url_metadata[0]"),
     ({"urlMetadata": [{"retrievedUrl": 5}]},
      "candidates[0].url_context_metadata.url_metadata[0].retrieved_url")],
)  # fmt: skip
def test_another_json_type_in_url_context_is_a_typed_problem(context: object, path: str) -> None:
    data = cases.gemini_url_context()
    data["candidates"][0]["urlContextMetadata"] = context
    assert [(p.code, p.path) for p in read(data).problems] == [("wrong-type", path)]
    with pytest.raises(GroundingProtosError):
        read(data, errors="strict")


# --- Every field of every new fixture, of another JSON type ------------------------------------

SWEEP_VALUES: list[object] = [None, 7, True, 2.5, "x", ["x"], {"k": 1}]


def _sweep_inputs() -> dict[str, Any]:
    return {
        "mistral chat": cases.mistral_chat(cases.mistral_chunks()[0]),
        "mistral conversation": cases.conversation(cases.conversation_chunks()[0]),
        "mistral chat history": cases.chat_history(
            cases.mistral_chunks()[0], json.dumps(cases.REFERENCES)
        ),
        "responses with a search": cases.responses_with_search(),
        "url context alone": cases.gemini_url_context(),
    }


def _sweep_streams() -> dict[str, list[dict[str, Any]]]:
    return {
        "mistral chat": cases.mistral_chat_events(cases.mistral_chat(cases.mistral_chunks()[0])),
        "mistral conversation": cases.conversation_events(
            cases.conversation(cases.conversation_chunks()[0])),
        "perplexity": cases.perplexity_events(),
    }  # fmt: skip


@pytest.mark.parametrize("name", sorted(_sweep_inputs()))
def test_any_field_of_another_type_reads_or_is_a_typed_error(name: str) -> None:
    """Each value anywhere in the fixture replaced by each of SWEEP_VALUES: ``read`` (each
    span policy) and ``validate`` give a result or a GroundingProtosError, nothing else."""
    from tests.test_sources_registry import _paths, _replaced

    document = _sweep_inputs()[name]
    for path in _paths(document):
        for value in SWEEP_VALUES:
            damaged = _replaced(document, path, value)
            for errors in ("strict", "skip"):
                with contextlib.suppress(GroundingProtosError):
                    read(damaged, errors=errors)
            with contextlib.suppress(GroundingProtosError):
                validate(damaged)


@pytest.mark.parametrize("name", sorted(_sweep_streams()))
def test_any_event_field_of_another_type_merges_or_is_a_typed_error(name: str) -> None:
    from tests.test_sources_registry import _paths, _replaced

    events = _sweep_streams()[name]
    for e, event in enumerate(events):
        for path in _paths(event):
            for value in SWEEP_VALUES:
                damaged = [*events[:e], _replaced(event, path, value), *events[e + 1 :]]
                with contextlib.suppress(GroundingProtosError):
                    read_stream(damaged)
