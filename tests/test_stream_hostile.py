"""Vendor streams with a field of the wrong JSON type, nested too deep, or repeated:
every merger gives the merged answer, a typed error naming the event and the field, or
a recorded problem; never another exception, never a silent guess (issue #31).

The streams are real-shaped (``tests/hostile_streams.py``); the wrong values are those
of ``fuzz/wrong_types.py``, which ``fuzz/fuzz_streams.py`` puts into the same streams
under libFuzzer.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import io
import itertools
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from grounding_protos import CitationError, GroundingProtosError, StreamError
from grounding_protos.citations import Grounded, StreamReader, read, read_stream
from grounding_protos.cli import main
from tests import google_cases as gc
from tests import openai_streams as oa
from tests import stream_vendor_cases as sv
from tests.hostile_streams import STREAMS

FUZZ = Path(__file__).resolve().parent.parent / "fuzz"


def _fuzz_module(name: str) -> Any:
    """``fuzz/<name>.py``, imported as the harnesses import it."""
    sys.path.insert(0, str(FUZZ))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(FUZZ))


WT = _fuzz_module("wrong_types")
_BUILT: dict[str, list[Any]] = {}


def _stream(name: str) -> list[Any]:
    if name not in _BUILT:
        _BUILT[name] = STREAMS[name]()
    return _BUILT[name]


# --- The property, over every merger -------------------------------------------------------


def test_every_merger_has_a_real_shaped_stream() -> None:
    assert sorted(STREAMS) == sorted([
        "gemini", "answer", "assist", "grounded_generation", "live", "interactions",
        "responses", "chat", "assistants", "anthropic", "cohere", "bedrock", "langchain",
        "litellm", "pydantic_ai", "adk", "nova", "retrieve_and_generate", "invoke_agent",
        "mistral_chat", "mistral_conversation", "perplexity", "azure",
    ])  # fmt: skip
    for name in STREAMS:
        grounded = read_stream(_stream(name))
        assert grounded.citations, name  # the unmutated stream is read, with its citations


INCREMENTAL = frozenset({"gemini", "grounded_generation", "responses", "chat", "assistants",
                         "anthropic", "cohere", "bedrock", "nova", "retrieve_and_generate",
                         "invoke_agent", "mistral_chat", "mistral_conversation", "perplexity",
                         "azure"})  # fmt: skip
"""The streams ``StreamReader`` reads event by event."""


@pytest.mark.parametrize("name", sorted(STREAMS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    event=st.integers(0, 1000),
    position=st.integers(0, 10_000),
    kind=st.sampled_from(WT.KINDS),
)
def test_any_value_of_the_wrong_json_type_gives_the_answer_or_a_typed_error(
    name: str, event: int, position: int, kind: str
) -> None:
    events, what = WT.mutated(_stream(name), event, position, kind)
    try:
        grounded = read_stream(events)
    except GroundingProtosError as exc:
        assert len(str(exc)) < 2_000, what  # a quoted value is cut
    else:
        assert isinstance(grounded, Grounded), what
    if name in INCREMENTAL:  # the same events one at a time, as the live view reads them
        reader = StreamReader()
        try:
            for item in events:
                reader.feed(item)
            reader.finish()
        except GroundingProtosError as exc:
            assert len(str(exc)) < 2_000, what


# --- 1. Anthropic --------------------------------------------------------------------------


def _anthropic() -> list[dict[str, Any]]:
    return sv.anthropic_events(sv.anthropic_final())


def _first(events: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> int:
    return next(i for i, e in enumerate(events) if test(e))


def _delta(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda e: isinstance(e.get("delta"), dict) and e["delta"].get("type") == kind


def test_anthropic_tool_input_nested_100k_deep_is_kept_as_text_with_a_problem() -> None:
    events = _anthropic()
    at = _first(events, _delta("input_json_delta"))
    deep = "[" * 100_000 + "]" * 100_000
    events[at]["delta"]["partial_json"] = deep
    grounded = read_stream(events)  # the tool input is not read for citations
    codes = [p.code for p in grounded.problems]
    assert codes == ["stream-tool-input"]
    assert "nests deeper than 200 levels" in grounded.problems[0].message
    from grounding_protos._sources.anthropic.merger import merge_numbered

    merged: Any = merge_numbered(enumerate(events, 1))[0]
    merged_input = merged["content"][events[at]["index"]]["input"]
    assert isinstance(merged_input, str) and deep in merged_input


@pytest.mark.parametrize("value", [{"city": "서울"}, 5, ["x"], True])
def test_anthropic_partial_json_that_is_no_string_names_the_event(value: object) -> None:
    events = _anthropic()
    at = _first(events, _delta("input_json_delta"))
    events[at]["delta"]["partial_json"] = value
    with pytest.raises(StreamError, match=r"delta\.partial_json is an? \w+") as info:
        read_stream(events)
    assert info.value.event == at + 1


def test_anthropic_message_content_that_is_a_string_names_the_field() -> None:
    events = _anthropic()
    events[0]["message"]["content"] = "Grüße"
    with pytest.raises(StreamError, match=r"message\.content is a string") as info:
        read_stream(events)
    assert info.value.event == 1


# --- 8. Anthropic: a citation that is a string ---------------------------------------------


def test_anthropic_citation_that_is_a_string_is_an_error_not_an_empty_source() -> None:
    events = _anthropic()
    at = _first(events, _delta("citations_delta"))
    events[at]["delta"]["citation"] = "x"
    with pytest.raises(StreamError, match=r"delta\.citation is a string \('x'\), not an object"):
        read_stream(events)


# --- 9. A text delta that is a number, then text -------------------------------------------


def _number_then_text(name: str) -> list[dict[str, Any]]:
    """The vendor's stream with a text delta 5 followed by a delta 'ok' (same block)."""
    if name == "anthropic":
        events = _anthropic()
        at = _first(events, _delta("text_delta"))
        bad = copy.deepcopy(events[at])
        bad["delta"]["text"] = 5
    elif name == "cohere":
        events = sv.cohere_events(sv.cohere_final())
        at = _first(events, lambda e: e.get("type") == "content-delta")
        bad = copy.deepcopy(events[at])
        bad["delta"]["message"]["content"]["text"] = 5
    elif name == "bedrock":
        events = sv.bedrock_events(sv.bedrock_final())
        at = _first(events, lambda e: "text" in e.get("contentBlockDelta", {}).get("delta", {}))
        bad = copy.deepcopy(events[at])
        bad["contentBlockDelta"]["delta"]["text"] = 5
    else:
        events = oa.chat_chunks(oa.chat_final())
        at = _first(events, lambda e: bool(e["choices"]) and "content" in e["choices"][0]["delta"])
        bad = copy.deepcopy(events[at])
        bad["choices"][0]["delta"]["content"] = 5
    return [*events[:at], bad, events[at], *events[at + 1 :]]


