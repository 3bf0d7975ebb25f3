"""Anthropic Messages, Cohere v2 chat and Bedrock ConverseStream streams: the merge of a
stream reads exactly as ``read`` reads the vendor's final response (the oracle), from
dicts, SSE text, the SDKs' own event objects and raw event-stream bytes; interrupted,
erroneous and mixed streams are typed errors or recorded problems naming the event."""

from __future__ import annotations

import asyncio
import io
import json
import struct
import zlib
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import StreamError
from grounding_protos.citations import (
    Grounded,
    LocationInfo,
    StreamReader,
    aread_stream,
    read,
    read_stream,
)
from grounding_protos.cli import main
from tests import stream_vendor_cases as cases
from tests.stream_vendor_cases import Json

Events = Callable[[Json, Any], list[Json]]
VENDORS: dict[str, tuple[Callable[[], Json], Events]] = {
    "anthropic": (cases.anthropic_final, cases.anthropic_events),
    "cohere": (cases.cohere_final, cases.cohere_events),
    "bedrock": (cases.bedrock_final, cases.bedrock_events),
}
SHAPE = {"anthropic": "anthropic_message", "cohere": "cohere_chat",
         "bedrock": "bedrock_converse"}  # fmt: skip


def naive(grounded: Grounded) -> list[tuple[str, int, int]]:
    """Each citation's text, found by slicing the text with its character offsets, and
    its UTF-8 byte offsets recomputed from the prefix (an independent conversion)."""
    assert grounded.text is not None
    out = []
    for c in grounded.citations:
        assert c.char_start is not None and c.char_end is not None
        prefix = grounded.text[: c.char_start].encode("utf-8")
        cited = grounded.text[c.char_start : c.char_end].encode("utf-8")
        assert c.text is not None and c.text.encode("utf-8") == cited
        assert (c.start, c.end) == (len(prefix), len(prefix) + len(cited))
        out.append((grounded.text[c.char_start : c.char_end], c.char_start, c.char_end))
    return out


# --- The merge equals read(final) ----------------------------------------------------------


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_a_stream_reads_as_its_final_response(vendor: str) -> None:
    final_of, events_of = VENDORS[vendor]
    final = final_of()
    whole = read(final)
    assert whole.shape == SHAPE[vendor] and len(whole.citations) == 2
    assert whole.text == "".join(cases.TEXTS)
    events = events_of(final, (0.13, 0.5, 0.77))
    streamed = read_stream(events)
    assert streamed == whole and streamed.problems == []
    assert [t for t, _, _ in naive(streamed)] == [c.text for c in whole.citations]
    assert events == events_of(final_of(), (0.13, 0.5, 0.77))  # the input is not changed
    assert asyncio.run(aread_stream(_arriving(events))) == whole


async def _arriving(events: Iterable[object]) -> AsyncIterator[object]:
    for event in events:
        yield event


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_stream_reader_shows_the_text_as_it_arrives(vendor: str) -> None:
    final_of, events_of = VENDORS[vendor]
    final = final_of()
    events = events_of(final, (0.3, 0.6))
    reader = StreamReader()
    updates = [reader.feed(e) for e in events]
    assert "".join(u.text for u in updates) == "".join(cases.TEXTS)
    assert [u.finished for u in updates].count(True) == 1
    assert [c for u in updates for c in u.citations] == read(final).citations
    assert reader.events == len(events)
    assert reader.finish() == read_stream(events) == read(final)
    looking = StreamReader()  # grounded() between events changes nothing of the merge
    shown = ""
    for event in events:
        shown += looking.feed(event).text
        assert (looking.grounded().text or "") == shown
    assert looking.finish() == read(final)
    cut = StreamReader()
    for event in events[:5]:
        cut.feed(event)
    assert cut.grounded().problems == []
    assert [p.code for p in cut.finish().problems] == ["stream-incomplete"]
    with pytest.raises(StreamError):
        cut.feed(events[5])


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_stream_reader_places_each_citation_when_it_can(vendor: str) -> None:
    """At a cited block's stop (Anthropic, Bedrock), at its citation-start (Cohere): not
    only at the end."""
    final_of, events_of = VENDORS[vendor]
    events = events_of(final_of(), (0.3, 0.6))
    reader = StreamReader()
    arrived = [(e, reader.feed(e).citations) for e in events]
    placing = [e for e, citations in arrived if citations]
    assert [len(c) for _, c in arrived if c] == [1, 1]
    if vendor == "anthropic":
        assert [e["type"] for e in placing] == ["content_block_stop"] * 2
    elif vendor == "bedrock":
        assert [next(iter(e)) for e in placing] == ["contentBlockStop"] * 2
    else:
        assert [e["type"] for e in placing] == ["citation-start"] * 2


