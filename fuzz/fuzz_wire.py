"""Coverage-guided fuzzing of wire parsing: ``from_bytes`` for every message type.

Input: byte 0 picks the message type, byte 1 an optional ``text=``, the rest are
the wire bytes. Contract: a message or ``WireFormatError``; for every message that
decodes, the contracts of ``contracts.check_downstream``.

    python fuzz/fuzz_wire.py [CORPUS_DIR] -max_total_time=60
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["grounding_protos"]):
    import contracts

    from grounding_protos import WireFormatError, from_bytes

TEXTS = [None, "", "Grüße, 東京 😀", "a" * 40, "é"]


def TestOneInput(data: bytes) -> None:
    if len(data) < 2:
        return
    cls, data = contracts.pick(data, contracts.CLASSES)
    text, data = contracts.pick(data, TEXTS)
    try:
        message = from_bytes(cls, data)
    except WireFormatError as exc:
        assert exc.type_name == cls.DESCRIPTOR.full_name and str(exc), exc
        return
    assert from_bytes(cls, message.SerializeToString()) == message
    contracts.check_downstream(message, text)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