@pytest.mark.parametrize("name", ["anthropic", "chat", "cohere", "bedrock"])
def test_a_text_delta_that_is_a_number_is_never_dropped_in_silence(name: str) -> None:
    events = _number_then_text(name)
    with pytest.raises(StreamError, match=r"is an integer \(5\), not a string"):
        read_stream(events)


# --- 2. Chat Completions: tool call arguments ----------------------------------------------


def _chat_with_tool(arguments: list[object]) -> list[dict[str, Any]]:
    chunks = oa.chat_chunks(oa.chat_final())
    head = chunks[0]
    calls = [
        {"object": "chat.completion.chunk", "id": head["id"], "choices": [{"index": 0, "delta": {
            "tool_calls": [{"index": 0, "function": {"arguments": piece}}]}}]}
        for piece in arguments
    ]  # fmt: skip
    calls[0]["choices"][0]["delta"]["tool_calls"][0].update(
        id="call_1", type="function", function={"name": "wetter", "arguments": arguments[0]}
    )
    return [chunks[0], *calls, *chunks[1:]]


def test_chat_tool_arguments_are_joined_as_text() -> None:
    from grounding_protos._sources.openai.chat_stream import merge_chat

    merged, _ = merge_chat(enumerate(_chat_with_tool(['{"ort": ', '"Köln 🌉"}']), 1))
    call = merged["choices"][0]["message"]["tool_calls"][0]  # type: ignore[index]
    assert json.loads(call["function"]["arguments"]) == {"ort": "Köln 🌉"}


