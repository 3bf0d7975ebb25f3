"""Coverage-guided fuzzing of the vendor stream mergers: event lists (with values of the
wrong JSON type) and recordings in byte pieces, through ``read_stream`` and
``StreamReader``.

Input layout and contract: ``streams.py``.

    python fuzz/fuzz_streams.py [CORPUS_DIR] -max_total_time=60
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["grounding_protos"]):
    import streams


def TestOneInput(data: bytes) -> None:
    streams.one_input(data)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
