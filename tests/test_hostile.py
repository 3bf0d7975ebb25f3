"""Hostile and careless inputs (issue 26): many parts, huge values, deep nesting,
control characters, write failures. Each test feeds the hostile input itself; the
oracles are computed here by hand."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import validate
from grounding_protos.citations import read
from grounding_protos.cli import main

# multi-script pieces, astral characters before the citations
PIECES = [
    "Grüße 👍🏽 aus Köln. ",
    "東京タワーは333メートル。",
    "한국어 문장 😀. ",
    "Ελληνικά τέλος. ",
]


def test_many_text_parts_are_placed_by_their_part_index() -> None:
    """Thousands of parts, thought parts among them, each cited by ``partIndex``."""
    parts: list[dict[str, Any]] = []
    texts: list[str] = []
    supports = []
    for i in range(3_000):
        if i % 7 == 3:
            parts.append({"text": "thinking…", "thought": True})
            continue
        text = PIECES[i % len(PIECES)]
        parts.append({"text": text})
        texts.append(text)
        cut = len(text) // 2  # the second half of the part
        supports.append({
            "segment": {"partIndex": i, "startIndex": len(text[:cut].encode("utf-8")),
                        "endIndex": len(text.encode("utf-8"))},
            "groundingChunkIndices": [0],
        })  # fmt: skip
    grounded = read({"candidates": [{
        "content": {"parts": parts},
        "groundingMetadata": {"groundingChunks": [{"web": {"uri": "https://a.example"}}],
                              "groundingSupports": supports},
    }]})  # fmt: skip
    assert grounded.text == "".join(texts) and not grounded.problems
    offset = 0
    expected = []
    for text in texts:  # the oracle: where each part's second half is in the joined text
        expected.append((offset + len(text) // 2, offset + len(text), text[len(text) // 2 :]))
        offset += len(text)
    assert [(c.char_start, c.char_end, c.text) for c in grounded.citations] == expected


# --- Error messages quote a bounded excerpt of the input -------------------------------

HUGE = "Ж" * 2_000_000  # two million characters: a message quoting it whole is 2 MB
BOUND = 1_500  # a message may quote several values, each cut at 200 characters


def _gemini(segment: dict[str, Any], indices: object = (0,), **chunk: Any) -> dict[str, Any]:
    return {"candidates": [{
        "content": {"parts": [{"text": "Grüße 👍🏽 aus Köln."}]},
        "groundingMetadata": {
            "groundingChunks": [{"web": {"uri": "https://k.example", "title": "K", **chunk}}],
            "groundingSupports": [{"segment": segment, "groundingChunkIndices": indices}],
        },
    }]}  # fmt: skip


HOSTILE_SPANS: dict[str, dict[str, Any]] = {
    "huge string startIndex": _gemini({"startIndex": HUGE, "endIndex": 3}),
    "huge digit string": _gemini({"startIndex": "7" * 1_000_000, "endIndex": 3}),
    "huge dict startIndex": _gemini({"startIndex": {HUGE: HUGE}, "endIndex": 3}),
    "long list startIndex": _gemini({"startIndex": list(range(100_000)), "endIndex": 3}),
    "huge int endIndex": _gemini({"startIndex": 0, "endIndex": 10**4000}),
    "huge chunk index": _gemini({"startIndex": 0, "endIndex": 3}, [HUGE]),
    "huge digit chunk index": _gemini({"startIndex": 0, "endIndex": 3}, ["9" * 1_000_000]),
    "huge segment text": _gemini({"startIndex": 0, "endIndex": 3, "text": HUGE}),
}


def _messages(call: Any) -> list[str]:
    """The messages of the problems ``call`` returns, or of what it raises."""
    from grounding_protos import GroundingProtosError

    try:
        result = call()
    except GroundingProtosError as exc:
        return [str(exc)]
    problems = result if isinstance(result, list) else result.problems
    return [str(p) for p in problems]


@pytest.mark.parametrize("name", sorted(HOSTILE_SPANS))
def test_read_and_validate_quote_bounded_excerpts(name: str) -> None:
    data = HOSTILE_SPANS[name]
    for call in (
        lambda: read(data, errors="strict"),
        lambda: read(data, errors="skip"),
        lambda: validate(data),
    ):
        messages = _messages(call)
        assert messages, name
        for message in messages:
            assert len(message) < BOUND, (name, message[:300])


def test_codec_errors_quote_bounded_excerpts() -> None:
    from grounding_protos import JSONParseError, codec
    from grounding_protos.discoveryengine_v1 import Answer

    for data in (
        {"answerText": HUGE, "citations": HUGE},
        {"citations": [{"startIndex": HUGE}]},
        {"citations": [{"startIndex": [HUGE]}]},
        {HUGE: 1},
        {"citations": {HUGE: HUGE}},
        {"answerText": {"k": HUGE}},
    ):
        with pytest.raises(JSONParseError) as info:
            codec.from_dict(Answer, data)
        assert len(str(info.value)) < BOUND, str(info.value)[:300]


def test_stream_errors_quote_bounded_excerpts() -> None:
    from grounding_protos import StreamError
    from grounding_protos.citations import read_stream

    big = json.dumps({"error": {"code": 429, "message": HUGE}})
    for stream in (
        f"event: error\ndata: {big}\n\n",
        f"data: {big}\n\n",
        f"event: error\ndata: {json.dumps(HUGE)}\n\n",
        f"data: {json.dumps({HUGE: 1})}\n\n",
        f"event: {HUGE}\ndata: {{}}\n\n",
    ):
        with pytest.raises(StreamError) as info:
            read_stream(stream)
        assert len(str(info.value)) < BOUND, str(info.value)[:300]


def test_the_cli_writes_bounded_error_lines(tmp_path: Path) -> None:
    """``inspect`` and ``validate`` of a 2-million-character ``startIndex``: each line
    of their output and of stderr stays short."""
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(HOSTILE_SPANS["huge string startIndex"]), encoding="utf-8")
    for command in ("inspect", "validate", "render"):
        out, err = io.BytesIO(), io.StringIO()
        with contextlib.redirect_stderr(err), _stdout(out):
            main([command, str(path)])
        for line in [*out.getvalue().decode("utf-8").splitlines(), *err.getvalue().splitlines()]:
            assert len(line) < BOUND, (command, line[:300])
        assert len(out.getvalue()) + len(err.getvalue()) < 20_000, command


@contextlib.contextmanager
def _stdout(buffer: io.BytesIO) -> Iterator[None]:
    old = sys.stdout
    sys.stdout = io.TextIOWrapper(buffer, encoding="utf-8", write_through=True)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stdout.detach()
        sys.stdout = old


# --- Write failures -----------------------------------------------------------------------

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "gemini_response.json"
FULL = Path("/dev/full")


def _run(*argv: str, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        [sys.executable, "-m", "grounding_protos", *argv],
        capture_output="stdout" not in kwargs, env=env, timeout=120, check=False, **kwargs,
    )  # fmt: skip


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full")
@pytest.mark.parametrize(
    "argv",
    [
        ["render", str(EXAMPLE), "-o", str(FULL)],
        ["inspect", str(EXAMPLE), "--json", "-o", str(FULL)],
        ["render", "--jsonl", "-o", str(FULL)],
        ["validate", "--jsonl", "--errors", str(FULL)],
    ],
)
def test_a_full_disk_is_a_one_line_error(argv: list[str]) -> None:
    line = json.dumps(json.loads(EXAMPLE.read_text(encoding="utf-8"))) + "\n" + "[]\n"
    done = _run(*argv, input=line.encode("utf-8"))
    err = done.stderr.decode("utf-8")
    assert done.returncode == 2, err
    assert err.splitlines()[-1] == (
        "grounding-protos: error: cannot write '/dev/full': No space left on device"
    ), err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full")
def test_stdout_on_a_full_disk_is_a_one_line_error() -> None:
    with FULL.open("wb") as full:
        done = _run("render", str(EXAMPLE), stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert done.stderr.decode("utf-8") == (
        "grounding-protos: error: cannot write '<stdout>': No space left on device\n"
    )


@pytest.mark.skipif(os.name != "posix", reason="closes descriptor 1 with a POSIX shell")
@pytest.mark.parametrize("argv", [["render", str(EXAMPLE)], ["types"], ["render", "--jsonl"]])
def test_a_closed_stdout_is_a_one_line_error(argv: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "grounding_protos", *argv])
    done = subprocess.run(
        ["sh", "-c", f"{command} >&- < {shlex.quote(str(EXAMPLE))}"],
        capture_output=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    err = done.stderr.decode("utf-8")
    assert done.returncode == 2, err
    assert err.splitlines()[-1] == (  # a batch says first what its lines hold
        "grounding-protos: error: cannot write '<stdout>': stdout is closed; use -o FILE"
    ), err
    assert "internal error" not in err and "Traceback" not in err


# --- Deep nesting: typed errors with a path, never RecursionError --------------------------


def _nested(depth: int, kind: str) -> object:
    value: object = 1
    for _ in range(depth):
        value = {"a": value} if kind == "dict" else [value]
    return value


@pytest.mark.parametrize("kind", ["dict", "list"])
def test_a_deeply_nested_start_index_is_a_typed_error_with_its_path(kind: str) -> None:
    from grounding_protos import CitationError
    from grounding_protos.citations import read_stream

    deep = _nested(50_000, kind)
    data = _gemini({"startIndex": deep, "endIndex": 3})
    with pytest.raises(CitationError) as info:
        read(data)
    assert (
        info.value.path
        == "candidates[0].grounding_metadata.grounding_supports[0].segment.start_index"
    )
    assert info.value.code == "not-an-integer"
    codes = {p.code for p in validate(data)}
    assert codes and codes <= {"not-an-integer", "invalid-json-value"}, codes
    meta = {"citations": [{"startIndex": deep}]}
    cited = {"candidates": [{"content": {"parts": [{"text": "Köln"}]}, "finishReason": "STOP",
                             "citationMetadata": meta}]}  # fmt: skip
    with pytest.raises(CitationError) as info:
        read_stream([cited, cited])
    assert info.value.code == "not-an-integer"


def _answer_events(struct_data: object) -> list[dict[str, Any]]:
    return [
        {"answer": {"state": "STREAMING", "answerText": "Köln liegt am Rhein. "}},
        {"answer": {
            "state": "SUCCEEDED", "answerText": "東京は首都です。😀",
            "citations": [{"startIndex": "22", "endIndex": "46",
                           "sources": [{"referenceId": "0"}]}],
            "references": [{"structuredDocumentInfo": {
                "document": "d/1", "title": "Tokyo", "uri": "https://t.example",
                "structData": struct_data,
            }}],
        }},
    ]  # fmt: skip


def test_deep_struct_data_in_a_streamed_answer_reads_and_validates_with_a_path() -> None:
    """600 levels of ``structData`` in a 3 KB ``:streamAnswer`` event."""
    from grounding_protos.citations import read_stream

    events = _answer_events(_nested(600, "dict"))
    sse = "".join(f"data: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events)
    assert len(sse.encode("utf-8")) < 5_000
    grounded = read_stream(sse)
    assert [c.text for c in grounded.citations] == ["東京は首都です。"]
    assert not grounded.problems
    problems = validate({"answer": {**events[1]["answer"], "answerText": grounded.text}})
    assert [p.code for p in problems] == ["invalid-json-value"]
    assert "structData.a.a" in problems[0].message and "too deep" in problems[0].message


# --- The CLI reads recorded Discovery Engine streams ---------------------------------------


@pytest.mark.parametrize("form", ["sse", "json-array", "jsonl"])
def test_the_cli_reads_a_recorded_stream_answer(form: str, tmp_path: Path) -> None:
    from grounding_protos.citations import render as render_text
    from grounding_protos.citations import source_list

    events = _answer_events({"k": "v"})
    if form == "sse":
        body = "".join(f"data: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events)
    elif form == "json-array":
        body = json.dumps(events, ensure_ascii=False, indent=1)
    else:
        body = json.dumps(events, ensure_ascii=False) + "\n"
    path = tmp_path / "answer.rec"
    path.write_text(body, encoding="utf-8")
    # the oracle: the same answer, not streamed, written out by hand
    whole = {**events[1]["answer"], "answerText": "Köln liegt am Rhein. 東京は首都です。😀"}
    grounded = read(whole)
    assert [c.text for c in grounded.citations] == ["東京は首都です。"]
    marked = render_text(grounded.text or "", grounded.citations)
    listed = source_list(grounded.text or "", grounded.citations, uncited=grounded.uncited_sources)
    out, err = io.BytesIO(), io.StringIO()
    argv = ["render", str(path)] + (["--jsonl"] if form == "jsonl" else [])
    with contextlib.redirect_stderr(err), _stdout(out):
        code = main(argv)
    assert code == 0, err.getvalue()
    text = out.getvalue().decode("utf-8")
    if form == "jsonl":
        record = json.loads(text)
        assert record["ok"] is True, record
        text = record["output"]
    assert text.startswith(marked) and text.rstrip().endswith(listed.strip())
    with contextlib.redirect_stderr(err), _stdout(out):
        assert main(["inspect", str(path)]) == 0  # a one-line array is a stream too


def test_the_cli_says_an_interrupted_stream_answer_is_incomplete(tmp_path: Path) -> None:
    path = tmp_path / "cut.sse"
    path.write_text(f"data: {json.dumps(_answer_events({})[0])}\n\n", encoding="utf-8")
    out, err = io.BytesIO(), io.StringIO()
    with contextlib.redirect_stderr(err), _stdout(out):
        code = main(["render", str(path)])
    assert code == 1
    assert "stream-incomplete" in err.getvalue() or "state STREAMING" in err.getvalue()
    assert out.getvalue().decode("utf-8").startswith("Köln liegt am Rhein.")


# --- --workers: never more processes than CPUs or lines -------------------------------------


def _line() -> bytes:
    return json.dumps(json.loads(EXAMPLE.read_text(encoding="utf-8"))).encode() + b"\n"


@pytest.mark.parametrize(
    ("requested", "lines", "cap", "started", "note"),
    [
        ("200", 1, 8, None, True),  # one line: in-process, no pool at all
        ("100000", 3, 8, 3, True),  # clamped to the CPUs, then to the lines
        ("0", 20, 4, 4, False),  # one per CPU
        ("3", 20, 4, 3, False),
        ("2", 1, 4, None, False),
    ],
)
def test_workers_are_capped_by_the_cpus_and_the_lines(
    requested: str, lines: int, cap: int, started: int | None, note: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from concurrent.futures import ThreadPoolExecutor

    from grounding_protos._cli import batch
    from grounding_protos._cli.commands import process_line

    pools: list[int] = []

    def pool(max_workers: int, **_: Any) -> ThreadPoolExecutor:
        pools.append(max_workers)
        return ThreadPoolExecutor(max_workers)  # threads: the count is what is tested

    monkeypatch.setattr(batch, "cpu_cap", lambda: cap)
    monkeypatch.setattr(batch, "ProcessPoolExecutor", pool)
    monkeypatch.setattr(batch, "_worker_options", None)
    monkeypatch.setattr(batch, "_run_chunk", lambda chunk: [
        process_line(options[0], n, raw) for n, raw in chunk
    ])  # fmt: skip
    options: list[Any] = []
    real_run = batch.run

    def run(opts: Any, *args: Any, **kwargs: Any) -> Any:
        options.append(opts)
        return real_run(opts, *args, **kwargs)

    monkeypatch.setattr(batch, "run", run)
    stdin = io.TextIOWrapper(io.BytesIO(_line() * lines))
    monkeypatch.setattr(sys, "stdin", stdin)
    out, err = io.BytesIO(), io.StringIO()
    with contextlib.redirect_stderr(err), _stdout(out):
        code = main(["render", "--jsonl", "--workers", requested])
    assert code == 0, err.getvalue()
    assert len(out.getvalue().splitlines()) == lines
    assert pools == ([] if started is None else [started])
    said = f"--workers {requested} is more than the {cap} CPUs: using {cap}"
    assert (said in err.getvalue()) is note, err.getvalue()


# --- --max-input -------------------------------------------------------------------------------


def _cli(argv: list[str], stdin: bytes | None = None) -> tuple[int, str, bytes]:
    out, err = io.BytesIO(), io.StringIO()
    old = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        with contextlib.redirect_stderr(err), _stdout(out):
            code = main(argv)
    finally:
        sys.stdin = old
    return code, err.getvalue(), out.getvalue()


LIMIT_ERROR = "is larger than the input limit of {}: raise it with --max-input SIZE"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize("jsonl", [False, True])
def test_dev_zero_stops_at_the_input_limit(jsonl: bool) -> None:
    code, err, _ = _cli(["render", "/dev/zero", "--max-input", "1M", *(["--jsonl"] * jsonl)])
    assert code == 2
    what = "line 1 of /dev/zero" if jsonl else "/dev/zero"
    assert err.startswith(f"grounding-protos: error: {what} {LIMIT_ERROR.format('1 MiB')}"), err
    assert len(err.splitlines()) == 1


def test_the_input_limit_is_exact(tmp_path: Path) -> None:
    data = EXAMPLE.read_bytes()
    path = tmp_path / "answer.json"
    path.write_bytes(data)
    size = len(data)  # the oracle: the file's length
    assert _cli(["inspect", str(path), "--max-input", str(size)])[0] == 0
    code, err, out = _cli(["inspect", str(path), "--max-input", str(size - 1)])
    assert code == 2 and not out
    assert LIMIT_ERROR.format(f"{size - 1:,} bytes") in err
    assert _cli(["inspect", str(path), "--max-input", "0"])[0] == 0
    # a batch: the limit is per line, not for the whole input
    line = _line()
    lines = line * 5
    assert _cli(["render", "--jsonl", "--max-input", str(len(line))], stdin=lines)[0] == 0
    code, err, out = _cli(["render", "--jsonl", "--max-input", str(len(line) - 1)], stdin=lines)
    assert code == 2 and LIMIT_ERROR.format(f"{len(line) - 1:,} bytes") in err
    assert "line 1 of <stdin>" in err


@pytest.mark.parametrize("size", ["12X", "-1", "", "1.5M"])
def test_a_bad_input_limit_is_a_usage_error(size: str) -> None:
    code, err, _ = _cli(["render", "--max-input", size, str(EXAMPLE)])
    assert code == 2 and "--max-input" in err and len(err.splitlines()) == 1


# --- Terminals: control characters of the input shown escaped ------------------------------

OSC52 = "\x1b]52;c;SGVsbG8=\x07"  # a clipboard write
CONTROLS = f"{OSC52}\x1b[2J\r\x9b31m"  # and a screen clear, a carriage return, C1 CSI
HOSTILE_TEXT = f"Grüße {CONTROLS}aus Köln. 東京😀"


def _hostile_response() -> dict[str, Any]:
    data = HOSTILE_TEXT.encode("utf-8")
    return {"candidates": [{
        "content": {"parts": [{"text": HOSTILE_TEXT}]},
        "finishReason": "STOP",
        "groundingMetadata": {
            "webSearchQueries": [f"köln {OSC52}"],
            "groundingChunks": [{"web": {"uri": f"https://k.example/{OSC52}",
                                         "title": f"K{CONTROLS}"}}],
            "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": len(data)},
                                   "groundingChunkIndices": [0]}],
        },
    }]}  # fmt: skip


class _Terminal(io.TextIOWrapper):
    def isatty(self) -> bool:
        return True


RAW = {chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]} - {"\n", "\t"}


@pytest.mark.parametrize(
    "argv",
    [["render"], ["render", "--style", "plain"], ["render", "--footnotes"], ["inspect"],
     ["validate"], ["render", "--style", "html"]],
)  # fmt: skip
def test_a_terminal_gets_control_characters_escaped(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(_hostile_response(), ensure_ascii=False), encoding="utf-8")
    buffer = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", _Terminal(buffer, encoding="utf-8", write_through=True))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        main([*argv, str(path)])
    shown = buffer.getvalue().decode("utf-8") + err.getvalue()
    assert not RAW & set(shown), sorted(RAW & set(shown))
    if argv[0] == "render" and "html" not in argv:
        assert "\\x1b]52;c;SGVsbG8=\\x07" in shown and "\\u009b31m" in shown


@pytest.mark.parametrize("style", ["markdown", "plain"])
def test_a_file_or_pipe_gets_the_text_byte_exact(
    style: Literal["markdown", "plain"], tmp_path: Path
) -> None:
    from grounding_protos.citations import render as render_text

    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(_hostile_response(), ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "out.txt"
    assert main(["render", "--style", style, str(path), "-o", str(out)]) == 0
    written = out.read_bytes().decode("utf-8")
    grounded = read(_hostile_response())
    marked = render_text(HOSTILE_TEXT, grounded.citations, style=style)
    assert written.startswith(marked) and OSC52 in marked
    assert "\x1b" in written[len(marked) :]  # the title's, as the style writes it
    piped = _run("render", "--style", style, str(path))
    assert piped.returncode == 0 and piped.stdout == out.read_bytes()


# --- Redirect resolution: the path as sent, https and port 443 on Google's host ------------

GOOGLE = "vertexaisearch.cloud.google.com"
SEGMENTS = st.sampled_from(["..", ".", "%2e%2e", "%2E", ".%2e", "A", "AUZIYQ", "a..b", "", "%2f"])


@settings(max_examples=300, deadline=None)
@given(st.lists(SEGMENTS, min_size=1, max_size=6))
def test_a_redirect_is_asked_only_if_httpx_sends_it_under_the_redirect_path(
    segments: list[str],
) -> None:
    httpx = pytest.importorskip("httpx")
    from grounding_protos._net.redirects import REDIRECT_PATH, Settings

    url = f"https://{GOOGLE}{REDIRECT_PATH}{'/'.join(segments)}"
    sent = httpx.URL(url).raw_path.decode("ascii")  # the oracle: what httpx puts on the wire
    if Settings().is_redirect(url):  # the path checked is the path sent
        assert sent == url.removeprefix(f"https://{GOOGLE}"), (url, sent)
        assert sent.startswith(REDIRECT_PATH)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        (f"https://{GOOGLE}/grounding-api-redirect/../../x", "dot segment"),
        (f"https://{GOOGLE}/grounding-api-redirect/%2e%2E/x", "dot segment"),
        (f"http://{GOOGLE}/grounding-api-redirect/AUZ", "whose redirects are https"),
        (f"https://{GOOGLE}:8443/grounding-api-redirect/AUZ", "port 8443"),
        (f"HTTP://{GOOGLE.upper()}/grounding-api-redirect/AUZ", "whose redirects are https"),
    ],
)
def test_refused_redirects_are_problems_and_never_sent(
    url: str, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("httpx")
    from grounding_protos._net import redirects
    from grounding_protos.citations import Citation, Grounded, Source, resolve_urls

    sent: list[str] = []

    async def fetch_all(urls: list[str], options: Any) -> dict[str, Any]:
        sent.extend(urls)
        return {}

    monkeypatch.setattr(redirects, "fetch_all", fetch_all)
    source = Source(uri=url, title="Köln", kind="web")
    grounded = Grounded("Köln 😀", [Citation(0, 5, 0, 4, "Köln", (source,))])
    resolved = resolve_urls(grounded)
    assert sent == []
    assert [p.code for p in resolved.problems] == ["redirect-refused"]
    assert reason in resolved.problems[0].message
    assert resolved.citations[0].sources == (source,)  # left as it was
    # a host the caller names may use http and its own port (a local server)
    assert redirects.Settings(redirect_hosts=frozenset({"127.0.0.1"})).is_redirect(
        "http://127.0.0.1:8080/grounding-api-redirect/AUZ"
    )


def test_a_location_to_a_refused_redirect_is_not_followed() -> None:
    pytest.importorskip("httpx")
    import asyncio

    from grounding_protos._net import redirects

    async def ask(url: str) -> Any:
        return redirects.Outcome(f"http://{GOOGLE}/grounding-api-redirect/next")

    outcome = asyncio.run(
        redirects._follow(f"https://{GOOGLE}/grounding-api-redirect/A", redirects.Settings(), ask)
    )
    assert outcome.code == "redirect-refused" and "https" in outcome.message


# --- A read-only redirect cache ---------------------------------------------------------------


def test_a_read_only_cache_in_a_read_only_folder_is_read(tmp_path: Path) -> None:
    import shutil

    from grounding_protos._net.redirects import read_cache, write_cache

    folder = tmp_path / "ro"
    folder.mkdir()
    cache = folder / "redirects.sqlite"
    url = f"https://{GOOGLE}/grounding-api-redirect/AUZ-köln"
    write_cache(str(cache), {url: "https://köln.example/page"}, 3600.0)
    code = (
        "import sys\nfrom grounding_protos._net.redirects import read_cache\n"
        f"print(read_cache(sys.argv[1], [{url!r}], 3600.0))\n"
    )
    argv = [sys.executable, "-c", code, str(cache)]
    if os.geteuid() == 0:  # root writes anywhere: drop the capabilities that let it
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv")
        argv = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", *argv]
    cache.chmod(0o444)
    folder.chmod(0o555)
    try:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        if os.geteuid() != 0:
            assert read_cache(str(cache), [url], 3600.0) == {url: "https://köln.example/page"}
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        if done.returncode and "setpriv" in done.stderr:
            pytest.skip(f"setpriv cannot drop capabilities here: {done.stderr.strip()}")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == repr({url: "https://köln.example/page"})
    finally:
        folder.chmod(0o755)
        cache.chmod(0o644)


# --- JSONL output survives str.splitlines() --------------------------------------------------

SEPARATORS = "Grüße\u2028aus Köln.\u2029東京\x85😀"


@pytest.mark.parametrize(
    "argv",
    [["render", "--jsonl"], ["inspect", "--jsonl"], ["validate", "--jsonl"],
     ["convert", "--type", "Answer", "--from", "jsonl", "--to", "jsonl"]],
)  # fmt: skip
def test_jsonl_records_escape_the_separators_splitlines_splits_on(argv: list[str]) -> None:
    answer = {"answerText": SEPARATORS, "citations": [
        {"startIndex": "0", "endIndex": str(len(SEPARATORS.encode("utf-8"))),
         "sources": [{"referenceId": "0"}]}],
        "references": [{"chunkInfo": {"content": SEPARATORS}}]}  # fmt: skip
    lines = (json.dumps(answer, ensure_ascii=False) + "\n").encode("utf-8") * 3
    code, err, out = _cli(argv, stdin=lines)
    text = out.decode("utf-8")
    records = text.splitlines()
    assert len(records) == 3, (code, err, text[:300])
    assert code == 0, err
    for record in records:
        value = json.loads(record)  # each piece is one whole record
        if argv[0] in ("render", "convert", "inspect"):  # these carry the text
            assert SEPARATORS in json.dumps(value, ensure_ascii=False)


# --- A list of references that is no list -------------------------------------------------


@pytest.mark.parametrize("indices", ["0", 0, "0,1", {"0": 0}, 1.0])
def test_chunk_indices_that_are_no_list_are_a_problem_of_read(indices: object) -> None:
    from grounding_protos import CitationError

    data = _gemini({"startIndex": 0, "endIndex": 6}, indices)
    grounded = read(data)
    assert [c.sources for c in grounded.citations] == [()]  # kept, without sources
    assert [(p.code, p.path) for p in grounded.problems] == [(
        "references-not-a-list",
        "candidates[0].grounding_metadata.grounding_supports[0].grounding_chunk_indices",
    )]  # fmt: skip
    assert "references-not-a-list" in {p.code for p in validate(data)}
    with pytest.raises(CitationError) as info:
        read(data, errors="strict")
    assert info.value.code == "references-not-a-list"


def test_answer_citation_sources_that_are_no_list_are_a_problem_of_read() -> None:
    answer = {"answerText": "Köln 😀", "citations": [{"endIndex": "5", "sources": "0"}],
              "references": [{"chunkInfo": {"content": "Köln"}}]}  # fmt: skip
    grounded = read(answer)
    assert [c.text for c in grounded.citations] == ["Köln"]
    assert [(p.code, p.path) for p in grounded.problems] == [
        ("references-not-a-list", "citations[0].sources")
    ]


# --- The fuzzers' hostile shapes, as a Hypothesis property -----------------------------------

FUZZ = Path(__file__).resolve().parent.parent / "fuzz"


def _fuzz_module(name: str) -> Any:
    """``fuzz/<name>.py``, imported as the harnesses import it."""
    import importlib

    sys.path.insert(0, str(FUZZ))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(FUZZ))


# one response per file (a JSON array is a recorded stream, as gemini_live_session.json)
DOCUMENTS = sorted(
    p for p in EXAMPLE.parent.glob("*.json") if p.read_bytes().lstrip().startswith(b"{")
)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(DOCUMENTS), st.binary(min_size=4, max_size=4))
def test_hostile_shapes_keep_the_contracts(document: Path, head: bytes) -> None:
    """What ``fuzz/fuzz_hostile.py`` checks, on the examples with one value made hostile."""
    hostile, contracts = _fuzz_module("hostile"), _fuzz_module("contracts")
    body, _ = hostile.amplify(json.loads(document.read_text(encoding="utf-8")), head)
    if isinstance(body, dict):
        contracts.check_downstream(body)
    contracts.check_bounded(body)


@pytest.mark.parametrize("argv", [["render"], ["inspect"], ["inspect", "--json"], ["validate"]])
def test_a_lone_surrogate_in_a_title_is_written_as_its_escape(
    argv: list[str], tmp_path: Path
) -> None:
    """JSON may spell a lone surrogate (``"\\ud800"``); UTF-8 has none: its escape."""
    answer = {"answerText": "Köln 😀", "citations": [{"endIndex": "5",
              "sources": [{"referenceId": "0"}]}], "references": [{"chunkInfo": {
              "content": "Köln", "documentMetadata": {"title": "T\ud800"}}}]}  # fmt: skip
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(answer), encoding="ascii")
    code, err, out = _cli([*argv, str(path)])
    assert code in (0, 1) and "internal error" not in err, err
    if argv[0] != "validate":
        assert b"T\\ud800" in out


# --- Redirect resolution: user info is never sent, nor taken for a page ---------------------


@pytest.mark.parametrize(
    "url",
    [
        f"https://user:pass@{GOOGLE}/grounding-api-redirect/AUZ-köln",
        f"https://user@{GOOGLE}/grounding-api-redirect/AUZ",
        f"https://:@{GOOGLE}:443/grounding-api-redirect/AUZ",
        f"HTTPS://u%40x:p@{GOOGLE.upper()}/grounding-api-redirect/AUZ",
    ],
)
def test_a_grounding_redirect_with_user_info_is_refused_unsent(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("httpx")
    from grounding_protos._net import redirects
    from grounding_protos.citations import Citation, Grounded, Source, resolve_urls

    sent: list[str] = []

    async def fetch_all(urls: list[str], options: Any) -> dict[str, Any]:
        sent.extend(urls)
        return {}

    monkeypatch.setattr(redirects, "fetch_all", fetch_all)
    source = Source(uri=url, title="القاهرة 😀", kind="web")
    grounded = Grounded("東京 😀", [Citation(0, 6, 0, 2, "東京", (source,))])
    resolved = resolve_urls(grounded)
    assert sent == []
    assert [p.code for p in resolved.problems] == ["redirect-credentials"]
    assert resolved.citations[0].sources == (source,)


@pytest.mark.parametrize(
    "target",
    [
        f"https://user:pass@{GOOGLE}/grounding-api-redirect/next",  # a redirect to follow
        "https://www.tagesschau.de@evil.example/köln",  # a page dressed as another host
    ],
)
def test_a_location_with_user_info_is_neither_followed_nor_the_page(target: str) -> None:
    pytest.importorskip("httpx")
    import asyncio

    from grounding_protos._net import redirects

    asked: list[str] = []

    async def ask(url: str) -> Any:
        asked.append(url)
        return redirects.Outcome(target)

    start = f"https://{GOOGLE}/grounding-api-redirect/A"
    outcome = asyncio.run(redirects._follow(start, redirects.Settings(), ask))
    assert asked == [start]
    assert outcome.target is None and outcome.code == "redirect-credentials"


# --- Terminals: bidi controls in titles and URLs shown escaped -----------------------------

BIDI = {chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]}
# "https://\u202eelgoog.www//:sptth\u202c" shows as a Google URL on a bidi terminal
SPOOF_URL = "https://evil.example/\u202elpmaxe.live\u202c/\u2066x\u2069"
CAIRO = "القاهرة"
SPOOF_TITLE = f"\u202btagesschau.de\u202c \u2067{CAIRO}\u2069 \u202dKöln\u202c\u202a😀\u202c"


def _bidi_response() -> dict[str, Any]:
    text = f"Grüße aus Köln. {CAIRO} 東京😀"
    return {"candidates": [{
        "content": {"parts": [{"text": text}]},
        "finishReason": "STOP",
        "groundingMetadata": {
            "groundingChunks": [{"web": {"uri": SPOOF_URL, "title": SPOOF_TITLE}}],
            "groundingSupports": [{"segment": {"startIndex": 0,
                                               "endIndex": len("Grüße aus Köln.".encode())},
                                   "groundingChunkIndices": [0]}],
        },
    }]}  # fmt: skip


@pytest.mark.parametrize(
    "argv",
    [["render"], ["render", "--style", "plain"], ["render", "--footnotes"], ["inspect"],
     ["render", "--style", "html"]],
)  # fmt: skip
def test_a_terminal_gets_bidi_controls_escaped(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bidi.json"
    path.write_text(json.dumps(_bidi_response(), ensure_ascii=False), encoding="utf-8")
    buffer = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", _Terminal(buffer, encoding="utf-8", write_through=True))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        main([*argv, str(path)])
    shown = buffer.getvalue().decode("utf-8") + err.getvalue()
    assert not BIDI & set(shown), sorted(BIDI & set(shown))
    if argv == ["render"]:
        assert "\\u202elpmaxe.live\\u202c" in shown and f"\\u2067{CAIRO}\\u2069" in shown
    # to a file: byte-exact, the controls kept
    out = tmp_path / "out.txt"
    assert main([*argv, str(path), "-o", str(out)]) == 0
    if argv[0] == "render" and "html" not in argv:
        assert "\u202elpmaxe.live\u202c" in out.read_text(encoding="utf-8")
