"""Merging a Cohere v2 chat stream into the chat response it adds up to.

``chat_stream`` (SSE events whose data repeats the event name as ``type``, ending with
``data: [DONE]``; or cohere's ``V2ChatStreamResponse`` objects) sends
``message-start`` (the message ``id``, ``delta.message.role``), then per content item
``content-start`` (``index``, ``delta.message.content``: ``type`` ``text`` or
``thinking``), ``content-delta`` (text appended) and ``content-end``; the tool plan in
``tool-plan-delta`` events (``delta.message.tool_plan``); each tool call as
``tool-call-start`` (``index``, ``delta.message.tool_calls``: ``id``, ``type``,
``function`` ``name`` and ``arguments``), ``tool-call-delta`` (more ``arguments``) and
``tool-call-end``; each citation as ``citation-start`` (``delta.message.citations``:
one ``Citation``, with ``start``/``end``/``text``/``sources``/``content_index`` as
in the unstreamed response) and ``citation-end``; and ``message-end``
(``delta.finish_reason``, ``delta.usage``, ``delta.error``). ``debug`` events carry
the prompt and are skipped. The merged response is ``{"id", "finish_reason",
"message": {"role", "content", "tool_plan", "tool_calls", "citations"}, "usage"}``.

>>> merged, problems = merge_numbered(enumerate([
...     {"type": "message-start", "id": "m1", "delta": {"message": {"role": "assistant"}}},
...     {"type": "content-start", "index": 0, "delta": {"message": {"content": {
...      "type": "text", "text": ""}}}},
...     {"type": "content-delta", "index": 0, "delta": {"message": {"content": {
...      "text": "Zürich 🏔"}}}},
...     {"type": "content-end", "index": 0},
...     {"type": "message-end", "delta": {"finish_reason": "COMPLETE"}}], 1))
>>> merged["message"]["content"], merged["finish_reason"], problems
([{'type': 'text', 'text': 'Zürich 🏔'}], 'COMPLETE', [])
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from typing import Any

from grounding_protos._core.access import get
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._quote import excerpt, shown
from grounding_protos._sources.common import describe, string
from grounding_protos._sources.merging import (
    OneAnswerMerger,
    Placeable,
    field,
    incomplete,
    merge_with,
    plain,
)
from grounding_protos._sources.parse import error_text

_SKIPPED = frozenset({"content-end", "tool-call-end", "citation-end", "debug"})


def is_event(value: object) -> bool:
    """Whether a stream's first event starts a Cohere v2 chat stream."""
    return string(value, "type") == "message-start"


