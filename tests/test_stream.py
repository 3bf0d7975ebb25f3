"""Streamed responses: ``read_stream``, ``aread_stream``, ``StreamReader`` and the CLI.

Fixtures are built here and reproduce what recorded streams do: text over many chunks,
``groundingMetadata`` only in the last chunk (``{}`` before it) or only early,
``citationMetadata`` sent once in the chunk where its span ends with whole-answer
offsets, a span sent twice, thought and tool-call chunks, several text parts with
``partIndex``, two candidates. The oracle is ``read`` of the whole response (what the
stream adds up to) and the cited substrings computed here by naive slicing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_protos import CitationError, GroundingProtosError, OffsetError, StreamError
from grounding_protos.citations import (
    Grounded,
    SpanPolicy,
    StreamReader,
    aread_stream,
    read,
    read_stream,
)
from grounding_protos.cli import main

JA = "東京タワーは高さ333メートルです。"
FR = "Le café crème à Zürich coûte 5 €. "
EMOJI = "Familie 👨‍👩‍👧‍👦 und 👍🏽 Daumen."
TEXT = JA + FR + EMOJI

Json = dict[str, Any]


# --- Building fixtures ----------------------------------------------------------------------


def span(text: str, sub: str) -> tuple[int, int]:
    """The UTF-8 byte span of ``sub`` in ``text``, by naive prefix encoding (the oracle)."""
    at = text.index(sub)
    start = len(text[:at].encode("utf-8"))
    return start, start + len(sub.encode("utf-8"))


def web(i: int) -> Json:
    return {"web": {"uri": f"https://s{i}.example/{i}", "title": f"Quelle {i}"}}


def support(text: str, sub: str, chunks: list[int], part: int | None = None) -> Json:
    start, end = span(text, sub)
    segment: Json = {"startIndex": start, "endIndex": end, "text": sub}
    if part is not None:
        segment["partIndex"] = part
    return {"segment": segment, "groundingChunkIndices": chunks}


def citation(text: str, sub: str, uri: str | None, **extra: Any) -> Json:
    start, end = span(text, sub)
    out: Json = {"startIndex": start, "endIndex": end, **extra}
    if uri is not None:
        out["uri"] = uri
    return out


def metadata(text: str = TEXT) -> Json:
    return {
        "webSearchQueries": ["東京タワー 高さ"],
        "groundingChunks": [web(0), web(1), web(2)],
        "groundingSupports": [
            support(text, "高さ333メートル", [0]),
            support(text, "Zürich coûte 5 €", [1, 2]),
            support(text, "👨‍👩‍👧‍👦 und 👍🏽", [2]),
        ],
    }


def cut(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def chunk(parts: list[Json], index: int | None = None, **fields: Any) -> Json:
    candidate: Json = {"content": {"role": "model", "parts": parts}, **fields}
    if index is not None:
        candidate["index"] = index
    return {"candidates": [candidate], "modelVersion": "gemini-test"}


def text_chunks(text: str, size: int, *, last: Json, empty_metadata: bool = True) -> list[Json]:
    """``text`` in pieces of ``size`` characters; ``last``'s fields on the final chunk."""
    pieces = cut(text, size)
    out = []
    for i, piece in enumerate(pieces):
        fields: Json = {"groundingMetadata": {}} if empty_metadata else {}
        if i == len(pieces) - 1:
            fields = dict(last)
        out.append(chunk([{"text": piece}], **fields))
    out[-1]["usageMetadata"] = {"promptTokenCount": 9, "totalTokenCount": 99}
    return out


def whole(parts: list[Json], **fields: Any) -> Json:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, **fields}]}


def same(streamed: Grounded, expected: Grounded) -> None:
    """The streamed result is the whole response's (finish_reason aside: ``read`` of a
    whole response may not report it yet)."""
    assert streamed.finish_reason is not None or expected.finish_reason is None
    assert dataclasses.replace(streamed, finish_reason=expected.finish_reason) == expected


def check_oracle(grounded: Grounded) -> None:
    """Every citation's text is its byte span of the answer, sliced naively."""
    assert grounded.text is not None
    data = grounded.text.encode("utf-8")
    for c in grounded.citations:
        assert c.text == data[c.start : c.end].decode("utf-8")
        assert c.char_start == len(data[: c.start].decode("utf-8"))


# --- The forms a stream comes in ------------------------------------------------------------


def sse(chunks: list[Json], newline: str = "\n") -> str:
    events = [f"data: {json.dumps(c, ensure_ascii=False)}{newline}{newline}" for c in chunks]
    return f": recorded stream{newline}" + "".join(events)


def genai_objects(chunks: list[Json]) -> list[object]:
    from google.genai import types

    return [types.GenerateContentResponse.model_validate(c) for c in chunks]


def official_objects(chunks: list[Json]) -> list[object]:
    """google-ai-generativelanguage (proto-plus) objects of the chunks."""
    from google.ai import generativelanguage_v1beta as glm

    cls = glm.GenerateContentResponse
    return [cls.from_json(json.dumps(c), ignore_unknown_fields=True) for c in chunks]


def raw_messages(chunks: list[Json]) -> list[object]:
    """The raw protobuf messages beneath the official objects."""
    from google.ai import generativelanguage_v1beta as glm

    return [glm.GenerateContentResponse.pb(o) for o in official_objects(chunks)]


