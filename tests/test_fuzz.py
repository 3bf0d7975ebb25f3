"""Fuzzing every entry point that takes outside data, as properties across them.

Each test feeds hostile input to one entry point and follows whatever it accepts
through the rest of the package:

- wire bytes -> ``from_bytes`` of every type -> a message or ``WireFormatError``;
  every decoded message -> ``validate`` never raises, ``read``/``extract`` raise
  only the package's own errors, agree with ``validate`` on what is fatal, and
  ``render`` of what they return never changes a character of the text;
- JSON text (invalid UTF-8, deep nesting, huge numbers, NaN literals, duplicate
  keys) -> ``codec.from_json`` raises only ``JSONParseError``;
- JSON-like dicts (from random messages, then spoiled) -> ``validate``/``extract``;
- offsets: random ints, texts, ``snap`` and ``clamp`` -> ``OffsetError`` or
  ``ArgumentTypeError`` only;
- the command line's readers, in-process, on random files -> exit status 0, 1 or
  2 and one clean line on stderr, never a traceback nor an "internal error".

The per-entry-point fuzz tests of the other test modules (diagnosis against
protobuf, codec against json_format, offsets against a naive oracle) are not
repeated here. ``FUZZ_SCALE`` multiplies the number of examples (default 1: the
module runs in well under 40 s); ``fuzz/`` holds the coverage-guided harnesses.
"""

from __future__ import annotations

import base64
import dataclasses
import html
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import text_format
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_protos import (
    ArgumentTypeError,
    CitationError,
    GroundingProtosError,
    JSONParseError,
    OffsetError,
    Problem,
    TextEncodingError,
    UnsupportedInputError,
    WireFormatError,
    codec,
    from_bytes,
    message_class,
    message_types,
    offsets,
    validate,
)
from grounding_protos._core.resolve import FATAL
from grounding_protos._render.markdown_html import plain_html
from grounding_protos.citations import Grounded, read, render, source_list
from grounding_protos.cli import main
from grounding_protos.discoveryengine_v1 import Answer
from grounding_protos.offsets import PartMap, TextIndex
from tests.strategies import JSON, any_message

SCALE = float(os.environ.get("FUZZ_SCALE", "1"))
CLASSES: list[type[Message]] = [message_class(name) for name in message_types()]
HUGE = 10**5000  # more digits than str(int) converts (sys.get_int_max_str_digits())


def fuzz(examples: int) -> Callable[[Any], Any]:
    """Hypothesis settings for a fuzz test: ``examples`` times FUZZ_SCALE, no deadline."""
    return settings(
        max_examples=max(1, round(examples * SCALE)),
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.function_scoped_fixture,
        ],
    )


# --- Strategies ----------------------------------------------------------------------------

# Texts with every kind of character: ASCII, accents, CJK, emoji, lone surrogates.
ANY_TEXT = st.text(st.characters(), max_size=20)
GOOD_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
# An offset from anywhere: near the texts' lengths, far out, or past str()'s digit limit.
OFFSET = st.one_of(
    st.integers(-3, 30),
    st.integers(-(2**70), 2**70),
    st.sampled_from([HUGE, -HUGE, 2**63, -(2**63) - 1]),
)
NOT_AN_OFFSET = st.one_of(st.none(), st.floats(), st.text(max_size=3), st.booleans())


@st.composite
def mutated(draw: st.DrawFn, data: bytes, junk: st.SearchStrategy[bytes]) -> bytes:
    """``data`` with a few bytes flipped, inserted, deleted, or truncated."""
    out = bytearray(data)
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "splice"]))
        at = draw(st.integers(0, len(out)))
        if op == "flip" and at < len(out):
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "insert":
            out[at:at] = draw(junk)
        elif op == "delete":
            del out[at : at + draw(st.integers(1, 8))]
        elif op == "truncate":
            del out[at:]
        elif op == "splice":
            out[at:at] = out[: draw(st.integers(0, len(out)))]
    return bytes(out)


