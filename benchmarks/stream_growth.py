"""Growth of the streams that used to merge in quadratic time (issue #31): LangChain
chunk streams and Interactions ``step.delta`` text events. Prints ratios measured in
this one run; nothing fails.

Run: ``PYTHONPATH=src python benchmarks/stream_growth.py`` (about 20 s).

For each stream, ``read_stream`` of n events against 4n events: a merge linear in the
events grows about 4x (the text is read once at the end, which is linear too); one that
re-concatenates the text so far at every event grows about 16x. Then 100,000 events of
each, read from a JSON file, beside a Chat Completions stream of the same deltas.
"""

from __future__ import annotations

import functools
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _timing import best  # benchmarks/ is the script directory

from grounding_protos.citations import read_stream

Json = dict[str, Any]
PIECES = ("Grüße aus Köln 🌉. ", "東京は首都です。", "서울 ", "القاهرة ", "ok ")


def _piece(k: int) -> str:
    return PIECES[k % len(PIECES)]


def langchain_strings(n: int) -> list[Json]:
    chunks: list[Json] = [{"type": "AIMessageChunk", "content": _piece(k),
                           "response_metadata": {}} for k in range(n)]  # fmt: skip
    chunks.append({"type": "AIMessageChunk", "content": "", "response_metadata": {},
                   "chunk_position": "last"})  # fmt: skip
    return chunks


def langchain_one_index(n: int) -> list[Json]:
    chunks = langchain_strings(n)
    for k, chunk in enumerate(chunks[:-1]):
        chunk["content"] = [{"type": "text", "text": _piece(k), "index": 0}]
    return chunks


def langchain_new_indices(n: int) -> list[Json]:
    chunks = langchain_strings(n)
    for k, chunk in enumerate(chunks[:-1]):
        chunk["content"] = [{"type": "text", "text": _piece(k), "index": k}]
    return chunks


def interactions(n: int) -> list[Json]:
    events: list[Json] = [
        {"event_type": "interaction.created",
         "interaction": {"id": "v1_1", "status": "in_progress", "object": "interaction"}},
        {"event_type": "step.start", "index": 0, "step": {"type": "model_output"}},
    ]  # fmt: skip
    events += [{"event_type": "step.delta", "index": 0,
                "delta": {"type": "text", "text": _piece(k)}} for k in range(n)]  # fmt: skip
    events += [{"event_type": "step.stop", "index": 0},
               {"event_type": "interaction.completed",
                "interaction": {"id": "v1_1", "status": "completed"}}]  # fmt: skip
    return events


def chat(n: int) -> list[Json]:
    chunks: list[Json] = [{"object": "chat.completion.chunk", "id": "c1", "choices": [
        {"index": 0, "delta": {"content": _piece(k)}}]} for k in range(n)]  # fmt: skip
    chunks[-1]["choices"][0]["finish_reason"] = "stop"
    return chunks


CASES: dict[str, tuple[Callable[[int], list[Json]], int]] = {
    "LangChain string chunks": (langchain_strings, 5_000),
    "LangChain list chunks, one index": (langchain_one_index, 5_000),
    "LangChain list chunks, new indices": (langchain_new_indices, 1_000),
    "Interactions step.delta text": (interactions, 5_000),
    "Chat Completions (for contrast)": (chat, 5_000),
}


def growth(build: Callable[[int], list[Json]], n: int, repeat: int) -> tuple[float, float]:
    small, large = build(n), build(4 * n)
    want = "".join(_piece(k) for k in range(4 * n))
    assert read_stream(large).text == want  # the merge is right before it is timed
    return best(lambda: read_stream(small), repeat), best(lambda: read_stream(large), repeat)


def _read_file(path: Path) -> object:
    with path.open("rb") as file:
        return read_stream(file)


def main(scale: float = 1.0, file_events: int = 100_000, repeat: int = 3) -> dict[str, float]:
    ratios: dict[str, float] = {}
    print("read_stream of n events against 4n events (linear: ~4x; quadratic: ~16x)")
    for name, (build, n) in CASES.items():
        n = max(10, round(n * scale))
        small, large = growth(build, n, repeat)
        ratios[name] = large / small
        print(f"  {name:<36} n={n:>6,}: {small:8.4f} s   4n: {large:8.4f} s   "
              f"{large / small:5.1f}x", flush=True)  # fmt: skip
    print(f"\n{file_events:,} events read from a JSON file")
    with tempfile.TemporaryDirectory() as folder:
        for name, (build, _) in CASES.items():
            path = Path(folder) / "stream.json"
            path.write_text(json.dumps(build(file_events), ensure_ascii=False), "utf-8")
            took = best(functools.partial(_read_file, path), 1)
            print(f"  {name:<36} {took:8.2f} s", flush=True)
    return ratios


if __name__ == "__main__":
    main(*(float(a) for a in sys.argv[1:2]), *(int(a) for a in sys.argv[2:3]))
