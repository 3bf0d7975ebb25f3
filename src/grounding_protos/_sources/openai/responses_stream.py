"""Merging an OpenAI Responses API stream (``stream=True``) into its final ``Response``.

The events (OpenAI's API reference, "Streaming events"; xAI's Responses API sends the
same) each name their kind in ``type``, repeated as the SSE ``event:`` name:

- ``response.created``, ``response.in_progress``, ``response.queued``: the response
  so far (``id``, ``model``, ``status``), no output yet;
- ``response.output_item.added`` (``output_index``, ``item``: a ``message``, a
  ``web_search_call``, a ``function_call``, ``reasoning``, ...) and
  ``response.output_item.done`` (the whole item);
- ``response.content_part.added`` / ``.done`` (``output_index``, ``content_index``,
  ``part``: an ``output_text`` or a ``refusal``);
- ``response.output_text.delta`` (``delta``: text to append to that part),
  ``response.output_text.annotation.added`` (``annotation_index``, ``annotation``,
  whose offsets count the part's whole text), ``response.output_text.done`` (``text``);
  ``response.refusal.delta``, ``response.function_call_arguments.delta`` likewise;
- ``response.completed`` / ``response.incomplete`` (``response``: the whole final
  response), ``response.failed`` and ``error`` (a :class:`StreamError`); tool progress
  events (``response.web_search_call.searching``, ...) carry nothing to merge.

The merge is built from the deltas; ``.done`` events and ``response.completed``, where
they come, are checked against it (a disagreement is a ``stream-mismatch`` problem) and
then taken as they are, since they are what the non-streaming API returns. A stream
that ends before ``response.completed`` gives the response its deltas add up to, with a
``stream-incomplete`` problem.

>>> merger = ResponsesMerger()
>>> for n, event in enumerate([
...     {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
...     {"type": "response.output_item.added", "output_index": 0,
...      "item": {"type": "message", "role": "assistant", "content": []}},
...     {"type": "response.content_part.added", "output_index": 0, "content_index": 0,
...      "part": {"type": "output_text", "text": "", "annotations": []}},
...     {"type": "response.output_text.delta", "output_index": 0, "content_index": 0,
...      "delta": "Köln 🌉 "},
...     {"type": "response.output_text.delta", "output_index": 0, "content_index": 0,
...      "delta": "am Rhein"},
...     {"type": "response.output_text.annotation.added", "output_index": 0,
...      "content_index": 0, "annotation_index": 0, "annotation": {
...          "type": "url_citation", "start_index": 7, "end_index": 15,
...          "url": "https://k.example", "title": "Köln"}},
... ], 1):
...     merger.add(n, event)
>>> merged, problems = merger.result()
>>> merged["output"][0]["content"][0]["text"], [p.code for p in problems]
('Köln 🌉 am Rhein', ['stream-incomplete'])
"""

from __future__ import annotations

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

_STATUS = frozenset({"response.created", "response.in_progress", "response.queued"})
_FINAL = frozenset({"response.completed", "response.incomplete"})


def is_event(value: object) -> bool:
    """Whether ``value`` is an event of a Responses API stream (``type`` ``response.*``)."""
    kind = get(value, "type")
    return isinstance(kind, str) and kind.startswith("response.")


