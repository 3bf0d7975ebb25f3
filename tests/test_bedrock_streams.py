"""Amazon Bedrock's citation shapes (issue #32) and raw event streams (#31, point 17):
Nova's content-less ``citationsContent`` on Converse and ConverseStream,
RetrieveAndGenerateStream, Agents InvokeAgent; whole and streamed, as boto3's dicts (made
by botocore's own EventStream from the bytes) and as raw bytes in pieces of any size,
sync and async. The oracles: ``read`` of the vendor's final response, the cited parts
found by ``str.index`` in the fixtures, botocore's own decoding of the same bytes."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import GroundingProtosError, StreamError, UnsupportedInputError
from grounding_protos.citations import Grounded, StreamReader, aread_stream, read, read_stream
from grounding_protos.cli import main
from tests import bedrock_cases as cases
from tests import stream_vendor_cases
from tests.bedrock_cases import Json

botocore = pytest.importorskip("botocore")

Final = Callable[..., Json]
Events = Callable[[Json, Sequence[float]], list[Json]]
OPERATIONS: dict[str, tuple[Final, Events, tuple[str, str, str], str]] = {
    "nova": (cases.nova_final, cases.converse_events,
             ("bedrock-runtime", "ConverseStream", "stream"), "bedrock_converse"),
    "retrieve_and_generate": (cases.rag_final, cases.rag_events,
                              ("bedrock-agent-runtime", "RetrieveAndGenerateStream", "stream"),
                              "bedrock_retrieve_and_generate"),
    "invoke_agent": (cases.agent_final, cases.agent_events,
                     ("bedrock-agent-runtime", "InvokeAgent", "completion"),
                     "bedrock_invoke_agent"),
}  # fmt: skip
NAMES = sorted(OPERATIONS)


def naive(grounded: Grounded) -> list[tuple[str, int]]:
    """Each citation's text by slicing the text with its character offsets, checked
    against its UTF-8 byte offsets recomputed from the prefix."""
    assert grounded.text is not None
    out = []
    for c in grounded.citations:
        assert c.char_start is not None and c.char_end is not None
        prefix = grounded.text[: c.char_start].encode()
        cited = grounded.text[c.char_start : c.char_end]
        assert (c.start, c.end) == (len(prefix), len(prefix) + len(cited.encode()))
        out.append((cited, c.char_start))
    return out


def boto3_events(data: bytes, name: str) -> list[Any]:
    """What boto3 yields for the raw body ``data``: botocore's own EventStream with the
    operation's service model (the SDK's objects, made by the SDK)."""
    import botocore.session
    from botocore.eventstream import EventStream
    from botocore.parsers import EventStreamJSONParser

    service, operation, member = OPERATIONS[name][2]
    model = botocore.session.get_session().get_service_model(service)
    shape = model.operation_model(operation).output_shape.members[member]

    class Body:
        def stream(self) -> Iterable[bytes]:
            yield data

    return list(EventStream(Body(), shape, EventStreamJSONParser(), operation))


async def _arriving(pieces: Iterable[object]) -> AsyncIterator[object]:
    for piece in pieces:
        yield piece


def _cut(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


# --- What each shape reads: the cited parts, where the fixtures put them -----------------------


def test_nova_cites_the_text_block_before_each_content_less_block() -> None:
    t = cases.TEXTS
    grounded = read(cases.nova_final())
    assert grounded.shape == "bedrock_converse" and grounded.text == "".join(t)
    assert naive(grounded) == [(t[0], 0), (t[1], len(t[0])), (t[3], len(t[0] + t[1] + t[2])),
                               (t[3], len(t[0] + t[1] + t[2]))]  # fmt: skip
    assert [[s.uri for s in c.sources] for c in grounded.citations] == [
        ["https://koeln.example/"], ["https://東京.example/", "https://koeln.example/"],
        ["https://القاهرة.example/"], ["https://القاهرة.example/"]]  # fmt: skip
    assert next(c.path for c in grounded.citations) == "output.message.content[1].citationsContent"
    # the block right after the tool call cites no text: a source of the whole answer
    assert [s.uri for s in grounded.uncited_sources] == ["https://서울.example/"]
    assert grounded.problems == [] and all(c.text for c in grounded.citations)


def test_nova_without_a_text_block_before_has_no_empty_span() -> None:
    only = {"output": {"message": {"role": "assistant", "content": [
        {"citationsContent": {"citations": [{"location": {"web": {"url": "https://a.example"}}}]}},
        {"text": "Grüße 🌍"}]}}, "stopReason": "end_turn"}  # fmt: skip
    grounded = read(only)
    assert grounded.citations == [] and grounded.text == "Grüße 🌍"
    assert [s.uri for s in grounded.declared_sources] == ["https://a.example"]


@pytest.mark.parametrize("name", ["retrieve_and_generate", "invoke_agent"])
def test_the_agents_runtime_cites_its_parts(name: str) -> None:
    text = "".join(cases.TEXTS)
    grounded = read(OPERATIONS[name][0]())
    assert grounded.shape == OPERATIONS[name][3] and grounded.text == text
    assert naive(grounded) == [(part, text.index(part)) for part in cases.CITED]
    assert [s.uri for s in grounded.citations[0].sources] == [
        "s3://kb/doc0.pdf", "https://w0.example/"]  # fmt: skip
    assert grounded.citations[1].sources[0].text == "Quelle 1 über القاهرة كبيرة 📚"
    assert grounded.problems == []


# --- Streamed: the merge reads as the final response ------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_a_stream_reads_as_its_final_response(name: str) -> None:
    final_of, events_of, _, _ = OPERATIONS[name]
    final = final_of()
    events = events_of(final, (0.1, 0.37, 0.5, 0.81))
    assert read_stream(events) == read(final)
    assert asyncio.run(aread_stream(_arriving(events))) == read(final)
    assert events == events_of(final_of(), (0.1, 0.37, 0.5, 0.81))  # the input is not changed


@pytest.mark.parametrize("name", NAMES)
def test_stream_reader_shows_the_text_as_it_arrives(name: str) -> None:
    final_of, events_of, _, _ = OPERATIONS[name]
    final = final_of()
    events = events_of(final, (0.3, 0.6))
    reader = StreamReader()
    updates = [reader.feed(e) for e in events]
    assert "".join(u.text for u in updates) == "".join(cases.TEXTS)
    placed = [c for u in updates for c in u.citations]
    if name == "nova":  # each as its block of citations stops, before the end
        assert placed == read(final).citations and not updates[-1].citations
    else:  # no end event: the citations come with finish()
        assert placed == [] and not any(u.finished for u in updates)
    assert reader.finish() == read(final)


def test_the_stream_span_end_is_exclusive_and_the_text_decides() -> None:
    """The recorded stream's exclusive end reads with no problem; an inclusive one (as
    the non-streamed call's) is re-anchored on the part's text, with a problem."""
    final = cases.rag_final()
    events = cases.rag_events(final)
    ends = [e["citation"]["generatedResponsePart"]["textResponsePart"]["span"]["end"]
            for e in events if "citation" in e]  # fmt: skip
    text = "".join(cases.TEXTS)
    assert [text[e - len(p) : e] for e, p in zip(ends, cases.CITED, strict=True)] == list(
        cases.CITED
    )
    for event in events:
        if "citation" in event:
            event["citation"]["generatedResponsePart"]["textResponsePart"]["span"]["end"] -= 1
    grounded = read_stream(events)
    assert grounded.citations == read(final).citations
    assert {p.code for p in grounded.problems} == {"offset-drift"}


def test_the_deprecated_citation_member_reads_the_same() -> None:
    final = cases.rag_final()
    events = [{"citation": {"citation": e["citation"]}} if "citation" in e else e
              for e in cases.rag_events(final)]  # fmt: skip
    assert read_stream(events) == read(final)


def test_boto3s_whole_responses_read_as_their_streams() -> None:
    for name, key in (("retrieve_and_generate", "stream"), ("invoke_agent", "completion")):
        final_of, events_of, _, _ = OPERATIONS[name]
        final = final_of()
        response = {"ResponseMetadata": {"HTTPStatusCode": 200}, "sessionId": "s-1",
                    key: iter(events_of(final, (0.5,)))}  # fmt: skip
        assert read_stream(response) == read(final)


def test_an_invoke_agent_stream_cut_inside_a_character() -> None:
    final = cases.agent_final()
    data = final["chunk"]["bytes"]
    cut = data.index("東".encode()) + 1
    grounded = read_stream([cases.TRACE, {"chunk": {"bytes": data[:cut]}}])
    assert grounded.text == data[: cut - 1].decode()
    assert [p.code for p in grounded.problems] == ["stream-incomplete"]


def test_a_stream_with_no_answer_is_refused() -> None:
    with pytest.raises(StreamError, match="no chunk"):
        read_stream([cases.TRACE, {"returnControl": {"invocationId": "i-1",
                                                     "invocationInputs": []}}])  # fmt: skip


# --- Raw bytes: botocore's own decoding is the oracle --------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_raw_bytes_decode_as_botocore_decodes_them(name: str, tmp_path: Path) -> None:
    from grounding_protos._sources.bedrock.eventstream import eventstream_items
    from grounding_protos._sources.registry import AWS_STREAMS

    final_of, events_of, _, _ = OPERATIONS[name]
    final = final_of()
    data = cases.wire(events_of(final, (0.25, 0.5)))
    sdk = boto3_events(data, name)
    assert [item[1] for item in eventstream_items([data], AWS_STREAMS)] == sdk
    assert read_stream(sdk) == read_stream(data) == read(final)
    path = tmp_path / "recording.bin"
    path.write_bytes(data)
    with open(path, "rb") as file:
        assert read_stream(file) == read(final)
    assert read_stream(io.BytesIO(data)) == read(final)  # no peek: read and sought back
    cut = read_stream(data[:-7])
    assert "stream-truncated" in {p.code for p in cut.problems}


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from([*NAMES, "converse"]),
       size=st.one_of(st.integers(min_value=1, max_value=64), st.just(4096)))  # fmt: skip
def test_raw_bytes_in_pieces_of_any_size_sync_and_async(name: str, size: int) -> None:
    """#31, 17: a first piece shorter than the 12-byte prelude (or exactly it) is not
    mistaken for text; httpx's ``aiter_bytes()`` pieces read as the whole body."""
    if name == "converse":
        final = stream_vendor_cases.bedrock_final()
        events = stream_vendor_cases.bedrock_events(final)
    else:
        final_of, events_of, _, _ = OPERATIONS[name]
        final = final_of()
        events = events_of(final, (0.5,))
    data = cases.wire(events)
    expected = read(final)
    for pieces in (_cut(data, size), [data[:12], *_cut(data[12:], size)]):
        assert read_stream(pieces) == expected
        assert read_stream(iter(pieces)) == expected
        assert asyncio.run(aread_stream(_arriving(pieces))) == expected
        assert asyncio.run(aread_stream(_arriving(map(bytearray, pieces)))) == expected


