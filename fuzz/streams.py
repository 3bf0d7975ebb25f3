"""The vendor mergers under fuzzing, for ``fuzz_streams.py`` and
``tests/test_stream_hostile.py`` (no atheris here: the tests import it).

Input layout: byte 0 chooses the mode, bytes 1-3 a wrong JSON type, an event and a
position (``wrong_types.py``); the rest is the stream:

- modes 0-3, an event list: the rest is a JSON array of events (inputs that are not are
  skipped); mode 1 puts a value of a wrong JSON type into one event, mode 2 also reads
  the events one at a time with ``StreamReader``, mode 3 does both;
- modes 4-7, byte pieces: the rest is a recording (SSE, a JSON array, a Bedrock event
  stream) given to ``read_stream`` whole (4), as a binary file (5), as its lines (6),
  or in pieces of byte 1 + 1 bytes (7).

Contract: ``read_stream`` (and ``StreamReader``) give a result whose citations agree
with its text (``contracts.check_grounded``) or raise one of the package's errors; every
message is short; nothing else escapes (no ``TypeError``, ``RecursionError`` ...).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import contracts
import wrong_types

from grounding_protos import GroundingProtosError
from grounding_protos.citations import StreamReader, read_stream

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RECORDINGS = ("anthropic_stream.sse", "cohere_stream.sse", "gemini_stream.sse",
              "gemini_interaction.sse", "gemini_live_session.json",
              "bedrock_converse_stream.bin")  # fmt: skip


def _checked(run: Any, what: str) -> None:
    try:
        grounded = run()
    except GroundingProtosError as exc:
        contracts._bounded(f"{what} {type(exc).__name__}", str(exc))
        return
    for problem in grounded.problems:
        contracts._bounded(f"{what} {problem.code}", problem.message)
    contracts.check_grounded(grounded)


def _incremental(events: list[Any]) -> Any:
    reader = StreamReader()
    for event in events:
        reader.feed(event)
    return reader.finish()


def _pieces(data: bytes, size: int) -> Iterator[bytes]:
    return (data[i : i + size] for i in range(0, len(data), size))


def one_input(data: bytes) -> None:
    """Check the contract on one fuzz input (see the layout above)."""
    if len(data) < 5:
        return
    (mode, kind, event, position), body = data[:4], data[4:]
    mode %= 8
    if mode < 4:
        try:
            events = json.loads(body)
        except (ValueError, RecursionError):
            return
        if not isinstance(events, list) or not events:
            return
        if mode & 1:
            choice = wrong_types.KINDS[kind % len(wrong_types.KINDS)]
            try:
                events, _ = wrong_types.mutated(events, event, position, choice)
            except RecursionError:  # an input nested too deeply to copy: not the stream's
                return
        _checked(lambda: read_stream(events), "read_stream")
        if mode & 2:
            _checked(lambda: _incremental(events), "StreamReader")
        return
    stream: object = body
    if mode == 5:
        stream = io.BufferedReader(io.BytesIO(body))  # type: ignore[arg-type]
    elif mode == 6:
        stream = body.splitlines(keepends=True)
    elif mode == 7:
        stream = list(_pieces(body, kind + 1))
    _checked(lambda: read_stream(stream), "read_stream")


def seeds(streams: dict[str, list[Any]]) -> list[bytes]:
    """Starting inputs: each event list in every mode (wrong types at a few places), and
    the recorded examples in every byte mode."""
    out = []
    for events in streams.values():
        try:
            text = json.dumps(events, ensure_ascii=False).encode()
        except TypeError:  # boto3's InvokeAgent events hold bytes: no JSON seed carries them
            continue  # (tests/test_stream_hostile.py's property reads them as they are)
        for mode in range(4):
            out += [bytes([mode, k, e, p]) + text for k, e, p in ((0, 1, 3), (3, 2, 7))]
    for name in RECORDINGS:
        data = (EXAMPLES / name).read_bytes()
        out += [bytes([mode, 40, 0, 0]) + data for mode in range(4, 8)]
    return out
