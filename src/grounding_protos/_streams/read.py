"""``read_stream``, ``aread_stream`` and :class:`StreamReader`: any stream input turned
into numbered chunks, merged by its source's merger (the first event recognized by a
source's ``Stream`` in ``_sources.registry``, else Gemini's), and the merged response
read as a whole by ``read``.

A stream takes the same road as a whole response: nothing here reads grounding
metadata; the merger only decides which chunk's metadata the merged response keeps.
"""

from __future__ import annotations

import codecs
import itertools
import os
from bisect import bisect_left, bisect_right
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import IO, Any, cast

from google.protobuf.message import Message

from grounding_protos._citations.read import read  # noqa: F401 (the docstrings' :func:`read`)
from grounding_protos._citations.validate import validate
from grounding_protos._core.access import get
from grounding_protos._core.model import Citation, Grounded, Problem, SpanPolicy
from grounding_protos._exceptions import (
    ArgumentValueError,
    CitationError,
    OffsetError,
    StreamError,
    UnsupportedInputError,
)
from grounding_protos._offsets import SpanSnap, Unit
from grounding_protos._public import public
from grounding_protos._sources.bedrock import eventstream as aws
from grounding_protos._sources.google.gemini.merger import (
    CITATION_FIELDS,
    Candidate,
    Merger,
    decode_text,
    integer,
)
from grounding_protos._sources.merging import EventMerger, Placeable
from grounding_protos._sources.parse import (
    Chunk,
    Item,
    SSEParser,
    Truncated,
    detect,
    recorded_chunks,
    text_line,
)
from grounding_protos._sources.registry import AWS_STREAMS, Merge, stream_of
from grounding_protos._streams.options import ReadOptions, read_gemini
from grounding_protos._streams.turns import TurnReader

# --- Inputs ------------------------------------------------------------------------------


def _is_response(obj: object) -> bool:
    """A single response passed where a stream was expected (a stream of one)."""
    if isinstance(obj, (Mapping, Message)):
        return True
    if hasattr(type(obj), "pb") and hasattr(type(obj), "meta"):  # proto-plus
        return True
    return isinstance(getattr(type(obj), "model_fields", None), Mapping)  # pydantic


def stream_items(stream: object) -> Iterator[Item]:
    """The numbered chunks of any stream input (see ``read_stream``)."""
    if isinstance(stream, os.PathLike):  # a recording's path: read as it is merged
        return _path_items(stream)
    if isinstance(stream, (bytes, bytearray, memoryview)) and aws.is_eventstream(
        bytes(stream[: aws.PRELUDE])
    ):  # a raw AWS event stream body (Bedrock)
        return aws.eventstream_items([bytes(stream)], AWS_STREAMS)
    if isinstance(stream, (str, bytes, bytearray, memoryview)):
        return recorded_chunks(stream)
    if hasattr(stream, "read"):
        file: IO[Any] = stream  # type: ignore[assignment]
        if aws.is_eventstream(_file_head(file)):
            return aws.eventstream_items(iter(lambda: file.read(65536), b""), AWS_STREAMS)
        return recorded_chunks(file)
    if isinstance(stream, Mapping) and "ResponseMetadata" in stream:
        for name in ("stream", "completion"):  # boto3's converse_stream(),
            if name in stream:  # retrieve_and_generate_stream(), invoke_agent() response
                return _iterable_items(iter(stream[name]))
    if _is_response(stream):
        return iter([Chunk(1, stream)])
    if not isinstance(stream, Iterable):
        raise StreamError(
            f"expected an iterable of response chunks or a recorded stream, got an object "
            f"of type {type(stream).__module__}.{type(stream).__qualname__}"
        )
    return _iterable_items(iter(stream))


def _path_items(path: os.PathLike[Any]) -> Iterator[Item]:
    """The numbered chunks of a recording's file, read in pieces (``recorded_chunks``)."""
    with open(path, "rb") as recording:
        yield from stream_items(recording)


_BYTES = (bytes, bytearray, memoryview)


def _file_head(file: IO[Any]) -> bytes:
    """The first 12 bytes of a binary file, left unread: peeked (a buffered file), or
    read and sought back (``io.BytesIO``, a file on disk); ``b""`` when neither can
    tell (a text file, a pipe whose buffer holds fewer bytes)."""
    peek = getattr(file, "peek", None)
    if callable(peek):
        head = peek(aws.PRELUDE)
        if isinstance(head, _BYTES) and len(head) >= aws.PRELUDE:
            return bytes(head[: aws.PRELUDE])
    try:
        if file.seekable():
            at = file.tell()
            head = file.read(aws.PRELUDE)
            file.seek(at)
            return bytes(head) if isinstance(head, _BYTES) else b""
    except (OSError, ValueError, AttributeError):
        pass
    return b""


