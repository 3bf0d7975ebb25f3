"""Turning a recorded stream into its chunks, one decoded response per event.

A recorded stream is Server-Sent Events text (``streamGenerateContent?alt=sse``:
``data: {...}`` events separated by blank lines, CRLF, LF or CR line ends, ``:``
comment lines, multi-line ``data`` fields joined with ``\\n`` as the SSE
specification says) or a JSON array of responses (``streamGenerateContent`` without
``alt=sse``), as ``str``, ``bytes`` or a text or binary file. Events are numbered
from 1 in the order they arrive; every error names the number.

A file is read in pieces and decoded as they come: only the event being read is held.
An input that ends inside an event (no blank line after the last ``data:`` line, or
a JSON array without its ``]``) is a truncated recording: what decodes is kept,
and a last fragment that does not decode is reported as :class:`Truncated` instead
of raising, so that an interrupted stream still gives what arrived.
"""

from __future__ import annotations

import codecs
import itertools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal, NamedTuple, Protocol

from grounding_protos._exceptions import StreamError
from grounding_protos._quote import excerpt, shown

Format = Literal["sse", "json-array", "json"]
_LINE_END = re.compile(r"\r\n|\r|\n")
_SSE_FIELD = re.compile(r"(data|event|id|retry)(:|$)|:")
_WHITESPACE = " \t\r\n"
_DECODER = json.JSONDecoder()
DONE = "[DONE]"
"""The data of the event that ends an OpenAI-style stream (Chat Completions, OpenRouter,
Assistants' ``event: done``); skipped, never numbered."""


class Chunk(NamedTuple):
    """One event of a stream: its number (from 1) and its decoded JSON value."""

    number: int
    value: object


class Truncated(NamedTuple):
    """The recording ends inside event ``number``, which does not decode."""

    number: int
    message: str


Item = Chunk | Truncated


class Readable(Protocol):
    """A file, binary or text, as far as it is read here."""

    def read(self, size: int, /) -> Any: ...


def detect(head: str) -> Format | None:
    """Which recorded-stream format text starting with ``head`` is, or ``None``.

    >>> detect('data: {"candidates": []}'), detect(' [{"candidates": []}]'), detect("{}")
    ('sse', 'json-array', 'json')
    >>> detect(": keep-alive"), detect("hello") is None
    ('sse', True)
    """
    head = head.lstrip(_WHITESPACE + "\ufeff")
    if head.startswith("["):
        return "json-array"
    if head.startswith("{"):
        return "json"
    return "sse" if _SSE_FIELD.match(head) else None


# --- Server-Sent Events ------------------------------------------------------------


def text_line(element: object) -> str:
    """One element of a stream of SSE lines (``str`` or UTF-8 ``bytes``) as text.

    Raises:
        StreamError: bytes that are not UTF-8, or an element that is no line.
    """
    if isinstance(element, str):
        return element
    if isinstance(element, (bytes, bytearray)):
        try:
            return bytes(element).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StreamError(f"an SSE line is not UTF-8 (byte {exc.start})") from exc
    raise StreamError(f"expected the lines of an SSE stream, got {type(element).__name__}")


class SSEParser:
    """Server-Sent Events, pushed in pieces: each piece is one line (with or without its
    line end, as ``iter_lines`` gives them) or many whole lines.

    >>> parser = SSEParser()
    >>> parser.feed('data: {"a": 1}\\r\\n'), parser.feed("\\r\\n")
    ([], [Chunk(number=1, value={'a': 1})])
    """

    def __init__(self) -> None:
        self.number = 0
        # the event's data lines, each where it is: (text, start, end), not copied
        self._data: list[tuple[str, int, int]] = []
        self._kind = ""
        self._pending_cr = False

    def feed(self, piece: str) -> list[Item]:
        """The events that ``piece`` completes.

        Raises:
            StreamError: an ``event: error`` event, an event type other than
                ``message`` (unless its data repeats it as ``event_type``, as the
                Interactions API's events do), or ``data`` that is not JSON.
        """
        if self._pending_cr and piece.startswith("\n"):  # a CRLF split between pieces
            piece = piece[1:]
            if not piece:
                return []
        self._pending_cr = piece.endswith("\r")
        out: list[Item] = []
        for start, end in _lines(piece):
            if start < end:
                if piece.startswith("data: ", start):  # most lines: the data, not copied
                    self._data.append((piece, start + 6, end))
                elif piece[start] != ":":
                    name, colon, value = piece[start:end].partition(":")
                    if colon and value.startswith(" "):
                        value = value[1:]
                    if name == "data":
                        self._data.append((value, 0, len(value)))
                    elif name == "event":
                        self._kind = value
                    # id, retry and unknown fields are ignored (SSE specification)
            elif self._data:
                data, kind = _joined(self._data), self._kind
                self._data, self._kind = [], ""
                if _is_done(data):  # OpenAI's terminator (``[DONE]``): not an event
                    continue
                self.number += 1
                out.append(Chunk(self.number, _event_value(self.number, kind, data)))
            else:
                self._kind = ""
        return out

    def close(self) -> list[Item]:
        """The last event when no blank line followed it: decoded if it is whole,
        else reported as :class:`Truncated`."""
        if not self._data:
            return []
        data, kind = _joined(self._data), self._kind
        self._data, self._kind = [], ""
        if _is_done(data):
            return []
        self.number += 1
        try:
            value = _event_value(self.number, kind, data)
        except StreamError as exc:
            if not isinstance(exc.__cause__, json.JSONDecodeError):
                raise
            return [Truncated(self.number, f"the recording ends inside event {self.number}")]
        return [Chunk(self.number, value)]