def test_chat_tool_arguments_that_are_a_number_name_the_event() -> None:
    with pytest.raises(StreamError, match=r"function\.arguments is an integer \(5\)") as info:
        read_stream(_chat_with_tool([5, '{"ort": "Köln"}']))
    assert info.value.event == 2


# --- 3, 10. Responses ----------------------------------------------------------------------


def _responses() -> list[dict[str, Any]]:
    return oa.responses_events(oa.responses_final())


def _kind(name: str) -> Callable[[dict[str, Any]], bool]:
    return lambda e: e.get("type") == name


def test_responses_function_call_arguments_of_the_wrong_type_name_the_event() -> None:
    events = _responses()
    at = _first(events, _kind("response.output_item.added"))
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "wetter",
            "arguments": 5}  # fmt: skip
    added = {"type": "response.output_item.added", "output_index": 9, "item": call}
    delta = {"type": "response.function_call_arguments.delta", "output_index": 9,
             "delta": '{"ort": "東京"}'}  # fmt: skip
    with pytest.raises(StreamError, match=r"item\.arguments is an integer") as info:
        read_stream([*events[: at + 1], added, delta, *events[at + 1 :]])
    assert info.value.event == at + 2
    call["arguments"] = ""
    bad = {**delta, "delta": 5}
    with pytest.raises(StreamError, match=r"delta is an integer \(5\)") as info:
        read_stream([*events[: at + 1], added, bad, *events[at + 1 :]])
    assert info.value.event == at + 3


def test_responses_message_content_that_is_a_string_names_the_field() -> None:
    events = _responses()
    at = _first(events, _kind("response.output_item.added"))
    events[at]["item"]["content"] = "Grüße"
    with pytest.raises(StreamError, match=r"item\.content is a string") as info:
        read_stream(events)
    assert info.value.event == at + 1


def test_responses_refusal_delta_that_is_a_number_names_the_event() -> None:
    events = _responses()
    at = _first(events, _kind("response.output_text.delta"))
    refusal = {"type": "response.refusal.delta", "output_index": 0, "content_index": 0,
               "delta": 5}  # fmt: skip
    with pytest.raises(StreamError, match=r"delta is an integer \(5\)") as info:
        read_stream([*events[:at], refusal, *events[at:]])
    assert info.value.event == at + 1


def test_responses_a_repeated_annotation_index_keeps_both_with_a_problem() -> None:
    events = oa.deltas_only(_responses())  # no .done events or response.completed
    at = _first(events, _kind("response.output_text.annotation.added"))
    first = events[at]
    other = copy.deepcopy(first)
    other["annotation"] = {**first["annotation"], "url": "https://zweite.example",
                           "title": "Zweite Quelle 🌍"}  # fmt: skip
    same = copy.deepcopy(first)  # the same annotation again: a repeat, no problem
    grounded = read_stream([*events[: at + 1], same, other, *events[at + 1 :]])
    once = read_stream(events)
    assert len(grounded.citations) == len(once.citations) + 1
    urls = {s.uri for c in grounded.citations for s in c.sources}
    assert "https://zweite.example" in urls
    repeated = [p for p in grounded.problems if p.code == "stream-repeated-index"]
    assert len(repeated) == 1 and f"event {at + 3}" in repeated[0].message


# --- 4. Assistants -------------------------------------------------------------------------


def test_assistants_delta_text_that_is_a_string_names_the_field() -> None:
    events = oa.run_events(oa.thread_message())
    at = _first(events, lambda e: e.get("event") == "thread.message.delta")
    events[at]["data"]["delta"]["content"][0]["text"] = "Grüße"
    with pytest.raises(StreamError, match=r"delta\.content\[0\]\.text is a string") as info:
        read_stream(events)
    assert info.value.event == at + 1


# --- 5. Bedrock ----------------------------------------------------------------------------


def _bedrock_tool_input() -> tuple[list[dict[str, Any]], int]:
    events = sv.bedrock_events(sv.bedrock_final())
    at = _first(events, lambda e: "toolUse" in e.get("contentBlockDelta", {}).get("delta", {}))
    return events, at


