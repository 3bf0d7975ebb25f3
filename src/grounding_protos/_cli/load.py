"""Loading one input on the command line: a response document (JSON, or a message with
``--type``), or a recorded stream, an SSE recording or a JSON array of responses, merged
into one response.

A stream is merged into one response (``_sources.google.gemini.merger.Merger`` for Gemini, the
surface's own merger from ``_streams.read.surface_merger`` for the others, as
``read_stream`` tells them apart) and that response goes through the same commands.
What merging finds (an interrupted stream, merged duplicate citations) comes back as
problems, which the command line shows as warnings. With ``render`` reading SSE from
stdin while stdout is a terminal, the answer text is written as it arrives, before the
final rendering.
"""

from __future__ import annotations

import itertools
import os
import stat
import sys
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Final

from grounding_protos._cli.io import (
    LIMITS,
    Failure,
    JsonText,
    _isatty,
    at,
    limited_lines,
    open_input,
    parse_json_document,
    parse_message,
    read_input,
    read_limited,
    resolve_type,
    terminal_safe,
    too_large,
)
from grounding_protos._cli.options import Options

if TYPE_CHECKING:
    from grounding_protos._core.model import Problem
    from grounding_protos._sources.parse import Item

# Problems after which the output is not the whole answer: the exit status is 1.
SERIOUS: Final = frozenset({"stream-incomplete", "stream-truncated", "stream-grounding-replaced"})
_HEAD: Final = 64


class Turns:
    """A recorded Gemini Live session: each turn merged into one ``LiveServerMessage``,
    with what merging it found (``citations.read_turns`` reads the same turns)."""

    def __init__(self, turns: list[tuple[object, list[Problem]]]) -> None:
        self.turns = turns

    def pick(self, number: int, label: str) -> tuple[object, list[Problem]]:
        """Turn ``number`` (1 for the first), as one document and its problems."""
        if not 1 <= number <= len(self.turns):
            raise Failure(
                at(
                    label,
                    f"--turn {number}: the Live session has {len(self.turns)} turns "
                    f"(--turn 1 to {len(self.turns)})",
                )
            )
        return self.turns[number - 1]


def load_document(options: Options, data: bytes, label: str) -> object:
    """The input as a JSON object (any shape ``extract`` accepts) or, with ``--type``, a
    message of that type."""
    if options.type_name is None:
        if options.source not in ("json", "jsonl"):
            raise Failure(
                f"--from {options.source} needs --type: wire bytes and text format do not "
                "say which message they hold"
            )
        if options.command == "render" and data.lstrip()[:1] == b"{":
            return JsonText(data, label)  # read straight from its text (read_grounded)
        return parse_json_document(data, label)
    return parse_message(resolve_type(options.type_name), data, options.source, label)


def is_stream(data: bytes) -> bool:
    """Whether ``data`` is a recorded stream (SSE or a JSON array), not one response."""
    from grounding_protos._sources.parse import detect

    head = data[: _HEAD * 4].decode("utf-8", "replace")
    return detect(head) in ("sse", "json-array")


def load_input(
    options: Options, path: str | None, label: str, *, live: bool
) -> tuple[object, list[Problem]]:
    """The document to process (a stream merged into one response) and the stream's
    problems (none for a single response).

    A recorded stream is read from the file piece by piece as it is merged (only the
    event being read and the merged answer are held); one response is read whole.
    ``live``: the command may show the text as it arrives (``render`` to stdout).
    """
    if options.type_name is not None:  # --type: one message, never a stream
        return load_document(options, read_input(path), label), []
    stream = open_input(path)
    try:
        return _load(options, stream, path, label, live=live)
    finally:
        if path not in (None, "-"):
            stream.close()


def _load(
    options: Options, stream: IO[bytes], path: str | None, label: str, *, live: bool
) -> tuple[object, list[Problem]]:
    from grounding_protos._sources.bedrock.eventstream import PRELUDE, is_eventstream
    from grounding_protos._sources.parse import detect

    _check_size(stream, label)
    head = b""
    if live and path in (None, "-") and _isatty(sys.stdout):
        head = _first_lines(stream, label)
        if detect(head.decode("utf-8", "replace")) == "sse":
            return _merge(options, lambda: _sse_items(head, stream, label), label, echo=True)
        head += _read_head(stream, PRELUDE - len(head), label)  # (a prelude may hold a line end)
        if is_eventstream(head):  # a raw AWS event stream (Bedrock), as it arrives
            pieces = _binary_pieces(head, stream, label)
            return _merge(options, lambda: _eventstream_items(pieces), label, echo=True)
    head += _read_head(stream, _HEAD * 4 - len(head), label)
    if is_stream(head):  # read as it is merged
        from grounding_protos._sources.parse import recorded_chunks

        source = _Pieces(head, stream, label)
        return _merge(options, lambda: recorded_chunks(source), label)
    if is_eventstream(head):  # a raw AWS event stream (Bedrock)
        pieces = _binary_pieces(head, stream, label)
        return _merge(options, lambda: _eventstream_items(pieces), label)
    return load_document(options, _rest(head, stream, label), label), []