FORMS: dict[str, Callable[[list[Json]], object]] = {
    "dicts": lambda chunks: chunks,
    "generator": lambda chunks: (c for c in chunks),
    "json-text-items": lambda chunks: [json.dumps(c) for c in chunks],
    "sse-lf": sse,
    "sse-crlf": lambda chunks: sse(chunks, "\r\n"),
    "sse-bytes": lambda chunks: sse(chunks, "\r\n").encode("utf-8"),
    "sse-binary-file": lambda chunks: io.BytesIO(sse(chunks).encode("utf-8")),
    "sse-text-file": lambda chunks: io.StringIO(sse(chunks, "\r\n"), newline=""),
    "sse-lines": lambda chunks: sse(chunks).split("\n"),
    "json-array": lambda chunks: json.dumps(chunks, ensure_ascii=False, indent=1),
    "json-array-file": lambda chunks: io.BytesIO(json.dumps(chunks).encode("utf-8")),
    "genai": genai_objects,
    "official": official_objects,
    "official-raw": raw_messages,
}


def expected_read(form: str, response: Json) -> Grounded:
    """``read`` of the whole response in the same form (an object form reads its own
    way: google-genai names the list ``citations``, a raw message has ``partIndex`` 0)."""
    if form in ("genai", "official", "official-raw"):
        objects = FORMS[form]([response])
        assert isinstance(objects, list)
        return read(objects[0])
    return read(response)


def _final() -> Json:
    return {"finishReason": "STOP", "groundingMetadata": metadata()}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_metadata_only_in_the_last_chunk_and_empty_before(form: str) -> None:
    chunks = text_chunks(TEXT, 5, last=_final())
    expected = expected_read(form, whole([{"text": TEXT}], **_final()))
    streamed = read_stream(FORMS[form](chunks))
    same(streamed, expected)
    assert streamed.finish_reason == "STOP"
    assert [c.text for c in streamed.citations] == [
        "高さ333メートル",
        "Zürich coûte 5 €",
        "👨‍👩‍👧‍👦 und 👍🏽",
    ]
    check_oracle(streamed)


def test_the_async_path() -> None:
    chunks = text_chunks(TEXT, 4, last=_final())

    async def arrive() -> AsyncIterator[object]:
        for c in genai_objects(chunks):
            await asyncio.sleep(0)
            yield c

    async def lines() -> AsyncIterator[str]:
        for line in sse(chunks, "\r\n").splitlines(keepends=True):
            yield line

    expected = read(whole([{"text": TEXT}], **_final()))
    same(asyncio.run(aread_stream(arrive())), expected)
    same(asyncio.run(aread_stream(lines())), expected)
    same(asyncio.run(aread_stream(chunks)), expected)  # a sync stream is read as usual


def test_a_late_empty_metadata_never_wipes_the_real_one() -> None:
    chunks = text_chunks(TEXT, 9, last={"groundingMetadata": metadata()})
    chunks.append(chunk([{"text": ""}], finishReason="STOP", groundingMetadata={}))
    streamed = read_stream(chunks)
    assert len(streamed.citations) == 3 and streamed.problems == []


def test_metadata_early_only() -> None:
    chunks = text_chunks(TEXT, 6, last={"finishReason": "STOP"}, empty_metadata=False)
    chunks[0]["candidates"][0]["groundingMetadata"] = metadata()
    same(read_stream(chunks), read(whole([{"text": TEXT}], **_final())))

    reader = StreamReader()
    first = reader.feed(chunks[0])
    assert first.citations == []  # its offsets point at text that has not arrived
    partial = reader.grounded()
    assert partial.text == chunks[0]["candidates"][0]["content"]["parts"][0]["text"]
    assert [p.code for p in partial.problems] == ["stream-grounding-pending"]
    updates = [reader.feed(c) for c in chunks[1:]]
    assert all(u.citations == [] for u in updates[:-1])
    assert updates[-1].finished and len(updates[-1].citations) == 3
    assert reader.finish().citations == updates[-1].citations


def test_wrong_offsets_raise_once_the_candidate_is_complete() -> None:
    chunks = text_chunks(TEXT, 6, last={"finishReason": "STOP"}, empty_metadata=False)
    bad = metadata()
    bad["groundingSupports"][0]["segment"]["endIndex"] = len(TEXT.encode("utf-8")) + 1
    chunks[0]["candidates"][0]["groundingMetadata"] = bad
    with pytest.raises(OffsetError, match="out of range"):
        read_stream(chunks, errors="strict")
    reader = StreamReader(errors="strict")
    for c in chunks[:-1]:
        reader.feed(c)  # pending while the text may still come
    assert [p.code for p in reader.grounded().problems] == ["stream-grounding-pending"]
    with pytest.raises(OffsetError, match="out of range"):
        reader.feed(chunks[-1])
    # The default policy re-anchors the span on its segment text, as read does.
    repaired = read_stream(chunks)
    whole_response = whole([{"text": TEXT}], finishReason="STOP", groundingMetadata=bad)
    same(repaired, read(whole_response))
    assert repaired.citations[0].text == "高さ333メートル"
    assert [p.code for p in repaired.problems] == ["offset-drift"]


def test_a_replaced_grounding_metadata_is_a_problem() -> None:
    chunks = text_chunks(TEXT, 20, last={"finishReason": "STOP"}, empty_metadata=False)
    chunks[0]["candidates"][0]["groundingMetadata"] = metadata()
    chunks[-1]["candidates"][0]["groundingMetadata"] = {"webSearchQueries": ["again"]}
    streamed = read_stream(chunks)
    assert streamed.citations == []
    assert [p.code for p in streamed.problems] == ["stream-grounding-replaced"]
    assert "replaces event 1's, which had 3" in streamed.problems[0].message


