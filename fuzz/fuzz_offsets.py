"""Coverage-guided fuzzing of ``grounding_protos.offsets``.

Input: byte 0 picks ``snap``/``clamp`` and how the text is given (``str``,
``bytes``, or parts of a ``PartMap``); then a 1-byte text length and the text
(UTF-8, possibly invalid); the rest are signed offsets of 1, 2, 4 or 8 bytes and
every 5th one past ``str()``'s digit limit. Contract: only ``OffsetError``,
``ArgumentTypeError`` or (for the text) ``TextEncodingError``; results in range.

    python fuzz/fuzz_offsets.py [CORPUS_DIR] -max_total_time=60
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from typing import Any

import atheris

with atheris.instrument_imports(include=["grounding_protos"]):
    from grounding_protos import ArgumentTypeError, offsets
    from grounding_protos.offsets import OffsetError, PartMap, TextEncodingError, TextIndex

SNAPS: list[Any] = [None, "floor", "ceil"]
SPAN_SNAPS: list[Any] = [None, "floor", "ceil", "outward"]
UNITS: list[Any] = ["byte", "char", "utf16"]
HUGE = 10**5000


def _offsets(data: bytes) -> list[int]:
    out: list[int] = []
    pos = 0
    while pos < len(data):
        size = 1 << (data[pos] % 4)  # 1, 2, 4 or 8 bytes
        chunk = data[pos + 1 : pos + 1 + size]
        pos += 1 + size
        value = int.from_bytes(chunk, "little", signed=True)
        out.append(value * HUGE if len(out) % 5 == 4 else value)
    return out or [0]


def TestOneInput(data: bytes) -> None:
    if len(data) < 2:
        return
    flags, size = data[0], data[1]
    raw, numbers = data[2 : 2 + size], _offsets(data[2 + size :])
    snap = SNAPS[flags % 3]
    span_snap = SPAN_SNAPS[(flags >> 2) % 4]
    clamp = bool(flags & 16)
    unit = UNITS[(flags >> 5) % 3]
    text: str | bytes = raw if flags & 128 else raw.decode("utf-8", "surrogateescape")
    a, b = numbers[0], numbers[-1]
    try:
        if flags & 64:
            parts = PartMap(raw.split(b"|"), separator="¶" if flags & 1 else "")
            _check_parts(parts, a, b, numbers, unit, snap, span_snap, clamp)
            return
        index = TextIndex(text)
    except TextEncodingError:
        return
    calls: list[Callable[[], object]] = [
        lambda: index.to_char(a, snap=snap, clamp=clamp),
        lambda: index.to_byte(a, snap=snap, clamp=clamp),
        lambda: index.to_utf16(a, snap=snap, clamp=clamp),
        lambda: index.from_utf16(a, snap=snap, clamp=clamp),
        lambda: index.convert_many(numbers, unit, "byte", snap=snap, clamp=clamp),
        lambda: index.convert_many(numbers, "byte", unit, snap=snap, clamp=clamp),
        lambda: index.slice(a, b, snap=span_snap, clamp=clamp),
        lambda: index.convert_span(a, b, unit, "utf16", snap=span_snap, clamp=clamp),
        lambda: index.convert_spans(list(itertools.pairwise(numbers)), "byte", unit,
                                    snap=span_snap, clamp=clamp),
        lambda: offsets.byte_to_char(text, a, snap=snap, clamp=clamp),
        lambda: offsets.utf16_to_byte(text, a, snap=snap, clamp=clamp),
        lambda: offsets.byte_slice(text, a, b, snap=span_snap, clamp=clamp),
    ]  # fmt: skip
    for call in calls:
        try:
            result = call()
        except (OffsetError, ArgumentTypeError) as exc:
            assert str(exc)
            continue
        _check_range(result, index.byte_length)


def _check_parts(
    parts: PartMap, a: int, b: int, numbers: list[int], unit: Any, snap: Any, span_snap: Any,
    clamp: bool,
) -> None:  # fmt: skip
    calls: list[Callable[[], object]] = [
        lambda: parts.to_joined(a, b, unit, snap=snap, clamp=clamp),
        lambda: parts.to_joined_span(a, b, numbers[0], unit, snap=span_snap, clamp=clamp),
        lambda: parts.from_joined(a, unit, snap=snap, clamp=clamp),
        lambda: parts.from_joined_span(a, b, unit, snap=span_snap, clamp=clamp),
        lambda: parts.bounds(a, unit),
    ]  # fmt: skip
    for call in calls:
        try:
            call()
        except (OffsetError, ArgumentTypeError) as exc:
            assert str(exc)


def _check_range(result: object, limit: int) -> None:
    if isinstance(result, str):
        return
    values = result if isinstance(result, (list, tuple)) else [result]
    for value in values:
        if isinstance(value, tuple):
            _check_range(value, limit)
        else:
            assert isinstance(value, int) and 0 <= value <= limit, (result, limit)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
