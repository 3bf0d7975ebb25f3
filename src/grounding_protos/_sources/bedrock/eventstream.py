"""Decoding a raw AWS event stream (``application/vnd.amazon.eventstream``) into the dicts
boto3 yields, for any of the operations that stream one (:class:`AwsStream`).

Each message's prelude (total and headers lengths, their CRC-32), headers and payload
are read by botocore's own event-stream buffer; its ``:event-type`` header picks the
operation whose stream has that event (each source declares its operation's events),
and botocore's parser with that operation's service model turns the payload into the
dict boto3 yields (a ``blob`` field decoded from base64 to ``bytes``), e.g.
``{"chunk": {"bytes": b"..."}}``. The extra ``grounding-protos[bedrock]`` installs
botocore. :class:`Decoder` takes the bytes in pieces of any size, as they arrive (a
sync or an async body alike); :func:`eventstream_items` is its sync form.

>>> is_eventstream(b"data: {}"), is_eventstream(b""), is_eventstream(bytes(12))
(False, False, False)
"""

from __future__ import annotations

import functools
import json
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grounding_protos._exceptions import MissingDependencyError, StreamError
from grounding_protos._quote import shown
from grounding_protos._sources.parse import Chunk, Item, Truncated

PRELUDE = 12
"""The bytes of a message's prelude: enough to tell an event stream from any text."""


@dataclass(frozen=True)
class AwsStream:
    """An operation whose response streams AWS events: the botocore service and
    operation, the output member that holds the event stream, the event types it
    sends (``events``: how a raw stream's first event picks its operation), and a
    ``(shape, member)`` the service model must have for the parse to keep what the
    readers need (an older botocore drops the fields its model lacks)."""

    service: str
    operation: str
    member: str
    events: frozenset[str]
    needs: tuple[str, str] | None = None


def is_eventstream(head: bytes) -> bool:
    """Whether ``head`` (at least its first 12 bytes) starts an event stream: its first
    message's prelude is consistent (a total length that holds the prelude, the headers
    and the message CRC) and matches the prelude's CRC-32."""
    if len(head) < PRELUDE:
        return False
    total = int.from_bytes(head[0:4], "big")
    headers = int.from_bytes(head[4:8], "big")
    if total < PRELUDE + 4 or headers > total - PRELUDE - 4:
        return False
    return zlib.crc32(head[:8]) == int.from_bytes(head[8:12], "big")


@functools.cache
def _buffer_types() -> tuple[Any, Any]:
    try:
        from botocore.eventstream import EventStreamBuffer, ParserError
    except ImportError as exc:
        raise MissingDependencyError(
            "decoding a raw AWS event stream (Bedrock) needs botocore: pip install botocore "
            "(or grounding-protos[bedrock])"
        ) from exc
    return EventStreamBuffer, ParserError


@functools.cache
def _parser(stream: AwsStream) -> tuple[Any, Any]:
    """botocore's event-stream parser and ``stream``'s event-stream shape."""
    _buffer_types()  # botocore is there (else MissingDependencyError)
    import botocore
    import botocore.session
    from botocore.parsers import EventStreamJSONParser

    model = botocore.session.get_session().get_service_model(stream.service)
    shape = model.operation_model(stream.operation).output_shape.members[stream.member]
    if stream.needs is not None:
        name, member = stream.needs
        if member not in model.shape_for(name).members:
            raise MissingDependencyError(  # its parser would drop that field
                f"botocore {botocore.__version__} predates {stream.operation}'s "
                f"{name}.{member}: pip install -U botocore (or grounding-protos[bedrock])"
            )
    return EventStreamJSONParser(), shape


class Decoder:
    """The events of a raw event stream fed in pieces of any size, numbered from 1; the
    operation is picked by the first event's ``:event-type`` among ``streams``.

    Raises (from :meth:`feed`):
        StreamError: an exception or error message (``:message-type`` ``exception`` or
            ``error``), bytes that are not an event stream (a checksum that does not
            match), a first event no operation of ``streams`` sends, a payload that
            does not parse.
        MissingDependencyError: botocore is not installed.
    """

    def __init__(self, streams: Sequence[AwsStream]) -> None:
        buffer_type, self._error = _buffer_types()
        self._buffer = buffer_type()
        self._streams = tuple(streams)
        self._stream: AwsStream | None = None
        self.number = 0
        self._pending = 0

    def feed(self, piece: bytes | bytearray | memoryview) -> Iterator[Chunk]:
        """The events ``piece`` completes."""
        self._buffer.add_data(bytes(piece))
        self._pending += len(piece)
        while True:
            try:
                message = next(self._buffer, None)
            except self._error as exc:
                raise StreamError(
                    f"not a Bedrock event stream (AWS eventstream): {type(exc).__name__}: "
                    f"{shown(str(exc))}",
                    event=self.number + 1,
                ) from exc
            if message is None:
                return
            self.number += 1
            self._pending -= message.prelude.total_length
            yield Chunk(self.number, self._event(message))

    def close(self) -> Iterator[Truncated]:
        """A :class:`Truncated` item when the bytes end inside a message."""
        if self._pending:
            yield Truncated(self.number + 1, f"the recording ends inside event {self.number + 1}")

    def _event(self, message: Any) -> object:
        number, headers = self.number, message.headers
        kind = headers.get(":message-type")
        if kind == "error":
            code, said = headers.get(":error-code"), headers.get(":error-message")
            raise StreamError(
                f"the stream reports an error: {shown(code)}: {shown(said)}", event=number
            )
        if kind == "exception":
            try:
                body = json.loads(message.payload)
            except ValueError:
                body = {}
            said = body.get("message") if isinstance(body, Mapping) else None
            raise StreamError(
                f"the stream reports an error: {headers.get(':exception-type')}: {shown(said)}",
                event=number,
            )
        event_type = headers.get(":event-type")
        stream = self._stream
        if stream is None:
            stream = next((s for s in self._streams if event_type in s.events), None)
            if stream is None:
                raise StreamError(
                    f"an AWS event stream of no supported operation: its first event is "
                    f"{shown(event_type)}",
                    event=number,
                )
            self._stream = stream
        parser, shape = _parser(stream)
        try:
            parsed = parser.parse(message.to_response_dict(), shape)
        except Exception as exc:  # botocore's parser on a payload it cannot read
            raise StreamError(
                f"event {shown(event_type)} does not parse: {type(exc).__name__}: "
                f"{shown(str(exc))}",
                event=number,
            ) from exc
        if not isinstance(parsed, Mapping) or event_type not in parsed:
            raise StreamError(
                f"event {shown(event_type)} is no event of {stream.operation}", event=number
            )
        return {event_type: parsed[event_type]}  # (an exception sent as an event: the
        # merger raises it)


def eventstream_items(
    pieces: Iterable[bytes | bytearray | memoryview], streams: Sequence[AwsStream]
) -> Iterator[Item]:
    """The events of a raw event stream (bytes in pieces, as they arrive), as the dicts
    boto3 yields, numbered from 1; a body cut inside a message ends with
    :class:`Truncated`.

    Raises:
        StreamError, MissingDependencyError: as :class:`Decoder`.
    """
    decoder = Decoder(streams)
    for piece in pieces:
        yield from decoder.feed(piece)
    yield from decoder.close()