def test_bedrock_tool_input_that_is_a_number_names_the_event() -> None:
    events, at = _bedrock_tool_input()
    events[at]["contentBlockDelta"]["delta"]["toolUse"]["input"] = 5
    with pytest.raises(StreamError, match=r"toolUse\.input is an integer \(5\)") as info:
        read_stream(events)
    assert info.value.event == at + 1


def test_bedrock_tool_input_nested_50k_deep_is_kept_as_text_with_a_problem() -> None:
    events, at = _bedrock_tool_input()
    events[at]["contentBlockDelta"]["delta"]["toolUse"]["input"] = "[" * 50_000 + "]" * 50_000
    grounded = read_stream(events)
    assert [p.code for p in grounded.problems] == ["stream-tool-input"]
    assert len(grounded.citations) == 2


# --- 6, 11, 16. Interactions ---------------------------------------------------------------


def _interaction() -> list[dict[str, Any]]:
    return gc.interaction_events()


def _text_delta(e: dict[str, Any]) -> bool:
    return e.get("event_type") == "step.delta" and e["delta"].get("type") == "text"


def test_interactions_text_delta_that_is_a_number_names_the_event() -> None:
    events = _interaction()
    at = _first(events, _text_delta)
    events[at]["delta"]["text"] = 5
    with pytest.raises(StreamError, match=r"delta\.text is an integer \(5\)") as info:
        read_stream(events)
    assert info.value.event == at + 1


def test_interactions_a_second_start_of_a_step_keeps_its_text_with_a_problem() -> None:
    events = _interaction()
    at = _first(events, lambda e: e.get("event_type") == "step.stop")
    index = events[at]["index"]
    start = next(e for e in events if e.get("event_type") == "step.start" and e["index"] == index)
    once = read_stream(events)
    twice = read_stream([*events[:at], copy.deepcopy(start), *events[at:]])
    assert twice.text == once.text
    assert [c.text for c in twice.citations] == [c.text for c in once.citations]
    assert [p.code for p in twice.problems] == ["stream-repeated-step"]


# --- 7. The command line on corrupted vendor streams ---------------------------------------


def _corrupted() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    events, at = _bedrock_tool_input()
    events[at]["contentBlockDelta"]["delta"]["toolUse"]["input"] = "[" * 50_000 + "]" * 50_000
    yield "bedrock-deep-tool-input", events
    events = _anthropic()
    events[_first(events, _delta("input_json_delta"))]["delta"]["partial_json"] = (
        "[" * 100_000 + "]" * 100_000
    )
    yield "anthropic-deep-tool-input", events
    events = _interaction()
    events[_first(events, _text_delta)]["delta"]["text"] = 5
    yield "interactions-int-text", events
    events = _responses()
    at = _first(events, _kind("response.output_text.delta"))
    refusal = {"type": "response.refusal.delta", "output_index": 0, "content_index": 0,
               "delta": 5}  # fmt: skip
    yield "responses-int-refusal", [*events[:at], refusal, *events[at:]]


CORRUPTED = dict(_corrupted())


