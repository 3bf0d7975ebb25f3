"""The implementation of :mod:`grounding_protos.offsets` (pure ``str``/``bytes``).

Three units measure a position in a text:

- ``"byte"``: UTF-8 bytes, the unit of every span in the grounding schemas;
- ``"char"``: code points, what a Python ``str`` is indexed by;
- ``"utf16"``: UTF-16 code units, what JavaScript, Java and Kotlin index by.

An offset is valid when it lies in ``0..length`` and on a character boundary: not
inside the UTF-8 bytes of one character, not between the two halves of a surrogate
pair. Every character offset in range is valid.

How it is fast: the text is encoded once and turned, with one ``bytes.translate``,
into a *mask* holding one byte per UTF-8 byte: 1 for a continuation byte, 0 for a
lead byte. The characters before byte offset ``b`` are ``b`` minus the 1s before
it, which C code counts (``mask.count``, or ``zlib.adler32`` as a fast byte sum);
the 4-byte characters, which take two UTF-16 units, are the ``0 1 1 1`` runs.
Single lookups use small tables built lazily (one entry per 64 bytes or 64
characters) plus a count or an encode over at most one block; bulk conversions
deduplicate, sort and walk the text once. ASCII text needs none of this: all
three units coincide.

This module must never import protobuf.
"""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate, chain, count, repeat
from typing import Final, Literal, NoReturn

try:
    from zlib import adler32 as _adler32
except ImportError:  # pragma: no cover - a CPython built without zlib
    _adler32 = None  # type: ignore[assignment]

from grounding_protos._exceptions import (
    ArgumentTypeError,
    ArgumentValueError,
    OffsetError,
    TextEncodingError,
)
from grounding_protos._public import public
from grounding_protos._quote import shown

Unit = Literal["byte", "char", "utf16"]
"""A unit of text position: UTF-8 bytes, code points or UTF-16 code units."""

Snap = Literal["floor", "ceil"]
"""Leniency for an offset that splits a character: move to the previous or next boundary."""

SpanSnap = Literal["floor", "ceil", "outward"]
"""Leniency for spans: ``"outward"`` floors the start and ceils the end."""


class _Invalid(Exception):
    """Internal: a bulk walk met an offset it cannot convert; rerun one by one."""


_UNITS: Final[tuple[Unit, ...]] = ("byte", "char", "utf16")
_NAME: Final[dict[str, str]] = {"byte": "byte", "char": "character", "utf16": "UTF-16"}
_PLURAL: Final[dict[str, str]] = {"byte": "bytes", "char": "characters", "utf16": "UTF-16 units"}

# One mask byte per UTF-8 byte: 1 = continuation byte, 0 = lead byte. A 4-byte
# (astral) character, which takes two UTF-16 units, is the only one masked 0 1 1 1.
_MASK_TABLE: Final = bytes(1 if 0x80 <= b <= 0xBF else 0 for b in range(256))
_ASTRAL: Final = b"\x00\x01\x01\x01"
# adler32's low half is 1 + (sum of the bytes) mod 65521: an exact sum up to 65519.
_SUM_SPAN: Final = 65_000
# Below this mean gap (bytes) between offsets, mask.count beats adler32 sums (measured:
# 8.6 vs 14 us for 54 offsets 123 bytes apart; 5.9 vs 5.0 ms for 2,000 offsets 500 apart).
_COUNT_GAP: Final = 300
_BSHIFT: Final = 6  # byte-anchored table: one entry per 64 bytes
_CSHIFT: Final = 6  # char-anchored tables: one entry per 64 characters


def _check_unit(unit: object) -> Unit:
    if unit == "byte" or unit == "char" or unit == "utf16":
        return unit
    raise ArgumentValueError(f"unit must be one of 'byte', 'char', 'utf16', not {unit!r}")


def _check_snap(snap: object) -> None:
    if snap is not None and snap != "floor" and snap != "ceil":
        hint = " ('outward' is for spans: to_char_span)" if snap == "outward" else ""
        raise ArgumentValueError(f"snap must be None, 'floor' or 'ceil', not {snap!r}{hint}")


def check_span_snap(snap: object) -> None:
    """A span's ``snap``: every value accepted, named when one is not."""
    if snap is not None and snap != "floor" and snap != "ceil" and snap != "outward":
        raise ArgumentValueError(f"snap must be None, 'floor', 'ceil' or 'outward', not {snap!r}")


def _span_snaps(snap: object) -> tuple[Snap | None, Snap | None]:
    if snap == "outward":
        return "floor", "ceil"
    check_span_snap(snap)
    return snap, snap  # type: ignore[return-value]  # checked just above


def _as_offset(value: object, unit: str, label: str | None) -> int:
    if type(value) is int:
        return value
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        prefix = f"{label}: " if label else ""
        kind = type(value).__name__
        raise ArgumentTypeError(
            f"{prefix}{_NAME[unit]} offset must be an int, not {kind} {shown(value)}"
        ) from None


def _prefixed(label: str | None, message: str) -> str:
    return f"{label}: {message}" if label else message


def _describe(ch: str) -> str:
    return f"{ch!r} (U+{ord(ch):04X})"


# --- Bulk walks: one pass over sorted offsets ---------------------------------------