def test_a_drifted_cohere_citation_waits_for_the_final_read() -> None:
    """A span the final read repairs is not placed early (its small read reports the
    repair): it comes with the end, as the final read gives it."""
    final = cases.cohere_final()
    final["message"]["citations"][0]["start"] += 1
    final["message"]["citations"][0]["end"] += 1
    expected = read(final)
    assert [p.code for p in expected.problems] == ["offset-drift"]
    reader = StreamReader()
    updates = [reader.feed(e) for e in cases.cohere_events(final)]
    assert [u.citations for u in updates if u.citations] == [
        [expected.citations[1]], [expected.citations[0]]]  # fmt: skip
    assert updates[-1].citations == [expected.citations[0]]
    assert reader.finish() == expected


def test_the_citations_are_where_the_text_says() -> None:
    """Whole blocks (Anthropic, Bedrock) and code-point offsets (Cohere), after emoji."""
    t = cases.TEXTS
    blocks = [(t[1], len(t[0])), (t[3], len(t[0] + t[1] + t[2]))]
    assert [(t, s) for t, s, _ in naive(read(cases.anthropic_final()))] == blocks
    assert [(t, s) for t, s, _ in naive(read(cases.bedrock_final()))] == blocks
    text = "".join(cases.TEXTS)
    assert [(t, s) for t, s, _ in naive(read(cases.cohere_final()))] == [
        ("東京タワー", text.index("東京")), ("القاهرة", text.index("القاهرة"))]  # fmt: skip


def test_recorded_sse_reads_as_the_dicts() -> None:
    final = cases.anthropic_final()
    events = cases.anthropic_events(final)
    assert read_stream(cases.sse(events)) == read(final)
    assert read_stream(cases.sse(events).encode()) == read(final)
    lines = cases.sse(events).splitlines(keepends=True)  # what iter_lines() gives
    assert read_stream(lines) == read(final)
    chat = cases.cohere_final()
    text = cases.sse(cases.cohere_events(chat), done=True)
    assert text.endswith("data: [DONE]\n\n")
    assert read_stream(text) == read(chat)
    assert read_stream(cases.sse(cases.cohere_events(chat), name=False, done=True)) == read(chat)


# --- The SDKs' own event objects -------------------------------------------------------------


def test_anthropic_sdk_events_sync_and_async() -> None:
    from anthropic._models import construct_type
    from anthropic.types import RawMessageStreamEvent

    final = cases.anthropic_final()
    typed = [construct_type(type_=RawMessageStreamEvent, value=e)
             for e in cases.anthropic_events(final) if e["type"] != "ping"]  # fmt: skip
    assert type(typed[3]).__name__ == "RawContentBlockDeltaEvent"
    assert read_stream(typed) == read(final)
    assert asyncio.run(aread_stream(_arriving(typed))) == read(final)


def test_anthropic_stream_helper_events_are_skipped() -> None:
    """``messages.stream()`` yields, beside each raw delta, a ``text``/``citation``/
    ``input_json`` event repeating it (with the snapshot so far): read once, not twice."""
    from anthropic._models import construct_type
    from anthropic.lib.streaming._types import CitationEvent, InputJsonEvent, TextEvent
    from anthropic.types import RawMessageStreamEvent

    final = cases.anthropic_final()
    events: list[object] = []
    for event in cases.anthropic_events(final):
        events.append(construct_type(type_=RawMessageStreamEvent, value=event))
        delta = event.get("delta", {})
        if delta.get("type") == "text_delta":
            events.append(TextEvent.model_construct(type="text", text=delta["text"], snapshot=""))
        elif delta.get("type") == "citations_delta":
            events.append(CitationEvent.model_construct(
                type="citation", citation=delta["citation"], snapshot=[]))  # fmt: skip
        elif delta.get("type") == "input_json_delta":
            events.append(InputJsonEvent.model_construct(
                type="input_json", partial_json=delta["partial_json"], snapshot={}))  # fmt: skip
    assert read_stream(events) == read(final)
    reader = StreamReader()
    assert "".join(reader.feed(e).text for e in events) == "".join(cases.TEXTS)


