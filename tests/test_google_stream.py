"""The stream merger's fast path for the common chunk against its general code.

``Merger.add`` takes a short road for the chunk most of a stream is made of (one
candidate, one part of answer text, nothing else that merging keeps) and hands every
other chunk to ``Merger._add_general``. The two must agree: the oracle here is a
merger fed only through ``_add_general``, on random chunk sequences that mix common
chunks with every odd case (empty and non-empty metadata, citations, thought and
tool-call parts, several candidates, snake_case keys, bad indices, SDK objects).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_protos import StreamError
from grounding_protos._core.access import get
from grounding_protos._sources.google.gemini.merger import Candidate as _Candidate
from grounding_protos._sources.google.gemini.merger import Merger, _citation_key, _empty
from grounding_protos.citations import read_stream

Json = dict[str, Any]

ALPHABET = st.sampled_from([*"aé東 👍🏽ß€\n", "👨‍👩‍👧‍👦", ""])
TEXT = st.lists(ALPHABET, max_size=6).map("".join)


# --- Chunks ---------------------------------------------------------------------------------


@st.composite
def common_chunks(draw: st.DrawFn) -> Json:
    """The chunk most of a stream is made of, with the optional keys real streams add."""
    content: Json = {"parts": [{"text": draw(TEXT)}]}
    role = draw(st.sampled_from([None, "model", ""]))
    if role is not None:
        content["role"] = role
    candidate: Json = {"content": content}
    index = draw(st.sampled_from([None, None, 0, 1]))
    if index is not None:
        candidate["index"] = index
    for key, value in draw(
        st.lists(
            st.sampled_from(
                [
                    ("groundingMetadata", {}),
                    ("grounding_metadata", {}),
                    ("citationMetadata", {}),
                    ("urlContextMetadata", {}),
                    ("finishReason", ""),
                    ("finishMessage", None),
                    ("safetyRatings", [{"category": "HARM_CATEGORY_HATE_SPEECH"}]),
                    ("avgLogprobs", -0.5),
                ]
            ),
            max_size=3,
        )
    ):
        candidate[key] = value
    chunk: Json = {"candidates": [candidate]}
    for key, value in draw(
        st.lists(
            st.sampled_from(
                [
                    ("modelVersion", "gemini-test"),
                    ("modelVersion", ""),
                    ("modelVersion", None),
                    ("model_version", "snake"),
                    ("responseId", "r1"),
                    ("usageMetadata", {"promptTokenCount": 3, "totalTokenCount": 7}),
                    ("usageMetadata", {}),
                    ("usage_metadata", {"promptTokenCount": None}),
                    ("createTime", "2025-01-01T00:00:00Z"),
                ]
            ),
            max_size=3,
        )
    ):
        chunk[key] = value
    return chunk


def _citation(draw: st.DrawFn) -> Json:
    start = draw(st.integers(0, 6))
    item: Json = {"startIndex": start, "endIndex": start + draw(st.integers(0, 4))}
    uri = draw(st.sampled_from([None, "https://a.example", "https://b.example"]))
    if uri is not None:
        item["uri"] = uri
    if draw(st.booleans()):
        item["title"] = draw(st.sampled_from(["A", "B"]))
    return item


@st.composite
def odd_chunks(draw: st.DrawFn) -> Json:
    """A chunk that is not the common one, or one that looks almost like it."""
    kind = draw(
        st.sampled_from(
            [
                "metadata",
                "snake-metadata",
                "citations",
                "vertex-citations",
                "url-context",
                "finish",
                "thought",
                "call",
                "two-parts",
                "two-candidates",
                "part-with-signature",
                "string-index",
                "no-content",
                "empty-parts",
                "snake-chunk",
            ]
        )
    )
    base = draw(common_chunks())
    candidate: Json = base["candidates"][0]
    parts: list[Json] = candidate["content"]["parts"]
    if kind == "metadata":
        candidate["groundingMetadata"] = draw(
            st.sampled_from(
                [
                    {"webSearchQueries": ["q"]},
                    {"groundingSupports": [], "groundingChunks": []},
                    {
                        "groundingChunks": [{"web": {"uri": "https://w.example"}}],
                        "groundingSupports": [
                            {"segment": {"endIndex": 1}, "groundingChunkIndices": [0]}
                        ],
                    },
                ]
            )
        )
    elif kind == "snake-metadata":
        candidate["grounding_metadata"] = {"web_search_queries": ["q"]}
    elif kind in ("citations", "vertex-citations"):
        name = "citationSources" if kind == "citations" else "citations"
        cited = [_citation(draw) for _ in range(draw(st.integers(1, 3)))]
        if draw(st.booleans()):
            cited.append(dict(cited[0]))  # the same span twice in one chunk
        candidate["citationMetadata"] = {name: cited}
    elif kind == "url-context":
        candidate["urlContextMetadata"] = {"urlMetadata": [{"retrievedUrl": "https://u.example"}]}
    elif kind == "finish":
        candidate[draw(st.sampled_from(["finishReason", "finish_reason"]))] = "STOP"
        if draw(st.booleans()):
            candidate["finishMessage"] = "done"
    elif kind == "thought":
        parts[0]["thought"] = True
    elif kind == "call":
        parts[0] = {"functionCall": {"name": "f", "args": {}}}
    elif kind == "two-parts":
        parts.append(draw(st.sampled_from([{"text": "x"}, {"text": "t", "thought": True}])))
    elif kind == "two-candidates":
        other = {"index": 1, "content": {"parts": [{"text": draw(TEXT)}]}}
        candidate["index"] = 0
        base["candidates"].append(other)
    elif kind == "part-with-signature":
        parts[0]["thoughtSignature"] = "c2ln"
    elif kind == "string-index":
        candidate["index"] = draw(st.sampled_from(["1", 1.0, -1, True, "x"]))
    elif kind == "no-content":
        del candidate["content"]
    elif kind == "empty-parts":
        candidate["content"]["parts"] = []
    elif kind == "snake-chunk":
        base.pop("modelVersion", None)
        base["usage_metadata"] = {"total_token_count": 5}
    return base


CHUNKS = st.lists(
    st.one_of(common_chunks(), common_chunks(), odd_chunks()), min_size=1, max_size=12
)


# --- The oracle --------------------------------------------------------------------------------


def _state(candidate: _Candidate) -> Json:
    """Everything a candidate's state holds that merging decides."""
    return {
        "merged": candidate.merged(),
        "problems": candidate.problems,
        "fragments": candidate.fragments,
        "byte_starts": candidate.byte_starts,
        "char_starts": candidate.char_starts,
        "bytes": candidate.bytes,
        "chars": candidate.chars,
        "finish_reason": candidate.finish_reason,
        "grounding_event": candidate.grounding_event,
        "citation_events": candidate.citation_events,
        "citation_event": candidate.citation_event,
        "chunk_first_citation": candidate.chunk_first_citation,
    }