def _walk_bytes(mask: bytes, offsets: list[int], units: bool) -> list[int]:
    """Characters (or UTF-16 units) before each of sorted byte boundaries ``offsets``."""
    # Characters before b = b - continuation bytes before b, counted gap by gap in C;
    # UTF-16 units add one per 4-byte character.
    chars: Iterable[int]
    if _adler32 is None or offsets[-1] < _COUNT_GAP * len(offsets):
        # Short gaps: bytes.count costs less per call than slicing and summing.
        conts = map(mask.count, repeat(1), chain((0,), offsets), offsets)
        chars = map(operator.sub, offsets, accumulate(conts))
    elif max(map(operator.sub, offsets, chain((0,), offsets))) > _SUM_SPAN:
        # Cut long gaps so each byte sum stays exact, and walk again.
        points = sorted(set(offsets).union(range(_SUM_SPAN, offsets[-1], _SUM_SPAN)))
        found = dict(zip(points, _walk_bytes(mask, points, units), strict=True))
        return [found[b] for b in offsets]
    else:
        # adler32 sums the mask bytes of each gap (plus 1 each: hence the count(1)).
        view = memoryview(mask)
        sums = map(_adler32, map(view.__getitem__, map(slice, chain((0,), offsets), offsets)))
        firsts = map(operator.and_, sums, repeat(0xFFFF))
        chars = map(operator.sub, map(operator.add, offsets, count(1)), accumulate(firsts))
    if not units:
        return list(chars)
    astral = accumulate(map(mask.count, repeat(_ASTRAL), chain((0,), offsets), offsets))
    return list(map(operator.add, chars, astral))


def _walk_chars_to_bytes(text: str, offsets: list[int]) -> list[int]:
    """UTF-8 length of the text before each of sorted character offsets ``offsets``."""
    pieces = map(text.__getitem__, map(slice, chain((0,), offsets), offsets))
    return list(accumulate(map(len, map(str.encode, pieces))))


def _walk_units_to_chars(text: str, offsets: Sequence[int], snap: Snap | None) -> list[int]:
    out: list[int] = []
    append = out.append
    char = unit = 0  # a boundary: `char` characters are `unit` UTF-16 units
    for u in offsets:
        r = u - unit
        if r:
            seg = text[char : char + r].encode("utf-16-le")[: 2 * r]
            if 0xD8 <= seg[-1] <= 0xDB:  # ends with a high surrogate: u splits a pair
                if snap is None:
                    raise _Invalid
                char += len(seg[:-2].decode("utf-16-le"))
                unit = u - 1
                if snap == "ceil":
                    char += 1
                    unit = u + 1
            else:
                char += len(seg.decode("utf-16-le"))
                unit = u
        append(char)
    return out


# --- TextIndex ------------------------------------------------------------------------


