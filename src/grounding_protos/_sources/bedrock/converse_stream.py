"""Merging an Amazon Bedrock ``ConverseStream`` into the ``Converse`` response it adds up to.

boto3's ``converse_stream(...)["stream"]`` yields one dict per event, each with one
key: ``messageStart`` (``role``), ``contentBlockStart`` (``contentBlockIndex``,
``start``: a ``toolUse`` with ``toolUseId`` and ``name``; text blocks have no start
event), ``contentBlockDelta`` (``contentBlockIndex``, ``delta``: ``text``, a
``citation`` (``title``, ``source``, ``sourceContent``, ``location``), ``toolUse``
``input`` pieces, ``reasoningContent``), ``contentBlockStop``, ``messageStop``
(``stopReason``) and ``metadata`` (``usage``, ``metrics``); or one of the stream's
exceptions (``throttlingException`` …). A block that received citations becomes a
``citationsContent`` block, its text the wrapped generated ``content`` and each
citation delta one of its ``citations`` (the ``Converse`` layout); a block of text
alone a ``text`` block; tool input JSON is parsed at the block's stop.

The raw HTTP body (``application/vnd.amazon.eventstream``) is decoded with botocore's
own event-stream parser and ``bedrock-runtime`` service model (the extra
``grounding-protos[bedrock]``) into the same dicts boto3 yields:
:func:`eventstream_items`.

>>> merged, problems = merge_numbered(enumerate([
...     {"messageStart": {"role": "assistant"}},
...     {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "東京 🗼 "}}},
...     {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"citation": {
...         "title": "Tokio", "location": {"web": {"url": "https://t.example"}}}}}},
...     {"contentBlockStop": {"contentBlockIndex": 0}},
...     {"messageStop": {"stopReason": "end_turn"}}], 1))
>>> merged["output"]["message"]["content"][0]["citationsContent"]["content"], problems
([{'text': '東京 🗼 '}], [])
"""

from __future__ import annotations

import functools
import json
import zlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from grounding_protos._core.model import Problem
from grounding_protos._exceptions import MissingDependencyError, StreamError
from grounding_protos._quote import shown
from grounding_protos._sources.common import describe
from grounding_protos._sources.merging import (
    OneAnswerMerger,
    Placeable,
    field,
    incomplete,
    merge_with,
    parse_input,
)
from grounding_protos._sources.parse import Chunk, Item, Truncated

_EXCEPTIONS = frozenset({
    "internalServerException", "modelStreamErrorException", "validationException",
    "throttlingException", "serviceUnavailableException",
})  # fmt: skip
_EVENTS = frozenset({
    "messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
    "messageStop", "metadata",
})  # fmt: skip


def is_event(value: object) -> bool:
    """Whether a stream's first event starts a ``ConverseStream`` (boto3's dicts)."""
    return isinstance(value, Mapping) and isinstance(value.get("messageStart"), Mapping)


class _Block:
    __slots__ = ("citations", "reasoning", "signature", "start", "text", "tool_input")

    def __init__(self) -> None:
        self.text: list[str] = []
        self.citations: list[Any] = []
        self.start: dict[str, Any] = {}
        self.tool_input: list[str] | None = None
        self.reasoning: list[str] | None = None
        self.signature: object = None


