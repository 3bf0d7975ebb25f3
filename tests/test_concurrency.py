"""Concurrency: the lazily built codec plans, type lookups and offset tables under many
threads, and messages, citations and sources across pickling and ``spawn`` processes.

Every threaded result is compared with the same work done in one thread; every
result from a worker process with the same work done here.
"""

from __future__ import annotations

import copy
import json
import multiprocessing
import pickle
import random
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_protos import codec, message_class, message_types, validate
from grounding_protos._codec import codec as _codec
from grounding_protos._codec import runtime as _codec_support
from grounding_protos.citations import Citation, Grounded, Source, extract, read
from grounding_protos.discoveryengine_v1 import Answer
from grounding_protos.offsets import TextIndex
from tests.strategies import any_message

T = TypeVar("T")
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
THREADS = 8
DOCUMENTS = ["gemini_response.json", "discoveryengine_answer.json", "citation_metadata.json",
             "broken_answer.json"]  # fmt: skip


def load(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.fixture(autouse=True)
def busy_switching() -> Iterator[None]:
    """Switch threads far more often than the default 5 ms, to interleave them."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def hammer(work: Callable[[int], T], threads: int = THREADS) -> list[T]:
    """``work(i)`` in ``threads`` threads started together; their results in order."""
    barrier = threading.Barrier(threads)

    def run(i: int) -> T:
        barrier.wait()
        return work(i)

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(run, range(threads)))


def fresh_codec_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Empty plan caches and unprobed Struct depth rules, as in a new process."""
    monkeypatch.setattr(_codec, "_emitters", {})
    monkeypatch.setattr(_codec, "_parsers", {})
    monkeypatch.setattr(_codec_support.DepthRules, "probed", False)


# --- Threads ------------------------------------------------------------------------------


def example_messages() -> list[Message]:
    gemini = load("gemini_response.json")["candidates"][0]["groundingMetadata"]
    messages: list[Message] = [
        json_format.ParseDict(load("discoveryengine_answer.json"), Answer()),
        json_format.ParseDict(gemini, message_class("v2beta1.GroundingMetadata")(), True),
        json_format.ParseDict(
            load("citation_metadata.json")["citationMetadata"], message_class("CitationMetadata")()
        ),
    ]
    return messages + [message_class(name)() for name in message_types()]


def convert_all(messages: Sequence[Message]) -> list[Any]:
    """Both directions, with a few option sets (one plan each)."""
    out: list[Any] = []
    for message in messages:
        as_dict = codec.to_dict(message)
        out.append(as_dict)
        out.append(codec.to_dict(message, preserving_proto_field_name=True))
        out.append(codec.to_json(message, indent=None, sort_keys=True))
        out.append(codec.from_dict(type(message), as_dict).SerializeToString(deterministic=True))
        out.append(
            codec.from_dict(type(message), {"nope": 1}, ignore_unknown_fields=True)
            == type(message)()
        )
    return out


def test_codec_plans_are_built_safely_from_many_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    messages = example_messages()
    rescued = _codec.rescued
    fresh_codec_caches(monkeypatch)
    expected = convert_all(messages)
    for _ in range(3):
        fresh_codec_caches(monkeypatch)
        results = hammer(lambda i: convert_all(messages[i:] + messages[:i]))
        for i, result in enumerate(results):
            n = len(messages) - i
            assert result == expected[i * 5 :] + expected[: i * 5], f"thread {i}"
            assert len(result) == 5 * (n + i)
    assert _codec.rescued == rescued  # no plan gave up on valid JSON


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(any_message(), min_size=4, max_size=8))
def test_random_messages_convert_alike_in_every_thread(messages: list[Message]) -> None:
    def round_trip(message: Message) -> tuple[Any, Any]:
        as_dict = codec.to_dict(message)
        try:  # json_format refuses some float32 values it writes itself: so do we
            back: Any = codec.from_dict(type(message), as_dict) == message
        except codec.JSONParseError as error:
            back = str(error)
        return as_dict, back

    expected = [round_trip(m) for m in messages]
    saved = dict(_codec._emitters), dict(_codec._parsers)
    _codec._emitters.clear()
    _codec._parsers.clear()
    try:
        results = hammer(lambda i: [round_trip(m) for m in messages])
    finally:
        _codec._emitters.update(saved[0])
        _codec._parsers.update(saved[1])
    assert results == [expected] * THREADS


def test_codec_objects_are_shared_safely() -> None:
    answers = codec.Codec(Answer, indent=None)
    message = json_format.ParseDict(load("discoveryengine_answer.json"), Answer())
    text = answers.to_json(message)
    results = hammer(lambda i: [answers.from_json(answers.to_json(message)) for _ in range(50)])
    assert all(m == message for result in results for m in result)
    assert answers.to_json(message) == text


def test_message_class_lookups_from_many_threads() -> None:
    names = list(message_types())
    short = [n.rsplit(".", 2)[-2] + "." + n.rsplit(".", 1)[-1] for n in names if n.count(".") > 2]
    queries = names + short + ["Answer", "Answer.Citation", "Segment", "CitationMetadata"]

    def lookup(i: int) -> list[tuple[str, object]]:
        out: list[tuple[str, object]] = []
        for name in queries[i:] + queries[:i]:
            try:
                out.append((name, message_class(name)))
            except LookupError as error:
                out.append((name, type(error)))
        return sorted(out, key=lambda pair: str(pair[0]))

    expected = lookup(0)
    assert hammer(lookup) == [expected] * THREADS