class TextIndex:
    """Converts offsets in one text between UTF-8 bytes, characters and UTF-16 units.

    ``text`` is a ``str`` or UTF-8 ``bytes``. It is encoded (or decoded) once; the
    lookup tables are built on first need. Every method is strict: an offset that is
    negative, past the end or splits a character raises :class:`OffsetError`, unless
    leniency is asked for with ``snap`` (``"floor"``/``"ceil"``: move to the
    previous/next boundary) or ``clamp=True`` (move into ``0..length`` first).

    >>> index = TextIndex("naïve café")
    >>> index.byte_length, index.char_length, index.utf16_length
    (12, 10, 10)
    >>> index.to_char(4), index.to_byte(3), index.slice(0, 6)
    (3, 4, 'naïve')
    >>> index.to_chars([12, 4, 4, 0])
    [10, 3, 3, 0]
    >>> index.to_char(3)
    Traceback (most recent call last):
    ...
    grounding_protos.OffsetError: byte offset 3 splits 'ï' (U+00EF), \
which occupies bytes [2, 4); valid byte offsets are 0..12 at character boundaries, \
such as 2 or 4
    >>> index.to_char(3, snap="floor"), index.to_char(99, clamp=True)
    (2, 10)
    """

    __slots__ = ("_bc", "_cb", "_mask", "_nbytes", "_nchars", "_nunits", "_text", "_uc")

    _text: str
    _mask: bytes | None  # None: the text is ASCII
    _nbytes: int
    _nchars: int
    _nunits: int  # -1 until counted
    _cb: array[int] | None  # characters before each 64-byte block (by lead byte)
    _bc: array[int] | None  # byte offset of every 64th character
    _uc: array[int] | None  # UTF-16 offset of every 64th character

    def __init__(self, text: str | bytes | bytearray | memoryview) -> None:
        mask: bytes | None
        if isinstance(text, str):
            if text.isascii():  # O(1) in CPython
                mask = None
                nbytes = len(text)
            else:
                try:
                    data = text.encode("utf-8")
                except UnicodeEncodeError as exc:
                    ch = text[exc.start]
                    raise TextEncodingError(
                        f"text has no UTF-8 form: it holds the lone surrogate {_describe(ch)} "
                        f"at character {exc.start} (of {len(text)})"
                    ) from exc
                mask = data.translate(_MASK_TABLE)
                nbytes = len(data)
            self._text = text
        elif isinstance(text, (bytes, bytearray, memoryview)):
            data = bytes(text)
            try:
                self._text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise TextEncodingError(
                    f"bytes are not valid UTF-8: {exc.reason} 0x{data[exc.start]:02X} "
                    f"at byte {exc.start} (of {len(data)})"
                ) from exc
            mask = None if data.isascii() else data.translate(_MASK_TABLE)
            nbytes = len(data)
        else:
            raise ArgumentTypeError(f"text must be str or bytes, not {type(text).__name__}")
        self._mask = mask
        self._nbytes = nbytes
        self._nchars = len(self._text)
        self._nunits = self._nchars if mask is None else -1
        self._cb = self._bc = self._uc = None

    def __repr__(self) -> str:
        return f"<TextIndex: {self._nbytes} bytes, {self._nchars} characters>"

    # --- lengths ------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The text, as a ``str``."""
        return self._text

    @property
    def is_ascii(self) -> bool:
        """True when the text is ASCII: all three units coincide."""
        return self._mask is None

    @property
    def byte_length(self) -> int:
        """Length of the text in UTF-8 bytes."""
        return self._nbytes

    @property
    def char_length(self) -> int:
        """Length of the text in characters (code points): ``len(text)``."""
        return self._nchars

    @property
    def utf16_length(self) -> int:
        """Length of the text in UTF-16 code units (counted on first use)."""
        if self._nunits < 0:
            assert self._mask is not None
            self._nunits = self._nchars + self._mask.count(_ASTRAL)
        return self._nunits

    def length(self, unit: Unit) -> int:
        """Length of the text in ``unit``.

        >>> TextIndex("👍🏽").length("utf16")
        4
        """
        unit = _check_unit(unit)
        if unit == "byte":
            return self._nbytes
        return self._nchars if unit == "char" else self.utf16_length

    # --- single offsets -------------------------------------------------------------

    def to_char(self, byte: int, *, snap: Snap | None = None, clamp: bool = False) -> int:
        """Character offset of byte offset ``byte``.

        >>> TextIndex("日本").to_char(3)
        1
        """
        if snap is None and type(byte) is int:
            mask = self._mask
            if mask is None:
                if 0 <= byte <= self._nbytes:
                    return byte
            elif 0 <= byte < self._nbytes and mask[byte] != 1:
                table = self._cb
                if table is not None:
                    base = byte >> _BSHIFT << _BSHIFT
                    return table[byte >> _BSHIFT] + byte - base - mask.count(1, base, byte)
        return self._one(byte, "byte", "char", snap, clamp, None)

    def to_byte(self, char: int, *, snap: Snap | None = None, clamp: bool = False) -> int:
        """Byte offset of character offset ``char`` (``snap`` never applies: every
        character offset is a boundary).

        >>> TextIndex("日本").to_byte(1)
        3
        """
        if snap is None and type(char) is int and 0 <= char <= self._nchars:
            if self._mask is None:
                return char
            table = self._bc
            if table is not None:
                j = char >> _CSHIFT
                return table[j] + len(self._text[j << _CSHIFT : char].encode("utf-8"))
        return self._one(char, "char", "byte", snap, clamp, None)

    def to_utf16(self, byte: int, *, snap: Snap | None = None, clamp: bool = False) -> int:
        """UTF-16 offset of byte offset ``byte``.

        >>> TextIndex("😀!").to_utf16(4)
        2
        """
        if self._mask is None:
            return self.to_char(byte, snap=snap, clamp=clamp)
        return self._unit_of_char(self.to_char(byte, snap=snap, clamp=clamp))

    def from_utf16(self, unit: int, *, snap: Snap | None = None, clamp: bool = False) -> int:
        """Byte offset of UTF-16 offset ``unit``.

        >>> TextIndex("😀!").from_utf16(2)
        4
        """
        return self._one(unit, "utf16", "byte", snap, clamp, None)

    def convert(
        self, offset: int, src: Unit, dst: Unit, *, snap: Snap | None = None, clamp: bool = False
    ) -> int:
        """Offset ``offset`` in unit ``src``, as a ``dst`` offset (any direction).

        With ``src == dst`` this validates, snaps or clamps an offset.

        >>> index = TextIndex("😀!")
        >>> index.convert(1, "char", "utf16"), index.convert(2, "byte", "byte", snap="ceil")
        (2, 4)
        """
        return self._one(offset, _check_unit(src), _check_unit(dst), snap, clamp, None)

    # --- bulk -------------------------------------------------------------------------

    def to_chars(
        self, offsets: Iterable[int], *, snap: Snap | None = None, clamp: bool = False
    ) -> list[int]:
        """Character offsets of many byte offsets (any order, repeats allowed), in input order.

        >>> TextIndex("日本語").to_chars([9, 0, 3, 3])
        [3, 0, 1, 1]
        """
        return self._many(offsets, "byte", "char", snap, clamp, "offsets[{}]")

    def to_bytes(
        self, offsets: Iterable[int], *, snap: Snap | None = None, clamp: bool = False
    ) -> list[int]:
        """Byte offsets of many character offsets, in input order.

        >>> TextIndex("日本語").to_bytes([3, 1])
        [9, 3]
        """
        return self._many(offsets, "char", "byte", snap, clamp, "offsets[{}]")

    def to_utf16s(
        self, offsets: Iterable[int], *, snap: Snap | None = None, clamp: bool = False
    ) -> list[int]:
        """UTF-16 offsets of many byte offsets, in input order.

        >>> TextIndex("😀😀").to_utf16s([8, 4])
        [4, 2]
        """
        return self._many(offsets, "byte", "utf16", snap, clamp, "offsets[{}]")

    def from_utf16s(
        self, offsets: Iterable[int], *, snap: Snap | None = None, clamp: bool = False
    ) -> list[int]:
        """Byte offsets of many UTF-16 offsets, in input order.

        >>> TextIndex("😀😀").from_utf16s([4, 2])
        [8, 4]
        """
        return self._many(offsets, "utf16", "byte", snap, clamp, "offsets[{}]")

    def convert_many(
        self,
        offsets: Iterable[int],
        src: Unit,
        dst: Unit,
        *,
        snap: Snap | None = None,
        clamp: bool = False,
    ) -> list[int]:
        """Many ``src`` offsets as ``dst`` offsets, in input order (any direction).

        >>> TextIndex("é😀").convert_many([3, 1], "utf16", "char")
        [2, 1]
        """
        src, dst = _check_unit(src), _check_unit(dst)
        return self._many(offsets, src, dst, snap, clamp, "offsets[{}]")

    # --- spans ------------------------------------------------------------------------

    def slice(
        self, start: int, end: int, *, snap: SpanSnap | None = None, clamp: bool = False
    ) -> str:
        """The text between byte offsets ``start`` and ``end``.

        >>> TextIndex("Grüße, 世界").slice(9, 15)
        '世界'
        >>> TextIndex("Grüße, 世界").slice(10, 14, snap="outward")
        '世界'
        """
        first, last = self.convert_span(start, end, "byte", "char", snap=snap, clamp=clamp)
        return self._text[first:last]

    def to_char_span(
        self, start: int, end: int, *, snap: SpanSnap | None = None, clamp: bool = False
    ) -> tuple[int, int]:
        """A byte span ``(start, end)`` as a character span.

        >>> TextIndex("Grüße, 世界").to_char_span(9, 15)
        (7, 9)
        """
        return self.convert_span(start, end, "byte", "char", snap=snap, clamp=clamp)

    def to_byte_span(
        self, start: int, end: int, *, snap: SpanSnap | None = None, clamp: bool = False
    ) -> tuple[int, int]:
        """A character span as a byte span.

        >>> TextIndex("Grüße, 世界").to_byte_span(7, 9)
        (9, 15)
        """
        return self.convert_span(start, end, "char", "byte", snap=snap, clamp=clamp)

    def to_utf16_span(
        self, start: int, end: int, *, snap: SpanSnap | None = None, clamp: bool = False
    ) -> tuple[int, int]:
        """A byte span as a UTF-16 span.

        >>> TextIndex("😀 ok").to_utf16_span(5, 7)
        (3, 5)
        """
        return self.convert_span(start, end, "byte", "utf16", snap=snap, clamp=clamp)

    def from_utf16_span(
        self, start: int, end: int, *, snap: SpanSnap | None = None, clamp: bool = False
    ) -> tuple[int, int]:
        """A UTF-16 span as a byte span.

        >>> TextIndex("😀 ok").from_utf16_span(3, 5)
        (5, 7)
        """
        return self.convert_span(start, end, "utf16", "byte", snap=snap, clamp=clamp)

    def convert_span(
        self,
        start: int,
        end: int,
        src: Unit,
        dst: Unit,
        *,
        snap: SpanSnap | None = None,
        clamp: bool = False,
    ) -> tuple[int, int]:
        """A ``src`` span ``(start, end)`` as a ``dst`` span; ``start > end`` is an error.

        ``snap="outward"`` widens a span to whole characters (start floored, end
        ceiled); ``"floor"``/``"ceil"`` move both ends the same way.

        >>> TextIndex("é").convert_span(1, 1, "byte", "char", snap="outward")
        (0, 1)
        """
        src, dst = _check_unit(src), _check_unit(dst)
        start_snap, end_snap = _span_snaps(snap)
        first = self._one(start, src, dst, start_snap, clamp, "span start")
        last = self._one(end, src, dst, end_snap, clamp, "span end")
        if first > last:
            raise OffsetError(_reversed_message("span", start, end, src))
        return first, last

    def convert_spans(
        self,
        spans: Iterable[tuple[int, int]],
        src: Unit,
        dst: Unit,
        *,
        snap: SpanSnap | None = None,
        clamp: bool = False,
    ) -> list[tuple[int, int]]:
        """Many ``src`` spans as ``dst`` spans, in input order.

        >>> TextIndex("日本語").convert_spans([(3, 9), (0, 3)], "byte", "char")
        [(1, 3), (0, 1)]
        """
        src, dst = _check_unit(src), _check_unit(dst)
        start_snap, end_snap = _span_snaps(snap)
        pairs = spans if isinstance(spans, (list, tuple)) else list(spans)
        try:
            starts = [s for s, _ in pairs]
            ends = [e for _, e in pairs]
        except (TypeError, ValueError):
            for i, pair in enumerate(pairs):
                if not isinstance(pair, Sequence) or len(pair) != 2:
                    raise ArgumentTypeError(
                        f"spans[{i}] must be a (start, end) pair, not {shown(pair)}"
                    ) from None
            raise
        firsts = self._many(starts, src, dst, start_snap, clamp, "spans[{}] start")
        lasts = self._many(ends, src, dst, end_snap, clamp, "spans[{}] end")
        if any(map(operator.gt, firsts, lasts)):
            i = next(i for i, (f, la) in enumerate(zip(firsts, lasts, strict=True)) if f > la)
            raise OffsetError(_reversed_message(f"spans[{i}]", starts[i], ends[i], src))
        return list(zip(firsts, lasts, strict=True))

    # --- machinery --------------------------------------------------------------------

    def _one(
        self, offset: object, src: Unit, dst: Unit, snap: object, clamp: bool, label: str | None
    ) -> int:
        """Converts one offset, strictly or leniently; every error message is built here."""
        _check_snap(snap)
        value = self._fix(offset, src, snap, clamp, label)  # type: ignore[arg-type]
        if self._mask is None:
            return value
        if src == "byte":
            char = self._char_of_byte(value)
        elif src == "char":
            char = value
        else:
            char = self._char_of_unit(value)
            if char < 0:
                if snap is None:
                    raise OffsetError(_prefixed(label, self._unit_split_message(value)))
                char = self._char_of_unit(value - 1) + (1 if snap == "ceil" else 0)
        if dst == "char":
            return char
        return self._byte_of_char(char) if dst == "byte" else self._unit_of_char(char)

    def _fix(
        self, offset: object, unit: Unit, snap: Snap | None, clamp: bool, label: str | None
    ) -> int:
        """Checks type and range (clamping if asked) and snaps a byte offset to a boundary."""
        value = _as_offset(offset, unit, label)
        size = self.length(unit)
        if value < 0 or value > size:
            if not clamp:
                where = "is negative" if value < 0 else "is past the end of the text"
                raise OffsetError(
                    _prefixed(
                        label,
                        f"{_NAME[unit]} offset {shown(value)} {where}; "
                        f"valid {_NAME[unit]} offsets are 0..{size}",
                    )
                )
            value = 0 if value < 0 else size
        mask = self._mask
        if unit == "byte" and mask is not None and value < size and mask[value] == 1:
            if snap is None:
                raise OffsetError(_prefixed(label, self._byte_split_message(value)))
            step = -1 if snap == "floor" else 1
            while value < size and mask[value] == 1:
                value += step
        return value

    def _byte_split_message(self, byte: int) -> str:
        mask = self._mask
        assert mask is not None
        lo = hi = byte
        while mask[lo] == 1:
            lo -= 1
        while hi < self._nbytes and mask[hi] == 1:
            hi += 1
        ch = self._text[self._char_of_byte(lo)]
        return (
            f"byte offset {byte} splits {_describe(ch)}, which occupies bytes [{lo}, {hi}); "
            f"valid byte offsets are 0..{self._nbytes} at character boundaries, "
            f"such as {lo} or {hi}"
        )

    def _unit_split_message(self, unit: int) -> str:
        char = self._char_of_unit(unit - 1)
        lo = self._byte_of_char(char)
        return (
            f"UTF-16 offset {unit} splits the surrogate pair of {_describe(self._text[char])}, "
            f"which occupies UTF-16 units [{unit - 1}, {unit + 1}) and bytes [{lo}, {lo + 4}); "
            f"valid UTF-16 offsets are 0..{self.utf16_length} at character boundaries, "
            f"such as {unit - 1} or {unit + 1}"
        )

    # Lookups on valid offsets of a non-ASCII text, through the lazy tables.

    def _char_of_byte(self, byte: int) -> int:
        mask = self._mask
        if mask is None:
            return byte
        table = self._cb
        if table is None:
            size = self._nbytes
            step = 1 << _BSHIFT
            last = size >> _BSHIFT << _BSHIFT
            conts = map(mask.count, repeat(1), range(0, last, step), range(step, last + 1, step))
            starts = range(0, last + 1, step)
            table = self._cb = array("q", map(operator.sub, starts, accumulate(conts, initial=0)))
        base = byte >> _BSHIFT << _BSHIFT
        return table[byte >> _BSHIFT] + byte - base - mask.count(1, base, byte)

    def _char_blocks(self, encoding: str) -> array[int]:
        """Cumulative ``encoding`` lengths of the text's 64-character blocks."""
        text = self._text
        step = 1 << _CSHIFT
        last = self._nchars >> _CSHIFT << _CSHIFT
        pieces = map(
            text.__getitem__, map(slice, range(0, last, step), range(step, last + 1, step))
        )
        sizes = map(len, map(operator.methodcaller("encode", encoding), pieces))
        return array("q", accumulate(sizes, initial=0))

    def _byte_of_char(self, char: int) -> int:
        if self._mask is None:
            return char
        table = self._bc
        if table is None:
            table = self._bc = self._char_blocks("utf-8")
        j = char >> _CSHIFT
        return table[j] + len(self._text[j << _CSHIFT : char].encode("utf-8"))

    def _unit_of_char(self, char: int) -> int:
        table = self._uc
        if table is None:
            if self.utf16_length == self._nchars:  # no astral characters
                return char
            blocks = self._char_blocks("utf-16-le")
            table = self._uc = array("q", map(operator.rshift, blocks, repeat(1)))
        j = char >> _CSHIFT
        return table[j] + (len(self._text[j << _CSHIFT : char].encode("utf-16-le")) >> 1)

    def _char_of_unit(self, unit: int) -> int:
        """Character offset of a UTF-16 offset in range, or -1 if it splits a pair."""
        if self.utf16_length == self._nchars:
            return unit
        if self._uc is None:
            self._unit_of_char(0)  # builds the table
        table = self._uc
        assert table is not None
        j = bisect_right(table, unit) - 1
        base = j << _CSHIFT
        r = unit - table[j]
        if not r:
            return base
        seg = self._text[base : base + r].encode("utf-16-le")[: 2 * r]
        if 0xD8 <= seg[-1] <= 0xDB:
            return -1
        return base + len(seg.decode("utf-16-le"))

    # Bulk conversion.

    def _many(
        self,
        offsets: Iterable[object],
        src: Unit,
        dst: Unit,
        snap: object,
        clamp: bool,
        label: str,
        allow_build: bool = True,
    ) -> list[int]:
        _check_snap(snap)
        seq = offsets if isinstance(offsets, (list, tuple)) else list(offsets)
        if not seq:
            return []
        offsets_in = seq
        size = self.length(src)
        try:
            keys = sorted(set(seq))  # plain ints in the common case
            plain = set(map(type, keys)) == {int}
        except TypeError:  # unhashable or incomparable: not plain ints
            plain = False
        fixed: list[int] | None = None
        try:
            if not plain:  # e.g. objects with __index__: convert each, once
                seq = [_as_offset(o, src, None) for o in seq]
                keys = sorted(set(seq))
            if snap is None and keys[0] >= 0 and keys[-1] <= size:
                values = keys
            else:
                fixed = [self._fix(k, src, snap, clamp, None) for k in keys]  # type: ignore[arg-type]
                values = sorted(set(fixed))
            results = self._sorted(values, src, dst, snap, allow_build)  # type: ignore[arg-type]
        except (TypeError, OffsetError, _Invalid):
            self._raise_first_error(offsets_in, src, dst, snap, clamp, label)
        table = dict(zip(values, results, strict=True))
        if fixed is not None:
            table = {k: table[f] for k, f in zip(keys, fixed, strict=True)}
        if len(seq) == 1:
            return [table[seq[0]]]
        return list(operator.itemgetter(*seq)(table))

    def _raise_first_error(
        self, seq: Sequence[object], src: Unit, dst: Unit, snap: object, clamp: bool, label: str
    ) -> NoReturn:
        for i, offset in enumerate(seq):
            self._one(offset, src, dst, snap, clamp, label.format(i))
        raise AssertionError("a bulk conversion failed, but no single offset does")

    def _use_table(self, table: object, count: int, extent: int, allow_build: bool) -> bool:
        """Per-offset lookups beat a walk when offsets are few for the stretch walked."""
        if table is not None:
            return count * 64 < extent
        return allow_build and count * 4096 < extent

    def _sorted(
        self, values: list[int], src: Unit, dst: Unit, snap: Snap | None, allow_build: bool
    ) -> list[int]:
        """Converts sorted, distinct, in-range offsets; raises _Invalid on a strict split.

        Goes through byte offsets, whose conversions are counts over the mask."""
        mask = self._mask
        if mask is None:
            return values
        text = self._text
        count = len(values)
        bmp = self.utf16_length == self._nchars if "utf16" in (src, dst) else False
        chars: list[int] | None = None
        if src == "byte":
            inside = values if values[-1] < self._nbytes else values[:-1]
            if 1 in bytes(map(mask.__getitem__, inside)):  # a continuation byte
                raise _Invalid
            offsets = values
        else:
            if src == "char" or bmp:
                chars = values
            elif self._use_table(self._uc, count, values[-1], allow_build):
                chars = [self._char_of_unit(u) for u in values]
                for i, char in enumerate(chars):
                    if char < 0:  # splits a surrogate pair
                        if snap is None:
                            raise _Invalid
                        chars[i] = self._char_of_unit(values[i] - 1) + (1 if snap == "ceil" else 0)
            else:
                chars = _walk_units_to_chars(text, values, snap)
            if dst == "char" or (dst == "utf16" and bmp):
                return chars
            if self._use_table(self._bc, count, chars[-1], allow_build):
                offsets = [self._byte_of_char(c) for c in chars]
            else:
                offsets = _walk_chars_to_bytes(text, chars)
        if dst == "byte":
            return offsets
        if dst == "utf16" and bmp:
            dst = "char"
        if chars is not None and dst == "char":
            return chars
        if self._use_table(self._cb, count, offsets[-1], allow_build):
            if dst == "char":
                return [self._char_of_byte(b) for b in offsets]
            return [self._unit_of_char(self._char_of_byte(b)) for b in offsets]
        return _walk_bytes(mask, offsets, dst == "utf16")


