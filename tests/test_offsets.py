"""Tests of grounding_protos.offsets against naive oracles.

The oracles are the obviously-correct slow ways: ``len(data[:b].decode())`` for a
byte offset, ``len(text[:c].encode())`` for a character offset, and the same over
``encode("utf-16-le")`` for UTF-16; an offset is invalid exactly when the oracle's
decode fails or the offset is out of range.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_protos import _offsets
from grounding_protos._exceptions import ArgumentValueError, GroundingProtosError
from grounding_protos._offsets import Snap, Unit
from grounding_protos.offsets import (
    OffsetError,
    PartMap,
    TextEncodingError,
    TextIndex,
    byte_slice,
    byte_to_char,
    byte_to_utf16,
    char_to_byte,
    char_to_utf16,
    utf16_to_byte,
    utf16_to_char,
)

UNITS: tuple[Unit, ...] = ("byte", "char", "utf16")

# --- Text strategies ---------------------------------------------------------------

ATOMS = [
    "a",
    "Hello, world. ",
    " ",
    "\n",
    "é",
    "Ångström ",
    "naïve façade ",
    "日本語",
    "中文",
    "한국어",
    "שלום",
    "مرحبا",
    "👍",
    "👍🏽",  # skin-tone modifier
    "👨‍👩‍👧‍👦",  # ZWJ sequence
    "👩‍❤️‍💋‍👨",
    "🇯🇵",  # regional indicators
    "e\u0301",  # combining acute
    "q\u0323\u0307",
    "नमस्ते",
    "\U0001d518\U0001d52b\U0001d526",  # astral letters (Fraktur)
    "𐍈",
    "\U0010ffff",
    "\x00",
    "\u200d",
    "\ufeff",
]

atoms = st.sampled_from(ATOMS)
any_char = st.characters(codec="utf-8")  # every code point but surrogates
texts = st.lists(st.one_of(atoms, any_char), max_size=24).map("".join)
# Long enough to cross the 64-byte and 64-character blocks of the lookup tables.
long_texts = st.lists(atoms, min_size=40, max_size=220).map("".join)


# --- Oracles -----------------------------------------------------------------------


def naive_byte_to_char(text: str, byte: int) -> int | None:
    data = text.encode("utf-8")
    if not 0 <= byte <= len(data):
        return None
    try:
        return len(data[:byte].decode("utf-8"))
    except UnicodeDecodeError:
        return None


def naive_char_to_byte(text: str, char: int) -> int | None:
    if not 0 <= char <= len(text):
        return None
    return len(text[:char].encode("utf-8"))


def naive_utf16_to_char(text: str, unit: int) -> int | None:
    data = text.encode("utf-16-le")
    if not 0 <= unit <= len(data) // 2:
        return None
    try:
        return len(data[: 2 * unit].decode("utf-16-le"))
    except UnicodeDecodeError:
        return None


def naive_char_to_utf16(text: str, char: int) -> int | None:
    if not 0 <= char <= len(text):
        return None
    return len(text[:char].encode("utf-16-le")) // 2


def naive_length(text: str, unit: str) -> int:
    if unit == "byte":
        return len(text.encode("utf-8"))
    if unit == "char":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def naive_to_char(text: str, offset: int, unit: str) -> int | None:
    if unit == "byte":
        return naive_byte_to_char(text, offset)
    if unit == "char":
        return offset if 0 <= offset <= len(text) else None
    return naive_utf16_to_char(text, offset)


def naive_from_char(text: str, char: int, unit: str) -> int | None:
    if unit == "byte":
        return naive_char_to_byte(text, char)
    if unit == "char":
        return char
    return naive_char_to_utf16(text, char)


def naive_convert(text: str, offset: int, src: str, dst: str) -> int | None:
    char = naive_to_char(text, offset, src)
    return None if char is None else naive_from_char(text, char, dst)


def boundaries(text: str, unit: str) -> list[int]:
    """Every valid offset of ``unit``, ascending."""
    found = [naive_from_char(text, c, unit) for c in range(len(text) + 1)]
    return [offset for offset in found if offset is not None]  # never None: c is in range


def snapped(text: str, offset: int, unit: str, snap: Snap | None, clamp: bool) -> int | None:
    """The oracle of leniency: clamp into range, then move to a boundary."""
    size = naive_length(text, unit)
    if clamp:
        offset = min(max(offset, 0), size)
    if not 0 <= offset <= size:
        return None
    valid = boundaries(text, unit)
    if offset in valid:
        return offset
    if snap == "floor":
        return max(v for v in valid if v <= offset)
    if snap == "ceil":
        return min(v for v in valid if v >= offset)
    return None


def all_offsets(text: str, unit: str) -> range:
    return range(-2, naive_length(text, unit) + 3)


# Indexes that force one of the two bulk strategies (table lookups or a walk).


class TableIndex(TextIndex):
    __slots__ = ()

    def _use_table(self, table: object, count: int, extent: int, allow_build: bool) -> bool:
        return True


class WalkIndex(TextIndex):
    __slots__ = ()

    def _use_table(self, table: object, count: int, extent: int, allow_build: bool) -> bool:
        return False


INDEX_KINDS = [TextIndex, TableIndex, WalkIndex]
ONE_SHOT: dict[tuple[str, str], Callable[..., int]] = {
    ("byte", "char"): byte_to_char,
    ("char", "byte"): char_to_byte,
    ("byte", "utf16"): byte_to_utf16,
    ("utf16", "byte"): utf16_to_byte,
    ("char", "utf16"): char_to_utf16,
    ("utf16", "char"): utf16_to_char,
}
NAMED_SINGLE = {
    ("byte", "char"): "to_char",
    ("char", "byte"): "to_byte",
    ("byte", "utf16"): "to_utf16",
    ("utf16", "byte"): "from_utf16",
}
NAMED_BULK = {
    ("byte", "char"): "to_chars",
    ("char", "byte"): "to_bytes",
    ("byte", "utf16"): "to_utf16s",
    ("utf16", "byte"): "from_utf16s",
}

FAST = settings(max_examples=250, deadline=None)
SLOW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- Every offset of every text -----------------------------------------------------


def check_every_offset(text: str, index: TextIndex) -> None:
    for src in UNITS:
        for dst in UNITS:
            for offset in all_offsets(text, src):
                expected = naive_convert(text, offset, src, dst)
                if expected is None:
                    with pytest.raises(OffsetError):
                        index.convert(offset, src, dst)
                else:
                    assert index.convert(offset, src, dst) == expected, (src, dst, offset)


@FAST
@given(texts)
def test_every_offset_converts_or_raises(text: str) -> None:
    index = TextIndex(text)
    assert (index.byte_length, index.char_length, index.utf16_length) == tuple(
        naive_length(text, unit) for unit in UNITS
    )
    check_every_offset(text, index)


@SLOW
@given(long_texts)
def test_every_offset_of_long_texts(text: str) -> None:
    check_every_offset(text, TextIndex(text))


@FAST
@given(texts)
def test_named_methods_and_one_shots_agree_with_the_oracle(text: str) -> None:
    index = TextIndex(text)
    for (src, dst), name in NAMED_SINGLE.items():
        for offset in all_offsets(text, src):
            expected = naive_convert(text, offset, src, dst)
            if expected is None:
                with pytest.raises(OffsetError):
                    getattr(index, name)(offset)
            else:
                assert getattr(index, name)(offset) == expected
    for (src, dst), function in ONE_SHOT.items():
        for offset in all_offsets(text, src):
            expected = naive_convert(text, offset, src, dst)
            if expected is None:
                with pytest.raises(OffsetError):
                    function(text, offset)
            else:
                assert function(text, offset) == expected
                assert function(text.encode("utf-8"), offset) == expected


@FAST
@given(texts)
def test_round_trips_in_all_directions(text: str) -> None:
    index = TextIndex(text)
    for src in UNITS:
        for offset in boundaries(text, src):
            for dst in UNITS:
                there = index.convert(offset, src, dst)
                assert index.convert(there, dst, src) == offset
    for byte in boundaries(text, "byte"):
        assert index.to_byte(index.to_char(byte)) == byte
        assert index.from_utf16(index.to_utf16(byte)) == byte


@FAST
@given(texts, st.data())
def test_slices_and_spans(text: str, data: st.DataObject) -> None:
    index = TextIndex(text)
    size = index.byte_length
    start = data.draw(st.integers(0, size))
    end = data.draw(st.integers(start, size))
    chunk = text.encode("utf-8")[start:end]
    first, last = naive_byte_to_char(text, start), naive_byte_to_char(text, end)
    if first is None or last is None:
        with pytest.raises(OffsetError):
            index.slice(start, end)
        with pytest.raises(OffsetError):
            byte_slice(text, start, end)
    else:
        assert index.slice(start, end) == chunk.decode("utf-8") == byte_slice(text, start, end)
        assert index.to_char_span(start, end) == (first, last)
        assert index.to_byte_span(first, last) == (start, end)
        u = index.to_utf16_span(start, end)
        assert u == (naive_char_to_utf16(text, first), naive_char_to_utf16(text, last))
        assert index.from_utf16_span(*u) == (start, end)
    # Outward snapping always yields the smallest whole-character span around the bytes.
    wide = index.slice(start, end, snap="outward")
    low = snapped(text, start, "byte", "floor", False)
    high = snapped(text, end, "byte", "ceil", False)
    assert low is not None and high is not None
    assert wide == text.encode("utf-8")[low:high].decode("utf-8")
    if start < end and first is not None and last is not None:
        with pytest.raises(OffsetError, match="reversed"):
            index.convert_span(end, start, "byte", "byte")


def test_a_large_text_at_every_offset() -> None:
    """Thousands of table blocks: every byte, character and UTF-16 offset, single and bulk."""
    text = "".join(ATOMS[i * 7 % len(ATOMS)] for i in range(3000))
    chars_at_byte: dict[int, int] = {}
    chars_at_unit: dict[int, int] = {}
    byte = unit = 0
    for c, ch in enumerate(text + "\0"):  # incremental oracle, checked against the naive one
        chars_at_byte[byte] = chars_at_unit[unit] = c
        byte += len(ch.encode("utf-8"))
        unit += len(ch.encode("utf-16-le")) // 2
    for b in range(0, len(text.encode("utf-8")) + 1, 97):
        assert chars_at_byte.get(b) == naive_byte_to_char(text, b)
    for kind in INDEX_KINDS:
        index = kind(text)
        for b in range(-1, index.byte_length + 2):
            if b in chars_at_byte:
                assert index.to_char(b) == chars_at_byte[b]
            else:
                with pytest.raises(OffsetError):
                    index.to_char(b)
        for u in range(-1, index.utf16_length + 2):
            if u in chars_at_unit:
                assert index.convert(u, "utf16", "char") == chars_at_unit[u]
            else:
                with pytest.raises(OffsetError):
                    index.convert(u, "utf16", "char")
        byte_offsets = list(chars_at_byte)[::-1]
        assert index.to_chars(byte_offsets) == [chars_at_byte[b] for b in byte_offsets]
        assert index.to_bytes(index.to_chars(byte_offsets)) == byte_offsets
        units = list(chars_at_unit)
        assert index.from_utf16s(units) == index.to_bytes([chars_at_unit[u] for u in units])
        assert index.to_utf16s(index.from_utf16s(units)) == units


# --- Bulk forms -----------------------------------------------------------------------


@FAST
@given(st.one_of(texts, long_texts), st.data())
def test_bulk_and_single_forms_agree(text: str, data: st.DataObject) -> None:
    src = data.draw(st.sampled_from(UNITS))
    dst = data.draw(st.sampled_from(UNITS))
    valid = boundaries(text, src)
    offsets = data.draw(st.lists(st.sampled_from(valid), max_size=40))
    expected = [naive_convert(text, o, src, dst) for o in offsets]
    for kind in INDEX_KINDS:
        index = kind(text)
        assert index.convert_many(offsets, src, dst) == expected
        assert index.convert_many(iter(offsets), src, dst) == expected
        assert index.convert_many(tuple(offsets), src, dst) == expected
        name = NAMED_BULK.get((src, dst))
        if name:
            assert getattr(index, name)(offsets) == expected
    spans = list(zip(offsets[::2], offsets[1::2], strict=False))
    spans = [(min(a, b), max(a, b)) for a, b in spans]
    converted = TextIndex(text).convert_spans(spans, src, dst)
    assert converted == [
        (naive_convert(text, a, src, dst), naive_convert(text, b, src, dst)) for a, b in spans
    ]


@FAST
@given(texts, st.data())
def test_bulk_reports_the_first_bad_offset_in_input_order(text: str, data: st.DataObject) -> None:
    src = data.draw(st.sampled_from(UNITS))
    size = naive_length(text, src)
    offsets = data.draw(st.lists(st.integers(-3, size + 3), min_size=1, max_size=30))
    bad = [i for i, o in enumerate(offsets) if naive_to_char(text, o, src) is None]
    for kind in INDEX_KINDS:
        index = kind(text)
        if not bad:
            assert index.convert_many(offsets, src, "char") == [
                naive_to_char(text, o, src) for o in offsets
            ]
            continue
        with pytest.raises(OffsetError) as caught:
            index.convert_many(offsets, src, "char")
        i = bad[0]
        with pytest.raises(OffsetError) as single:
            index.convert(offsets[i], src, "char")
        assert str(caught.value) == f"offsets[{i}]: {single.value}"


def test_bulk_edge_cases() -> None:
    index = TextIndex("日本語")
    assert index.to_chars([]) == []
    assert index.to_chars(()) == []
    assert index.to_chars([3]) == [1]
    assert index.to_chars(o for o in (9, 0)) == [3, 0]
    assert index.to_chars(range(0, 10, 3)) == [0, 1, 2, 3]
    assert TextIndex("ascii").to_chars([5, 0, 5]) == [5, 0, 5]
    with pytest.raises(OffsetError, match=r"^offsets\[1\]: byte offset 1 splits"):
        index.to_chars([0, 1, 2])
    with pytest.raises(TypeError, match=r"^offsets\[1\]: byte offset must be an int"):
        index.to_chars([0, "3"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"offsets\[0\]"):
        index.to_chars([[1]])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"spans\[1\] must be a \(start, end\) pair"):
        index.convert_spans([(0, 3), (1,)], "byte", "char")  # type: ignore[list-item]
    with pytest.raises(OffsetError, match=r"^spans\[1\] end: byte offset 10 is past the end"):
        index.convert_spans([(0, 3), (3, 10)], "byte", "char")
    with pytest.raises(OffsetError, match=r"^spans\[0\] \(6, 3\) is reversed"):
        index.convert_spans([(6, 3)], "byte", "char")


def test_bulk_uses_tables_when_offsets_are_sparse() -> None:
    text = "日本語 and English, " * 5000
    index = TextIndex(text)
    expected = [0, 7, 1000, 50_001, len(text)]
    offsets = [len(text[:c].encode("utf-8")) for c in expected]
    assert index._cb is None
    assert index.to_chars(offsets) == expected  # sparse: builds the table
    assert index._cb is not None
    assert index.to_chars(offsets) == expected
    assert byte_to_char(text, offsets[3]) == 50_001  # one-shot: walks, builds nothing


@pytest.mark.parametrize("byte_sums", [True, False])
def test_walks_over_long_gaps_with_and_without_zlib(
    byte_sums: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not byte_sums:
        monkeypatch.setattr(_offsets, "_adler32", None)
    text = "Zürich 👍🏽 日本 " * 20_000  # 580 kB: gaps beyond one exact adler32 sum
    index = WalkIndex(text)
    chars = [0, 1, 3, 150_001, 199_999, len(text)]
    offsets = [len(text[:c].encode("utf-8")) for c in chars]
    assert index.to_chars(offsets[::-1]) == chars[::-1]
    units = [len(text[:c].encode("utf-16-le")) // 2 for c in chars]
    assert index.to_utf16s(offsets) == units
    with pytest.raises(OffsetError, match=r"^offsets\[1\]: byte offset 2 splits 'ü'"):
        index.to_chars([0, 2])
    # Dense offsets (short gaps, counted rather than summed) over a few kB.
    dense = list(range(0, 4_000, 7))
    offsets = [len(text[:c].encode("utf-8")) for c in dense]
    assert index.to_chars(offsets) == dense
    assert index.to_utf16s(offsets) == [len(text[:c].encode("utf-16-le")) // 2 for c in dense]


# --- Leniency ------------------------------------------------------------------------


@FAST
@given(texts, st.data())
def test_snapping_and_clamping(text: str, data: st.DataObject) -> None:
    src = data.draw(st.sampled_from(UNITS))
    dst = data.draw(st.sampled_from(UNITS))
    snaps: list[Snap | None] = [None, "floor", "ceil"]
    snap = data.draw(st.sampled_from(snaps))
    clamp = data.draw(st.booleans())
    offsets = list(all_offsets(text, src))
    index = TextIndex(text)
    expected = []
    for offset in offsets:
        fixed = snapped(text, offset, src, snap, clamp)
        if fixed is None:
            with pytest.raises(OffsetError):
                index.convert(offset, src, dst, snap=snap, clamp=clamp)
        else:
            value = naive_convert(text, fixed, src, dst)
            assert index.convert(offset, src, dst, snap=snap, clamp=clamp) == value
            expected.append(value)
    if len(expected) == len(offsets):
        for kind in INDEX_KINDS:
            bulk = kind(text).convert_many(offsets, src, dst, snap=snap, clamp=clamp)
            assert bulk == expected


def test_snapping_examples() -> None:
    index = TextIndex("a😀b")  # bytes: a=0, 😀=1..5, b=5; UTF-16: a=0, 😀=1..3, b=3
    assert [index.to_char(b, snap="floor") for b in range(7)] == [0, 1, 1, 1, 1, 2, 3]
    assert [index.to_char(b, snap="ceil") for b in range(7)] == [0, 1, 2, 2, 2, 2, 3]
    assert index.from_utf16(2, snap="floor") == 1
    assert index.from_utf16(2, snap="ceil") == 5
    assert index.to_char(-5, clamp=True) == 0
    assert index.to_char(99, clamp=True) == 3
    assert index.to_char(3, snap="ceil", clamp=True) == 2
    assert index.convert(3, "byte", "byte", snap="floor") == 1
    assert index.to_char_span(2, 3, snap="outward") == (1, 2)
    assert index.to_char_span(2, 3, snap="floor") == (1, 1)
    assert index.to_char_span(2, 3, snap="ceil") == (2, 2)
    assert index.to_char_span(-4, 40, clamp=True) == (0, 3)
    assert index.slice(2, 6, snap="outward") == "😀b"
    assert index.to_byte(7, clamp=True) == 6
    units = list(range(7))  # "a😀b😀": boundaries at UTF-16 units 0, 1, 3, 4, 6
    for kind in INDEX_KINDS:
        pairs = kind("a😀b😀")
        assert pairs.convert_many(units, "utf16", "char", snap="floor") == [0, 1, 1, 2, 3, 3, 4]
        assert pairs.convert_many(units, "utf16", "char", snap="ceil") == [0, 1, 2, 2, 3, 4, 4]
        assert pairs.from_utf16s(units, snap="ceil") == [0, 1, 5, 5, 6, 10, 10]
        bytes_ = list(range(11))
        assert pairs.to_utf16s(bytes_, snap="floor") == [0, 1, 1, 1, 1, 3, 4, 4, 4, 4, 6]
        assert pairs.to_utf16s(bytes_, snap="ceil") == [0, 1, 3, 3, 3, 3, 4, 6, 6, 6, 6]
    with pytest.raises(OffsetError):
        index.to_char(99, snap="floor")  # snapping does not clamp
    with pytest.raises(ArgumentValueError, match="snap must be"):
        index.to_char(1, snap="nearest")  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="snap must be"):
        index.to_chars([1], snap="outward")  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="unit must be"):
        index.convert(1, "bytes", "char")  # type: ignore[arg-type]


# --- Error messages -------------------------------------------------------------------


def message(call: Callable[[], object]) -> str:
    with pytest.raises(OffsetError) as caught:
        call()
    return str(caught.value)


def test_offset_error_is_a_value_error() -> None:
    assert issubclass(OffsetError, ValueError)
    assert issubclass(OffsetError, GroundingProtosError)
    assert issubclass(TextEncodingError, ValueError)
    assert issubclass(TextEncodingError, UnicodeError)
    assert issubclass(TextEncodingError, GroundingProtosError)
    assert issubclass(ArgumentValueError, ValueError)
    assert issubclass(ArgumentValueError, GroundingProtosError)


def test_split_messages_name_offset_unit_limit_character_and_range() -> None:
    index = TextIndex("naïve café")
    assert message(lambda: index.to_char(3)) == (
        "byte offset 3 splits 'ï' (U+00EF), which occupies bytes [2, 4); "
        "valid byte offsets are 0..12 at character boundaries, such as 2 or 4"
    )
    emoji = TextIndex("ok 👍🏽")
    assert message(lambda: emoji.to_char(9)) == (
        "byte offset 9 splits '🏽' (U+1F3FD), which occupies bytes [7, 11); "
        "valid byte offsets are 0..11 at character boundaries, such as 7 or 11"
    )
    assert message(lambda: emoji.from_utf16(4)) == (
        "UTF-16 offset 4 splits the surrogate pair of '👍' (U+1F44D), which occupies "
        "UTF-16 units [3, 5) and bytes [3, 7); valid UTF-16 offsets are 0..7 at character "
        "boundaries, such as 3 or 5"
    )
    zwj = TextIndex("\u200d")
    assert "'\\u200d' (U+200D)" in message(lambda: zwj.to_char(1))


@pytest.mark.parametrize(
    ("unit", "offset", "expected"),
    [
        ("byte", -1, "byte offset -1 is negative; valid byte offsets are 0..6"),
        ("byte", 7, "byte offset 7 is past the end of the text; valid byte offsets are 0..6"),
        ("char", -2, "character offset -2 is negative; valid character offsets are 0..2"),
        (
            "char",
            3,
            "character offset 3 is past the end of the text; valid character offsets are 0..2",
        ),
        ("utf16", 3, "UTF-16 offset 3 is past the end of the text; valid UTF-16 offsets are 0..2"),
    ],
)
def test_range_messages(unit: Unit, offset: int, expected: str) -> None:
    index = TextIndex("日本")
    assert message(lambda: index.convert(offset, unit, "char")) == expected
    assert (
        message(lambda: ONE_SHOT[(unit, "byte" if unit != "byte" else "char")]("日本", offset))
        == expected
    )


def test_span_messages_say_which_end() -> None:
    index = TextIndex("日本")
    assert message(lambda: index.slice(0, 4)).startswith("span end: byte offset 4 splits '本'")
    assert message(lambda: index.slice(-1, 3)).startswith("span start: byte offset -1 is")
    assert message(lambda: index.slice(6, 3)) == (
        "span (6, 3) is reversed: its start is after its end (byte offsets)"
    )


def test_wrong_types() -> None:
    index = TextIndex("日本")
    with pytest.raises(TypeError, match=r"byte offset must be an int, not float 3\.0"):
        index.to_char(3.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="character offset must be an int, not str"):
        char_to_byte("日本", "1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text must be str or bytes, not int"):
        TextIndex(5)  # type: ignore[arg-type]

    class Offset:
        def __index__(self) -> int:
            return 3

    # Typed as int, but anything with __index__ works, like a list index.
    assert index.to_char(Offset()) == 1  # type: ignore[arg-type]
    assert index.to_chars([Offset(), 6]) == [1, 2]  # type: ignore[list-item]


# --- Encoding errors ------------------------------------------------------------------


def test_lone_surrogates_are_refused_at_first_use() -> None:
    with pytest.raises(TextEncodingError) as caught:
        TextIndex("ok\ud83d!")
    assert str(caught.value) == (
        "text has no UTF-8 form: it holds the lone surrogate '\\ud83d' (U+D83D) "
        "at character 2 (of 4)"
    )
    with pytest.raises(ValueError, match="lone surrogate"):
        byte_to_char("\udc00", 0)
    with pytest.raises(ValueError, match="lone surrogate"):
        PartMap(["fine", "\ud800"])


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"ok\xff", "bytes are not valid UTF-8: invalid start byte 0xFF at byte 2 (of 3)"),
        (b"\xe6\x97", "bytes are not valid UTF-8: unexpected end of data 0xE6 at byte 0 (of 2)"),
        (b"a\xed\xa0\x80", "bytes are not valid UTF-8: invalid continuation byte 0xED at byte 1"),
    ],
)
def test_invalid_utf8_is_refused(data: bytes, expected: str) -> None:
    with pytest.raises(TextEncodingError) as caught:
        TextIndex(data)
    assert str(caught.value).startswith(expected)


@FAST
@given(texts)
def test_bytes_input_behaves_like_str_input(text: str) -> None:
    data = text.encode("utf-8")
    from_bytes, from_str = TextIndex(data), TextIndex(text)
    assert from_bytes.text == text
    assert from_bytes.is_ascii == from_str.is_ascii == text.isascii()
    for byte in all_offsets(text, "byte"):
        try:
            expected: object = from_str.to_utf16(byte)
        except OffsetError as exc:
            expected = str(exc)
        try:
            got: object = from_bytes.to_utf16(byte)
        except OffsetError as exc:
            got = str(exc)
        assert got == expected
    assert TextIndex(bytearray(data)).text == TextIndex(memoryview(data)).text == text


def test_ascii_fast_path() -> None:
    index = TextIndex("plain ascii")
    assert index.is_ascii
    assert index._mask is None
    assert index.to_char(5) == index.to_byte(5) == index.to_utf16(5) == index.from_utf16(5) == 5
    assert index.to_chars([11, 0]) == [11, 0]
    assert message(lambda: index.to_char(12)).startswith("byte offset 12 is past the end")
    assert TextIndex("").to_chars([0]) == [0]
    assert message(lambda: TextIndex("").to_char(1)) == (
        "byte offset 1 is past the end of the text; valid byte offsets are 0..0"
    )


def test_repr_and_lengths() -> None:
    index = TextIndex("👍🏽")
    assert repr(index) == "<TextIndex: 8 bytes, 2 characters>"
    assert [index.length(unit) for unit in UNITS] == [8, 2, 4]


# --- PartMap ---------------------------------------------------------------------------


@FAST
@given(st.lists(texts, max_size=5), st.sampled_from(["", " ", "\n\n", "¶", "🙂"]), st.data())
def test_part_map_round_trips(parts: list[str], separator: str, data: st.DataObject) -> None:
    pmap = PartMap(parts, separator)
    assert pmap.text == separator.join(parts)
    assert len(pmap) == len(parts)
    unit = data.draw(st.sampled_from(UNITS))
    position = 0
    gap = naive_length(separator, unit)
    for i, part in enumerate(parts):
        size = naive_length(part, unit)
        assert pmap.bounds(i, unit) == (position, position + size)
        for offset in all_offsets(part, unit):
            expected = naive_to_char(part, offset, unit)
            if expected is None:
                with pytest.raises(OffsetError, match=f"^part {i}: "):
                    pmap.to_joined(i, offset, unit)
                continue
            joined = pmap.to_joined(i, offset, unit)
            assert joined == position + offset
            back = pmap.from_joined(joined, unit)
            assert pmap.to_joined(*back, unit) == joined
            # A shared boundary belongs to the last part that starts there.
            starting = [k for k in range(len(parts)) if pmap.bounds(k, unit)[0] <= joined]
            assert back[0] == starting[-1]
            if 0 < offset < size:
                assert back == (i, offset)
        position += size + gap
    if parts and gap > 1:
        inside = pmap.bounds(0, unit)[1] + 1
        if naive_to_char(pmap.text, inside, unit) is not None:
            with pytest.raises(OffsetError, match="inside the separator between parts 0 and 1"):
                pmap.from_joined(inside, unit)


def test_part_map_examples() -> None:
    pmap = PartMap(["Grüße, ", "世界", "!"])
    assert pmap.text == "Grüße, 世界!"
    assert pmap.parts == ("Grüße, ", "世界", "!")
    assert pmap.to_joined(1, 3) == 12
    assert pmap.from_joined(12) == (1, 3)
    assert pmap.from_joined(9) == (1, 0)
    assert pmap.from_joined(16) == (2, 1)  # the end belongs to the last part
    assert pmap.to_joined_span(1, 0, 6) == (9, 15)
    assert pmap.from_joined_span(9, 15) == (1, 0, 6)
    assert pmap.from_joined_span(9, 9) == (1, 0, 0)
    assert pmap.to_joined(1, 1, "char") == 8
    assert pmap.to_joined(1, 1, "utf16") == 8
    assert pmap.from_joined(10, snap="floor") == (1, 0)
    assert pmap.to_joined(1, 99, clamp=True) == 15  # clamped into the part
    assert pmap.index_of(1).byte_length == 6
    assert repr(pmap) == "<PartMap: 3 parts, 10 characters>"
    assert message(lambda: pmap.to_joined(1, 2)) == (
        "part 1: byte offset 2 splits '世' (U+4E16), which occupies bytes [0, 3); "
        "valid byte offsets are 0..6 at character boundaries, such as 0 or 3"
    )
    assert message(lambda: pmap.to_joined(1, 7)) == (
        "part 1: byte offset 7 is past the end of the text; valid byte offsets are 0..6"
    )
    assert message(lambda: pmap.to_joined(3, 0)) == (
        "part index 3 is out of range; valid part indexes are 0..2"
    )
    assert message(lambda: pmap.from_joined(10)).startswith(
        "joined text: byte offset 10 splits '世'"
    )
    assert message(lambda: pmap.from_joined_span(4, 12)) == (
        "joined text: byte span (4, 12) crosses the end of part 0 (bytes [0, 9))"
    )
    assert message(lambda: pmap.to_joined_span(1, 6, 3)) == (
        "part 1 span (6, 3) is reversed: its start is after its end (byte offsets)"
    )
    with pytest.raises(TypeError, match="part index must be an int"):
        pmap.to_joined("1", 0)  # type: ignore[arg-type]


def test_part_map_separators_and_empty_parts() -> None:
    pmap = PartMap(["ab", "", "cd"], separator=" | ")
    assert pmap.text == "ab |  | cd"
    assert pmap.bounds(1) == (5, 5)
    assert pmap.from_joined(2) == (0, 2)  # end of part 0, before the separator
    assert pmap.from_joined(5) == (1, 0)
    assert message(lambda: pmap.from_joined(3)) == (
        "joined text: byte offset 3 is inside the separator between parts 0 and 1, "
        "which occupies bytes [2, 5)"
    )
    glued = PartMap(["ab", "", "cd"])
    assert glued.from_joined(2) == (2, 0)  # the part that starts there (the empty one is skipped)
    assert glued.from_joined_span(0, 2) == (0, 0, 2)
    empty = PartMap([])
    assert empty.text == ""
    assert message(lambda: empty.to_joined(0, 0)) == (
        "part index 0 is out of range; valid part indexes are none (there are no parts)"
    )
    assert "there are no parts" in message(lambda: empty.from_joined(0))
    assert PartMap([b"caf\xc3\xa9"], separator=b"").text == "café"
    with pytest.raises(TextEncodingError, match=r"^parts\[1\]: bytes are not valid UTF-8"):
        PartMap(["ok", b"\xff"])


# --- Packaging -------------------------------------------------------------------------


def test_offsets_imports_no_protobuf() -> None:
    code = (
        "import sys, grounding_protos.offsets; "
        "bad = [m for m in sys.modules if m.startswith(('google', 'grpc'))]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_public_names() -> None:
    import grounding_protos.offsets as offsets

    assert offsets.OffsetError is OffsetError
    for name in offsets.__all__:
        assert getattr(offsets, name) is not None
