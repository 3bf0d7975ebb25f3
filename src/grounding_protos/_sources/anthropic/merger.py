"""Merging an Anthropic Messages stream into the ``Message`` it adds up to.

The stream (``messages.create(stream=True)``, the SSE events ``event: message_start``
…, or their dicts) is: ``message_start`` (the message, ``content`` empty), then per
content block ``content_block_start`` (the block at ``index``: ``text``,
``tool_use``, ``server_tool_use``, ``web_search_tool_result``, ``thinking`` …),
``content_block_delta`` events and ``content_block_stop``; then ``message_delta``
(``stop_reason``, ``stop_sequence``, cumulative ``usage``) and ``message_stop``.
``ping`` events carry nothing. A delta is ``text_delta`` (text appended to a text
block), ``citations_delta`` (one citation appended to the block's ``citations``),
``input_json_delta`` (pieces of a tool block's ``input`` JSON, parsed at the block's
stop), ``thinking_delta`` or ``signature_delta``; that is how anthropic-sdk-python's
``accumulate_event`` builds the message too. The events its ``messages.stream()``
helper adds (``text``, ``citation``, ``thinking``, ``signature``, ``input_json``)
repeat a delta and are skipped. Every field is read with its JSON type
(``_sources.merging.field``): a ``text`` that is no string, a ``citation`` that is no
object, a ``text_delta`` of a block that is not a text block are a
:class:`StreamError` naming the event; tool input JSON that nests more than 200 levels
is kept as text (``stream-tool-input``).

>>> merged, problems = merge_numbered(enumerate([
...     {"type": "message_start", "message": {"type": "message", "role": "assistant",
...      "content": []}},
...     {"type": "content_block_start", "index": 0, "content_block": {"type": "text",
...      "text": ""}},
...     {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta",
...      "text": "Köln 🌉"}},
...     {"type": "content_block_stop", "index": 0},
...     {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
...     {"type": "message_stop"}], 1))
>>> merged["content"], merged["stop_reason"], problems
([{'type': 'text', 'text': 'Köln 🌉'}], 'end_turn', [])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from grounding_protos._core.access import get
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._quote import shown
from grounding_protos._sources.common import describe, is_record, string
from grounding_protos._sources.merging import (
    OneAnswerMerger,
    Placeable,
    field,
    incomplete,
    items_of,
    merge_with,
    parse_input,
    plain,
)
from grounding_protos._sources.parse import error_text

_HELPER_EVENTS = frozenset({"text", "citation", "thinking", "signature", "input_json"})


def is_event(value: object) -> bool:
    """Whether a stream's first event starts an Anthropic Messages stream."""
    return string(value, "type") == "message_start" and is_record(get(value, "message"))


def _index(number: int, event: Mapping[str, Any], count: int) -> int:
    index = event.get("index")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
        raise StreamError(
            f"{shown(event.get('type'))} for content block {shown(index)}, which has not started "
            f"({count} started)",
            event=number,
        )
    return index