def _lines(piece: str) -> Iterator[tuple[int, int]]:
    """Where each line of ``piece`` starts and ends (before its line end); no empty line
    after a final line end. A line is not copied: a recorded event can be tens of MB.

    >>> list(_lines("a\\r\\nbc\\n\\nd")), list(_lines("a\\n"))
    ([(0, 1), (3, 5), (6, 6), (7, 8)], [(0, 1)])
    """
    start = 0
    for match in _LINE_END.finditer(piece):
        yield start, match.start()
        start = match.end()
    if start < len(piece) or not start:
        yield start, len(piece)


def sse_chunks(pieces: Iterable[str]) -> Iterator[Item]:
    """The events of SSE text given in pieces (see :class:`SSEParser`)."""
    parser = SSEParser()
    for events in map(parser.feed, pieces):  # no name holds a piece while it is merged
        yield from events
    yield from parser.close()


def _event_value(number: int, kind: str, where: tuple[str, int, int]) -> object:
    text, start, end = where
    if kind == "error":
        data = text[start:end]
        try:
            body = json.loads(data)
        except ValueError:
            body = None
        error = body.get("error", body) if isinstance(body, Mapping) else None
        said = error_text(error) if isinstance(error, Mapping) else _shown(data)
        raise StreamError(f"the stream reports an error: {said}", event=number)
    if kind not in ("", "message"):
        # A stream whose events repeat their SSE name in their data (the Interactions
        # API's "event_type", the OpenAI Responses API's "type") is that data; an
        # OpenAI Assistants event ("thread.message.delta", ...), whose data is the
        # object it names, is ``{"event": name, "data": data}`` as the openai SDK's
        # ``AssistantStreamEvent`` holds it; any other named event is not a response.
        if kind.startswith("thread."):
            return {"event": kind, "data": _decode_in(number, text, start, end)}
        named = text.find('"event_type"', start, end) >= 0 or text.find('"type"', start, end) >= 0
        value = _decode_in(number, text, start, end) if named else None
        if isinstance(value, Mapping) and kind in (value.get("event_type"), value.get("type")):
            return value
        raise StreamError(
            f"event type {shown(kind)} is not part of a Gemini response stream "
            f"(data {_shown(text[start:end])})",
            event=number,
        )
    return _decode_in(number, text, start, end)


def _joined(lines: list[tuple[str, int, int]]) -> tuple[str, int, int]:
    """An event's data: its one line where it is, or its lines joined by line feeds."""
    if len(lines) == 1:
        return lines[0]
    data = "\n".join(text[start:end] for text, start, end in lines)
    return data, 0, len(data)


def _is_done(where: tuple[str, int, int]) -> bool:
    text, start, end = where
    return end - start == len(DONE) and text.startswith(DONE, start)


def _past_whitespace(text: str, at: int, end: int) -> int:
    """The first position from ``at`` that is not JSON whitespace (``end`` if none)."""
    while at < end and text[at] in _WHITESPACE:
        at += 1
    return at


def _decode_in(number: int, text: str, start: int, end: int) -> object:
    """``decode_json(number, text[start:end])``, without copying the slice when it holds
    one JSON value: the value is parsed where it is (a recorded event can be tens of
    MB). Anything else (a value that runs past ``end``, more after it, no value at all)
    is decoded again from the slice, for the error ``json.loads`` gives of it.

    >>> _decode_in(1, 'data: {"a": [1, 2]} -more', 6, 20)
    {'a': [1, 2]}
    """
    if start or end != len(text):
        try:
            value, stop = _DECODER.raw_decode(text, _past_whitespace(text, start, end))
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
            pass
        else:
            if stop <= end and not text[stop:end].strip(_WHITESPACE):
                return value
        text = text[start:end]
    return decode_json(number, text)