class ConverseMerger(OneAnswerMerger):
    """The ``Converse`` response of a ``ConverseStream``, event by event."""

    fast = True
    """Whether plain dict events of the common kinds take their own path (the
    differential test turns it off to compare them with the general code)."""

    def __init__(self) -> None:
        self.role: object = None
        self.blocks: dict[int, _Block] = {}
        self.response: dict[str, Any] = {}
        self.problems: list[Problem] = []
        self.stopped = False
        self.events = 0
        self.track = False
        self.placeable: list[Placeable] = []
        self._stops: set[int] = set()
        self._prefix = 0  # the blocks 0 .. _prefix - 1 have all stopped
        self._chars = self._bytes = 0  # their answer text's length

    def _add(self, number: int, value: object) -> str:
        """Merge event ``number``; the answer text it adds.

        Raises:
            StreamError: an exception event, an event of another stream, or one out of
                order.
        """
        self.events += 1
        if self.fast and type(value) is dict and len(value) == 1:  # the common event, own path
            body = value.get("contentBlockDelta")
            if type(body) is dict:
                delta, index = body.get("delta"), body.get("contentBlockIndex")
                text = delta.get("text") if type(delta) is dict else None
                block = self.blocks.get(index) if type(index) is int else None
                if type(text) is str and block is not None:
                    block.text.append(text)
                    return text
            else:
                body = value.get("contentBlockStop")
                if type(body) is dict and self.role is not None:
                    index = body.get("contentBlockIndex")
                    if type(index) is int and index in self.blocks:
                        if self.track:
                            self._track_stop(index)
                        return ""
        if not isinstance(value, Mapping) or len(value) != 1:
            raise StreamError(f"not a part of a ConverseStream: {describe(value)}", event=number)
        ((kind, body),) = value.items()
        if kind in _EXCEPTIONS:
            said = body.get("message") if isinstance(body, Mapping) else body
            raise StreamError(f"the stream reports an error: {kind}: {shown(said)}", event=number)
        if kind not in _EVENTS or not isinstance(body, Mapping):
            raise StreamError(f"not a part of a ConverseStream: {describe(value)}", event=number)
        if kind == "contentBlockDelta":
            block = self._block(number, body)
            at = "contentBlockDelta.delta"
            delta = field(body, "delta", dict, number=number, at="contentBlockDelta")
            if delta is None:
                return ""
            text = field(delta, "text", str, number=number, at=at)
            if text is not None:
                block.text.append(text)
                return text
            citation = field(delta, "citation", dict, number=number, at=at)
            if citation is not None:
                block.citations.append(citation)
            elif field(delta, "toolUse", dict, number=number, at=at) is not None:
                block.tool_input = block.tool_input or []
                block.tool_input.append(field(delta, "toolUse.input", str, number=number, at=at)
                                        or "")  # fmt: skip
            elif field(delta, "reasoningContent", dict, number=number, at=at) is not None:
                reasoning = field(delta, "reasoningContent.text", str, number=number, at=at)
                block.reasoning = block.reasoning or []
                if reasoning is not None:
                    block.reasoning.append(reasoning)
                signature = field(delta, "reasoningContent.signature", str, number=number, at=at)
                if signature is not None:
                    block.signature = signature
            return ""
        if kind == "messageStart":
            if self.role is not None:
                raise StreamError("a second messageStart: another message's stream", event=number)
            self.role = body.get("role") or "assistant"
            return ""
        if self.role is None:
            raise StreamError(f"{kind} before messageStart", event=number)
        if kind == "contentBlockStart":
            block = self._block(number, body, new=True)
            tool = field(body, "start.toolUse", dict, number=number, at="contentBlockStart")
            if tool is not None:
                block.start = dict(tool)
                block.tool_input = []
        elif kind == "contentBlockStop":
            self._block(number, body)
            if self.track:
                self._track_stop(body["contentBlockIndex"])
        elif kind == "messageStop":
            self.stopped = True
            self.response.update((k, v) for k, v in body.items() if v is not None)
        else:  # metadata
            self.response.update((k, v) for k, v in body.items() if v is not None)
        return ""

    def _track_stop(self, index: int) -> None:
        """A cited block whose blocks before it have all stopped is placeable: a response
        of that block alone, its text starting after theirs."""
        self._stops.add(index)
        while self._prefix in self._stops and self._prefix in self.blocks:
            i = self._prefix
            self._prefix += 1
            content = self._content(i, self.blocks[i])
            cited = content.get("citationsContent")
            text = cited["content"][0]["text"] if cited else content.get("text")
            if not isinstance(text, str):
                continue  # a tool call, reasoning: no answer text
            self.blocks[i].text = [text]
            if cited:
                message = {"role": "assistant", "content": [content]}
                where = f"output.message.content[{i}].citationsContent"
                self.placeable.append(
                    Placeable({"output": {"message": message}}, self._bytes, self._chars, where)
                )
            self._chars += len(text)
            self._bytes += len(text.encode("utf-8", "surrogatepass"))

    def _block(self, number: int, body: Mapping[str, Any], *, new: bool = False) -> _Block:
        index = body.get("contentBlockIndex")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise StreamError(f"a contentBlockIndex {shown(index)}, not an index", event=number)
        block = self.blocks.get(index)
        if block is None:
            block = self.blocks[index] = _Block()
        elif new:
            raise StreamError(f"a second contentBlockStart of block {index}", event=number)
        return block

    def _content(self, index: int, block: _Block) -> dict[str, Any]:
        if block.tool_input is not None and (block.start or not block.text):
            data = "".join(block.tool_input)
            tool_input, why = parse_input(data) if data else ({}, None)
            if why is not None:
                self.problems.append(
                    Problem(
                        "stream-tool-input",
                        f"the input JSON of tool block {index} {why}; it is kept as text",
                        f"output.message.content[{index}].toolUse.input",
                    )
                )
            return {"toolUse": {**block.start, "input": tool_input}}
        if block.reasoning is not None and not block.text:
            text: dict[str, Any] = {"text": "".join(block.reasoning)}
            if block.signature is not None:
                text["signature"] = block.signature
            return {"reasoningContent": {"reasoningText": text}}
        joined = "".join(block.text)
        if block.citations:
            return {"citationsContent": {"content": [{"text": joined}],
                                         "citations": list(block.citations)}}  # fmt: skip
        return {"text": joined}

    def result(self) -> tuple[dict[str, Any], list[Problem]]:
        """The merged ``Converse`` response (boto3's dict) and what merging found."""
        if self.role is None:
            raise StreamError("the stream holds no messageStart: not a ConverseStream")
        self.problems = []
        content = [self._content(i, self.blocks[i]) for i in sorted(self.blocks)]
        merged = {"output": {"message": {"role": self.role, "content": content}},
                  **self.response}  # fmt: skip
        problems = list(self.problems)
        if not self.stopped:
            problems.append(incomplete(self.events, "messageStop", "stopReason"))
        return merged, problems


