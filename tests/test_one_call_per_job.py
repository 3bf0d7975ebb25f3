"""One call for each job (issue 33, points 5-7): ``citations.validate_stream`` gives what
``grounding-protos validate`` lists for a stream; ``validate`` is importable beside
``read`` and ``render``; ``read_stream`` opens a path; ``StreamReader`` takes SSE text
in pieces of any size; ``to_ai_message`` without langchain-core raises a
``MissingDependencyError``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import grounding_protos
from grounding_protos import GroundingProtosError, MissingDependencyError, StreamError
from grounding_protos.citations import StreamReader, read_stream, validate_stream
from grounding_protos.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SSE = sorted(EXAMPLES.glob("*.sse"))
# the SSE streams StreamReader reads event by event (the Interactions API's is read whole)
READER_SSE = [p for p in SSE if p.name != "gemini_interaction.sse"]
# every recorded stream the CLI validates as one answer (the Live session has two turns)
STREAMS = [*SSE, EXAMPLES / "gemini_stream.sse"]
STREAMS = sorted(set(STREAMS))


def cli_problems(path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, str]]:
    code = main(["validate", "--json", str(path)])
    out = capsys.readouterr().out
    problems: list[dict[str, str]] = json.loads(out)
    assert code == (1 if problems else 0)
    return problems


def as_dicts(problems: list[Any]) -> list[dict[str, str]]:
    return [{"code": p.code, "message": p.message, "path": p.path} for p in problems]


# --- validate_stream -----------------------------------------------------------------------


@pytest.mark.parametrize("path", STREAMS, ids=[p.name for p in STREAMS])
def test_validate_stream_is_what_the_cli_lists(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = cli_problems(path, capsys)
    assert as_dicts(validate_stream(path)) == expected
    assert as_dicts(validate_stream(path.read_bytes())) == expected


def broken_stream() -> str:
    """A Gemini stream cut before its finishReason, whose support ends past the text."""
    chunks = [
        {"candidates": [{"content": {"parts": [{"text": "서울은 "}]}}]},
        {"candidates": [{"content": {"parts": [{"text": "맑아요 ☀️"}]},
                         "groundingMetadata": {
                             "groundingChunks": [{"web": {"uri": "https://kma.example/"}}],
                             "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 99},
                                                    "groundingChunkIndices": [0, 3]}]}}]},
    ]  # fmt: skip
    return "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks)


def test_validate_stream_finds_what_merging_and_validate_find(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.sse"
    path.write_text(broken_stream(), encoding="utf-8")
    problems = validate_stream(broken_stream())
    codes = [p.code for p in problems]
    assert codes[0] == "stream-incomplete"  # what merging found, first
    assert "chunk-index-out-of-range" in codes  # what validate found in the merged answer
    assert as_dicts(problems) == cli_problems(path, capsys)


def test_validate_stream_refuses_what_is_no_stream() -> None:
    with pytest.raises(StreamError):
        validate_stream("data: {}\n\n" * 0 + "")
    with pytest.raises(StreamError, match="expected an iterable"):
        validate_stream(42)
    with pytest.raises(GroundingProtosError, match="unit must be"):
        validate_stream([{"candidates": []}], unit="bytes")  # type: ignore[arg-type]


def test_validate_beside_read_and_render() -> None:
    from grounding_protos.citations import read, render, validate

    assert validate is grounding_protos.validate
    assert validate.__module__ == "grounding_protos"
    assert validate_stream.__module__ == "grounding_protos.citations"
    assert callable(read) and callable(render)


# --- read_stream of a path -------------------------------------------------------------------


@pytest.mark.parametrize("path", SSE, ids=[p.name for p in SSE])
def test_read_stream_opens_a_path(path: Path) -> None:
    assert read_stream(path) == read_stream(path.read_bytes())
    with pytest.raises(StreamError, match="not a recorded stream"):
        read_stream(str(path))  # a str is the stream's text, not a path


def test_a_missing_path_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_stream(tmp_path / "missing.sse")


# --- StreamReader takes SSE text in pieces of any size ----------------------------------------


def feed_all(pieces: list[Any]) -> tuple[str, Any]:
    reader = StreamReader()
    text = "".join(reader.feed(piece).text for piece in pieces)
    return text, reader.finish()


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(READER_SSE), st.lists(st.integers(1, 400), min_size=1), st.booleans())
def test_pieces_of_any_size(path: Path, sizes: list[int], as_bytes: bool) -> None:
    data: Any = path.read_bytes() if as_bytes else path.read_text(encoding="utf-8")
    expected = read_stream(path)
    pieces, at, k = [], 0, 0
    while at < len(data):
        size = sizes[k % len(sizes)]
        pieces.append(data[at : at + size])
        at, k = at + size, k + 1
    text, grounded = feed_all(pieces)
    assert grounded == expected
    if path.name.startswith("gemini_stream"):
        assert text == expected.text  # the text as it arrived adds up to the answer


@pytest.mark.parametrize("path", READER_SSE, ids=[p.name for p in READER_SSE])
def test_lines_with_and_without_their_ends(path: Path) -> None:
    expected = read_stream(path)
    data = path.read_bytes()
    assert feed_all(data.splitlines())[1] == expected  # iter_lines(): bytes, no ends
    assert feed_all(data.decode().splitlines())[1] == expected
    assert feed_all(data.splitlines(keepends=True))[1] == expected  # a file's lines


def test_a_piece_may_hold_many_events_and_cut_a_character() -> None:
    data = (EXAMPLES / "gemini_stream.sse").read_bytes()
    cut = data.index("ü".encode()) + 1  # inside the two bytes of 'ü'
    text, grounded = feed_all([data[:cut], data[cut:]])
    assert grounded == read_stream(data) and text == grounded.text


def test_sse_text_cut_inside_an_event_is_a_problem() -> None:
    data = (EXAMPLES / "gemini_stream.sse").read_text(encoding="utf-8")
    cut = data[: data.rindex('"finishReason"')]
    _, grounded = feed_all([cut[i : i + 50] for i in range(0, len(cut), 50)])
    expected = read_stream(cut)
    assert grounded.text == expected.text
    assert [p.code for p in grounded.problems] == [p.code for p in expected.problems]
    assert "stream-truncated" in [p.code for p in grounded.problems]


def test_bad_sse_text_is_a_stream_error() -> None:
    reader = StreamReader()
    reader.feed(b'data: {"candidates": [{"content": {"parts": [{"text": "\xff')
    with pytest.raises(StreamError, match="not UTF-8"):
        reader.feed(b'\xfe"}]}}]}\n\n')
    reader = StreamReader()
    reader.feed("data: {")
    with pytest.raises(StreamError, match="expected more SSE text"):
        reader.feed(object())


# --- to_ai_message without langchain-core ------------------------------------------------------


def test_to_ai_message_without_langchain_core(monkeypatch: pytest.MonkeyPatch) -> None:
    from grounding_protos.convert import to_ai_message

    monkeypatch.setitem(sys.modules, "langchain_core.messages", None)  # import fails
    gemini = {"candidates": [{"content": {"parts": [{"text": "Köln"}]}}]}
    with pytest.raises(MissingDependencyError, match=r"grounding-protos\[langchain\]") as info:
        to_ai_message(gemini)
    assert isinstance(info.value, ImportError) and isinstance(info.value, GroundingProtosError)
