"""Streams of the OpenAI family (Responses API and xAI, Chat Completions and OpenRouter,
Assistants runs): each merge gives what ``read`` gives on the vendor's final response."""

from __future__ import annotations

import asyncio
import copy
import io
import json
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import StreamError
from grounding_protos.citations import (
    Grounded,
    StreamReader,
    aread_stream,
    read,
    read_stream,
    render,
)
from tests.openai_streams import (
    chat_chunks,
    chat_final,
    deltas_only,
    responses_events,
    responses_final,
    run_events,
    sse,
    thread_message,
)


def same_reading(got: Grounded, want: Grounded) -> None:
    assert got.text == want.text
    assert got.citations == want.citations
    assert got.declared_sources == want.declared_sources
    assert got.shape == want.shape


def codes(grounded: Grounded) -> list[str]:
    return [p.code for p in grounded.problems]


# --- Responses API --------------------------------------------------------------------------


def test_a_responses_stream_reads_as_its_completed_response() -> None:
    final = responses_final()
    want = read(final)
    assert len(want.citations) == 4 and want.problems == []
    got = read_stream(responses_events(final))
    assert got == want  # the completed response, exactly
    same_reading(read_stream(sse(responses_events(final))), want)


def test_the_deltas_alone_give_the_same_citations_and_say_the_stream_is_incomplete() -> None:
    final = responses_final()
    got = read_stream(deltas_only(responses_events(final)))
    same_reading(got, read(final))
    assert codes(got) == ["stream-incomplete"]
    assert got.problems[0].path == "status"