@st.composite
def wire_cases(draw: st.DrawFn) -> tuple[type[Message], bytes]:
    """A message type and bytes: random, or another message's bytes, spoiled."""
    cls = draw(st.sampled_from(CLASSES))
    if draw(st.booleans()):
        return cls, draw(st.binary(max_size=200))
    source = draw(st.one_of(any_message(), st.just(cls()), st.sampled_from(CLASSES).map(
        lambda c: c())))  # fmt: skip
    data = source.SerializeToString()
    return cls, draw(mutated(data, st.binary(min_size=1, max_size=6)))


# JSON tokens that json.loads reads but that strain a reader.
SPECIAL_VALUES = [
    "NaN", "Infinity", "-Infinity", "1e400", "-1e400", "-0", "0.0", "1.5", "1E2",
    "9" * 4400, "-" + "9" * 5000, "123456789012345678901234567890", "true", "null",
    '"NaN"', '"-Infinity"', '"1e400"', '"' + "9" * 5000 + '"', '"\\ud800"', '"\\udfff\\ud800"',
    '"\\u0000"', "[]", "{}", '[{"a": 1}]', '{"a": 1, "a": 2}', '"2025-13-45T99:99:99Z"',
    '"1s"', '"AAAA"', '"=="', "[" * 200 + "]" * 200, '{"x":' * 150 + "1" + "}" * 150,
]  # fmt: skip
SPECIAL = st.sampled_from(SPECIAL_VALUES)
VALUE_AT = re.compile(r'(?<=: )(?:"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null)')


@st.composite
def json_documents(draw: st.DrawFn) -> tuple[type[Message], str | bytes]:
    """A type and JSON text for it: a message's JSON with values swapped for hostile
    tokens, keys duplicated, bytes spoiled, or a document built from nothing."""
    cls = draw(st.sampled_from(CLASSES))
    kind = draw(st.sampled_from(["message", "message", "built", "bytes", "deep"]))
    if kind == "bytes":
        return cls, draw(st.binary(max_size=80))
    if kind == "deep":
        depth = draw(st.integers(1, 3000))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}"), ('{"citations":', "}")]))
        return cls, opener * depth + draw(SPECIAL) + closer * draw(st.integers(0, depth))
    if kind == "built":
        tree = draw(st.dictionaries(st.text(max_size=6), JSON, max_size=4))
        return cls, json.dumps(tree)
    message = draw(st.one_of(any_message(), st.sampled_from(CLASSES).map(lambda c: c())))
    names = draw(st.booleans())
    text = codec.to_json(message, indent=None, preserving_proto_field_name=names)
    matches = list(VALUE_AT.finditer(text))
    for _ in range(draw(st.integers(0, 3)) if matches else 0):
        match = draw(st.sampled_from(matches))
        text = text[: match.start()] + draw(SPECIAL) + text[match.end() :]
        matches = list(VALUE_AT.finditer(text))
        if not matches:
            break
    if draw(st.booleans()) and text.startswith("{") and len(text) > 2:
        first_key = text[1 : text.find(":") + 1] if text[1] == '"' else ""
        if first_key:
            text = "{" + first_key + " 1, " + text[1:]  # a duplicate key
    if draw(st.booleans()):
        junk = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\\", b'"', b"{", b"]", b",", b"NaN"]
        data = draw(mutated(text.encode("utf-8"), st.sampled_from(junk)))
        return cls, data if draw(st.booleans()) else data.decode("utf-8", "surrogateescape")
    return cls, text


