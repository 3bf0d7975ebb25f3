"""Anthropic's declared shape (``_sources/anthropic/shape.py``) and the fast path of
``read``: on generated messages, the same ``Grounded`` (or the same error) as the
tolerant reader, for every span policy; and the fast path taken on the messages it
models.

The messages are built like the Messages API's JSON (docs: the ``Message`` object, its
``text`` blocks with ``citations`` of the five location kinds, and the thinking,
tool use and web search blocks around them): mixed-script text blocks (German,
Japanese, Arabic, emoji and other astral characters), empty blocks, cited and not,
sources cited again and sources of other kinds that come out equal. Then some of them
are damaged: a value of the wrong JSON type, a camelCase key, a field the shape does
not declare, a lone surrogate, a str enum, a part that makes it an Assistants thread
message.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("msgspec")

from grounding_protos import ArgumentValueError
from grounding_protos._citations import fast
from grounding_protos._sources.anthropic import shape
from grounding_protos._sources.google.gemini import shape as gemini_shape
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
TITLES = [None, "", "Bericht über Köln", "東京の報告", "تقرير"]
CITED = [None, "", "Köln wächst.", "東京は首都です。", "القاهرة 🌍"]


@contextmanager
def tolerant_only() -> Iterator[None]:
    """``read`` without its fast paths: the tolerant reader."""
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


def _some(draw: st.DrawFn, out: dict[str, Any], name: str, values: list[Any]) -> None:
    """Field ``name`` set to one of ``values``, or left out."""
    if draw(st.booleans()):
        out[name] = draw(st.sampled_from(values))


@st.composite
def locations(draw: st.DrawFn) -> dict[str, Any]:
    """A citation of one of the five location kinds (from a small pool of values, so
    that sources are cited again, and a search result and a document location with
    no numbers come out equal)."""
    kind = draw(st.sampled_from([
        "web_search_result_location", "web_search_result_location", "char_location",
        "page_location", "content_block_location", "search_result_location",
        "future_location",
    ]))  # fmt: skip
    out: dict[str, Any] = {"type": kind}
    _some(draw, out, "cited_text", CITED)
    small = list(range(3))
    if kind == "web_search_result_location":
        u = draw(st.integers(0, 2))
        out["url"] = draw(st.sampled_from([f"https://quelle-{u}.example/köln-東京", "", None]))
        _some(draw, out, "title", TITLES)
        out["encrypted_index"] = f"Eo8BCioIBhgC{u}"
    elif kind == "search_result_location":
        _some(draw, out, "source", [None, "https://intranet.example/köln", "kb://東京"])
        _some(draw, out, "title", TITLES)
        for name in ("search_result_index", "start_block_index", "end_block_index"):
            _some(draw, out, name, small)
    else:
        _some(draw, out, "document_index", small)
        _some(draw, out, "document_title", TITLES)
        _some(draw, out, "file_id", [None, "file_011CNha8iCJcU1wXNR6q4V8w"])
        if kind == "char_location":
            _some(draw, out, "start_char_index", [0, 5, 12])
            _some(draw, out, "end_char_index", [12, 40])
        elif kind == "page_location":
            _some(draw, out, "start_page_number", [1, 2, 7])
            _some(draw, out, "end_page_number", [2, 3, 9])
        elif kind == "content_block_location":
            _some(draw, out, "start_block_index", small)
            _some(draw, out, "end_block_index", small)
    return out


@st.composite
def blocks(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from([
        "text", "text", "cited", "cited", "cited", "empty", "thinking", "redacted",
        "tool_use", "server_tool_use", "web_search_result",
    ]))  # fmt: skip
    if kind in ("text", "cited", "empty"):
        text = (
            ""
            if kind == "empty"
            else "".join(draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=3)))
        )
        block: dict[str, Any] = {"type": "text", "text": text}
        if kind == "cited" or (kind == "empty" and draw(st.booleans())):
            block["citations"] = draw(st.lists(locations(), min_size=1, max_size=3))
            if kind == "empty" and draw(st.booleans()):
                block["text"] = draw(st.sampled_from([None, "absent"]))  # read as ""
                if block["text"] == "absent":
                    del block["text"]
        elif draw(st.booleans()):
            block["citations"] = draw(st.sampled_from([None, []]))  # model_dump(): None
        return block
    if kind == "thinking":
        return {"type": "thinking", "thinking": draw(st.sampled_from(PIECES)),
                "signature": "EqQBCgIYAhIM"}  # fmt: skip
    if kind == "redacted":
        return {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}
    if kind == "tool_use":
        return {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "wetter",
                "input": {"ort": "Köln", "text": "東京"}}  # fmt: skip
    if kind == "server_tool_use":
        return {"type": "server_tool_use", "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
                "name": "web_search", "input": {"query": "Kölner Dom Höhe"}}  # fmt: skip
    return {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
            "content": [{"type": "web_search_result", "url": "https://quelle-0.example",
                         "title": "Köln", "encrypted_content": "EqgfCioIARgBIiQ3",
                         "page_age": None}]}  # fmt: skip


@st.composite
def messages(draw: st.DrawFn) -> tuple[dict[str, Any], bool]:
    """A Messages API ``Message`` dict, and whether the declared shape models it."""
    message: dict[str, Any] = {
        "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": draw(st.lists(blocks(), max_size=8)),
    }
    _some(draw, message, "stop_reason", [None, "end_turn", "max_tokens", "pause_turn", ""])
    if draw(st.booleans()):
        message["stop_sequence"] = None
        message["usage"] = {"input_tokens": 2095, "output_tokens": 503,
                            "server_tool_use": {"web_search_requests": 1}}  # fmt: skip
    if draw(st.booleans()):
        message["container"] = None  # as model_dump() gives it
    damaged = draw(st.integers(0, 2)) == 0
    if damaged:
        _damage(draw, message)
    return message, not damaged


class Reason(enum.StrEnum):  # str enums, as a dict converted from an SDK's objects may hold
    END_TURN = "end_turn"


class Kind(enum.StrEnum):
    TEXT = "text"


def _damage(draw: st.DrawFn, message: dict[str, Any]) -> None:
    content = message["content"]
    texts = [b for b in content if b.get("type") == "text"]
    cites = [c for b in texts for c in b.get("citations") or ()]
    how = draw(st.sampled_from([
        "wrong-type", "camel", "unknown", "surrogate", "thread", "enum", "not-a-block",
        "no-type", "not-a-message",
    ]))  # fmt: skip
    value = draw(st.sampled_from(["3", True, 1.5, 7, {"a": 1}, [1], None]))
    if how == "wrong-type":
        where = draw(st.sampled_from(["text", "citations", "number", "string", "page",
                                      "stop", "type", "location"]))  # fmt: skip
        if where == "text" and texts:
            draw(st.sampled_from(texts))["text"] = value
        elif where == "citations" and texts:
            draw(st.sampled_from(texts))["citations"] = value
        elif where == "number" and cites:
            draw(st.sampled_from(cites))[
                draw(st.sampled_from(["document_index", "search_result_index", "start_char_index"]))
            ] = value
        elif where == "string" and cites:
            draw(st.sampled_from(cites))[
                draw(st.sampled_from(["url", "title", "cited_text", "source", "file_id"]))
            ] = value
        elif where == "page" and cites:
            location = draw(st.sampled_from(cites))
            location.update(type="page_location", start_page_number=value, end_page_number=3)
        elif where == "stop":
            message["stop_reason"] = value
        elif where == "type" and content:
            draw(st.sampled_from(content))["type"] = value
        elif where == "location" and texts:
            draw(st.sampled_from(texts))["citations"] = [value]
    elif how == "camel":
        if draw(st.booleans()) and cites:
            location = draw(st.sampled_from(cites))
            location["citedText"] = location.pop("cited_text", "Köln")
        else:
            message["stopReason"] = message.pop("stop_reason", "end_turn")
    elif how == "unknown":
        if draw(st.booleans()) and cites:
            draw(st.sampled_from(cites))["added_later"] = "東京"
        else:
            message["added_later"] = {"ort": "Köln"}
    elif how == "surrogate" and texts:
        block = draw(st.sampled_from(texts))
        block["text"] = (block.get("text") or "") + "\ud83d"  # half of an emoji
    elif how == "thread":  # a part as Assistants' threads have it: their reader's
        content.insert(draw(st.integers(0, len(content))),
                       {"type": "text", "text": {"value": "Köln", "annotations": []}})  # fmt: skip
    elif how == "enum":
        message["stop_reason"] = Reason.END_TURN
        if texts:
            draw(st.sampled_from(texts))["type"] = Kind.TEXT
    elif how == "not-a-block":
        content.insert(draw(st.integers(0, len(content))), value)
    elif how == "no-type" and content:
        draw(st.sampled_from(content)).pop("type", None)
    elif how == "not-a-message":
        message["type"] = draw(st.sampled_from(["msg", None, 1]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages(), st.sampled_from(["repair", "skip", "strict"]), st.sampled_from([0, 0, 1]))
def test_the_fast_path_gives_what_the_tolerant_reader_gives(
    case: tuple[dict[str, Any], bool], errors: str, candidate: int
) -> None:
    message, clean = case
    with tolerant_only():
        expected = outcome(lambda: read(message, errors=errors, candidate=candidate))  # type: ignore[arg-type]
    assert outcome(lambda: read(message, errors=errors, candidate=candidate)) == expected  # type: ignore[arg-type]
    try:
        text = json.dumps(message, ensure_ascii=False)
    except (TypeError, ValueError):
        return  # not JSON (a value json.dumps refuses): read(dict) only
    if "\ud83d" not in text:  # a lone surrogate is no JSON text msgspec and json agree on
        assert outcome(lambda: read_json(text, errors=errors)) == expected  # type: ignore[arg-type]
    if clean:  # what the declared shape models: read the fast way, not by falling back
        assert expected[0] == "ok"
        converted = shape.convert(message)
        assert converted is not None
        assert shape.grounded(converted, candidate) == expected[1]
        decoded = shape.decode(text.encode())
        assert decoded is not None
        assert shape.grounded(decoded, candidate) == expected[1]


def _web(u: int, cited: str = "Köln wächst.") -> dict[str, Any]:
    return {"type": "web_search_result_location", "url": f"https://quelle-{u}.example",
            "title": f"Quelle {u}", "cited_text": cited, "encrypted_index": f"e{u}"}  # fmt: skip


def test_the_spans_are_the_cited_blocks_in_bytes_and_characters() -> None:
    """Against a naive oracle: each cited block's characters and UTF-8 bytes in the
    joined text, found by encoding the text before it."""
    content: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": "Köln?", "signature": "s"},
        {"type": "text", "text": "Laut 👍🏽 Bericht: "},
        {"type": "text", "text": "東京は首都です。", "citations": [_web(0), _web(1)]},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
        {"type": "text", "text": ""},
        {"type": "text", "text": " مرحبا \U0001d518 ", "citations": None},
        {"type": "text", "text": "Straße.", "citations": [_web(0)]},
        {"type": "text", "text": "", "citations": [_web(2)]},
    ]
    message = {"type": "message", "role": "assistant", "content": content}
    grounded = read(message)
    texts = [b["text"] for b in content if b["type"] == "text"]
    joined = "".join(texts)
    assert grounded.text == joined
    want = []
    for i, block in enumerate(content):
        if block.get("citations"):
            before = "".join(b["text"] for b in content[:i] if b["type"] == "text")
            start, end = len(before), len(before) + len(block["text"])
            want.append((len(joined[:start].encode()), len(joined[:end].encode()), start, end,
                         block["text"], f"content[{i}]"))  # fmt: skip
    got = [(c.start, c.end, c.char_start, c.char_end, c.text, c.path) for c in grounded.citations]
    assert got == want
    # a source cited again is the same Source, on both paths
    assert grounded.citations[0].sources[0] is grounded.citations[1].sources[0]
    assert [s.uri for s in grounded.declared_sources] == [
        "https://quelle-0.example",
        "https://quelle-1.example",
        "https://quelle-2.example",
    ]
    with tolerant_only():
        assert read(message) == grounded


def test_equal_sources_of_two_kinds_are_one_source() -> None:
    """A search result and a document location with the same title and cited text and
    no numbers make equal sources: one declared source, shared, as the reader's table
    keeps it."""
    search = {"type": "search_result_location", "title": "Köln", "cited_text": "東京"}
    document = {"type": "content_block_location", "document_title": "Köln",
                "cited_text": "東京"}  # fmt: skip
    message = {"type": "message", "content": [
        {"type": "text", "text": "Köln wächst.", "citations": [search]},
        {"type": "text", "text": " 東京も。", "citations": [document]},
    ]}  # fmt: skip
    grounded = read(message)
    assert len(grounded.declared_sources) == 1
    assert grounded.citations[0].sources[0] is grounded.citations[1].sources[0]
    with tolerant_only():
        assert read(message) == grounded


def test_unit_is_refused_on_both_paths() -> None:
    """Anthropic's spans are whole blocks: any ``unit=``, ``"byte"`` too, is an error
    (the fast path is not taken with a unit)."""
    message = {"type": "message", "content": [{"type": "text", "text": "Köln",
                                               "citations": [_web(0)]}]}  # fmt: skip
    for unit in ("byte", "char", "utf16"):
        with pytest.raises(ArgumentValueError, match="does not apply to anthropic_message"):
            read(message, unit=unit)


def test_a_message_is_read_the_fast_way() -> None:
    """A clean message does not reach the tolerant reader (its dispatch is not even asked
    to read it)."""
    message = {"type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "Grüße aus "},
        {"type": "text", "text": "東京", "citations": [_web(0), _web(0, "")]},
    ], "stop_reason": "end_turn"}  # fmt: skip
    with tolerant_only():
        expected = read(message)
    with mock.patch("grounding_protos._citations.read.read_input", side_effect=AssertionError):
        assert read(message) == expected
    assert expected.finish_reason == "end_turn" and expected.problems == []
    assert [s.text for s in expected.declared_sources] == ["Köln wächst.", None]


def test_a_thread_message_among_anthropic_blocks_is_still_one() -> None:
    """Dispatch passes over the string-text blocks without a call; a part of an
    Assistants thread message after 300 of them still makes the input one."""
    content: list[Any] = [{"type": "text", "text": "Köln "} for _ in range(300)]
    content.append({"type": "text", "text": {"value": "東京", "annotations": []}})
    message = {"type": "message", "role": "assistant", "content": content}
    assert read(message).shape == "openai_thread_message"
    assert read(message | {"content": content[:-1]}).shape == "anthropic_message"


def test_the_sdks_model_dump_is_read_the_fast_way() -> None:
    """``Message.model_dump()`` of the anthropic SDK (every optional field present, as
    ``None``) is what the declared shape models; so is its JSON mode."""
    types = pytest.importorskip("anthropic.types", reason="vendors test extra")
    message = {"id": "msg_01", "type": "message", "role": "assistant",
               "model": "claude-sonnet-4-5", "stop_reason": "end_turn", "stop_sequence": None,
               "usage": {"input_tokens": 9, "output_tokens": 90}, "content": [
        {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
         "input": {"query": "Köln"}},
        {"type": "text", "text": "Laut 👍🏽 Bericht: "},
        {"type": "text", "text": "東京は首都です。", "citations": [_web(0), _web(1)]},
        {"type": "text", "text": "Straße.", "citations": [_web(0)]},
    ]}  # fmt: skip
    sdk = types.Message.model_validate(message)
    for dumped in (sdk.model_dump(), sdk.model_dump(mode="json")):
        converted = shape.convert(dumped)
        assert converted is not None
        with tolerant_only():
            expected = read(dumped)
        assert shape.grounded(converted, 0) == read(dumped) == expected == read(message)
        assert [c.text for c in expected.citations] == ["東京は首都です。", "Straße."]


def test_the_readers_that_share_anthropics_top_level_keys() -> None:
    """``read_json`` decodes a message into the declared shape without asking the
    dispatcher: sound while the only reader tried before Anthropic's on those keys is
    Assistants' thread message's, whose text parts (objects) and ``object`` key the
    declared message refuses; and while Gemini's declared response, tried first, shares
    none of its keys."""
    top = {f.encode_name for f in msgspec.structs.fields(shape.Message)}
    place = next(k for k, r in enumerate(READERS) if r.shape == "anthropic_message")
    before = {READERS[i].shape for key in top for i in _BY_KEY.get(key, ()) if i < place}
    assert before == {"openai_thread_message"}
    assert top.isdisjoint(gemini_shape.TOP_LEVEL)
    part = {"type": "text", "text": {"value": "Köln", "annotations": []}}
    thread = {"type": "message", "role": "assistant", "content": [part]}
    assert shape.decode(json.dumps(thread)) is None
    assert shape.decode(json.dumps({"object": "thread.message", "type": "message",
                                    "content": []})) is None  # fmt: skip
    assert read_json(json.dumps(thread)).shape == "openai_thread_message"


def test_read_json_decodes_a_message_without_parsing_it_first() -> None:
    message = {"type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "Grüße aus "},
        {"type": "text", "text": "東京 🗼", "citations": [_web(0)]},
    ]}  # fmt: skip
    with tolerant_only():
        expected = read(message)
    with (
        mock.patch.object(fast, "loads", side_effect=AssertionError),
        mock.patch.object(fast, "read_dict", side_effect=AssertionError),
    ):
        assert read_json(json.dumps(message, ensure_ascii=False).encode()) == expected