def test_a_positionless_url_citation_is_a_source_of_the_whole_answer(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from grounding_protos.cli import main

    final = responses_final()
    grounded = read(final)
    xai = [s for s in grounded.declared_sources if s.uri == "https://x.example"]
    assert len(xai) == 1
    assert all(s.uri != "https://x.example" for c in grounded.citations for s in c.sources)
    assert all(c.char_end != 0 for c in grounded.citations)  # no empty span at 0
    assert xai[0] in grounded.uncited_sources
    assert "x.example" not in render(grounded.text or "", grounded.citations)
    path = tmp_path / "final.json"
    path.write_text(json.dumps(final, ensure_ascii=False), encoding="utf-8")
    for style in ("markdown", "html"):
        assert main(["render", "--style", style, str(path)]) == 0
        assert "https://x.example" in capsys.readouterr().out


def test_an_interrupted_responses_stream_gives_what_arrived() -> None:
    final = responses_final()
    events = deltas_only(responses_events(final))
    cut = next(i for i, e in enumerate(events) if e["type"] == "response.output_text.delta") + 2
    got = read_stream(events[:cut])
    assert got.text is not None and (INTRO_A := final["output"][1]["content"][0]["text"])
    assert INTRO_A.startswith(got.text) and got.text
    assert codes(got) == ["stream-incomplete"]
    truncated = sse(events)[:-40]  # cut inside the last event's JSON
    got = read_stream(truncated)
    assert codes(got)[0] == "stream-truncated" and "stream-incomplete" in codes(got)


def test_a_completed_response_that_disagrees_with_the_deltas_is_a_problem_and_wins() -> None:
    final = responses_final()
    events = responses_events(final)
    other = copy.deepcopy(final)
    other["output"][1]["content"][0]["text"] = other["output"][1]["content"][0]["text"][:-1] + "!"
    events = [e for e in events if not e["type"].endswith(".done")][:-1]
    events.append({"type": "response.completed", "response": other})
    got = read_stream(events)
    assert got.text == read(other).text
    assert codes(got) == ["stream-mismatch"]
    assert got.problems[0].path == "output[1].content[0].text"
    assert f"event {len(events)}" in got.problems[0].message


@pytest.mark.parametrize(
    ("event", "match"),
    [
        ({"type": "error", "code": "server_error", "message": "overloaded"}, "server_error"),
        ({"type": "response.failed", "response": {"status": "failed", "error": {
            "code": "rate_limit_exceeded", "message": "slow down"}}}, "rate_limit_exceeded"),
        ({"type": "message_start", "message": {}}, "not an event of an OpenAI Responses"),
        ({"object": "chat.completion.chunk", "choices": []}, "not an event of an OpenAI"),
    ],
)  # fmt: skip
def test_an_error_or_another_vendors_event_in_the_middle_names_its_number(
    event: dict[str, Any], match: str
) -> None:
    events = responses_events(responses_final())[:5]
    with pytest.raises(StreamError, match=match) as caught:
        read_stream([*events, event])
    assert caught.value.event == 6


def test_an_sse_error_event_in_a_responses_stream() -> None:
    text = sse(responses_events(responses_final())[:3])
    text += 'event: error\ndata: {"type": "error", "code": "x", "message": "boom"}\n\n'
    with pytest.raises(StreamError, match="boom") as caught:
        read_stream(text)
    assert caught.value.event == 4


def test_xai_responses_events_read_the_same() -> None:
    # xAI's Responses API sends the same events; its model and ids differ, and it cites
    # with url_citations with and without a range
    final = responses_final()
    final["model"], final["id"] = "grok-4", "xai-resp-1"
    got = read_stream(sse(deltas_only(responses_events(final))))
    same_reading(got, read(final))


# --- Chat Completions and OpenRouter ------------------------------------------------------


def test_a_chat_stream_reads_as_its_chat_completion() -> None:
    final = chat_final()
    want = read(final)
    assert [c.text for c in want.citations] == ["([k.example](https://k.example))",
                                                "القاهرة عاصمة مصر"]  # fmt: skip
    assert [s.uri for s in want.uncited_sources] == ["https://or.example"]  # OpenRouter's 0/0
    got = read_stream(chat_chunks(final))
    assert got == want
    assert read_stream(sse(chat_chunks(final), named="", done=True)) == want


def test_an_openrouter_stream_with_comments_and_done() -> None:
    final = chat_final()
    final["model"] = "openai/gpt-4o:online"
    text = sse(chat_chunks(final), named="", done=True, comments=True)
    assert text.count(": OPENROUTER PROCESSING") > 3
    assert read_stream(text) == read(final)
    assert read_stream(io.BytesIO(text.encode())) == read(final)
    assert read_stream(text.splitlines(keepends=True)) == read(final)


def test_a_chat_stream_with_tool_calls_keeps_them() -> None:
    final = chat_final()
    final["choices"][0]["message"]["tool_calls"] = [
        {"id": "call_1", "type": "function",
         "function": {"name": "weather", "arguments": '{"city": "東京"}'}}]  # fmt: skip
    from grounding_protos._sources.openai.chat_stream import merge_chat_chunks

    merged, problems = merge_chat_chunks(chat_chunks(final))
    assert isinstance(merged, dict)
    calls = merged["choices"][0]["message"]["tool_calls"]
    assert calls == final["choices"][0]["message"]["tool_calls"]
    assert problems == [] and read_stream(chat_chunks(final)) == read(final)


def test_an_interrupted_chat_stream_gives_what_arrived() -> None:
    final = chat_final()
    chunks = chat_chunks(final, finish=False)[:4]
    got = read_stream(chunks)
    assert final["choices"][0]["message"]["content"].startswith(got.text or "-")
    assert codes(got) == ["stream-incomplete"]
    assert got.problems[0].path == "choices[0].finish_reason"


def test_an_openrouter_error_chunk_mid_stream_names_its_number() -> None:
    chunks = chat_chunks(chat_final())[:3]
    chunks.append({"id": "gen-1", "object": "chat.completion.chunk",
                   "error": {"code": 502, "message": "provider returned error"},
                   "choices": [{"index": 0, "delta": {"content": ""},
                                "finish_reason": "error"}]})  # fmt: skip
    with pytest.raises(StreamError, match="provider returned error") as caught:
        read_stream(sse(chunks, named=""))
    assert caught.value.event == 4


def test_another_vendors_chunk_in_a_chat_stream() -> None:
    chunks: list[object] = [*chat_chunks(chat_final())[:3], {"type": "response.created"}]
    with pytest.raises(StreamError, match="not a chunk of a Chat Completions") as caught:
        read_stream(chunks)
    assert caught.value.event == 4


# --- Assistants -------------------------------------------------------------------------


def test_a_thread_message_reads_its_file_citations_on_their_markers() -> None:
    grounded = read(thread_message())
    assert grounded.shape == "openai_thread_message" and grounded.problems == []
    assert [c.text for c in grounded.citations] == [
        "【4:0†rhein.pdf】", "【4:1†japan.pdf】", "sandbox:/mnt/data/bericht.csv"]  # fmt: skip
    assert [c.sources[0].id for c in grounded.citations] == ["file-rhein", "file-japan",
                                                              "file-csv"]  # fmt: skip
    assert grounded.finish_reason == "completed"


def test_a_message_list_reads_its_newest_assistant_message() -> None:
    message = thread_message()
    user = {"id": "msg_u", "object": "thread.message", "role": "user",
            "content": [{"type": "text",
                         "text": {"value": "Wo liegt Köln?", "annotations": []}}]}  # fmt: skip
    listing = {"object": "list", "data": [message, user], "first_id": "msg_a1",
               "last_id": "msg_u", "has_more": False}  # fmt: skip
    grounded = read(listing)
    assert grounded.shape == "openai_message_list"
    assert grounded.text == read(message).text
    assert grounded.citations[0].path == "data[0].content[0].text.annotations[0]"


def test_a_run_stream_reads_as_its_thread_message() -> None:
    final = thread_message()
    want = read(final)
    assert read_stream(run_events(final)) == want
    assert read_stream(sse(run_events(final), named="event", done=True)) == want


def test_a_run_stream_of_deltas_only_gives_the_citations_and_incomplete() -> None:
    final = thread_message()
    events = [e for e in run_events(final, completed=False)]
    got = read_stream(events)
    same_reading(got, read(final))
    assert codes(got) == ["stream-incomplete"]


def test_a_failed_run_and_an_error_event() -> None:
    events = run_events(thread_message())[:8]
    failed = {"event": "thread.run.failed", "data": {"id": "run_1", "status": "failed",
              "last_error": {"code": "server_error", "message": "sorry"}}}  # fmt: skip
    with pytest.raises(StreamError, match="sorry") as caught:
        read_stream([*events, failed])
    assert caught.value.event == 9
    text = sse(events, named="event") + 'event: error\ndata: {"message": "gone"}\n\n'
    with pytest.raises(StreamError, match="gone") as caught:
        read_stream(text)
    assert caught.value.event == 9


# --- Every vendor: StreamReader, aread_stream, SDK objects, the property -------------------

VENDORS: dict[str, tuple[Callable[[], dict[str, Any]], Callable[..., list[dict[str, Any]]]]] = {
    "responses": (responses_final, responses_events),
    "chat": (chat_final, chat_chunks),
    "assistants": (thread_message, run_events),
}


def _final_text(name: str, final: dict[str, Any]) -> str:
    return read(final).text or ""


@pytest.mark.parametrize("name", sorted(VENDORS))
def test_stream_reader_gives_the_text_as_it_arrives_and_the_citations_at_the_end(
    name: str,
) -> None:
    make, stream = VENDORS[name]
    final = make()
    reader = StreamReader()
    pieces, cited = [], []
    for event in stream(final):
        update = reader.feed(event)
        pieces.append(update.text)
        cited.extend(update.citations)
    want = read(final)
    assert "".join(pieces) == want.text
    assert cited == want.citations
    assert reader.finish() == want


@pytest.mark.parametrize("name", sorted(VENDORS))
def test_stream_reader_of_an_interrupted_stream(name: str) -> None:
    make, stream = VENDORS[name]
    final = make()
    events = stream(final)[: len(stream(final)) // 2]
    reader = StreamReader()
    for event in events:
        assert reader.feed(event).citations == []
    assert "stream-incomplete" not in codes(reader.grounded())
    assert "stream-incomplete" in codes(reader.finish())


@pytest.mark.parametrize("name", sorted(VENDORS))
def test_aread_stream(name: str) -> None:
    make, stream = VENDORS[name]
    final = make()

    async def events() -> AsyncIterator[object]:
        for event in stream(final):
            yield event

    assert asyncio.run(aread_stream(events())) == read(final)


def _sdk_events(name: str, events: Iterable[dict[str, Any]]) -> list[object]:
    from pydantic import TypeAdapter

    if name == "responses":
        from openai.types.responses import ResponseStreamEvent

        adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
        return [adapter.validate_python(e) for e in events]
    if name == "chat":
        from openai.types.chat import ChatCompletionChunk

        return [ChatCompletionChunk.model_validate(e) for e in events]
    from openai.types.beta import AssistantStreamEvent

    adapter = TypeAdapter(AssistantStreamEvent)
    return [adapter.validate_python(e) for e in events]


@pytest.mark.parametrize("name", sorted(VENDORS))
def test_openai_sdk_event_objects_sync_and_async(name: str) -> None:
    pytest.importorskip("openai")
    make, stream = VENDORS[name]
    # the SDK's url_citation needs a range: xAI's position-less ones come as dicts
    final = responses_final(positionless=False) if name == "responses" else make()
    objects = _sdk_events(name, stream(final))
    assert type(objects[0]).__module__.startswith("openai.")
    want = read(final)
    same_reading(read_stream(objects), want)

    async def arriving() -> AsyncIterator[object]:
        for event in objects:
            yield event

    same_reading(asyncio.run(aread_stream(arriving())), want)
    reader = StreamReader()
    assert "".join(reader.feed(e).text for e in objects) == want.text


def test_the_sdk_final_response_types_read_like_the_dicts() -> None:
    pytest.importorskip("openai")
    from openai.types.beta.threads import Message
    from openai.types.chat import ChatCompletion
    from openai.types.responses import Response

    for cls, final in ((Response, responses_final(positionless=False)),
                       (ChatCompletion, chat_final()),
                       (Message, thread_message())):  # fmt: skip
        same_reading(read(cls.model_validate(final)), read(final))


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(VENDORS)),
    cuts=st.lists(st.integers(min_value=1, max_value=120), max_size=30),
    completed=st.booleans(),
)
def test_any_cut_of_a_final_response_streams_back_to_it(
    name: str, cuts: list[int], completed: bool
) -> None:
    final = VENDORS[name][0]()
    if name == "responses":
        events = responses_events(final, cuts)
        if not completed:
            events = deltas_only(events)
    elif name == "chat":
        events = chat_chunks(final, cuts)
    else:
        events = run_events(final, cuts)
    got = read_stream(events)
    same_reading(got, read(final))
    assert codes(got) == ([] if completed or name != "responses" else ["stream-incomplete"])


