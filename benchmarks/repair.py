"""Benchmark of the span policy; prints ratios measured in this one run.

Run: ``PYTHONPATH=src python benchmarks/repair.py`` (about 20 s). Not a test: the
goals are printed next to the figures, nothing fails.

A Gemini response (REST JSON dict) with ~1 MB of mixed-script text (numbered
sentences) and 10,000 grounding supports, each with its ``segment.text``:

- ``read`` with the default policy (``errors="repair"``) on the clean response,
  against ``errors="strict"`` on the same. Goal: <= 1.1x.
- ``read`` (repair) on the same response with every offset drifted by 1-2 bytes
  (so every span is re-anchored on its text), against strict on the clean one.
  Goal: <= 3x.
"""

from __future__ import annotations

import random
import sys
from typing import Any

from _corpus import SENTENCES  # benchmarks/ is the script directory
from _timing import best  # benchmarks/ is the script directory

from grounding_protos.citations import read

TEXT_BYTES = 1_000_000
SUPPORTS = 10_000
CHUNKS = 40


def make_response(scale: float = 1.0, drift: bool = False, seed: int = 7) -> dict[str, Any]:
    """About ``scale`` MB of text with ``scale * 10,000`` supports of 1-3 sentences."""
    rng = random.Random(seed)
    pieces: list[str] = []
    total = 0
    while total < TEXT_BYTES * scale:
        # numbered, so that a drifted span's text is never also found nearer its offsets
        piece = f"({len(pieces)}) {rng.choice(SENTENCES)}"
        pieces.append(piece)
        total += len(piece.encode("utf-8"))
    starts = [0]
    for piece in pieces:
        starts.append(starts[-1] + len(piece.encode("utf-8")))
    text = "".join(pieces)
    supports = []
    for _ in range(int(SUPPORTS * scale)):
        first = rng.randrange(len(pieces) - 3)
        last = first + rng.randrange(1, 4)
        start, end = starts[first], starts[last]
        shift = rng.choice((1, 2)) * drift  # the same draws with and without drift
        supports.append(
            {
                "segment": {
                    "startIndex": start + shift,
                    "endIndex": end + shift,
                    "text": "".join(pieces[first:last]),
                },
                "groundingChunkIndices": [rng.randrange(CHUNKS)],
                "confidenceScores": [0.8],
            }
        )
    chunks = [{"web": {"uri": f"https://s{i}.example/", "title": f"S{i}"}} for i in range(CHUNKS)]
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "finishReason": "STOP",
                "groundingMetadata": {"groundingChunks": chunks, "groundingSupports": supports},
            }
        ]
    }


def main(scale: float = 1.0, repeat: int = 5) -> dict[str, float]:
    clean = make_response(scale)
    drifted = make_response(scale, drift=True)
    repaired = read(drifted)
    assert [c.char_start for c in repaired.citations] == [
        c.char_start for c in read(clean, errors="strict").citations
    ], "repair did not give back the clean spans"
    assert sum(p.code == "offset-drift" for p in repaired.problems) == len(repaired.citations)
    strict = best(lambda: read(clean, errors="strict"), repeat)
    repair = best(lambda: read(clean), repeat)
    drift = best(lambda: read(drifted), repeat)
    results = {
        "strict_s": strict,
        "repair_clean_ratio": repair / strict,
        "repair_drifted_ratio": drift / strict,
    }
    n = len(repaired.citations)
    print(f"{n} supports over {len(clean['candidates'][0]['content']['parts'][0]['text'])} chars")
    print(f"read, strict, clean:              {strict * 1e3:8.1f} ms (baseline)")
    print(f"read, repair, clean:              {repair * 1e3:8.1f} ms  "
          f"{results['repair_clean_ratio']:.2f}x  (goal <= 1.1x)")  # fmt: skip
    print(f"read, repair, every span drifted: {drift * 1e3:8.1f} ms  "
          f"{results['repair_drifted_ratio']:.2f}x  (goal <= 3x)")  # fmt: skip
    return results


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