def _iterable_items(elements: Iterator[object]) -> Iterator[Item]:
    """Numbered chunks of an iterable: the elements themselves (numbered by
    ``enumerate``, no object per chunk), the events of SSE lines, or those of the byte
    pieces of a raw AWS event stream (told by its first 12 bytes, however the pieces
    are cut)."""
    first = next(elements, _END)
    if first is _END:
        return iter(())
    if isinstance(first, _BYTES):
        head: list[object] = [first]
        size = len(first)
        while size < aws.PRELUDE:  # too short to tell: the next pieces too
            piece = next(elements, _END)
            if piece is _END:
                break
            head.append(piece)
            if not isinstance(piece, _BYTES):
                break
            size += len(piece)
        elements = itertools.chain(head[1:], elements)
        if aws.is_eventstream(b"".join(bytes(p) for p in head if isinstance(p, _BYTES))):
            return aws.eventstream_items(_pieces(first, elements), AWS_STREAMS)
    if isinstance(first, (str, bytes)):
        text = first.decode("utf-8", "replace") if isinstance(first, bytes) else first
        if detect(text) == "sse" or not text.strip():  # SSE lines (``iter_lines()``)
            return _sse_lines(first, elements)
    return itertools.chain(((1, first),), enumerate(elements, 2))  # type: ignore[arg-type]


def _pieces(first: object, rest: Iterator[object]) -> Iterator[bytes]:
    """The byte pieces of a raw event stream; a piece of another type is a StreamError."""
    for number, piece in enumerate(itertools.chain([first], rest)):
        if not isinstance(piece, _BYTES):
            raise StreamError(
                f"piece {number + 1} of a raw AWS event stream is a "
                f"{type(piece).__name__}, not bytes"
            )
        yield bytes(piece)


_END = object()


def _sse_lines(first: object, rest: Iterator[object]) -> Iterator[Item]:
    parser = SSEParser()
    yield from parser.feed(text_line(first))
    for element in rest:
        yield from parser.feed(text_line(element))
    yield from parser.close()


async def _async_items(stream: AsyncIterable[object]) -> AsyncIterable[Item]:
    iterator = aiter(stream)
    head: list[object] = []  # the first byte pieces, until 12 bytes tell the format
    size = 0
    async for element in iterator:
        head.append(element)
        if not isinstance(element, _BYTES):
            break
        size += len(element)
        if size >= aws.PRELUDE:
            break
    raw = all(isinstance(p, _BYTES) for p in head)
    data = b"".join(cast("list[bytes]", head)) if raw else b""
    if aws.is_eventstream(data):  # a raw AWS event stream
        decoder = aws.Decoder(AWS_STREAMS)  # (httpx's aiter_bytes(): pieces of any size)
        for chunk in decoder.feed(data):
            yield chunk
        async for piece in iterator:
            if not isinstance(piece, _BYTES):
                raise StreamError(f"a piece of a raw AWS event stream is a "
                                  f"{type(piece).__name__}, not bytes")  # fmt: skip
            for chunk in decoder.feed(piece):
                yield chunk
        for end in decoder.close():
            yield end
        return
    number = 0
    sse: SSEParser | None = None
    async for element in _then(head, iterator):
        if number == 0 and sse is None and isinstance(element, (str, bytes)):
            text = element.decode("utf-8", "replace") if isinstance(element, bytes) else element
            if text.strip() and detect(text) == "sse":
                sse = SSEParser()
        if sse is not None:
            for item in sse.feed(text_line(element)):
                yield item
            continue
        number += 1
        yield Chunk(number, element)
    if sse is not None:
        for item in sse.close():
            yield item


async def _then(head: list[object], rest: AsyncIterator[object]) -> AsyncIterator[object]:
    for element in head:
        yield element
    async for element in rest:
        yield element


# --- Public functions -----------------------------------------------------------------------


