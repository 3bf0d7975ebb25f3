# ruff: noqa: E501, RUF001  (the answer is Markdown with long lines, and Greek)
"""A grounded Gemini answer that exercises the page's design: Markdown with a long code
line, a table, German, Greek, Korean and emoji, nearly all of it cited, and three Search
Suggestions chips that wrap on a phone. Shared by the page's browser tests and
``scripts/page_screenshots.py`` (the screenshots in ``docs/images/``)."""

from __future__ import annotations

from typing import Any

ANSWER = """## Die Elbphilharmonie 🎻

Die **Elbphilharmonie** in Hamburg wurde am 11. Januar 2017 eröffnet. Der Große Saal hat 2.100 Plätze.

Η αίθουσα θεωρείται μία από τις καλύτερες του κόσμου. 서울의 롯데콘서트홀도 비슷한 포도밭 구조를 가지고 있습니다.

| Saal | Plätze |
|:--|--:|
| Großer Saal | 2.100 |
| Kleiner Saal | 550 |

Die Akustik lässt sich so abfragen:

```python
saal = konzerthaus("elbphilharmonie").saele["grosser_saal"].akustik(frequenzen=[125, 250, 500, 1000, 2000])
```
"""

CHIPS = (
    "<style>.container{display:flex;gap:8px;font:14px/1.4 sans-serif}"
    ".chip{border:1px solid #ddd;border-radius:16px;padding:4px 12px;color:#1a0dab;"
    "text-decoration:none}</style>"
    '<div class="container">'
    '<a class="chip" href="https://www.google.com/search?q=Elbphilharmonie+Er%C3%B6ffnung">'
    "Elbphilharmonie Hamburg Eröffnung Januar 2017</a>"
    '<a class="chip" href="https://www.google.com/search?q=Elbphilharmonie+Akustik">'
    "Elbphilharmonie Großer Saal Akustik Weinberg Toyota</a>"
    '<a class="chip" href="https://www.google.com/search?q=Lotte+Concert+Hall">'
    "롯데콘서트홀 포도밭 구조 음향</a></div>"
)


def _span(piece: str, last: str | None = None) -> dict[str, Any]:
    first = ANSWER.index(piece)
    end = ANSWER.index(last, first) + len(last) if last else first + len(piece)
    return {
        "startIndex": len(ANSWER[:first].encode()),
        "endIndex": len(ANSWER[:end].encode()),
    }


def page_document() -> dict[str, Any]:
    """The Gemini response of :data:`ANSWER`: 98% of it cited."""
    supports = [
        (_span("## Die Elbphilharmonie", "Plätze."), [0, 1]),
        (_span("Η αίθουσα", "있습니다."), [1, 2]),
        (_span("| Saal |", "| 550 |"), [0]),
        (_span("Die Akustik", "```\n"), [1]),
    ]
    return {
        "candidates": [{
            "content": {"role": "model", "parts": [{"text": ANSWER}]},
            "finishReason": "STOP",
            "groundingMetadata": {
                "webSearchQueries": ["Elbphilharmonie Eröffnung", "롯데콘서트홀 음향"],
                "searchEntryPoint": {"renderedContent": CHIPS},
                "groundingChunks": [
                    {"web": {"uri": "https://www.elbphilharmonie.example/", "title": "elbphilharmonie.de"}},
                    {"web": {"uri": "https://de.wikipedia.example/Elbphilharmonie", "title": "wikipedia.org"}},
                    {"web": {"uri": "https://www.lotteconcerthall.example/", "title": "lotteconcerthall.com"}},
                ],
                "groundingSupports": [
                    {"segment": segment, "groundingChunkIndices": chunks}
                    for segment, chunks in supports
                ],
            },
        }],
    }  # fmt: skip