def decode_json(number: int, data: str | bytes) -> object:
    """One event's JSON value.

    Raises:
        StreamError: malformed JSON or invalid UTF-8.
    """
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StreamError(f"not UTF-8 at byte {exc.start}", event=number) from exc
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise StreamError(
            f"malformed JSON: {_json_message(exc)} at character {exc.pos} of {_shown(data)}",
            event=number,
        ) from exc
    except (RecursionError, ValueError) as exc:
        raise StreamError(f"malformed JSON: {exc}", event=number) from exc


def error_text(error: object) -> str:
    """A Google API error object (``{"code", "status", "message"}``) in one line."""
    if not isinstance(error, Mapping):
        return shown(error)
    code, status, message = (error.get(k) for k in ("code", "status", "message"))
    if code is None and status is None:  # Anthropic's {"type": "overloaded_error", ...}
        status = error.get("type")
    head = " ".join(_said(v) for v in (code, status) if v)
    if message and head:
        return f"{head}: {_said(message)}"
    return _said(message) if message else head or shown(error)


def _said(value: object) -> str:
    """A value of an error object, bounded (the stream's message may be megabytes)."""
    return excerpt(value) if isinstance(value, str) else shown(value)


def _shown(data: str, limit: int = 80) -> str:
    flat = " ".join(data.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


# --- JSON arrays of responses -----------------------------------------------------------

PIECE = 1 << 16
"""How much of a file is read at a time (bytes), and the least text a buffer grows by."""
_NEAR_END = 16  # a JSON error this close to the end of the text read may be a cut


class _Text:
    """Text that arrives in pieces, held from the first character not yet consumed:
    ``text`` is the text held, ``base`` how many characters came before it, ``done``
    whether no piece is left (one piece is read ahead to know it)."""

    def __init__(self, pieces: Iterator[str]) -> None:
        self._pieces = pieces
        self._next = next(pieces, None)
        self.text = ""
        self.base = 0
        self.done = self._next is None

    def more(self, position: int) -> int:
        """Drop the text before ``position`` and add at least as much as is held (so
        that re-reading an element that grows costs linear time); ``position``'s new
        place."""
        kept = self.text[position:]
        self.base += position
        added: list[str] = [kept]
        size = 0
        while self._next is not None and size < max(PIECE, len(kept)):
            added.append(self._next)
            size += len(self._next)
            self._next = next(self._pieces, None)
        self.done = self._next is None
        self.text = "".join(added)
        return 0

    def skip(self, position: int) -> int:
        """The position of the first character from ``position`` on that is not
        whitespace (the end of the text only when it is done)."""
        while True:
            text = self.text
            position = _past_whitespace(text, position, len(text))
            if position < len(text) or self.done:
                return position
            position = self.more(position)


def json_array_chunks(text: str) -> Iterator[Item]:
    """The elements of a JSON array of responses, decoded one at a time.

    Raises:
        StreamError: text that is not a JSON array, or an element that is malformed
            (other than the last, cut short).
    """
    return _array_chunks(iter([text]))


def _array_chunks(pieces: Iterator[str]) -> Iterator[Item]:
    """:func:`json_array_chunks` of text given in pieces cut anywhere: an element is
    decoded once the text read holds all of it, and the text before it is dropped, so
    only the element being read is held. Errors name characters of the whole text."""
    source = _Text(pieces)
    position = source.skip(0)
    if not source.text.startswith("[", position):
        raise StreamError("expected a JSON array of responses", event=None)
    position = source.skip(position + 1)
    number = 0
    if source.text.startswith("]", position):
        _end(source, position + 1)
        return
    while True:
        number += 1
        if position >= len(source.text):
            yield Truncated(number - 1, "the recording ends before the JSON array's ']'")
            return
        try:
            value, position = _element(source, position)
        except json.JSONDecodeError as exc:
            at = source.base + exc.pos
            if source.skip(exc.pos) >= len(source.text):  # cut short inside the element
                yield Truncated(number, f"the recording ends inside element {number}")
                return
            raise StreamError(
                f"malformed JSON in element {number}: {_json_message(exc)} at character {at}",
                event=number,
            ) from exc
        except (RecursionError, ValueError) as exc:
            raise StreamError(f"malformed JSON: {exc}", event=number) from exc
        yield Chunk(number, value)
        position = source.skip(position)
        if source.text.startswith(",", position):
            position = source.skip(position + 1)
        elif source.text.startswith("]", position):
            _end(source, position + 1)
            return
        elif position >= len(source.text):
            yield Truncated(number, "the recording ends before the JSON array's ']'")
            return
        else:
            raise StreamError(
                f"expected ',' or ']' after element {number} at character {source.base + position}",
                event=number,
            )


def _element(source: _Text, position: int) -> tuple[object, int]:
    """The JSON value at ``position`` and the position after it, reading more text
    while the value may go on past the text read (a string or an object not closed, a
    number that ends where the text does); once the text is done, as ``raw_decode``
    gives them.

    Raises:
        json.JSONDecodeError: the value is malformed, or cut short by the end.
    """
    while True:
        text = source.text
        try:
            value, end = _DECODER.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            cut = exc.msg.startswith("Unterminated string") or exc.pos >= len(text) - _NEAR_END
            if source.done or not cut:
                raise
        else:
            if end < len(text) or source.done:
                return value, end
        position = source.more(position)


def _end(source: _Text, position: int) -> None:
    """Nothing but whitespace after the array's ``]`` (at ``position``)."""
    after = source.base + position
    if source.skip(position) != len(source.text):
        raise StreamError(f"extra data after the JSON array at character {after}", event=None)


# --- Whole recordings ------------------------------------------------------------------


def recorded_chunks(source: str | bytes | bytearray | memoryview | Readable) -> Iterator[Item]:
    """The events of a whole recorded stream (SSE, a JSON array, or one JSON response).

    A file is read in pieces of at most :data:`PIECE` bytes (``read``), decoded as they
    come, and its events are decoded as they are complete (a pipe, a socket's file), so
    that a recording is never held whole: only the event being read (one JSON response
    is read whole).

    >>> sse = 'data: {"a": 1}\\r\\n\\r\\n: ping\\r\\ndata: {"a": 2}\\n\\n'
    >>> [c.value for c in recorded_chunks(sse)]
    [{'a': 1}, {'a': 2}]

    Raises:
        StreamError: the input is none of these formats, an event is not JSON, or a
            file is not UTF-8.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        source = _decode(bytes(source))
    if isinstance(source, str):
        return _text_chunks(iter([source]))
    return _text_chunks(_file_pieces(source))


def _text_chunks(pieces: Iterator[str]) -> Iterator[Item]:
    """The events of text in pieces, whose first characters tell the format (read here,
    so that a text of no known format fails at once)."""
    head: list[str] = []
    seen = 0  # characters from the first that is not whitespace on
    for piece in pieces:
        head.append(piece)
        seen = seen + len(piece) if seen else len(piece.lstrip(_WHITESPACE + "\ufeff"))
        if seen >= 64:
            break
    first = "".join(head).removeprefix("\ufeff")
    start = len(first) - len(first.lstrip(_WHITESPACE))
    fmt = detect(first[: start + 64])
    rest = itertools.chain([first] if first else [], pieces)
    if fmt == "json-array":
        return _array_chunks(rest)
    if fmt == "json":
        text = "".join(rest)
        return iter([Chunk(1, decode_json(1, text))])
    if fmt == "sse":
        return sse_chunks(_line_pieces(rest))
    raise StreamError(
        f"not a recorded stream: expected SSE ('data: {{...}}' lines) or a JSON array, "
        f"got {_shown(first[:40])}",
        event=None,
    )


def _line_pieces(pieces: Iterator[str]) -> Iterator[str]:
    """Text in pieces, cut after line ends (the text after the last line end of a piece
    goes with the next), so that the SSE parser sees whole lines; the last piece as
    it is."""
    held: list[str] = []
    piece = next(pieces, None)
    while piece is not None:
        following = next(pieces, None)
        cut = len(piece) if following is None else max(piece.rfind("\n"), piece.rfind("\r")) + 1
        if cut:
            held.append(piece[:cut])
            held[:] = ["".join(held)]
            yield held.pop()  # held by the consumer alone (an event can be tens of MB)
        if cut < len(piece):
            held.append(piece[cut:])
        piece = following
    if held:
        yield "".join(held)


def _file_pieces(stream: Readable) -> Iterator[str]:
    """A file's text in pieces of at most :data:`PIECE` bytes (or characters), bytes
    decoded as UTF-8 as they come."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    read = stream.read
    position = 0  # bytes read before the piece
    while piece := read(PIECE):
        if isinstance(piece, str):
            yield piece
            continue
        held = len(decoder.getstate()[0])
        try:
            text = decoder.decode(piece)
        except UnicodeDecodeError as exc:
            raise _not_utf8(exc, position - held) from exc
        position += len(piece)
        if text:
            yield text
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        raise _not_utf8(exc, position - len(exc.object)) from exc


def _not_utf8(exc: UnicodeDecodeError, base: int) -> StreamError:
    return StreamError(f"the stream is not UTF-8: {exc.reason} at byte {base + exc.start}")


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_utf8(exc, 0) from exc


def _json_message(exc: json.JSONDecodeError) -> str:
    """json's message without its trailing "at" ("Unterminated string starting at")."""
    return exc.msg.removesuffix(" at")