def _rest(head: bytes, stream: IO[bytes], label: str) -> bytes:
    """The whole input, of which ``head`` was read: read again from its start where
    the file can seek (one copy of the bytes, not two), within the input limit."""
    try:
        again = stream.seekable() and stream.seek(-len(head), os.SEEK_CUR) >= 0
    except (OSError, ValueError, AttributeError):
        again = False
    if again:
        return _reading(label, read_limited, stream, label)
    data = head + _reading(label, read_limited, stream, label)
    if LIMITS.input and len(data) > LIMITS.input:
        raise too_large(label)
    return data


def _check_size(stream: IO[bytes], label: str) -> None:
    """A regular file past the input limit is refused before it is read."""
    if not LIMITS.input:
        return
    try:
        descriptor = stream.fileno()
        status = os.fstat(descriptor)
        left = status.st_size - os.lseek(descriptor, 0, os.SEEK_CUR)
    except (OSError, ValueError, AttributeError):  # no descriptor (a test's BytesIO), a pipe
        return
    if stat.S_ISREG(status.st_mode) and left > LIMITS.input:
        raise too_large(label)


def _reading(label: str, read: Callable[..., bytes], *args: object) -> bytes:
    """``read(*args)``, an ``OSError`` of reading as a failure."""
    try:
        return read(*args)
    except OSError as exc:
        raise Failure(f"cannot read {label!r}: {exc.strerror or exc}") from exc


def _read_head(stream: IO[bytes], size: int, label: str) -> bytes:
    """The next ``size`` bytes of ``stream`` (fewer at its end)."""
    head = b""
    while len(head) < size and (more := _reading(label, stream.read, size - len(head))):
        head += more
    return head


class _Pieces:
    """The input as a binary file for ``recorded_chunks``: what was read to tell its
    format, then the rest in pieces as ``read`` asks for them, refused past the input
    limit."""

    def __init__(self, head: bytes, stream: IO[bytes], label: str) -> None:
        self.head = head
        self.stream = stream
        self.label = label
        self.size = 0

    def read(self, size: int = -1) -> bytes:
        if self.head:
            piece, self.head = self.head, b""
        else:
            piece = _reading(self.label, self.stream.read, size)
        self.size += len(piece)
        if LIMITS.input and self.size > LIMITS.input:
            raise too_large(self.label)
        return piece


def load_line(options: Options, raw: bytes) -> tuple[object, list[Problem]]:
    """One line of a JSONL batch: a response, or a recorded stream (a JSON array of
    chunks, as ``streamGenerateContent`` returns without ``alt=sse``) merged into one,
    with the stream's problems."""

    if options.type_name is None and is_stream(raw):
        from grounding_protos._sources.parse import recorded_chunks

        return _merge(options, lambda: recorded_chunks(raw), "", sessions=False)
    return load_document(options, raw, ""), []


def _first_lines(stream: IO[bytes], label: str) -> bytes:
    """The input up to its first line that is not blank (enough to tell the format)."""
    head = b""
    for line in limited_lines(stream, label):
        head += line
        if LIMITS.input and len(head) > LIMITS.input:
            raise too_large(label)
        if line.strip():
            break
    return head


def _binary_pieces(head: bytes, stream: IO[bytes], label: str) -> Iterable[bytes]:
    """``head`` and then what ``stream`` has, piece by piece as it arrives, within the
    input limit."""
    yield head
    size = len(head)
    read = getattr(stream, "read1", stream.read)
    while piece := read(65536):
        size += len(piece)
        if LIMITS.input and size > LIMITS.input:
            raise too_large(label)
        yield piece


def _eventstream_items(pieces: Iterable[bytes]) -> Iterable[Item]:
    """The events of a raw AWS event stream, of whichever operation its first event names
    (each source's stream in ``_sources.registry`` declares its own)."""
    from grounding_protos._sources.bedrock.eventstream import eventstream_items
    from grounding_protos._sources.registry import AWS_STREAMS

    return eventstream_items(pieces, AWS_STREAMS)


