"""Benchmark of the marker readers' code scan; prints ratios measured in this one run.

Run: ``PYTHONPATH=src python benchmarks/markers.py`` (about 10 s). Not a test: the
goals are printed next to the figures, nothing fails.

A marker (``[1]``) inside code is code, so the marker readers find the text's code
spans and fenced blocks first: markdown-it-py's block parser and a backtick-run scan,
only for a text with a backtick or ``~~~``. This measures what that costs:

- ``read`` of a Perplexity answer (mixed-script sentences, each ending in a marker
  run) with inline code and a fenced block in every tenth sentence, against the same
  answer with the backticks taken out (no scan, no markdown-it-py): goal <= 2x;
- the first such ``read`` in a fresh interpreter (markdown-it-py imported then),
  against the first ``read`` of the answer without code: the one-off import, in ms.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

from _corpus import SENTENCES  # benchmarks/ is the script directory
from _timing import best  # benchmarks/ is the script directory

from grounding_protos.citations import read

URLS = [f"https://s{i}.example/" for i in range(20)]


def make_answer(count: int, seed: int = 11) -> tuple[dict[str, Any], dict[str, Any]]:
    """A Perplexity answer of ``count`` cited sentences, with code, and without it."""
    rng = random.Random(seed)
    pieces = []
    for i in range(count):
        sentence = rng.choice(SENTENCES).strip() or "Zeile"
        code = f" `arr[{i % 3 + 1}]`" if i % 10 == 0 else ""
        pieces.append(f"{sentence}{code} [{i % 20 + 1}][{(i + 7) % 20 + 1}]. ")
        if i % 10 == 5:
            pieces.append("\n\n```python\nx = arr[1]  # [2]\n```\n\n")
    coded = "".join(pieces)
    plain = coded.replace("`", "'")  # the same length: no code, no scan

    def answer(content: str) -> dict[str, Any]:
        message = {"role": "assistant", "content": content}
        choice = {"index": 0, "finish_reason": "stop", "message": message}
        return {"model": "sonar", "citations": URLS, "choices": [choice]}

    return answer(coded), answer(plain)


_FIRST_READ = """
import json, sys, time
from grounding_protos.citations import read
answer = json.loads(sys.argv[1])
t0 = time.perf_counter()
read(answer)
print(time.perf_counter() - t0)
"""


def first_read(answer: dict[str, Any], repeat: int) -> float:
    """The best time of the first ``read`` of ``answer`` in a fresh interpreter."""
    times = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-c", _FIRST_READ, json.dumps(answer)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        times.append(float(done.stdout))
    return min(times)


def main(count: int = 2_000, repeat: int = 5) -> None:
    coded, plain = make_answer(count)
    with_code, without = read(coded), read(plain)
    # without its backticks, each code span's "[n]" and each fence's two are markers too
    assert len(with_code.citations) == count == len(without.citations) - 3 * (count // 10)
    size = len(coded["choices"][0]["message"]["content"])
    print(f"Perplexity answer of {count:,} cited sentences ({size:,} characters)")
    t_code = best(lambda: read(coded), repeat)
    t_plain = best(lambda: read(plain), repeat)
    print(f"read, with code (scanned)    {t_code * 1000:8.2f} ms")
    print(f"read, without code           {t_plain * 1000:8.2f} ms")
    print(f"code scan: {t_code / t_plain:.2f}x   (goal <= 2x)")
    small_coded, small_plain = make_answer(20)
    first_code = first_read(small_coded, min(repeat, 3))
    first_plain = first_read(small_plain, min(repeat, 3))
    print(f"first read in a fresh interpreter: +{(first_code - first_plain) * 1000:.1f} ms "
          "for markdown-it-py's import (only a text with code pays it)")  # fmt: skip


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
