"""The command line reads a recorded stream from its file in pieces, as it merges it.

- ``recorded_chunks`` of a file read in pieces cut anywhere (inside a UTF-8
  character, between the CR and LF of a line end, inside a JSON element) gives the
  events the test put in the recording (an oracle built beside it, not the parser's
  own output on the whole text), and a cut recording what arrived;
- ``grounding-protos render FILE`` prints what ``render(read_stream(lines))`` gives
  for the same recording's lines, whatever the size of the pieces it is read in;
- the file is read in pieces of at most ``PIECE`` bytes, and the first event is
  decoded before the file is read to its end;
- the Gemini merger's text of 10,000 fragments (joined in blocks as they come) is
  every fragment in order;
- a whole response read from its bytes (msgspec where it can) is what ``json.loads``
  of its text gives, or the same error.

The recordings are synthetic, in the documented shapes of Gemini's
``streamGenerateContent`` (SSE and JSON array) and of the OpenAI Responses API's
stream events, with German, Japanese, Arabic and astral text before every span.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import grounding_protos._cli.io as cli_io
import grounding_protos._cli.load as load
from grounding_protos._exceptions import StreamError
from grounding_protos._sources import parse
from grounding_protos._sources.parse import Chunk, recorded_chunks
from grounding_protos.citations import read_stream, render
from grounding_protos.cli import main

WORDS = [
    "Grüße ",
    "aus ",
    "Köln",
    "東京の",
    "天気",
    "مرحبا ",
    "بالعالم",
    "🌧",
    "\U0001d518\U0001d52b",
    "é",
    "\n",
]
LINE_ENDS = ["\n", "\r\n", "\r"]


class Pieces(io.RawIOBase):
    """A binary file whose reads end at the given cut points (never more than asked),
    recording the size of every read."""

    def __init__(self, data: bytes, cuts: list[int]) -> None:
        self.data = data
        self.cuts = sorted({c for c in cuts if 0 < c < len(data)} | {len(data)})
        self.position = 0
        self.sizes: list[int] = []

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        self.sizes.append(size)
        end = next(c for c in self.cuts if c > self.position) if self.position < len(
            self.data) else len(self.data)  # fmt: skip
        if size >= 0:
            end = min(end, self.position + size)
        piece = self.data[self.position : end]
        self.position = end
        return piece


texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map("".join)
values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
events = st.lists(st.dictionaries(texts, values, max_size=3), min_size=1, max_size=6)


def sse(values: Sequence[object], ends: list[str], comments: bool) -> str:
    out = []
    for i, value in enumerate(values):
        end = ends[i % len(ends)]
        if comments:
            out.append(f": keep-alive 東京{end}")
        out.append(f"data: {json.dumps(value, ensure_ascii=False)}{end}{end}")
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(
    events,
    st.lists(st.sampled_from(LINE_ENDS), min_size=1, max_size=3),
    st.booleans(),
    st.booleans(),
    st.lists(st.integers(0, 400), max_size=60),
)
def test_sse_read_in_pieces_gives_the_events_recorded(
    values: list[object], ends: list[str], comments: bool, bom: bool, cuts: list[int]
) -> None:
    data = ("\ufeff" if bom else "").encode() + sse(values, ends, comments).encode()
    got = list(recorded_chunks(Pieces(data, cuts)))
    assert got == [Chunk(n, v) for n, v in enumerate(values, 1)]


def outcome(source: object) -> object:
    """The events of a recording, or the error it gives."""
    try:
        return list(recorded_chunks(source))  # type: ignore[arg-type]
    except StreamError as exc:  # compared, not hidden
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(values, min_size=1, max_size=6),  # numbers too, which end where the text may
    st.sampled_from(["", " ", "\n", "\r\n  "]),
    st.lists(st.integers(0, 400), max_size=60),
    st.integers(1, 16),
    st.one_of(st.none(), st.integers(0, 500)),
)
def test_json_array_read_in_pieces_gives_the_elements_recorded(
    values: list[object], space: str, cuts: list[int], piece: int, cut_at: int | None
) -> None:
    values = [{"pad": "Köln 東京 " * 8}, *values]  # past the 64 characters read to tell the format
    text = "[" + space + ("," + space).join(json.dumps(v, ensure_ascii=False) for v in values)
    data = (text + space + "]" + space).encode()
    with mock.patch.object(parse, "PIECE", piece):  # elements read across many pieces
        if cut_at is None or cut_at >= len(data):
            assert list(recorded_chunks(Pieces(data, cuts))) == [
                Chunk(n, v) for n, v in enumerate(values, 1)
            ]
            return
        # A recording cut short: what the text in pieces gives is what the whole text
        # gives (the elements before the cut, then a Truncated, or a cut string's error).
        cut = data[:cut_at].decode("utf-8", "ignore")
        assert outcome(Pieces(cut.encode(), cuts)) == outcome(cut)


@pytest.mark.parametrize("end", LINE_ENDS)
def test_an_error_names_the_byte_of_the_whole_file(end: str) -> None:
    bad = b"\xe6\x9d\xff"
    data = sse([{"a": "東京"}], [end], False).encode() + b'data: {"b": "' + bad + b'"}\n\n'
    for cuts in ([], list(range(len(data))), [len(data) - 9, len(data) - 8]):
        with pytest.raises(StreamError, match=r"the stream is not UTF-8: .* at byte (\d+)") as info:
            list(recorded_chunks(Pieces(data, cuts)))
        assert f"at byte {data.index(bad)}" in str(info.value)
    good = sse([{"a": "東京"}], [end], False).encode() + b'data: {"c": "\xe6\x9d'
    with pytest.raises(StreamError, match=f"unexpected end of data at byte {len(good) - 2}$"):
        list(recorded_chunks(Pieces(good, [len(good) - 1])))


def gemini_sse(fragments: list[str], ends: list[str]) -> tuple[str, str]:
    """A Gemini SSE recording of ``fragments`` and grounding on the last chunk (a support
    of each fragment's last character), and the answer."""
    chunks: list[dict[str, Any]] = []
    supports = []
    size = 0
    for text in fragments:
        end = size + len(text.encode())
        supports.append({"segment": {"startIndex": end - len(text[-1].encode()),
                                     "endIndex": end}, "groundingChunkIndices": [0]})  # fmt: skip
        size = end
        content = {"role": "model", "parts": [{"text": text}]}
        chunks.append({"candidates": [{"content": content, "index": 0}], "modelVersion": "g"})
    last = chunks[-1]["candidates"][0]
    last["finishReason"] = "STOP"
    last["groundingMetadata"] = {
        "groundingChunks": [{"web": {"uri": "https://köln.example/", "title": "Köln"}}],
        "groundingSupports": supports,
    }
    return sse(chunks, ends, False), "".join(fragments)


def responses_sse(fragments: list[str]) -> str:
    """An OpenAI Responses API stream: text deltas, one ``url_citation`` (character
    offsets) of the last fragment, the completed response."""
    text = "".join(fragments)
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    note = {"type": "url_citation", "start_index": len(text) - len(fragments[-1]),
            "end_index": len(text), "url": "https://t.example/", "title": "東京"}  # fmt: skip
    part = {"type": "output_text", "text": text, "annotations": [note]}
    item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
            "content": [part]}  # fmt: skip
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
    out: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**item, "status": "in_progress", "content": []}},
        {"type": "response.content_part.added", **where,
         "part": {"type": "output_text", "text": "", "annotations": []}},
        *({"type": "response.output_text.delta", **where, "delta": f} for f in fragments),
        {"type": "response.output_text.annotation.added", **where, "annotation_index": 0,
         "annotation": note},
        {"type": "response.output_text.done", **where, "text": text},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed",
         "response": {**response, "status": "completed", "output": [item]}},
    ]  # fmt: skip
    return "".join(
        f"event: {e['type']}\r\ndata: {json.dumps(e, ensure_ascii=False)}\r\n\r\n" for e in out
    )


