"""A grounded answer in the style of Gemini's Markdown answers, with citations that
end in every kind of place: shared by the Markdown view's tests and its browser test."""

from __future__ import annotations

from typing import Any

from grounding_protos.citations import Citation, Source

JOE = Source(uri="https://maps.example/joes", title="Joe's Pizza")
PRINCE = Source(uri="https://maps.example/prince", title="Prince Street Pizza")
WIKI = Source(uri="https://en.wikipedia.example/Pizza", title="wikipedia.org")
CODE = Source(uri="https://docs.example/api", title="API docs")

ANSWER = """## Where to get pizza near Fulton St 🍕

Here are a few places with great reviews:

*   **Joe's Pizza** at 124 Fulton St is a classic New York slice shop.
*   **Prince Street Pizza** is known for its *spicy* pepperoni squares.
*   **Café Grumpy** — not pizza, but 東京風の抹茶ラテ is ~~cheap~~ affordable.

| Place | Price | Rating |
|:--|--:|:-:|
| Joe's Pizza | $3.50 | 4.5 ⭐ |
| Prince St \\| Nolita | $4.25 | 4.7 |

To check opening hours, call the API with `get_place(place_id)`:

```python
hours = get_place("ChIJ-joes")["opening_hours"]
```

> Tip: see [the Maps listing](https://maps.example/joes "Joe's") & the reviews.
"""


def cite(text: str, piece: str, *sources: Source, start: int = 0, drop: int = 0) -> Citation:
    """A citation of ``piece`` (its first occurrence from ``start``), ``drop`` characters
    short of its end, with UTF-8 byte offsets as the APIs send them."""
    first = text.index(piece, start)
    last = first + len(piece) - drop
    return Citation(
        len(text[:first].encode()), len(text[:last].encode()), None, None, None, sources
    )


def answer_citations() -> list[Citation]:
    t = ANSWER
    return [
        # a whole list item, bullet and bold delimiters included
        cite(t, "*   **Joe's Pizza** at 124 Fulton St is a classic New York slice shop.", JOE),
        # starts inside the bold name, ends after it: crosses the bold boundary
        cite(t, "Street Pizza** is known for its *spicy* pepperoni squares.", PRINCE, WIKI),
        # ends inside inline code
        cite(t, "`get_place(place_id)`", CODE, drop=8),
        # ends inside a link's URL: the marker goes after the link
        cite(t, "see [the Maps listing](https://maps", JOE),
        # a table cell with an escaped pipe
        cite(t, "Prince St \\| Nolita", PRINCE),
        # multi-script text with emoji, ending on the emoji
        cite(t, "東京風の抹茶ラテ", WIKI),
        cite(t, "4.5 ⭐", WIKI),
        # inside a fenced code block: the marker goes after the block
        cite(t, 'get_place("ChIJ-joes")', CODE),
        # the heading, ending on the emoji
        cite(t, "Where to get pizza near Fulton St 🍕", WIKI),
    ]


# The rendered text before each marker ends with these, in text order: the span's last
# character, or the construct a span ends in.
EXPECTED_BEFORE_MARKERS = [
    "Fulton St 🍕",  # the heading, ending on the emoji
    "New York slice shop.",  # the whole list item
    "its spicy pepperoni squares.",  # starts inside the bold name
    "but 東京風の抹茶ラテ",
    "4.5 ⭐",  # a table cell
    "Prince St | Nolita",  # a cell with an escaped pipe
    "the API with get_place(place_id)",  # inside inline code: after the code
    '("ChIJ-joes")["opening_hours"]',  # ends in a code block: after the block
    "Tip: see the Maps listing",  # ends in the link's URL: after the link
]


def gemini_document() -> dict[str, Any]:
    """The answer as a Gemini ``generateContent`` response: one grounding chunk per
    source, one support per citation (byte offsets and the segment's text)."""
    chunks: list[Source] = []
    supports = []
    for c in answer_citations():
        indices = []
        for source in c.sources:
            if source not in chunks:
                chunks.append(source)
            indices.append(chunks.index(source))
        segment = ANSWER.encode()[c.start : c.end].decode()
        supports.append(
            {
                "segment": {"startIndex": c.start, "endIndex": c.end, "text": segment},
                "groundingChunkIndices": indices,
            }
        )
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": ANSWER}]},
                "groundingMetadata": {
                    "groundingChunks": [{"web": {"uri": s.uri, "title": s.title}} for s in chunks],
                    "groundingSupports": supports,
                },
            }
        ]
    }
