"""Gemini's declared shape (``_sources/google/gemini/shape.py``) and the fast paths of
``read`` and ``read_json``: on generated responses, the same ``Grounded`` (or the same
error) as the tolerant reader, for every span policy; and the fast path taken on the
responses it models.

The responses are built like the Gemini API's REST JSON (docs: generateContent's
``GenerateContentResponse``): mixed-script text parts (German, Japanese, Arabic, emoji)
before and between the spans, thought parts, non-text parts, web and empty grounding
chunks, supports with offsets computed here from the UTF-8 bytes of the text. Then
some of them are damaged: an offset moved by a byte, a wrong ``segment.text``, an
index out of range, a value of the wrong JSON type, a snake_case key, a kind of chunk
the declared shape leaves to the tolerant reader.
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

from grounding_protos import GroundingProtosError
from grounding_protos._citations import fast
from grounding_protos._sources.google.gemini import shape
from grounding_protos._sources.registry import _BY_KEY, READERS
from grounding_protos.citations import Grounded, read, read_json

PIECES = [
    "Die Straße in Köln ist schön. ",
    "東京タワーは333メートルです。",
    "مرحبا بالعالم، سلام. ",
    "Daumen 👍🏽 und Flagge 🇯🇵. ",
    "Plain ASCII words here. ",
    "\U0001d518\U0001d52b 𓀀. ",
    'Zitat: "so" \\ und\nneue Zeile\t. ',
]


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
def responses(draw: st.DrawFn) -> tuple[dict[str, Any], bool]:
    """A Gemini response dict, and whether the declared shape models it (undamaged, one
    text part: several text parts are read the tolerant way)."""
    parts: list[dict[str, Any]] = []
    text_parts = draw(st.integers(1, 2))
    texts: list[str] = []
    for _ in range(text_parts):
        if draw(st.booleans()):
            parts.append({"text": draw(st.sampled_from(PIECES)), "thought": True})
        if draw(st.integers(0, 4)) == 0:
            parts.append({"functionCall": {"name": "f", "args": {"q": "x"}}})
        pieces = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=5))
        texts.append("".join(pieces))
        parts.append({"text": texts[-1]})
    text = "".join(texts)
    data = text.encode("utf-8")
    # character boundaries as byte offsets: the ends of the pieces and some inside
    bounds = sorted({len(text[:k].encode("utf-8")) for k in range(0, len(text) + 1, 3)})
    chunks: list[dict[str, Any]] = []
    for i in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["web", "web", "empty", "web-partial"]))
        if kind == "web":
            chunks.append(
                {
                    "web": {
                        "uri": f"https://vertexaisearch.cloud.google.com/r/{i}",
                        "title": f"site{i}.example",
                        "domain": f"site{i}.example",
                    }
                }
            )
        elif kind == "web-partial":
            chunks.append({"web": {"title": draw(st.sampled_from(["", "Zürich", "東京"]))}})
        else:
            chunks.append({})
    supports = []
    for _ in range(draw(st.integers(0, 6))):
        first = draw(st.integers(0, len(bounds) - 1))
        last = draw(st.integers(first, len(bounds) - 1))
        start, end = bounds[first], bounds[last]
        segment: dict[str, Any] = {"endIndex": end}
        if start or draw(st.booleans()):
            segment["startIndex"] = start
        if draw(st.booleans()):
            segment["text"] = data[start:end].decode("utf-8")
        if text_parts == 1 and draw(st.integers(0, 3)) == 0:
            segment["partIndex"] = len(parts) - 1  # the one text part, named
        support: dict[str, Any] = {"segment": segment}
        if chunks:
            indices = draw(st.lists(st.integers(0, len(chunks) - 1), max_size=3))
            support["groundingChunkIndices"] = indices
            if draw(st.booleans()):
                support["confidenceScores"] = [
                    draw(st.sampled_from([0.0, 0.25, 0.9, 1.0, 1])) for _ in indices
                ]
        supports.append(support)
    meta: dict[str, Any] = {"groundingChunks": chunks, "groundingSupports": supports}
    if draw(st.booleans()):
        meta["webSearchQueries"] = draw(st.lists(st.sampled_from(["", "Köln", "東京"])))
        meta["searchEntryPoint"] = {"renderedContent": draw(st.sampled_from(["", "<b>q</b>"]))}
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": parts},
        "groundingMetadata": meta,
        "index": 0,
    }
    if draw(st.booleans()):
        candidate["finishReason"] = draw(st.sampled_from(["STOP", "MAX_TOKENS", ""]))
    response: dict[str, Any] = {
        "candidates": [candidate],
        "usageMetadata": {"promptTokenCount": 3},
        "modelVersion": "gemini-2.5-flash",
    }
    damaged = draw(st.integers(0, 2)) == 0
    if damaged:
        _damage(draw, response)
    return response, not damaged and text_parts == 1


def _damage(draw: st.DrawFn, response: dict[str, Any]) -> None:
    candidate = response["candidates"][0]
    meta = candidate["groundingMetadata"]
    supports = meta["groundingSupports"]
    segments = [s["segment"] for s in supports]
    how = draw(st.sampled_from([
        "shift", "wrong-text", "index-out", "wrong-type", "snake", "retrieved", "maps",
        "part", "url-context", "null", "negative", "inverted",
    ]))  # fmt: skip
    if how == "shift" and segments:
        draw(st.sampled_from(segments))["endIndex"] += draw(st.sampled_from([-1, 1, 2]))
    elif how == "wrong-text" and segments:
        draw(st.sampled_from(segments))["text"] = "nicht hier"
    elif how == "index-out" and supports:
        draw(st.sampled_from(supports))["groundingChunkIndices"] = [len(meta["groundingChunks"])]
    elif how == "wrong-type":
        value = draw(st.sampled_from(["3", True, 1.5, {"a": 1}, [1]]))
        where = draw(
            st.sampled_from(["start", "indices", "scores", "text", "segment", "finish", "web"])
        )
        if where == "start" and segments:
            draw(st.sampled_from(segments))["startIndex"] = value
        elif where == "indices" and supports:
            draw(st.sampled_from(supports))["groundingChunkIndices"] = value
        elif where == "scores" and supports:
            draw(st.sampled_from(supports))["confidenceScores"] = [value]
        elif where == "text":
            candidate["content"]["parts"][-1]["text"] = value
        elif where == "segment" and segments:
            draw(st.sampled_from(segments))["text"] = value
        elif where == "finish":
            candidate["finishReason"] = value
        else:
            meta["groundingChunks"].append({"web": value})
    elif how == "snake":
        candidate["grounding_metadata"] = candidate.pop("groundingMetadata")
    elif how == "retrieved":
        meta["groundingChunks"].append({"retrievedContext": {"uri": "gs://b/f", "text": "x"}})
    elif how == "maps":
        meta["groundingChunks"].append({"maps": {"placeId": "ChIJ9Q", "title": "Dom"}})
    elif how == "part" and segments:
        draw(st.sampled_from(segments))["partIndex"] = 7
    elif how == "url-context":
        status = {
            "retrievedUrl": "https://u.example",
            "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS",
        }
        candidate["urlContextMetadata"] = {"urlMetadata": [status]}
    elif how == "null":
        candidate["content"]["parts"][-1]["text"] = None
    elif how == "negative" and segments:
        draw(st.sampled_from(segments))["startIndex"] = -1
    elif how == "inverted" and segments:
        segment = draw(st.sampled_from(segments))
        segment["startIndex"] = segment["endIndex"] + 1


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(responses(), st.sampled_from(["repair", "skip", "strict"]))
def test_fast_paths_give_what_the_tolerant_reader_gives(
    case: tuple[dict[str, Any], bool], errors: str
) -> None:
    response, clean = case
    text = json.dumps(response, ensure_ascii=False)
    with tolerant_only():
        expected = outcome(lambda: read(response, errors=errors))  # type: ignore[arg-type]
    assert outcome(lambda: read(response, errors=errors)) == expected  # type: ignore[arg-type]
    assert outcome(lambda: read_json(text, errors=errors)) == expected  # type: ignore[arg-type]
    assert outcome(lambda: read_json(text.encode(), errors=errors)) == expected  # type: ignore[arg-type]
    if clean:  # what the declared shape models: read the fast way, not by falling back
        decoded = shape.decode(text)
        assert decoded is not None
        assert shape.grounded(decoded, 0) == expected[1]
        converted = shape.convert(response)
        assert converted is not None
        assert shape.grounded(converted, 0) == expected[1]


def test_a_second_candidate_and_one_out_of_range() -> None:
    first = {"content": {"parts": [{"text": "Köln"}]}}
    second = {"content": {"parts": [{"text": "東京タワー"}]}, "groundingMetadata": {
        "groundingChunks": [{"web": {"uri": "https://t.example"}}],
        "groundingSupports": [{"segment": {"startIndex": 3, "endIndex": 9, "text": "京タ"},
                               "groundingChunkIndices": [0]}]}}  # fmt: skip
    response = {"candidates": [first, second]}
    grounded = read_json(json.dumps(response), candidate=1)
    assert [(c.start, c.end, c.char_start, c.text) for c in grounded.citations] == [
        (3, 9, 1, "京タ")
    ]
    assert grounded.citations[0].path == "candidates[1].grounding_metadata.grounding_supports[0]"
    with tolerant_only():
        assert read(response, candidate=1) == grounded
        expected = outcome(lambda: read(response, candidate=2))
    assert outcome(lambda: read_json(json.dumps(response), candidate=2)) == expected
    assert expected[0] == "UnsupportedInputError"


@pytest.mark.parametrize(
    "data",
    [
        '{"summary": {"summaryText": "Zürich"}}',  # another shape: parsed, then read
        b"\xef\xbb\xbf"
        + json.dumps({"candidates": [{"content": {"parts": [{"text": "é"}]}}]}).encode(),
        '{"candidates": [{"content": {"parts": [{"text": "\\ud83d"}]}}]}',  # lone surrogate
        '{"candidates": [{"content": {"parts": [{"text": "x"}]}, "avgLogprobs": NaN}]}',
    ],
)
def test_read_json_is_read_of_json_loads(data: str | bytes) -> None:
    with tolerant_only():
        expected = outcome(lambda: read(json.loads(data)))
    assert outcome(lambda: read_json(data)) == expected


def test_a_dict_of_str_enums_and_str_subclasses() -> None:
    """A dict converted from an SDK's objects may hold a str enum (``finishReason``) or a
    ``str`` subclass: read as the tolerant reader reads them."""

    class Reason(enum.StrEnum):  # as google-genai's enums are str enums
        STOP = "STOP"

    class Text(str):
        pass

    response = {"candidates": [{
        "content": {"parts": [{"text": Text("Grüße aus Köln.")}]},
        "finishReason": Reason.STOP,
        "groundingMetadata": {
            "groundingChunks": [{"web": {"uri": "https://k.example", "title": Text("K")}}],
            "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 7, "text": "Grüße"},
                                   "groundingChunkIndices": [0]}],
        },
    }]}  # fmt: skip
    with tolerant_only():
        expected = read(response)
    grounded = read(response)
    assert grounded == expected
    assert type(grounded.text) is type(expected.text) is str
    assert type(grounded.finish_reason) is type(expected.finish_reason) is str
    assert type(grounded.sources[0].title) is type(expected.sources[0].title)


def test_read_json_refuses_what_is_not_json() -> None:
    from grounding_protos import ArgumentTypeError, ArgumentValueError

    with pytest.raises(ArgumentValueError, match="not JSON"):
        read_json('{"candidates": [')
    with pytest.raises(ArgumentTypeError):
        read_json({"candidates": []})  # type: ignore[arg-type]


def test_the_readers_that_share_geminis_top_level_keys() -> None:
    """``read_json`` decodes a response into the declared shape without asking the
    dispatcher: sound while the only reader tried before Gemini's on those keys is
    grounded generation's, whose own fields the declared candidates refuse."""
    before = {
        READERS[i].shape
        for key in shape.TOP_LEVEL
        for i in _BY_KEY.get(key, ())
        if i < next(k for k, r in enumerate(READERS) if r.shape == "gemini_response")
    }
    assert before == {"grounded_generation_response"}
    candidate = {"content": {"parts": [{"text": "x"}]}, "groundingScore": 0.5}
    assert shape.decode(json.dumps({"candidates": [candidate]})) is None