merge_numbered = merge_with(ConverseMerger)
"""The merged ``Converse`` response of numbered events, and what merging found."""


# --- The raw event stream ------------------------------------------------------------------


def is_eventstream(head: bytes) -> bool:
    """Whether ``head`` starts an ``application/vnd.amazon.eventstream`` body: its first
    message's prelude (total and headers lengths) matches the prelude's CRC-32.

    >>> is_eventstream(b"data: {}"), is_eventstream(b"")
    (False, False)
    """
    if len(head) < 16:
        return False
    return zlib.crc32(head[:8]) == int.from_bytes(head[8:12], "big")


@functools.cache
def _botocore() -> tuple[Any, Any, Any]:
    try:
        import botocore
        import botocore.session
        from botocore.eventstream import EventStreamBuffer, ParserError
        from botocore.parsers import EventStreamJSONParser
    except ImportError as exc:
        raise MissingDependencyError(
            "decoding a raw Bedrock event stream needs botocore: pip install botocore "
            "(or grounding-protos[bedrock])"
        ) from exc
    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = model.operation_model("ConverseStream").output_shape.members["stream"]
    if "citation" not in model.shape_for("ContentBlockDelta").members:
        raise MissingDependencyError(  # its parser would drop the citation deltas
            f"botocore {botocore.__version__} predates ConverseStream citations: pip install "
            "-U botocore (or grounding-protos[bedrock])"
        )
    return (EventStreamBuffer, ParserError), EventStreamJSONParser(), shape


def eventstream_items(pieces: Iterable[bytes]) -> Iterator[Item]:
    """The events of a raw ``ConverseStream`` body (bytes in pieces, as they arrive), as
    the dicts boto3 yields, numbered from 1; a body cut inside a message ends with
    :class:`Truncated`.

    Raises:
        StreamError: an exception or error message (``:message-type`` ``exception``),
            or bytes that are not an event stream (a checksum that does not match).
        MissingDependencyError: botocore is not installed.
    """
    (buffer_type, parser_error), parser, shape = _botocore()
    buffer = buffer_type()
    number = pending = 0
    for piece in pieces:
        buffer.add_data(bytes(piece))
        pending += len(piece)
        while True:
            try:
                message = next(buffer, None)
            except parser_error as exc:
                raise StreamError(
                    f"not a Bedrock event stream: {type(exc).__name__}: {exc}", event=number + 1
                ) from exc
            if message is None:
                break
            number += 1
            pending -= message.prelude.total_length
            yield Chunk(number, _event(number, message, parser, shape))
    if pending:
        yield Truncated(number + 1, f"the recording ends inside event {number + 1}")


def _event(number: int, message: Any, parser: Any, shape: Any) -> object:
    headers = message.headers
    kind = headers.get(":message-type")
    if kind == "error":
        code, said = headers.get(":error-code"), headers.get(":error-message")
        raise StreamError(f"the stream reports an error: {code}: {shown(said)}", event=number)
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
    try:
        parsed = parser.parse(message.to_response_dict(), shape)
    except Exception as exc:  # botocore's parser on a payload it cannot read
        raise StreamError(
            f"event {shown(headers.get(':event-type'))} does not parse: "
            f"{type(exc).__name__}: {shown(str(exc))}",
            event=number,
        ) from exc
    if not isinstance(parsed, Mapping):
        raise StreamError(f"event {shown(headers.get(':event-type'))} is no event", event=number)
    return {k: v for k, v in parsed.items() if k in _EVENTS or k in _EXCEPTIONS}