def read_stream(
    stream: object,
    *,
    text: str | bytes | None = None,
    candidate: int = 0,
    snap: SpanSnap | None = None,
    clamp: bool = False,
    errors: SpanPolicy = "repair",
    unit: Unit | None = None,
) -> Grounded:
    """The answer text and citations of a streamed Gemini response, as :func:`read`
    gives them for the whole response.

    ``stream`` is an iterable of chunks (REST dicts, google-genai
    ``GenerateContentResponse`` objects, official client objects, the JSON text of
    one chunk or one SSE event each, or the lines of an SSE stream), or a whole
    recorded stream as ``str``,
    ``bytes``, a file or a file's path (``pathlib.Path``): SSE (``data: {...}`` events)
    or a JSON array of responses.
    ``candidate`` is a candidate's ``index``; the options are those of :func:`read`
    (``unit`` too: what the offsets count, for the shape's default).
    The chunks are merged (``docs/streams.md``) and the merged response is read. The
    streams of other surfaces and vendors are recognized by their first chunk: Discovery
    Engine's, the Interactions API's, Gemini Live's, the OpenAI family's (Responses
    API and xAI, Chat Completions and OpenRouter, Assistants runs), and Anthropic
    Messages, Cohere v2 chat, and Bedrock ``ConverseStream``, ``RetrieveAndGenerateStream``
    and Agents ``InvokeAgent`` (boto3's event dicts, or the raw event-stream ``bytes``,
    whole or in pieces of any size), each merged into its own final response.

    A stream that ends without a ``finishReason`` for the candidate (interrupted)
    gives what arrived, with a ``stream-incomplete`` problem in ``problems``; merged
    duplicate citations are ``stream-duplicate-citation`` problems.

    >>> sse = (
    ...     'data: {"candidates": [{"content": {"parts": [{"text": "Grüße aus "}]}}]}\\n\\n'
    ...     'data: {"candidates": [{"content": {"parts": [{"text": "Köln."}]},'
    ...     ' "finishReason": "STOP", "groundingMetadata": {'
    ...     '"groundingChunks": [{"web": {"uri": "https://k.example", "title": "Köln"}}],'
    ...     '"groundingSupports": [{"segment": {"startIndex": 12, "endIndex": 17},'
    ...     ' "groundingChunkIndices": [0]}]}}]}\\n\\n'
    ... )
    >>> grounded = read_stream(sse)
    >>> grounded.text, [(c.text, c.char_start) for c in grounded.citations], grounded.problems
    ('Grüße aus Köln.', [('Köln', 10)], [])

    Raises:
        StreamError: a chunk is not a response (an error event or body, malformed
            JSON, another API's chunk), naming the event's number; or no event at all.
        UnsupportedInputError, OffsetError, CitationError: as :func:`read`.
    """
    return _read_stream(stream, _options(candidate, text, snap, clamp, errors, unit))


def _read_stream(stream: object, options: ReadOptions) -> Grounded:
    """:func:`read_stream` with its options checked."""
    if type(stream) is list and stream and type(stream[0]) is dict:
        family = event_merger(stream[0])
        if family is not None:  # a list of an OpenAI-family stream's events, numbered here
            for number, event in enumerate(stream, 1):
                family.add(number, event if type(event) is dict else _decoded(number, event))
            return options.read_merged(*family.result())
    merger = Merger()
    add = merger.add
    if (
        type(stream) is list
        and stream
        and not isinstance(stream[0], (str, bytes, bytearray))
        and _merger_of(stream[0]) is None
    ):  # a list of chunks: what stream_items() would number, without an Item per chunk
        for number, chunk in enumerate(stream, 1):
            add(number, chunk)
        return read_gemini(merger, options, final=True)
    events = iter(stream_items(stream))
    first = next(events, None)
    if first is None:
        return read_gemini(merger, options, final=True)  # no event: StreamError
    merge = None if isinstance(first, Truncated) else _merger_of(_decoded(*first))
    if merge is not None:
        return _read_merged(itertools.chain([first], events), options, merge)
    for item in itertools.chain([first], events):
        if type(item) is Truncated:
            merger.truncated(item)
            break
        add(*item)
    return read_gemini(merger, options, final=True)


def _options(
    candidate: int,
    text: str | bytes | None,
    snap: SpanSnap | None,
    clamp: bool,
    errors: SpanPolicy,
    unit: Unit | None,
) -> ReadOptions:
    """``read``'s options, ``unit`` checked before any chunk is read."""
    if unit is not None and unit not in ("byte", "char", "utf16"):
        raise ArgumentValueError(f"unit must be 'byte', 'char' or 'utf16', not {unit!r}")
    return ReadOptions(candidate, text, snap, clamp, errors, unit)


# --- The sources' mergers (``_sources.registry``) ---------------------------------------


