"""Streams of other vendors for ``benchmarks/stream.py``: Anthropic Messages, Cohere v2
chat, Bedrock ConverseStream (Claude's layout and Amazon Nova's), RetrieveAndGenerateStream
and Agents InvokeAgent, each a ~1 MB mixed-script answer in ``deltas`` text deltas with
``citations`` citations, beside the vendor's final response.

- Anthropic and Bedrock cite whole blocks: the answer is ``2 * citations`` text blocks,
  every other one cited (one citation each: a ``citations_delta``, a ``citation``).
- Cohere cites offsets: one content item, ``citations`` ``citation-start`` events
  spread over it, each sent once the text it spans has arrived.
- Nova: ``citations`` text blocks, each followed by a block of citation deltas alone.
- RetrieveAndGenerateStream and InvokeAgent cite offsets (code points), as Cohere:
  ``output`` pieces and ``citation`` events; ``chunk`` bytes (cut inside characters
  too) with their ``attribution``.
"""

from __future__ import annotations

import codecs
import gc
import itertools
import random
import time
from collections.abc import Callable
from typing import Any

from _corpus import SENTENCES  # benchmarks/ is the script directory
from _timing import best  # benchmarks/ is the script directory

from grounding_protos.citations import StreamReader, read, read_stream

Json = dict[str, Any]


def _text(text_bytes: int, seed: int) -> str:
    rng = random.Random(seed)
    pieces: list[str] = []
    size = 0
    while size < text_bytes:
        sentence = rng.choice(SENTENCES)
        pieces.append(sentence)
        size += len(sentence.encode("utf-8"))
    return "".join(pieces)


def _cut(text: str, parts: int) -> list[str]:
    step = len(text) / parts
    at = [round(i * step) for i in range(parts + 1)]
    return [text[a:b] for a, b in itertools.pairwise(at)]


def anthropic_case(text: str, deltas: int, citations: int) -> tuple[list[Json], Json]:
    blocks = _cut(text, 2 * citations)
    per = max(1, deltas // len(blocks))
    content: list[Json] = []
    events: list[Json] = [{"type": "message_start", "message": {
        "id": "m", "type": "message", "role": "assistant", "content": []}}]  # fmt: skip
    for i, block in enumerate(blocks):
        cited = i % 2 == 1
        citation = {"type": "web_search_result_location", "url": f"https://s{i % 200}.example/",
                    "title": f"S{i % 200}", "cited_text": block[:40]}  # fmt: skip
        content.append(
            {"type": "text", "text": block, **({"citations": [citation]} if cited else {})}
        )
        start: Json = {"type": "text", "text": "", **({"citations": []} if cited else {})}
        events.append({"type": "content_block_start", "index": i, "content_block": start})
        if cited:
            events.append({"type": "content_block_delta", "index": i,
                           "delta": {"type": "citations_delta", "citation": citation}})  # fmt: skip
        for piece in _cut(block, per):
            events.append({"type": "content_block_delta", "index": i,
                           "delta": {"type": "text_delta", "text": piece}})  # fmt: skip
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "delta": {"stop_reason": "end_turn"}})
    events.append({"type": "message_stop"})
    final = {"id": "m", "type": "message", "role": "assistant", "content": content,
             "stop_reason": "end_turn"}  # fmt: skip
    return events, final


def cohere_case(text: str, deltas: int, citations: int, seed: int) -> tuple[list[Json], Json]:
    rng = random.Random(seed)
    cited = []
    for i in range(citations):
        a = rng.randrange(len(text) - 1)
        b = min(len(text), a + rng.randrange(1, 200))
        cited.append({"start": a, "end": b, "text": text[a:b], "type": "TEXT_CONTENT",
                      "content_index": 0, "sources": [{"type": "document", "id": f"doc:{i % 200}",
                      "document": {"title": f"S{i % 200}"}}]})  # fmt: skip
    cited.sort(key=lambda c: c["end"])  # each sent once the text it spans has arrived
    events: list[Json] = [
        {"type": "message-start", "id": "c", "delta": {"message": {"role": "assistant"}}},
        {"type": "content-start", "index": 0,
         "delta": {"message": {"content": {"type": "text", "text": ""}}}},
    ]  # fmt: skip
    received = sent = 0
    for piece in _cut(text, deltas):
        events.append({"type": "content-delta", "index": 0,
                       "delta": {"message": {"content": {"text": piece}}}})  # fmt: skip
        received += len(piece)
        while sent < len(cited) and cited[sent]["end"] <= received:
            events.append({"type": "citation-start", "index": sent,
                           "delta": {"message": {"citations": cited[sent]}}})  # fmt: skip
            events.append({"type": "citation-end", "index": sent})
            sent += 1
    events.append({"type": "content-end", "index": 0})
    events.append({"type": "message-end", "delta": {"finish_reason": "COMPLETE"}})
    final = {"id": "c", "finish_reason": "COMPLETE", "message": {"role": "assistant",
             "content": [{"type": "text", "text": text}], "citations": cited}}  # fmt: skip
    return events, final