def test_anthropic_sdk_accumulates_the_message_we_merge() -> None:
    """anthropic's own accumulate_event builds the Message our merge reads as the same."""
    from anthropic.lib.streaming._messages import accumulate_event

    final = cases.anthropic_final()
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for event in cases.anthropic_events(final):
        if event["type"] != "ping":
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)  # type: ignore[arg-type]
    assert read(snapshot) == read_stream(cases.anthropic_events(final)) == read(final)


def test_cohere_sdk_events_sync_and_async() -> None:
    import cohere.v2
    from cohere.core.unchecked_base_model import construct_type

    final = cases.cohere_final()
    typed = [construct_type(type_=cohere.v2.V2ChatStreamResponse, object_=e)  # type: ignore[arg-type]
             for e in cases.cohere_events(final)]  # fmt: skip
    assert type(typed[-1]).__name__ == "MessageEndV2ChatStreamResponse"
    assert read_stream(typed) == read(final)
    assert asyncio.run(aread_stream(_arriving(typed))) == read(final)


# --- Interrupted, erroneous and mixed streams ------------------------------------------------


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_an_interrupted_stream_gives_what_arrived(vendor: str) -> None:
    final_of, events_of = VENDORS[vendor]
    events = events_of(final_of(), (0.5,))
    for cut in range(1, len(events) - 2):
        grounded = read_stream(events[:cut])
        assert [p.code for p in grounded.problems][-1] == "stream-incomplete", cut
        assert f"after {cut} events" in grounded.problems[-1].message
        assert (grounded.text or "") == "".join(cases.TEXTS)[: len(grounded.text or "")]


def test_an_sse_recording_cut_inside_an_event_is_truncated() -> None:
    text = cases.sse(cases.anthropic_events(cases.anthropic_final()))
    cut = text[: text.index("wächst") if "wächst" in text else len(text) - 10]
    grounded = read_stream(cut)
    assert {"stream-truncated", "stream-incomplete"} <= {p.code for p in grounded.problems}


def _raises(stream: object, event: int, words: str) -> None:
    with pytest.raises(StreamError) as info:
        read_stream(stream)
    assert info.value.event == event and words in str(info.value), str(info.value)


def test_error_events_raise_naming_the_event() -> None:
    events = cases.anthropic_events(cases.anthropic_final())
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    _raises([*events[:3], error], 4, "overloaded_error: Overloaded")
    _raises(cases.sse([*events[:3], error]), 4, "overloaded_error: Overloaded")
    chat = cases.cohere_events(cases.cohere_final())
    end = {"type": "message-end", "delta": {"finish_reason": "ERROR", "error": "zu viel 🔥"}}
    _raises([*chat[:4], end], 5, "zu viel 🔥")
    converse = cases.bedrock_events(cases.bedrock_final())
    throttled = {"throttlingException": {"message": "Rate exceeded"}}
    _raises([*converse[:2], throttled], 3, "throttlingException: 'Rate exceeded'")


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_another_vendors_event_in_the_middle_raises(vendor: str) -> None:
    final_of, events_of = VENDORS[vendor]
    events = events_of(final_of(), (0.5,))
    for other in sorted(set(VENDORS) - {vendor}):
        stranger = VENDORS[other][1](VENDORS[other][0](), (0.5,))[2]
        _raises([*events[:3], stranger, *events[3:]], 4, "")
    _raises([*events[:2], {"choices": [{"delta": {"content": "x"}}]}], 3, "not a part of")


def test_out_of_order_deltas_raise() -> None:
    events = cases.anthropic_events(cases.anthropic_final())
    _raises([events[0], {"type": "content_block_delta", "index": 5, "delta": {
        "type": "text_delta", "text": "x"}}], 2, "has not started")  # fmt: skip
    chat = cases.cohere_events(cases.cohere_final())
    _raises([chat[0], {"type": "content-delta", "index": 0}], 2, "has not started")


def test_broken_tool_input_is_a_problem() -> None:
    events = cases.anthropic_events(cases.anthropic_final())
    broken = [e for e in events if e.get("delta", {}).get("type") != "input_json_delta"]
    i = next(i for i, e in enumerate(broken) if e.get("content_block", {}).get("id") == "toolu_2")
    broken.insert(
        i + 1,
        {
            "type": "content_block_delta",
            "index": 4,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": '},
        },
    )
    grounded = read_stream(broken)
    assert [p.code for p in grounded.problems] == ["stream-tool-input"]
    assert grounded.citations == read(cases.anthropic_final()).citations


# --- Hypothesis: any cut of a final response streams back to it ------------------------------


