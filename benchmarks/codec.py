"""Benchmark of grounding_protos.codec against json_format; prints ratios from this run.

Run: ``PYTHONPATH=src python benchmarks/codec.py`` (about a minute; ``--quick`` for
about ten seconds). Not a test: the goals are printed next to the figures, nothing fails.

- The standard payload: an ``Answer`` with 40 citations, 40 grounding supports and
  10 chunk references (each with a Struct) over ~6.6 KB of mixed-script text
  (~34 KB of JSON). Goals: ``from_dict`` >= 10x ``ParseDict``, ``to_dict`` >= 5x
  ``MessageToDict``; ``from_json``/``to_json`` ratios reported (``MessageToJson``'s
  default ``indent=2`` text, and compact text).
- Every message type of the package, each with all of its fields set (repeated ones
  twice, nesting three levels deep).
- Floors (``_floors.py``): each half of ``to_dict`` and ``from_dict`` on the payload
  timed alone as the least Python that does it, and the most any Python codec could
  reach from them.
- If orjson is installed: its ``loads``/``dumps`` against the stdlib on the payload.

Each figure is the best per-call time over interleaved rounds, GC enabled.
"""

from __future__ import annotations

import datetime
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import _floors
from google.protobuf import __version__ as protobuf_version
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from grounding_protos import codec, message_class, message_types
from grounding_protos._proto import pool as _pool
from grounding_protos._proto.pool import is_repeated
from grounding_protos.discoveryengine_v1 import Answer
from grounding_protos.well_known import timestamp

F = FieldDescriptor
SENTENCES = [
    "The quick brown fox jumps over the lazy dog. ",
    "Café crème, naïve façade, Zürich, Ångström. ",
    "日本語のテキストと中文文本、한국어 텍스트도 있습니다。",
    "שלום עולם, مرحبا بالعالم. ",
    "Thumbs 👍🏽, family 👨‍👩‍👧‍👦, flags 🇯🇵🇫🇷. ",
]