# --- The command line ----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(VENDORS))
def test_cli_render_of_a_recorded_stream_file_and_stdin(
    name: str, tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from grounding_protos.cli import main

    make, stream = VENDORS[name]
    final = make()
    named = {"responses": "type", "chat": "", "assistants": "event"}[name]
    text = sse(stream(final), named=named, done=True)
    path = tmp_path / "stream.sse"
    path.write_text(text, encoding="utf-8")
    assert main(["render", str(path)]) == 0
    from_file = capsys.readouterr().out
    assert main(["render", "--input", str(tmp_path / "final.json")] if False else
                ["render", str(path)]) == 0  # fmt: skip
    capsys.readouterr()
    (tmp_path / "final.json").write_text(json.dumps(final, ensure_ascii=False), encoding="utf-8")
    assert main(["render", str(tmp_path / "final.json")]) == 0
    assert capsys.readouterr().out == from_file
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8"))
    assert main(["render", "-"]) == 0
    assert capsys.readouterr().out == from_file


# --- The fast paths against the general code ---------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(sorted(VENDORS)),
    cuts=st.lists(st.integers(min_value=1, max_value=120), max_size=20),
    general=st.lists(st.booleans(), min_size=1, max_size=60),
)
def test_the_common_event_path_merges_as_the_general_code(
    name: str, cuts: list[int], general: list[bool]
) -> None:
    """Dicts take the mergers' fast paths; the same events as read-only mappings (any
    other object) go through the general code: the merged response and problems agree."""
    from types import MappingProxyType

    from grounding_protos._streams.read import event_merger

    make, stream = VENDORS[name]
    events = stream(make(), cuts)
    mixed: list[object] = [
        MappingProxyType(e) if general[i % len(general)] else e for i, e in enumerate(events)
    ]
    results = []
    for chosen in (events, mixed):
        merger = event_merger(chosen[0])
        assert merger is not None
        texts = []
        for number, event in enumerate(chosen, 1):
            got: dict[int, str] = {}
            merger.add(number, event, got)
            texts.append(got)
        results.append((merger.result(), texts))
    assert results[0] == results[1]