class ChatMerger(OneAnswerMerger):
    """The v2 chat response of a Cohere stream, event by event."""

    fast = True
    """Whether plain dict events of the common kinds take their own path (the
    differential test turns it off to compare them with the general code)."""

    def __init__(self) -> None:
        self.response: dict[str, Any] | None = None
        self.content: list[dict[str, Any]] = []
        self.pieces: list[list[str]] = []  # text (or thinking) pieces per content item
        self.keys: list[str] = []  # "text" or "thinking": where each item's pieces go
        self.plan: list[str] = []
        self.calls: list[dict[str, Any]] = []
        self.arguments: list[list[str]] = []
        self.citations: list[Any] = []
        self.stopped = False
        self.events = 0
        self.track = False
        self.placeable: list[Placeable] = []
        # with track: per content item, where each piece starts (code points, bytes)
        self._char_starts: list[list[int]] = []
        self._byte_starts: list[list[int]] = []
        self._sizes: list[list[int]] = []  # [chars, bytes] of each item so far

    def _add(self, number: int, value: object) -> str:
        """Merge event ``number``; the answer text it adds.

        Raises:
            StreamError: an error (``message-end`` with ``error``, an error body), an
                event of another stream, or one out of order.
        """
        self.events += 1
        event: Any = value if type(value) is dict else plain(value)
        kind = event.get("type") if self.fast and type(event) is dict else None
        kind = kind if type(kind) is str else None
        if kind in _SKIPPED and self.response is not None:  # the common events, on their
            return ""  # own path: the same steps without the field access
        if kind == "citation-start" and self.response is not None:
            delta = event.get("delta")
            message = delta.get("message") if type(delta) is dict else None
            citation = message.get("citations") if type(message) is dict else None
            if type(citation) is dict:
                self.citations.append(citation)
                if self.track:
                    self._track_citation(citation)
                return ""
        if kind == "content-delta":
            index = event.get("index")
            delta = event.get("delta")
            message = delta.get("message") if type(delta) is dict else None
            content = message.get("content") if type(message) is dict else None
            if type(index) is int and 0 <= index < len(self.content) and type(content) is dict:
                key = self.keys[index]
                piece = content.get(key)
                if type(piece) is str:
                    self.pieces[index].append(piece)
                    if self.track:
                        self._track_piece(index, piece)
                    return piece if key == "text" else ""
        kind = event.get("type") if isinstance(event, Mapping) else None
        if not isinstance(event, Mapping) or not isinstance(kind, str):
            raise StreamError(
                f"not a part of a Cohere chat stream: {describe(event)}", event=number
            )
        if kind == "content-delta":
            index = self._index(number, event, len(self.content))
            key = self.keys[index]
            piece = field(event, f"delta.message.content.{key}", str, number=number)
            if piece is not None:
                self.pieces[index].append(piece)
                if self.track:
                    self._track_piece(index, piece)
                return piece if key == "text" else ""
            return ""
        if kind == "message-start":
            if self.response is not None:
                raise StreamError("a second message-start: another message's stream", event=number)
            role = field(event, "delta.message.role", str, number=number) or "assistant"
            self.response = {"id": event.get("id"), "message": {"role": role}}
            if self.response["id"] is None:
                del self.response["id"]
            return ""
        if self.response is None:
            raise StreamError(f"{shown(kind)} before message-start", event=number)
        if kind == "content-start":
            content = field(event, "delta.message.content", dict, number=number)
            if event.get("index", len(self.content)) != len(self.content) or content is None:
                raise StreamError(
                    f"content-start of item {shown(event.get('index'))}, expected item "
                    f"{len(self.content)} with its content",
                    event=number,
                )
            item = dict(content)
            kind = field(item, "type", str, number=number, at="delta.message.content")
            key = "thinking" if kind == "thinking" else "text"
            first = field(item, key, str, number=number, at="delta.message.content")
            self.pieces.append([])
            self.keys.append(key)
            self.content.append(item)
            self._char_starts.append([])
            self._byte_starts.append([])
            self._sizes.append([0, 0])
            if isinstance(first, str):
                self.pieces[-1].append(first)
                if self.track:
                    self._track_piece(len(self.content) - 1, first)
            return first if key == "text" and isinstance(first, str) else ""
        if kind == "citation-start":
            citation = field(event, "delta.message.citations", dict, number=number)
            if citation is None:
                raise StreamError("citation-start without a citation", event=number)
            self.citations.append(citation)
            if self.track:
                self._track_citation(citation)
        elif kind == "tool-plan-delta":
            piece = field(event, "delta.message.tool_plan", str, number=number)
            if piece is not None:
                self.plan.append(piece)
        elif kind == "tool-call-start":
            at = "delta.message.tool_calls"
            call = field(event, at, dict, number=number)
            if call is None:
                raise StreamError("tool-call-start without a tool call", event=number)
            call = dict(call)
            call["function"] = dict(field(call, "function", dict, number=number, at=at) or {})
            arguments = field(call, "function.arguments", str, number=number, at=at)
            self.arguments.append([arguments] if arguments is not None else [])
            self.calls.append(call)
        elif kind == "tool-call-delta":
            index = self._index(number, event, len(self.calls))
            path = "delta.message.tool_calls.function.arguments"
            piece = field(event, path, str, number=number)
            if piece is not None:
                self.arguments[index].append(piece)
        elif kind == "message-end":
            delta = event.get("delta")
            error = get(delta, "error")
            if error:
                said = excerpt(error) if isinstance(error, str) else error_text(error)
                raise StreamError(f"the stream reports an error: {said}", event=number)
            for key in ("finish_reason", "usage"):
                if get(delta, key) is not None:
                    self.response[key] = get(delta, key)
            self.stopped = True
        elif kind not in _SKIPPED:
            raise StreamError(
                f"event type {shown(kind)} is not part of a Cohere chat stream", event=number
            )
        return ""

    def _track_piece(self, index: int, piece: str) -> None:
        size = self._sizes[index]
        self._char_starts[index].append(size[0])
        self._byte_starts[index].append(size[1])
        size[0] += len(piece)
        size[1] += len(piece.encode("utf-8", "surrogatepass"))

    def _track_citation(self, citation: Mapping[str, Any]) -> None:
        """A citation whose span has arrived is placeable: a response holding only the
        pieces of its content item that it spans (found by bisection), the items before
        it empty; its offsets shifted to count from the first of those pieces."""
        k, start, end = (citation.get(n) for n in ("content_index", "start", "end"))
        if citation.get("type") not in (None, "TEXT_CONTENT"):
            return
        if type(k) is not int or type(start) is not int or type(end) is not int:
            return  # the final read reports (or skips) it
        if not 0 <= k < len(self.content) or self.keys[k] != "text":
            return
        starts = self._char_starts[k]
        if not starts or not 0 <= start <= end <= self._sizes[k][0]:
            return  # its text has not all arrived: placed by the final read
        first = max(bisect_right(starts, start) - 1, 0)
        stop = max(bisect_left(starts, end), first + 1)
        window = "".join(self.pieces[k][first:stop])
        base = starts[first]
        chars = sum(self._sizes[i][0] for i in range(k) if self.keys[i] == "text")
        size = sum(self._sizes[i][1] for i in range(k) if self.keys[i] == "text")
        content = [{"type": "text", "text": ""} for _ in range(k)]
        content.append({"type": "text", "text": window})
        shifted = {**citation, "start": start - base, "end": end - base}
        response = {"message": {"role": "assistant", "content": content, "citations": [shifted]}}
        path = f"message.citations[{len(self.citations) - 1}]"
        byte_base = size + self._byte_starts[k][first]
        self.placeable.append(Placeable(response, byte_base, chars + base, path))

    @staticmethod
    def _index(number: int, event: Mapping[str, Any], count: int) -> int:
        index = event.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
            raise StreamError(
                f"{shown(event.get('type'))} for item {shown(index)}, which has not started "
                f"({count} started)",
                event=number,
            )
        return index

    def result(self) -> tuple[dict[str, Any], list[Problem]]:
        """The merged chat response (REST JSON) and what merging found."""
        if self.response is None:
            raise StreamError("the stream holds no message-start: not a Cohere chat stream")
        message = dict(self.response["message"])
        content = []
        for item, pieces in zip(self.content, self.pieces, strict=True):
            key = "thinking" if item.get("type") == "thinking" else "text"
            content.append({**item, key: "".join(pieces)})
        message["content"] = content
        if self.plan:
            message["tool_plan"] = "".join(self.plan)
        if self.calls:
            message["tool_calls"] = [
                {**call, "function": {**call["function"], "arguments": "".join(parts)}}
                for call, parts in zip(self.calls, self.arguments, strict=True)
            ]
        if self.citations:
            message["citations"] = self.citations
        problems = [] if self.stopped else [incomplete(self.events, "message-end", "finish_reason")]
        return {**self.response, "message": message}, problems


merge_numbered = merge_with(ChatMerger)
"""The merged chat response of numbered events, and what merging found."""
