"""Benchmark of the readers of every shape; prints ratios measured in this one run.

Run: ``PYTHONPATH=src python benchmarks/readers.py`` (about 20 s). Not a test: the
goals are printed next to the figures, nothing fails.

The same answer (~200 KB of mixed-script text, 2,000 cited sentences, 1-2 sources
each) is written as every shape that carries offsets: a Gemini response (UTF-8 byte
offsets, the baseline), a Vertex AI Search response, an OpenAI Responses response,
a Cohere v2 chat response and a Bedrock RetrieveAndGenerate response (characters),
an Anthropic message (one text block per sentence), a Bedrock Converse response (one
``citationsContent`` block per sentence), and Google's newer surfaces: a
Gemini Interactions API interaction (UTF-8 bytes, like the baseline), a Discovery
Engine assist response (one reply, its segments and references), a check grounding
response (claims of the text, given as ``text=``), a grounded generation response
(claims without offsets, placed by finding their text; each sentence is numbered so it
occurs once), and a Gemini Live turn. For each, ``read`` against the Gemini baseline:
goal <= 1.5x (the vendors' character offsets are converted to bytes, the work the
baseline does the other way round). And the dispatcher's share of ``read`` on a small
Gemini candidate, the shape tried last: goal < 25%.
"""

from __future__ import annotations

import random
import sys
from typing import Any

from _corpus import SENTENCES  # benchmarks/ is the script directory
from _timing import best  # benchmarks/ is the script directory

from grounding_protos._sources.registry import reader_for
from grounding_protos.citations import read

SENTENCE_COUNT = 2_000


