"""Coverage-guided fuzzing of proto3 JSON parsing: ``codec.from_json``.

Input: byte 0 picks the message type, byte 1 the options (``str`` or ``bytes``
input, ``ignore_unknown_fields``, ``max_recursion_depth``), the rest is the JSON
text. Contract: a message or ``JSONParseError``; for every message that decodes,
the contracts of ``contracts.check_downstream``.

    python fuzz/fuzz_json.py [CORPUS_DIR] -max_total_time=60
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["grounding_protos"]):
    import contracts

    from grounding_protos import JSONParseError, codec

DEPTHS = [100, 100, 100, 5, 1, 0]


def TestOneInput(data: bytes) -> None:
    if len(data) < 2:
        return
    cls, data = contracts.pick(data, contracts.CLASSES)
    flags, data = data[0], data[1:]
    text: str | bytes = data
    if flags & 1:
        text = data.decode("utf-8", "surrogateescape")
    try:
        message = codec.from_json(
            cls,
            text,
            ignore_unknown_fields=bool(flags & 2),
            max_recursion_depth=DEPTHS[(flags >> 2) % len(DEPTHS)],
        )
    except JSONParseError as exc:
        assert str(exc), exc
        return
    assert isinstance(message, cls)
    contracts.check_downstream(message)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