class ResponsesMerger:
    """The events of one Responses API stream, merged into its ``Response``."""

    def __init__(self) -> None:
        self.response: dict[str, Any] = {"object": "response"}
        self.items: dict[int, dict[str, Any]] = {}
        # (output_index, content_index) -> the text deltas of that part, not yet joined
        self.pieces: dict[tuple[int, int], list[str]] = {}
        self.notes: dict[tuple[int, int], dict[int, Any]] = {}  # annotations by index
        self.repeated: dict[tuple[int, int], list[Any]] = {}  # at an index already taken
        self.arguments: dict[int, list[str]] = {}
        self.final: dict[str, Any] | None = None
        self.final_event = 0
        self.events = 0
        self.problems: list[Problem] = []

    def add(self, number: int, event: object, texts: dict[int, str] | None = None) -> None:
        """Merge event ``number``; the answer text it adds goes to ``texts[0]``.

        Raises:
            StreamError: an ``error`` or ``response.failed`` event, or an event that is
                not a Responses API one.
        """
        self.events = number
        if type(event) is dict and event.get("type") == "response.output_text.delta":
            self._delta(number, event, texts)  # the common event, without plain()
            return
        data = plain(event)
        if not isinstance(data, dict):
            raise StreamError(f"not an event of an OpenAI Responses stream: {_what(data)}",
                              event=number)  # fmt: skip
        kind = field(data, "type", str, number=number)
        if kind == "response.output_text.delta":
            self._delta(number, data, texts)
        elif kind == "response.output_text.annotation.added":
            self._annotation(number, data)
        elif kind in _STATUS:
            self._update(field(data, "response", dict, number=number))
        elif kind in _FINAL:
            final = data.get("response")
            if not isinstance(final, dict):
                raise StreamError(f"{kind} without its response", event=number)
            self.final, self.final_event = final, number
            self._check(number, final.get("output"), "response.completed", "output")
        elif kind == "response.failed":
            failed = data.get("response")
            error = failed.get("error") if isinstance(failed, dict) else None
            raise StreamError(f"the response failed: {error_text(error)}", event=number)
        elif kind == "error":
            raise StreamError(f"the stream reports an error: {error_text(data)}", event=number)
        elif kind == "response.output_item.added":
            item = _item(number, data)
            self.items[_index(number, data, "output_index")] = item
        elif kind == "response.output_item.done":
            i = _index(number, data, "output_index")
            item = _item(number, data)
            self._check(number, [*([None] * i), item], kind, "output")
            self._settle(number, i, item)
        elif kind == "response.content_part.added":
            self._set_part(number, data)
        elif kind == "response.content_part.done":
            i, j = self._part_key(number, data)
            part = field(data, "part", dict, number=number)
            if part is not None:
                self._check_part(number, i, j, dict(part), kind)
                self._set_part(number, data)
        elif kind == "response.output_text.done":
            i, j = self._part_key(number, data)
            text = field(data, "text", str, number=number)
            if text is not None:
                self._check_part(number, i, j, {"text": text}, kind)
                self.pieces[i, j] = [text]
        elif kind == "response.refusal.delta":
            piece = field(data, "delta", str, number=number)
            part = self._part(number, *self._part_key(number, data))
            if not isinstance(part.get("refusal", ""), str):
                raise StreamError(f"a refusal delta for a part whose refusal is "
                                  f"{shown(part['refusal'])}", event=number)  # fmt: skip
            part["refusal"] = (part.get("refusal") or "") + (piece or "")
        elif kind == "response.function_call_arguments.delta":
            i = _index(number, data, "output_index")
            piece = field(data, "delta", str, number=number)
            self.arguments.setdefault(i, []).append(piece or "")
        elif not (isinstance(kind, str) and kind.startswith("response.")):
            raise StreamError(
                f"not an event of an OpenAI Responses stream: {_what(data)}", event=number
            )
        # any other response.* event (tool progress, reasoning summaries, audio) adds
        # nothing the output items do not hold when they are done

    def _delta(self, number: int, event: dict[str, Any], texts: dict[int, str] | None) -> None:
        key = self._part_key(number, event)
        delta = event.get("delta")
        if not isinstance(delta, str):
            raise StreamError(
                f"an output_text delta that is not text: {shown(delta)}", event=number
            )
        pieces = self.pieces.get(key)
        if pieces is None:
            self._part(number, *key)
            pieces = self.pieces[key] = []
        pieces.append(delta)
        if texts is not None:
            texts[0] = texts.get(0, "") + delta

    def _part_key(self, number: int, event: dict[str, Any]) -> tuple[int, int]:
        return _index(number, event, "output_index"), _index(number, event, "content_index")

    def _part(self, number: int, i: int, j: int) -> dict[str, Any]:
        """Content part ``j`` of output item ``i``, made (an ``output_text`` of a
        ``message``) when the stream never announced it."""
        item = self.items.get(i)
        if item is None:
            item = self.items[i] = {"type": "message", "role": "assistant", "content": []}
        content = item.setdefault("content", [])
        while len(content) <= j:
            content.append({"type": "output_text", "text": "", "annotations": []})
        part = content[j]
        if not isinstance(part, dict):
            raise StreamError(f"output[{i}].content[{j}] is not an object: {shown(part)}",
                              event=number)  # fmt: skip
        return part

    def _annotation(self, number: int, data: dict[str, Any]) -> None:
        """An ``annotation.added`` event: the annotation at its ``annotation_index``. The
        same annotation again at a taken index is a repeat; another one there is kept
        too, after all the part's others, with a ``stream-repeated-index`` problem."""
        key = self._part_key(number, data)
        annotation = field(data, "annotation", dict, number=number)
        notes = self.notes.setdefault(key, {})
        index = index_of(data, "annotation_index", number=number, default=len(notes))
        assert index is not None
        if index in notes:
            if same_json(notes[index], annotation):
                return
            self.problems.append(Problem(
                "stream-repeated-index",
                f"event {number} adds another annotation at annotation_index {index}, "
                "which an earlier event took; both are kept, this one after the others",
                f"output[{key[0]}].content[{key[1]}].annotations[{index}]",
            ))  # fmt: skip
            self.repeated.setdefault(key, []).append(annotation)
            return
        notes[index] = annotation

    def _set_part(self, number: int, event: dict[str, Any]) -> None:
        i, j = self._part_key(number, event)
        part = field(event, "part", dict, number=number)
        if part is None:
            raise StreamError(f"{shown(event.get('type'))} without its part", event=number)
        self._part(number, i, j)
        part = dict(part)  # a copy of what is changed in place (never the text or notes)
        self.items[i]["content"][j] = part
        text = field(part, "text", str, number=number, at="part")
        if text is not None and (text or (i, j) not in self.pieces):
            self.pieces[i, j] = [text]
        notes = field(part, "annotations", list, number=number, at="part")
        if notes is not None and (notes or (i, j) not in self.notes):
            self.notes[i, j] = dict(enumerate(notes))
            self.repeated.pop((i, j), None)

    def _settle(self, number: int, i: int, item: dict[str, Any]) -> None:
        """Output item ``i`` as its ``output_item.done`` event gives it."""
        self.items[i] = item
        self.arguments.pop(i, None)
        for j, part in enumerate(item.get("content") or ()):
            at = f"item.content[{j}]"
            text = field(part, "text", str, number=number, at=at)
            if text is not None:
                self.pieces[i, j] = [text]
                notes = items_of(part, "annotations", number=number, at=at)
                self.notes[i, j] = dict(enumerate(notes))
                self.repeated.pop((i, j), None)

    def _update(self, response: object) -> None:
        if isinstance(response, dict):
            self.response.update({k: v for k, v in response.items() if k != "output"})

    def _check_part(self, number: int, i: int, j: int, part: dict[str, Any], kind: str) -> None:
        mine = self._built(i, j)
        if mine is None:
            return
        text, notes = mine
        if isinstance(part.get("text"), str) and part["text"] != text:
            self._mismatch(number, kind, f"output[{i}].content[{j}].text", "text")
        if "annotations" in part and not same_json(part.get("annotations") or [], notes):
            self._mismatch(number, kind, f"output[{i}].content[{j}].annotations", "annotations")

    def _check(self, number: int, output: object, kind: str, where: str) -> None:
        """Every text part of ``output`` (a list of items) against the deltas' merge."""
        if not isinstance(output, list):
            return
        for i, item in enumerate(output):
            content = item.get("content") if isinstance(item, dict) else None
            for j, part in enumerate(content if isinstance(content, list) else ()):
                if isinstance(part, dict) and part.get("type") == "output_text":
                    self._check_part(number, i, j, part, kind)

    def _built(self, i: int, j: int) -> tuple[str, list[Any]] | None:
        if (i, j) not in self.pieces and (i, j) not in self.notes:
            return None
        text = "".join(self.pieces.get((i, j), ()))
        notes = self.notes.get((i, j), {})
        return text, [*(notes[k] for k in sorted(notes)), *self.repeated.get((i, j), ())]

    def _mismatch(self, number: int, kind: str, path: str, what: str) -> None:
        self.problems.append(
            Problem(
                "stream-mismatch",
                f"event {number} ({kind}) gives another {what} than the deltas before it "
                "add up to; the event's is kept",
                path,
            )
        )

    def merged(self) -> dict[str, Any]:
        """The response so far: ``response.completed``'s when it came, else the items
        the events built."""
        if self.final is not None:
            return self.final
        out = dict(self.response)
        output = []
        for i in sorted(self.items):
            item = dict(self.items[i])
            if isinstance(item.get("content"), list):
                item["content"] = list(item["content"])
                for j, part in enumerate(item["content"]):
                    built = self._built(i, j)
                    if built is not None and isinstance(part, dict):
                        text, notes = built
                        item["content"][j] = {**part, "text": text, "annotations": notes}
            if i in self.arguments:
                item["arguments"] = (item.get("arguments") or "") + "".join(self.arguments[i])
            output.append(item)
        out["output"] = output
        return out

    def finished(self, candidate: int) -> bool:
        return self.final is not None

    def result(self) -> tuple[dict[str, Any], list[Problem]]:
        problems = list(self.problems)
        if self.final is None:
            problems.append(incomplete(self.events, "response.completed", "status"))
        return self.merged(), problems


