"""Benchmark of the everyday path: ``read`` and ``validate`` of one response, and JSONL
batches; prints ratios measured in this one run (interleaved, best of several).

Run: ``PYTHONPATH=src python benchmarks/read.py`` (about 20 s). Not a test: the goals
are printed next to the figures, nothing fails.

- A Gemini response (REST JSON dict) with 40 grounding supports, 10 web chunks and
  ~6.6 KB of mixed-script text (~22 KB of JSON): ``read`` of the dict against
  ``json.loads`` of its text. Goal: <= 5x.
- The same with 40 and 400 supports (issue 34): ``read_json`` of its text against
  ``json.loads`` of it (goal: <= 1.5x), ``read`` of the dict (goal at 400: <= 2x), and
  the tolerant reader alone (``read`` without the declared shape's fast path: what
  ``read`` cost before it) for comparison.
- An Anthropic ``Message`` with 400 cited text blocks (issue 34; :func:`anthropic`, as
  ``benchmarks/peers.py`` builds its own: multi-script text, then a block cited by one
  or two ``web_search_result_location`` citations): ``read`` of the dict (its declared shape's
  fast path) and the tolerant reader alone, against ``json.loads`` of its text.
- A Discovery Engine ``Answer`` message with 40 citations (and 40 references):
  ``read`` of the message against ``FromString`` of its wire bytes plus ``read``'s own
  offset work (placing the spans), with the split of ``read`` into reading the fields
  and placing the offsets. Goal: <= 5x.
- ``validate`` of each against ``read`` of the same. Goal: <= 1.5x.
- A JSONL batch of such responses through ``batch.process_lines(..., "render")``
  (what ``render --jsonl`` does per line) against ``json.loads`` + ``read`` +
  ``render`` + ``source_list`` per line; lines per second on one core. Goal: <= 1.5x.
"""

from __future__ import annotations

import gc
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from _corpus import SENTENCES  # benchmarks/ is the script directory

from grounding_protos import validate
from grounding_protos._citations import fast
from grounding_protos._sources.registry import read_input
from grounding_protos.batch import process_lines
from grounding_protos.citations import read, read_json, render, source_list
from grounding_protos.discoveryengine_v1 import Answer

SUPPORTS = 40
CHUNKS = 10
TEXT_BYTES = 6_600


def _pieces(rng: random.Random) -> tuple[list[str], list[int]]:
    pieces: list[str] = []
    starts = [0]
    while starts[-1] < TEXT_BYTES:
        piece = rng.choice(SENTENCES[:-1])
        pieces.append(piece)
        starts.append(starts[-1] + len(piece.encode("utf-8")))
    return pieces, starts


def gemini_response(seed: int = 1, supports_count: int = SUPPORTS) -> dict[str, Any]:
    """A Gemini generateContent response as REST JSON: 40 supports, 10 web chunks."""
    rng = random.Random(seed)
    pieces, starts = _pieces(rng)
    supports = []
    for _ in range(supports_count):
        first = rng.randrange(len(pieces) - 2)
        last = first + rng.randrange(1, 3)
        supports.append(
            {
                "segment": {
                    "startIndex": starts[first],
                    "endIndex": starts[last],
                    "text": "".join(pieces[first:last]),
                },
                "groundingChunkIndices": rng.sample(range(CHUNKS), 2),
                "confidenceScores": [round(rng.random(), 3), round(rng.random(), 3)],
            }
        )
    chunks = [
        {"web": {"uri": f"https://vertexaisearch.cloud.google.com/grounding-api-redirect/A{i}",
                 "title": f"site{i}.example"}}
        for i in range(CHUNKS)
    ]  # fmt: skip
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "".join(pieces)}]},
                "finishReason": "STOP",
                "groundingMetadata": {
                    "webSearchQueries": ["grounding offsets", "UTF-8 Bytes"],
                    "searchEntryPoint": {"renderedContent": "<div class='chip'>q</div>"},
                    "groundingChunks": chunks,
                    "groundingSupports": supports,
                },
            }
        ],
        "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 1800},
        "modelVersion": "gemini-2.5-flash",
    }


def answer_message(seed: int = 2) -> Answer:
    """A Discovery Engine Answer with 40 citations, each on its own chunk reference."""
    rng = random.Random(seed)
    pieces, starts = _pieces(rng)
    answer = Answer(answer_text="".join(pieces), state=Answer.State.SUCCEEDED)
    for i in range(SUPPORTS):
        first = rng.randrange(len(pieces) - 2)
        citation = answer.citations.add(start_index=starts[first], end_index=starts[first + 1])
        citation.sources.add(reference_id=str(i))
        info = answer.references.add().chunk_info
        info.chunk = f"projects/p/locations/global/dataStores/d/documents/doc{i % 8}/chunks/c{i}"
        info.content = pieces[first]
        info.relevance_score = rng.random()
        info.document_metadata.document = (
            f"projects/p/locations/global/dataStores/d/documents/doc{i % 8}"
        )
        info.document_metadata.uri = f"https://docs.example/{i % 8}"
        info.document_metadata.title = f"Dokument {i % 8}"
    return answer


