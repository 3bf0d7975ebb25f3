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

Then the same for each stream of the OpenAI family (``main_vendors``: Responses API,
Chat Completions, Assistants runs): a ~1 MB answer in 10,000 text deltas with 2,000
citations, ``read_stream`` of the events against ``read`` of the final response, and
``StreamReader.feed`` per delta, first 1,000 against last 1,000.

And for the streams of Anthropic, Cohere and Bedrock (``_vendor_streams``), and of
Mistral chat and Conversations and Perplexity (``_wild_streams``): the same amount of
text in as many text deltas, with 2,000 citations, against ``read`` of each vendor's
final response; and ``StreamReader.feed`` per event.
"""

from __future__ import annotations

import gc
import random
import sys
import time
from typing import Any

import _vendor_streams  # benchmarks/ is the script directory
import _wild_streams  # benchmarks/ is the script directory
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
    _vendor_streams.report(text_bytes, chunks, supports, repeat, _wild_streams.cases)


# --- The OpenAI family: Responses API, Chat Completions, Assistants runs --------------------


def vendor_case(
    vendor: str, text_bytes: int = 1_000_000, deltas: int = 10_000, citations: int = 2_000,
    seed: int = 13,
) -> tuple[list[Json], Json]:  # fmt: skip
    """A vendor's stream of a ~1 MB answer in ``deltas`` text deltas with ``citations``
    annotations (character offsets), and the final response it adds up to."""
    rng = random.Random(seed)
    pieces: list[str] = []
    size = 0
    while size < text_bytes:
        sentence = rng.choice(SENTENCES)
        pieces.append(sentence)
        size += len(sentence.encode("utf-8"))
    text = "".join(pieces)
    step = len(text) / deltas
    cuts = [round(i * step) for i in range(deltas + 1)]
    spans = sorted(
        (a, min(len(text), a + rng.randrange(1, 300)))
        for a in (rng.randrange(len(text)) for _ in range(citations))
    )
    parts = [text[cuts[i] : cuts[i + 1]] for i in range(deltas)]
    if vendor == "responses":
        notes = [{"type": "url_citation", "start_index": a, "end_index": b,
                  "url": f"https://s{i % 200}.example/", "title": f"S{i % 200}"}
                 for i, (a, b) in enumerate(spans)]  # fmt: skip
        part = {"type": "output_text", "text": text, "annotations": notes}
        item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                "content": [part]}  # fmt: skip
        final = {"id": "resp_1", "object": "response", "status": "completed", "output": [item]}
        where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
        events: list[Json] = [
            {"type": "response.created", "response": {**final, "status": "in_progress",
                                                      "output": []}},
            {"type": "response.output_item.added", "output_index": 0,
             "item": {**item, "status": "in_progress", "content": []}},
            {"type": "response.content_part.added", **where,
             "part": {"type": "output_text", "text": "", "annotations": []}},
        ]  # fmt: skip
        events += [{"type": "response.output_text.delta", **where, "delta": p} for p in parts]
        events += [{"type": "response.output_text.annotation.added", **where,
                    "annotation_index": k, "annotation": n}
                   for k, n in enumerate(notes)]  # fmt: skip
        events += [
            {"type": "response.output_text.done", **where, "text": text},
            {"type": "response.content_part.done", **where, "part": part},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": final},
        ]
        return events, final
    if vendor == "chat":
        notes = [{"type": "url_citation", "url_citation": {
                  "start_index": a, "end_index": b, "url": f"https://s{i % 200}.example/",
                  "title": f"S{i % 200}"}} for i, (a, b) in enumerate(spans)]  # fmt: skip
        head = {"id": "c1", "object": "chat.completion.chunk", "model": "bench"}
        events = [{**head, "choices": [{"index": 0, "delta": {"content": p},
                                        "finish_reason": None}]} for p in parts]  # fmt: skip
        events[0]["choices"][0]["delta"]["role"] = "assistant"
        events.append({**head, "choices": [{"index": 0, "delta": {"annotations": notes},
                                            "finish_reason": "stop"}]})  # fmt: skip
        final = {"id": "c1", "object": "chat.completion", "model": "bench", "choices": [
            {"index": 0, "finish_reason": "stop",
             "message": {"role": "assistant", "content": text, "annotations": notes}}]}  # fmt: skip
        return events, final
    notes = [{"type": "file_citation", "text": text[a:b], "start_index": a, "end_index": b,
              "file_citation": {"file_id": f"file-{i % 200}"}}
             for i, (a, b) in enumerate(spans)]  # fmt: skip
    final = {"id": "msg_1", "object": "thread.message", "role": "assistant",
             "status": "completed", "content": [
                 {"type": "text", "text": {"value": text, "annotations": notes}}]}  # fmt: skip
    events = [{"event": "thread.message.created",
               "data": {**final, "status": "in_progress", "content": []}}]  # fmt: skip
    events += [{"event": "thread.message.delta", "data": {"id": "msg_1", "delta": {"content": [
        {"index": 0, "type": "text", "text": {"value": p}}]}}} for p in parts]  # fmt: skip
    events += [{"event": "thread.message.delta", "data": {"id": "msg_1", "delta": {"content": [
        {"index": 0, "type": "text", "text": {"annotations": [{"index": k, **n}]}}]}}}
        for k, n in enumerate(notes)]  # fmt: skip
    events.append({"event": "thread.message.completed", "data": final})
    return events, final


VENDORS = ("responses", "chat", "assistants")
_FIRST_DELTA = {"responses": 3, "chat": 0, "assistants": 1}


def run_vendor(
    vendor: str, text_bytes: int, deltas: int, citations: int, repeat: int
) -> dict[str, float]:
    """``read_stream`` of a vendor's stream against ``read`` of its final response, and
    ``StreamReader.feed`` per text delta at the start and at the end of the stream."""
    events, final = vendor_case(vendor, text_bytes, deltas, citations)
    got, want = read_stream(events), read(final)
    assert (got.text, got.citations, got.problems) == (want.text, want.citations, [])
    t_read = t_stream = c_read = c_stream = float("inf")
    for _ in range(repeat):  # interleaved, so that a busy machine slows both alike
        t_read = min(t_read, best(lambda: read(final), 1))
        t_stream = min(t_stream, best(lambda: read_stream(events), 1))
        c_read = min(c_read, best(lambda: read(final), 1, time.process_time))
        c_stream = min(c_stream, best(lambda: read_stream(events), 1, time.process_time))
    window = max(1, min(1_000, deltas // 10))
    starts, ends = [], []
    for _ in range(repeat):
        reader = StreamReader()
        times = []
        gc.collect()
        gc.disable()
        try:
            for event in events:
                t0 = time.perf_counter()
                reader.feed(event)
                times.append(time.perf_counter() - t0)
        finally:
            gc.enable()
        first = _FIRST_DELTA[vendor]  # the text deltas are events[first : first + deltas]
        starts.append(sum(times[first : first + window]) / window)
        ends.append(sum(times[first + deltas - window : first + deltas]) / window)
    start, end = min(starts), min(ends)
    return {"read": t_read, "read_stream": t_stream, "stream_ratio": t_stream / t_read,
            "stream_cpu_ratio": c_stream / c_read,
            "feed_start": start, "feed_end": end, "feed_ratio": end / start,
            "window": window}  # fmt: skip


def main_vendors(
    text_bytes: int = 1_000_000, deltas: int = 10_000, citations: int = 2_000, repeat: int = 5
) -> None:
    print()
    print(f"OpenAI family: {text_bytes:,} UTF-8 bytes in {deltas:,} text deltas, "
          f"{citations:,} citations")  # fmt: skip
    for vendor in VENDORS:
        r = run_vendor(vendor, text_bytes, deltas, citations, repeat)
        print(f"  {vendor:<11} read {r['read'] * 1e3:7.1f} ms  read_stream "
              f"{r['read_stream'] * 1e3:7.1f} ms  ratio {r['stream_ratio']:5.2f}x (goal <= 2x; "
              f"CPU {r['stream_cpu_ratio']:4.2f}x)  "
              f"feed {r['feed_start'] * 1e6:5.1f} -> {r['feed_end'] * 1e6:5.1f} µs/event  "
              f"end/start {r['feed_ratio']:4.2f} (goal <= 1.5)")  # fmt: skip


if __name__ == "__main__":
    main()
    main_vendors()