@settings(max_examples=60, deadline=None)
@given(
    vendor=st.sampled_from(sorted(VENDORS)),
    cuts=st.lists(st.floats(min_value=0, max_value=1), max_size=12),
    texts=st.lists(st.text(min_size=1, max_size=12), min_size=4, max_size=4),
)
def test_any_cut_of_a_final_response_streams_back_to_it(
    vendor: str, cuts: list[float], texts: list[str]
) -> None:
    final_of, events_of = VENDORS[vendor]
    final = _with_texts(vendor, final_of(), texts)
    expected = read(final)
    assert read_stream(events_of(final, cuts)) == expected
    reader = StreamReader()  # each citation placed as it becomes placeable, as read places it
    updates = [reader.feed(e) for e in events_of(final, cuts)]
    assert [c for u in updates for c in u.citations] == expected.citations
    assert reader.finish() == expected
    if vendor != "bedrock":
        assert read_stream(cases.sse(events_of(final, cuts), done=vendor == "cohere")) == expected
    elif _has_botocore():
        assert read_stream(eventstream(events_of(final, cuts))) == expected


def _with_texts(vendor: str, final: Json, texts: list[str]) -> Json:
    """``final`` with its four texts replaced (Cohere's citations re-pointed at them)."""
    if vendor == "anthropic":
        blocks = [b for b in final["content"] if b["type"] == "text"]
        for block, text in zip(blocks, texts, strict=True):
            block["text"] = text
    elif vendor == "bedrock":
        blocks = [b for b in final["output"]["message"]["content"] if "toolUse" not in b]
        for block, text in zip(blocks, texts, strict=True):
            if "citationsContent" in block:
                block["citationsContent"]["content"] = [{"text": text}]
            else:
                block["text"] = text
    else:
        message = final["message"]
        message["content"] = [{"type": "text", "text": texts[0] + texts[1]},
                              {"type": "text", "text": texts[2] + texts[3]}]  # fmt: skip
        for citation, (i, text) in zip(message["citations"], ((0, texts[1]), (1, texts[3])),
                                       strict=True):  # fmt: skip
            start = len(texts[0]) if i == 0 else len(texts[2])
            citation.update(start=start, end=start + len(text), text=text, content_index=i)
    return final


# --- Bedrock Converse (non-stream) -----------------------------------------------------------


def test_converse_sources_carry_their_location() -> None:
    grounded = read(cases.bedrock_final())
    first, second = grounded.citations
    assert [s.details for s in first.sources] == [LocationInfo("char", 0, 10, 34), None]
    assert (first.sources[0].document, first.sources[0].text) == (
        "turm.pdf",
        "Der Turm ist 333 m hoch.",
    )
    web = first.sources[1]
    assert (web.kind, web.uri, web.domain, web.title) == (
        "web",
        "https://tower.example/",
        "tower.example",
        "Tower",
    )
    assert [s.details for s in second.sources] == [
        LocationInfo("page", 1, 2, 3), LocationInfo("chunk", 2, 0, 1),
        LocationInfo("search_result_block", 0, 1, 2)]  # fmt: skip
    assert grounded.finish_reason == "end_turn"


def test_location_info_pickles() -> None:
    import pickle

    source = read(cases.bedrock_final()).citations[1].sources[0]
    assert pickle.loads(pickle.dumps(source)) == source


# --- Bedrock: the raw event stream -----------------------------------------------------------


def _header(name: str, value: str) -> bytes:
    raw, text = name.encode(), value.encode()
    return bytes([len(raw)]) + raw + b"\x07" + struct.pack(">H", len(text)) + text


def eventstream_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One ``application/vnd.amazon.eventstream`` message. botocore has a decoder but no
    encoder, so test bytes are built here from AWS's published layout (prelude: total
    and headers lengths, their CRC-32; string headers; payload; CRC-32 of all before);
    botocore's parser checks both CRCs when it reads them back."""
    head = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack(">I", zlib.crc32(body))


def eventstream(events: list[Json]) -> bytes:
    out = b""
    for event in events:
        ((kind, body),) = event.items()
        out += eventstream_message(
            {":event-type": kind, ":content-type": "application/json", ":message-type": "event"},
            json.dumps(body, ensure_ascii=False).encode(),
        )
    return out


def test_boto3s_whole_converse_stream_response_reads_as_its_stream() -> None:
    final = cases.bedrock_final()
    response = {"ResponseMetadata": {"HTTPStatusCode": 200},
                "stream": iter(cases.bedrock_events(final))}  # fmt: skip
    assert read_stream(response) == read(final)


