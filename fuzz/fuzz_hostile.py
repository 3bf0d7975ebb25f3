"""Coverage-guided fuzzing with hostile shapes: deep nesting, huge values, control
characters (``hostile.py``), put into any value of a JSON document.

Input: bytes 0-3 choose the shape, its size and the value it replaces; the rest is
JSON text (inputs that are not JSON are skipped). Contracts: those of
``fuzz_citations.py``; messages stay short whatever the input quotes; never a
``RecursionError``; the command line (render, inspect) on a terminal shows no raw
control character, exits 0, 1 or 2 and prints no traceback.

    python fuzz/fuzz_hostile.py [CORPUS_DIR] -max_total_time=60
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile

import atheris

with atheris.instrument_imports(include=["grounding_protos"]):
    import contracts
    import hostile

    from grounding_protos.cli import main as cli_main

FOLDER = tempfile.mkdtemp(prefix="gp-fuzz-hostile-")
SOURCE = os.path.join(FOLDER, "in.json")


class _Terminal(io.TextIOWrapper):
    def isatty(self) -> bool:
        return True


def TestOneInput(data: bytes) -> None:
    if len(data) < 5:
        return
    head, data = data[:4], data[4:]
    try:
        body = json.loads(data)
    except (ValueError, RecursionError):
        return
    document, _ = hostile.amplify(body, head)
    if isinstance(document, dict):
        contracts.check_downstream(document)
    contracts.check_bounded(document)
    try:
        text = json.dumps(document)  # ASCII: a lone surrogate is written as \ud800
    except (RecursionError, ValueError):  # too deep for json, or an int too long for str()
        return
    with open(SOURCE, "w", encoding="utf-8") as f:
        f.write(text)
    for command in (["render"], ["inspect"]):
        buffer = io.BytesIO()
        err = io.StringIO()
        old = sys.stdout
        sys.stdout = _Terminal(buffer, encoding="utf-8", errors="surrogateescape")
        try:
            with contextlib.redirect_stderr(err):
                code = cli_main([*command, SOURCE])
            sys.stdout.flush()
        finally:
            sys.stdout.detach()
            sys.stdout = old
        message = err.getvalue()
        assert code in (0, 1, 2), (code, message)
        assert "Traceback" not in message and "internal error" not in message, message
        contracts.check_terminal_output(buffer.getvalue().decode("utf-8", "replace") + message)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