@pytest.mark.parametrize("size", [*range(1, 65), 4096])
def test_every_piece_size(size: int) -> None:
    """Each size of #31's list once (the operations in turn), sync and async."""
    test_raw_bytes_in_pieces_of_any_size_sync_and_async.hypothesis.inner_test(  # type: ignore[attr-defined]
        name=[*NAMES, "converse"][size % 4], size=size
    )


def test_a_short_byte_stream_and_sse_byte_lines_still_read() -> None:
    """Buffering the first 12 bytes changes nothing for what is no event stream."""
    sse = stream_vendor_cases.sse(
        stream_vendor_cases.anthropic_events(stream_vendor_cases.anthropic_final())
    ).encode()
    lines = io.BytesIO(sse).readlines()  # short lines first: "event: x\n"
    assert len(lines[0]) < 30
    expected = read(stream_vendor_cases.anthropic_final())
    assert read_stream(lines) == expected
    assert asyncio.run(aread_stream(_arriving(lines))) == expected
    with pytest.raises(StreamError):
        read_stream([b"{"])


def test_an_event_stream_of_another_operation_is_refused() -> None:
    data = cases.message({":event-type": "Records", ":message-type": "event",
                          ":content-type": "application/octet-stream"}, b"a,b\n")  # fmt: skip
    with pytest.raises(StreamError, match="no supported operation: its first event is 'Records'"):
        read_stream(data)


