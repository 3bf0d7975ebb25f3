"""Benchmark of the HTML view's Markdown rendering; prints ratios measured in this one run.

Run: ``PYTHONPATH=src python benchmarks/render_markdown.py`` (about 20 s; needs
markdown-it-py). Not a test: the goal is printed next to the figures, nothing fails.

On ~1 MB of Markdown in the style of Gemini's answers (headings, lists of places with
bold names, paragraphs with links and inline code, tables, code blocks; mixed
scripts and emoji) with 10,000 citations (overlapping spans of up to ~300 characters,
1-3 sources each from a pool of 800):

- ``render(text, citations, "html")``, with and without ``highlight=True``, against
  markdown-it-py rendering the same text without citations (the same parser
  options). Goal: <= 2x.
- for scale: ``render(..., "html", raw_text=True)``, the view without Markdown.
"""

from __future__ import annotations

import random
import re
import sys
import time
from collections.abc import Callable

import _timing  # benchmarks/ is the script directory

from grounding_protos._core.model import Citation, Source
from grounding_protos._render.markdown_html import plain_html
from grounding_protos._render.markers import render
from grounding_protos.offsets import TextIndex

TEXT_BYTES = 1_000_000
CITATIONS = 10_000
SOURCES = 800

_PLACES = ["Joe's Pizza", "Prince Street Pizza", "Café Grumpy", "東京タワー", "Ζαχαροπλαστείο"]
_WORDS = [
    "the", "a", "slice", "classic", "known", "for", "its", "crust", "open", "late", "near",
    "station", "reviews", "Köln", "façade", "naïve", "東京", "ラーメン", "한국어", "مرحبا",
    "🍕", "👍🏽", "price", "menu", "quiet", "busy",
]  # fmt: skip


def _sentence(rng: random.Random) -> str:
    words = rng.choices(_WORDS, k=rng.randint(6, 16))
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), f"`{rng.choice(_WORDS)}_id`")
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), f"*{rng.choice(_WORDS)}*")
    if rng.random() < 0.2:
        words.append(f"([maps](https://maps.example/{rng.randrange(10**6)}))")
    return " ".join(words).capitalize() + "."


def _block(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.1:
        return f"## {' '.join(rng.choices(_WORDS, k=4)).capitalize()}\n\n"
    if kind < 0.5:
        items = [
            f"*   **{rng.choice(_PLACES)}** {_sentence(rng)} {_sentence(rng)}\n"
            for _ in range(rng.randint(2, 5))
        ]
        return "".join(items) + "\n"
    if kind < 0.6:
        rows = [
            f"| {rng.choice(_PLACES)} | ${rng.randint(2, 9)}.{rng.randint(0, 99):02d} | "
            f"{rng.randint(30, 50) / 10} ⭐ |\n"
            for _ in range(rng.randint(2, 6))
        ]
        return "| Place | Price | Rating |\n|:--|--:|:-:|\n" + "".join(rows) + "\n"
    if kind < 0.65:
        return '```python\nhours = get_place("ChIJ-x")["opening_hours"]\nprint(hours)\n```\n\n'
    return " ".join(_sentence(rng) for _ in range(rng.randint(2, 6))) + "\n\n"


def make_case(scale: float, seed: int = 2024) -> tuple[str, list[Citation]]:
    """About ``scale`` MB of Markdown and ``scale * 10,000`` citations at byte spans."""
    rng = random.Random(seed)
    out: list[str] = []
    total = 0
    while total < TEXT_BYTES * scale:
        block = _block(rng)
        out.append(block)
        total += len(block.encode())
    text = "".join(out)
    sources = [
        Source(uri=f"https://example.com/doc/{i}", title=f"Document {i}", id=str(i))
        for i in range(SOURCES)
    ]
    char_spans = []
    for _ in range(int(CITATIONS * scale)):
        start = rng.randrange(len(text))
        char_spans.append((start, min(len(text), start + rng.randrange(0, 300))))
    byte_spans = TextIndex(text).convert_spans(char_spans, "char", "byte")
    citations = [
        Citation(s, e, None, None, None, tuple(rng.sample(sources, rng.randint(1, 3))))
        for s, e in byte_spans
    ]
    return text, citations


def best(fn: Callable[[], object], repeat: int) -> float:
    """Best CPU time of ``fn`` over ``repeat`` runs: CPU time of this process, not wall
    time, so that other work on the machine disturbs the ratios less."""
    return _timing.best(fn, repeat, time.process_time)


def main(scale: float = 1.0, repeat: int = 5) -> dict[str, float]:
    import markdown_it

    text, citations = make_case(scale)
    print(
        f"text: {len(text.encode()):,} UTF-8 bytes of Markdown, {len(text):,} characters; "
        f"{len(citations):,} citations; Python {sys.version.split()[0]}, "
        f"markdown-it-py {markdown_it.__version__}"
    )
    # the view is the Markdown rendering plus markers and marks, nothing lost (markers
    # that land on one place, after a link or code, are one)
    view = render(text, citations, "html", highlight=True)
    assert 0 < view.count('<sup class="gp-cite">') <= len({c.end for c in citations})
    bare = re.sub(r"</?mark\b[^>]*>", "", re.sub(r'<sup class="gp-cite">.*?</sup>', "", view))
    assert bare == plain_html(text)

    kinds: dict[str, Callable[[], object]] = {
        "base": lambda: plain_html(text),
        "html": lambda: render(text, citations, "html"),
        "highlight": lambda: render(text, citations, "html", highlight=True),
        "raw": lambda: render(text, citations, "html", raw_text=True),
    }
    times = dict.fromkeys(kinds, float("inf"))
    for _ in range(repeat):  # rounds interleave the kinds, so that drift hits them alike
        for kind, fn in kinds.items():
            times[kind] = min(times[kind], best(fn, 1))
    t_base, t_view, t_mark, t_raw = (times[k] for k in ("base", "html", "highlight", "raw"))
    print()
    print(f"markdown-it-py, no citations         {t_base * 1e3:9.1f} ms")
    print(f"render html                          {t_view * 1e3:9.1f} ms")
    print(f"render html, highlight=True          {t_mark * 1e3:9.1f} ms")
    print(f"render html, raw_text=True           {t_raw * 1e3:9.1f} ms")
    print(f"ratio html / markdown-it             {t_view / t_base:9.2f}x   goal: <= 2x")
    print(f"ratio html, highlight / markdown-it  {t_mark / t_base:9.2f}x   goal: <= 2x")
    return times


if __name__ == "__main__":
    main()