# --- One-shot functions ---------------------------------------------------------------


def _one_shot(
    text: str | bytes, offset: int, src: Unit, dst: Unit, snap: Snap | None, clamp: bool
) -> int:
    # The bulk path with one offset walks the text instead of building lookup tables.
    return TextIndex(text)._many([offset], src, dst, snap, clamp, "", allow_build=False)[0]


def byte_to_char(
    text: str | bytes, byte: int, *, snap: Snap | None = None, clamp: bool = False
) -> int:
    """Character offset of byte offset ``byte`` in ``text``, without keeping an index.

    >>> byte_to_char("naïve", 4)
    3
    """
    return _one_shot(text, byte, "byte", "char", snap, clamp)


def char_to_byte(
    text: str | bytes, char: int, *, snap: Snap | None = None, clamp: bool = False
) -> int:
    """Byte offset of character offset ``char`` in ``text``.

    >>> char_to_byte("naïve", 3)
    4
    """
    return _one_shot(text, char, "char", "byte", snap, clamp)


def byte_to_utf16(
    text: str | bytes, byte: int, *, snap: Snap | None = None, clamp: bool = False
) -> int:
    """UTF-16 offset of byte offset ``byte`` in ``text``.

    >>> byte_to_utf16("😀 ok", 5)
    3
    """
    return _one_shot(text, byte, "byte", "utf16", snap, clamp)