def _text() -> str:
    rng = random.Random(7)
    pieces = ["a", "é", "日本", "👍🏽", "Ω", " ", "\n", "😀", "ß", "\u200d"]
    return "".join(rng.choice(pieces) for _ in range(20_000))


def test_one_text_index_shared_by_many_threads_builds_its_tables_once_right() -> None:
    text = _text()
    data = text.encode("utf-8")
    char_bytes = [len(text[:i].encode("utf-8")) for i in range(0, len(text) + 1, 97)]
    chars = list(range(0, len(text) + 1, 97))
    units = [len(text[:c].encode("utf-16-le")) // 2 for c in chars]
    expected_bytes = [len(data[:b].decode("utf-8")) for b in char_bytes]
    assert expected_bytes == chars  # the oracle agrees with itself

    for _ in range(3):
        index = TextIndex(text)  # no table built yet

        def work(i: int, index: TextIndex = index) -> list[Any]:
            rng = random.Random(i)
            order = list(range(len(chars)))
            rng.shuffle(order)
            singles = [
                (index.to_char(char_bytes[k]), index.to_byte(chars[k]),
                 index.to_utf16(char_bytes[k]), index.from_utf16(units[k]))
                for k in order
            ]  # fmt: skip
            singles.sort()
            bulk = [index.to_chars(char_bytes), index.to_bytes(chars)]
            return [singles, bulk, index.utf16_length, index.slice(char_bytes[3], char_bytes[9])]

        results = hammer(work)
        singles = sorted(zip(chars, char_bytes, units, char_bytes, strict=True))
        expected = [singles, [chars, char_bytes], units[-1] if chars[-1] == len(text) else
                    len(text.encode("utf-16-le")) // 2, text[chars[3]:chars[9]]]  # fmt: skip
        assert results == [expected] * THREADS


def test_extract_and_validate_from_many_threads() -> None:
    documents = [load(name) for name in DOCUMENTS]

    def work(i: int) -> list[Any]:
        return [(read(d) if "broken" not in name else None, validate(d))
                for name, d in zip(DOCUMENTS, documents, strict=True)]  # fmt: skip

    expected = work(0)
    assert hammer(work) == [expected] * THREADS


# --- Pickling -----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_message(), st.integers(0, pickle.HIGHEST_PROTOCOL))
def test_every_message_type_pickles(message: Message, protocol: int) -> None:
    back = pickle.loads(pickle.dumps(message, protocol=protocol))
    assert type(back) is type(message)
    assert back == message
    assert back.SerializeToString(deterministic=True) == message.SerializeToString(
        deterministic=True
    )
    assert copy.deepcopy(message) == message


@pytest.mark.parametrize("name", message_types())
def test_message_classes_and_empty_messages_pickle(name: str) -> None:
    cls = message_class(name)
    assert pickle.loads(pickle.dumps(cls)) is cls
    assert pickle.loads(pickle.dumps(cls())) == cls()


def model_objects() -> list[Any]:
    objects: list[Any] = []
    for name in DOCUMENTS:
        document = load(name)
        problems = validate(document)
        objects.extend(problems)
        if "broken" in name:
            continue
        grounded = read(document)
        objects.append(grounded)
        objects.extend(grounded.citations)
        objects.extend(grounded.sources)
    objects.append(Source(uri="https://x.example", title="Köln 👍🏽", score=0.5))
    objects.append(Grounded(None, []))
    return objects


def test_citations_sources_grounded_and_problems_pickle() -> None:
    objects = model_objects()
    kinds = {type(o).__name__ for o in objects}
    assert kinds == {"Citation", "Source", "Grounded", "Problem"}
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(objects, protocol=protocol))
        assert back == objects
        assert [hash(o) for o in back if not isinstance(o, Grounded)] == [
            hash(o) for o in objects if not isinstance(o, Grounded)
        ]


# --- Across spawn processes ----------------------------------------------------------------


def in_worker(payload: tuple[list[Message], list[Citation], list[dict[str, Any]]]) -> Any:
    """What a worker does: serialize, convert, extract and validate; sends all back."""
    messages, citations, documents = payload
    return {
        "bytes": [m.SerializeToString(deterministic=True) for m in messages],
        "dicts": [codec.to_dict(m) for m in messages],
        "messages": messages,
        "parsed": [codec.from_dict(type(m), codec.to_dict(m)) for m in messages],
        "citations": citations,
        "texts": [c.text for c in citations],
        "extracted": [extract(d) for d in documents[:3]],  # the 4th is broken
        "problems": [validate(d) for d in documents],
        "answer": extract(messages[0]),
    }


def test_messages_and_citations_cross_a_spawn_process_pool() -> None:
    messages = example_messages()
    documents = [load(name) for name in DOCUMENTS]
    citations = [c for d in documents[:2] for c in read(d).citations]
    payload = (messages, citations, documents)
    expected = in_worker(payload)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        results = list(pool.map(in_worker, [payload, payload, payload]))
    for result in results:
        assert result == expected
        assert [type(m) for m in result["messages"]] == [type(m) for m in messages]
        assert all(type(s) is Source for c in result["citations"] for s in c.sources)