def spread_citations(text: str, size: int) -> tuple[list[Json], list[Json]]:
    """Chunks of ``text`` with citations, each in the chunk where its span ends; and
    the citations."""
    cited = [
        citation(text, "東京タワー", "https://ja.example/tower", title="東京"),
        citation(text, "café crème", "https://fr.example/cafe", license="CC-BY"),
        citation(text, "Familie 👨‍👩‍👧‍👦", "https://emoji.example/family"),
    ]
    chunks = text_chunks(text, size, last={"finishReason": "STOP"}, empty_metadata=False)
    reached = 0
    waiting = list(cited)
    for c in chunks:
        reached += len(c["candidates"][0]["content"]["parts"][0]["text"].encode("utf-8"))
        here = [x for x in waiting if x["endIndex"] <= reached]
        waiting = [x for x in waiting if x["endIndex"] > reached]
        if here:
            c["candidates"][0]["citationMetadata"] = {"citationSources": here}
    return chunks, cited


@pytest.mark.parametrize("form", ["dicts", "sse-crlf", "genai", "official", "official-raw"])
def test_citations_spread_over_chunks_with_whole_answer_offsets(form: str) -> None:
    chunks, cited = spread_citations(TEXT, 7)
    assert sum("citationMetadata" in c["candidates"][0] for c in chunks) == 3
    response = whole([{"text": TEXT}], finishReason="STOP",
                     citationMetadata={"citationSources": cited})  # fmt: skip
    # google-genai names the list `citations` whatever the JSON said: so do the paths.
    expected = expected_read(form, response)
    streamed = read_stream(FORMS[form](chunks))
    same(streamed, expected)
    assert [c.text for c in streamed.citations] == ["東京タワー", "café crème", "Familie 👨‍👩‍👧‍👦"]
    check_oracle(streamed)


@pytest.mark.parametrize("form", ["dicts", "json-text-items", "genai", "official", "official-raw"])
def test_the_incremental_reader_places_each_citation_in_its_chunk(form: str) -> None:
    chunks, _ = spread_citations(TEXT, 3)
    objects = FORMS[form](chunks)
    assert isinstance(objects, list)
    reader = StreamReader()
    shown = ""
    arrived = []
    for c, obj in zip(chunks, objects, strict=True):
        update = reader.feed(obj)
        shown += update.text
        for placed in update.citations:
            assert placed.char_end is not None and placed.char_end <= len(shown)
            arrived.append(placed)
        assert len(update.citations) == ("citationMetadata" in c["candidates"][0])
    final = reader.finish()
    assert shown == TEXT == final.text
    assert arrived == final.citations  # placed on the fragments, equal to the final read
    assert final == read_stream(FORMS[form](chunks))


def test_duplicated_citations_are_merged_with_a_problem() -> None:
    text = TEXT
    a = citation(text, "Zürich", "https://z.example")
    bare = citation(text, "Zürich", None)
    other = citation(text, "Zürich", None, title="Another work")
    first = chunk([{"text": text[:40]}], citationMetadata={"citations": [bare, a, a]})
    last = chunk([{"text": text[40:]}], finishReason="STOP",
                 citationMetadata={"citations": [other, a]})  # fmt: skip
    streamed = read_stream([first, last])
    assert [(c.text, c.sources[0].uri, c.sources[0].title) for c in streamed.citations] == [
        ("Zürich", "https://z.example", None),
        ("Zürich", None, "Another work"),  # a different work: kept
    ]
    codes = [(p.code, p.path) for p in streamed.problems]
    assert (
        codes == [("stream-duplicate-citation", "candidates[0].citation_metadata.citations[0]")] * 3
    )
    assert "without URI" in streamed.problems[0].message


def test_tool_call_and_thought_chunks_start_new_parts() -> None:
    thought_1, thought_2 = "Ich überlege… ", "東京?"
    chunks = [
        chunk([{"text": thought_1, "thought": True}]),
        chunk([{"text": thought_2, "thought": True}]),
        chunk([{"text": JA[:5]}]),
        chunk([{"text": JA[5:]}]),
        chunk([{"functionCall": {"name": "lookup", "args": {"q": "café"}}}]),
        chunk([{"text": FR[:8]}]),
        chunk([{"text": FR[8:]}, {"executableCode": {"language": "PYTHON", "code": "1"}}]),
        chunk([{"text": EMOJI}]),
    ]
    metadata_parts: Json = {
        "groundingChunks": [web(0), web(1)],
        "groundingSupports": [
            support(JA, "333", [0], part=1),
            support(FR, "crème", [1], part=3),
            support(EMOJI, "👍🏽", [0], part=5),
        ],
    }
    chunks.append(chunk([{"text": ""}], finishReason="STOP", groundingMetadata=metadata_parts))
    parts: list[Json] = [
        {"text": thought_1 + thought_2, "thought": True},
        {"text": JA},
        {"functionCall": {"name": "lookup", "args": {"q": "café"}}},
        {"text": FR},
        {"executableCode": {"language": "PYTHON", "code": "1"}},
        {"text": EMOJI},
    ]
    expected = read(whole(parts, finishReason="STOP", groundingMetadata=metadata_parts))
    for form in ("dicts", "sse-lf", "genai"):
        streamed = read_stream(FORMS[form](chunks))
        same(streamed, expected)
        assert streamed.text == TEXT
        assert [c.text for c in streamed.citations] == ["333", "crème", "👍🏽"]
    reader = StreamReader()
    for c in chunks:
        reader.feed(c)
    merged = reader.merged()["candidates"][0]["content"]["parts"]
    assert [p if isinstance(p, dict) else None for p in merged] == parts


