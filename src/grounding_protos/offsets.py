"""UTF-8 byte ↔ character ↔ UTF-16 offsets: strict, fast, protobuf-free.

Every span in the grounding schemas is a UTF-8 *byte* range; Python indexes a
``str`` by code point and JavaScript by UTF-16 unit, so ``text[start:end]`` is wrong
for any non-ASCII text. :class:`TextIndex` converts correctly and loudly:

>>> from grounding_protos.offsets import TextIndex
>>> index = TextIndex("Grüße, 世界")
>>> index.slice(9, 15), index.to_char_span(9, 15), index.to_utf16(15)
('世界', (7, 9), 9)

See ``docs/offsets.md``. This module imports nothing from protobuf.
"""

from grounding_protos._exceptions import OffsetError, TextEncodingError
from grounding_protos._offsets import (
    PartMap,
    Snap,
    SpanSnap,
    TextIndex,
    Unit,
    byte_slice,
    byte_to_char,
    byte_to_utf16,
    char_to_byte,
    char_to_utf16,
    utf16_to_byte,
    utf16_to_char,
)

__all__ = [
    "OffsetError",
    "PartMap",
    "Snap",
    "SpanSnap",
    "TextEncodingError",
    "TextIndex",
    "Unit",
    "byte_slice",
    "byte_to_char",
    "byte_to_utf16",
    "char_to_byte",
    "char_to_utf16",
    "utf16_to_byte",
    "utf16_to_char",
]