def cli_render(path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[int, str]:
    code = main(["render", str(path)])
    return code, capsysbinary.readouterr().out.decode("utf-8")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    fragments=st.lists(texts, min_size=1, max_size=6),
    ends=st.lists(st.sampled_from(LINE_ENDS), min_size=1, max_size=2),
    kind=st.sampled_from(["sse", "json-array", "responses"]),
    piece=st.integers(1, 40),
    cut=st.booleans(),
)
def test_cli_on_a_file_is_read_stream_of_its_lines(
    fragments: list[str],
    ends: list[str],
    kind: str,
    piece: int,
    cut: bool,
    tmp_path_factory: pytest.TempPathFactory,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if kind == "sse":
        text, _ = gemini_sse(fragments, ends)
    elif kind == "responses":
        text = responses_sse(fragments)
    else:
        sse_text, _ = gemini_sse(fragments, ends)
        values = [json.loads(line[6:]) for line in sse_text.splitlines() if line.strip()]
        text = json.dumps(values, ensure_ascii=False, indent=1)
    if cut:  # a recording cut short, inside an event
        text = text[: len(text) * 2 // 3]
    path = tmp_path_factory.mktemp("cli") / "recording"
    path.write_bytes(text.encode())
    monkeypatch.setattr(parse, "PIECE", piece)  # pieces that cut characters and CRLF
    code, out = cli_render(path, capsysbinary)
    lines = text.splitlines(keepends=True) if kind != "json-array" else [text]
    try:
        expected = render(read_stream(iter(lines) if kind != "json-array" else text))
    except StreamError:  # a recording cut before any response: both fail
        assert code == 2
        return
    problems = read_stream(iter(lines) if kind != "json-array" else text).problems
    serious = {"stream-incomplete", "stream-truncated"} & {p.code for p in problems}
    assert (code, out) == (1 if serious else 0, expected)


class Recorder:
    """A file whose reads are recorded (their sizes, and how far the file was read)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.sizes: list[int] = []

    def read(self, size: int = -1) -> bytes:
        self.sizes.append(size)
        return self.stream.read(size)  # type: ignore[no-any-return]

    def fileno(self) -> int:
        return self.stream.fileno()  # type: ignore[no-any-return]

    def tell(self) -> int:
        return self.stream.tell()  # type: ignore[no-any-return]

    def close(self) -> None:
        self.stream.close()


def test_the_cli_reads_a_file_in_bounded_pieces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    from grounding_protos._sources.google.gemini import merger

    fragments = [f"Grüße aus Köln, 東京 {i} 🌧 مرحبا. " * 20 for i in range(400)]
    text, answer = gemini_sse(fragments, ["\r\n"])
    path = tmp_path / "big.sse"
    path.write_bytes(text.encode())
    opened: list[Recorder] = []
    first_event_at: list[int] = []
    real_open, real_add = cli_io.open_input, merger.Merger.add

    def recording_open(name: str | None) -> Recorder:
        opened.append(Recorder(real_open(name)))
        return opened[-1]

    def add(self: Any, number: int, chunk: object, texts: Any = None) -> None:
        if number == 1:
            first_event_at.append(opened[0].tell())
        real_add(self, number, chunk, texts)

    monkeypatch.setattr(load, "open_input", recording_open)
    monkeypatch.setattr(merger.Merger, "add", add)
    code, out = cli_render(path, capsysbinary)
    assert code == 0
    assert out.startswith(answer[:50])
    sizes = opened[0].sizes
    assert len(sizes) > path.stat().st_size // parse.PIECE > 4
    assert max(sizes) <= parse.PIECE and min(sizes) > 0
    # the first event is merged after the first 256 bytes and two pieces (one read ahead)
    assert first_event_at[0] <= 256 + 2 * parse.PIECE < path.stat().st_size


@pytest.mark.parametrize("style", ["markdown", "plain"])
def test_the_cli_writes_the_answer_in_pieces(
    style: Literal["markdown", "plain"], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``render`` writes the answer's slices and markers one by one, each of at most
    ``_PIECE`` characters: the output is never one more copy of the answer in memory,
    and it is exactly what ``citations.render`` gives."""
    fragments = [f"Grüße aus Köln, 東京 {i} 🌧 مرحبا.\n\n" * (1 + i % 7) for i in range(300)]
    fragments[150] = "`code \U0001d518\U0001d52b` " + fragments[150]  # code, astral
    text, _ = gemini_sse(fragments, ["\r\n"])
    path = tmp_path / "big.sse"
    path.write_bytes(text.encode())
    written: list[int] = []
    real_write = cli_io.Output.write

    def write(self: cli_io.Output, data: bytes) -> None:
        written.append(len(data))
        real_write(self, data)

    monkeypatch.setattr(cli_io, "_PIECE", 1000)
    monkeypatch.setattr(cli_io.Output, "write", write)
    out = tmp_path / "answer.txt"
    assert main(["render", str(path), "--style", style, "-o", str(out)]) == 0
    grounded = read_stream(iter(text.splitlines(keepends=True)))
    expected = render(grounded, style).encode()
    assert out.read_bytes() == expected
    assert len(written) > len(expected) // 4000 > 10
    assert max(written) <= 4 * 1000 < len(expected) // 10


@pytest.mark.parametrize("extra", [{}, {"thoughtSignature": "c2ln"}])
def test_a_stream_of_many_chunks_keeps_its_text(extra: dict[str, str]) -> None:
    """The merger joins the fragments of a long text part in blocks as they come: the
    text is still every fragment in order (fast path, and the general one)."""
    fragments = [WORDS[i % len(WORDS)] + str(i) for i in range(10_000)]
    chunks: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": f, **extra}]}}]}
        for f in fragments
    ]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    assert read_stream(chunks).text == "".join(fragments)
    lines = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks)
    assert read_stream(lines).text == "".join(fragments)


