"""Benchmark of hostile scale: peak memory and time at 1x and 4x input; prints ratios.

Run: ``PYTHONPATH=src python benchmarks/scale.py`` (about a minute). Not a test: the
goals are printed next to the figures, nothing fails. A cost linear in the input grows
4x from 1x to 4x; a quadratic one 16x.

- Wide spans: a Gemini response (REST JSON dict) of ``T`` bytes of mixed-script text
  and ``N`` grounding supports, each spanning nearly the whole text (no
  ``segment.text``), at 1x (``T`` = 100 KB, ``N`` = 250) and 4x (400 KB, 1,000): peak
  memory (``tracemalloc``) and time of ``read``, ``validate`` and ``render`` (Markdown
  markers). Goal: O(N + T), 4x/1x <= 5 and peak <= 20x the text's size.
- Many parts: a Gemini response of ``P`` text parts, one support per part with its
  ``partIndex`` (offsets into its own part), at 1x (2,500 parts) and 4x (10,000):
  time and peak memory of ``read``. Goal: linear, 4x/1x <= 5.
"""

from __future__ import annotations

import gc
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from _corpus import SENTENCES  # benchmarks/ is the script directory

from grounding_protos import validate
from grounding_protos.citations import read, render

Json = dict[str, Any]


def _text(size: int, rng: random.Random) -> str:
    pieces: list[str] = []
    total = 0
    while total < size:
        sentence = rng.choice(SENTENCES)
        pieces.append(sentence)
        total += len(sentence.encode("utf-8"))
    return "".join(pieces)


def wide_spans(text_bytes: int, supports: int, seed: int = 5) -> Json:
    """A Gemini response whose supports each span nearly the whole text."""
    rng = random.Random(seed)
    text = _text(text_bytes, rng)
    data = text.encode("utf-8")
    size = len(data)
    sources = [{"web": {"uri": f"https://s{i}.example/", "title": f"S{i}"}} for i in range(20)]
    rows = []
    for _ in range(supports):
        start, end = rng.randrange(64), size - rng.randrange(64)
        while start and (data[start] & 0xC0) == 0x80:  # a character boundary
            start -= 1
        while end < size and (data[end] & 0xC0) == 0x80:
            end += 1
        rows.append({
            "segment": {"startIndex": start, "endIndex": end},
            "groundingChunkIndices": rng.sample(range(len(sources)), 2),
        })  # fmt: skip
    return {"candidates": [{
        "content": {"role": "model", "parts": [{"text": text}]},
        "groundingMetadata": {"groundingChunks": sources, "groundingSupports": rows},
    }]}  # fmt: skip


def many_parts(parts: int, seed: int = 6) -> Json:
    """A Gemini response of ``parts`` text parts, each cited by its own ``partIndex``."""
    rng = random.Random(seed)
    texts = [rng.choice(SENTENCES[:-1]) for _ in range(parts)]
    rows = [
        {
            "segment": {"partIndex": i, "startIndex": 0, "endIndex": len(t.encode("utf-8"))},
            "groundingChunkIndices": [i % 10],
        }
        for i, t in enumerate(texts)
    ]
    sources = [{"web": {"uri": f"https://p{i}.example/", "title": f"P{i}"}} for i in range(10)]
    return {"candidates": [{
        "content": {"role": "model", "parts": [{"text": t} for t in texts]},
        "groundingMetadata": {"groundingChunks": sources, "groundingSupports": rows},
    }]}  # fmt: skip


def peak(fn: Callable[[], object]) -> tuple[float, float]:
    """Peak traced memory of one call (bytes, above what was allocated before it), and
    the best time of two calls without tracing (seconds)."""
    times = []
    for _ in range(2):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = fn()
        top = tracemalloc.get_traced_memory()[1] - base
        del result
    finally:
        tracemalloc.stop()
    return float(top), min(times)


def _row(name: str, small: tuple[float, float], big: tuple[float, float], text: int) -> None:
    (m1, t1), (m4, t4) = small, big
    print(
        f"  {name:<9} peak {m1 / 1e6:7.1f} MB -> {m4 / 1e6:7.1f} MB ({m4 / m1:4.1f}x, "
        f"{m4 / text:6.1f}x the 4x input's text)  time {t1 * 1e3:7.1f} ms -> "
        f"{t4 * 1e3:7.1f} ms ({t4 / t1:4.1f}x)"
    )


def main(text_kb: int = 100, supports: int = 250, parts: int = 2_500) -> dict[str, float]:
    results: dict[str, float] = {}
    cases = [wide_spans(text_kb * 1000 * k, supports * k) for k in (1, 4)]
    texts = [c["candidates"][0]["content"]["parts"][0]["text"] for c in cases]
    size4 = len(texts[1].encode("utf-8"))
    print(
        f"Wide spans: {text_kb} KB and {supports} supports (1x) -> {4 * text_kb} KB and "
        f"{4 * supports} (4x), each span nearly the whole text (goal: 4x/1x <= 5)"
    )
    grounded = [read(c) for c in cases]
    for g, k in zip(grounded, (1, 4), strict=True):  # the cases are what they say
        assert len(g.citations) == supports * k and not g.problems
    runs: dict[str, list[Callable[[], object]]] = {
        "read": [lambda c=c: read(c) for c in cases],  # type: ignore[misc]
        "validate": [lambda c=c: validate(c) for c in cases],  # type: ignore[misc]
        "render": [
            lambda t=t, g=g: render(t, g.citations)  # type: ignore[misc]
            for t, g in zip(texts, grounded, strict=True)
        ],
    }
    del grounded
    for name, (small, big) in runs.items():
        a, b = peak(small), peak(big)
        _row(name, a, b, size4)
        results[f"{name}_memory_4x_vs_1x"] = b[0] / a[0]
        results[f"{name}_memory_vs_text"] = b[0] / size4
    del runs, cases, texts
    gc.collect()
    many = [many_parts(parts * k) for k in (1, 4)]
    print(f"Many parts: {parts:,} (1x) -> {4 * parts:,} (4x) text parts, one support each")
    check = read(many[0])
    assert [c.text for c in check.citations] == [
        p["text"] for p in many[0]["candidates"][0]["content"]["parts"]
    ]
    del check
    a, b = peak(lambda: read(many[0])), peak(lambda: read(many[1]))
    texts_bytes = sum(
        len(p["text"].encode("utf-8")) for p in many[1]["candidates"][0]["content"]["parts"]
    )
    _row("read", a, b, texts_bytes)
    results["parts_time_4x_vs_1x"] = b[1] / a[1]
    return results


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