def utf16_to_byte(
    text: str | bytes, unit: int, *, snap: Snap | None = None, clamp: bool = False
) -> int:
    """Byte offset of UTF-16 offset ``unit`` in ``text``.

    >>> utf16_to_byte("😀 ok", 3)
    5
    """
    return _one_shot(text, unit, "utf16", "byte", snap, clamp)


def char_to_utf16(
    text: str | bytes, char: int, *, snap: Snap | None = None, clamp: bool = False
) -> int:
    """UTF-16 offset of character offset ``char`` in ``text``.

    >>> char_to_utf16("😀 ok", 2)
    3
    """
    return _one_shot(text, char, "char", "utf16", snap, clamp)


def utf16_to_char(
    text: str | bytes, unit: int, *, snap: Snap | None = None, clamp: bool = False
) -> int:
    """Character offset of UTF-16 offset ``unit`` in ``text``.

    >>> utf16_to_char("😀 ok", 3)
    2
    """
    return _one_shot(text, unit, "utf16", "char", snap, clamp)


def byte_slice(
    text: str | bytes,
    start: int,
    end: int,
    *,
    snap: SpanSnap | None = None,
    clamp: bool = False,
) -> str:
    """``text`` between byte offsets ``start`` and ``end``, as a ``str``.

    >>> byte_slice("Grüße, 世界", 9, 15)
    '世界'
    """
    index = TextIndex(text)
    start_snap, end_snap = _span_snaps(snap)
    first = index._many([start], "byte", "char", start_snap, clamp, "span start", False)[0]
    last = index._many([end], "byte", "char", end_snap, clamp, "span end", False)[0]
    if first > last:
        raise OffsetError(_reversed_message("span", start, end, "byte"))
    return index.text[first:last]


