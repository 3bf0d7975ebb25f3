"""Benchmark of grounding_protos citation rendering; prints ratios measured in this one run.

Run: ``PYTHONPATH=src python benchmarks/render.py`` (about 15 s). Not a test: the
goals are printed next to the figures, nothing fails.

On ~1 MB of mixed-script text with 10,000 citations (overlapping spans of up to
~300 characters, 1-3 sources each from a pool of 800):

- ``render`` (plain; Markdown, which also parses the Markdown to keep markers out of
  code and links; HTML; HTML with highlighting) against a straightforward
  per-citation render that turns each citation's byte end into a character position
  by decoding the UTF-8 prefix, ``len(data[:end].decode())`` (the same work as
  re-encoding the character prefix), then numbers and inserts the markers as
  ``render`` does. Its per-citation loop is timed on a random sample of citations and
  scaled; the rest of it is timed in full. Goal: >= 100x faster.
- linear growth: ``render`` on 2x and 4x the text with 2x and 4x the citations.
  Goal: about 2.0 per doubling.
- staggered spans (a hostile shape): ``render(..., "html", highlight=True)``, the
  Markdown view, on spans that each start a little after the last and reach 1/50 of
  the text on, each citing a source of its own, so that every point is covered by
  1/50 of them; at 1x (150 KB, 1,000 spans) and 4x: CPU time, peak traced memory and
  output size. Goal: about 4x each for 4x the input (it was 11x the output and 9x
  the time when every highlight piece listed every source covering it).

HTML here is the raw-text view (``raw_text=True``); ``render_markdown.py`` measures
the Markdown view.
"""

from __future__ import annotations

import random
import sys
import time
import tracemalloc
from collections.abc import Callable

from _corpus import SENTENCES  # benchmarks/ is the script directory
from _timing import best  # benchmarks/ is the script directory

from grounding_protos._core.model import Citation, Source
from grounding_protos._render.markers import render
from grounding_protos.offsets import TextIndex

TEXT_BYTES = 1_000_000
CITATIONS = 10_000
SOURCES = 800
NAIVE_SAMPLE = 1_000


def make_case(scale: float, seed: int = 2024) -> tuple[str, list[Citation]]:
    """About ``scale`` MB of text and ``scale * 10,000`` citations at valid byte spans."""
    rng = random.Random(seed)
    out: list[str] = []
    total = 0
    while total < TEXT_BYTES * scale:
        piece = rng.choice(SENTENCES)
        out.append(piece)
        total += len(piece.encode("utf-8"))
    text = "".join(out)
    sources = [
        Source(uri=f"https://example.com/doc/{i}", title=f"Document {i}", id=str(i))
        for i in range(SOURCES)
    ]
    count = int(CITATIONS * scale)
    char_spans = []
    for _ in range(count):
        start = rng.randrange(len(text))
        char_spans.append((start, min(len(text), start + rng.randrange(0, 300))))
    index = TextIndex(text)
    byte_spans = index.convert_spans(char_spans, "char", "byte")
    citations = [
        Citation(
            start=s,
            end=e,
            char_start=None,
            char_end=None,
            text=None,
            sources=tuple(rng.sample(sources, rng.randint(1, 3))),
            path=f"citations[{i}]",
        )
        for i, (s, e) in enumerate(byte_spans)
    ]
    return text, citations


# --- The straightforward approach ---------------------------------------------------------


def naive_positions(data: bytes, citations: list[Citation]) -> list[tuple[int, int]]:
    """Character (start, end) of each citation, one prefix decode per offset."""
    return [(len(data[: c.start].decode()), len(data[: c.end].decode())) for c in citations]


def naive_assemble(text: str, citations: list[Citation], spans: list[tuple[int, int]]) -> str:
    """Numbering and markers, done simply, from the character spans."""
    order = sorted(range(len(citations)), key=lambda i: (spans[i][1], spans[i][0]))
    numbers: dict[Source, int] = {}
    at: dict[int, set[int]] = {}
    for i in order:
        for s in citations[i].sources:
            n = numbers.setdefault(s, len(numbers) + 1)
            at.setdefault(spans[i][1], set()).add(n)
    out, prev = [], 0
    for pos in sorted(at):
        out.append(text[prev:pos])
        out.append("".join(f"[{n}]" for n in sorted(at[pos])))
        prev = pos
    out.append(text[prev:])
    return "".join(out)


# --- Staggered spans ------------------------------------------------------------------------


