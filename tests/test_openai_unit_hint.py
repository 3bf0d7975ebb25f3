"""OpenAI's offsets and UTF-16 (issue 33, point 14): they are read as characters (code
points); when a span runs past the end of its text and counting in UTF-16 units would
fit it, the problem says so and names ``unit='utf16'``, as for characters and bytes.

The spans are built from an independent count (``len(text[:i].encode("utf-16-le")) //
2``) over texts with astral characters (emoji, a Fraktur letter) before the citation."""

from __future__ import annotations

from typing import Any

import pytest

from grounding_protos import OffsetError, validate
from grounding_protos.citations import read

LINK = "([site](https://t.example))"
TEXTS = [
    f"Tokyo 🗼🗼 tower {LINK}",
    f"Grüße 👨‍👩‍👧 aus 𝔎öln {LINK} und mehr",  # noqa: RUF001 (an astral letter)
    f"東京タワー🗼は333 mです。{LINK}",
]


def utf16(text: str, char: int) -> int:
    return len(text[:char].encode("utf-16-le")) // 2


def response(text: str, start: int, end: int) -> dict[str, Any]:
    return {"object": "response", "output": [{"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": [
                {"type": "url_citation", "start_index": start, "end_index": end,
                 "url": "https://t.example", "title": "T"}]}]}]}  # fmt: skip


def utf16_response(text: str) -> dict[str, Any]:
    first = text.index(LINK)
    return response(text, utf16(text, first), utf16(text, first + len(LINK)))


@pytest.mark.parametrize("text", TEXTS)
def test_utf16_offsets_are_read_with_unit_utf16(text: str) -> None:
    assert read(utf16_response(text), unit="utf16").citations[0].text == LINK


@pytest.mark.parametrize("text", [t for t in TEXTS if not t.endswith("mehr")])
def test_a_span_past_the_end_that_utf16_fits_says_so(text: str) -> None:
    obj = utf16_response(text)
    with pytest.raises(OffsetError, match=r"UTF-16 units .* read\(obj, unit='utf16'\)"):
        read(obj, errors="strict")
    with pytest.raises(OffsetError, match=r"unit='utf16'"):
        read(obj)
    (problem,) = validate(obj)
    assert problem.code == "offset-out-of-range" and "unit='utf16'" in problem.message
    (skipped,) = read(obj, errors="skip").problems
    assert "unit='utf16'" in skipped.message


def test_no_hint_where_utf16_would_not_fit_either() -> None:
    text = TEXTS[0]
    too_far = utf16(text, len(text)) + 1
    (problem,) = validate(response(text, 0, too_far))
    assert problem.code == "offset-out-of-range" and "utf16" not in problem.message


def test_no_hint_inside_a_surrogate_pair() -> None:
    text = f"{LINK} 🗼🗼"  # 30 characters, 32 UTF-16 units: unit 31 splits the last 🗼
    assert (len(text), utf16(text, len(text))) == (30, 32)
    (problem,) = validate(response(text, 0, 31))
    assert "utf16" not in problem.message


def test_character_offsets_are_the_default() -> None:
    text = TEXTS[1]  # the link sits before the text's end in both units
    first = text.index(LINK)
    grounded = read(response(text, first, first + len(LINK)))
    assert grounded.citations[0].text == LINK and grounded.problems == []