class MessageMerger(OneAnswerMerger):
    """The ``Message`` of an Anthropic stream, event by event."""

    fast = True
    """Whether plain dict events of the common kinds take their own path (the
    differential test turns it off to compare them with the general code)."""

    def __init__(self) -> None:
        self.message: dict[str, Any] | None = None
        self.blocks: list[dict[str, Any]] = []
        self.texts: list[list[str] | None] = []  # text pieces per text block
        self.inputs: dict[int, list[str]] = {}  # input JSON pieces per tool block
        self.thinking: dict[int, list[str]] = {}
        self.problems: list[Problem] = []
        self.stopped = False
        self.events = 0
        self.track = False
        self.placeable: list[Placeable] = []
        self._stops: set[int] = set()
        self._prefix = 0  # the leading blocks that have all stopped
        self._chars = self._bytes = 0  # their text's length

    def _add(self, number: int, value: object) -> str:
        """Merge event ``number``; the answer text it adds.

        Raises:
            StreamError: an ``error`` event, an event of another stream, or one out of
                order (a delta of a block that has not started).
        """
        self.events += 1
        event = value if type(value) is dict else plain(value)
        if self.fast and type(event) is dict:  # the common events, on their own path: the
            kind, at = event.get("type"), event.get("index")  # without the field access
            index = at if type(at) is int else -1  # (a bool is no index)
            known = 0 <= index < len(self.blocks)
            if kind == "content_block_delta" and known:
                delta = event.get("delta")
                if type(delta) is dict and delta.get("type") == "text_delta":
                    pieces, text = self.texts[index], delta.get("text")
                    if pieces is not None and type(text) is str:
                        pieces.append(text)
                        return text
            elif kind == "content_block_stop" and known and self.message is not None:
                if index in self.inputs:
                    self._stop(number, index)
                if self.track:
                    self._track_stop(index)
                return ""
        kind = event.get("type") if isinstance(event, Mapping) else None
        if not isinstance(event, Mapping) or not isinstance(kind, str):
            raise StreamError(
                f"not a part of an Anthropic Messages stream: {describe(event)}", event=number
            )
        if kind == "content_block_delta":
            index = _index(number, event, len(self.blocks))
            dtype = field(event, "delta.type", str, number=number)
            if dtype == "text_delta":
                text = field(event, "delta.text", str, number=number) or ""
                pieces = self.texts[index]
                if pieces is None:
                    raise StreamError(
                        f"a text_delta for content block {index}, which is not a text block",
                        event=number,
                    )
                pieces.append(text)
                return text
            if dtype == "citations_delta":
                citation = field(event, "delta.citation", dict, number=number)
                if citation is None:
                    raise StreamError("a citations_delta without its citation", event=number)
                citations = self.blocks[index].get("citations")
                if not isinstance(citations, list):
                    citations = self.blocks[index]["citations"] = []
                citations.append(citation)
            elif dtype == "input_json_delta":
                piece = field(event, "delta.partial_json", str, number=number)
                self.inputs.setdefault(index, []).append(piece or "")
            elif dtype == "thinking_delta":
                thinking = field(event, "delta.thinking", str, number=number)
                if index in self.thinking:
                    self.thinking[index].append(thinking or "")
            elif dtype == "signature_delta":
                self.blocks[index]["signature"] = field(
                    event, "delta.signature", str, number=number
                )
            return ""
        if kind == "message_start":
            if self.message is not None:
                raise StreamError("a second message_start: another message's stream", event=number)
            message = event.get("message")
            if not isinstance(message, Mapping):
                raise StreamError("message_start without a message", event=number)
            self.message = dict(message)
            for k, block in enumerate(items_of(message, "content", number=number, at="message")):
                at = f"message.content[{k}]"
                self._start(number, _block(number, block, at), at)
            return ""
        if self.message is None:
            raise StreamError(f"{shown(kind)} before message_start", event=number)
        if kind == "content_block_start":
            block = event.get("content_block")
            if event.get("index") != len(self.blocks) or not isinstance(block, Mapping):
                raise StreamError(
                    f"content_block_start of block {shown(event.get('index'))}, expected block "
                    f"{len(self.blocks)} with a content_block",
                    event=number,
                )
            started = _block(number, block, "content_block")
            self._start(number, started, "content_block")
            text = started.get("text")
            return text if started.get("type") == "text" and isinstance(text, str) else ""
        if kind == "content_block_stop":
            index = _index(number, event, len(self.blocks))
            self._stop(number, index)
            if self.track:
                self._track_stop(index)
        elif kind == "message_delta":
            delta = field(event, "delta", dict, number=number)
            for key, item in (delta or {}).items():
                if item is not None:
                    self.message[key] = item
            usage = field(event, "usage", dict, number=number)
            if usage is not None:
                before = self.message.get("usage")
                merged = dict(before) if isinstance(before, Mapping) else {}
                merged.update((k, v) for k, v in usage.items() if v is not None)
                self.message["usage"] = merged
        elif kind == "message_stop":
            self.stopped = True
        elif kind == "error":
            raise StreamError(
                f"the stream reports an error: {error_text(event.get('error'))}", event=number
            )
        elif kind != "ping" and kind not in _HELPER_EVENTS:
            raise StreamError(
                f"event type {shown(kind)} is not part of an Anthropic Messages stream",
                event=number,
            )
        return ""

    def _start(self, number: int, block: dict[str, Any], at: str) -> None:
        citations = field(block, "citations", list, number=number, at=at)
        if citations is not None:
            block["citations"] = list(citations)  # appended to: never the event's
        if block.get("type") == "thinking":
            thinking = field(block, "thinking", str, number=number, at=at)
            self.thinking[len(self.blocks)] = [thinking or ""]
        text = field(block, "text", str, number=number, at=at)
        self.texts.append([text or ""] if block.get("type") == "text" else None)
        self.blocks.append(block)

    def _track_stop(self, index: int) -> None:
        """A cited text block whose blocks before it have all stopped is placeable: a
        message of that block alone, its text starting after theirs."""
        self._stops.add(index)
        while self._prefix < len(self.blocks) and self._prefix in self._stops:
            i = self._prefix
            self._prefix += 1
            pieces = self.texts[i]
            if pieces is None:
                continue
            text = "".join(pieces)
            self.texts[i] = [text]
            citations = self.blocks[i].get("citations")
            if citations:
                block = {"type": "text", "text": text, "citations": list(citations)}
                message = {"type": "message", "role": "assistant", "content": [block]}
                self.placeable.append(Placeable(message, self._bytes, self._chars, f"content[{i}]"))
            self._chars += len(text)
            self._bytes += len(text.encode("utf-8", "surrogatepass"))

    def _stop(self, number: int, index: int) -> None:
        pieces = self.inputs.pop(index, None)
        if pieces is not None:
            value, problem = _tool_input(number, index, "".join(pieces))
            self.blocks[index]["input"] = value
            if problem is not None:
                self.problems.append(problem)

    def result(self) -> tuple[dict[str, Any], list[Problem]]:
        """The merged ``Message`` (REST JSON) and what merging found (the merger's state
        unchanged: more events may follow)."""
        if self.message is None:
            raise StreamError("the stream holds no message_start: not a Messages stream")
        problems = list(self.problems)
        content = []
        for block, pieces in zip(self.blocks, self.texts, strict=True):
            content.append({**block, "text": "".join(pieces)} if pieces is not None else {**block})
        for index, parts in self.thinking.items():
            content[index]["thinking"] = "".join(parts)
        for index, pieces in self.inputs.items():  # a tool block whose stop never came
            value, problem = _tool_input(self.events, index, "".join(pieces))
            content[index]["input"] = value
            if problem is not None:
                problems.append(problem)
        if not self.stopped:
            problems.append(incomplete(self.events, "message_stop", "stop_reason"))
        return {**self.message, "content": content}, problems


def _block(number: int, block: object, at: str) -> dict[str, Any]:
    """A content block as the stream starts it: an object with a string ``type``."""
    if not isinstance(block, Mapping):
        raise StreamError(f"{at} is not an object: {shown(block)}", event=number)
    field(block, "type", str, number=number, at=at)
    return dict(block)


def _tool_input(number: int, index: int, data: str) -> tuple[object, Problem | None]:
    """A tool block's input JSON parsed; text that does not parse (or nests too deep)
    is kept, with a problem."""
    if not data:
        return {}, None
    value, why = parse_input(data)
    if why is None:
        return value, None
    return data, Problem(
        "stream-tool-input",
        f"event {number}: the input JSON of tool block {index} {why}; it is kept as text",
        f"content[{index}].input",
    )


merge_numbered = merge_with(MessageMerger)
"""The merged ``Message`` of numbered events, and what merging found."""