def _merger_of(value: object) -> Merge | None:
    stream = stream_of(value)
    return None if stream is None else stream.merger()


def event_merger(value: object) -> EventMerger | None:
    """A new event-at-a-time merger for a stream whose first event is ``value`` (an
    OpenAI Responses, Chat Completions or Assistants stream), else ``None``."""
    stream = stream_of(_decoded(1, value))
    return None if stream is None or stream.events is None else stream.events()


def merge_events(
    merger: EventMerger, events: Iterable[Item], shown: Callable[[dict[int, str]], None]
) -> tuple[object, list[Problem]]:
    """:func:`merge_items` with an :class:`EventMerger`, calling ``shown`` with the text
    each event adds (by candidate), for a live view."""
    truncated: list[Problem] = []
    for item in events:
        if isinstance(item, Truncated):
            truncated.append(Problem("stream-truncated", item.message, ""))
            break
        texts: dict[int, str] = {}
        merger.add(item[0], _decoded(*item), texts)
        if texts:
            shown(texts)
    merged, problems = merger.result()
    return merged, [*truncated, *problems]


def surface_merger(value: object) -> Merge | None:
    """The merger of a stream whose first chunk is ``value``, when it is not a
    ``generateContent`` stream (a ``:streamAnswer``, an Interactions stream, ...):
    it merges the numbered chunks into the surface's final response and says what it
    found. ``None`` for a Gemini chunk (``_sources.google.gemini.merger.Merger``)."""
    return _merger_of(_decoded(1, value))


def _decoded(number: int, value: object) -> object:
    """A chunk given as JSON text (or one SSE event), decoded; anything else as it is."""
    if isinstance(value, (str, bytes, bytearray)):
        try:
            return decode_text(number, bytes(value) if isinstance(value, bytearray) else value)
        except StreamError:
            return value  # the Gemini path reports it
    return value


def merge_items(merge: Merge, events: Iterable[Item]) -> tuple[object, list[Problem]]:
    """The response a surface's numbered stream items merge into (``merge`` is its
    merger, from :func:`surface_merger`), and what the stream lacked: a truncation
    (``stream-truncated``) first, then what merging found."""
    truncated: list[Problem] = []

    def numbered() -> Iterator[tuple[int, object]]:
        for item in events:
            if isinstance(item, Truncated):
                truncated.append(Problem("stream-truncated", item.message, ""))
                return
            yield item[0], _decoded(*item)

    merged, problems = merge(numbered())
    return merged, [*truncated, *problems]


def _read_merged(events: Iterable[Item], options: ReadOptions, merge: Merge) -> Grounded:
    """``read`` of the response a surface's stream merges into, with the stream's problems."""
    return options.read_merged(*merge_items(merge, events))


def read_turns(
    stream: object,
    *,
    snap: SpanSnap | None = None,
    clamp: bool = False,
    errors: SpanPolicy = "repair",
) -> list[Grounded]:
    """Every turn of a recorded Gemini Live session, each read as its own answer.

    ``stream`` is what :func:`read_stream` takes (an iterable of ``LiveServerMessage``
    objects, dicts or JSON text; a JSON array, or JSON lines as SSE ``data:`` events). A
    turn is the messages up to one with ``turnComplete``; a last turn the session left
    unfinished is read too, with a ``stream-incomplete`` problem. For a session as it
    runs, feed a :class:`~grounding_protos.citations.TurnReader` instead.

    >>> turns = read_turns([
    ...     {"setupComplete": {}},
    ...     {"serverContent": {"modelTurn": {"parts": [{"text": "Köln."}]}, "turnComplete": True}},
    ...     {"serverContent": {"modelTurn": {"parts": [{"text": "東京。"}]}, "turnComplete": True}},
    ... ])
    >>> [t.text for t in turns]
    ['Köln.', '東京。']

    Raises:
        StreamError: a message that is not a Live server message.
    """
    reader = TurnReader(snap=snap, clamp=clamp, errors=errors)
    turns: list[Grounded] = []
    for item in stream_items(stream):
        if isinstance(item, Truncated):
            break
        turn = reader.feed(item[1])
        if turn is not None:
            turns.append(turn)
    last = reader.finish()
    if last is not None:
        turns.append(last)
    return turns


@dataclass(frozen=True)
class _Merged(ReadOptions):
    """Options that keep each response they are asked to read, unread: the merged
    response of a stream, for :func:`validate_stream`."""

    kept: list[object] = field(default_factory=list)

    def read(self, obj: object, *, text: bool = True) -> Grounded:
        self.kept.append(obj)
        return Grounded(None, [])


