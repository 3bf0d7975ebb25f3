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

A block that received citations and no text (Amazon Nova's web grounding: the block
right after the text block it cites) becomes a ``citationsContent`` block without
``content``, as Nova's ``Converse`` response has it.

The raw HTTP body (``application/vnd.amazon.eventstream``) is decoded into the same
dicts boto3 yields by ``_sources.bedrock.eventstream`` (:data:`EVENTSTREAM`).

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

import json
from collections.abc import Mapping
from typing import Any

from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._quote import shown
from grounding_protos._sources.bedrock.eventstream import AwsStream
from grounding_protos._sources.common import describe
from grounding_protos._sources.merging import OneAnswerMerger, Placeable, incomplete, merge_with

_EXCEPTIONS = frozenset({
    "internalServerException", "modelStreamErrorException", "validationException",
    "throttlingException", "serviceUnavailableException",
})  # fmt: skip
_EVENTS = frozenset({
    "messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
    "messageStop", "metadata",
})  # fmt: skip
EVENTSTREAM = AwsStream(
    "bedrock-runtime", "ConverseStream", "stream", _EVENTS, ("ContentBlockDelta", "citation")
)
"""The raw event stream's operation (its parser drops citations without that member)."""


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
        # the last of them when it is a text block: (block, where its text starts in
        # bytes and characters), for a block of citations alone that follows it (Nova)
        self._last: tuple[dict[str, Any], int, int] | None = None

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
            delta = body.get("delta")
            if not isinstance(delta, Mapping):
                return ""
            text = delta.get("text")
            if isinstance(text, str):
                block.text.append(text)
                return text
            if "citation" in delta:
                block.citations.append(delta["citation"])
            elif isinstance(delta.get("toolUse"), Mapping):
                block.tool_input = block.tool_input or []
                block.tool_input.append(delta["toolUse"].get("input") or "")
            elif isinstance(delta.get("reasoningContent"), Mapping):
                reasoning = delta["reasoningContent"]
                block.reasoning = block.reasoning or []
                if isinstance(reasoning.get("text"), str):
                    block.reasoning.append(reasoning["text"])
                if reasoning.get("signature") is not None:
                    block.signature = reasoning["signature"]
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
            start = body.get("start")
            if isinstance(start, Mapping) and isinstance(start.get("toolUse"), Mapping):
                block.start = dict(start["toolUse"])
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
        of that block alone, its text starting after theirs (a block of citations alone,
        Nova's, with the text block it cites)."""
        self._stops.add(index)
        while self._prefix in self._stops and self._prefix in self.blocks:
            i = self._prefix
            self._prefix += 1
            content = self._content(i, self.blocks[i])
            cited = content.get("citationsContent")
            where = f"output.message.content[{i}].citationsContent"
            if cited and "content" not in cited:  # Nova: cites the text block before it
                if self._last is not None:
                    text_block, byte_base, char_base = self._last
                    message = {"role": "assistant", "content": [text_block, content]}
                    self.placeable.append(
                        Placeable({"output": {"message": message}}, byte_base, char_base, where)
                    )
                continue
            text = cited["content"][0]["text"] if cited else content.get("text")
            if not isinstance(text, str):
                self._last = None
                continue  # a tool call, reasoning: no answer text
            self.blocks[i].text = [text]
            self._last = None if cited else (content, self._bytes, self._chars)
            if cited:
                message = {"role": "assistant", "content": [content]}
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
            try:
                tool_input: object = json.loads(data) if data else {}
            except ValueError:
                tool_input = data
                self.problems.append(
                    Problem(
                        "stream-tool-input",
                        f"the input JSON of tool block {index} does not parse; it is kept as text",
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
        if block.citations and not joined:  # Nova: citations of the text block before
            return {"citationsContent": {"citations": list(block.citations)}}
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