def _index(number: int, event: dict[str, Any], name: str) -> int:
    value = event.get(name, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0 or value > 1 << 20:
        raise StreamError(f"{event.get('type')}: {name} {shown(value)} is not an index",
                          event=number)  # fmt: skip
    return value


def _item(number: int, event: dict[str, Any]) -> dict[str, Any]:
    """The event's item, copied as deep as the merge changes it in place (the item and
    its content parts; their text and annotations are replaced, never changed)."""
    item = field(event, "item", dict, number=number)
    if item is None:
        raise StreamError(f"{shown(event.get('type'))} without its item", event=number)
    item = dict(item)
    field(item, "type", str, number=number, at="item")
    field(item, "arguments", str, number=number, at="item")  # joined to its deltas
    if "content" in item:
        content = items_of(item, "content", number=number, at="item")
        for j, part in enumerate(content):
            if not isinstance(part, dict):
                raise StreamError(f"item.content[{j}] is not an object: {shown(part)}",
                                  event=number)  # fmt: skip
        item["content"] = [dict(p) for p in content]
    return item


def _what(data: object) -> str:
    if isinstance(data, dict):
        if "type" in data:
            return f"type {shown(data['type'])}"
        return "a JSON object with keys {" + ", ".join(sorted(map(str, data))[:8]) + "}"
    return f"a {type(data).__name__}"


merge_responses = merge_with(ResponsesMerger)
"""The ``Response`` a stream's numbered events add up to, and what merging found."""