def bedrock_case(text: str, deltas: int, citations: int) -> tuple[list[Json], Json]:
    blocks = _cut(text, 2 * citations)
    per = max(1, deltas // len(blocks))
    content: list[Json] = []
    events: list[Json] = [{"messageStart": {"role": "assistant"}}]
    for i, block in enumerate(blocks):
        for piece in _cut(block, per):
            events.append({"contentBlockDelta": {"delta": {"text": piece}, "contentBlockIndex": i}})
        if i % 2:
            citation = {"title": f"S{i % 200}", "sourceContent": [{"text": block[:40]}],
                        "location": {"web": {"url": f"https://s{i % 200}.example/"}}}  # fmt: skip
            events.append({"contentBlockDelta": {"delta": {"citation": citation},
                                                 "contentBlockIndex": i}})  # fmt: skip
            content.append({"citationsContent": {"content": [{"text": block}],
                                                 "citations": [citation]}})  # fmt: skip
        else:
            content.append({"text": block})
        events.append({"contentBlockStop": {"contentBlockIndex": i}})
    events.append({"messageStop": {"stopReason": "end_turn"}})
    final = {"output": {"message": {"role": "assistant", "content": content}},
             "stopReason": "end_turn"}  # fmt: skip
    return events, final


def nova_case(text: str, deltas: int, citations: int) -> tuple[list[Json], Json]:
    """Amazon Nova's layout: ``citations`` text blocks, each followed by a block of
    citation deltas alone (a ``citationsContent`` block without ``content``)."""
    blocks = _cut(text, citations)
    per = max(1, deltas // len(blocks))
    content: list[Json] = []
    events: list[Json] = [{"messageStart": {"role": "assistant"}}]
    for i, block in enumerate(blocks):
        for piece in _cut(block, per):
            events.append({"contentBlockDelta": {"delta": {"text": piece},
                                                 "contentBlockIndex": 2 * i}})  # fmt: skip
        events.append({"contentBlockStop": {"contentBlockIndex": 2 * i}})
        citation = {"location": {"web": {"url": f"https://s{i % 200}.example/",
                                         "domain": f"s{i % 200}.example"}}}  # fmt: skip
        events.append({"contentBlockDelta": {"delta": {"citation": citation},
                                             "contentBlockIndex": 2 * i + 1}})  # fmt: skip
        events.append({"contentBlockStop": {"contentBlockIndex": 2 * i + 1}})
        content += [{"text": block}, {"citationsContent": {"citations": [citation]}}]
    events.append({"messageStop": {"stopReason": "end_turn"}})
    final = {"output": {"message": {"role": "assistant", "content": content}},
             "stopReason": "end_turn"}  # fmt: skip
    return events, final


def _agent_citations(text: str, citations: int, seed: int) -> list[Json]:
    """``citations`` RetrieveAndGenerate citation records over ``text`` (``end``
    inclusive), in the order of their ends."""
    rng = random.Random(seed)
    out: list[Json] = []
    for i in range(citations):
        a = rng.randrange(len(text) - 1)
        b = min(len(text), a + rng.randrange(1, 200))
        out.append({
            "generatedResponsePart": {"textResponsePart": {
                "text": text[a:b], "span": {"start": a, "end": b - 1}}},
            "retrievedReferences": [{"content": {"text": text[a : a + 40]}, "location": {
                "type": "S3", "s3Location": {"uri": f"s3://kb/doc{i % 200}.pdf"}}}],
        })  # fmt: skip
    out.sort(key=lambda c: c["generatedResponsePart"]["textResponsePart"]["span"]["end"])
    return out


def _end(citation: Json) -> int:
    """The exclusive end of a citation record's span."""
    return int(citation["generatedResponsePart"]["textResponsePart"]["span"]["end"]) + 1


def retrieve_and_generate_case(
    text: str, deltas: int, citations: int, seed: int
) -> tuple[list[Json], Json]:
    """``output`` pieces, each ``citation`` (its end exclusive, as the stream sends it)
    once the text it spans has arrived."""
    cited = _agent_citations(text, citations, seed)
    events: list[Json] = []
    received = sent = 0
    for piece in _cut(text, deltas):
        events.append({"output": {"text": piece}})
        received += len(piece)
        while sent < len(cited) and _end(cited[sent]) <= received:
            part = cited[sent]["generatedResponsePart"]["textResponsePart"]
            streamed = {**part, "span": {"start": part["span"]["start"], "end": _end(cited[sent])}}
            events.append({"citation": {**cited[sent], "generatedResponsePart": {
                "textResponsePart": streamed}}})  # fmt: skip
            sent += 1
    return events, {"output": {"text": text}, "citations": cited}


def invoke_agent_case(text: str, deltas: int, citations: int, seed: int) -> tuple[list[Json], Json]:
    """``chunk`` events of the answer's bytes (cut anywhere, inside characters too),
    each citation in the chunk where its span's characters are all complete."""
    cited = _agent_citations(text, citations, seed)
    data = text.encode()
    decoder = codecs.getincrementaldecoder("utf-8")()
    events: list[Json] = []
    chars = sent = start = 0
    for n in range(deltas):
        end = min(len(data), round((n + 1) * len(data) / deltas))
        chunk: Json = {"bytes": data[start:end]}
        chars += len(decoder.decode(data[start:end]))
        here = []
        while sent < len(cited) and _end(cited[sent]) <= chars:
            here.append(cited[sent])
            sent += 1
        if here:
            chunk["attribution"] = {"citations": here}
        events.append({"chunk": chunk})
        start = end
    return events, {"chunk": {"bytes": data, "attribution": {"citations": cited}}}


def cases(text_bytes: int, deltas: int, citations: int) -> dict[str, tuple[list[Json], Json]]:
    """Each vendor's stream and final response, over the same text."""
    text = _text(text_bytes, 11)
    return {
        "anthropic": anthropic_case(text, deltas, citations),
        "cohere": cohere_case(text, deltas, citations, 12),
        "bedrock": bedrock_case(text, deltas, citations),
        "bedrock_nova": nova_case(text, deltas, citations),
        "bedrock_retrieve_and_generate": retrieve_and_generate_case(text, deltas, citations, 13),
        "bedrock_invoke_agent": invoke_agent_case(text, deltas, citations, 14),
    }


def _feed_times(events: list[Json], window: int) -> tuple[float, float, float]:
    reader = StreamReader()
    times = []
    finished = False
    gc.collect()
    gc.disable()
    try:
        for event in events:
            t0 = time.perf_counter()
            finished = reader.feed(event).finished
            times.append(time.perf_counter() - t0)
    finally:
        gc.enable()
    body = times[:-1]  # the last event ends the stream: the merged response is read then
    if not finished:  # no end event (RetrieveAndGenerateStream, InvokeAgent): finish() reads it
        t0 = time.perf_counter()
        reader.finish()
        times[-1] += time.perf_counter() - t0
    return sum(body[:window]) / window, sum(body[-window:]) / window, times[-1]


Cases = Callable[[int, int, int], dict[str, tuple[list[Json], Json]]]


def run(
    text_bytes: int, deltas: int, citations: int, repeat: int, make: Cases | None = None
) -> dict[str, dict[str, float]]:
    """Per vendor of ``make`` (default: :func:`cases`): read of the final response,
    read_stream of the events (dicts), and StreamReader.feed's time per event at the
    start and the end."""
    out = {}
    for vendor, (events, final) in (make or cases)(text_bytes, deltas, citations).items():
        expected = read(final)
        assert read_stream(events) == expected and len(expected.citations) == citations, vendor
        t_read = t_stream = c_read = c_stream = float("inf")
        for _ in range(repeat):  # interleaved, so that a busy machine slows both alike
            t_read = min(t_read, best(lambda final=final: read(final), 1))
            t_stream = min(t_stream, best(lambda events=events: read_stream(events), 1))
            c_read = min(c_read, best(lambda final=final: read(final), 1, time.process_time))
            c_stream = min(
                c_stream, best(lambda events=events: read_stream(events), 1, time.process_time)
            )
        window = max(1, min(1_000, len(events) // 10))
        rounds = [_feed_times(events, window) for _ in range(repeat)]
        start, end = min(r[0] for r in rounds), min(r[1] for r in rounds)
        out[vendor] = {
            "events": len(events), "read": t_read, "read_stream": t_stream,
            "stream_ratio": t_stream / t_read, "stream_cpu_ratio": c_stream / c_read,
            "feed_start": start, "feed_end": end,
            "feed_ratio": end / start, "feed_final": min(r[2] for r in rounds), "window": window,
        }  # fmt: skip
    return out


def report(
    text_bytes: int, deltas: int, citations: int, repeat: int, make: Cases | None = None
) -> None:
    print()
    print(f"other vendors: {text_bytes:,} bytes in {deltas:,} text deltas, {citations:,} citations")
    for vendor, r in run(text_bytes, deltas, citations, repeat, make).items():
        w = int(r["window"])
        print(f"  {vendor} ({int(r['events']):,} events)")
        print(f"    read(final response)         {r['read'] * 1e3:9.1f} ms")
        print(f"    read_stream(events)          {r['read_stream'] * 1e3:9.1f} ms")
        print(f"    ratio read_stream / read     {r['stream_ratio']:9.2f}x   goal: <= 2x")
        print(f"      (in CPU time               {r['stream_cpu_ratio']:9.2f}x)")
        print(f"    StreamReader.feed, first {w:,} events  {r['feed_start'] * 1e6:7.2f} µs/event")
        print(f"    StreamReader.feed, last {w:,} events   {r['feed_end'] * 1e6:7.2f} µs/event")
        print(
            f"    StreamReader.feed, end event         {r['feed_final'] * 1e3:7.1f} ms (reads it;"
            " without one: the last event and finish())"
        )
        print(f"    ratio end / start                    {r['feed_ratio']:7.2f}    goal: <= 1.5")
