"""Benchmark of streamed responses; prints ratios measured in this one run.

Run: ``PYTHONPATH=src python benchmarks/stream.py`` (about 30 s). Not a test: the
goals are printed next to the figures, nothing fails.

A ~1 MB mixed-script answer delivered in 10,000 chunks, with a citationMetadata
citation every 50 chunks (in the chunk where its span ends) and 2,000 grounding
supports in the last chunk:

- ``read_stream`` of the chunks (REST dicts) against ``read`` of the merged response
  (the same answer as one ``generateContent`` response). Goal: <= 2x.
- ``StreamReader.feed``: time per chunk over the first 1,000 chunks against the last
  1,000 before the final one (which places the 2,000 supports, so it is shown on its
  own). Goal: flat, end/start <= 1.5. For contrast, a reader that re-joins and
  re-encodes the text received so far at every chunk.

Then the same for the streams of Anthropic, Cohere and Bedrock (``_vendor_streams``):
the same amount of text in as many text deltas, with 2,000 citations, against ``read``
of each vendor's final response; and ``StreamReader.feed`` per event.
"""

from __future__ import annotations

import gc
import random
import sys
import time
from typing import Any

import _vendor_streams  # benchmarks/ is the script directory
from _corpus import SENTENCES  # benchmarks/ is the script directory
from _timing import best  # benchmarks/ is the script directory

from grounding_protos.citations import StreamReader, read, read_stream

Json = dict[str, Any]


def make_case(
    text_bytes: int = 1_000_000, chunks: int = 10_000, supports: int = 2_000, seed: int = 11
) -> tuple[list[Json], Json]:
    """The chunks of a streamed answer, and the same answer as one response."""
    rng = random.Random(seed)
    pieces: list[str] = []
    size = 0
    while size < text_bytes:
        sentence = rng.choice(SENTENCES)
        pieces.append(sentence)
        size += len(sentence.encode("utf-8"))
    text = "".join(pieces)
    # Byte offset of every character boundary (computed once, for building the case).
    starts = [0]
    for ch in text:
        starts.append(starts[-1] + len(ch.encode("utf-8")))
    step = len(text) / chunks
    cuts = [round(i * step) for i in range(chunks + 1)]
    sources = [{"web": {"uri": f"https://s{i}.example/", "title": f"S{i}"}} for i in range(200)]
    grounding_supports = []
    for _ in range(supports):
        a = rng.randrange(len(text))
        b = min(len(text), a + rng.randrange(1, 300))
        grounding_supports.append({
            "segment": {"startIndex": starts[a], "endIndex": starts[b]},
            "groundingChunkIndices": rng.sample(range(len(sources)), rng.randint(1, 3)),
        })  # fmt: skip
    grounding = {"groundingChunks": sources, "groundingSupports": grounding_supports}
    out: list[Json] = []
    cited: list[Json] = []
    for i in range(chunks):
        candidate: Json = {
            "content": {"role": "model", "parts": [{"text": text[cuts[i] : cuts[i + 1]]}]}
        }
        if i % 50 == 49:  # a citation ending in this chunk, starting up to ~3 chunks back
            end = cuts[i + 1]
            start = max(0, end - rng.randrange(1, int(3 * step) + 2))
            citation = {"startIndex": starts[start], "endIndex": starts[end],
                        "uri": f"https://c{i}.example/"}  # fmt: skip
            candidate["citationMetadata"] = {"citationSources": [citation]}
            cited.append(citation)
        else:
            candidate["groundingMetadata"] = {}
        out.append({"candidates": [candidate], "modelVersion": "bench"})
    last = out[-1]["candidates"][0]
    last.update(finishReason="STOP", groundingMetadata=grounding)
    merged = {
        "candidates": [{
            "content": {"role": "model", "parts": [{"text": text}]},
            "finishReason": "STOP",
            "groundingMetadata": grounding,
            "citationMetadata": {"citationSources": cited},
        }]
    }  # fmt: skip
    return out, merged


