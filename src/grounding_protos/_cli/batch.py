"""JSONL batches: one input per line, one output line per input line, in input order.

The input is streamed (never read whole). With ``--workers N`` the lines go to a
process pool in chunks (1, 2, 4, … up to 64 lines, so small files still spread over
the workers) and at most ``4 * N`` chunks are in flight: memory stays bounded
whatever the size of the file, and the results come back in input order.

A line that fails is never dropped: it is reported on stderr as ``line 7: <error>``
and kept as an error record ``{"line": 7, "ok": false, "error": …, "input": …}``,
in the ``--failed-lines`` file or else in the output.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import IO, Final

from grounding_protos._cli.commands import LineResult, error_record, process_line
from grounding_protos._cli.io import Failure, Output, terminal_safe, utf8
from grounding_protos._cli.options import Options

MAX_CHUNK: Final = 64
IN_FLIGHT_PER_WORKER: Final = 4
MAX_REPORTED: Final = 20  # stderr reports of failed lines, when they are kept elsewhere too

# --- Reading lines -----------------------------------------------------------------------------


def numbered_lines(stream: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` for each line that is not blank; numbers count every line."""
    for number, raw in enumerate(stream, 1):
        if raw.strip():
            yield number, raw


def _chunks(lines: Iterator[tuple[int, bytes]]) -> Iterator[list[tuple[int, bytes]]]:
    size = 1
    while True:
        chunk = list(itertools.islice(lines, size))
        if not chunk:
            return
        yield chunk
        size = min(size * 2, MAX_CHUNK)


# --- Workers -----------------------------------------------------------------------------------

_worker_options: Options | None = None


def _init_worker(options: Options) -> None:
    global _worker_options
    _worker_options = options
    # Ctrl-C is the parent's to handle: it stops submitting, cancels what waits and
    # lets the running chunks finish; workers must not die with tracebacks of their own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_chunk(chunk: list[tuple[int, bytes]]) -> list[LineResult]:
    options = _worker_options
    if options is None:  # pragma: no cover - the initializer always ran
        raise RuntimeError("worker used before it was initialized")
    return [process_line(options, number, raw) for number, raw in chunk]


def cpu_cap() -> int:
    """The most workers a batch starts: the CPUs this process may run on."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def results(
    options: Options, lines: Iterator[tuple[int, bytes]], workers: int
) -> Iterator[LineResult]:
    """Every line's result, in input order; ``workers > 1`` uses a process pool of at
    most ``workers`` processes and never more than there are lines (the first
    ``workers`` lines are read ahead to know)."""
    if workers > 1:
        ahead = list(itertools.islice(lines, workers))
        workers = min(workers, len(ahead))
        lines = itertools.chain(ahead, lines)
    if workers <= 1:
        for number, raw in lines:
            yield process_line(options, number, raw)
        return
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context(),
        initializer=_init_worker,
        initargs=(options,),
    )
    pending: deque[Future[list[LineResult]]] = deque()
    try:
        for chunk in _chunks(lines):
            pending.append(pool.submit(_run_chunk, chunk))
            while len(pending) >= workers * IN_FLIGHT_PER_WORKER:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()
    except BrokenProcessPool as exc:
        raise Failure(f"a worker process stopped unexpectedly: {exc}") from exc
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# --- Progress ----------------------------------------------------------------------------------


class Progress:
    """A one-line progress bar on a terminal (redrawn at most ten times a second).

    With a known total (a regular file's size) it shows a bar and a percentage;
    otherwise the lines done. Messages printed meanwhile go above the bar.
    """

    WIDTH: Final = 24

    def __init__(self, stream: IO[str], label: str, total: int | None) -> None:
        self.stream = stream
        self.label = label
        self.total = total or None
        self.done = 0
        self.lines = 0
        self.failed = 0
        self.started = time.monotonic()
        self._drawn_at = 0.0

    def advance(self, size: int, failed: bool) -> None:
        self.done += size
        self.lines += 1
        self.failed += failed
        now = time.monotonic()
        if now - self._drawn_at >= 0.1:
            self._draw(now)

    def message(self, text: str) -> None:
        self.stream.write("\r\x1b[K" + terminal_safe(text) + "\n")
        self._draw(time.monotonic())

    def close(self) -> None:
        """Draw the final state and leave it on its line."""
        self._draw(time.monotonic())
        self.stream.write("\n")
        self.stream.flush()

    def _draw(self, now: float) -> None:
        self._drawn_at = now
        elapsed = max(now - self.started, 1e-6)
        parts = [self.label]
        if self.total:
            share = min(self.done / self.total, 1.0)
            filled = int(self.WIDTH * share)
            parts.append(f"[{'#' * filled}{'-' * (self.WIDTH - filled)}] {100 * share:3.0f}%")
        parts.append(f"{self.lines} lines")
        if self.failed:
            parts.append(f"{self.failed} failed")
        parts.append(f"{self.lines / elapsed:.0f} lines/s")
        self.stream.write("\r" + "  ".join(parts) + "\x1b[K")
        self.stream.flush()


def input_size(stream: IO[bytes]) -> int | None:
    """The size of a regular file (for a percentage), else ``None``."""
    import stat

    try:
        info = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


# --- Running ---------------------------------------------------------------------------------


@dataclass
class Tally:
    """How a batch went."""

    lines: int = 0
    failed: int = 0
    flagged: int = 0


def run(
    options: Options,
    stream: Iterable[bytes],
    out: Output,
    errors: Output | None,
    *,
    workers: int,
    progress: Progress | None,
    keep_errors_in_output: bool,
    report: Callable[[str], None],
) -> Tally:
    """Process every line of ``stream``; write outputs to ``out`` and error records to
    ``errors`` (or, when ``keep_errors_in_output``, to ``out`` in place).

    ``report`` prints a failed line's ``line N: error`` on stderr; after
    :data:`MAX_REPORTED` of them the rest are only counted, when the records are
    kept somewhere.
    """
    tally = Tally()
    kept = errors is not None or keep_errors_in_output
    say = progress.message if progress is not None else report
    for result in results(options, numbered_lines(stream), workers):
        tally.lines += 1
        if progress is not None:
            progress.advance(result.size, result.error is not None)
        if result.error is not None:
            tally.failed += 1
            if not kept or tally.failed <= MAX_REPORTED:
                say(f"line {result.line}: {result.error}")
            elif tally.failed == MAX_REPORTED + 1:
                where = "the --failed-lines file" if errors is not None else "the output"
                say(f"more lines failed; their error records are in {where}")
            record = utf8(error_record(result) + "\n")
            if errors is not None:
                errors.write(record)
            elif keep_errors_in_output:
                out.write(record)
        else:
            tally.flagged += result.flagged
            assert result.output is not None
            out.write(utf8(result.output) + b"\n")
    if progress is not None:
        progress.close()
    return tally


def stderr_is_terminal() -> bool:
    stream = sys.stderr
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False