EDGES = [
    *(b"NaN", b"1e400", b"-0", b"-0.0", b"1" + b"0" * 5000, b"12345678901234567890123"),
    *(b'"\\ud800"', b'"\\u00e9\xc3\xa9"', b'"x\ny"', b"[1,]", b"tru", b"\xff", b"01"),
]


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(texts, values, max_size=4),
    st.lists(st.sampled_from(EDGES), max_size=2),
    st.sampled_from([b"", b"\xef\xbb\xbf", b" \n"]),
)
def test_a_document_is_what_json_loads_gives(
    value: dict[str, object], edges: list[bytes], before: bytes
) -> None:
    """A response file read from its bytes (msgspec where it can) gives what
    ``json.loads`` of its text gives, or the same error."""
    body = json.dumps(value, ensure_ascii=False).encode()
    for n, edge in enumerate(edges):  # values json.loads and msgspec may take apart
        body = body[:-1] + (b", " if len(body) > 2 else b"") + f'"e{n}": '.encode() + edge + b"}"
    data = before + body
    try:
        text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
        expected: object = json.loads(text)
    except ValueError:  # (UnicodeDecodeError and JSONDecodeError too)
        expected = "error"
    try:
        got: object = cli_io.parse_json_document(data, "in")
    except cli_io.Failure:
        got = "error"
    assert repr(got) == repr(expected)  # (repr: NaN is not equal to itself)


