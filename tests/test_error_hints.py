"""Errors that name the fix (issue 22, point 6): a lone stream chunk points to
``read_stream``; offsets that are characters are said once, with ``unit="char"``;
JSON text is told to be parsed first; and the small ones ("at at", "1 candidates",
the ``snap=`` values).

Fixtures are written here: multi-script text with emoji before the citations, so that
bytes, UTF-16 units and characters differ; offsets computed by naive encoding.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grounding_protos import (
    ArgumentValueError,
    CitationError,
    OffsetError,
    StreamError,
    UnsupportedInputError,
    validate,
)
from grounding_protos.citations import Citation, read, read_stream, render
from grounding_protos.cli import main
from grounding_protos.offsets import TextIndex

PIECES = [
    "🗼 東京タワーは高さ333 mです。",
    " Der Kölner Dom 🏰 ist 157 m hoch.",
    " 서울은 비가 와요.",
]
TEXT = "".join(PIECES)
CLAIMS = ["333 m", "Kölner Dom", "서울은"]


def byte_span(sub: str) -> tuple[int, int]:
    """The naive oracle: UTF-8 length of the prefix."""
    at = TEXT.index(sub)
    start = len(TEXT[:at].encode("utf-8"))
    return start, start + len(sub.encode("utf-8"))


def char_span(sub: str) -> tuple[int, int]:
    at = TEXT.index(sub)
    return at, at + len(sub)


def support(span: tuple[int, int], text: str | None, chunk: int = 0) -> dict[str, Any]:
    segment: dict[str, Any] = {"startIndex": span[0], "endIndex": span[1]}
    if text is not None:
        segment["text"] = text
    return {"segment": segment, "groundingChunkIndices": [chunk]}


def metadata(supports: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "groundingChunks": [
            {"web": {"uri": f"https://s{i}.example/", "title": f"s{i}.example"}} for i in range(3)
        ],
        "groundingSupports": supports,
    }


def response(text: str, supports: list[dict[str, Any]], **candidate: Any) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, **candidate,
             "groundingMetadata": metadata(supports)}
        ],
        "modelVersion": "gemini-2.5-flash",
    }  # fmt: skip


# --- A lone chunk of a stream ----------------------------------------------------------------


def stream_chunks() -> list[dict[str, Any]]:
    """Three chunks as Gemini streams them: text in pieces, ``groundingMetadata`` with
    whole-answer byte offsets in the last chunk, ``{}`` before it."""
    supports = [support(byte_span(c), c, k) for k, c in enumerate(CLAIMS)]
    chunks = []
    for k, piece in enumerate(PIECES):
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": piece}]}}
        if k < len(PIECES) - 1:
            candidate["groundingMetadata"] = {}
        else:
            candidate["finishReason"] = "STOP"
            candidate["groundingMetadata"] = metadata(supports)
        chunks.append({"candidates": [candidate], "responseId": "r1", "modelVersion": "m"})
    return chunks


def test_the_whole_stream_reads() -> None:
    grounded = read_stream(stream_chunks())
    assert [c.text for c in grounded.citations] == CLAIMS and grounded.problems == []


def test_a_lone_last_chunk_points_to_read_stream() -> None:
    last = stream_chunks()[-1]
    # the first claim lies before the last chunk's text: its offsets are past that end
    with pytest.raises(OffsetError, match="is out of range") as caught:
        read(last)
    message = str(caught.value)
    assert "one chunk of a stream" in message and "read_stream" in message
    assert message.count("read_stream") == 1
    # skip records the hint once, on the first such span
    problems = read(last, errors="skip").problems
    assert sum("read_stream" in p.message for p in problems) == 1
    assert [p.code for p in validate(last) if "read_stream" in p.message] == ["offset-out-of-range"]


def test_an_offset_past_the_end_of_a_whole_answer_of_another_shape_has_no_stream_hint() -> None:
    answer = {
        "answerText": PIECES[0],
        "citations": [{"startIndex": "0", "endIndex": "900", "sources": [{"referenceId": "0"}]}],
        "references": [{"chunkInfo": {"content": "x"}}],
    }
    with pytest.raises(OffsetError, match="out of range") as caught:
        read(answer)
    assert "read_stream" not in str(caught.value)


def test_a_lone_chunk_through_the_cli_says_so(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = tmp_path / "chunk.json"
    path.write_text(json.dumps(stream_chunks()[-1]), encoding="utf-8")
    assert main(["render", str(path)]) == 1
    err = capsysbinary.readouterr().err.decode()
    assert "one chunk of a stream" in err and "read_stream" in err


# --- Offsets that are characters -------------------------------------------------------------


def in_characters(with_text: bool = True) -> dict[str, Any]:
    return response(TEXT, [support(char_span(c), c if with_text else None, k)
                           for k, c in enumerate(CLAIMS)])  # fmt: skip


def test_the_fixture_counts_characters() -> None:
    """Bytes and characters differ before every claim (the emoji and CJK first)."""
    assert all(byte_span(c) != char_span(c) for c in CLAIMS)
    by_char = read(in_characters(), unit="char")
    assert [c.text for c in by_char.citations] == CLAIMS and by_char.problems == []


@pytest.mark.parametrize("policy", ["repair", "skip"])
def test_character_offsets_are_said_once_not_repaired_per_span(policy: str) -> None:
    grounded = read(in_characters(), errors=policy)  # type: ignore[arg-type]
    assert [p.code for p in grounded.problems] == ["offsets-in-characters"]
    message = grounded.problems[0].message
    assert "look like characters, not bytes" in message and "unit='char'" in message
    assert "each of the 3 spans'" in message
    # the citations are still right: the ones unit="char" gives
    by_char = read(in_characters(), unit="char")
    assert [(c.start, c.end, c.char_start, c.char_end) for c in grounded.citations] == [
        (c.start, c.end, c.char_start, c.char_end) for c in by_char.citations
    ]
    problems = validate(in_characters())
    assert [p.code for p in problems] == ["offsets-in-characters"]


def test_strict_raises_with_the_fix_named() -> None:
    with pytest.raises((OffsetError, CitationError), match="unit='char'"):
        read(in_characters(), errors="strict")


def test_character_offsets_beyond_the_repair_window_are_named_when_repair_fails() -> None:
    # 200 CJK characters first: the byte and character offsets are 400 apart, beyond
    # the repair's window; the one span cannot be repaired, and the error says why
    lead = "東" * 200
    text = lead + TEXT
    at = text.index("Kölner Dom")
    obj = response(text, [support((at, at + len("Kölner Dom")), "Kölner Dom")])
    with pytest.raises(OffsetError, match="look like characters") as caught:
        read(obj)
    assert "the span's segment.text" in str(caught.value)
    assert [c.text for c in read(obj, unit="char").citations] == ["Kölner Dom"]


def test_drift_of_a_few_spans_is_still_repaired_per_span() -> None:
    """Only when every span's text sits at character offsets: one drifted byte span
    among right ones is an offset-drift repair, as before."""
    start, end = byte_span("Kölner Dom")
    supports = [support(byte_span("333 m"), "333 m"), support((start + 1, end + 1), "Kölner Dom")]
    problems = read(response(TEXT, supports)).problems
    assert [p.code for p in problems] == ["offset-drift"]


def test_spans_without_text_give_no_character_hint() -> None:
    """Without segment.text nothing shows the unit: no guess."""
    with pytest.raises(OffsetError) as caught:
        read(in_characters(with_text=False))
    assert "characters" not in str(caught.value).split(";", 1)[-1]


# --- JSON text, and the small ones -----------------------------------------------------------


@pytest.mark.parametrize("kind", [str, bytes])
def test_json_text_is_told_to_be_parsed_first(kind: type) -> None:
    obj = in_characters()
    text = json.dumps(obj)
    data = text if kind is str else text.encode()
    with pytest.raises(UnsupportedInputError) as caught:
        read(data)
    message = str(caught.value)
    assert "parse it first (json.loads)" in message and "read_stream" in message
    assert "gemini_response" not in message  # the fix, not the list of shapes
    assert read(json.loads(text), unit="char").citations  # the fix works


def test_invalid_json_says_at_once(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = tmp_path / "cut.json"
    path.write_text('{"answerText": "Köln', encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsysbinary.readouterr().err.decode()
    assert "Unterminated string starting at column 16" in err and "at at" not in err
    with pytest.raises(StreamError) as caught:
        read_stream('data: {"candidates": "Kö\n\n')
    assert "at at" not in str(caught.value) and "starting at character" in str(caught.value)


@pytest.mark.parametrize(("count", "words"), [(1, "has 1 candidate;"), (2, "has 2 candidates;")])
def test_the_number_of_candidates_is_said_in_good_grammar(count: int, words: str) -> None:
    obj = {"candidates": [{"content": {"parts": [{"text": "Köln"}]}}] * count}
    with pytest.raises(UnsupportedInputError, match=words):
        read(obj, candidate=5)


def test_the_snap_message_lists_every_accepted_value() -> None:
    accepted = "snap must be None, 'floor', 'ceil' or 'outward', not 'round'"
    with pytest.raises(ArgumentValueError, match=accepted):
        read(in_characters(), snap="round")  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match=accepted):
        render("Köln", [Citation(0, 2)], snap="round")  # type: ignore[call-overload]
    for snap in ("floor", "ceil", "outward"):  # every value the message names works
        assert read(in_characters(), unit="char", snap=snap).citations
    with pytest.raises(ArgumentValueError, match="'outward' is for spans: to_char_span"):
        TextIndex("Köln").to_char(2, snap="outward")  # type: ignore[arg-type]