def test_thought_to_answer_switch_starts_a_new_part() -> None:
    chunks = [
        chunk([{"text": "denken", "thought": True}]),
        chunk([{"text": "Antwort "}]),
        chunk([{"text": "mehr", "thought": True}]),
        chunk([{"text": "Ende"}], finishReason="STOP"),
    ]
    reader = StreamReader()
    texts = [reader.feed(c).text for c in chunks]
    assert texts == ["", "Antwort ", "", "Ende"]
    assert reader.merged()["candidates"][0]["content"]["parts"] == [
        {"text": "denken", "thought": True},
        {"text": "Antwort "},
        {"text": "mehr", "thought": True},
        {"text": "Ende"},
    ]


def test_parts_within_one_chunk_stay_separate_and_part_index_counts_them() -> None:
    chunks = [
        chunk([{"text": JA}, {"text": FR[:10]}]),
        chunk([{"text": FR[10:]}, {"text": EMOJI}]),  # continues FR, then a new part
        chunk([{"text": ""}], finishReason="STOP", groundingMetadata={
            "groundingChunks": [web(0)],
            "groundingSupports": [support(FR, "Zürich", [0], part=1),
                                  support(EMOJI, "Daumen", [0], part=2)],
        }),
    ]  # fmt: skip
    streamed = read_stream(chunks)
    assert streamed.text == TEXT
    assert [(c.text, c.part) for c in streamed.citations] == [("Zürich", 1), ("Daumen", 2)]
    check_oracle(streamed)
    expected = read(
        whole([{"text": JA}, {"text": FR}, {"text": EMOJI}], finishReason="STOP",
              groundingMetadata=chunks[-1]["candidates"][0]["groundingMetadata"])
    )  # fmt: skip
    same(streamed, expected)


def test_two_candidates_by_index() -> None:
    other = "Deux réponses: 日本語 ✔️."
    meta_1 = {"groundingChunks": [web(7)], "groundingSupports": [support(other, "日本語", [0])]}
    chunks: list[Json] = []
    for i, piece in enumerate(cut(TEXT, 11)):
        candidates: list[Json] = [{"index": 0, "content": {"parts": [{"text": piece}]}}]
        if i < len(cut(other, 6)):
            last = i == len(cut(other, 6)) - 1
            second: Json = {"index": 1, "content": {"parts": [{"text": cut(other, 6)[i]}]}}
            if last:
                second.update(finishReason="STOP", groundingMetadata=meta_1)
            candidates.insert(0, second)  # the list order is not the index
        chunks.append({"candidates": candidates})
    chunks[-1]["candidates"][-1].update(_final())
    merged = {
        "candidates": [
            {"content": {"parts": [{"text": TEXT}]}, **_final()},
            {"content": {"parts": [{"text": other}]}, "finishReason": "STOP",
             "groundingMetadata": meta_1},
        ]
    }  # fmt: skip
    for form in ("dicts", "sse-crlf", "json-array", "genai"):
        same(read_stream(FORMS[form](chunks), candidate=1), read(merged, candidate=1))
        same(read_stream(FORMS[form](chunks)), read(merged))
    reader = StreamReader(candidate=1)
    updates = [reader.feed(c) for c in chunks]
    assert "".join(u.text for u in updates) == other
    assert "".join(u.texts.get(0, "") for u in updates) == TEXT
    assert [u.finished for u in updates].index(True) == len(cut(other, 6)) - 1


# --- Interrupted streams and errors ---------------------------------------------------------


def test_an_interrupted_stream_gives_what_arrived() -> None:
    chunks, _ = spread_citations(TEXT, 7)
    cut_at = len(chunks) - 3
    streamed = read_stream(chunks[:cut_at])
    arrived = "".join(c["candidates"][0]["content"]["parts"][0]["text"] for c in chunks[:cut_at])
    assert streamed.text == arrived
    assert [c.text for c in streamed.citations] == ["東京タワー", "café crème"]
    assert [p.code for p in streamed.problems] == ["stream-incomplete"]
    assert streamed.problems[0].path == "candidates[0].finish_reason"
    assert streamed.finish_reason is None


