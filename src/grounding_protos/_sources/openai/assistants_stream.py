"""Merging an OpenAI Assistants run stream into the thread message(s) it writes.

A run stream (``POST /threads/{id}/runs`` with ``"stream": true``) sends SSE events
named ``thread.*`` whose data is the object they name, with no type of its own; the
stream reader makes each ``{"event": name, "data": object}``, the layout of the openai
SDK's ``AssistantStreamEvent`` objects (which are read too, as are the bare objects):

- ``thread.created``, ``thread.run.*`` (``created``, ``queued``, ``in_progress``,
  ``requires_action``, ``completed``, ``incomplete``, ``failed``, ``cancelling``,
  ``cancelled``, ``expired``) and ``thread.run.step.*``: the run and its steps;
- ``thread.message.created`` (a ``thread.message``, ``content`` empty),
  ``thread.message.in_progress``, ``thread.message.delta`` (``id`` and ``delta.content``
  of ``{index, type: "text", text: {value, annotations}}``: text to append to content
  part ``index``, annotations with their own ``index``), ``thread.message.completed``
  and ``thread.message.incomplete`` (the whole message);
- ``error`` (a :class:`StreamError`), then ``event: done`` / ``data: [DONE]``.

The merge is the run's one message (a ``thread.message``), or the thread's message list
(``{"object": "list", "data": [...]}``, newest first as ``GET /threads/{id}/messages``
returns it) when the run wrote several; ``thread.message.completed``'s message is checked
against the deltas (``stream-mismatch``) and kept. A stream that ends before its messages
and its run are completed is ``stream-incomplete``; a failed run is a
:class:`StreamError`.

>>> merged, problems = merge_run_events([
...     {"event": "thread.message.created", "data": {"id": "msg_1",
...      "object": "thread.message", "role": "assistant", "content": []}},
...     {"event": "thread.message.delta", "data": {"id": "msg_1", "delta": {"content": [
...         {"index": 0, "type": "text", "text": {"value": "Köln 【4:0†rhein.pdf】"}}]}}},
... ])
>>> merged["content"][0]["text"]["value"], [p.code for p in problems]
('Köln 【4:0†rhein.pdf】', ['stream-incomplete'])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from grounding_protos._core.access import get
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._quote import shown
from grounding_protos._sources.merging import (
    field,
    incomplete,
    index_of,
    items_of,
    merge_with,
    plain,
    same_json,
)
from grounding_protos._sources.parse import error_text

_OBJECTS = {
    "thread": "thread.created",
    "thread.run": "thread.run",
    "thread.run.step": "thread.run.step",
    "thread.run.step.delta": "thread.run.step.delta",
    "thread.message": "thread.message",
    "thread.message.delta": "thread.message.delta",
}
_RUN_DONE = frozenset({"completed", "incomplete", "requires_action"})
_RUN_STOPPED = frozenset({"cancelled", "expired"})


def is_event(value: object) -> bool:
    """Whether ``value`` is an event of an Assistants run stream: ``{"event":
    "thread.…", "data": …}`` or a bare ``thread.message.delta`` / ``thread.message``
    / ``thread.run`` object."""
    kind = get(value, "event")
    if isinstance(kind, str):
        return kind.startswith("thread.") or (kind == "error" and get(value, "data") is not None)
    obj = get(value, "object")
    return isinstance(obj, str) and obj in _OBJECTS and obj != "thread"


class RunMerger:
    """The events of one Assistants run stream, merged message by message."""

    def __init__(self) -> None:
        self.messages: dict[str, dict[str, Any]] = {}  # by id, in creation order
        self.pieces: dict[tuple[str, int], list[str]] = {}
        self.notes: dict[tuple[str, int], dict[int, dict[str, Any]]] = {}
        self.done: set[str] = set()
        self.run_status: str | None = None
        self.events = 0
        self.problems: list[Problem] = []

    def add(self, number: int, event: object, texts: dict[int, str] | None = None) -> None:
        """Merge event ``number``; the text it adds goes to ``texts[0]``.

        Raises:
            StreamError: an ``error`` event, a failed run, or another kind of event.
        """
        self.events = number
        if type(event) is dict and event.get("event") == "thread.message.delta":
            body = event.get("data")
            if type(body) is dict and self._text_delta(body, texts):
                return  # the common event: one piece of a message's text
        data = plain(event)
        if not isinstance(data, dict):
            raise StreamError(f"an Assistants event is a JSON object, not {type(data).__name__}",
                              event=number)  # fmt: skip
        kind = data.get("event")
        body = plain(data.get("data")) if isinstance(kind, str) else data
        if not isinstance(kind, str):
            obj = data.get("object")
            kind = _OBJECTS.get(obj) if isinstance(obj, str) else None
            if kind in ("thread.message", "thread.run"):
                kind = f"{kind}.{data.get('status') or 'in_progress'}"
        if kind == "error":
            raise StreamError(f"the stream reports an error: {error_text(body)}", event=number)
        if (
            not isinstance(kind, str)
            or not kind.startswith("thread.")
            or not isinstance(body, dict)
        ):
            raise StreamError(
                f"not an event of an OpenAI Assistants run stream: {_what(data)}", event=number
            )
        if kind == "thread.message.delta":
            self._delta(number, body, texts)
        elif kind.startswith("thread.message."):
            self._message(number, kind, body)
        elif kind.startswith("thread.run.") and not kind.startswith("thread.run.step"):
            status = kind.removeprefix("thread.run.")
            self.run_status = status
            if status == "failed":
                raise StreamError(f"the run failed: {error_text(body.get('last_error'))}",
                                  event=number)  # fmt: skip

    def _message(self, number: int, kind: str, body: dict[str, Any]) -> None:
        key = body.get("id")
        if not isinstance(key, str):
            raise StreamError(f"{shown(kind)} without the message's id", event=number)
        status = kind.removeprefix("thread.message.")
        if status not in ("completed", "incomplete") and key in self.messages:
            self.messages[key].update({k: v for k, v in body.items() if k != "content"})
            return  # the deltas so far stay
        if status in ("completed", "incomplete"):
            if key in self.messages:
                self._check(number, kind, key, body)
            self.done.add(key)
        message = dict(body)  # copied as deep as deltas change it: the message, its parts
        message["content"] = [dict(p) for p in _parts(number, body)]
        message.setdefault("object", "thread.message")
        self.messages[key] = message
        for j, part in enumerate(message["content"]):
            at = f"content[{j}].text"
            value = field(part, "text.value", str, number=number, at=f"content[{j}]")
            notes = items_of(part, "text.annotations", number=number, at=f"content[{j}]")
            if field(part, "text", dict, number=number, at=at) is not None and (
                value or status != "created"
            ):
                self.pieces[key, j] = [value or ""]
                self.notes[key, j] = dict(enumerate(notes))

    def _text_delta(self, body: dict[str, Any], texts: dict[int, str] | None) -> bool:
        """A delta of one text piece of a known message's part that already has text,
        merged without the general code; ``False`` for any other delta."""
        delta = body.get("delta")
        content = delta.get("content") if type(delta) is dict else None
        if type(content) is not list or len(content) != 1:
            return False
        part = content[0]
        if type(part) is not dict or part.get("type") != "text" or len(part) != 3:
            return False  # index, type, text: nothing else
        text, j, key = part.get("text"), part.get("index"), body.get("id")
        if type(text) is not dict or len(text) != 1 or type(j) is not int:
            return False
        value = text.get("value")
        pieces = self.pieces.get((key, j)) if type(key) is str else None
        if pieces is None or type(value) is not str:
            return False
        pieces.append(value)
        if texts is not None:
            texts[0] = texts.get(0, "") + value
        return True

    def _delta(self, number: int, body: dict[str, Any], texts: dict[int, str] | None) -> None:
        key = body.get("id")
        if not isinstance(key, str):
            raise StreamError("thread.message.delta without the message's id", event=number)
        message = self.messages.get(key)
        if message is None:
            message = self.messages[key] = {"id": key, "object": "thread.message",
                                            "role": "assistant", "content": []}  # fmt: skip
        content = message.setdefault("content", [])
        for position, part in enumerate(items_of(body, "delta.content", number=number)):
            at = f"delta.content[{position}]"
            if not isinstance(part, dict):
                raise StreamError(f"{at} is not an object: {shown(part)}", event=number)
            j = index_of(part, "index", number=number, at=at, default=position)
            kind = field(part, "type", str, number=number, at=at)
            if j is None or j >= 1 << 16:
                raise StreamError(f"{at}.index {shown(j)} is not an index", event=number)
            while len(content) <= j:
                content.append({"type": kind or "text"})
            if kind != "text":
                content[j] = {k: v for k, v in part.items() if k != "index"}
                continue
            if not isinstance(content[j], dict):
                raise StreamError(f"content[{j}] of the message is not an object",
                                  event=number)  # fmt: skip
            content[j].setdefault("text", {"value": "", "annotations": []})
            value = field(part, "text.value", str, number=number, at=at)
            if value:
                self.pieces.setdefault((key, j), []).append(value)
                if texts is not None:
                    texts[0] = texts.get(0, "") + value
            notes = self.notes.setdefault((key, j), {})
            for k, note in enumerate(items_of(part, "text.annotations", number=number, at=at)):
                where = f"{at}.text.annotations[{k}]"
                if not isinstance(note, dict):
                    raise StreamError(f"{where} is not an object: {shown(note)}", event=number)
                index = index_of(note, "index", number=number, at=where, default=len(notes))
                assert index is not None
                merged = notes.setdefault(index, {})  # later deltas complete an annotation
                merged.update({n: v for n, v in note.items() if n != "index"})
            self.pieces.setdefault((key, j), [])

    def _built(self, key: str, j: int) -> tuple[str, list[dict[str, Any]]]:
        notes = self.notes.get((key, j), {})
        return "".join(self.pieces.get((key, j), ())), [notes[k] for k in sorted(notes)]

    def _check(self, number: int, kind: str, key: str, body: dict[str, Any]) -> None:
        position = list(self.messages).index(key)
        for j, part in enumerate(_parts(number, body)):
            at = f"content[{j}]"
            if (
                field(part, "text", dict, number=number, at=at) is None
                or (key, j) not in self.pieces
            ):
                continue
            value, notes = self._built(key, j)
            sent = field(part, "text.value", str, number=number, at=at) or ""
            sent_notes = items_of(part, "text.annotations", number=number, at=at)
            for what, same in (
                ("text", value == sent),
                ("annotations", same_json(notes, sent_notes)),
            ):
                if not same:
                    self.problems.append(Problem(
                        "stream-mismatch",
                        f"event {number} ({kind}) gives another {what} than the deltas "
                        "before it add up to; the event's is kept",
                        f"messages[{position}].content[{j}].text",
                    ))  # fmt: skip

    def _merged_message(self, key: str) -> dict[str, Any]:
        message = dict(self.messages[key])
        content = [dict(p) if isinstance(p, dict) else p for p in message.get("content") or ()]
        for j, part in enumerate(content):
            if isinstance(part, dict) and (key, j) in self.pieces:
                value, notes = self._built(key, j)
                part["text"] = {"value": value, "annotations": notes}
        message["content"] = content
        return message

    def merged(self) -> dict[str, Any]:
        """The run's message, or the message list (newest first) when it wrote several;
        an empty assistant message before any came."""
        if not self.messages:
            return {"object": "thread.message", "role": "assistant", "content": []}
        messages = [self._merged_message(key) for key in self.messages]
        if len(messages) == 1:
            return messages[0]
        messages.reverse()
        return {"object": "list", "data": messages, "first_id": messages[0].get("id"),
                "last_id": messages[-1].get("id"), "has_more": False}  # fmt: skip

    def finished(self, candidate: int) -> bool:
        return bool(self.messages) and self.done.issuperset(self.messages) and (
            self.run_status is None or self.run_status in _RUN_DONE)  # fmt: skip

    def result(self) -> tuple[dict[str, Any], list[Problem]]:
        problems = list(self.problems)
        merged = self.merged()
        if not self.messages:
            what = "a thread message" + (
                f" (the run is {shown(self.run_status)})" if self.run_status else "")  # fmt: skip
            problems.append(incomplete(self.events, what, "content"))
        elif not self.done.issuperset(self.messages):
            problems.append(incomplete(self.events, "thread.message.completed", "status"))
        elif self.run_status is not None and self.run_status not in _RUN_DONE:
            what = ("a completed run" if self.run_status not in _RUN_STOPPED
                    else f"completing the run (it was {shown(self.run_status)})")  # fmt: skip
            problems.append(incomplete(self.events, what, "run.status"))
        return merged, problems


def _parts(number: int, body: object) -> list[dict[str, Any]]:
    """A message's ``content``: a list of objects (empty when absent)."""
    parts = items_of(body, "content", number=number)
    for j, part in enumerate(parts):
        if not isinstance(part, dict):
            raise StreamError(f"content[{j}] is not an object: {shown(part)}", event=number)
    return parts


def _what(data: dict[str, Any]) -> str:
    for name in ("event", "object", "type"):
        if name in data:
            return f"{name} {shown(data[name])}"
    return "a JSON object with keys {" + ", ".join(sorted(map(str, data))[:8]) + "}"


def merge_run_events(events: Iterable[object]) -> tuple[object, list[Problem]]:
    """The thread message(s) a run stream's events add up to, and what merging found."""
    return merge_run(enumerate(events, 1))


merge_run = merge_with(RunMerger)
""":func:`merge_run_events` of events numbered by the stream reader."""