def best(runs: dict[str, Callable[[], object]], repeat: int, number: int) -> dict[str, float]:
    """The best time per call of each function, the functions interleaved run by run."""
    out = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for name, fn in runs.items():
            gc.collect()
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            out[name] = min(out[name], (time.perf_counter() - t0) / number)
    return out


@contextmanager
def tolerant_only() -> Iterator[None]:
    """``read`` without the declared shapes' fast paths: the tolerant reader alone."""
    with (
        mock.patch.object(fast, "read_dict", return_value=None),
        mock.patch.object(fast, "read_text", return_value=None),
    ):
        yield


def declared(repeat: int, number: int) -> dict[str, float]:
    """``read_json``, ``read`` and the tolerant reader of Gemini responses with 40 and
    400 supports, against ``json.loads`` of their text; prints the ratios."""
    results: dict[str, float] = {}
    for count in (SUPPORTS, 10 * SUPPORTS):
        response = gemini_response(supports_count=count)
        data = json.dumps(response, ensure_ascii=False).encode()
        with tolerant_only():
            expected = read(response)
            before = best(
                {
                    "json.loads": lambda d=data: json.loads(d),
                    "tolerant": lambda r=response: read(r),
                },
                repeat,
                max(1, number // (count // SUPPORTS)),
            )
        assert read_json(data) == read(response) == expected  # the fast paths agree
        t = best(
            {
                "json.loads": lambda d=data: json.loads(d),
                "read_json": lambda d=data: read_json(d),
                "read": lambda r=response: read(r),
            },
            repeat,
            max(1, number // (count // SUPPORTS)),
        )
        base = t["json.loads"]
        # the tolerant reader against its own json.loads runs: both timed interleaved
        t["tolerant"] = before["tolerant"] / before["json.loads"] * base
        results[f"read_json_vs_json_loads_{count}"] = t["read_json"] / base
        results[f"read_vs_json_loads_{count}"] = t["read"] / base
        results[f"tolerant_vs_json_loads_{count}"] = t["tolerant"] / base
        goal = "  (goal <= 2x)" if count > SUPPORTS else ""
        print(f"Gemini, {count} supports: {len(data):,} bytes of JSON")
        print(f"  json.loads of its bytes     {base * 1e6:8.1f} us (baseline)")
        print(
            f"  read_json(bytes)            {t['read_json'] * 1e6:8.1f} us  "
            f"{t['read_json'] / base:.2f}x  (goal <= 1.5x)"
        )
        print(
            f"  read(dict)                  {t['read'] * 1e6:8.1f} us  "
            f"{t['read'] / base:.2f}x{goal}"
        )
        print(
            f"  tolerant read(dict)         {t['tolerant'] * 1e6:8.1f} us  "
            f"{t['tolerant'] / base:.2f}x  (without the declared shape: before issue 34)"
        )
    return results


def anthropic_message(count: int = 400, seed: int = 7) -> dict[str, Any]:
    """A ``Message`` (the Messages API's JSON) of ``2 * count`` text blocks: two
    mixed-script sentences, then a block cited by one or two web search results."""
    rng = random.Random(seed)
    urls = [f"https://quelle-{i}.example/köln-東京-{i}" for i in range(20)]
    multi = [s for s in SENTENCES if len(s.encode()) > len(s)]
    content: list[dict[str, Any]] = []
    for i in range(count):
        content.append({"type": "text", "text": rng.choice(multi) + rng.choice(multi)})
        cited = rng.sample(range(len(urls)), rng.choice((1, 2)))
        citations = [
            {"type": "web_search_result_location", "url": urls[u], "title": urls[u][8:30],
             "cited_text": f"Quelle {u}: Köln, 東京, القاهرة", "encrypted_index": f"e{u}"}
            for u in cited
        ]  # fmt: skip
        claim = f"{rng.choice(multi).strip()} ⟨{i}⟩"
        content.append({"type": "text", "text": claim, "citations": citations})
    return {"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": content, "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 9, "output_tokens": 900}}  # fmt: skip


def anthropic(repeat: int = 7, number: int = 20, count: int = 400) -> dict[str, float]:
    """``read`` of an Anthropic message with ``count`` cited blocks (its declared shape's
    fast path), and the tolerant reader alone, against ``json.loads`` of its text;
    prints the ratios. The goal (issue 34) is against a peer, LangChain's conversion of
    the SDK's objects to v1 content blocks: ``benchmarks/peers.py`` measures it."""
    message = anthropic_message(count)
    data = json.dumps(message, ensure_ascii=False).encode()
    with tolerant_only():
        expected = read(message)
        before = best(
            {"json.loads": lambda: json.loads(data), "tolerant": lambda: read(message)},
            repeat,
            number,
        )
    assert read(message) == expected and len(expected.citations) == count  # both agree
    t = best(
        {"json.loads": lambda: json.loads(data), "read": lambda: read(message)}, repeat, number
    )
    base = t["json.loads"]
    # the tolerant reader against its own json.loads runs: both timed interleaved
    tolerant = before["tolerant"] / before["json.loads"] * base
    results = {
        f"anthropic_read_vs_json_loads_{count}": t["read"] / base,
        f"anthropic_tolerant_vs_json_loads_{count}": tolerant / base,
    }
    print(f"Anthropic message, {count} cited blocks: {len(data):,} bytes of JSON")
    print(f"  json.loads of its bytes     {base * 1e6:8.1f} us (baseline)")
    print(f"  read(dict)                  {t['read'] * 1e6:8.1f} us  {t['read'] / base:.2f}x")
    print(
        f"  tolerant read(dict)         {tolerant * 1e6:8.1f} us  {tolerant / base:.2f}x  "
        f"(without the declared shape; read is {tolerant / t['read']:.1f}x faster)"
    )
    return results


def _render_line(line: str) -> str:
    grounded = read(json.loads(line))
    text = grounded.text or ""
    return render(text, grounded.citations) + source_list(text, grounded.citations)


def main(repeat: int = 7, number: int = 200, lines: int = 400) -> dict[str, float]:
    gemini = gemini_response()
    gemini_json = json.dumps(gemini, ensure_ascii=False)
    answer = answer_message()
    wire = answer.SerializeToString()
    t = best(
        {
            "json.loads": lambda: json.loads(gemini_json),
            "read(gemini)": lambda: read(gemini),
            "validate(gemini)": lambda: validate(gemini),
            "FromString": lambda: Answer.FromString(wire),
            "read(answer)": lambda: read(answer),
            "read_input(answer)": lambda: read_input(answer),
            "validate(answer)": lambda: validate(answer),
        },
        repeat,
        number,
    )
    batch = [json.dumps(gemini_response(seed), ensure_ascii=False) for seed in range(lines)]
    b = best(
        {
            "process_lines": lambda: sum(1 for _ in process_lines(batch, "render")),
            "per line": lambda: [_render_line(line) for line in batch],
        },
        max(3, repeat // 2),
        1,
    )
    results = declared(repeat, number)
    results |= {
        "read_gemini_vs_json_loads": t["read(gemini)"] / t["json.loads"],
        # the baseline: parsing the wire bytes plus read's own offset work
        "read_answer_vs_fromstring": t["read(answer)"]
        / (t["FromString"] + max(t["read(answer)"] - t["read_input(answer)"], 0.0)),
        "validate_vs_read_gemini": t["validate(gemini)"] / t["read(gemini)"],
        "validate_vs_read_answer": t["validate(answer)"] / t["read(answer)"],
        "batch_vs_per_line": b["process_lines"] / b["per line"],
    }
    us = {k: v * 1e6 for k, v in t.items()}
    fields = us["read_input(answer)"]
    print(f"Gemini dict: {len(gemini_json):,} chars of JSON, {SUPPORTS} supports, {CHUNKS} chunks")
    print(f"  json.loads of its text      {us['json.loads']:8.1f} us (baseline)")
    print(
        f"  read(dict)                  {us['read(gemini)']:8.1f} us  "
        f"{results['read_gemini_vs_json_loads']:.2f}x  (goal <= 5x)"
    )
    print(
        f"  validate(dict)              {us['validate(gemini)']:8.1f} us  "
        f"{results['validate_vs_read_gemini']:.2f}x read  (goal <= 1.5x)"
    )
    print(f"Discovery Engine Answer: {len(wire):,} bytes of wire, {SUPPORTS} citations")
    print(f"  Answer.FromString           {us['FromString']:8.1f} us (baseline)")
    print(
        f"  read(message)               {us['read(answer)']:8.1f} us  "
        f"{results['read_answer_vs_fromstring']:.2f}x FromString + placing  (goal <= 5x)"
    )
    print(
        f"    of which reading fields   {fields:8.1f} us, placing offsets "
        f"{us['read(answer)'] - fields:.1f} us"
    )
    print(
        f"  validate(message)           {us['validate(answer)']:8.1f} us  "
        f"{results['validate_vs_read_answer']:.2f}x read  (goal <= 1.5x)"
    )
    print(f"JSONL render, {lines} lines, one core:")
    print(f"  json.loads+read+render      {lines / b['per line']:8.0f} lines/s (baseline)")
    print(
        f"  batch.process_lines         {lines / b['process_lines']:8.0f} lines/s  "
        f"{results['batch_vs_per_line']:.2f}x time  (goal <= 1.5x)"
    )
    return results


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
    anthropic()
