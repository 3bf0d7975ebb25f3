"""Merging a Mistral Conversations stream (``stream=True``) into its
``conversation.response``.

The events (Mistral's API reference, "Conversations", and its SDK's
``ConversationEvents``; from the docs, no recording) name their kind in ``type``,
repeated as the SSE ``event:`` name: ``conversation.response.started``
(``conversation_id``); ``message.output.delta`` (``output_index``, ``content_index``,
``id``, ``role``, ``model``, ``agent_id``, and ``content``: a piece of text, or one
chunk such as a ``tool_reference``); ``tool.execution.started`` / ``.done`` (``id``,
``name``, ``output_index``), ``function.call.delta`` (``name``, ``tool_call_id``,
pieces of ``arguments``) and ``agent.handoff.started`` / ``.done``; then
``conversation.response.done`` (``usage``) or ``conversation.response.error``
(``message``, ``code``: a :class:`StreamError`).

The merge is the response the non-streaming API returns: ``outputs`` in
``output_index`` order, a ``message.output`` entry's ``content`` a list of chunks in
the order they came, each text piece appended to the text chunk before it. A stream that
ends before ``conversation.response.done`` gives what arrived, with a
``stream-incomplete`` problem.

>>> merged, problems = merge_numbered(enumerate([
...     {"type": "conversation.response.started", "conversation_id": "c1"},
...     {"type": "message.output.delta", "output_index": 0, "id": "m1",
...      "role": "assistant", "content": "Köln 🌉 liegt am Rhein"},
...     {"type": "message.output.delta", "output_index": 0, "id": "m1", "content_index": 1,
...      "role": "assistant", "content": {"type": "tool_reference", "tool": "web_search",
...      "title": "Köln", "url": "https://k.example"}},
...     {"type": "conversation.response.done", "usage": {"total_tokens": 9}}], 1))
>>> [c.get("text", c.get("url")) for c in merged["outputs"][0]["content"]], problems
(['Köln 🌉 liegt am Rhein', 'https://k.example'], [])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._quote import shown
from grounding_protos._sources.common import describe
from grounding_protos._sources.merging import OneAnswerMerger, incomplete, merge_with, plain
from grounding_protos._sources.parse import error_text

EVENTS = frozenset({
    "conversation.response.started", "conversation.response.done",
    "conversation.response.error", "message.output.delta", "tool.execution.started",
    "tool.execution.done", "function.call.delta", "agent.handoff.started",
    "agent.handoff.done",
})  # fmt: skip
_ENTRY = {
    "tool.execution.started": "tool.execution", "tool.execution.done": "tool.execution",
    "agent.handoff.started": "agent.handoff", "agent.handoff.done": "agent.handoff",
}  # fmt: skip
_HEAD = ("id", "role", "model", "agent_id", "created_at")


def is_event(value: object) -> bool:
    """Whether a stream's first event starts a Mistral Conversations stream."""
    kind = value.get("type") if isinstance(value, Mapping) else getattr(value, "type", None)
    return isinstance(kind, str) and kind in EVENTS and kind != "conversation.response.error"


class ConversationMerger(OneAnswerMerger):
    """The ``conversation.response`` of a Mistral Conversations stream, event by event."""

    def __init__(self) -> None:
        self.response: dict[str, Any] = {"object": "conversation.response"}
        self.outputs: dict[int, dict[str, Any]] = {}
        self.stopped = False
        self.events = 0

    def _add(self, number: int, value: object) -> str:
        """Merge event ``number``; the answer text it adds.

        Raises:
            StreamError: a ``conversation.response.error`` event, an event of another
                stream, or a field of another JSON type.
        """
        self.events = number
        event = plain(value)
        kind = event.get("type") if isinstance(event, dict) else None
        if not isinstance(kind, str) or kind not in EVENTS:
            raise StreamError(
                f"not an event of a Mistral Conversations stream: {describe(event)}",
                event=number,
            )
        if kind == "message.output.delta":
            return self._message(number, event)
        if kind == "conversation.response.error":
            raise StreamError(f"the stream reports an error: {error_text(event)}", event=number)
        if kind == "conversation.response.started":
            conversation = event.get("conversation_id")
            if conversation is not None:
                self.response["conversation_id"] = conversation
        elif kind == "conversation.response.done":
            if event.get("usage") is not None:
                self.response["usage"] = event["usage"]  # kept as sent, never changed
            self.stopped = True
        elif kind == "function.call.delta":
            entry = self._entry(number, event, "function.call")
            for key in ("id", "name", "tool_call_id"):
                if event.get(key) is not None:
                    entry[key] = event[key]
            piece = event.get("arguments")
            if piece is not None and not isinstance(piece, str):
                raise StreamError(f"arguments is not text, but {shown(piece)}", event=number)
            entry["arguments"] = (entry.get("arguments") or "") + (piece or "")
        else:  # tool executions, agent handoffs: their fields, the last event's kept
            entry = self._entry(number, event, _ENTRY[kind])
            for key, item in event.items():
                if key not in ("type", "output_index", "created_at") and item is not None:
                    entry[key] = item  # kept as sent, never changed
        return ""

    def _entry(self, number: int, event: dict[str, Any], kind: str) -> dict[str, Any]:
        index = event.get("output_index", 0)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < 1 << 16:
            raise StreamError(f"output_index {shown(index)} is not an index", event=number)
        entry = self.outputs.get(index)
        if entry is None:
            entry = self.outputs[index] = {"object": "entry", "type": kind}
        elif entry.get("type") != kind:
            raise StreamError(
                f"output {index} is a {entry.get('type')} entry, not a {kind} one", event=number
            )
        return entry

    def _message(self, number: int, event: dict[str, Any]) -> str:
        entry = self._entry(number, event, "message.output")
        for key in _HEAD:
            if event.get(key) is not None:
                entry[key] = event[key]
        chunks = entry.setdefault("content", [])
        content = event.get("content")
        if isinstance(content, str):
            return add_text(chunks, content)
        if not isinstance(content, dict):
            raise StreamError(
                f"message.output.delta content is neither text nor a chunk, but {shown(content)}",
                event=number,
            )
        if content.get("type") == "text":
            text = content.get("text")
            if not isinstance(text, str):
                raise StreamError(f"content.text is not text, but {shown(text)}", event=number)
            return add_text(chunks, text)
        chunks.append(content)  # kept as sent, never changed
        return ""

    def merged(self) -> dict[str, Any]:
        """The response so far."""
        outputs = []
        for i in sorted(self.outputs):
            entry = dict(self.outputs[i])
            if isinstance(entry.get("content"), list):
                entry["content"] = built(entry["content"])
            outputs.append(entry)
        return {**self.response, "outputs": outputs}

    def result(self) -> tuple[dict[str, Any], list[Problem]]:
        problems = []
        if not self.stopped:
            problems.append(incomplete(self.events, "conversation.response.done", "outputs"))
        return self.merged(), problems


def add_text(chunks: list[Any], text: str) -> str:
    """``text`` appended to the last chunk when it is a text chunk, else as a new one
    (a text chunk is held as its list of pieces until :func:`built`)."""
    if chunks and type(chunks[-1]) is list:
        chunks[-1].append(text)
    elif text:
        chunks.append([text])
    return text


def built(chunks: list[Any]) -> list[Any]:
    """The chunks as sent: each text chunk's pieces joined."""
    return [{"type": "text", "text": "".join(c)} if type(c) is list else c for c in chunks]


merge_numbered = merge_with(ConversationMerger)
"""The ``conversation.response`` a stream's numbered events add up to, and what merging
found."""
