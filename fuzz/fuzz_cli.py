"""Coverage-guided fuzzing of the command line's readers, in-process.

Input: byte 0 picks a command line (decode, encode, convert, render, validate,
inspect; JSON, wire bytes, base64, text format, JSON lines), the rest is the
input file. Contract: exit status 0, 1 or 2, and stderr without a traceback or an
"internal error".

    python fuzz/fuzz_cli.py [CORPUS_DIR] -max_total_time=60
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile

import atheris

with atheris.instrument_imports(include=["grounding_protos"]):
    import contracts  # noqa: F401 - instruments the modules the commands use

    from grounding_protos.cli import main as cli_main

COMMANDS = [
    ["decode", "--type", "Answer"],
    ["decode", "--type", "GroundingMetadata", "--from", "base64"],
    ["encode", "--type", "Answer"],
    ["convert", "--type", "Answer", "--from", "json", "--to", "text"],
    ["convert", "--type", "GroundingFact", "--from", "text", "--to", "json"],
    ["convert", "--type", "Answer", "--from", "jsonl", "--to", "jsonl"],
    ["render"],
    ["render", "--style", "html"],
    ["render", "--style", "plain", "--snap", "outward", "--clamp"],
    ["render", "--jsonl"],
    ["render", "--type", "Answer", "--from", "binary"],
    ["validate"],
    ["validate", "--json", "--candidate", "1"],
    ["validate", "--jsonl"],
    ["inspect"],
    ["inspect", "--json"],
    ["inspect", "--type", "CitationMetadata", "--from", "text"],
]
FOLDER = tempfile.mkdtemp(prefix="gp-fuzz-cli-")
SOURCE = os.path.join(FOLDER, "in")
OUTPUT = os.path.join(FOLDER, "out")


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    command, data = COMMANDS[data[0] % len(COMMANDS)], data[1:]
    with open(SOURCE, "wb") as f:
        f.write(data)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = cli_main([*command, SOURCE, "-o", OUTPUT])
    message = err.getvalue()
    assert code in (0, 1, 2), (code, message)
    assert "Traceback" not in message and "internal error" not in message, message


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