def _merge(chunks: list[object], *, general: bool, track: bool) -> Json:
    """What a merger holds after ``chunks`` (fed through ``add``, or only through its
    general code), with the texts of every chunk and the error that stopped it."""
    merger = Merger(track=track)
    texts: list[dict[int, str]] = []
    error = None
    for number, chunk in enumerate(chunks, 1):
        added: dict[int, str] = {}
        try:
            if general:
                merger._add_general(number, chunk, added)
            else:
                merger.add(number, chunk, added)
        except StreamError as exc:
            error = str(exc)
            break
        texts.append(added)
    return {
        "events": merger.events,
        "merged": merger.merged() if merger.candidates else None,
        "response": merger.response,
        "states": {i: _state(s) for i, s in merger.candidates.items()},
        "problems": [merger.stream_problems(i) for i in merger.candidates],
        "texts": texts,
        "error": error,
    }


def _agree(chunks: list[object]) -> None:
    for track in (False, True):
        assert _merge(chunks, general=False, track=track) == _merge(
            chunks, general=True, track=track
        )


# --- Tests ------------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CHUNKS)
def test_the_fast_path_merges_as_the_general_code(chunks: list[Json]) -> None:
    _agree(list(chunks))


@pytest.mark.filterwarnings("ignore:.* is not a valid:UserWarning")  # google-genai enums
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CHUNKS, st.data())
def test_sdk_objects_between_common_chunks(chunks: list[Json], data: st.DataObject) -> None:
    """google-genai objects and raw protobuf messages (never the fast path) in between."""
    import pydantic
    from google.ai import generativelanguage_v1beta as glm
    from google.genai import types
    from google.protobuf import json_format

    mixed: list[object] = []
    for chunk in chunks:
        form = data.draw(st.sampled_from(["dict", "dict", "genai", "raw"]))
        converted: object = chunk
        try:  # the chunks that the SDKs take (not both spellings of one field, ...)
            if form == "genai":
                converted = types.GenerateContentResponse.model_validate(chunk)
            elif form == "raw":
                cls = glm.GenerateContentResponse
                message = cls.from_json(json.dumps(chunk), ignore_unknown_fields=True)
                converted = cls.pb(message)
        except (pydantic.ValidationError, json_format.ParseError):
            pass
        mixed.append(converted)
    _agree(mixed)