# --- Perplexity ----------------------------------------------------------------------------


def perplexity(content: str, **extra: Any) -> dict[str, Any]:
    return {"id": "p1", "model": "sonar", "object": "chat.completion", "created": 1,
            "citations": ["https://k.example", "https://t.example", "https://s.example"],
            "search_results": [
                {"title": "Köln", "url": "https://k.example", "date": "2024-05-01",
                 "snippet": "Köln am Rhein"},
                {"title": "東京", "url": "https://t.example", "date": None}],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": content}}], **extra}  # fmt: skip


@pytest.mark.parametrize(
    ("content", "spans"),
    [
        ("👍🏽 Köln liegt am Rhein[1]. 東京は首都です。[2]",
         [("👍🏽 Köln liegt am Rhein", [1]), ("東京は首都です。", [2])]),
        ("Köln liegt am Rhein [1], und 서울 ist groß [3]. Ende.",
         [("Köln liegt am Rhein", [1]), ("und 서울 ist groß", [3])]),
        ("Erstens. 😀 Zweitens gilt das.[1][2]\n- Drittens 🌉 auch[3]",
         [("😀 Zweitens gilt das.", [1, 2]), ("Drittens 🌉 auch", [3])]),
        ("القاهرة عاصمة مصر [1] [2]", [("القاهرة عاصمة مصر", [1, 2])]),
        ("Siehe [1](https://k.example) und Köln[2]",
         [("Siehe [1](https://k.example) und Köln", [2])]),
    ],
)  # fmt: skip
def test_perplexity_markers_cite_the_sentence_or_clause_they_end(
    content: str, spans: list[tuple[str, list[int]]]
) -> None:
    grounded = read(perplexity(content))
    assert grounded.shape == "perplexity_chat_completion" and grounded.problems == []
    urls = perplexity(content)["citations"]
    assert [(c.text, [s.uri for s in c.sources]) for c in grounded.citations] == [
        (text, [urls[n - 1] for n in numbers]) for text, numbers in spans
    ]
    assert {c.kind for c in grounded.citations} == {"marker"}
    for c in grounded.citations:  # byte, character offsets and text agree
        assert (
            content.encode()[c.start : c.end].decode()
            == c.text
            == content[c.char_start : c.char_end]
        )


@given(st.text(alphabet="aé 😀東.,[]12\n", max_size=60))
def test_removing_markers_keeps_every_span_on_its_text(content: str) -> None:
    kept = read(perplexity(content), errors="skip")
    removed = read(perplexity(content), markers="remove", errors="skip")
    assert [c.text for c in removed.citations] == [c.text for c in kept.citations]
    assert [[s.uri for s in c.sources] for c in removed.citations] == [
        [s.uri for s in c.sources] for c in kept.citations]  # fmt: skip
    # every "[1]" cut but a link's ("[1](") and one inside brackets ("[[1]": no marker)
    rest = (removed.text or "").replace("[1](", "").replace("[[1]", "")
    assert removed.text is not None and "[1]" not in rest


def test_perplexity_sources_take_search_results_titles_and_dates() -> None:
    grounded = read(perplexity("Köln liegt am Rhein[1]. Tokyo[2]. Seoul[3]."))
    first, second, third = (c.sources[0] for c in grounded.citations)
    assert (first.title, first.publication_date, first.text, first.id) == (
        "Köln", "2024-05-01", "Köln am Rhein", "1")  # fmt: skip
    assert (second.title, second.publication_date) == ("東京", None)
    assert (third.uri, third.title) == ("https://s.example", None)
    only_results = perplexity("Köln[1] und 東京[2].")
    del only_results["citations"]
    assert [c.sources[0].title for c in read(only_results).citations] == ["Köln", "東京"]


def test_a_perplexity_marker_naming_no_source_is_never_silent() -> None:
    from grounding_protos import CitationError

    with pytest.raises(CitationError):
        read(perplexity("Köln[1] und Atlantis[9]."), errors="strict")
    grounded = read(perplexity("Köln[1] und Atlantis[9]."), errors="skip")
    assert [c.text for c in grounded.citations] == ["Köln"] and grounded.problems


def test_a_perplexity_stream_keeps_its_citations() -> None:
    final = perplexity("👍🏽 Köln liegt am Rhein[1]. 東京は首都です。[2]")
    head = {k: v for k, v in final.items() if k != "choices"}
    text = final["choices"][0]["message"]["content"]
    chunks = [{**head, "object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": {"role": "assistant", "content": text[i : i + 5]},
         "finish_reason": "stop" if i + 5 >= len(text) else None}]}
        for i in range(0, len(text), 5)]  # fmt: skip
    got = read_stream(chunks)
    same_reading(got, read(final))
    assert got.shape == "perplexity_chat_completion" and got.problems == []


