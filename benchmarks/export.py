"""Benchmark of the vendor exports; prints ratios measured in this one run.

Run: ``PYTHONPATH=src python benchmarks/export.py`` (about 20 s). Not a test: the
goal is printed next to the figures, nothing fails.

On a Gemini ``generateContent`` response (REST JSON) with ~1 MB of mixed-script text
in one part, 800 web grounding chunks and 10,000 grounding supports (spans of up to
~300 characters, 1-3 chunks each):

- ``convert.to_openai_annotations(response, unit=...)`` (both APIs) and
  ``convert.to_langchain_blocks(response, unit=...)`` in each unit, against
  ``citations.read(response)`` on the same response. Each export reads the response
  itself, so its time includes one ``read``. Goal: <= 2x ``read``.
- the export step alone, from the ``Grounded`` that ``read`` returned, as a share of
  ``read``: what the conversion and the records cost on their own.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from _corpus import SENTENCES  # benchmarks/ is the script directory
from _timing import best  # benchmarks/ is the script directory

from grounding_protos.citations import read
from grounding_protos.convert import to_langchain_blocks, to_openai_annotations
from grounding_protos.offsets import TextIndex, Unit

TEXT_BYTES = 1_000_000
SUPPORTS = 10_000
CHUNKS = 800
UNITS: tuple[Unit, ...] = ("char", "utf16", "byte")


def make_response(scale: float, seed: int = 2024) -> dict[str, Any]:
    """About ``scale`` MB of text and ``scale * 10,000`` supports, as Gemini sends them."""
    rng = random.Random(seed)
    pieces: list[str] = []
    total = 0
    while total < TEXT_BYTES * scale:
        piece = rng.choice(SENTENCES)
        pieces.append(piece)
        total += len(piece.encode("utf-8"))
    text = "".join(pieces)
    char_spans = []
    for _ in range(max(1, int(SUPPORTS * scale))):
        start = rng.randrange(len(text))
        char_spans.append((start, min(len(text), start + rng.randrange(1, 300))))
    byte_spans = TextIndex(text).convert_spans(char_spans, "char", "byte")
    chunks = [
        {"web": {"uri": f"https://example.com/doc/{i}", "title": f"Document {i}"}}
        for i in range(CHUNKS)
    ]
    supports = [
        {
            "segment": {"startIndex": s, "endIndex": e},
            "groundingChunkIndices": rng.sample(range(CHUNKS), rng.randint(1, 3)),
        }
        for s, e in byte_spans
    ]
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "groundingMetadata": {"groundingChunks": chunks, "groundingSupports": supports},
            }
        ]
    }


def run(scale: float = 1.0, repeat: int = 5) -> None:
    response = make_response(scale)
    grounded = read(response)
    text = grounded.text or ""
    pairs = sum(len(c.sources) for c in grounded.citations)
    print(
        f"text: {len(text.encode()):,} UTF-8 bytes, {len(text):,} characters; "
        f"{len(grounded.citations):,} citations, {pairs:,} (span, source) pairs; "
        f"Python {sys.version.split()[0]}"
    )
    assert len(to_openai_annotations(grounded)) == pairs  # the same job for every unit

    t_read = best(lambda: read(response), repeat)
    print(f"\nread (baseline)                     {t_read * 1e3:8.1f} ms")
    print("export from the response (includes a read), ratio to read; goal: <= 2x")
    exports: dict[str, Callable[[object, Unit], object]] = {
        "openai responses": lambda o, u: to_openai_annotations(o, unit=u),
        "openai chat": lambda o, u: to_openai_annotations(o, unit=u, api="chat"),
        "langchain blocks": lambda o, u: to_langchain_blocks(o, unit=u),
    }
    for name, export in exports.items():
        for unit in UNITS:
            t_full = best(lambda: export(response, unit), repeat)  # noqa: B023
            t_step = best(lambda: export(grounded, unit), repeat)  # noqa: B023
            print(
                f"  {name:<17} {unit:<5}           {t_full * 1e3:8.1f} ms   "
                f"ratio {t_full / t_read:4.2f}x   "
                f"(export step alone {t_step * 1e3:6.1f} ms = {t_step / t_read:4.2f}x read)"
            )


if __name__ == "__main__":
    run()