@pytest.mark.parametrize("name", NAMES)
def test_raw_exceptions_raise_naming_the_event(name: str) -> None:
    final_of, events_of, _, _ = OPERATIONS[name]
    events = events_of(final_of(), (0.5,))
    data = cases.wire(events[:2]) + cases.exception("throttlingException", "Zu viele 🔥")
    with pytest.raises(StreamError) as info:
        read_stream(data)
    assert info.value.event == 3 and "throttlingException: 'Zu viele 🔥'" in str(info.value)
    with pytest.raises(StreamError) as info:
        read_stream([*events[:2], {"throttlingException": {"message": "Zu viele 🔥"}}])
    assert info.value.event == 3 and "throttlingException" in str(info.value)


# --- Hostile input: a typed error naming the event, never another exception ------------------


@settings(max_examples=80, deadline=None)
@given(name=st.sampled_from(NAMES), at=st.floats(min_value=0, max_value=1),
       flip=st.integers(min_value=0, max_value=255), cut=st.booleans())  # fmt: skip
def test_cut_or_corrupt_bytes_are_typed(name: str, at: float, flip: int, cut: bool) -> None:
    final_of, events_of, _, _ = OPERATIONS[name]
    data = bytearray(cases.wire(events_of(final_of(), (0.5,))))
    i = min(int(at * len(data)), len(data) - 1)
    if cut:
        data = data[:i]
    else:
        data[i] ^= flip or 1
    try:
        grounded = read_stream(bytes(data))
    except StreamError as exc:  # (no event: the bytes are no event stream, or hold none)
        assert exc.event is not None or i < 12 or cut, str(exc)
        assert len(str(exc)) < 600
    except UnsupportedInputError:
        assert i < 12  # a broken prelude: the bytes are no stream
    else:
        assert grounded.shape == OPERATIONS[name][3]


