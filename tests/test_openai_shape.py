"""OpenAI Responses' declared shape (``_sources/openai/shape.py``) and the fast path of
``read``: on generated responses, the same ``Grounded`` (or the same error) as the
tolerant reader, for every span policy and unit; and the fast path taken on the
responses it models.

The responses are built like the Responses API's JSON (docs: the API reference's
``Response`` object, with web search): mixed-script ``output_text`` parts (German,
Japanese, Arabic, emoji and other astral characters) before and between the spans,
several message items, ``refusal`` parts, commentary-phase messages, reasoning items,
``web_search_call`` items with ``action.query``/``queries``/``sources``, and
``url_citation`` annotations whose offsets are computed here in characters (code
points) of their own part, or say no position. Then some of them are damaged: an
offset past its part, reversed or negative, one offset alone, a value of the wrong
JSON type, a camelCase key, a file citation, a lone surrogate, a string subclass.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("msgspec")

from grounding_protos._citations import fast
from grounding_protos._sources.openai import shape
from grounding_protos.citations import Grounded, read, read_json

PIECES = [
    "Die Straße in Köln ist schön. ",
    "東京タワーは333メートルです。",
    "مرحبا بالعالم، سلام. ",
    "Daumen 👍🏽 und Flagge 🇯🇵. ",
    "Plain ASCII words here. ",
    "\U0001d518\U0001d52b 𓀀. ",
    "([quelle](https://q.example/köln?utm_source=openai)) ",
]
URLS = ["https://a.example/", "https://b.example/köln", "https://c.example/東京", ""]
TITLES = ["A", "Köln: Dom", "東京", ""]


@contextmanager
def tolerant_only() -> Iterator[None]:
    """``read`` and ``read_json`` without their fast paths: the tolerant reader."""
    with (
        mock.patch.object(fast, "read_dict", return_value=None),
        mock.patch.object(fast, "read_text", return_value=None),
    ):
        yield


def outcome(call: Callable[[], Grounded]) -> tuple[str, object]:
    try:
        return ("ok", call())
    except Exception as exc:  # compared: the same error either way
        return (type(exc).__name__, str(exc))


@st.composite
def annotation(draw: st.DrawFn, text: str) -> dict[str, Any]:
    """A url_citation on ``text`` (character offsets), or one without a position, or an
    annotation of another kind the reader skips."""
    how = draw(st.sampled_from(["span", "span", "span", "none", "zero", "other"]))
    note: dict[str, Any] = {"type": "url_citation"}
    if how == "other":
        return {"type": "container_reference"}  # not a citation: skipped
    if how == "span":
        bounds = sorted({*range(0, len(text) + 1, 3), len(text)})
        first = draw(st.integers(0, len(bounds) - 1))
        last = draw(st.integers(first, len(bounds) - 1))
        note["start_index"], note["end_index"] = bounds[first], bounds[last]
    elif how == "zero":
        note["start_index"] = note["end_index"] = 0
    elif draw(st.booleans()):
        note["start_index"] = note["end_index"] = None
    if draw(st.integers(0, 5)):
        note["url"] = draw(st.sampled_from(URLS))
    if draw(st.integers(0, 5)):
        note["title"] = draw(st.sampled_from(TITLES))
    return note


@st.composite
def message(draw: st.DrawFn) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.integers(0, 4)) == 0:
            content.append({"type": "refusal", "refusal": "Nein, 申し訳ありません。"})
            continue
        text = "".join(draw(st.lists(st.sampled_from(PIECES), max_size=4)))
        notes = draw(st.lists(annotation(text), max_size=5))
        content.append({"type": "output_text", "text": text, "annotations": notes,
                        "logprobs": []})  # fmt: skip
    item: dict[str, Any] = {"id": "msg_1", "type": "message", "role": "assistant",
                            "status": "completed", "content": content}  # fmt: skip
    phase = draw(st.sampled_from([None, "final_answer", "commentary"]))
    if phase is not None:
        item["phase"] = phase
    return item


@st.composite
def web_search(draw: st.DrawFn) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "search"}
    if draw(st.booleans()):
        action["query"] = draw(st.sampled_from(["Kölner Dom Höhe", "東京タワー", ""]))
    if draw(st.booleans()):
        action["queries"] = draw(st.lists(st.sampled_from(["Köln", "", "القاهرة"]), max_size=3))
    if draw(st.booleans()):
        found = [{"type": "url", "url": draw(st.sampled_from(URLS))},
                 {"type": "api", "name": draw(st.sampled_from(["oai-weather", ""]))}]  # fmt: skip
        action["sources"] = draw(st.lists(st.sampled_from(found), max_size=3))
    item: dict[str, Any] = {"id": "ws_1", "type": "web_search_call", "status": "completed"}
    if draw(st.integers(0, 5)):
        item["action"] = action
    return item


@st.composite
def responses(draw: st.DrawFn) -> tuple[dict[str, Any], bool]:
    """A Responses API response dict, and whether the declared shape models it."""
    output: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["message", "message", "search", "reasoning"]))
        if kind == "message":
            output.append(draw(message()))
        elif kind == "search":
            output.append(draw(web_search()))
        else:
            output.append({"id": "rs_1", "type": "reasoning", "summary": [],
                           "encrypted_content": "gAAA"})  # fmt: skip
    response: dict[str, Any] = {"id": "resp_1", "object": "response", "created_at": 1764000000,
                                "model": "gpt-5", "output": output,
                                "usage": {"input_tokens": 9, "output_tokens": 90}}  # fmt: skip
    if draw(st.integers(0, 3)):
        response["status"] = draw(st.sampled_from(["completed", "incomplete", ""]))
    damaged = draw(st.booleans())
    if damaged:
        _damage(draw, response)
    return response, not damaged


def _notes(response: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        note
        for item in response["output"]
        if item["type"] == "message"
        for part in item["content"]
        for note in part.get("annotations", ())
        if note["type"] == "url_citation"
    ]


def _damage(draw: st.DrawFn, response: dict[str, Any]) -> None:
    """Damage the response (or make it one the declared shape leaves to the tolerant
    reader), in one of the ways that apply to it."""
    notes = _notes(response)
    parts = [p for i in response["output"] if i["type"] == "message" for p in i["content"]]
    texts = [p for p in parts if p["type"] == "output_text"]
    searches = [i for i in response["output"] if i["type"] == "web_search_call"]
    spans = [n for n in notes if n.get("end_index") is not None]
    options = ["item-none", "status"]  # the damages that apply to this response
    if spans:
        options += ["past", "reversed", "negative", "alone", "string", "float", "bool", "url",
                    "camel", "extra-key"]  # fmt: skip
    if texts:
        options += ["file", "surrogate", "text-type", "subclass"]
    if searches:
        options += ["action", "queries", "source"] * 2
    how = draw(st.sampled_from(options))
    if how in ("past", "reversed", "negative", "alone", "string", "float", "bool", "url",
               "camel", "extra-key"):  # fmt: skip
        note = draw(st.sampled_from(spans))
        if how == "past":
            note["end_index"] += draw(st.integers(1, 3)) + 1_000 * draw(st.integers(0, 1))
        elif how == "reversed":
            note["start_index"] = note["end_index"] + 1
        elif how == "negative":
            note["start_index"] = -1
        elif how == "alone":
            del note[draw(st.sampled_from(["start_index", "end_index"]))]
        elif how == "string":
            note["end_index"] = str(note["end_index"])
        elif how == "float":
            note["start_index"] = float(note["start_index"])
        elif how == "bool":
            note["start_index"] = draw(st.booleans())
        elif how == "url":
            note["url"] = draw(st.sampled_from([7, ["https://a.example/"], {"u": 1}]))
        elif how == "camel":
            note["startIndex"] = note.pop("start_index")
        else:
            note["text"] = "Köln"  # a field the annotation does not declare
        return
    if how == "file":
        part = draw(st.sampled_from(texts))
        part["annotations"].append(
            draw(st.sampled_from([
                {"type": "file_citation", "file_id": "file-1", "filename": "köln.pdf",
                 "index": 0},
                {"type": "container_file_citation", "container_id": "cntr_1",
                 "file_id": "cfile_1", "filename": "東京.csv", "start_index": 0,
                 "end_index": 0},
                {"type": "file_path", "file_id": "file-2", "index": 0},
            ]))
        )  # fmt: skip
        return
    if how == "surrogate":
        draw(st.sampled_from(texts))["text"] += "\ud83d"
        return
    if how == "text-type":
        draw(st.sampled_from(texts))["text"] = draw(st.sampled_from([None, 5, ["x"]]))
        return
    if how == "item-none":
        response["output"].insert(draw(st.integers(0, len(response["output"]))), None)
        return
    if how in ("action", "queries", "source"):
        item = draw(st.sampled_from(searches))
        if how == "action":
            item["action"] = draw(st.sampled_from(["search", ["x"], 3]))
        elif how == "queries":
            item["action"] = {"type": "search", "queries": draw(st.sampled_from(["Köln", [1]]))}
        else:
            item["action"] = {"type": "search", "sources": [
                draw(st.sampled_from([{"type": "url"}, {"url": 5}, "https://a.example/", {}]))
            ]}  # fmt: skip
        return
    if how == "status":
        response["status"] = draw(st.sampled_from([1, ["completed"], {"s": 1}]))
        return
    if how == "subclass":

        class Kind(enum.StrEnum):
            URL = "url_citation"
            OUTPUT = "output_text"

        class Text(str):
            pass

        if len(notes) > 0 and draw(st.booleans()):
            draw(st.sampled_from(notes))["type"] = Kind.URL
        elif draw(st.booleans()):
            draw(st.sampled_from(texts))["type"] = Kind.OUTPUT
        else:
            part = draw(st.sampled_from(texts))
            part["text"] = Text(part["text"])
        return
    raise AssertionError(how)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    responses(),
    st.sampled_from(["repair", "skip", "strict"]),
    st.sampled_from([None, None, "char", "byte", "utf16"]),
    st.integers(0, 1),
)
def test_fast_path_gives_what_the_tolerant_reader_gives(
    case: tuple[dict[str, Any], bool], errors: str, unit: str | None, candidate: int
) -> None:
    response, clean = case

    def reading() -> Grounded:
        return read(response, errors=errors, unit=unit, candidate=candidate)  # type: ignore[arg-type]

    with tolerant_only():
        expected = outcome(reading)
    assert outcome(reading) == expected
    if clean and unit in (None, "char"):  # what the declared shape models: no fallback
        converted = shape.convert(response)
        assert converted is not None
        assert shape.grounded(converted, candidate) == expected[1]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(responses())
def test_read_json_and_the_declared_decode(case: tuple[dict[str, Any], bool]) -> None:
    response, clean = case
    try:
        text = json.dumps(response, ensure_ascii=False)
        text.encode()
    except (TypeError, ValueError, UnicodeEncodeError):
        return  # not JSON (a lone surrogate has no UTF-8 form)
    with tolerant_only():
        expected = outcome(lambda: read(json.loads(text)))
    assert outcome(lambda: read_json(text)) == expected
    assert outcome(lambda: read_json(text.encode())) == expected
    if clean:
        decoded = shape.decode(text)
        assert decoded is not None
        assert shape.grounded(decoded, 0) == expected[1]


def test_the_fast_path_reads_citations_in_characters_of_each_part() -> None:
    """Independent oracle: each span's bytes are the UTF-8 length of the joined text
    before it; offsets count characters (code points) of their own part."""
    first = "Grüße 👨‍👩‍👧 aus Köln. "
    second = "東京タワー🗼は333 mです。([t](https://t.example))"
    link = second.index("([t]")
    response = {"object": "response", "status": "completed", "output": [
        {"type": "message", "phase": "commentary", "content": [
            {"type": "output_text", "text": "Ich suche …", "annotations": []}]},
        {"type": "message", "content": [
            {"type": "output_text", "text": first, "annotations": [
                {"type": "url_citation", "start_index": 6, "end_index": 11,
                 "url": "https://f.example", "title": "F"}]},
            {"type": "refusal", "refusal": "—"},
            {"type": "output_text", "text": second, "annotations": [
                {"type": "url_citation", "start_index": link, "end_index": len(second),
                 "url": "https://t.example", "title": "T"},
                {"type": "url_citation", "url": "https://w.example"}]}]}]}  # fmt: skip
    converted = shape.convert(response)
    assert converted is not None
    grounded = shape.grounded(converted, 0)
    assert grounded is not None
    with tolerant_only():
        assert read(response) == grounded
    whole = first + second
    spans = [(6, 11), (len(first) + link, len(whole))]
    assert [(c.char_start, c.char_end) for c in grounded.citations] == spans
    assert [(c.start, c.end) for c in grounded.citations] == [
        (len(whole[:s].encode()), len(whole[:e].encode())) for s, e in spans
    ]
    assert [c.text for c in grounded.citations] == ["👨‍👩‍👧", "([t](https://t.example))"]
    assert [c.part for c in grounded.citations] == [0, 1]
    assert [s.uri for s in grounded.declared_sources] == [
        "https://f.example", "https://t.example", "https://w.example"
    ]  # fmt: skip
    assert grounded.uncited_sources[0].uri == "https://w.example"


def test_unit_byte_is_not_read_as_characters() -> None:
    """``unit="byte"`` reads OpenAI's offsets as bytes: the fast path (characters) steps
    aside."""
    text = "Köln ist schön."
    response = {"object": "response", "output": [{"type": "message", "content": [
        {"type": "output_text", "text": text, "annotations": [
            {"type": "url_citation", "start_index": 0, "end_index": 5,
             "url": "https://k.example"}]}]}]}  # fmt: skip
    assert read(response).citations[0].text == "Köln "
    assert read(response, unit="byte").citations[0].text == "Köln"


def _with(item: dict[str, Any]) -> dict[str, Any]:
    text = "Grüße aus Köln 🇩🇪, 東京. ([k](https://k.example))"
    answer = {"type": "message", "content": [{"type": "output_text", "text": text,
              "annotations": [{"type": "url_citation", "start_index": 27,
                               "end_index": len(text), "url": "https://k.example"}]}]}  # fmt: skip
    return {"object": "response", "status": "completed", "output": [item, answer]}


HOSTILE_SEARCHES = [
    {"action": "search"},
    {"action": {"type": "search", "query": 5}},
    {"action": {"type": "search", "queries": "Köln"}},
    {"action": {"type": "search", "queries": ["Köln", None]}},
    {"action": {"type": "search", "sources": {"url": "https://a.example"}}},
    {"action": {"type": "search", "sources": [{"type": "url"}]}},
    {"action": {"type": "search", "sources": [{"url": 5}]}},
    {"action": {"type": "search", "sources": [{}]}},
    {"action": {"type": "search", "sources": ["https://a.example"]}},
]


@pytest.mark.parametrize("fields", HOSTILE_SEARCHES)
@pytest.mark.parametrize("errors", ["repair", "skip", "strict"])
def test_a_hostile_web_search_call_is_read_the_tolerant_way(
    fields: dict[str, Any], errors: str
) -> None:
    response = _with({"type": "web_search_call", "status": "completed", **fields})
    converted = shape.convert(response)
    assert converted is None or shape.grounded(converted, 0) is None

    def reading() -> Grounded:
        return read(response, errors=errors)  # type: ignore[arg-type]

    with tolerant_only():
        expected = outcome(reading)
    assert outcome(reading) == expected
    got = expected[1]
    assert expected[0] != "ok" or (isinstance(got, Grounded) and got.problems)


def test_web_search_sources_and_queries_are_read_the_fast_way() -> None:
    response = _with({"type": "web_search_call", "status": "completed", "action": {
        "type": "search", "query": "Köln", "queries": ["Köln", "", "東京"],
        "sources": [{"type": "url", "url": "https://a.example"},
                    {"type": "api", "name": "oai-weather"}, {"type": "api"}]}})  # fmt: skip
    converted = shape.convert(response)
    assert converted is not None
    grounded = shape.grounded(converted, 0)
    assert grounded is not None
    with tolerant_only():
        assert read(response) == grounded
    assert grounded.search.queries == ("Köln", "東京")
    assert [(s.uri, s.title, s.custom_metadata) for s in grounded.declared_sources] == [
        ("https://k.example", None, ()),
        ("https://a.example", None, ()),
        (None, "oai-weather", (("type", "api"),)),
        (None, None, (("type", "api"),)),
    ]


def test_the_vendor_readers_benchmark_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    """``benchmarks/readers_vendor.py`` runs (it asserts the fast path and the tolerant
    reader agree on its input) and prints its ratios; nothing is timed for a verdict."""
    import importlib
    import sys
    from pathlib import Path

    folder = str(Path(__file__).resolve().parent.parent / "benchmarks")
    sys.path.insert(0, folder)
    try:
        benchmark = importlib.import_module("readers_vendor")
    finally:
        sys.path.remove(folder)
    results = benchmark.main(count=20, repeat=1, number=1)
    assert set(results) == {
        "openai_responses_read_vs_json_loads",
        "openai_responses_tolerant_vs_read",
    }
    assert "20 url_citations" in capsys.readouterr().out
