"""Coverage-guided fuzzing of ``citations.read``/``extract``/``render`` and ``validate``
on JSON dicts (REST responses of any shape).

Input: byte 0 picks ``text=``, ``candidate``, ``snap`` and ``clamp``; the rest is
JSON text (inputs that are not JSON are skipped; ``NaN``, huge numbers and
duplicate keys are kept, as ``json.loads`` reads them). Contracts: validate never
raises; read raises only the package's errors, exactly when validate finds a
fatal problem; render of what it returns never changes a character; lenient
reads raise only the package's errors.

    python fuzz/fuzz_citations.py [CORPUS_DIR] -max_total_time=60
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any

import atheris

with atheris.instrument_imports(include=["grounding_protos"]):
    import contracts

    from grounding_protos import GroundingProtosError, UnsupportedInputError, validate
    from grounding_protos.citations import read

TEXTS: list[str | bytes | None] = [None, None, "Grüße, 東京 😀", b"\xff", "ok\ud800", ""]
SNAPS: list[Any] = [None, "floor", "ceil", "outward"]


def TestOneInput(data: bytes) -> None:
    if len(data) < 2:
        return
    flags, data = data[0], data[1:]
    try:
        body = json.loads(data)
    except (ValueError, RecursionError):  # not JSON, or a number too long for int()
        return
    if not isinstance(body, dict):  # validate's one documented error: not a container
        with contextlib.suppress(UnsupportedInputError):
            validate(body)
        return
    text = TEXTS[flags % len(TEXTS)]
    candidate = (flags >> 3) & 1
    contracts.check_downstream(body, text, candidate)
    snap = SNAPS[(flags >> 4) % len(SNAPS)]
    try:
        grounded = read(body, text=text, candidate=candidate, snap=snap, clamp=bool(flags & 64))
    except GroundingProtosError:
        return
    contracts.check_grounded(grounded)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