def standard_answer() -> Message:
    """40 citations, 40 grounding supports, 10 chunk references, ~6.6 KB of text."""
    rng = random.Random(7)
    text = ""
    while len(text.encode()) < 6600:
        text += rng.choice(SENTENCES)
    size = len(text.encode())
    answer = Answer(
        name="projects/123/locations/global/collections/default_collection/engines/e/"
        "sessions/s/answers/a",
        state=Answer.SUCCEEDED,
        answer_text=text,
        grounding_score=0.87,
        related_questions=["What is 東京?", "Wie heißt Zürich?"],
    )
    answer.create_time.CopyFrom(timestamp(datetime.datetime(2025, 1, 2, 3, 4, 5, 250000)))
    for i in range(40):
        start = i * size // 40
        citation = answer.citations.add(start_index=start, end_index=start + size // 50)
        for j in range(2):
            citation.sources.add(reference_id=str((i + j) % 10))
        support = answer.grounding_supports.add(
            start_index=start,
            end_index=start + size // 50,
            grounding_score=0.5 + i / 100,
            grounding_check_required=i % 3 == 0,
        )
        support.sources.add(reference_id=str(i % 10))
    documents = "projects/123/locations/global/collections/default_collection/dataStores/ds/"
    for k in range(10):
        chunk = answer.references.add().chunk_info
        chunk.chunk = f"{documents}branches/0/documents/d{k}/chunks/c{k}"
        chunk.content = text[k * 100 : k * 100 + 300]
        chunk.relevance_score = 0.9 - k / 50
        meta = chunk.document_metadata
        meta.document = f"{documents}branches/0/documents/d{k}"
        meta.uri = f"https://example.com/doc/{k}"
        meta.title = f"Document {k} — 東京"
        meta.page_identifier = str(k)
        meta.struct_data.update({"lang": "ja", "year": 2020 + k, "tags": ["a", "b"]})
    return answer


def filled(descriptor: Descriptor, depth: int = 0) -> Message:
    """A message with every field set (one member per oneof), deterministically."""
    message = _pool.message_class(descriptor.full_name)()
    if descriptor.full_name == "google.protobuf.Timestamp":
        message.FromJsonString("2025-06-01T09:30:00.123Z")  # type: ignore[attr-defined]
        return message
    if descriptor.full_name == "google.protobuf.Struct":
        message.update({"a": 1, "b": ["x", True], "c": {"d": None}})  # type: ignore[attr-defined]
        return message
    chosen = {oneof.name: oneof.fields[0] for oneof in descriptor.oneofs}
    for field in descriptor.fields:
        oneof = field.containing_oneof
        if oneof is not None and chosen[oneof.name] is not field:
            continue
        if field.type == F.TYPE_MESSAGE and depth >= 3:
            continue
        target = getattr(message, field.name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            target.update({"k1": "v1", "キー": "値"})
        elif is_repeated(field):
            if field.type == F.TYPE_MESSAGE:
                for _ in range(2):
                    target.add().CopyFrom(filled(field.message_type, depth + 1))
            else:
                target.extend([_scalar(field, 1), _scalar(field, 2)])
        elif field.type == F.TYPE_MESSAGE:
            target.CopyFrom(filled(field.message_type, depth + 1))
        else:
            setattr(message, field.name, _scalar(field, 1))
    return message


def _scalar(field: FieldDescriptor, n: int) -> Any:
    if field.type == F.TYPE_ENUM:
        values = field.enum_type.values
        return values[min(n, len(values) - 1)].number
    if field.cpp_type == F.CPPTYPE_STRING:
        return f"{field.name} {n} — ü 東京"
    if field.cpp_type == F.CPPTYPE_BOOL:
        return True
    if field.cpp_type in (F.CPPTYPE_FLOAT, F.CPPTYPE_DOUBLE):
        return 0.1 * n
    return 1000 * n


def best(fns: list[Callable[[], object]], budget: float) -> list[float]:
    """Best per-call seconds of each function, over interleaved rounds in ``budget`` s."""
    calls = []
    for fn in fns:  # calibrate: about 5 ms per round and function
        start = time.perf_counter()
        fn()
        once = max(time.perf_counter() - start, 1e-7)
        calls.append(max(1, int(0.005 / once)))
    times = [float("inf")] * len(fns)
    deadline = time.perf_counter() + budget
    rounds = 0
    while rounds < 3 or (time.perf_counter() < deadline and rounds < 200):
        for index, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(calls[index]):
                fn()
            times[index] = min(times[index], (time.perf_counter() - start) / calls[index])
        rounds += 1
    return times


def compare(message: Message, budget: float) -> dict[str, tuple[float, float]]:
    """(json_format µs, codec µs) for the four directions on one message."""
    cls = type(message)
    data = json_format.MessageToDict(message)
    pretty = json_format.MessageToJson(message)
    compact = json_format.MessageToJson(message, indent=None)
    assert codec.to_dict(message) == data
    assert codec.to_json(message) == pretty
    assert codec.from_dict(cls, data) == json_format.ParseDict(data, cls())
    pairs: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {
        "to_dict": (lambda: json_format.MessageToDict(message), lambda: codec.to_dict(message)),
        "from_dict": (
            lambda: json_format.ParseDict(data, cls()),
            lambda: codec.from_dict(cls, data),
        ),
        "to_json": (lambda: json_format.MessageToJson(message), lambda: codec.to_json(message)),
        "to_json compact": (
            lambda: json_format.MessageToJson(message, indent=None),
            lambda: codec.to_json(message, indent=None),
        ),
        "from_json": (
            lambda: json_format.Parse(compact, cls()),
            lambda: codec.from_json(cls, compact),
        ),
    }
    results = {}
    for name, (theirs, ours) in pairs.items():
        t_theirs, t_ours = best([theirs, ours], budget)
        results[name] = (t_theirs * 1e6, t_ours * 1e6)
    return results


def print_floors(answer: Message, budget: float) -> None:
    """The floors of ``_floors`` beside both codecs, and the ceilings they imply."""
    _floors.check(answer)
    data = json_format.MessageToDict(answer)
    raw, values = _floors.raw_values(answer), _floors.converted_values(answer)
    cls = type(answer)
    to_ours, to_theirs, read, build, from_ours, from_theirs, walk, write = best(
        [
            lambda: codec.to_dict(answer),
            lambda: json_format.MessageToDict(answer),
            lambda: _floors.read_all(answer),
            lambda: _floors.build_dict(raw),
            lambda: codec.from_dict(cls, data),
            lambda: json_format.ParseDict(data, cls()),
            lambda: _floors.walk_json(data),
            lambda: _floors.write_all(values),
        ],
        budget * 2,
    )
    print("\nFloors on the payload: each half alone, as the least Python that does it")
    for label, seconds in (
        ("to_dict: read every value through the message API", read),
        ("to_dict: build json_format's dict from read values", build),
        ("from_dict: walk the JSON, look keys up, check values", walk),
        ("from_dict: set every value through the message API", write),
    ):
        print(f"  {label:56s}{seconds * 1e6:8.1f} µs")
    for name, theirs, ours, floor, goal in (
        ("to_dict", to_theirs, to_ours, read + build, 5),
        ("from_dict", from_theirs, from_ours, walk + write, 10),
    ):
        print(
            f"  {name}: at most {theirs / floor:.1f}x json_format for any Python codec "
            f"(goal {goal}x); codec {theirs / ours:.1f}x, "
            f"{(ours - floor) * 1e6:.0f} µs above the floors"
        )


def main() -> None:
    quick = "--quick" in sys.argv
    budget = 0.3 if quick else 2.0  # seconds per comparison on the payload
    print(
        f"grounding_protos.codec vs json_format — protobuf {protobuf_version}, "
        f"Python {sys.version.split()[0]}"
    )
    answer = standard_answer()
    compact = json_format.MessageToJson(answer, indent=None)
    print(
        f"\nStandard payload: Answer, 40 citations, 40 supports, 10 chunk references, "
        f"{len(answer.answer_text.encode())} B of text, {len(compact)} B of JSON"
    )
    goals = {"to_dict": 5.0, "from_dict": 10.0}
    print(f"{'':18s}{'json_format':>14s}{'codec':>12s}{'ratio':>9s}  goal")
    for name, (theirs, ours) in compare(answer, budget).items():
        goal = goals.get(name)
        mark = (
            ""
            if goal is None
            else f">= {goal:.0f}x  {'met' if theirs / ours >= goal else 'NOT met'}"
        )
        print(f"{name:18s}{theirs:11.1f} µs{ours:9.1f} µs{theirs / ours:8.1f}x  {mark}")

    print_floors(answer, budget)

    print("\nEvery message type, all fields set (ratios: json_format time / codec time)")
    print(f"{'type':66s}{'to_dict':>9s}{'from_dict':>11s}{'to_json':>9s}{'from_json':>11s}")
    for name in message_types():
        results = compare(filled(message_class(name).DESCRIPTOR), budget / 8)
        ratios = [
            results[k][0] / results[k][1] for k in ("to_dict", "from_dict", "to_json", "from_json")
        ]
        short = name.removeprefix("google.cloud.").removeprefix("google.ai.")
        short = short if len(short) <= 64 else "…" + short[-63:]
        cells = zip(ratios, (8, 10, 8, 10), strict=True)
        print(f"{short:66s}" + "".join(f"{ratio:>{width}.1f}x" for ratio, width in cells))

    try:
        import orjson  # type: ignore[import-not-found]
    except ImportError:
        print("\norjson: not installed (pip install orjson to compare)")
        return
    data = json.loads(compact)
    loads, oloads, dumps, odumps, pretty, opretty = best(
        [
            lambda: json.loads(compact),
            lambda: orjson.loads(compact),
            lambda: json.dumps(data),
            lambda: orjson.dumps(data),
            lambda: json.dumps(data, indent=2),
            lambda: orjson.dumps(data, option=orjson.OPT_INDENT_2),
        ],
        budget,
    )
    print("\norjson against the stdlib on the payload's JSON")
    for label, std, fast in (
        ("loads", loads, oloads),
        ("dumps compact", dumps, odumps),
        ("dumps indent=2", pretty, opretty),
    ):
        print(f"{label:18s}{std * 1e6:11.1f} µs{fast * 1e6:9.1f} µs{std / fast:8.1f}x")


if __name__ == "__main__":
    main()