def _spoil(value: Any, draw: st.DrawFn, depth: int = 0) -> Any:
    """``value`` (a JSON dict from ``to_dict``) with some leaves swapped for hostile ones."""
    if isinstance(value, dict):
        return {k: _spoil(v, draw, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_spoil(v, draw, depth + 1) for v in value]
    if draw(st.integers(0, 5)) == 0:
        return draw(st.one_of(
            st.sampled_from([float("nan"), float("inf"), -1, HUGE, -HUGE, True, None, "",
                             "9" * 5000, "-0", "1.0", [], {}, [None], 2**64]),
            st.floats(), st.integers(), st.text(max_size=4), JSON,
        ))  # fmt: skip
    return value


@st.composite
def json_dicts(draw: st.DrawFn) -> Any:
    """A grounded answer as a Python value: a random message's JSON dict, spoiled, or a
    random tree keyed by the field names the readers look for."""
    if draw(st.booleans()):
        message = draw(any_message())
        data = codec.to_dict(message, preserving_proto_field_name=draw(st.booleans()))
        data = _spoil(data, draw)
        wrap = draw(st.sampled_from(["", "answer", "candidates", "groundingMetadata"]))
        if wrap == "answer":
            data = {"answer": data}
        elif wrap == "candidates":
            data = {"candidates": [{"content": {"parts": [{"text": draw(GOOD_TEXT)}]},
                                    "groundingMetadata": data}]}  # fmt: skip
        elif wrap == "groundingMetadata":
            data = {"groundingMetadata": data}
        return data
    return draw(st.dictionaries(
        st.sampled_from(["answerText", "citations", "candidates", "groundingSupports",
                         "citationSources", "answer", "references", "groundingChunks",
                         "content", "groundingMetadata", "citationMetadata"]),
        JSON, min_size=1, max_size=5,
    ))  # fmt: skip


# --- Checks shared by the tests ----------------------------------------------------------


def check_downstream(obj: object, text: str | bytes | None = None, candidate: int = 0) -> None:
    """What must hold for anything a reader accepted: validate never raises, read
    raises only the package's errors and agrees with validate, render keeps the text."""
    problems = validate(obj, text=text, candidate=candidate)
    assert all(isinstance(p, Problem) and p.code and isinstance(p.message, str) for p in problems)
    if text is None or (isinstance(text, str) and _has_utf8(text)):
        # "invalid-text" is validate's last resort for an error it did not foresee
        assert not [p for p in problems if p.code == "invalid-text"], problems
    fatal = [p for p in problems if p.code in FATAL or p.code == "invalid-text"]
    try:
        grounded = read(obj, text=text, candidate=candidate)
    except UnsupportedInputError:
        assert not fatal, fatal
        return
    except (CitationError, OffsetError, TextEncodingError) as exc:
        assert fatal, f"read raised {exc!r} but validate found nothing fatal: {problems}"
        return
    assert not fatal, f"read succeeded but validate found {fatal}"
    check_grounded(grounded)


def _has_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


CODE = re.compile(r"<code[^>]*>(.*?)</code>", re.DOTALL)


def check_grounded(grounded: Grounded) -> None:
    """Citations consistent with the text; every rendering gives the text back."""
    text = grounded.text
    for c in grounded.citations:
        assert 0 <= c.start <= c.end
        if text is not None:
            index = TextIndex(text)
            assert index.to_char_span(c.start, c.end) == (c.char_start, c.char_end)
            assert c.text == text[c.char_start : c.char_end]
    if text is None:
        return
    # a citation of a marker in the text (Perplexity's [1]) gives the marker's place to
    # the style's (issue 33): the checks that the text comes back read it as a citation
    citations = [
        dataclasses.replace(c, kind="citation") if c.kind == "marker" else c
        for c in grounded.citations
    ]
    for footnotes in (False, True):  # Markdown: markers moved out of code and links
        assert isinstance(render(text, grounded.citations, footnotes=footnotes), str)
    assert isinstance(render(text, grounded.citations, "html"), str)
    assert render(text, citations, lambda pairs: "") == text
    mark = next(ch for ch in "\x00\x01\ue000\U0010fffd|#" if ch not in text)
    marked = render(text, citations, lambda pairs: mark + ",".join(str(n) for n, _ in pairs) + mark)
    assert re.sub(f"{re.escape(mark)}[0-9,]*{re.escape(mark)}", "", marked) == text
    for highlight in (False, True):
        page = render(text, citations, "html", highlight=highlight, raw_text=True)
        page = re.sub(r'<sup class="gp-cite">.*?</sup>', "", page, flags=re.DOTALL)
        page = re.sub(r"</?mark\b[^>]*>", "", page)
        assert html.unescape(page) == text
        # the Markdown view: exactly what markdown-it-py renders, markers and marks aside;
        # no marker inside code, and nothing of the answer loads (its images are links)
        view = render(text, citations, "html", highlight=highlight)
        unmarked = re.sub(r"</?mark\b[^>]*>", "", view)
        bare = re.sub(r'<sup class="gp-cite">.*?</sup>', "", unmarked, flags=re.DOTALL)
        assert bare == plain_html(text)
        assert CODE.findall(unmarked) == CODE.findall(bare)
        assert "<img" not in view
    for style in ("markdown", "plain", "html"):
        assert isinstance(source_list(text, citations, style), str)


# --- Wire bytes ----------------------------------------------------------------------------


@fuzz(400)
@given(wire_cases(), st.one_of(st.none(), GOOD_TEXT))
def test_wire_bytes_of_every_type_decode_or_raise_wire_format_error(
    case: tuple[type[Message], bytes], text: str | None
) -> None:
    cls, data = case
    try:
        message = from_bytes(cls, data)
    except WireFormatError as exc:
        assert isinstance(exc, GroundingProtosError)
        assert exc.type_name == cls.DESCRIPTOR.full_name and str(exc)
        return
    assert isinstance(message, cls)
    assert from_bytes(cls, message.SerializeToString()) == message
    check_downstream(message, text)


@fuzz(40)
@given(st.sampled_from(CLASSES), st.integers(90, 400), st.booleans())
def test_deep_nesting_on_the_wire_is_an_error_not_a_crash(
    cls: type[Message], depth: int, as_group: bool
) -> None:
    """Length-delimited unknown fields (or groups) nested far past protobuf's limit."""
    if as_group:
        data = b"\xfb\x07" * depth + b"\xfc\x07" * depth  # group 127, start/end
    else:
        data = b""
        for _ in range(depth):
            data = b"\xfa\x07" + _varint(len(data)) + data
    try:
        message = from_bytes(cls, data)
    except WireFormatError:
        return
    check_downstream(message)


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


# --- JSON text -----------------------------------------------------------------------------


@fuzz(400)
@given(json_documents(), st.booleans(), st.sampled_from([100, 100, 5, 1, 0]))
def test_json_text_parses_or_raises_json_parse_error(
    case: tuple[type[Message], str | bytes], ignore_unknown: bool, max_depth: int
) -> None:
    cls, text = case
    try:
        message = codec.from_json(
            cls, text, ignore_unknown_fields=ignore_unknown, max_recursion_depth=max_depth
        )
    except JSONParseError as exc:
        assert isinstance(exc, GroundingProtosError) and str(exc)
        return
    assert isinstance(message, cls)
    check_downstream(message)


# --- JSON-like dicts -----------------------------------------------------------------------


@fuzz(300)
@given(
    json_dicts(),
    st.one_of(st.none(), ANY_TEXT, st.binary(max_size=12)),
    st.one_of(st.just(0), st.integers(0, 3)),
)
def test_dicts_validate_never_raises_read_raises_only_own_errors(
    body: Any, text: str | bytes | None, candidate: int
) -> None:
    check_downstream(body, text, candidate)


@fuzz(200)
@given(json_dicts(), st.sampled_from([None, "floor", "ceil", "outward"]), st.booleans())
def test_lenient_read_raises_only_own_errors(body: Any, snap: Any, clamp: bool) -> None:
    try:
        grounded = read(body, snap=snap, clamp=clamp)
    except GroundingProtosError:
        return
    check_grounded(grounded)


@pytest.mark.parametrize("clamp", [False, True])
def test_negative_offsets_without_a_text_are_out_of_range(clamp: bool) -> None:
    """Regression: with no text to check against, a negative start came back as is."""
    body = {"citationSources": [{"startIndex": -1, "endIndex": 3, "uri": "https://u"}]}
    if clamp:
        assert [(c.start, c.end) for c in read(body, clamp=True).citations] == [(0, 3)]
        return
    with pytest.raises(OffsetError, match=r"citation_sources\[0\]\.start_index: byte offset -1"):
        read(body)
    assert [p.code for p in validate(body)] == ["offset-out-of-range", "text-missing"]


@pytest.mark.parametrize(
    ("body", "fatal"),
    [
        ({"answerText": "x", "citations": [{"endIndex": HUGE}]}, True),
        ({"answerText": "x", "citations": [{"startIndex": -HUGE, "endIndex": 1}]}, True),
        ({"answerText": "x", "citations": [{"startIndex": HUGE, "endIndex": -HUGE}]}, True),
        ({"answerText": "x", "citations": [{"endIndex": [HUGE]}]}, True),
        ({"answerText": "x", "citations": [{"endIndex": "9" * 5000}]}, True),
        ({"answerText": "x", "citations": [{"endIndex": 1,
                                            "sources": [{"referenceId": "9" * 5000}]}]}, True),
        ({"answerText": "x", "citations": [{"endIndex": 1,
                                            "sources": [{"referenceId": HUGE}]}]}, True),
        ({"answerText": "x", "groundingScore": HUGE}, False),
        ({"answerText": "x", "groundingScore": [HUGE]}, False),
        ({"answerText": "x", "citations": [{"endIndex": 1}], "references": [
            {"chunkInfo": {"relevanceScore": -HUGE}}]}, False),
        ({"candidates": [{"content": {"parts": [{"text": "ab"}]}, "groundingMetadata": {
            "groundingChunks": [{}], "groundingSupports": [
                {"segment": {"endIndex": 1}, "groundingChunkIndices": [0],
                 "confidenceScores": [HUGE]},
                {"segment": {"endIndex": 1, "partIndex": HUGE}, "groundingChunkIndices": [0]},
            ]}}]}, True),
        ({"candidates": [{"content": {"parts": [{"text": "ab"}]}, "groundingMetadata": {
            "groundingChunks": [{}], "groundingSupports": [
                {"segment": {"endIndex": 1}, "groundingChunkIndices": [HUGE]}]}}]}, True),
    ],
)  # fmt: skip
def test_integers_too_long_to_print_are_reported(body: dict[str, Any], fatal: bool) -> None:
    """Regression: ints past str()'s digit limit (and past float's range) raised
    ValueError/OverflowError from read, validate and the messages naming them."""
    problems = validate(body)
    assert problems and not [p for p in problems if p.code == "invalid-text"], problems
    ours = [p for p in problems if p.code != "invalid-json-value"]  # json_format's words
    assert ours and all("Exceeds the limit" not in p.message for p in ours), ours
    if fatal:
        with pytest.raises((CitationError, OffsetError)):
            read(body)
    else:
        check_grounded(read(body))


def test_offsets_name_integers_too_long_to_print() -> None:
    index = TextIndex("aé")
    with pytest.raises(OffsetError, match=r"byte offset <a 16610-bit integer> is past the end"):
        index.to_char(HUGE)
    with pytest.raises(OffsetError, match=r"span \(<a 16610-bit .*, -<a 16610-bit .*reversed"):
        index.slice(HUGE, -HUGE, clamp=True)
    with pytest.raises(OffsetError, match=r"part index <a 16610-bit integer> is out of range"):
        PartMap(["a"]).bounds(HUGE)
    with pytest.raises(ArgumentTypeError, match=r"not tuple <a tuple too large to show>"):
        index.to_char((HUGE,))  # type: ignore[arg-type]


# --- Offsets -------------------------------------------------------------------------------

OFFSET_ERRORS = (OffsetError, ArgumentTypeError)


def _offset_calls(
    index: TextIndex, a: Any, b: Any, many: list[Any], snap: Any, span_snap: Any, clamp: bool
) -> Iterator[Callable[[], object]]:
    yield lambda: index.to_char(a, snap=snap, clamp=clamp)
    yield lambda: index.to_byte(a, snap=snap, clamp=clamp)
    yield lambda: index.to_utf16(a, snap=snap, clamp=clamp)
    yield lambda: index.from_utf16(a, snap=snap, clamp=clamp)
    yield lambda: index.to_chars(many, snap=snap, clamp=clamp)
    yield lambda: index.from_utf16s(many, snap=snap, clamp=clamp)
    yield lambda: index.convert_many(many, "utf16", "byte", snap=snap, clamp=clamp)
    yield lambda: index.slice(a, b, snap=span_snap, clamp=clamp)
    yield lambda: index.to_byte_span(a, b, snap=span_snap, clamp=clamp)
    yield lambda: index.from_utf16_span(a, b, snap=span_snap, clamp=clamp)
    yield lambda: index.convert_spans([(a, b), (b, a)], "byte", "utf16", snap=span_snap,
                                      clamp=clamp)  # fmt: skip
    yield lambda: offsets.byte_to_char(index.text, a, snap=snap, clamp=clamp)
    yield lambda: offsets.utf16_to_byte(index.text, a, snap=snap, clamp=clamp)
    yield lambda: offsets.byte_slice(index.text, a, b, snap=span_snap, clamp=clamp)


@fuzz(300)
@given(
    ANY_TEXT,
    st.one_of(OFFSET, NOT_AN_OFFSET),
    st.one_of(OFFSET, NOT_AN_OFFSET),
    st.lists(st.one_of(OFFSET, OFFSET, NOT_AN_OFFSET), max_size=5),
    st.sampled_from([None, "floor", "ceil"]),
    st.sampled_from([None, "floor", "ceil", "outward"]),
    st.booleans(),
)
def test_offsets_raise_only_offset_and_argument_errors(
    text: str, a: Any, b: Any, many: list[Any], snap: Any, span_snap: Any, clamp: bool
) -> None:
    try:
        index = TextIndex(text)
    except TextEncodingError:
        assert not _has_utf8(text)
        return
    for call in _offset_calls(index, a, b, many, snap, span_snap, clamp):
        try:
            result = call()
        except OFFSET_ERRORS as exc:
            assert str(exc)
            continue
        if isinstance(result, str):
            continue
        values: list[Any] = [result] if isinstance(result, int) else list(result)  # type: ignore[call-overload]
        values = [v for item in values for v in (item if isinstance(item, tuple) else [item])]
        assert all(0 <= v <= index.byte_length for v in values), (result, values)


@fuzz(150)
@given(
    st.lists(st.one_of(ANY_TEXT, st.binary(max_size=8)), max_size=4),
    st.sampled_from(["", " ", "é", "😀", "\n\n"]),
    st.one_of(OFFSET, NOT_AN_OFFSET),
    st.one_of(OFFSET, NOT_AN_OFFSET),
    st.one_of(OFFSET, NOT_AN_OFFSET),
    st.sampled_from(["byte", "char", "utf16"]),
    st.sampled_from([None, "floor", "ceil"]),
    st.booleans(),
)
def test_part_maps_raise_only_offset_and_argument_errors(
    parts: list[Any], sep: str, part: Any, a: Any, b: Any, unit: Any, snap: Any, clamp: bool
) -> None:
    try:
        part_map = PartMap(parts, sep)
    except (TextEncodingError, ArgumentTypeError):
        return
    calls: list[Callable[[], object]] = [
        lambda: part_map.to_joined(part, a, unit, snap=snap, clamp=clamp),
        lambda: part_map.to_joined_span(part, a, b, unit, snap=snap, clamp=clamp),
        lambda: part_map.from_joined(a, unit, snap=snap, clamp=clamp),
        lambda: part_map.from_joined_span(a, b, unit, snap=snap, clamp=clamp),
        lambda: part_map.bounds(part, unit),
        lambda: part_map.index_of(part),
    ]
    for call in calls:
        try:
            call()
        except OFFSET_ERRORS as exc:
            assert str(exc)


# --- The command line's readers ------------------------------------------------------------

CLI_COMMANDS: list[list[str]] = [
    ["decode", "--type", "Answer"],
    ["decode", "--type", "GroundingMetadata", "--from", "base64"],
    ["encode", "--type", "Answer"],
    ["encode", "--type", "CitationMetadata", "--to", "base64"],
    ["convert", "--type", "Answer", "--from", "json", "--to", "text"],
    ["convert", "--type", "GroundingFact", "--from", "text", "--to", "json"],
    ["convert", "--type", "Answer", "--from", "binary", "--to", "base64"],
    ["convert", "--type", "Answer", "--from", "base64", "--to", "binary"],
    ["convert", "--type", "Answer", "--from", "jsonl", "--to", "jsonl"],
    ["convert", "--type", "FactChunk", "--from", "jsonl", "--to", "text"],
    ["render"],
    ["render", "--style", "html"],
    ["render", "--style", "plain", "--snap", "outward", "--clamp"],
    ["render", "--type", "Answer", "--from", "binary"],
    ["render", "--jsonl"],
    ["render", "--text", "{text}"],
    ["validate"],
    ["validate", "--json", "--candidate", "1"],
    ["validate", "--type", "GroundingMetadata", "--text", "{text}"],
    ["validate", "--jsonl", "--failed-lines", "{errors}"],
    ["inspect"],
    ["inspect", "--json"],
    ["inspect", "--type", "Answer", "--from", "text"],
    ["inspect", "--jsonl", "--from", "base64", "--type", "Answer"],
]


@st.composite
def cli_inputs(draw: st.DrawFn) -> bytes:
    """File contents a command might be given: JSON documents (good, spoiled, huge
    numbers), wire bytes, base64, text format, JSON lines, or junk."""
    kind = draw(st.sampled_from(["dict", "json", "wire", "base64", "text", "jsonl", "junk"]))
    if kind == "dict":
        try:
            return json.dumps(draw(json_dicts())).encode("utf-8", "surrogatepass")
        except (ValueError, RecursionError):
            return b"{}"
    if kind == "json":
        data = draw(json_documents())[1]
        return data if isinstance(data, bytes) else data.encode("utf-8", "surrogateescape")
    message = draw(any_message())
    if kind == "wire":
        return draw(mutated(message.SerializeToString(), st.binary(min_size=1, max_size=4)))
    if kind == "base64":
        return draw(mutated(base64.b64encode(message.SerializeToString()), st.sampled_from(
            [b"=", b"-", b"_", b"\n", b" ", b"!"])))  # fmt: skip
    if kind == "text":
        text = text_format.MessageToString(message, as_utf8=True)
        return draw(mutated(text.encode("utf-8"), st.sampled_from([b"{", b"}", b":", b'"'])))
    if kind == "jsonl":
        lines = draw(st.lists(json_documents(), max_size=3))
        return b"\n".join(
            (d if isinstance(d, bytes) else d.encode("utf-8", "surrogateescape")).replace(
                b"\n", b" "
            )
            for _, d in lines
        )  # fmt: skip
    return draw(st.binary(max_size=60))


@fuzz(250)
@given(st.sampled_from(CLI_COMMANDS), cli_inputs(), st.binary(max_size=12))
def test_cli_readers_exit_0_1_2_with_one_clean_error_line(
    capsysbinary: pytest.CaptureFixture[bytes], command: list[str], data: bytes, text: bytes
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source, text_file, errors = folder / "in", folder / "text", folder / "errors"
        source.write_bytes(data)
        text_file.write_bytes(text)
        argv = [arg.format(text=text_file, errors=errors) for arg in command] + [
            str(source),
            "-o",
            str(folder / "out"),
        ]
        capsysbinary.readouterr()
        code = main(argv)
        err = capsysbinary.readouterr().err.decode("utf-8", "replace")
    assert code in (0, 1, 2), (code, err)
    assert "Traceback" not in err and "internal error" not in err, err
    if code == 2:
        assert err.startswith("grounding-protos: "), err


@pytest.mark.parametrize(
    "data",
    [
        b'{"answerText": "x", "citations": [{"endIndex": ' + b"9" * 5000 + b"}]}",
        b'{"answerText": "x", "citations": [{"endIndex": "' + b"9" * 5000 + b'"}]}',
        b"[" * 100_000 + b"]" * 100_000,
    ],
)
@pytest.mark.parametrize("command", ["render", "validate", "inspect"])
def test_cli_json_too_long_or_too_deep_is_a_clean_error(
    capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path, data: bytes, command: str
) -> None:
    """Regression: a number past int()'s digit limit was an "internal error"."""
    source = tmp_path / "in.json"
    source.write_bytes(data)
    code = main([command, str(source)])
    err = capsysbinary.readouterr().err.decode()
    assert code in (1, 2) and "internal error" not in err, err
    assert err.count("\n") <= 1


def test_answer_strategy_smoke() -> None:
    """The checks accept a clean answer (guards the checks themselves)."""
    answer = Answer(
        answer_text="Grüße, 東京 😀 <b>&amp;</b>",
        citations=[Answer.Citation(start_index=0, end_index=6,
                                   sources=[Answer.CitationSource(reference_id="0")])],
        references=[Answer.Reference(structured_document_info=
                    Answer.Reference.StructuredDocumentInfo(title="<T>", uri="https://t"))],
    )  # fmt: skip
    check_downstream(answer)
    check_downstream(codec.to_dict(answer))