@pytest.mark.parametrize("depth", [200, 1_500, 100_000])
def test_json_nested_past_msgspecs_depth_is_a_typed_error_or_read(depth: int) -> None:
    """msgspec raises RecursionError past its depth: read_json gives a typed error, or
    what read(json.loads(...)) gives, never the RecursionError."""
    deep = '{"a":' * depth + "1" + "}" * depth
    with pytest.raises(GroundingProtosError):
        read_json(deep)  # too deep for json.loads, or no reader takes {"a": {...}}
    with pytest.raises(GroundingProtosError):
        read_json('{"a":' * depth + "NaN")  # not JSON
    wrapped = '{"candidates": [{"content": {"parts": [{"text": "Köln"}]}, "x": ' + deep + "}]}"
    try:
        expected: object = read(json.loads(wrapped))
    except (RecursionError, GroundingProtosError) as exc:
        expected = type(exc)
    try:
        got: object = read_json(wrapped)
    except GroundingProtosError as exc:
        got = type(exc)
    assert got == expected or (expected is RecursionError and got is not None)


def _supported(candidate: int, count: int) -> dict[str, Any]:
    """A response whose candidate ``candidate`` has ``count`` supports."""
    text = "Grüße aus Köln. 東京タワー 🗼. " * 4
    data = text.encode()
    starts = [i for i in range(len(data)) if data[i] & 0xC0 != 0x80]  # whole characters
    supports: list[dict[str, Any]] = [
        {"segment": {"startIndex": starts[i % len(starts)], "endIndex": len(data)},
         "groundingChunkIndices": [0]}
        for i in range(count)
    ]  # fmt: skip
    metadata = {"groundingChunks": [{"web": {"uri": "https://k.example"}}],
                "groundingSupports": supports}  # fmt: skip
    shaped = {"content": {"parts": [{"text": text}]}, "groundingMetadata": metadata}
    return {"candidates": [{"content": {"parts": [{"text": "x"}]}}] * candidate + [shaped]}


def test_support_paths_made_once_are_the_paths_of_the_supports() -> None:
    """The paths of the supports, made once per candidate and shared by the responses
    read after (as many as most responses have), are each support's own path, as the
    tolerant reader gives it: for a short response after a long one, for another
    candidate, one past those kept, more supports than are kept."""
    for candidate, count in [(0, 50), (2, 40), (0, 3), (0, 1030), (5, 40), (2, 1024), (1, 9)]:
        response = _supported(candidate, count)
        encoded = json.dumps(response, ensure_ascii=False)
        decoded = shape.decode(encoded)
        assert decoded is not None and shape.grounded(decoded, candidate) is not None  # fast
        grounded = read_json(encoded, candidate=candidate)
        with tolerant_only():
            assert grounded == read(response, candidate=candidate)
        assert [c.path for c in grounded.citations] == [
            f"candidates[{candidate}].grounding_metadata.grounding_supports[{i}]"
            for i in range(count)
        ]