def feed_times(chunks: list[Json], window: int) -> tuple[float, float, float]:
    """Seconds per chunk over the first and the last ``window`` chunks before the final
    one, and the final chunk's time, for one pass of :class:`StreamReader`."""
    reader = StreamReader()
    times = []
    gc.collect()
    gc.disable()
    try:
        for chunk in chunks:
            t0 = time.perf_counter()
            reader.feed(chunk)
            times.append(time.perf_counter() - t0)
    finally:
        gc.enable()
    body = times[:-1]
    return sum(body[:window]) / window, sum(body[-window:]) / window, times[-1]


def naive_feed_times(chunks: list[Json], window: int) -> tuple[float, float]:
    """The same for a reader that re-joins and re-encodes all text at every chunk."""
    fragments: list[str] = []
    times = []
    for chunk in chunks[:-1]:
        t0 = time.perf_counter()
        fragments.append(chunk["candidates"][0]["content"]["parts"][0]["text"])
        len("".join(fragments).encode("utf-8"))
        times.append(time.perf_counter() - t0)
    return sum(times[:window]) / window, sum(times[-window:]) / window


def run(text_bytes: int, chunks: int, supports: int, repeat: int) -> dict[str, float]:
    """Measure everything once; return the figures (seconds) and ratios."""
    stream, merged = make_case(text_bytes, chunks, supports)
    assert _same(read_stream(stream), read(merged))  # the same job
    t_read = t_stream = c_read = c_stream = float("inf")
    for _ in range(repeat):  # interleaved, so that a busy machine slows both alike
        t_read = min(t_read, best(lambda: read(merged), 1))
        t_stream = min(t_stream, best(lambda: read_stream(stream), 1))
        c_read = min(c_read, best(lambda: read(merged), 1, time.process_time))
        c_stream = min(c_stream, best(lambda: read_stream(stream), 1, time.process_time))
    window = max(1, min(1_000, chunks // 10))
    rounds = [feed_times(stream, window) for _ in range(repeat)]
    start = min(r[0] for r in rounds)
    end = min(r[1] for r in rounds)
    final = min(r[2] for r in rounds)
    naive_start, naive_end = naive_feed_times(stream, window)
    return {
        "read": t_read,
        "read_stream": t_stream,
        "stream_ratio": t_stream / t_read,
        "stream_cpu_ratio": c_stream / c_read,
        "feed_start": start,
        "feed_end": end,
        "feed_final": final,
        "feed_ratio": end / start,
        "naive_ratio": naive_end / naive_start,
        "window": window,
    }


def _same(a: object, b: object) -> bool:
    from dataclasses import replace

    from grounding_protos.citations import Grounded

    assert isinstance(a, Grounded) and isinstance(b, Grounded)
    return replace(a, finish_reason=b.finish_reason) == b


def main(
    text_bytes: int = 1_000_000, chunks: int = 10_000, supports: int = 2_000, repeat: int = 7
) -> None:
    print(
        f"stream: {text_bytes:,} UTF-8 bytes of mixed-script text in {chunks:,} chunks, "
        f"{supports:,} supports in the last; Python {sys.version.split()[0]}"
    )
    r = run(text_bytes, chunks, supports, repeat)
    print()
    print(f"read(merged response)        {r['read'] * 1e3:9.1f} ms")
    print(f"read_stream(chunks)          {r['read_stream'] * 1e3:9.1f} ms")
    print(f"ratio read_stream / read     {r['stream_ratio']:9.2f}x   goal: <= 2x")
    print(f"  (in CPU time               {r['stream_cpu_ratio']:9.2f}x)")
    print()
    w = int(r["window"])
    print(f"StreamReader.feed, first {w:,} chunks   {r['feed_start'] * 1e6:8.1f} µs/chunk")
    print(f"StreamReader.feed, last {w:,} chunks    {r['feed_end'] * 1e6:8.1f} µs/chunk")
    final = r["feed_final"] * 1e3
    print(f"StreamReader.feed, final chunk       {final:8.1f} ms (places the supports)")
    print(f"ratio end / start                    {r['feed_ratio']:8.2f}    goal: <= 1.5")
    print(f"  (a reader re-joining the text per chunk: end / start {r['naive_ratio']:.0f})")
    _vendor_streams.report(text_bytes, chunks, supports, repeat)


if __name__ == "__main__":
    main()