COMMANDS = {"render": ["render"], "html": ["render", "--style", "html"],
            "validate": ["validate"], "inspect": ["inspect"]}  # fmt: skip


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("case", sorted(CORRUPTED))
def test_the_cli_on_corrupted_vendor_streams_says_what_is_wrong(
    case: str, command: str, tmp_path: Path
) -> None:
    path = tmp_path / "stream.json"
    path.write_text(json.dumps(CORRUPTED[case]), encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main([*COMMANDS[command], str(path)])
    assert code in (0, 1, 2)
    assert "internal error" not in err.getvalue() and "Traceback" not in err.getvalue()
    if case.endswith(("int-text", "int-refusal")):
        assert code != 0 and "is an integer (5), not a string" in err.getvalue()


# --- 12. Deltas or the whole so far --------------------------------------------------------


def _answer_parts(texts: list[str]) -> list[dict[str, Any]]:
    last = len(texts) - 1
    return [{"answer": {"state": "SUCCEEDED" if k == last else "STREAMING", "answerText": t}}
            for k, t in enumerate(texts)]  # fmt: skip


def _assist_parts(texts: list[str]) -> list[dict[str, Any]]:
    last = len(texts) - 1
    return [{"answer": {"state": "SUCCEEDED" if k == last else "IN_PROGRESS", "replies": [
                {"groundedContent": {"content": {"text": t}}}]}}
            for k, t in enumerate(texts)]  # fmt: skip


@pytest.mark.parametrize("build", [_answer_parts, _assist_parts], ids=["answer", "assist"])
def test_a_repetitive_answer_is_read_as_deltas(build: Callable[..., Any]) -> None:
    for texts in (["Ja. "] * 3, ["Ja. "] * 2, ["はい。", "はい。", "はい。"]):
        grounded = read_stream(build(texts))
        assert grounded.text == "".join(texts)
        assert "stream-cumulative" not in [p.code for p in grounded.problems]


def test_cumulative_texts_are_taken_so_with_a_problem() -> None:
    texts = ["Köln 🌉 ", "Köln 🌉 liegt am Rhein. ", "Köln 🌉 liegt am Rhein. 東京も。"]
    grounded = read_stream(_answer_parts(texts))
    assert grounded.text == texts[-1]
    assert [p.code for p in grounded.problems] == ["stream-cumulative"]


def test_cumulative_replies_are_taken_so_with_a_problem() -> None:
    texts = ["Köln 🌉 ", "liegt am Rhein. ", "東京も。"]
    replies = [{"groundedContent": {"content": {"text": t}}} for t in texts]
    responses = [{"answer": {"state": "IN_PROGRESS", "replies": replies[: k + 1]}}
                 for k in range(len(texts))]  # fmt: skip
    responses[-1]["answer"]["state"] = "SUCCEEDED"
    grounded = read_stream(responses)
    assert grounded.text == "".join(texts)
    assert [p.code for p in grounded.problems] == ["stream-cumulative"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(st.sampled_from("Ja. はい🌉"), max_size=6), min_size=1, max_size=5))
def test_the_cumulative_rule_against_its_statement(texts: list[str]) -> None:
    """Cumulative exactly when each non-empty part after the first extends the one
    before it (starts with it) and one of them is longer; then the text is the last."""
    assume(any(texts))
    given = [t for t in texts if t]
    grew = any(len(b) > len(a) for a, b in itertools.pairwise(given))
    extends = all(b.startswith(a) for a, b in itertools.pairwise(given))
    grounded = read_stream(_answer_parts(texts))
    taken = "stream-cumulative" in [p.code for p in grounded.problems]
    assert taken == (len(given) > 1 and extends and grew)
    assert grounded.text == (given[-1] if taken else "".join(texts))


# --- 14. LangChain -------------------------------------------------------------------------


def _chunk(content: object, *, last: bool = False) -> dict[str, Any]:
    chunk: dict[str, Any] = {"type": "AIMessageChunk", "content": content, "response_metadata": {}}
    if last:
        chunk["chunk_position"] = "last"
    return chunk


def test_langchain_a_block_text_that_is_a_number_names_the_event() -> None:
    chunks = [_chunk([{"type": "text", "text": 5, "index": 0}]),
              _chunk([{"type": "text", "text": "b", "index": 0}], last=True)]  # fmt: skip
    with pytest.raises(StreamError, match=r"content\[0\]\.text is an integer") as info:
        read_stream(chunks)
    assert info.value.event == 1


def test_langchain_blocks_of_one_index_merge_and_mismatched_types_raise() -> None:
    chunks = [_chunk([{"type": "text", "text": "Grüße ", "index": 0, "extras": {"n": 1}}]),
              _chunk([{"type": "text", "text": "aus Köln 🌉", "index": 0, "extras": {"n": 2}}]),
              _chunk("", last=True)]  # fmt: skip
    from grounding_protos._sources.frameworks.langchain.merger import merge_chunks

    merged, problems = merge_chunks(enumerate(chunks, 1))
    assert merged["content"] == [{"type": "text", "text": "Grüße aus Köln 🌉", "index": 0,
                                  "extras": {"n": 3}}]  # fmt: skip
    assert problems == []
    chunks[1]["content"][0]["extras"] = ["n"]
    with pytest.raises(StreamError, match=r"content\[0\]\.extras is a list") as info:
        merge_chunks(enumerate(chunks, 1))
    assert info.value.event == 2