def validate_stream(
    stream: object,
    *,
    text: str | bytes | None = None,
    candidate: int = 0,
    unit: Unit | None = None,
) -> list[Problem]:
    """Every problem of a streamed response: what merging the stream found (an
    interrupted or cut stream, merged duplicates), then what :func:`validate` finds in
    the response the stream merges into; an empty list when there is none. What
    ``grounding-protos validate`` lists for a stream.

    ``stream`` is what :func:`read_stream` takes; the options are :func:`validate`'s.

    >>> sse = (
    ...     'data: {"candidates": [{"content": {"parts": [{"text": "Köln"}]}}]}\\n\\n'
    ...     'data: {"candidates": [{"content": {"parts": [{"text": " 🌉."}]},'
    ...     ' "groundingMetadata": {"groundingChunks": [{"web": {"uri": "https://k.example"}}],'
    ...     ' "groundingSupports": [{"segment": {"endIndex": 99},'
    ...     ' "groundingChunkIndices": [0]}]}}]}\\n\\n'
    ... )
    >>> [p.code for p in validate_stream(sse)]
    ['stream-incomplete', 'offset-out-of-range']

    Raises:
        StreamError: as :func:`read_stream` (a chunk that is not a response, no event).
        UnsupportedInputError: the merged response has no supported shape.
    """
    merged = _Merged(candidate, text, None, False, "repair", unit)
    if unit is not None and unit not in ("byte", "char", "utf16"):
        raise ArgumentValueError(f"unit must be 'byte', 'char' or 'utf16', not {unit!r}")
    stream_problems = _read_stream(stream, merged).problems
    if not merged.kept:
        raise StreamError("the stream holds no response: 0 events")
    found = validate(merged.kept[-1], text=text, candidate=candidate, unit=unit)
    return [*stream_problems, *found]


async def aread_stream(
    stream: AsyncIterable[object] | Iterable[object],
    *,
    text: str | bytes | None = None,
    candidate: int = 0,
    snap: SpanSnap | None = None,
    clamp: bool = False,
    errors: SpanPolicy = "repair",
    unit: Unit | None = None,
) -> Grounded:
    """:func:`read_stream` for an async iterable of chunks (google-genai's
    ``client.aio.models.generate_content_stream``); a sync stream is read as
    ``read_stream`` reads it.

    >>> import asyncio
    >>> async def chunks():
    ...     yield {"candidates": [{"content": {"parts": [{"text": "東京"}]}}]}
    ...     yield {"candidates": [{"content": {"parts": [{"text": "です"}]},
    ...                            "finishReason": "STOP"}]}
    >>> asyncio.run(aread_stream(chunks())).text
    '東京です'
    """
    if not isinstance(stream, AsyncIterable):
        return read_stream(
            stream, text=text, candidate=candidate, snap=snap, clamp=clamp, errors=errors,
            unit=unit,
        )  # fmt: skip
    options = _options(candidate, text, snap, clamp, errors, unit)
    merger = Merger()
    others: list[Item] = []  # the items of a stream of another source than Gemini
    merge: Merge | None = None
    async for item in _async_items(stream):
        if others or (not isinstance(item, Truncated) and not merger.events
                      and (merge := _merger_of(_decoded(*item))) is not None):  # fmt: skip
            others.append(item)
            continue
        if isinstance(item, Truncated):
            merger.truncated(item)
            break
        merger.add(item.number, item.value)
    if merge is not None:
        return _read_merged(others, options, merge)
    return read_gemini(merger, options, final=True)


# --- The incremental reader ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Update:
    """What one chunk brought: ``text`` is the answer text it adds to the reader's
    candidate (thought parts excluded), ``texts`` the same for every candidate in the
    chunk; ``citations`` those of the reader's candidate that became available, placed
    on the whole answer; ``finished`` whether the candidate's ``finishReason`` came."""

    event: int
    text: str
    citations: list[Citation]
    texts: dict[int, str]
    finished: bool