# --- Multi-part text --------------------------------------------------------------------


class PartMap:
    """Maps offsets within the parts of a multi-part text to the joined text and back.

    Gemini's ``Segment.part_index`` names one ``Part`` of a ``Content``, and its
    ``start_index``/``end_index`` are byte offsets within that part's text; Gemini
    joins parts with no separator, hence ``separator=""`` by default. Offsets are in
    any :data:`Unit` (``"byte"`` by default), the same unit on both sides; they are
    checked exactly as :class:`TextIndex` checks them, and ``snap``/``clamp`` work
    the same way (clamping into the part, for ``to_joined``).

    An offset on the boundary between two parts maps to the part that starts there,
    except the end of the text, which maps to the end of the last part. An offset
    strictly inside a separator belongs to no part: :class:`OffsetError`.

    >>> parts = PartMap(["Grüße, ", "世界"])
    >>> parts.text
    'Grüße, 世界'
    >>> parts.to_joined(1, 3), parts.from_joined(12), parts.from_joined(9)
    (12, (1, 3), (1, 0))
    >>> parts.to_joined(1, 1, unit="char"), parts.bounds(1)
    (8, (9, 15))
    """

    __slots__ = ("_index", "_parts", "_separator", "_spans", "_text")

    _parts: tuple[TextIndex, ...]
    _separator: TextIndex
    _text: str
    _index: TextIndex | None
    _spans: dict[str, tuple[list[int], list[int]]]  # unit -> (starts, ends) in the joined text

    def __init__(self, parts: Iterable[str | bytes], separator: str | bytes = "") -> None:
        indexes = []
        for i, part in enumerate(parts):
            try:
                indexes.append(TextIndex(part))
            except (TextEncodingError, ArgumentTypeError) as exc:
                raise type(exc)(f"parts[{i}]: {exc}") from exc
        self._parts = tuple(indexes)
        try:
            self._separator = TextIndex(separator)
        except (TextEncodingError, ArgumentTypeError) as exc:
            raise type(exc)(f"separator: {exc}") from exc
        self._text = self._separator.text.join(index.text for index in indexes)
        self._index = None
        self._spans = {}

    def __len__(self) -> int:
        return len(self._parts)

    def __repr__(self) -> str:
        return f"<PartMap: {len(self._parts)} parts, {len(self._text)} characters>"

    @property
    def text(self) -> str:
        """The joined text."""
        return self._text

    @property
    def parts(self) -> tuple[str, ...]:
        """The parts, as ``str``."""
        return tuple(index.text for index in self._parts)

    @property
    def index(self) -> TextIndex:
        """A :class:`TextIndex` of the joined text (built on first use)."""
        if self._index is None:
            self._index = TextIndex(self._text)
        return self._index

    def index_of(self, part: int) -> TextIndex:
        """The :class:`TextIndex` of one part.

        >>> PartMap(["a", "é"]).index_of(1).byte_length
        2
        """
        return self._parts[self._check_part(part)]

    def bounds(self, part: int, unit: Unit = "byte") -> tuple[int, int]:
        """Where part ``part`` starts and ends in the joined text, in ``unit``."""
        part = self._check_part(part)
        starts, ends = self._bounds(_check_unit(unit))
        return starts[part], ends[part]

    def to_joined(
        self,
        part: int,
        offset: int,
        unit: Unit = "byte",
        *,
        snap: Snap | None = None,
        clamp: bool = False,
    ) -> int:
        """The joined-text offset of ``offset`` within part ``part``."""
        part = self._check_part(part)
        unit = _check_unit(unit)
        value = self._parts[part]._one(offset, unit, unit, snap, clamp, f"part {part}")
        return self._bounds(unit)[0][part] + value

    def to_joined_span(
        self,
        part: int,
        start: int,
        end: int,
        unit: Unit = "byte",
        *,
        snap: SpanSnap | None = None,
        clamp: bool = False,
    ) -> tuple[int, int]:
        """The joined-text span of span ``(start, end)`` within part ``part``.

        >>> PartMap(["ab", "日本"]).to_joined_span(1, 3, 6)
        (5, 8)
        """
        part = self._check_part(part)
        unit = _check_unit(unit)
        start_snap, end_snap = _span_snaps(snap)
        index = self._parts[part]
        first = index._one(start, unit, unit, start_snap, clamp, f"part {part} span start")
        last = index._one(end, unit, unit, end_snap, clamp, f"part {part} span end")
        if first > last:
            raise OffsetError(_reversed_message(f"part {part} span", start, end, unit))
        base = self._bounds(unit)[0][part]
        return base + first, base + last

    def from_joined(
        self,
        offset: int,
        unit: Unit = "byte",
        *,
        snap: Snap | None = None,
        clamp: bool = False,
    ) -> tuple[int, int]:
        """``(part, offset within the part)`` of a joined-text offset."""
        unit = _check_unit(unit)
        value = self.index._one(offset, unit, unit, snap, clamp, "joined text")
        what = f"{_NAME[unit]} offset {shown(offset)}"
        part, value, _ = self._locate(value, value, unit, what)
        return part, value

    def from_joined_span(
        self,
        start: int,
        end: int,
        unit: Unit = "byte",
        *,
        snap: SpanSnap | None = None,
        clamp: bool = False,
    ) -> tuple[int, int, int]:
        """``(part, start, end)`` of a joined-text span, which must lie within one part.

        >>> PartMap(["ab", "日本"]).from_joined_span(5, 8)
        (1, 3, 6)
        """
        unit = _check_unit(unit)
        start_snap, end_snap = _span_snaps(snap)
        index = self.index
        first = index._one(start, unit, unit, start_snap, clamp, "joined text span start")
        last = index._one(end, unit, unit, end_snap, clamp, "joined text span end")
        if first > last:
            raise OffsetError(_reversed_message("joined text span", start, end, unit))
        what = f"{_NAME[unit]} span ({shown(start)}, {shown(end)})"
        return self._locate(first, last, unit, what)

    def _check_part(self, part: object) -> int:
        value = _as_part(part)
        if not 0 <= value < len(self._parts):
            raise OffsetError(
                f"part index {shown(value)} is out of range; valid part indexes are "
                + (f"0..{len(self._parts) - 1}" if self._parts else "none (there are no parts)")
            )
        return value

    def _bounds(self, unit: Unit) -> tuple[list[int], list[int]]:
        spans = self._spans.get(unit)
        if spans is None:
            gap = self._separator.length(unit)
            starts: list[int] = []
            ends: list[int] = []
            position = 0
            for index in self._parts:
                starts.append(position)
                position += index.length(unit)
                ends.append(position)
                position += gap
            spans = self._spans[unit] = (starts, ends)
        return spans

    def _locate(self, first: int, last: int, unit: Unit, what: str) -> tuple[int, int, int]:
        starts, ends = self._bounds(unit)
        part = bisect_right(starts, first) - 1
        if part < 0:
            raise OffsetError(f"joined text: {what} belongs to no part: there are no parts")
        if first > ends[part]:
            raise OffsetError(
                f"joined text: {what} is inside the separator between parts {part} and "
                f"{part + 1}, which occupies {_PLURAL[unit]} [{ends[part]}, {starts[part + 1]})"
            )
        if last > ends[part]:
            raise OffsetError(
                f"joined text: {what} crosses the end of part {part} "
                f"({_PLURAL[unit]} [{starts[part]}, {ends[part]}))"
            )
        return part, first - starts[part], last - starts[part]


def _as_part(value: object) -> int:
    if type(value) is int:
        return value
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ArgumentTypeError(
            f"part index must be an int, not {type(value).__name__} {shown(value)}"
        ) from None


def _reversed_message(label: str, start: object, end: object, unit: str) -> str:
    return (
        f"{label} ({shown(start)}, {shown(end)}) is reversed: its start is after its end "
        f"({_NAME[unit]} offsets)"
    )


public(
    "grounding_protos.offsets",
    TextIndex,
    PartMap,
    byte_slice,
    byte_to_char,
    byte_to_utf16,
    char_to_byte,
    char_to_utf16,
    utf16_to_byte,
    utf16_to_char,
)