def test_a_recording_cut_inside_an_event() -> None:
    chunks, _ = spread_citations(TEXT, 7)
    for text in (sse(chunks, "\r\n"), json.dumps(chunks)):
        truncated = text[: len(text) * 2 // 3]
        streamed = read_stream(truncated)
        assert streamed.text is not None and TEXT.startswith(streamed.text)
        assert [p.code for p in streamed.problems] == ["stream-truncated", "stream-incomplete"]


def test_sse_details_follow_the_specification() -> None:
    one = chunk([{"text": "Grüß "}])
    two = chunk([{"text": "Gott"}], finishReason="STOP")
    body = json.dumps(two, indent=1).split("\n")  # multi-line data fields
    text = (
        "\ufeff: a comment\r"  # CR-only line ends, a BOM
        + "id: 1\rretry: 10\revent: message\r"
        + f"data:{json.dumps(one)}\r\r"  # no space after the colon
        + "".join(f"data: {line}\r" for line in body)
        + "\r"
    )
    assert read_stream(text).text == "Grüß Gott"
    assert read_stream(text.replace("\r", "\n")).problems == []


@pytest.mark.parametrize(
    ("recording", "event", "words"),
    [
        ('data: {"candidates": []}\n\nevent: error\ndata: {"error": "quota"}\n\n', 2, "error"),
        ('data: {"candidates": []}\n\ndata: {"candidates": [}\n\n', 2, "malformed JSON"),
        ('[{"candidates": []}, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", '
         '"message": "slow down"}}]', 2, "429 RESOURCE_EXHAUSTED: slow down"),
        # a legacy Completions chunk (a Chat Completions one, with "delta", is read)
        ('data: {"choices": [{"text": "hi", "index": 0}]}\n\n', 1, "keys {choices}"),
        ("event: response.output_text.delta\ndata: {}\n\n", 1, "event type"),
        ('data: {"answers": {"answerText": "x"}}\n\n', 1, "not a generateContent response"),
    ],
)  # fmt: skip
def test_a_chunk_that_is_not_a_response_names_its_event(
    recording: str, event: int, words: str
) -> None:
    with pytest.raises(StreamError) as caught:
        read_stream(recording)
    assert caught.value.event == event
    assert str(caught.value).startswith(f"event {event}: ") and words in str(caught.value)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, GroundingProtosError)


def test_other_inputs_that_are_not_streams() -> None:
    with pytest.raises(StreamError, match="0 events"):
        read_stream([])
    with pytest.raises(StreamError, match="not a recorded stream"):
        read_stream("hello")
    with pytest.raises(StreamError, match="expected an iterable"):
        read_stream(42)
    with pytest.raises(StreamError, match="event 2: malformed JSON"):
        read_stream(['{"candidates": []}', "{"])
    reader = StreamReader()
    reader.feed(chunk([{"text": "x"}], finishReason="STOP"))
    assert reader.finish().problems == []
    with pytest.raises(StreamError, match="after finish"):
        reader.feed(chunk([{"text": "y"}]))


def test_the_reader_takes_json_text_and_single_sse_events() -> None:
    chunks = text_chunks(TEXT, 8, last=_final())
    reader = StreamReader()
    for n, c in enumerate(chunks):
        text = json.dumps(c)
        reader.feed(text if n % 2 else f"data: {text}\r\n\r\n".encode())
    same(reader.finish(), read(whole([{"text": TEXT}], **_final())))
    # a piece of SSE text may hold several events (issue 33: pieces of any size)
    two = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks[:2])
    update = StreamReader().feed(two)
    assert update.text == "".join(p["text"] for c in chunks[:2]
                                  for p in c["candidates"][0]["content"]["parts"])  # fmt: skip


@pytest.mark.parametrize("errors", ["strict", "repair", "skip"])
def test_the_span_policy_is_forwarded_to_read(errors: SpanPolicy) -> None:
    chunks = text_chunks(TEXT, 8, last=_final())
    bad = chunks[-1]["candidates"][0]["groundingMetadata"]["groundingSupports"][1]["segment"]
    bad["startIndex"] += 1  # drifted by a byte: the segment text is still right
    last = {k: v for k, v in chunks[-1]["candidates"][0].items() if k != "content"}
    merged = whole([{"text": TEXT}], **last)
    if errors == "strict":
        with pytest.raises(CitationError, match="differs from the text"):
            read(merged, errors=errors)
        with pytest.raises(CitationError, match="differs from the text"):
            read_stream(chunks, errors=errors)
        return
    expected = read(merged, errors=errors)
    assert expected.problems  # repaired, or skipped
    same(read_stream(chunks, errors=errors), expected)


def test_a_single_response_is_a_stream_of_one() -> None:
    response = whole([{"text": TEXT}], **_final())
    same(read_stream(response), read(response))
    same(read_stream(genai_objects([response])[0]), read(response))


# --- Property: SSE framing ------------------------------------------------------------------

JSON_TEXT = st.text(st.sampled_from([*"aé東京 👍🏽ß€\n\r\u2028:\u200d"]), max_size=8)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | JSON_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(JSON_TEXT, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.dictionaries(st.sampled_from(["candidates", "x"]), JSON_VALUES, min_size=1),
             min_size=1, max_size=4),
    st.data(),
)  # fmt: skip
def test_sse_framing_whatever_the_line_ends(values: list[Json], data: st.DataObject) -> None:
    from grounding_protos._sources.parse import Chunk, recorded_chunks

    # LF and CRLF mixed freely, or CR alone (a CR followed by an LF is one CRLF).
    ends = st.sampled_from(data.draw(st.sampled_from([["\n", "\r\n"], ["\r"]])))
    text = ""
    for value in values:
        if data.draw(st.booleans()):
            text += ": keep-alive" + data.draw(ends)
        lines = json.dumps(value, ensure_ascii=False, indent=data.draw(st.sampled_from([None, 1])))
        for line in lines.split("\n"):  # JSON escapes CR and LF inside strings
            text += f"data: {line}" + data.draw(ends)
        text += data.draw(ends)
    assert [c.value for c in recorded_chunks(text) if isinstance(c, Chunk)] == values
    pieces = io.BytesIO(text.encode("utf-8"))  # read line by line, as a file
    assert [c.value for c in recorded_chunks(pieces) if isinstance(c, Chunk)] == values


# --- Property: any cut of a whole response streams back to it -------------------------------

ALPHABET = st.sampled_from([*"aé東京 👍🏽👨‍👩‍👧ß€\n", "👨‍👩‍👧‍👦"])
Kind = str  # "text", "thought", "call"