class _SSEPieces:
    """SSE text fed to a :class:`StreamReader` piece by piece, as its events.

    The pieces are either lines as ``iter_lines`` gives them (no line end; a blank
    line is an empty piece) or raw text cut anywhere (``iter_content``, a socket's
    reads: in the middle of a line, of a character, of a UTF-8 sequence). Raw text
    has line ends and lines never do, so pieces are held until one says which: a piece
    with a line end (raw text), or an empty one (lines).
    """

    def __init__(self) -> None:
        self.parser = SSEParser()
        self.raw: bool | None = None
        self.held: list[str | bytes] = []
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.partial = ""  # raw text after its last line end
        self.between = True  # the text so far ends between two events

    def feed(self, piece: object) -> list[Item]:
        if isinstance(piece, bytearray):
            piece = bytes(piece)
        if not isinstance(piece, (str, bytes)):
            raise StreamError(f"expected more SSE text after SSE text, got {type(piece).__name__}")
        if self.raw is None:
            ends = b"\n" in piece or b"\r" in piece if isinstance(piece, bytes) else (
                "\n" in piece or "\r" in piece)  # fmt: skip
            if not ends and piece:
                self.held.append(piece)
                self.between = False
                return []
            self.raw = ends
            held, self.held = self.held, []
            out: list[Item] = []
            for earlier in held:
                out += self._piece(earlier)
            return out + self._piece(piece)
        return self._piece(piece)

    def _piece(self, piece: str | bytes) -> list[Item]:
        if not self.raw:
            self.between = not piece
            return self.parser.feed(text_line(piece))
        if isinstance(piece, bytes):
            try:
                piece = self.decoder.decode(piece)
            except UnicodeDecodeError as exc:
                raise StreamError(f"the SSE text is not UTF-8: {exc.reason}") from exc
        text = self.partial + piece
        self.between = text.endswith(("\n\n", "\r\r", "\r\n\r\n"))
        cut = max(text.rfind("\n"), text.rfind("\r")) + 1
        self.partial = text[cut:]
        return self.parser.feed(text[:cut]) if cut else []

    def close(self) -> list[Item]:
        """The events left at the end: the last line without its line end, the last
        event without its blank line (or what cut it short)."""
        out: list[Item] = []
        if self.raw is None:
            self.raw = False
            for piece in self.held:
                out += self._piece(piece)
        elif self.raw:
            try:
                self.partial += self.decoder.decode(b"", final=True)
            except UnicodeDecodeError as exc:
                raise StreamError(f"the SSE text ends inside a character: {exc.reason}") from exc
            if self.partial:
                out += self.parser.feed(self.partial)
        return out + self.parser.close()


def _is_sse_text(chunk: object) -> bool:
    """A first chunk of SSE text (a line, or a piece of raw text), not the JSON of one
    response."""
    if isinstance(chunk, (bytes, bytearray)):
        if aws.is_eventstream(bytes(chunk[: aws.PRELUDE])):
            return False
        chunk = bytes(chunk[:64]).decode("utf-8", "replace")
    return isinstance(chunk, str) and detect(chunk) not in ("json", "json-array")