def _sse_items(head: bytes, stream: IO[bytes], label: str) -> Iterable[Item]:
    from grounding_protos._sources.parse import sse_chunks

    def lines() -> Iterable[str]:
        yield head.decode("utf-8", "replace")
        size = len(head)
        for raw in limited_lines(stream, label):  # one line at a time, as it arrives
            size += len(raw)
            if LIMITS.input and size > LIMITS.input:
                raise too_large(label)
            yield raw.decode("utf-8", "replace")

    return sse_chunks(lines())


def _merge(
    options: Options,
    chunks: Callable[[], Iterable[Item]],
    label: str,
    *,
    echo: bool = False,
    sessions: bool = True,
) -> tuple[object, list[Problem]]:
    """The stream merged into one response, and its problems; a Gemini Live session
    (when ``sessions``) as its :class:`Turns`."""
    from grounding_protos._exceptions import MissingDependencyError, StreamError
    from grounding_protos._sources.google.gemini.merger import Merger
    from grounding_protos._sources.parse import Truncated
    from grounding_protos._streams.read import (
        event_merger,
        merge_events,
        merge_items,
        surface_merger,
    )

    merger = Merger()
    shown = False
    try:
        items = iter(chunks())
        first = next(items, None)
        if first is None:
            raise Failure(at(label, "the stream holds no response: 0 events"))
        if not isinstance(first, Truncated) and (events := event_merger(first.value)):
            # an OpenAI-family stream: merged event by event, its text shown as it comes

            def show(texts: dict[int, str]) -> None:
                nonlocal shown
                text = texts.get(options.candidate, "")
                if echo and text:
                    sys.stdout.write(terminal_safe(text))
                    sys.stdout.flush()
                    shown = True

            merged, problems = merge_events(events, itertools.chain([first], items), show)
            if shown:
                sys.stdout.write("\n\n")
                sys.stdout.flush()
            return merged, problems
        if sessions and not isinstance(first, Truncated) and _is_live(first.value):
            return _live_turns(itertools.chain([first], items)), []
        if not isinstance(first, Truncated):
            other = surface_merger(first.value)
            if other is not None:  # another surface's stream: merged by its own merger
                return merge_items(other, itertools.chain([first], items))
        for item in itertools.chain([first], items):
            if isinstance(item, Truncated):
                merger.truncated(item)
                break
            texts: dict[int, str] = {}
            merger.add(item.number, item.value, texts)
            text = texts.get(options.candidate, "")
            if echo and text:  # only to a terminal: its controls escaped
                sys.stdout.write(terminal_safe(text))
                sys.stdout.flush()
                shown = True
    except (StreamError, MissingDependencyError) as exc:
        raise Failure(at(label, str(exc))) from exc
    if shown:
        sys.stdout.write("\n\n")
        sys.stdout.flush()
    if not merger.events:
        raise Failure(at(label, "the stream holds no response: 0 events"))
    problems = merger.stream_problems(options.candidate) + merger.incomplete(options.candidate)
    return merger.merged(), problems


def _is_live(value: object) -> bool:
    """Whether a stream's first message is a Gemini Live server message."""
    from grounding_protos._exceptions import StreamError
    from grounding_protos._sources.google.gemini.merger import decode_text
    from grounding_protos._sources.google.live.merger import is_message

    if isinstance(value, (str, bytes)):
        try:
            value = decode_text(1, value)
        except StreamError:
            return False
    return is_message(value)


def _live_turns(items: Iterable[Item]) -> Turns:
    """A Live session's messages, turn by turn (as ``TurnReader`` cuts them: a turn
    ends with ``turnComplete``; one the session left unfinished is a turn too).

    Raises:
        StreamError: a message that is not a Live server message.
    """
    from grounding_protos._core.model import Problem
    from grounding_protos._sources.google.gemini.merger import decode_text
    from grounding_protos._sources.google.live.merger import (
        TurnMerger,
        answers,
        any_answer,
        is_message,
    )
    from grounding_protos._sources.parse import Truncated

    turns: list[tuple[object, list[Problem]]] = []
    merger = TurnMerger()
    cut: list[Problem] = []
    for item in items:
        if isinstance(item, Truncated):
            cut.append(Problem("stream-truncated", item.message, ""))
            break
        number, message = item.number, item.value
        if isinstance(message, (str, bytes)):
            message = decode_text(number, message)
        if not answers(message) and not merger.events:
            if not is_message(message):
                merger.add(number, message)  # raises for what is not a Live message
            continue  # setupComplete, goAway, ...: no turn
        merger.add(number, message)
        if merger.complete:
            turns.append((merger.merged(), merger.problems()))
            merger = TurnMerger()
    if merger.events and any_answer(merger):
        turns.append((merger.merged(), merger.problems() + cut))
    elif cut and turns:
        turns[-1][1].extend(cut)
    return Turns(turns)