def staggered_case(scale: float) -> tuple[str, list[Citation]]:
    """About ``scale`` x 150 KB of text and ``scale`` x 1,000 spans, each reaching 1/50 of
    the text on from a little after the last one's start, each with its own source."""
    out: list[str] = []
    total, i = 0, 0
    while total < 150_000 * scale:
        piece = SENTENCES[i % len(SENTENCES)]
        out.append(piece)
        total += len(piece.encode("utf-8"))
        i += 1
    text = "".join(out)
    size, count = len(text), int(1_000 * scale)
    spans = [(k * size // count, min(size, k * size // count + size // 50)) for k in range(count)]
    byte_spans = TextIndex(text).convert_spans(spans, "char", "byte")
    return text, [
        Citation(
            s, e, None, None, None, (Source(uri=f"https://example.com/d/{k}", title=f"Doc {k}"),)
        )
        for k, (s, e) in enumerate(byte_spans)
    ]


def staggered(scales: tuple[float, float] = (1, 4)) -> dict[float, tuple[float, int, int]]:
    """CPU time, peak traced memory and output size of the highlighted Markdown view."""
    found = {}
    for scale in scales:
        text, citations = staggered_case(scale)
        view = lambda: render(text, citations, "html", highlight=True)  # noqa: B023, E731
        seconds = best(view, 3, time.process_time)
        tracemalloc.start()
        size = len(view().encode("utf-8"))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        found[scale] = (seconds, peak, size)
    (t1, m1, s1), (t4, m4, s4) = found[scales[0]], found[scales[1]]
    first = staggered_case(scales[0])
    print()
    print(
        f"staggered spans, highlighted Markdown view ({len(first[0].encode()) / 1e3:.0f} KB, "
        f"{len(first[1]):,} spans at 1x), goal: ~4x each at 4x"
    )
    for scale, (t, m, size) in found.items():
        print(
            f"  {scale:g}x: {t * 1e3:8.1f} ms CPU, peak {m / 1e6:7.1f} MB, "
            f"output {size / 1e6:7.2f} MB"
        )
    print(f"  4x / 1x:   time x{t4 / t1:.2f}, peak memory x{m4 / m1:.2f}, output x{s4 / s1:.2f}")
    return found


# --- Timing -------------------------------------------------------------------------------


def main() -> None:
    text, citations = make_case(1)
    data = text.encode("utf-8")
    print(
        f"text: {len(data):,} UTF-8 bytes, {len(text):,} characters; "
        f"{len(citations):,} citations; Python {sys.version.split()[0]}"
    )

    # Same output on a tenth of the case, to be sure both do the same job.
    small_text, small_cites = make_case(0.1)
    small_spans = naive_positions(small_text.encode(), small_cites)
    # (the plain style: Markdown moves markers out of code and links, the naive render
    # does not)
    assert naive_assemble(small_text, small_cites, small_spans) == render(
        small_text, small_cites, "plain"
    )
    spans = TextIndex(text).convert_spans([(c.start, c.end) for c in citations], "byte", "char")

    render(text, citations)  # warm up
    t_md = best(lambda: render(text, citations), 5)
    t_plain = best(lambda: render(text, citations, "plain"), 15)
    t_html = best(lambda: render(text, citations, "html", raw_text=True), 5)
    t_mark = best(lambda: render(text, citations, "html", highlight=True, raw_text=True), 5)
    sample = random.Random(7).sample(citations, NAIVE_SAMPLE)
    t_loop = best(lambda: naive_positions(data, sample), 2) * len(citations) / NAIVE_SAMPLE
    t_rest = best(lambda: naive_assemble(text, citations, spans), 5)
    t_naive = t_loop + t_rest

    print()
    print(f"render plain                 {t_plain * 1e3:9.1f} ms")
    print(f"render markdown              {t_md * 1e3:9.1f} ms (parses the Markdown)")
    print(f"render html                  {t_html * 1e3:9.1f} ms")
    print(f"render html, highlight=True  {t_mark * 1e3:9.1f} ms")
    print(
        f"per-citation prefix decode   {t_naive * 1e3:9.1f} ms "
        f"(loop scaled from {NAIVE_SAMPLE:,} citations: {t_loop * 1e3:.0f} ms; "
        f"numbering + join: {t_rest * 1e3:.1f} ms)"
    )
    print(f"ratio (plain)                {t_naive / t_plain:9.0f}x   goal: >= 100x")

    print()
    print("linear growth, goal: ~2.0 per doubling (best of interleaved rounds)")
    cases = {scale: make_case(scale) for scale in (1, 2, 4)}
    kinds: dict[str, Callable[[str, list[Citation]], str]] = {
        "markdown": lambda t, c: render(t, c),
        "html, highlight": lambda t, c: render(t, c, "html", highlight=True, raw_text=True),
    }
    times = {(kind, scale): float("inf") for kind in kinds for scale in cases}
    for _ in range(5):  # rounds interleave the sizes, so that drift hits them alike
        for kind, fn in kinds.items():
            for scale, (text_s, cites_s) in cases.items():
                t = best(lambda: fn(text_s, cites_s), 1)  # noqa: B023
                times[kind, scale] = min(times[kind, scale], t)
    for kind in kinds:
        row = [f"  {kind:<16}"]
        for scale, (text_s, cites_s) in cases.items():
            t = times[kind, scale]
            growth = "" if scale == 1 else f" (x{t / times[kind, scale // 2]:.2f})"
            row.append(
                f"{len(text_s.encode()) / 1e6:.0f} MB/{len(cites_s) // 1000}k: "
                f"{t * 1e3:6.1f} ms{growth}"
            )
        print("   ".join(row))
    staggered()


if __name__ == "__main__":
    main()
