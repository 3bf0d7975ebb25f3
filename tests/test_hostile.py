"""Hostile and careless inputs (issue 26): many parts, huge values, deep nesting,
control characters, write failures. Each test feeds the hostile input itself; the
oracles are computed here by hand."""

from __future__ import annotations

from typing import Any

from grounding_protos.citations import read

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
