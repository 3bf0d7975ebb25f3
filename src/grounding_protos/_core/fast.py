"""Placing the spans of a declared shape's fast reader, all or nothing.

A fast reader (``_sources/*/shape.py``) hands over spans whose values its declared
types already checked; :func:`place` gives their citations exactly as
``_core.resolve`` gives them when nothing is wrong, and ``None`` as soon as something
is (an offset out of range, inverted, splitting a character, a ``segment.text`` that
differs from the text at its offsets, a text without a UTF-8 form): the input is then
read the tolerant way, which repairs, records or raises it. No problem, path or
message is built here.

>>> [c.text for c in place("Grüße, Welt", [(0, 7, "Grüße", (), (), None, "s[0]")], "support")]
['Grüße']
>>> place("Grüße", [(0, 3, None, (), (), None, "s[0]")], "support") is None  # splits ü
True

:func:`place_chars` does the same for spans in characters (code points), as OpenAI's
offsets are:

>>> [(c.start, c.end, c.text) for c in place_chars("Grüße, Köln", [(7, 11, None, (), (), 0, "a")],
...                                                "citation")]
[(9, 14, 'Köln')]
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import msgspec

from grounding_protos._core.model import (
    Citation,
    CitationKind,
    SharedText,
    Source,
    _CitationSlots,
)
from grounding_protos._offsets import _walk_chars_to_bytes

_CONTINUATION = bytes(1 if 0x80 <= b < 0xC0 else 0 for b in range(256))

T = TypeVar("T")

# what a declared decode or conversion raises for an input that is not its shape (a
# RecursionError: nesting past msgspec's depth); the tolerant reader says what is wrong
_NOT_THE_SHAPE = (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError,
                  RecursionError)  # fmt: skip


class Codec(Generic[T]):
    """A declared shape's way in: :meth:`decode` from JSON text, :meth:`convert` from a
    dict, each ``None`` when the input is not the shape (invalid JSON, a field it does
    not declare or of another type), so that it goes the tolerant way.

    >>> class Point(msgspec.Struct):
    ...     x: int
    >>> codec = Codec(Point)
    >>> codec.decode('{"x": 1}'), codec.decode('{"x": "1"}'), codec.convert({"x": 2})
    (Point(x=1), None, Point(x=2))
    """

    def __init__(self, shape: type[T]) -> None:
        self.shape = shape
        self._decoder = msgspec.json.Decoder(shape)

    def decode(self, data: str | bytes) -> T | None:
        try:
            return self._decoder.decode(data)
        except _NOT_THE_SHAPE:
            return None

    def convert(self, obj: object) -> T | None:
        try:
            return msgspec.convert(obj, self.shape)
        except _NOT_THE_SHAPE:
            return None


Span = tuple[int, int, str | None, tuple[Source, ...], tuple[float, ...], int | None, str]
"""A span in whole-text UTF-8 bytes (characters for :func:`place_chars`): start, end,
its own text (``None``: none given), sources, per-source scores, the part index the
input gave, and its path."""


def place(text: str, spans: list[Span], kind: CitationKind) -> list[Citation] | None:
    """The citations of ``spans`` on ``text``, or ``None`` when one of them is not
    exactly where its offsets say, or the text has no UTF-8 form (even without spans:
    ``resolve`` reports such a text)."""
    ascii_text = text.isascii()
    if ascii_text:
        size = len(text)
        data = b""
    else:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate
            return None
        size = len(data)
    if not spans:
        return []
    bounds = _bounds(spans, size)
    if bounds is None:
        return None
    chars: dict[int, int] = {}
    if not ascii_text:
        # characters before each byte offset: the bytes before it less the continuation
        # bytes among them, counted gap by gap in C; an offset at a continuation byte
        # splits a character
        mask = data.translate(_CONTINUATION)
        count = mask.count
        char = previous = 0
        for offset in sorted(set(bounds)):
            if offset < size and mask[offset]:
                return None
            char += offset - previous - count(1, previous, offset)
            chars[offset] = char
            previous = offset
    return _citations(text, spans, kind, chars, ascii_text, in_bytes=True)


def place_chars(text: str, spans: list[Span], kind: CitationKind) -> list[Citation] | None:
    """:func:`place` for spans whose offsets are whole-text characters (code points): their
    UTF-8 byte offsets are the encoded lengths of the gaps between the sorted offsets,
    each encoded once."""
    ascii_text = text.isascii()
    size = len(text)
    bounds = _bounds(spans, size)
    if bounds is None:
        return None
    offsets: dict[int, int] = {}
    if not ascii_text:
        # sorted (in order already, as a response lists its spans: a linear sort), with
        # the text's end: every character is encoded once, a lone surrogate fails
        ordered = sorted(bounds)
        ordered.append(size)
        try:
            offsets = dict(zip(ordered, _walk_chars_to_bytes(text, ordered), strict=True))
        except UnicodeEncodeError:
            return None
    return _citations(text, spans, kind, offsets, ascii_text, in_bytes=False)


def _bounds(spans: list[Span], size: int) -> list[int] | None:
    """The offsets of ``spans`` in their order, or ``None`` when one of them is out of
    ``0..size`` or inverted."""
    bounds: list[int] = []
    add = bounds.append
    for span in spans:
        start, end = span[0], span[1]
        if not 0 <= start <= end <= size:
            return None
        add(start)
        add(end)
    return bounds


def _citations(
    text: str,
    spans: list[Span],
    kind: CitationKind,
    other: dict[int, int],
    ascii_text: bool,
    in_bytes: bool,
) -> list[Citation] | None:
    """The citations of spans already checked in range: ``other`` maps each of their
    offsets (bytes if ``in_bytes``, else characters) to the other unit (unused for ASCII
    text, where both coincide); ``None`` when a span's own text is not at its offsets."""
    shared = SharedText(text)
    out: list[Citation] = []
    append = out.append
    blank = _CitationSlots
    citation_type = Citation
    for start, end, cited, sources, scores, part, path in spans:
        if ascii_text:
            char_start, char_end = start, end
        elif in_bytes:
            char_start, char_end = other[start], other[end]
        else:
            char_start, char_end = start, end
            start, end = other[start], other[end]
        if cited is not None and (
            len(cited) != char_end - char_start or not text.startswith(cited, char_start)
        ):
            return None
        # new_citation's stores, inline: a call with eleven arguments costs as much
        new: Any = blank()
        new.start = start
        new.end = end
        new.char_start = char_start
        new.char_end = char_end
        new.text = shared
        new.sources = sources
        new.kind = kind
        new.score = None
        new.source_scores = scores
        new.part = part
        new.path = path
        new.__class__ = citation_type
        append(new)
    return out