ANSWER = "Grüße aus Köln 🌉! Der Dom ist 157 m hoch. 東京は日本の首都です。"


def _standard(start: int, end: int, cited: str) -> dict[str, Any]:
    return {"type": "ai", "response_metadata": {}, "content": [{
        "type": "text", "text": ANSWER, "annotations": [{
            "type": "citation", "url": "https://dom.example", "title": "Kölner Dom",
            "start_index": start, "end_index": end, "cited_text": cited}]}]}  # fmt: skip


def test_langchain_cited_text_is_the_sources_excerpt_not_the_answers_text() -> None:
    span = "Der Dom ist 157 m hoch."
    start = ANSWER.index(span)
    excerpt = "Der Kölner Dom ist mit 157 Metern die zweithöchste Kirche Deutschlands."
    grounded = read(_standard(start, start + len(span), excerpt))
    assert [(c.text, c.char_start) for c in grounded.citations] == [(span, start)]
    assert grounded.citations[0].sources[0].text == excerpt
    # an excerpt that also occurs elsewhere in the answer does not move the span
    grounded = read(_standard(start, start + len(span), "Köln"))
    assert [(c.text, c.char_start) for c in grounded.citations] == [(span, start)]
    assert grounded.problems == []


# --- 15. pydantic-ai ------------------------------------------------------------------------------


def _pydantic_ai(anchor: object) -> dict[str, Any]:
    citation: dict[str, Any] = {"sources": [{"kind": "web", "url": "https://k.example",
                                             "title": "Köln 🌉"}]}  # fmt: skip
    if anchor is not None:
        citation["anchor"] = anchor
    return {"kind": "response", "parts": [{"part_kind": "text", "content": ANSWER,
                                           "citations": [citation]}]}  # fmt: skip


def test_pydantic_ai_a_citation_without_an_anchor_declares_its_source_once() -> None:
    grounded = read(_pydantic_ai(None))
    assert grounded.citations == []
    assert [s.uri for s in grounded.declared_sources] == ["https://k.example"]


def test_pydantic_ai_an_anchor_that_is_a_string_is_reported_not_an_empty_span() -> None:
    with pytest.raises(CitationError, match=r"anchor\.start: expected an integer, got 'x'"):
        read(_pydantic_ai("x"))
    grounded = read(_pydantic_ai("x"), errors="skip")
    assert grounded.citations == [] or all(c.char_end for c in grounded.citations)


# --- The fuzz harness over the mergers (fuzz/fuzz_streams.py) -------------------------------------


def _harness_seeds() -> list[bytes]:
    harness = _fuzz_module("streams")
    seeds: list[bytes] = harness.seeds({name: _stream(name) for name in STREAMS})
    return seeds


def test_the_stream_harness_keeps_its_contract_on_its_seeds() -> None:
    harness = _fuzz_module("streams")
    seeds = _harness_seeds()
    assert len(seeds) > 100 and {s[0] for s in seeds} == set(range(8))
    for seed in seeds:
        harness.one_input(seed)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_stream_harness_keeps_its_contract_on_damaged_seeds(data: st.DataObject) -> None:
    """What ``fuzz_streams.py`` checks, on seeds with a few bytes changed."""
    harness = _fuzz_module("streams")
    seed = bytearray(data.draw(st.sampled_from(_harness_seeds())))
    for _ in range(data.draw(st.integers(0, 3))):
        at = data.draw(st.integers(0, len(seed) - 1))
        if data.draw(st.booleans()):
            seed[at] = data.draw(st.integers(0, 255))
        else:
            del seed[at:]
            break
    harness.one_input(bytes(seed))


def test_every_harness_runs_in_ci() -> None:
    """``fuzz/run.py`` (which CI runs) runs every ``fuzz/fuzz_*.py``, this one included."""
    run = _fuzz_module("run")
    harnesses = sorted(p.stem.removeprefix("fuzz_") for p in FUZZ.glob("fuzz_*.py"))
    assert "streams" in harnesses and sorted(run.HARNESSES) == harnesses
