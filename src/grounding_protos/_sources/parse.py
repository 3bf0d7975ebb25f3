"""Turning a recorded stream into its chunks, one decoded response per event.

A recorded stream is Server-Sent Events text (``streamGenerateContent?alt=sse``:
``data: {...}`` events separated by blank lines, CRLF, LF or CR line ends, ``:``
comment lines, multi-line ``data`` fields joined with ``\\n`` as the SSE
specification says) or a JSON array of responses (``streamGenerateContent`` without
``alt=sse``), as ``str``, ``bytes`` or a text or binary file. Events are numbered
from 1 in the order they arrive; every error names the number.

An input that ends inside an event (no blank line after the last ``data:`` line, or
a JSON array without its ``]``) is a truncated recording: what decodes is kept,
and a last fragment that does not decode is reported as :class:`Truncated` instead
of raising, so that an interrupted stream still gives what arrived.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any, Literal, NamedTuple

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
        self._data: list[str] = []
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
        lines = _LINE_END.split(piece)
        if len(lines) > 1 and lines[-1] == "":  # the piece ended with its line end
            lines.pop()
        for line in lines:
            if line:
                if not line.startswith(":"):
                    name, colon, value = line.partition(":")
                    if colon and value.startswith(" "):
                        value = value[1:]
                    if name == "data":
                        self._data.append(value)
                    elif name == "event":
                        self._kind = value
                    # id, retry and unknown fields are ignored (SSE specification)
            elif self._data:
                data, kind = "\n".join(self._data), self._kind
                self._data, self._kind = [], ""
                if data == DONE:  # OpenAI's terminator (``[DONE]``): not an event
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
        data, kind = "\n".join(self._data), self._kind
        self._data, self._kind = [], ""
        if data == DONE:
            return []
        self.number += 1
        try:
            value = _event_value(self.number, kind, data)
        except StreamError as exc:
            if not isinstance(exc.__cause__, json.JSONDecodeError):
                raise
            return [Truncated(self.number, f"the recording ends inside event {self.number}")]
        return [Chunk(self.number, value)]


def sse_chunks(pieces: Iterable[str]) -> Iterator[Item]:
    """The events of SSE text given in pieces (see :class:`SSEParser`)."""
    parser = SSEParser()
    for piece in pieces:
        yield from parser.feed(piece)
    yield from parser.close()


def _event_value(number: int, kind: str, data: str) -> object:
    if kind == "error":
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
            return {"event": kind, "data": decode_json(number, data)}
        value = decode_json(number, data) if '"event_type"' in data or '"type"' in data else None
        if isinstance(value, Mapping) and kind in (value.get("event_type"), value.get("type")):
            return value
        raise StreamError(
            f"event type {shown(kind)} is not part of a Gemini response stream "
            f"(data {_shown(data)})",
            event=number,
        )
    return decode_json(number, data)


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


def json_array_chunks(text: str) -> Iterator[Item]:
    """The elements of a JSON array of responses, decoded one at a time.

    Raises:
        StreamError: text that is not a JSON array, or an element that is malformed
            (other than the last, cut short).
    """
    position = _skip(text, 0)
    if not text.startswith("[", position):
        raise StreamError("expected a JSON array of responses", event=None)
    position = _skip(text, position + 1)
    number = 0
    if text.startswith("]", position):
        _end(text, position + 1)
        return
    while True:
        number += 1
        if position >= len(text):
            yield Truncated(number - 1, "the recording ends before the JSON array's ']'")
            return
        try:
            value, position = _DECODER.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            if _skip(text, exc.pos) >= len(text):  # cut short inside the element
                yield Truncated(number, f"the recording ends inside element {number}")
                return
            raise StreamError(
                f"malformed JSON in element {number}: {_json_message(exc)} at character {exc.pos}",
                event=number,
            ) from exc
        except (RecursionError, ValueError) as exc:
            raise StreamError(f"malformed JSON: {exc}", event=number) from exc
        yield Chunk(number, value)
        position = _skip(text, position)
        if text.startswith(",", position):
            position = _skip(text, position + 1)
        elif text.startswith("]", position):
            _end(text, position + 1)
            return
        elif position >= len(text):
            yield Truncated(number, "the recording ends before the JSON array's ']'")
            return
        else:
            raise StreamError(
                f"expected ',' or ']' after element {number} at character {position}",
                event=number,
            )


def _skip(text: str, position: int) -> int:
    while position < len(text) and text[position] in _WHITESPACE:
        position += 1
    return position


def _end(text: str, position: int) -> None:
    if _skip(text, position) != len(text):
        raise StreamError(f"extra data after the JSON array at character {position}", event=None)


# --- Whole recordings ------------------------------------------------------------------


def recorded_chunks(source: str | bytes | bytearray | memoryview | IO[Any]) -> Iterator[Item]:
    """The events of a whole recorded stream (SSE, a JSON array, or one JSON response).

    A file is read line by line when it holds SSE, so events are decoded as they
    arrive (a pipe, a socket's file); a JSON array is read whole.

    >>> sse = 'data: {"a": 1}\\r\\n\\r\\n: ping\\r\\ndata: {"a": 2}\\n\\n'
    >>> [c.value for c in recorded_chunks(sse)]
    [{'a': 1}, {'a': 2}]

    Raises:
        StreamError: the input is none of these formats, or an event is not JSON.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        source = _decode(bytes(source))
    if isinstance(source, str):
        return _text_chunks(source.removeprefix("\ufeff"))
    return _file_chunks(source)


def _text_chunks(text: str) -> Iterator[Item]:
    fmt = detect(text[:64])
    if fmt == "json-array":
        return json_array_chunks(text)
    if fmt == "json":
        return iter([Chunk(1, decode_json(1, text))])
    if fmt == "sse":
        return sse_chunks([text])
    raise StreamError(
        f"not a recorded stream: expected SSE ('data: {{...}}' lines) or a JSON array, "
        f"got {_shown(text[:40])}",
        event=None,
    )


def _file_chunks(stream: IO[Any]) -> Iterator[Item]:
    lines = _lines(stream)
    head: list[str] = []
    for line in lines:  # the first line that is not blank says which format this is
        head.append(line)
        if line.strip(_WHITESPACE + "\ufeff"):
            break
    if head:
        head[0] = head[0].removeprefix("\ufeff")
    first = "".join(head)
    if detect(first) == "sse":
        return sse_chunks(_chain(head, lines))
    return _text_chunks(first + "".join(lines))


def _lines(stream: IO[Any]) -> Iterator[str]:
    number = 0
    for raw in stream:
        number += 1
        if isinstance(raw, str):
            yield raw
            continue
        try:
            yield bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StreamError(
                f"line {number} is not UTF-8 (byte {exc.start} of the line)", event=None
            ) from exc


def _chain(head: list[str], rest: Iterator[str]) -> Iterator[str]:
    yield from head
    yield from rest


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StreamError(f"the stream is not UTF-8: {exc.reason} at byte {exc.start}") from exc


def _json_message(exc: json.JSONDecodeError) -> str:
    """json's message without its trailing "at" ("Unterminated string starting at")."""
    return exc.msg.removesuffix(" at")
