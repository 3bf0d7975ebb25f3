"""Benchmark of the declared shapes' fast path of ``read(dict)`` on a vendor's whole
response, against the tolerant reader and ``json.loads``; prints ratios measured in
this one run (CPU time, interleaved, best of several). Not a test: nothing fails.

Run: ``PYTHONPATH=src python benchmarks/readers_vendor.py`` (about 10 s).

- OpenAI Responses with 400 ``url_citation`` annotations: the input of
  ``benchmarks/peers.py`` (multi-script text, German, Japanese, Arabic, emoji, before
  every span; the spans are the markdown links the model wrote, in characters).
  ``read(dict)`` (the declared shape) against the tolerant reader alone (``read``
  without the fast path: what it cost before issue 34), ``read_json`` of its bytes, and
  ``json.loads`` of them. Issue 34's goal for it is a peer's time (LangChain's
  conversion to v1 content blocks), which ``peers.py`` measures.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from functools import partial
from typing import Any
from unittest import mock

from _timing import best  # benchmarks/ is the script directory
from peers import answer, openai_response

from grounding_protos._citations import fast
from grounding_protos.citations import read, read_json


@contextmanager
def tolerant_only() -> Iterator[None]:
    """``read`` without the declared shapes' fast paths: the tolerant reader alone."""
    with (
        mock.patch.object(fast, "read_dict", return_value=None),
        mock.patch.object(fast, "read_text", return_value=None),
    ):
        yield


def cases(count: int) -> dict[str, dict[str, Any]]:
    """The responses measured, by name."""
    return {f"OpenAI Responses, {count:,} url_citations": openai_response(answer(count, 6, True))}


def interleaved(
    runs: dict[str, Callable[[], object]], repeat: int, number: int
) -> dict[str, float]:
    """The best CPU time per call of each function, the functions interleaved round by
    round; ``"tolerant"`` is ``read`` with the fast paths patched out (once a round)."""
    out = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for name, fn in runs.items():

            def many(fn: Callable[[], object] = fn, tolerant: bool = name == "tolerant") -> None:
                with tolerant_only() if tolerant else nullcontext():
                    for _ in range(number):
                        fn()

            out[name] = min(out[name], best(many, 1, time.process_time) / number)
    return out


def main(count: int = 400, repeat: int = 9, number: int = 30) -> dict[str, float]:
    results: dict[str, float] = {}
    for name, response in cases(count).items():
        data = json.dumps(response, ensure_ascii=False).encode()
        fast_result = read(response)
        assert read_json(data) == fast_result
        with tolerant_only():
            assert read(response) == fast_result  # the fast path and the tolerant one agree
        t = interleaved(
            {
                "json.loads": partial(json.loads, data),
                "read": partial(read, response),
                "read_json": partial(read_json, data),
                "tolerant": partial(read, response),
            },
            repeat,
            number,
        )
        base = t["json.loads"]
        print(f"{name}: {len(data):,} bytes of JSON")
        print(f"  json.loads of its bytes     {base * 1e6:8.1f} us (baseline)")
        for what, label in (
            ("read", "read(dict)"),
            ("read_json", "read_json(bytes)"),
            ("tolerant", "tolerant read(dict)"),
        ):
            print(f"  {label:<27} {t[what] * 1e6:8.1f} us  {t[what] / base:.2f}x")
        speed_up = t["tolerant"] / t["read"]
        print(f"  read(dict) is {speed_up:.1f}x faster than the tolerant reader alone")
        key = name.split(",")[0].lower().replace(" ", "_")
        results[f"{key}_read_vs_json_loads"] = t["read"] / base
        results[f"{key}_tolerant_vs_read"] = speed_up
    return results


if __name__ == "__main__":
    main()