def test_a_marker_citation_pickles_and_old_kinds_stay() -> None:
    import pickle

    from grounding_protos.citations import Citation

    c = read(perplexity("Köln[1].")).citations[0]
    assert pickle.loads(pickle.dumps(c)) == c and c.kind == "marker"
    assert Citation(0, 1).kind == "citation"


@pytest.mark.parametrize("name", sorted(VENDORS))
def test_cli_render_shows_their_text_as_it_arrives_on_a_terminal(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
) -> None:  # fmt: skip
    import sys

    from grounding_protos.cli import main

    make, stream = VENDORS[name]
    final = make()
    named = {"responses": "type", "chat": "", "assistants": "event"}[name]
    data = sse(stream(final), named=named, done=True).encode()
    path = tmp_path / "final.json"
    path.write_text(json.dumps(final, ensure_ascii=False), encoding="utf-8")
    assert main(["render", str(path)]) == 0
    whole = capsys.readouterr().out
    for tty in (True, False):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        monkeypatch.setattr("grounding_protos._cli.load._isatty", lambda stream, t=tty: t)
        assert main(["render"]) == 0
        out, err = capsys.readouterr()
        assert err == ""
        assert out == ((read(final).text or "") + "\n\n" + whole if tty else whole)


@pytest.mark.parametrize("name", sorted(VENDORS))
def test_cli_render_of_an_interrupted_stream_warns_and_exits_1(
    name: str, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    from grounding_protos.cli import main

    make, stream = VENDORS[name]
    events = stream(make())
    named = {"responses": "type", "chat": "", "assistants": "event"}[name]
    path = tmp_path / "cut.sse"
    path.write_text(sse(events[: len(events) // 2], named=named), encoding="utf-8")
    assert main(["render", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "[stream-incomplete]" in err and out


def test_aread_stream_of_sse_lines_as_they_arrive() -> None:
    final = chat_final()
    lines = sse(chat_chunks(final), named="", done=True, comments=True).splitlines(True)

    async def arriving() -> AsyncIterator[str]:
        for line in lines:
            yield line

    assert asyncio.run(aread_stream(arriving())) == read(final)


def test_a_run_stream_without_a_message_reads_empty_and_says_so() -> None:
    events = run_events(thread_message())[:4]  # the run and its step, no message yet
    reader = StreamReader()
    for event in events:
        assert reader.feed(event).text == ""
    assert reader.grounded().text == ""  # an answer with no text yet: empty, not unknown
    got = read_stream(events)
    assert got.text == "" and got.citations == []
    assert codes(got) == ["stream-incomplete"] and "thread message" in got.problems[0].message


@pytest.mark.parametrize(
    ("name", "event", "match"),
    [
        ("responses", {"type": "response.output_text.delta", "output_index": "0",
                       "content_index": 0, "delta": "x"}, "output_index '0' is not an index"),
        ("responses", {"type": "response.output_text.delta", "output_index": 1,
                       "content_index": 0, "delta": 5}, "delta that is not text"),
        ("responses", {"type": "response.output_item.added", "output_index": 1},
         "without its item"),
        ("responses", {"type": "response.completed"}, "without its response"),
        ("chat", {"object": "chat.completion.chunk", "choices": [{"index": True, "delta": {}}]},
         "is not an index"),
        ("chat", {"object": "chat.completion.chunk", "choices": ["x"]}, "not a JSON object"),
        ("assistants", {"event": "thread.message.delta", "data": {"delta": {}}},
         "without the message's id"),
        ("assistants", {"event": "thread.message.delta", "data": {"id": "msg_a1", "delta": {
            "content": [{"index": -1, "type": "text"}]}}}, "is not an index"),
        ("assistants", ["not", "an", "event"], "not list"),
    ],
)  # fmt: skip
def test_a_malformed_event_is_a_stream_error_naming_its_number(
    name: str, event: object, match: str
) -> None:
    make, stream = VENDORS[name]
    events: list[object] = [*stream(make())[:6], event]
    with pytest.raises(StreamError, match=match) as caught:
        read_stream(events)
    assert caught.value.event == 7