COMMON: dict[str, Json] = {
    "gemini-api": {
        "candidates": [{"content": {"parts": [{"text": "東京"}], "role": "model"}, "index": 0}],
        "usageMetadata": {"promptTokenCount": 8, "totalTokenCount": 8},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "abc",
    },
    "vertex": {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "é"}]}, "groundingMetadata": {}}
        ],
        "modelVersion": "gemini-2.5-flash",
        "createTime": "2025-01-01T00:00:00Z",
        "responseId": "abc",
    },
    "bare": {"candidates": [{"content": {"parts": [{"text": ""}]}}]},
    "ignored-keys": {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "👍🏽"}]},
                "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT"}],
                "finishReason": "",
                "citationMetadata": {},
            }
        ]
    },
}


@pytest.mark.parametrize("shape", sorted(COMMON))
def test_the_common_chunks_take_the_fast_path(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Real streams' text chunks never reach the general code (which would cost 2x)."""
    merger = Merger()
    merger.add(1, {"candidates": [{"content": {"parts": [{"text": "a"}]}}]})

    def general(number: int, chunk: object, texts: dict[int, str] | None) -> None:
        raise AssertionError(f"chunk {number} took the general code")

    monkeypatch.setattr(merger, "_add_general", general)
    texts: dict[int, str] = {}
    merger.add(2, COMMON[shape], texts)
    part = COMMON[shape]["candidates"][0]["content"]["parts"][0]
    assert texts == {0: part["text"]}
    assert merger.merged()["candidates"][0]["content"]["parts"] == [{"text": "a" + part["text"]}]


@pytest.mark.parametrize(
    ("index", "message"),
    [(-1, "candidate index -1 is not a number"), (True, "candidate index True is not")],
)
def test_a_bad_index_in_a_common_chunk_is_still_an_error(index: object, message: str) -> None:
    chunks = [{"candidates": [{"content": {"parts": [{"text": "a"}]}, "index": index}]}]
    with pytest.raises(StreamError, match=f"event 1: {message}"):
        read_stream(chunks)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=2),
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner, max_size=2)
    ),
    max_leaves=6,
)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(["a", "promptTokenCount", "b"]), JSON_VALUES, max_size=3))
def test_a_metadata_dict_is_empty_when_every_value_is_blank(value: Json) -> None:
    """``None``, ``""``, ``[]`` and ``{}`` are blank; numbers and booleans (even 0) are not."""
    blank = [v is None or (isinstance(v, (str, list, dict)) and not v) for v in value.values()]
    assert _empty(value) is all(blank)


def _naive_key(item: object) -> tuple[object, ...]:
    """The citation key written out with ``_core.access.get`` field by field: scalars with
    their type, anything else by identity."""

    def part(value: object) -> object:
        if value is None or type(value) in (str, int, float, bool):
            return type(value).__name__, value
        return "object", id(value)

    def number(value: object) -> object:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and value.isdecimal() and value.isascii() and len(value) < 20:
            return int(value)
        return value

    date = get(item, "publication_date")
    if date is not None and not isinstance(date, str):
        date = (get(date, "year"), get(date, "month"), get(date, "day"))
    values = [number(get(item, "start_index")), number(get(item, "end_index"))]
    values += [get(item, name) or None for name in ("uri", "title", "license")]
    return (*map(part, values), tuple(map(part, date)) if type(date) is tuple else part(date))


CITATION_KEYS = st.sampled_from(
    ["startIndex", "start_index", "endIndex", "end_index", "uri", "title", "license",
     "publicationDate", "publication_date", "other"]
)  # fmt: skip
CITATION_VALUES = st.one_of(
    st.none(),
    st.integers(-2, 300),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "7", "12", "x", "https://a.example", "2024-05-01", True]),
    st.fixed_dictionaries(
        {}, optional={"year": st.integers(2000, 2030), "month": st.integers(1, 12)}
    ),
)


@given(st.dictionaries(CITATION_KEYS, CITATION_VALUES, max_size=6))
def test_the_citation_key_reads_each_field_as_get_does(item: Json) -> None:
    """Both spellings of a field, null values, numbers as text and dates as objects."""
    assert _citation_key(item) == _naive_key(item)


@pytest.mark.parametrize(
    "chunks",
    [
        [{"candidates": [{"content": {"parts": [{"text": "Grüße"}]}}]}, '{"candidates": []}'],
        [{"candidates": []}, {"error": {"code": 429, "message": "slow"}}],
        [{"candidates": [{"content": {"parts": [{"text": "a"}]}}]}, {"choices": []}],
        [{"candidates": [{"content": {"parts": [{"text": "a"}]}, "finishReason": "STOP"}]}],
    ],
)
def test_a_list_of_chunks_reads_as_any_iterable_of_them(chunks: list[object]) -> None:
    """``read_stream`` numbers a list's chunks itself; an iterator goes through
    ``stream_items``: the same result, or the same error naming the same event."""

    def outcome(stream: object) -> object:
        try:
            return read_stream(stream)
        except StreamError as exc:
            return (exc.event, str(exc))

    assert outcome(chunks) == outcome(iter(chunks)) == outcome(tuple(chunks))