class StreamReader:
    """Read a stream chunk by chunk, for applications that show text as it arrives.

    :meth:`feed` takes one chunk (any kind ``read_stream`` takes in an iterable) and
    returns an :class:`Update`: the new text, and the citations that became available.
    A ``citationMetadata`` citation arrives with the chunk where its span ends and is
    placed then; grounding supports (usually all in the last chunk, sometimes early)
    are placed when the candidate finishes, since their offsets may point at text that
    has not arrived yet. :meth:`grounded` is the result so far, :meth:`finish` the
    result at the end of the stream (the same as ``read_stream``).

    SSE text is taken in pieces of any size: the lines of an SSE stream (as
    ``iter_lines`` gives them) or raw text cut anywhere; an update then brings what the
    events that the piece completed brought (nothing, when it completed none).

    The options are :func:`read_stream`'s (with ``unit`` other than ``"byte"``,
    ``citationMetadata`` citations come with the chunk where the candidate finishes).
    The work per chunk is proportional to the chunk, not to the text received before
    it; placing a citation costs the text of the fragments it spans. Only the final
    read (when the candidate finishes) goes over the whole answer.

    Streams of the OpenAI family (Responses API and xAI, Chat Completions and
    OpenRouter, Assistants runs; recognized by the first chunk) give their text as it
    arrives, and their citations in the update of the event that finishes the answer
    (``response.completed``, the choice's ``finish_reason``, the completed message
    and run) and in :meth:`finish`: their offsets count text that may not have arrived.
    Anthropic, Cohere and Bedrock streams give each citation as soon as it can be
    placed (a cited block that stopped, a Cohere citation whose text has arrived), the
    others with their end event.

    >>> reader = StreamReader()
    >>> reader.feed({"candidates": [{"content": {"parts": [{"text": "Ça va à "}]}}]}).text
    'Ça va à '
    >>> update = reader.feed({"candidates": [{"content": {"parts": [{"text": "Paris."}]},
    ...     "citationMetadata": {"citationSources": [
    ...         {"startIndex": 10, "endIndex": 15, "uri": "https://p.example"}]}}]})
    >>> [(c.text, c.char_start, c.sources[0].uri) for c in update.citations]
    [('Paris', 8, 'https://p.example')]
    >>> reader.finish().problems[0].code
    'stream-incomplete'
    """

    def __init__(
        self,
        *,
        candidate: int = 0,
        text: str | bytes | None = None,
        snap: SpanSnap | None = None,
        clamp: bool = False,
        errors: SpanPolicy = "repair",
        unit: Unit | None = None,
    ) -> None:
        self._options = _options(candidate, text, snap, clamp, errors, unit)
        self._merger = Merger(track=True)
        self._events: EventMerger | None = None  # an OpenAI-family stream's merger
        self._reported: set[str] = set()
        self._done = False
        self._sse: _SSEPieces | None = None  # SSE text fed in pieces
        self._cut: list[Problem] = []  # an SSE event cut short at the end

    @property
    def events(self) -> int:
        """How many chunks were fed."""
        return self._events.events if self._events is not None else self._merger.events

    def merged(self) -> dict[str, Any]:
        """The merged response so far (REST-shaped; its leaves may be the chunks' objects)."""
        if self._events is not None:
            return cast("dict[str, Any]", self._events.result()[0])
        return self._merger.merged()

    def _feed_event(self, chunk: object) -> Update:
        """:meth:`feed` for a stream of the OpenAI family: the text as it arrives, the
        citations when the vendor marks the answer done (``response.completed``, a
        ``finish_reason``, the completed message and run)."""
        merger = self._events
        assert merger is not None
        number = merger.events + 1
        index = self._options.candidate
        was_finished = merger.finished(index)
        texts: dict[int, str] = {}
        merger.add(number, _decoded(number, chunk), texts)
        finished = not was_finished and merger.finished(index)
        citations: list[Citation] = []
        placeable: list[Placeable] | None = getattr(merger, "placeable", None)
        for piece in placeable or ():  # a cited block ended, a citation's span arrived
            placed = self._place_piece(piece)
            if placed is not None and placed.path not in self._reported:
                citations.append(placed)
                self._reported.add(placed.path)
        if placeable:
            placeable.clear()
        if finished:
            citations += [c for c in self._read_events(final=False).citations
                          if c.path not in self._reported]  # fmt: skip
            self._reported.update(c.path for c in citations)
        return Update(number, texts.get(index, ""), citations, texts, finished)

    def _place_piece(self, piece: Placeable) -> Citation | None:
        """A citation placed by reading the small response that holds it alone, shifted
        to where that response's text starts in the answer; ``None`` (left to the final
        read) when that read finds anything to report."""
        try:
            grounded = self._options.read(piece.response, text=False)
        except (OffsetError, CitationError, UnsupportedInputError):
            return None
        if len(grounded.citations) != 1 or grounded.problems:
            return None
        c = grounded.citations[0]
        if c.char_start is None or c.char_end is None:
            return None
        return replace(
            c,
            start=c.start + piece.byte_base,
            end=c.end + piece.byte_base,
            char_start=c.char_start + piece.char_base,
            char_end=c.char_end + piece.char_base,
            path=piece.path,
        )

    def _read_events(self, *, final: bool) -> Grounded:
        assert self._events is not None
        merged, problems = self._events.result()
        if not final:
            problems = [p for p in problems if p.code != "stream-incomplete"]
        return self._options.read_merged(merged, problems)

    def feed(self, chunk: object) -> Update:
        """Merge one chunk (or a piece of SSE text); return what it brought.

        Raises:
            StreamError: the chunk is not a response (see ``read_stream``).
        """
        if self._done:
            raise StreamError("feed() after finish(): the stream is over")
        if self._sse is None and self.events == 0 and _is_sse_text(chunk):
            self._sse = _SSEPieces()
        if self._sse is not None and not (self._sse.between and not _is_sse_text(chunk)):
            return self._feed_items(self._sse.feed(chunk))
        return self._feed_chunk(chunk)  # a chunk (also between SSE events: JSON text, a dict)

    def _feed_items(self, items: list[Item]) -> Update:
        """What the events of some SSE text brought, as one update."""
        text: list[str] = []
        texts: dict[int, str] = {}
        citations: list[Citation] = []
        finished = False
        for item in items:
            if isinstance(item, Truncated):
                self._cut.append(Problem("stream-truncated", item.message, ""))
                continue
            update = self._feed_chunk(item[1])
            text.append(update.text)
            for index, piece in update.texts.items():
                texts[index] = texts.get(index, "") + piece
            citations += update.citations
            finished = finished or update.finished
        return Update(self.events, "".join(text), citations, texts, finished)

    def _feed_chunk(self, chunk: object) -> Update:
        if self._events is None and self._merger.events == 0:
            self._events = event_merger(chunk)
            if hasattr(self._events, "track"):  # place citations as they become placeable
                self._events.track = True  # type: ignore[union-attr]
        if self._events is not None:
            return self._feed_event(chunk)
        number = self._merger.events + 1
        index = self._options.candidate
        before = self._merger.candidates.get(index)
        was_finished = before is not None and before.finish_reason is not None
        texts: dict[int, str] = {}
        self._merger.add(number, chunk, texts)
        state = self._merger.candidates.get(index)
        finished = not was_finished and state is not None and state.finish_reason is not None
        citations: list[Citation] = []
        if state is not None and finished:
            grounded = read_gemini(self._merger, self._options, final=False)
            citations = [c for c in grounded.citations if c.path not in self._reported]
            self._reported.update(c.path for c in citations)
        elif state is not None and state.citation_event == number:  # citations came
            for j in range(state.chunk_first_citation, len(state.citations)):
                placed = self._place(state, j)
                if placed is not None and placed.path not in self._reported:
                    citations.append(placed)
                    self._reported.add(placed.path)
        return Update(number, texts.get(index, ""), citations, texts, finished)

    def grounded(self) -> Grounded:
        """The answer and citations so far (grounding metadata that points past the
        text received so far is left out, with a ``stream-grounding-pending`` problem)."""
        if self._events is not None:
            return self._read_events(final=False)
        return read_gemini(self._merger, self._options, final=False)

    def finish(self) -> Grounded:
        """The result at the end of the stream: :meth:`grounded`, plus a
        ``stream-incomplete`` problem when the candidate never finished."""
        if self._sse is not None and not self._done:
            self._feed_items(self._sse.close())
        self._done = True
        if self._events is not None:
            grounded = self._read_events(final=True)
        else:
            grounded = read_gemini(self._merger, self._options, final=True)
        if self._cut:
            grounded = replace(grounded, problems=[*self._cut, *grounded.problems])
        return grounded

    def _place(self, state: Candidate, j: int) -> Citation | None:
        """Citation ``j`` placed by reading only the fragments it spans."""
        if self._options.unit not in (None, "byte"):
            return None  # the fragments are kept by bytes: placed when the candidate finishes
        item = state.citations[j]
        start = integer(get(item, "start_index") or 0)
        end = integer(get(item, "end_index") or 0)
        if start is None or end is None or not 0 <= start <= end <= state.bytes:
            return None  # left to the final read, which reports what is wrong
        if not state.fragments:
            return None
        first = max(bisect_right(state.byte_starts, start) - 1, 0)
        stop = max(bisect_left(state.byte_starts, end), first + 1)
        base, char_base = state.byte_starts[first], state.char_starts[first]
        window = "".join(state.fragments[first:stop])
        shifted: dict[str, Any] = {"startIndex": start - base, "endIndex": end - base}
        for name in (*CITATION_FIELDS, "publication_date"):
            value = get(item, name)
            if value is not None:
                shifted[name] = value
        key = state.citation_name
        piece = {"candidates": [{"content": {"parts": [{"text": window}]},
                                 "citationMetadata": {key: [shifted]}}]}  # fmt: skip
        try:
            placed = self._options.read(piece, text=False).citations
        except (OffsetError, CitationError):
            return None
        if len(placed) != 1:
            return None
        c = placed[0]
        if c.char_start is None or c.char_end is None:
            return None
        name = "citation_sources" if key == "citationSources" else "citations"
        return replace(
            c,
            start=c.start + base,
            end=c.end + base,
            char_start=c.char_start + char_base,
            char_end=c.char_end + char_base,
            sources=tuple(replace(s, id=str(j)) for s in c.sources),
            path=f"{state.path}.citation_metadata.{name}[{j}]",
        )


public(
    "grounding_protos.citations",
    read_stream,
    aread_stream,
    Update,
    StreamReader,
    read_turns,
    validate_stream,
)