def test_raw_eventstream_bytes_read_as_boto3s_dicts(tmp_path: Path) -> None:
    pytest.importorskip("botocore")
    final = cases.bedrock_final()
    data = eventstream(cases.bedrock_events(final))
    assert read_stream(data) == read(final)
    pieces = [data[i : i + 100] for i in range(0, len(data), 100)]  # as an HTTP body arrives
    assert read_stream(pieces) == read(final)
    path = tmp_path / "converse.bin"
    path.write_bytes(data)
    with open(path, "rb") as file:
        assert read_stream(file) == read(final)
    late = read_stream(data[:-9])  # inside the metadata event, after messageStop
    assert [p.code for p in late.problems] == ["stream-truncated"] and late.citations
    cut = read_stream(data[: len(data) // 2])
    assert [p.code for p in cut.problems] == ["stream-truncated", "stream-incomplete"]


def test_raw_eventstream_exceptions_and_damage_raise() -> None:
    pytest.importorskip("botocore")
    events = cases.bedrock_events(cases.bedrock_final())
    throttled = eventstream_message(
        {":exception-type": "throttlingException", ":content-type": "application/json",
         ":message-type": "exception"}, b'{"message": "Rate exceeded"}')  # fmt: skip
    _raises(eventstream(events[:2]) + throttled, 3, "throttlingException: 'Rate exceeded'")
    data = bytearray(eventstream(events))
    data[40] ^= 1  # a payload byte of the first message: its CRC no longer matches
    _raises(bytes(data), 1, "not a Bedrock event stream")


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(["messageStart", "contentBlockDelta", "metadata", "other", ""]),
    message_type=st.sampled_from(["event", "exception", "error", "other"]),
    payload=st.one_of(st.binary(max_size=40), st.sampled_from([
        b"{}", b"[]", b"null", b'{"delta": 5}', b'{"contentBlockIndex": "x"}',
        b'{"role": {"a": 1}}', b'{"message": "\\ud800"}'])),
)  # fmt: skip
def test_any_frame_reads_or_is_a_typed_error(kind: str, message_type: str, payload: bytes) -> None:
    """A well-framed message of any type, event type and payload: read, or a StreamError."""
    pytest.importorskip("botocore")
    head = eventstream(cases.bedrock_events(cases.bedrock_final())[:1])
    frame = eventstream_message(
        {":event-type": kind, ":content-type": "application/json", ":message-type": message_type,
         ":exception-type": kind, ":error-code": kind}, payload)  # fmt: skip
    try:
        grounded = read_stream(head + frame)
    except StreamError as exc:
        assert exc.event in (1, 2), str(exc)
        assert len(str(exc)) < 600
    else:
        assert grounded.shape == "bedrock_converse"


# --- The command line ----------------------------------------------------------------------


def test_cli_renders_each_vendors_stream(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    recordings = {
        "anthropic.sse": cases.sse(cases.anthropic_events(cases.anthropic_final())).encode(),
        "cohere.sse": cases.sse(cases.cohere_events(cases.cohere_final()), done=True).encode(),
    }
    if _has_botocore():
        recordings["converse.bin"] = eventstream(cases.bedrock_events(cases.bedrock_final()))
    for name, data in recordings.items():
        path = tmp_path / name
        path.write_bytes(data)
        assert main(["render", str(path), "--style", "markdown"]) == 0, name
        out = capsysbinary.readouterr().out.decode()
        assert "東京タワー" in out and "[1]" in out, (name, out)
    cut = tmp_path / "cut.sse"
    cut.write_bytes(recordings["anthropic.sse"][:-60])
    assert main(["render", str(cut)]) == 1  # an interrupted stream: not the whole answer
    assert "stream-incomplete" in capsysbinary.readouterr().err.decode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(recordings["cohere.sse"])))
    assert main(["render", "-"]) == 0
    assert "Grüße" in capsysbinary.readouterr().out.decode()


def _has_botocore() -> bool:
    try:
        import botocore  # noqa: F401
    except ImportError:
        return False
    return True