def _paths(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    out = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*path, key))
    elif isinstance(value, list):
        for j, item in enumerate(value):
            out += _paths(item, (*path, j))
    return out


def _replaced(value: Any, path: tuple[object, ...], new: object) -> Any:
    if not path:
        return new
    head, *rest = path
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replaced(value[head], tuple(rest), new)
    return copy


_WRONG = st.one_of(
    st.integers(),
    st.text(max_size=5),
    st.booleans(),
    st.floats(),
    st.lists(st.integers(), max_size=2),
    st.just({"x": 1}),
    st.binary(max_size=4),
)


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(["retrieve_and_generate", "invoke_agent"]), data=st.data(),
       new=_WRONG)  # fmt: skip
def test_a_field_of_the_wrong_type_is_a_stream_error_naming_event_and_path(
    name: str, data: st.DataObject, new: object
) -> None:
    final_of, events_of, _, _ = OPERATIONS[name]
    events = events_of(final_of(), (0.5,))
    number = data.draw(st.integers(min_value=2, max_value=len(events)))  # the first is seen
    paths = _paths(events[number - 1])
    path = data.draw(st.sampled_from(paths))
    events[number - 1] = _replaced(events[number - 1], path, new)
    try:
        read_stream(events)
    except StreamError as exc:
        later = "not UTF-8" in str(exc)  # a chunk's bytes left out: the next ones break
        assert exc.event == number or exc.event is None or later, str(exc)
        if exc.event is not None and len(path) > 1 and isinstance(path[-1], str):
            assert str(path[-1]) in str(exc) or "not a part of" in str(exc), str(exc)
    except GroundingProtosError:
        pass  # what read reports of the merged response (its values are checked there)


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(st.text(min_size=1, max_size=10), min_size=4, max_size=4),
       cuts=st.lists(st.floats(min_value=0, max_value=1), max_size=8),
       name=st.sampled_from(NAMES))  # fmt: skip
def test_any_cut_of_any_text_streams_back_to_its_final_response(
    texts: list[str], cuts: list[float], name: str
) -> None:
    final_of, events_of, _, _ = OPERATIONS[name]
    final = final_of(texts) if name == "nova" else final_of(texts, (texts[1], texts[3]))
    expected = read(final)
    assert read_stream(events_of(final, cuts)) == expected
    reader = StreamReader()
    placed = [c for event in events_of(final, cuts) for c in reader.feed(event).citations]
    assert reader.finish() == expected
    if name == "nova":  # placed as each block of citations stops, as read places them
        assert placed == expected.citations
    assert read_stream(cases.wire(events_of(final, cuts))) == expected


