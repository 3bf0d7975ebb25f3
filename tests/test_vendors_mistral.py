"""Mistral (issue 32): chat completions whose content is a list of text and reference
chunks, Conversations responses with tool_reference chunks, and their streams. The
oracle of every span is computed while the fixture is built (``tests/wild_cases.py``);
the offsets are checked again by slicing and re-encoding here."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import GroundingProtosError, StreamError, UnsupportedInputError, validate
from grounding_protos.citations import Grounded, StreamReader, read, read_stream
from tests import wild_cases as cases


def spans(grounded: Grounded, key: str = "id") -> list[tuple[str, int, int, list[Any]]]:
    """Each citation as (text, char start, char end, the sources' ``key``), its text
    checked against a slice of the answer and its UTF-8 offsets against the prefix."""
    assert grounded.text is not None
    out = []
    for c in grounded.citations:
        assert c.char_start is not None and c.char_end is not None
        cited = grounded.text[c.char_start : c.char_end]
        assert c.text == cited
        prefix = len(grounded.text[: c.char_start].encode("utf-8"))
        assert (c.start, c.end) == (prefix, prefix + len(cited.encode("utf-8")))
        out.append((cited, c.char_start, c.char_end, [getattr(s, key) for s in c.sources]))
    return out


# --- Chat completions ------------------------------------------------------------------------


@pytest.mark.parametrize("cuts", [(), (5,), (1, 3, 9, 20)])
def test_a_reference_cites_the_text_chunks_since_the_previous_one(cuts: tuple[int, ...]) -> None:
    chunks, text, expected = cases.mistral_chunks(cuts=cuts)
    grounded = read(cases.mistral_chat(chunks))
    assert grounded.shape == "mistral_chat_completion" and grounded.problems == []
    assert grounded.text == text and grounded.finish_reason == "stop"
    assert spans(grounded) == expected
    assert all(c.kind == "citation" for c in grounded.citations)
    assert [s.kind for s in grounded.sources] == ["document"] * 3  # bare ids


def test_a_reference_with_no_text_before_it_is_a_source_of_the_whole_answer() -> None:
    content = [
        {"type": "reference", "reference_ids": [4]},
        {"type": "text", "text": "Köln 🌉 liegt am Rhein"},
        {"type": "reference", "reference_ids": [0]},
        {"type": "text", "text": ". "},
        {"type": "reference", "reference_ids": [5]},
    ]
    grounded = read(cases.mistral_chat(content))
    cited = "Köln 🌉 liegt am Rhein"
    assert spans(grounded) == [(cited, 0, len(cited), ["0"])]
    assert [s.id for s in grounded.declared_sources] == ["4", "0", "5"]
    assert {s.id for s in grounded.uncited_sources} == {"4", "5"}


def test_thinking_and_other_chunks_are_not_answer_text() -> None:
    content = [
        {"type": "thinking", "thinking": [{"type": "text", "text": "Erst nachdenken…"}]},
        {"type": "text", "text": "東京 🗼 ist groß"},
        {"type": "image_url", "image_url": "https://i.example/x.png"},
        {"type": "reference", "reference_ids": [3]},
    ]
    grounded = read(cases.mistral_chat(content))
    assert grounded.text == "東京 🗼 ist groß"
    assert spans(grounded) == [("東京 🗼 ist groß", 0, len("東京 🗼 ist groß"), ["3"])]


def test_a_string_content_beside_listed_ones_is_plain_text_and_unit_does_not_apply() -> None:
    data = cases.mistral_chat(cases.mistral_chunks()[0])
    plain = {"role": "assistant", "content": "Nur Text 😀"}
    data["choices"].append({"index": 1, "finish_reason": "stop", "message": plain})
    assert read(data, candidate=1).text == "Nur Text 😀"
    with pytest.raises(GroundingProtosError, match="does not apply"):
        read(data, unit="utf16")


ALPHABET = "aöß東京القاهرة😀👋🏽 Ωж-"  # noqa: RUF001 - Arabic letters


@settings(max_examples=60, deadline=None)
@given(
    claims=st.lists(
        st.tuples(
            st.text(st.sampled_from(list(ALPHABET)), min_size=1, max_size=12)
            .map(str.strip).filter(lambda s: bool(s) and s[0] not in "-"),
            st.lists(st.integers(0, 6), max_size=3),
        ),
        min_size=1, max_size=6,
    ),
    cuts=st.lists(st.integers(1, 15), max_size=3),
)  # fmt: skip
def test_any_claims_and_references_read_as_built(
    claims: list[tuple[str, list[int]]], cuts: list[int]
) -> None:
    """Property: whatever the claims, their scripts and how the text is cut into chunks,
    each reference run cites exactly the claims since the previous one."""
    chunks, text, expected = cases.mistral_chunks(claims, cuts=cuts)
    grounded = read(cases.mistral_chat(chunks))
    assert grounded.text == text and grounded.problems == []
    assert spans(grounded) == expected


# --- The chat's messages: reference ids name the tool result's entries ----------------------


def test_in_the_chat_history_an_id_names_the_tool_results_entry() -> None:
    chunks, text, expected = cases.mistral_chunks()
    grounded = read(cases.chat_history(chunks, json.dumps(cases.REFERENCES)))
    assert grounded.shape == "mistral_chat_history" and grounded.problems == []
    assert grounded.text == text and spans(grounded) == expected
    by_id = {s.id: s for s in grounded.declared_sources}
    dom = by_id["0"]
    assert (dom.uri, dom.title, dom.kind, dom.text, dom.publication_date, dom.custom_metadata) == (
        "https://de.k.example/wiki/Dom", "Kölner Dom", "web",
        "Der Dom ist 157 m hoch.\nBaubeginn 1248.", "2024-11-26T17:39:55.057454",
        (("source", "wikipedia"),))  # fmt: skip
    assert by_id["1"].uri == "https://ja.t.example/東京"
    assert (by_id["2"].uri, by_id["2"].kind) == (None, "document")  # named by no result


def test_the_latest_tool_result_names_an_id_and_other_tools_results_name_none() -> None:
    newer = {"1": {"url": "https://neu.example/東京", "title": "Neu"}}
    history = cases.chat_history(cases.mistral_chunks()[0], json.dumps(cases.REFERENCES),
                                 "Sonnig, 21 °C", "[1, 2]", json.dumps(newer))  # fmt: skip
    grounded = read(history)
    assert grounded.problems == []
    assert {s.id: s.uri for s in grounded.declared_sources} == {
        "0": "https://de.k.example/wiki/Dom",
        "1": "https://neu.example/東京",
        "2": None,
    }


@pytest.mark.parametrize(
    ("entry", "path"),
    [("nur Text", "[3].content.0"), ({"url": 5}, "[3].content.0.url"),
     ({"title": ["Dom"]}, "[3].content.0.title"), ({"snippets": "Dom"}, "[3].content.0.snippets"),
     ({"snippets": [["Dom", 7]]}, "[3].content.0.snippets[0][1]"),
     ({"snippets": [{"t": 1}]}, "[3].content.0.snippets[0]")],
)  # fmt: skip
def test_another_json_type_in_a_tool_results_entry_is_a_typed_problem(
    entry: object, path: str
) -> None:
    history = cases.chat_history(cases.mistral_chunks()[0], json.dumps({"0": entry}))
    assert [(p.code, p.path) for p in read(history).problems] == [("wrong-type", path)]
    with pytest.raises(GroundingProtosError, match=re.escape(path)):
        read(history, errors="strict")


@pytest.mark.parametrize(
    "history",
    [[{"role": "assistant", "content": "nur Text"}],
     [{"role": "user", "content": [{"type": "text", "text": "Frage"}]}],
     [{"content": [{"type": "text", "text": "x"}]}],
     [{"role": "assistant", "content": [{"type": "text", "text": "x"}]}, "kein Objekt"],
     [{"role": "assistant", "content": [{"type": "text", "text": "x"}]}, {"role": 7}]],
)  # fmt: skip
def test_lists_that_are_no_chat_history_are_refused(history: list[object]) -> None:
    with pytest.raises(UnsupportedInputError):
        read(history)


# --- Conversations ---------------------------------------------------------------------------


def test_tool_references_cite_the_text_before_them_with_their_urls() -> None:
    chunks, text, expected = cases.conversation_chunks()
    grounded = read(cases.conversation(chunks))
    assert grounded.shape == "mistral_conversation" and grounded.problems == []
    assert grounded.text == text
    assert spans(grounded, "uri") == expected
    first = grounded.citations[0].sources[0]
    assert (first.title, first.kind, first.text, first.custom_metadata) == (
        "Kölner Dom - Wikipedia",
        "web",
        cases.SITES[0]["description"],
        (("tool", "web_search"),),
    )


def test_every_message_output_is_joined_and_a_string_content_is_text() -> None:
    data = cases.conversation([{"type": "text", "text": "Zuerst 🌉 "}])
    data["outputs"].append({"object": "entry", "type": "message.output", "role": "assistant",
                            "content": "dann 東京."})  # fmt: skip
    assert read(data).text == "Zuerst 🌉 dann 東京."


# --- Recognized by structure only they have ----------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        {"choices": [{"message": {"role": "assistant", "content": [1, 2]}}]},
        {"choices": [{"message": {"role": "assistant", "content": [{"text": "no type"}]}}]},
        {"choices": [{"message": {"role": "assistant",
                                  "content": [{"type": "image_url", "image_url": "x"}]}}]},
        {"choices": [{"message": {"role": "user", "content": [{"type": "text", "text": "x"}]}}]},
        {"outputs": [{"type": "tool.execution", "name": "web_search"}]},
        {"object": "list", "outputs": [{"type": "message.output", "content": "x"}]},
        {"outputs": "message.output"},
    ],
)  # fmt: skip
def test_near_misses_are_refused(data: object) -> None:
    with pytest.raises(UnsupportedInputError):
        read(data)


def test_openai_and_perplexity_chat_completions_stay_theirs() -> None:
    plain = cases.mistral_chat("Köln liegt am Rhein.")
    assert read(plain).shape == "openai_chat_completion"
    plain["citations"] = ["https://k.example"]
    assert read(plain).shape == "perplexity_chat_completion"


# --- Hostile inputs: another JSON type in each new field ----------------------------------------

WRONG = [7, 2.5, True, "x", ["x"], {"k": "v"}]


def _hostile() -> list[tuple[str, object, str]]:
    chunks = cases.mistral_chunks()[0]
    tools = cases.conversation_chunks()[0]
    out: list[tuple[str, object, str]] = []
    for bad in WRONG:
        strings = isinstance(bad, str)
        cases_of = [
            ("type", "content[0].type", _set(chunks, 0, "type", bad), not strings),
            ("text", "content[0].text", _set(chunks, 0, "text", bad), not strings),
            ("reference_ids", "content[2].reference_ids", _set(chunks, 2, "reference_ids", bad),
             not isinstance(bad, list)),
            ("reference id", "content[2].reference_ids[1]",
             _set(chunks, 2, "reference_ids", [0, bad]), not isinstance(bad, int) or bad is True),
        ]  # fmt: skip
        for name, path, data, wrong in cases_of:
            if wrong:
                out.append((f"chat {name}={bad!r}", cases.mistral_chat(data), path))
        for name in ("title", "url", "tool", "description"):
            if not strings:
                out.append((f"tool_reference {name}={bad!r}",
                            cases.conversation(_set(tools, 2, name, bad)),
                            f"outputs[1].content[2].{name}"))  # fmt: skip
    out.append(("chunk not an object", cases.mistral_chat([*chunks, 5]),
                f"content[{len(chunks)}]"))  # fmt: skip
    out.append(("conversation content", cases.conversation(5), "outputs[1].content"))
    return out


def _set(chunks: list[dict[str, Any]], k: int, name: str, value: object) -> list[Any]:
    out = copy.deepcopy(chunks)
    out[k][name] = value
    return out


@pytest.mark.parametrize(("name", "data", "path"), _hostile(), ids=[h[0] for h in _hostile()])
def test_another_json_type_is_a_typed_problem_naming_its_path(
    name: str, data: object, path: str
) -> None:
    if path.startswith("content"):
        path = "choices[0].message." + path
    repaired = read(data)
    assert [p.path for p in repaired.problems if p.path == path], (name, repaired.problems)
    with pytest.raises(GroundingProtosError) as info:
        read(data, errors="strict")
    assert path in str(info.value)
    assert any(p.path == path for p in validate(data))


# --- Streams -------------------------------------------------------------------------------------


@pytest.mark.parametrize("listed", [True, False])
def test_a_chat_stream_of_chunk_lists_reads_as_its_final_response(listed: bool) -> None:
    chunks, text, expected = cases.mistral_chunks(cuts=(4, 11))
    final = cases.mistral_chat(chunks)
    events = cases.mistral_chat_events(final, listed=listed)
    for stream in (events, cases.sse_data(events) + "data: [DONE]\n\n"):
        grounded = read_stream(stream)
        assert grounded.shape == "mistral_chat_completion" and grounded.problems == []
        assert grounded.text == text and spans(grounded) == expected == spans(read(final))


def test_the_stream_reader_shows_the_text_of_chunk_lists_as_it_arrives() -> None:
    chunks, text, _ = cases.mistral_chunks()
    reader = StreamReader()
    shown = "".join(reader.feed(event).text for event in cases.mistral_chat_events(
        cases.mistral_chat(chunks)))  # fmt: skip
    assert shown == text


def test_a_conversation_stream_reads_as_its_final_response() -> None:
    chunks, text, expected = cases.conversation_chunks(cuts=(3,))
    final = cases.conversation(chunks)
    events = cases.conversation_events(final)
    for stream in (events, cases.sse_data(events, named=True)):
        grounded = read_stream(stream)
        assert grounded.shape == "mistral_conversation" and grounded.problems == []
        assert grounded.text == text and spans(grounded, "uri") == expected
    assert spans(read_stream(events), "uri") == spans(read(final), "uri")


def test_a_cut_conversation_stream_gives_what_arrived_with_a_problem() -> None:
    final = cases.conversation(cases.conversation_chunks()[0])
    grounded = read_stream(cases.conversation_events(final, done=False))
    assert [p.code for p in grounded.problems] == ["stream-incomplete"]
    assert grounded.citations


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"type": "conversation.response.error", "message": "überlastet", "code": 429},
         "überlastet"),
        ({"type": "message.output.delta", "output_index": 1, "content": 5}, "neither text"),
        ({"type": "message.output.delta", "output_index": 1,
          "content": {"type": "text", "text": ["x"]}}, "content.text"),
        ({"type": "message.output.delta", "output_index": "1", "content": "x"}, "output_index"),
        ({"type": "message.output.delta", "output_index": 0, "content": "x"}, "tool.execution"),
        ({"type": "function.call.delta", "output_index": 3, "arguments": 5}, "arguments"),
        ({"type": "response.output_text.delta", "delta": "x"}, "not an event"),
    ],
)  # fmt: skip
def test_errors_and_wrong_types_in_a_conversation_stream_are_stream_errors(
    event: dict[str, Any], message: str
) -> None:
    events = cases.conversation_events(cases.conversation(cases.conversation_chunks()[0]))
    events.insert(4, event)
    with pytest.raises(StreamError, match=message) as info:
        read_stream(events)
    assert info.value.event == 5


@pytest.mark.parametrize(
    ("content", "message"),
    [([5], r"delta\.content\[0\] is not a JSON object"),
     ([{"type": "text", "text": 5}], r"delta\.content\[0\]\.text is not text")],
)  # fmt: skip
def test_wrong_types_in_a_chat_stream_chunk_list_are_stream_errors(
    content: object, message: str
) -> None:
    events = cases.mistral_chat_events(cases.mistral_chat(cases.mistral_chunks()[0]))
    events[2]["choices"][0]["delta"]["content"] = content
    with pytest.raises(StreamError, match=message) as info:
        read_stream(events)
    assert info.value.event == 3


# --- The mistralai SDK's own objects --------------------------------------------------------


def test_the_sdks_objects_read_as_their_dicts() -> None:
    """``ChatCompletionResponse``, ``ConversationResponse`` and a stream of
    ``CompletionChunk`` s, built by the mistralai SDK (the ``vendors`` extra) from the
    documented shapes, read as the dicts do."""
    models = pytest.importorskip("mistralai.client.models", reason="vendors extra (mistralai)")
    chunks, text, expected = cases.mistral_chunks()
    final = cases.mistral_chat(chunks)
    sdk = models.ChatCompletionResponse.model_validate(final)
    assert type(sdk.choices[0].message.content[1]).__name__ in ("TextChunk", "ReferenceChunk")
    grounded = read(sdk)
    assert grounded == read(final) and grounded.text == text
    assert [(c.text, c.char_start) for c in grounded.citations] == [
        (t, a) for t, a, _, _ in expected
    ]
    events = cases.mistral_chat_events(final)
    streamed = read_stream([models.CompletionChunk.model_validate(e) for e in events])
    assert streamed == read_stream(events) and streamed.text == text
    conversation_chunks, _, urls = cases.conversation_chunks()
    conversation = cases.conversation(conversation_chunks)
    sdk_conversation = models.ConversationResponse.model_validate(conversation)
    grounded = read(sdk_conversation)
    assert grounded == read(conversation)
    assert [[s.uri for s in c.sources] for c in grounded.citations] == [u for *_, u in urls]