def make_shapes(count: int, seed: int = 7) -> dict[str, Any]:
    """One answer of ``count`` sentences, as each shape."""
    rng = random.Random(seed)
    # numbered, so that each sentence occurs once (grounded generation places its claims
    # by their text, and a repeated one is ambiguous); "⟨12⟩" is no part of "⟨123⟩"
    pieces = [f"{rng.choice(SENTENCES)}⟨{i}⟩ " for i in range(count)]
    text = "".join(pieces)
    spans: list[tuple[int, int, int, int, str]] = []  # bytes, chars, text
    byte = char = 0
    for piece in pieces:
        size = len(piece.encode("utf-8"))
        spans.append((byte, byte + size, char, char + len(piece), piece))
        byte, char = byte + size, char + len(piece)
    sources = [rng.sample(range(50), rng.choice((1, 2))) for _ in pieces]
    urls = [f"https://example.com/{i}" for i in range(50)]
    gemini = {"candidates": [{"content": {"parts": [{"text": text}]}, "groundingMetadata": {
        "groundingChunks": [{"web": {"uri": u, "title": u}} for u in urls],
        "groundingSupports": [
            {"segment": {"startIndex": b0, "endIndex": b1, "text": t},
             "groundingChunkIndices": s}
            for (b0, b1, _, _, t), s in zip(spans, sources, strict=True)]}}]}  # fmt: skip
    search = {"summary": {"summaryWithMetadata": {
        "summary": text,
        "citationMetadata": {"citations": [
            {"startIndex": str(b0), "endIndex": str(b1),
             "sources": [{"referenceIndex": str(i)} for i in s]}
            for (b0, b1, _, _, _), s in zip(spans, sources, strict=True)]},
        "references": [{"title": u, "document": u} for u in urls]}}}  # fmt: skip
    openai = {"object": "response", "output": [{"type": "message", "content": [{
        "type": "output_text", "text": text, "annotations": [
            {"type": "url_citation", "start_index": c0, "end_index": c1, "url": urls[s[0]],
             "title": urls[s[0]]}
            for (_, _, c0, c1, _), s in zip(spans, sources, strict=True)]}]}]}  # fmt: skip
    cohere = {"finish_reason": "COMPLETE", "message": {"role": "assistant",
        "content": [{"type": "text", "text": text}], "citations": [
            {"start": c0, "end": c1, "text": t, "sources": [
                {"type": "document", "id": f"doc:{i}", "document": {"title": urls[i]}}
                for i in s]}
            for (_, _, c0, c1, t), s in zip(spans, sources, strict=True)]}}  # fmt: skip
    bedrock = {"output": {"text": text}, "citations": [
        {"generatedResponsePart": {"textResponsePart": {"text": t,
            "span": {"start": c0, "end": c1 - 1}}},
         "retrievedReferences": [{"content": {"text": urls[i]},
            "location": {"type": "WEB", "webLocation": {"url": urls[i]}}} for i in s]}
        for (_, _, c0, c1, t), s in zip(spans, sources, strict=True)]}  # fmt: skip
    anthropic = {"type": "message", "content": [
        {"type": "text", "text": t, "citations": [
            {"type": "web_search_result_location", "url": urls[i], "title": urls[i],
             "cited_text": t} for i in s]}
        for (_, _, _, _, t), s in zip(spans, sources, strict=True)]}  # fmt: skip
    converse = {"output": {"message": {"role": "assistant", "content": [
        {"citationsContent": {"content": [{"text": t}], "citations": [
            {"title": urls[i], "sourceContent": [{"text": t}],
             "location": {"web": {"url": urls[i]}}} for i in s]}}
        for (_, _, _, _, t), s in zip(spans, sources, strict=True)]}},
        "stopReason": "end_turn"}  # fmt: skip
    interaction = {"object": "interaction", "status": "completed", "steps": [
        {"type": "model_output", "content": [{"type": "text", "text": text, "annotations": [
            {"type": "url_citation", "url": urls[s[0]], "title": urls[s[0]],
             "start_index": b0, "end_index": b1}
            for (b0, b1, _, _, _), s in zip(spans, sources, strict=True)]}]}]}  # fmt: skip
    assist = {"answer": {"state": "SUCCEEDED", "replies": [{"groundedContent": {
        "content": {"role": "model", "text": text},
        "textGroundingMetadata": {
            "references": [{"content": u, "documentMetadata": {"uri": u, "title": u}}
                           for u in urls],
            "segments": [
                {"startIndex": str(b0), "endIndex": str(b1), "referenceIndices": s,
                 "groundingScore": 0.9, "text": t}
                for (b0, b1, _, _, t), s in zip(spans, sources, strict=True)]}}}]}}  # fmt: skip
    chunks = [{"chunkText": u, "source": str(i), "sourceMetadata": {"title": u, "uri": u}}
              for i, u in enumerate(urls)]  # fmt: skip
    check = {"supportScore": 0.9, "citedChunks": chunks, "claims": [
        {"startPos": b0, "endPos": b1, "claimText": t, "citationIndices": s,
         "groundingCheckRequired": True, "score": 0.9}
        for (b0, b1, _, _, t), s in zip(spans, sources, strict=True)]}  # fmt: skip
    grounded = {"candidates": [{"content": {"parts": [{"text": text}]}, "groundingScore": 0.9,
        "groundingMetadata": {"supportChunks": chunks, "groundingSupport": [
            {"claimText": t, "supportChunkIndices": s, "supportScore": 0.9}
            for (_, _, _, _, t), s in zip(spans, sources, strict=True)]}}]}  # fmt: skip
    live = {"serverContent": {**gemini["candidates"][0], "turnComplete": True}}
    live["serverContent"]["modelTurn"] = live["serverContent"].pop("content")
    return {"gemini_response": gemini, "search_response": search, "openai_response": openai,
            "cohere_chat": cohere, "bedrock_retrieve_and_generate": bedrock,
            "anthropic_message": anthropic, "bedrock_converse": converse,
            "interaction": interaction,
            "assist_response": assist, "check_grounding_response": check,
            "grounded_generation_response": grounded, "live_server_message": live}  # fmt: skip


def main(count: int = SENTENCE_COUNT, repeat: int = 5) -> None:
    shapes = make_shapes(count)
    expected = [(c.char_start, c.char_end) for c in read(shapes["gemini_response"]).citations]
    times = {}
    text = read(shapes["gemini_response"]).text
    for shape, document in shapes.items():
        given = text if shape == "check_grounding_response" else None  # the answer sent
        grounded = read(document, text=given)
        assert grounded.shape == shape
        assert [(c.char_start, c.char_end) for c in grounded.citations] == expected, shape
        times[shape] = best(lambda d=document, t=given: read(d, text=t), repeat)
    base = times["gemini_response"]
    print(f"read of {count} cited sentences, against the Gemini response ({base * 1e3:.1f} ms):")
    for shape, seconds in times.items():
        print(f"  {shape:32s} {seconds * 1e3:8.1f} ms  {seconds / base:5.2f}x   (goal <= 1.5x)")
    small = {"content": {"parts": [{"text": "Köln."}]}, "finishReason": "STOP"}
    loops = 2_000
    dispatch = best(lambda: [reader_for(small) for _ in range(loops)], repeat)
    whole = best(lambda: [read(small) for _ in range(loops)], repeat)
    each, total = dispatch / loops * 1e6, whole / loops * 1e6
    print(f"dispatch share of read on a small Gemini candidate: {dispatch / whole:.0%} "
          f"({each:.1f} of {total:.1f} µs; goal < 25%)")  # fmt: skip


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else SENTENCE_COUNT)