# --- The command line ------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_cli_renders_each_raw_stream(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    final_of, events_of, _, _ = OPERATIONS[name]
    data = cases.wire(events_of(final_of(), (0.5,)))
    path = tmp_path / "stream.bin"
    path.write_bytes(data)
    assert main(["render", str(path), "--style", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "東京タワー" in out and "[1]" in out, out
    for tty in (True, False):  # stdin read as it arrives (a terminal: the text first)
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
        monkeypatch.setattr("grounding_protos._cli.load._isatty", lambda stream, tty=tty: tty)
        assert main(["render", "--style", "markdown"]) == 0
        shown = capsys.readouterr().out
        assert shown.endswith(out) and ("Grüße" in shown.removesuffix(out)) == tty


@pytest.mark.parametrize(
    ("name", "number", "path", "new", "said"),
    [
        ("retrieve_and_generate", 1, ("output", "text"), 5,
         "output.text is an integer (5), not a string"),
        ("retrieve_and_generate", 2, ("citation", "generatedResponsePart",
         "textResponsePart", "span", "end"), "9",
         "textResponsePart.span.end is a string ('9'), not an"),
        ("retrieve_and_generate", 2, ("citation", "retrievedReferences", 0, "content", "text"),
         ["x"],
         "citation.retrievedReferences[0].content.text is a list (['x']), not a string"),
        ("retrieve_and_generate", 5, ("guardrail", "action"), True,
         "guardrail.action is a boolean (True)"),
        ("invoke_agent", 2, ("chunk", "bytes"), "R3LDvMOf",
         "chunk.bytes is a string ('R3LDvMOf'), not bytes"),
        ("invoke_agent", 3, ("chunk", "attribution", "citations"), {"a": 1},
         "chunk.attribution.citations is an object ({'a': 1}), not a list"),
        ("invoke_agent", 3, ("chunk", "attribution", "citations", 0), "x",
         "chunk.attribution.citations[0] is a string ('x'), not an object"),
        ("invoke_agent", 1, ("trace",), [], "trace is a list ([]), not an object"),
    ],
)  # fmt: skip
def test_each_typed_field_names_its_event_and_path(
    name: str, number: int, path: tuple[object, ...], new: object, said: str
) -> None:
    final_of, events_of, _, _ = OPERATIONS[name]
    events = [*events_of(final_of(), (0.5,))]
    events[number - 1] = _replaced(events[number - 1], path, new)
    first = events[0] if number == 1 else None
    if first is not None:  # the first event unrecognizable: put a good one before it
        events.insert(0, events_of(final_of(), (0.5,))[1])
        number += 1
    with pytest.raises(StreamError) as info:
        read_stream(events)
    assert info.value.event == number and said in str(info.value), str(info.value)


@settings(max_examples=100, deadline=None)
@given(
    name=st.sampled_from(["retrieve_and_generate", "invoke_agent"]),
    cuts=st.lists(st.floats(min_value=0, max_value=1), max_size=6),
    drop=st.sets(st.integers(min_value=0, max_value=12), max_size=3),
    stranger=st.sampled_from([
        None, {"output": {"text": 5}}, {"output": {"text": "x", "y": 1}}, {"output": "x"},
        {"chunk": {"bytes": "x"}}, {"chunk": {"bytes": b"\xff"}}, {"chunk": {"bytes": b""}},
        {"chunk": {"bytes": bytearray(b"ab")}}, {"chunk": {}}, {"chunk": None},
        {"output": {"text": "x"}, "chunk": {"bytes": b"x"}},
    ]),
)  # fmt: skip
def test_the_fast_path_merges_as_the_general_code(
    name: str, cuts: list[float], drop: set[int], stranger: Json | None
) -> None:
    """Random streams (events left out, a stray event put in) merge to the same response,
    problems and errors whether each event takes the fast path or the general code."""
    from grounding_protos._sources.bedrock import invoke_agent_stream, retrieve_and_generate_stream

    final_of, events_of, _, _ = OPERATIONS[name]
    merger_class: Any = {
        "retrieve_and_generate": retrieve_and_generate_stream.RetrieveAndGenerateMerger,
        "invoke_agent": invoke_agent_stream.InvokeAgentMerger,
    }[name]
    events: list[Any] = [e for i, e in enumerate(events_of(final_of(), cuts)) if i not in drop]
    if stranger is not None:
        events.insert(len(events) // 2, stranger)

    def outcome(fast: bool) -> object:
        merger = merger_class()
        merger.fast = fast
        texts: dict[int, str] = {}
        try:
            for number, event in enumerate(events, 1):
                merger.add(number, event, texts)
            return merger.result(), texts
        except StreamError as exc:
            return ("error", exc.event, str(exc))

    assert outcome(True) == outcome(False)


@settings(max_examples=120, deadline=None)
@given(
    name=st.sampled_from(NAMES),
    kind=st.sampled_from(["output", "citation", "guardrail", "chunk", "trace", "returnControl",
                          "files", "contentBlockDelta", "messageStop", "other", ""]),
    message_type=st.sampled_from(["event", "exception", "error", "other"]),
    payload=st.one_of(st.binary(max_size=40), st.sampled_from([
        b"{}", b"[]", b"null", b'{"text": 5}', b'{"bytes": "!!"}', b'{"bytes": 5}',
        b'{"bytes": "/w=="}', b'{"attribution": {"citations": "x"}}', b'{"action": []}',
        b'{"generatedResponsePart": {"textResponsePart": {"span": {"end": "1"}}}}',
        b'{"retrievedReferences": [5]}', b'{"message": "\\ud800"}', b'{"trace": {"x": 1}}'])),
)  # fmt: skip
def test_any_frame_after_a_first_event_reads_or_is_a_typed_error(
    name: str, kind: str, message_type: str, payload: bytes
) -> None:
    """A well-framed message of any type, event type and payload after each operation's
    first events: read, or a StreamError naming it (or the stream, for no answer)."""
    final_of, events_of, _, _ = OPERATIONS[name]
    head = cases.wire(events_of(final_of(), (0.5,))[:2])
    frame = cases.message(
        {":event-type": kind, ":content-type": "application/json", ":message-type": message_type,
         ":exception-type": kind, ":error-code": kind}, payload)  # fmt: skip
    try:
        grounded = read_stream(head + frame)
    except StreamError as exc:
        assert exc.event in (3, None), str(exc)
        assert len(str(exc)) < 600
    except GroundingProtosError as exc:  # what read finds in the merged response
        assert not isinstance(exc, UnsupportedInputError), repr(exc)
    else:
        assert grounded.shape == OPERATIONS[name][3]


@pytest.mark.parametrize(
    "blocks",
    [
        [{"text": ""}, {"citationsContent": {"citations": [{"title": "Leer 🕳"}]}}],
        [{"citationsContent": {"content": [{"text": ""}], "citations": [{"title": "Leer 🕳"}]}}],
        [{"citationsContent": {"content": [], "citations": [{"title": "Leer 🕳"}]}}],
        [{"toolUse": {"toolUseId": "t", "name": "n", "input": {}}},
         {"citationsContent": {"content": None, "citations": [{"title": "Leer 🕳"}]}}],
    ],
)  # fmt: skip
def test_a_citation_of_no_text_is_a_source_never_an_empty_span(blocks: list[Json]) -> None:
    final = {"output": {"message": {"role": "assistant", "content": [
        {"text": "Grüße aus 東京 🗼"}, {"toolUse": {"toolUseId": "t0", "name": "n", "input": {}}},
        *blocks]}}, "stopReason": "end_turn"}  # fmt: skip
    for grounded in (read(final), read_stream(cases.converse_events(final))):
        assert grounded.citations == [] and grounded.text == "Grüße aus 東京 🗼"
        assert [s.title for s in grounded.declared_sources] == ["Leer 🕳"]


@pytest.mark.parametrize("name", ["retrieve_and_generate", "invoke_agent"])
def test_unit_utf16_reads_spans_counted_in_utf16(name: str) -> None:
    """The unit is undocumented: code points by default, ``unit="utf16"`` for the other
    reading (the emoji before the spans count two there)."""
    final_of, events_of, _, _ = OPERATIONS[name]
    final = final_of()
    text = "".join(cases.TEXTS)
    records = final["citations"] if name == "retrieve_and_generate" else (
        final["chunk"]["attribution"]["citations"])  # fmt: skip
    for record in records:
        span = record["generatedResponsePart"]["textResponsePart"]["span"]
        utf16 = [len(text[:i].encode("utf-16-le")) // 2 for i in (span["start"], span["end"])]
        span["start"], span["end"] = utf16
    streamed = events_of(final, (0.5,))
    if name == "retrieve_and_generate":
        for event in streamed:  # the stream's exclusive end, in UTF-16 units
            if "citation" in event:
                part = event["citation"]["generatedResponsePart"]["textResponsePart"]
                part["span"]["end"] = (
                    part["span"]["start"] + len(part["text"].encode("utf-16-le")) // 2
                )
    expected = read(final_of())
    assert read(final, unit="utf16") == expected
    assert read_stream(streamed, unit="utf16") == expected
