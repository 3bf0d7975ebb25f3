"""Benchmark of grounding_protos.offsets; prints ratios measured in this one run.

Run: ``PYTHONPATH=src python benchmarks/offsets.py`` (about 15 s). Not a test: the
goals are printed next to the figures, nothing fails.

On ~1 MB of mixed-script text with 100,000 byte offsets drawn from 2,000 distinct
character boundaries:

- ``TextIndex(text).to_chars(offsets)`` against the naive per-offset decode
  ``len(data[:offset].decode())`` (timed on a sample, scaled; goal: >= 10,000x
  faster) and against one ``text.encode("utf-8")`` (the floor; goal: <= 5x);
- single ``to_char`` calls on a built index (goal: <= 1 us per call);
- memory held by an index, per MB of UTF-8 text (tracemalloc).
"""

from __future__ import annotations

import gc
import operator
import random
import sys
import time
import tracemalloc
from collections.abc import Callable

from _corpus import SENTENCES  # benchmarks/ is the script directory

from grounding_protos.offsets import TextIndex

TEXT_BYTES = 1_000_000
OFFSETS = 100_000
DISTINCT = 2_000
NAIVE_SAMPLE = 200

# Two kinds of mixed-script text: whole sentences per script, and a script switch
# every word or two. The floor (one encode) is ~2x slower on the second, while the
# per-offset work is the same, so the ratio to the floor differs.
WORDS = [
    "hello ",
    "world ",
    "the ",
    "café ",
    "naïve ",
    "Zürich ",
    "日本語",
    "中文",
    "テキスト",
    "שלום ",
    "مرحبا ",
    "👍🏽 ",
    "👨‍👩‍👧 ",
    "e\u0301 ",
    "\U0001d518\U0001d52b ",
    "\n",
]


def make_text(pieces: list[str], size: int = TEXT_BYTES, seed: int = 2024) -> str:
    rng = random.Random(seed)
    out: list[str] = []
    total = 0
    while total < size:
        piece = rng.choice(pieces)
        out.append(piece)
        total += len(piece.encode("utf-8"))
    return "".join(out)


def best(*fns: Callable[[], object], repeat: int) -> list[float]:
    """Best wall time of each function over ``repeat`` interleaved rounds, in seconds.

    Interleaving keeps a noisy machine from favouring one of the timed functions.
    """
    times = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            gc.disable()
            start = time.perf_counter()
            fn()
            elapsed = time.perf_counter() - start
            gc.enable()
            times[i] = min(times[i], elapsed)
    return times


def measure(text: str) -> dict[str, float]:
    data = text.encode("utf-8")
    rng = random.Random(7)
    chars = sorted(rng.sample(range(len(text) + 1), DISTINCT))
    distinct = [len(text[:c].encode("utf-8")) for c in chars]
    offsets = [rng.choice(distinct) for _ in range(OFFSETS)]
    expected = dict(zip(distinct, chars, strict=True))
    assert TextIndex(text).to_chars(offsets) == [expected[o] for o in offsets]

    # 1. Bulk: a fresh index and all 100,000 offsets, against the floor and the naive way;
    # and the least any Python can do per offset: deduplicate (set) and gather (itemgetter).
    lookup = dict(expected)
    encode, bulk, dedupe, gather = best(
        lambda: text.encode("utf-8"),
        lambda: TextIndex(text).to_chars(offsets),
        lambda: set(offsets),
        lambda: list(operator.itemgetter(*offsets)(lookup)),
        repeat=30,
    )
    sample = offsets[:NAIVE_SAMPLE]
    (naive_sample,) = best(lambda: [len(data[:o].decode("utf-8")) for o in sample], repeat=2)

    # 2. Single to_char calls on a built index (its table built before timing).
    index = TextIndex(text)
    to_char = index.to_char
    to_char(distinct[0])

    def singles() -> None:
        for o in offsets:
            to_char(o)

    (single,) = best(singles, repeat=10)

    # 3. Memory held by an index, per MB of UTF-8 text (the text itself is the caller's).
    def held(warm: Callable[[TextIndex], object]) -> float:
        gc.collect()
        tracemalloc.start()
        built = TextIndex(text)
        warm(built)
        size = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del built
        return size / (len(data) / 1e6)

    return {
        "bytes": len(data),
        "chars": len(text),
        "encode": encode,
        "bulk": bulk,
        "floor": dedupe + gather,
        "naive": naive_sample / len(sample) * len(offsets),
        "naive_each": naive_sample / len(sample),
        "single": single / len(offsets),
        "mem_fresh": held(lambda i: None),
        "mem_char": held(lambda i: i.to_char(0)),
        "mem_all": held(lambda i: (i.to_byte(0), i.to_utf16(0), i.from_utf16(0))),
    }


def main() -> None:
    words = measure(make_text(WORDS))
    sentences = measure(make_text(SENTENCES))
    results = {"sentences": sentences, "words": words}
    print(f"Python {sys.version.split()[0]}; {OFFSETS:,} byte offsets from {DISTINCT:,} distinct")
    print("character boundaries; mixed-script text of about 1 MB, mixed by sentence and by word")
    print()
    rows: list[tuple[str, Callable[[dict[str, float]], str], str]] = [
        ("text size", lambda r: f"{r['bytes'] / 1e6:.2f} MB/{r['chars'] / 1e3:.0f}k ch", ""),
        ("text.encode('utf-8') (the floor)", lambda r: f"{r['encode'] * 1e3:.2f} ms", ""),
        ("TextIndex(text).to_chars(offsets)", lambda r: f"{r['bulk'] * 1e3:.2f} ms", ""),
        ("naive decode, per offset", lambda r: f"{r['naive_each'] * 1e3:.2f} ms", ""),
        ("naive decode, 100k offsets (scaled)", lambda r: f"{r['naive']:.0f} s", ""),
        (
            "speed-up of to_chars over naive",
            lambda r: f"{r['naive'] / r['bulk']:,.0f}x",
            ">= 10,000x",
        ),
        ("to_chars / one encode", lambda r: f"{r['bulk'] / r['encode']:.2f}x", "<= 5x"),
        (
            "  set(offsets) + itemgetter gather alone",
            lambda r: f"{r['floor'] / r['encode']:.2f}x",
            "(any bulk API pays this)",
        ),
        ("single to_char, built index", lambda r: f"{r['single'] * 1e9:.0f} ns", "<= 1,000 ns"),
        ("index memory per MB of text: fresh", lambda r: f"{r['mem_fresh'] / 1e6:.2f} MB", ""),
        ("  after to_char (byte table)", lambda r: f"{r['mem_char'] / 1e6:.2f} MB", ""),
        ("  after all lookups (all tables)", lambda r: f"{r['mem_all'] / 1e6:.2f} MB", ""),
    ]
    print(f"{'measure':<42}{'sentences':>17}{'words':>17}  goal")
    for name, cell, goal in rows:
        cells = "".join(f"{cell(r):>17}" for r in results.values())
        print(f"{name:<42}{cells}  {goal}")


if __name__ == "__main__":
    main()