_HEADS = st.sampled_from([b"", b"data: ", b'data: {"candidates": [', b"[", b'[{"candidates": ',
                          b"\xef\xbb\xbf[", b"event: x\r\ndata: ", b"\xff\xfe[\x00"])  # fmt: skip


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(_HEADS, st.binary(max_size=300), st.sampled_from([b"", b"\n\n", b"]"]))
def test_a_damaged_recording_file_is_a_typed_error(
    tmp_path: Path, head: bytes, body: bytes, tail: bytes
) -> None:
    """Whatever bytes a recording's file holds, ``read_stream`` of its path reads it or
    raises the package's own error, never another exception."""
    from grounding_protos import GroundingProtosError

    path = tmp_path / "damaged.sse"
    path.write_bytes(head + body + tail)
    with contextlib.suppress(GroundingProtosError):
        read_stream(path)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.lists(st.sampled_from(WORDS), max_size=4).map("".join),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "text", "ü", "東"]), inner, max_size=3)
    ),
    max_leaves=8,
)


def _outcome(decode: Any) -> tuple[str, object]:
    try:
        return "value", decode()
    except StreamError as exc:
        return "error", str(exc)


@example(value={"a": "Köln"}, cut=4, before="data: ", after="\n: 1}\n")  # '{"a"' + ': 1}'
@given(
    value=json_values,
    cut=st.integers(0, 60),
    before=st.sampled_from(["", "data: ", "data:  \t"]),
    after=st.sampled_from(["", "\n", "\r\n", "\n: 1}\n", "\n\ndata: {}\n", " x\n", "}\n", "]"]),
)
def test_data_decoded_where_it_is_is_json_loads_of_its_slice(
    value: object, cut: int, before: str, after: str
) -> None:
    """An SSE event's data is parsed in the piece it came in, not copied out of it
    (a recorded event can be tens of MB): the value, or the error, is the one of
    ``json.loads`` of its slice, also when what follows the slice would complete a
    value cut short (``{"a"`` then a comment line ``: 1}``)."""
    data = json.dumps(value, ensure_ascii=False)
    data = data[: max(cut, 1)] if cut < len(data) else data  # some cut short
    text = before + data + after
    start, end = len(before), len(before) + len(data)
    assert _outcome(lambda: parse._decode_in(1, text, start, end)) == _outcome(
        lambda: parse.decode_json(1, text[start:end])
    )


@pytest.mark.parametrize("end", LINE_ENDS)
def test_an_event_cut_short_is_not_completed_by_the_lines_after_it(end: str) -> None:
    parser = parse.SSEParser()
    text = f'data: {{"text"{end}: "Köln"}}{end}{end}data: {{"a": 1}}{end}{end}'
    with pytest.raises(StreamError, match="malformed JSON") as caught:
        parser.feed(text)
    assert caught.value.event == 1
    events = parse.SSEParser().feed(f'data: {{"text": "東京"}}{end}: note{end}{end}')
    assert events == [Chunk(1, {"text": "東京"})]