# --- The common events' own path against the general code ------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    vendor=st.sampled_from(sorted(VENDORS)),
    cuts=st.lists(st.floats(min_value=0, max_value=1), max_size=6),
    drop=st.sets(st.integers(min_value=0, max_value=60), max_size=4),
    stranger=st.sampled_from([
        None, {"type": "content_block_delta", "index": 99},
        {"type": "content_block_delta", "index": True,
         "delta": {"type": "text_delta", "text": "x"}},
        {"type": "content_block_stop", "index": 0}, {"type": "content_block_stop"},
        {"contentBlockStop": {"contentBlockIndex": 99}},
        {"contentBlockDelta": {"contentBlockIndex": True, "delta": {"text": "x"}}},
        {"type": "content-delta", "index": "0"}, {"type": "citation-end", "index": 7},
        {"type": "citation-start", "delta": {"message": {"citations": "x"}}},
        {"type": "citation-start", "delta": {"message": {"citations": {"start": 0, "end": 1,
         "content_index": 0, "text": "G"}}}},
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": 1}}}},
    ]),
)  # fmt: skip
def test_the_fast_path_merges_as_the_general_code(
    vendor: str, cuts: list[float], drop: set[int], stranger: Json | None
) -> None:
    """Random streams (events left out, a stray event put in) merge to the same response,
    problems and errors whether each event takes the fast path or the general code."""
    from grounding_protos._sources.anthropic import merger as anthropic
    from grounding_protos._sources.bedrock import converse_stream as bedrock
    from grounding_protos._sources.cohere import merger as cohere

    merger_class: Any = {"anthropic": anthropic.MessageMerger, "cohere": cohere.ChatMerger,
                         "bedrock": bedrock.ConverseMerger}[vendor]  # fmt: skip
    final_of, events_of = VENDORS[vendor]
    events: list[Any] = [e for i, e in enumerate(events_of(final_of(), cuts)) if i not in drop]
    if stranger is not None:
        events.insert(len(events) // 2, stranger)

    def outcome(fast: bool, track: bool) -> object:
        merger = merger_class()
        merger.fast = fast  # False: every event through the general code
        merger.track = track  # what StreamReader places as the events arrive, too
        texts: dict[int, str] = {}
        try:
            for number, event in enumerate(events, 1):
                merger.add(number, event, texts)
            return merger.result(), merger.placeable, texts
        except StreamError as exc:
            return ("error", exc.event, str(exc))

    for track in (False, True):
        assert outcome(True, track) == outcome(False, track)


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_cli_render_shows_each_vendors_text_as_it_arrives(
    vendor: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    final_of, events_of = VENDORS[vendor]
    if vendor == "bedrock":
        if not _has_botocore():
            pytest.skip("botocore")
        data = eventstream(events_of(final_of(), (0.5,)))
    else:
        data = cases.sse(events_of(final_of(), (0.5,)), done=vendor == "cohere").encode()
    whole = tmp_path / "final.json"
    whole.write_text(json.dumps(final_of(), ensure_ascii=False), encoding="utf-8")
    assert main(["render", str(whole)]) == 0
    final = capsys.readouterr().out
    for tty in (True, False):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
        monkeypatch.setattr("grounding_protos._cli.load._isatty", lambda stream, tty=tty: tty)
        assert main(["render"]) == 0
        out = capsys.readouterr().out
        assert out == ("".join(cases.TEXTS) + "\n\n" + final if tty else final), vendor


def test_aread_stream_of_sse_lines() -> None:
    """httpx's ``aiter_lines()`` of a Messages or chat stream."""
    for final, events, done in (
        (cases.anthropic_final(), cases.anthropic_events, False),
        (cases.cohere_final(), cases.cohere_events, True),
    ):
        lines = cases.sse(events(final, (0.4,)), done=done).splitlines()
        assert asyncio.run(aread_stream(_arriving(lines))) == read(final)


def test_the_done_marker_ends_a_stream_without_its_blank_line() -> None:
    final = cases.cohere_final()
    text = cases.sse(cases.cohere_events(final), done=True).removesuffix("\n\n")
    assert text.endswith("data: [DONE]")
    assert read_stream(text) == read(final)
    assert read_stream(text.encode()) == read(final)


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_the_shipped_examples_read_as_their_final_responses() -> None:
    """examples/anthropic_stream.sse, cohere_stream.sse, bedrock_converse_stream.bin are
    the fixtures' streams (docs/streams.md shows them on the command line)."""
    with open(EXAMPLES / "anthropic_stream.sse", "rb") as file:
        assert read_stream(file) == read(cases.anthropic_final())
    with open(EXAMPLES / "cohere_stream.sse", "rb") as file:
        assert read_stream(file) == read(cases.cohere_final())
    if _has_botocore():
        with open(EXAMPLES / "bedrock_converse_stream.bin", "rb") as binary:
            assert read_stream(binary) == read(cases.bedrock_final())