@st.composite
def streamed_responses(draw: st.DrawFn) -> tuple[Json, list[Json]]:
    """A whole response and a stream of chunks that adds up to it."""
    kinds: list[Kind] = draw(
        st.lists(st.sampled_from(["text", "text", "thought", "call"]), min_size=1, max_size=5)
    )
    if "text" not in kinds:
        kinds.append("text")
    parts: list[Json] = []
    for i, kind in enumerate(kinds):
        if kind == "call":
            parts.append({"functionCall": {"name": f"f{i}", "args": {}}})
        else:
            body = "".join(draw(st.lists(ALPHABET, min_size=1, max_size=12)))
            parts.append({"text": body, "thought": True} if kind == "thought" else {"text": body})
    texts = [(i, p["text"]) for i, p in enumerate(parts) if "text" in p and "thought" not in p]
    answer = "".join(t for _, t in texts)
    data = answer.encode("utf-8")
    # Character boundaries of the whole answer, in bytes, for spans.
    bounds = sorted({len(answer[:k].encode("utf-8")) for k in range(len(answer) + 1)})
    supports = []
    for n in range(draw(st.integers(0, 4))):
        # A span of one text part (partIndex, part offsets), or of the whole answer.
        part_index, body = draw(st.sampled_from(texts))
        local = [len(body[:k].encode("utf-8")) for k in range(len(body) + 1)]
        a, b = sorted(draw(st.lists(st.sampled_from(local), min_size=2, max_size=2)))
        segment = {"partIndex": part_index, "startIndex": a, "endIndex": b}
        if len(texts) == 1 and draw(st.booleans()):
            segment = {"startIndex": a, "endIndex": b}
        supports.append({"segment": segment, "groundingChunkIndices": [n % 2]})
    cited: list[Json] = []
    for n in range(draw(st.integers(0, 4))):
        a, b = sorted(draw(st.lists(st.sampled_from(bounds), min_size=2, max_size=2)))
        cited.append({"startIndex": a, "endIndex": b, "uri": f"https://c{n}.example"})
    cited.sort(key=lambda c: c["endIndex"])
    grounding = {"groundingChunks": [web(0), web(1)], "groundingSupports": supports}
    response = whole(parts, finishReason="STOP", groundingMetadata=grounding)
    if cited:
        response["candidates"][0]["citationMetadata"] = {"citationSources": cited}
    assert len(data) == bounds[-1]

    # Cut every text part into pieces at random characters.
    pieces: list[tuple[int, Json]] = []  # (part number, piece)
    for i, part in enumerate(parts):
        if "text" not in part:
            pieces.append((i, part))
            continue
        body = part["text"]
        points = sorted(set(draw(st.lists(st.integers(1, max(len(body) - 1, 1)), max_size=3))))
        points = [p for p in points if 0 < p < len(body)]
        for a, b in zip([0, *points], [*points, len(body)], strict=True):
            pieces.append((i, {**part, "text": body[a:b]}))
    # Chunk boundaries between pieces, except where two text parts of one kind meet
    # (the stream could not tell them apart from one part).
    boundaries = []
    for k in range(1, len(pieces)):
        (i, left), (j, right) = pieces[k - 1], pieces[k]
        joinable = "text" in left and "text" in right
        if i != j and joinable and left.get("thought") == right.get("thought"):
            continue
        if draw(st.booleans()):
            boundaries.append(k)
    chunks: list[Json] = []
    for a, b in zip([0, *boundaries], [*boundaries, len(pieces)], strict=True):
        group = pieces[a:b]
        merged_parts: list[Json] = []
        for n, (i, piece) in enumerate(group):
            if n and group[n - 1][0] == i:  # the same part within one chunk
                previous = merged_parts[-1]
                merged_parts[-1] = {**previous, "text": previous["text"] + piece["text"]}
            else:
                merged_parts.append(piece)
        chunks.append(chunk(merged_parts, groundingMetadata={}))
    # Each citation in the chunk where the answer text reaches its end.
    reached, waiting = 0, list(cited)
    for c in chunks:
        for p in c["candidates"][0]["content"]["parts"]:
            if "text" in p and not p.get("thought"):
                reached += len(p["text"].encode("utf-8"))
        here = [x for x in waiting if x["endIndex"] <= reached]
        waiting = [x for x in waiting if x["endIndex"] > reached]
        if here:
            c["candidates"][0]["citationMetadata"] = {"citationSources": here}
    last = chunks[-1]["candidates"][0]
    last.update(finishReason="STOP", groundingMetadata=grounding)
    return response, chunks


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streamed_responses(), st.sampled_from(["dicts", "sse-crlf", "json-array"]))
def test_any_cut_of_a_whole_response_streams_back_to_it(
    case: tuple[Json, list[Json]], form: str
) -> None:
    response, chunks = case
    expected = read(response)
    streamed = read_stream(FORMS[form](chunks))
    same(streamed, expected)
    check_oracle(streamed)
    reader = StreamReader()
    shown, arrived = "", []
    for c in chunks:
        update = reader.feed(c)
        shown += update.text
        arrived.extend(update.citations)
    assert shown == expected.text
    assert sorted(arrived, key=lambda c: c.path) == sorted(expected.citations, key=lambda c: c.path)
    assert reader.finish() == streamed


# --- The command line ----------------------------------------------------------------------


def run_cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str,
    stdin: bytes | None = None, tty: bool = False,
) -> tuple[int, str, str]:  # fmt: skip
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    monkeypatch.setattr("grounding_protos._cli.load._isatty", lambda stream: tty)
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def recorded(tmp_path: Path) -> Iterator[tuple[Path, Path, list[Json]]]:
    chunks, cited = spread_citations(TEXT, 6)
    chunks[-1]["candidates"][0]["groundingMetadata"] = metadata()
    response = whole([{"text": TEXT}], finishReason="STOP", groundingMetadata=metadata(),
                     citationMetadata={"citationSources": cited})  # fmt: skip
    stream_file = tmp_path / "answer.sse"
    stream_file.write_text(sse(chunks, "\r\n"), encoding="utf-8")
    whole_file = tmp_path / "answer.json"
    whole_file.write_text(json.dumps(response, ensure_ascii=False), encoding="utf-8")
    yield stream_file, whole_file, chunks


def test_cli_reads_a_recorded_stream_like_the_whole_response(
    recorded: tuple[Path, Path, list[Json]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream_file, whole_file, chunks = recorded
    for command in ("render", "validate", "inspect"):
        expected = run_cli(capsys, monkeypatch, command, str(whole_file))
        assert run_cli(capsys, monkeypatch, command, str(stream_file)) == expected
        data = stream_file.read_bytes()
        assert run_cli(capsys, monkeypatch, command, stdin=data)[:2] == expected[:2]
        array = json.dumps(chunks).encode("utf-8")
        assert run_cli(capsys, monkeypatch, command, stdin=array)[:2] == expected[:2]
    code, out, _ = expected = run_cli(capsys, monkeypatch, "render", str(whole_file))
    assert code == 0 and "Zürich coûte 5 €" in out and "[1]" in out


def test_cli_render_shows_text_as_it_arrives_on_a_terminal(
    recorded: tuple[Path, Path, list[Json]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream_file, whole_file, _ = recorded
    _, final, _ = run_cli(capsys, monkeypatch, "render", str(whole_file))
    data = stream_file.read_bytes()
    code, out, err = run_cli(capsys, monkeypatch, "render", stdin=data, tty=True)
    assert (code, err) == (0, "")
    assert out == TEXT + "\n\n" + final
    code, out, _ = run_cli(capsys, monkeypatch, "render", stdin=data, tty=False)
    assert out == final


def test_cli_interrupted_stream_warns_and_exits_1(
    recorded: tuple[Path, Path, list[Json]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, _, chunks = recorded
    data = sse(chunks[:-2], "\r\n").encode("utf-8")
    code, out, err = run_cli(capsys, monkeypatch, "render", stdin=data)
    assert code == 1
    assert "東京タワー[1]" in out and "café crème[2]" in out  # what arrived, with markers
    assert err.startswith("grounding-protos: warning: <stdin>: candidates[0].finish_reason:")
    assert "[stream-incomplete]" in err
    code, out, err = run_cli(capsys, monkeypatch, "validate", "--json", stdin=data)
    assert code == 1 and json.loads(out)[0]["code"] == "stream-incomplete"
    code, out, err = run_cli(capsys, monkeypatch, "render", stdin=b'data: {"x": 1}\n\n')
    assert code == 2 and "event 1: not a generateContent response chunk" in err


def test_cli_jsonl_lines_holding_streams_read_like_whole_responses(
    recorded: tuple[Path, Path, list[Json]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A JSONL line may hold a recorded stream (a JSON array of chunks): it is merged, as
    a file is; an interrupted one keeps what arrived and is flagged (exit 1)."""
    _, whole_file, chunks = recorded
    whole = json.loads(whole_file.read_text(encoding="utf-8"))
    lines = [json.dumps(whole), json.dumps(chunks), json.dumps(chunks[:-2]), "[]"]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for command in ("render", "validate", "inspect"):
        code, out, _ = run_cli(capsys, monkeypatch, command, "--jsonl", str(batch))
        first, streamed, interrupted, empty = map(json.loads, out.splitlines())
        assert code == 1  # the interrupted stream, and the empty one
        assert {**streamed, "line": 1} == first
        assert (interrupted["ok"], empty["ok"]) == (True, False)
        assert "0 events" in empty["error"]
        record = interrupted.get("summary", interrupted)
        assert record["problems"][0]["code"] == "stream-incomplete"
    _, out, _ = run_cli(capsys, monkeypatch, "render", "--jsonl", str(batch))
    part = json.dumps(chunks[:-2]).encode("utf-8")
    _, alone, _ = run_cli(capsys, monkeypatch, "render", stdin=part)  # the stream as a file
    assert json.loads(out.splitlines()[2])["output"] == alone
    assert "東京タワー[1]" in alone


def test_cli_on_the_shipped_stream_example(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    examples = Path(__file__).resolve().parents[1] / "examples"
    stream_file = examples / "gemini_stream.sse"
    whole_file = examples / "gemini_response.json"
    for command in ("render", "inspect", "validate"):
        expected = run_cli(capsys, monkeypatch, command, str(whole_file))
        assert run_cli(capsys, monkeypatch, command, str(stream_file)) == expected
    same(read_stream(stream_file.read_bytes()), read(json.loads(whole_file.read_bytes())))
    with stream_file.open("rb") as f:
        assert read_stream(f).text == read(json.loads(whole_file.read_bytes())).text
    head = b"".join(stream_file.read_bytes().splitlines(keepends=True)[:6])
    code, out, err = run_cli(capsys, monkeypatch, "render", stdin=head)
    assert code == 1 and "[stream-incomplete]" in err and "[1]" not in out


# --- Discovery Engine streamed answers (:streamAnswer) ----------------------------------------

ANSWER_PARTS = ["Köln liegt am Rhein. ", "東京は首都です。", " Emoji 👩🏽\u200d💻 ok."]


def answer_chunks(final_state: str = "SUCCEEDED") -> list[dict[str, Any]]:
    """AnswerQueryResponse messages as :streamAnswer sends them: one sentence each,
    citations with offsets into the whole answer, each part's references its own
    (its referenceIds count from 0; merge_answer_chunks shifts them)."""
    chunks = []
    start = 0
    for i, part in enumerate(ANSWER_PARTS):
        end = start + len(part.rstrip().encode("utf-8"))
        state = final_state if i == len(ANSWER_PARTS) - 1 else "STREAMING"
        chunks.append({"answer": {
            "state": state, "answerText": part,
            "citations": [{"startIndex": str(start), "endIndex": str(end),
                           "sources": [{"referenceId": "0"}]}],
            "references": [{"chunkInfo": {"content": part.strip(),
                                          "documentMetadata": {"title": f"Doc {i}"}}}],
        }})  # fmt: skip
        start += len(part.encode("utf-8"))
    return chunks


def test_a_streamed_discovery_engine_answer_reads_as_the_whole_answer() -> None:
    whole = "".join(ANSWER_PARTS)
    for stream in (
        answer_chunks(),
        "".join(f"data: {json.dumps(c, ensure_ascii=False)}\r\n\r\n" for c in answer_chunks()),
        json.dumps(answer_chunks()),
    ):
        grounded = read_stream(stream)
        assert grounded.text == whole and grounded.problems == []
        assert [c.text for c in grounded.citations] == [p.rstrip() for p in ANSWER_PARTS]
        assert [c.sources[0].title for c in grounded.citations] == ["Doc 0", "Doc 1", "Doc 2"]


def test_a_streamed_answer_as_messages_and_async() -> None:
    from grounding_protos import codec
    from grounding_protos.discoveryengine_v1 import Answer

    messages = [codec.from_dict(Answer, c["answer"]) for c in answer_chunks()]
    assert [c.text for c in read_stream(messages).citations] == [p.rstrip() for p in ANSWER_PARTS]

    async def chunks() -> AsyncIterator[dict[str, Any]]:
        for chunk in answer_chunks():
            yield chunk

    assert asyncio.run(aread_stream(chunks())).text == "".join(ANSWER_PARTS)


def test_an_interrupted_answer_stream_says_so() -> None:
    grounded = read_stream(answer_chunks()[:2])
    assert grounded.text == "".join(ANSWER_PARTS[:2])
    assert [p.code for p in grounded.problems] == ["stream-incomplete"]
    with pytest.raises(StreamError, match="event 2: not a part of a streamed Discovery Engine"):
        read_stream([answer_chunks()[0], {"candidates": []}])


# --- unit=, as read takes it -----------------------------------------------------------------


def _char_stream() -> tuple[list[Json], Json]:
    """A stream whose offsets count characters (as a proxy or re-encoder may write
    them), with citationMetadata in the middle chunk and supports in the last."""
    at = TEXT.index("Zürich")
    cite = {"startIndex": at, "endIndex": at + len("Zürich"), "uri": "https://z.example"}
    tower = TEXT.index("333メートル")
    supports = [{"segment": {"startIndex": tower, "endIndex": tower + len("333メートル")},
                 "groundingChunkIndices": [0]}]  # fmt: skip
    pieces = [JA, FR, EMOJI]
    grounding = {"groundingChunks": [web(0)], "groundingSupports": supports}
    chunks = [
        chunk([{"text": JA}]),
        chunk([{"text": FR}], citationMetadata={"citationSources": [cite]}),
        chunk([{"text": EMOJI}], finishReason="STOP", groundingMetadata=grounding),
    ]
    whole_response = whole([{"text": "".join(pieces)}], finishReason="STOP",
                           citationMetadata={"citationSources": [cite]},
                           groundingMetadata=grounding)  # fmt: skip
    return chunks, whole_response


def test_unit_reads_a_stream_as_read_reads_the_whole_response() -> None:
    chunks, whole_response = _char_stream()
    expected = read(whole_response, unit="char")
    assert sorted(c.text or "" for c in expected.citations) == ["333メートル", "Zürich"]
    same(read_stream(chunks, unit="char"), expected)
    same(read_stream(sse(chunks), unit="char"), expected)

    async def produce() -> AsyncIterator[Json]:
        for c in chunks:
            yield c

    same(asyncio.run(aread_stream(produce(), unit="char")), expected)
    reader = StreamReader(unit="char")
    updates = [reader.feed(c) for c in chunks]
    same(reader.finish(), expected)
    fed = sorted((c.char_start, c.text) for u in updates for c in u.citations)
    assert fed == sorted((c.char_start, c.text) for c in expected.citations)


def test_without_unit_the_character_offsets_are_refused() -> None:
    chunks, _ = _char_stream()
    with pytest.raises(OffsetError):
        read_stream(chunks)  # bytes by default: 'Zürich' splits a character there


def test_a_wrong_unit_is_refused_before_any_chunk() -> None:
    def never() -> Iterator[Json]:
        raise AssertionError("read")
        yield {}

    with pytest.raises(ValueError, match="unit must be 'byte', 'char' or 'utf16'"):
        read_stream(never(), unit="bytes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unit must be"):
        StreamReader(unit="code points")  # type: ignore[arg-type]
