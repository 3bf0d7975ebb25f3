"""Merging a streamed Gemini Interactions API response into one ``Interaction``.

``client.interactions.create(..., stream=True)`` (``POST /v1beta/interactions`` with
``"stream": true``) sends Server-Sent Events, each naming its type in ``event:`` and
again in its data's ``event_type``:

- ``interaction.created`` (the interaction so far: id, status, model),
  ``interaction.status_update`` (``status``), ``interaction.completed`` (the final
  interaction: status, usage, and sometimes every step);
- ``step.start`` (``index``, ``step``: its type and fields such as a tool call's
  ``id``), ``step.delta`` (``index``, ``delta``), ``step.stop`` (``index``);
- ``error`` (``error``: ``code``, ``message``), which ends the stream with a
  :class:`StreamError`.

Deltas: ``text`` appends to the step's text; ``text_annotation_delta`` adds
``annotations`` whose offsets count the step's joined text, so a ``model_output``
step's text deltas are joined into one text content and its annotations attached
to it unchanged; ``thought_summary`` and ``thought_signature`` go to a ``thought``
step; a tool step's delta (``google_search_result``, ``url_context_result``, …) adds
its list fields (``result``) and sets the others. Text pieces are joined once, when
the interaction is built. A second ``step.start`` of a step keeps what the step has
(its text), takes only the fields it lacked from the new start, and is a
``stream-repeated-step`` problem. A field of the wrong JSON type is a
:class:`StreamError` naming the event and the field. The merged interaction is read by
``citations.read`` as a whole one. When ``interaction.completed`` carries the steps,
those are the interaction's. A stream that ends before ``interaction.completed`` (or
whose status is still in progress) is ``stream-incomplete``.

>>> merged, problems = merge_interaction_events([
...     {"event_type": "interaction.created",
...      "interaction": {"id": "v1_1", "status": "in_progress", "object": "interaction"}},
...     {"event_type": "step.start", "index": 0, "step": {"type": "model_output"}},
...     {"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": "Köln "}},
...     {"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": "🌉."}},
...     {"event_type": "step.delta", "index": 0, "delta": {"type": "text_annotation_delta",
...      "annotations": [{"type": "url_citation", "url": "https://k.example",
...                       "start_index": 0, "end_index": 5}]}},
...     {"event_type": "step.stop", "index": 0},
...     {"event_type": "interaction.completed",
...      "interaction": {"id": "v1_1", "status": "completed"}},
... ])
>>> merged["steps"][0]["content"], problems
([{'type': 'text', 'text': 'Köln 🌉.', 'annotations': [{'type': 'url_citation', \
'url': 'https://k.example', 'start_index': 0, 'end_index': 5}]}], [])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from grounding_protos._core.access import get
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._quote import shown
from grounding_protos._sources.merging import Pieces, field, index_of, items_of, json_kind
from grounding_protos._sources.parse import error_text

EVENT_TYPES = frozenset({
    "interaction.created", "interaction.status_update", "interaction.completed",
    "interaction.cancelled", "step.start", "step.delta", "step.stop", "error",
})  # fmt: skip
_DONE = frozenset({"completed", "failed", "cancelled", "incomplete", "budget_exceeded",
                   "requires_action"})  # fmt: skip


def is_event(value: object) -> bool:
    """Whether ``value`` is an event of an Interactions stream (its ``event_type``)."""
    kind = get(value, "event_type")
    if kind == "UNKNOWN":
        kind = get(get(value, "raw"), "event_type")
    return isinstance(kind, str) and kind in EVENT_TYPES


def plain(value: object) -> Any:
    """An event as JSON: a dict as it is (the merge copies what it changes), an SDK
    (pydantic) object dumped (fields left unset out), anything else as it is."""
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(exclude_none=True)
    return value


class InteractionMerger:
    """The events of one Interactions stream, merged step by step."""

    def __init__(self) -> None:
        self.interaction: dict[str, Any] = {"object": "interaction"}
        self.steps: dict[int, dict[str, Any]] = {}
        self.final_steps: list[Any] | None = None
        self.completed = False
        self.events = 0
        self.problems: list[Problem] = []

    def add(self, number: int, event: object) -> None:
        """Merge event ``number``.

        Raises:
            StreamError: an ``error`` event, an event that is not an Interactions one,
                or a field of the wrong JSON type.
        """
        self.events = number
        if type(event) is dict and event.get("event_type") == "step.delta":
            delta, index = event.get("delta"), event.get("index")
            step = self.steps.get(index) if type(index) is int else None
            if step is not None and type(delta) is dict and delta.get("type") == "text":
                text = delta.get("text")
                if type(text) is str:  # the common event, without the general code
                    _append(_text(step), text)
                    return
        data = plain(event)
        if not isinstance(data, dict):
            raise StreamError(
                f"an Interactions stream event is a JSON object, not {json_kind(data)}",
                event=number,
            )
        unknown = data.get("event_type") == "UNKNOWN" and isinstance(data.get("raw"), Mapping)
        event = dict(data["raw"]) if unknown else data
        kind = field(event, "event_type", str, number=number)
        if kind == "error":
            raise StreamError(f"the stream reports an error: {error_text(event.get('error'))}",
                              event=number)  # fmt: skip
        if kind not in EVENT_TYPES:
            raise StreamError(
                f"not an event of an Interactions stream: event_type {shown(kind)}", event=number
            )
        inner = field(event, "interaction", dict, number=number)
        if inner is not None:
            steps = field(inner, "steps", list, number=number, at="interaction")
            self.interaction.update({k: v for k, v in inner.items() if k != "steps"})
            if steps:
                self.final_steps = list(steps)
        if kind == "interaction.status_update":
            status = field(event, "status", str, number=number)
            if status is not None:
                self.interaction["status"] = status
        elif kind == "interaction.completed":
            self.completed = True
        elif kind == "interaction.cancelled":
            self.interaction["status"] = "cancelled"
            self.completed = True
        elif kind.startswith("step."):
            self._step(number, kind, event)

    def _step(self, number: int, kind: str, event: dict[str, Any]) -> None:
        index = index_of(event, "index", number=number)
        if index is None:
            raise StreamError(f"{kind} without a step index", event=number)
        step = self.steps.get(index)
        if kind == "step.start":
            start = _started(number, field(event, "step", dict, number=number) or {})
            if step is None:
                self.steps[index] = start
                return
            # a repeated start: what the step has stays; the start adds the fields it lacks
            for key, value in start.items():
                step.setdefault(key, value)
            self.problems.append(Problem(
                "stream-repeated-step",
                f"event {number} starts step {index} again; what the step had is kept, "
                "the new start adds only the fields it lacked",
                f"steps[{index}]",
            ))  # fmt: skip
            return
        if step is None:  # a delta or stop of a step that never started: keep what it says
            step = self.steps[index] = {}
        if kind != "step.delta":
            return
        delta = field(event, "delta", dict, number=number)
        if delta is not None:
            _add_delta(number, step, dict(delta))

    def merged(self) -> dict[str, Any]:
        """The interaction the events add up to (the merger's state unchanged)."""
        out = dict(self.interaction)
        if self.final_steps is not None:
            out["steps"] = self.final_steps
        else:
            out["steps"] = [_joined(self.steps[i]) for i in sorted(self.steps)]
        return out

    def incomplete(self) -> list[Problem]:
        """What merging found: repeated steps, and ``stream-incomplete`` when the stream
        ended before the interaction did."""
        problems = list(self.problems)
        status = self.interaction.get("status")
        if self.completed and isinstance(status, str) and status in _DONE:
            return problems
        problems.append(
            Problem(
                "stream-incomplete",
                f"the stream ended after {self.events} events "
                + ("without interaction.completed" if not self.completed
                   else f"in status {shown(status)}")
                + " (interrupted?): the text and citations are those that arrived",
                "status",
            )
        )  # fmt: skip
        return problems


def _started(number: int, start: Mapping[str, Any]) -> dict[str, Any]:
    """A step as its ``step.start`` gives it, copied as deep as deltas change it (its
    ``content`` and ``summary`` lists and their items, its other lists)."""
    step = dict(start)
    field(step, "type", str, number=number, at="step")
    for key, value in step.items():
        if key in ("content", "summary"):
            items = items_of(step, key, number=number, at="step")
            step[key] = [dict(i) if isinstance(i, Mapping) else i for i in items]
            for k, item in enumerate(step[key]):
                field(item, "text", str, number=number, at=f"step.{key}[{k}]")
        elif isinstance(value, list):
            step[key] = list(value)
    return step


def _add_delta(number: int, step: dict[str, Any], delta: dict[str, Any]) -> None:
    kind = field(delta, "type", str, number=number, at="delta")
    if kind == "text":
        _append(_text(step), field(delta, "text", str, number=number, at="delta"))
    elif kind == "text_annotation_delta":
        annotations = items_of(delta, "annotations", number=number, at="delta")
        _text(step).setdefault("annotations", []).extend(annotations)
    elif kind == "thought_summary":
        step.setdefault("type", "thought")
        content = field(delta, "content", dict, number=number, at="delta")
        if content is not None:
            text = field(content, "text", str, number=number, at="delta.content")
            summary = step.setdefault("summary", [])
            last = summary[-1] if summary else None
            if (
                isinstance(last, dict)
                and last.get("type") == "text"
                and (content.get("type") == "text")
            ):
                _append(last, text)
            else:
                summary.append(dict(content))
    elif kind == "thought_signature":
        step.setdefault("type", "thought")
        step["signature"] = field(delta, "signature", str, number=number, at="delta")
    elif kind == "arguments_delta":
        piece = field(delta, "arguments", str, number=number, at="delta")
        step["arguments_delta"] = (step.get("arguments_delta") or "") + (piece or "")
    else:  # a tool step's delta, or another content (image, audio) of the step
        if kind in ("image", "audio", "video", "document"):
            step.setdefault("content", []).append(delta)
            return
        step.setdefault("type", kind)
        for key, value in delta.items():
            if key == "type":
                continue
            if isinstance(value, list) and isinstance(step.get(key), list):
                step[key].extend(value)
            else:
                step[key] = list(value) if isinstance(value, list) else value


def _append(item: dict[str, Any], piece: str | None) -> None:
    """A text piece added to a text content's (or summary's) pieces."""
    pieces = item.get("text")
    if not isinstance(pieces, Pieces):
        pieces = item["text"] = Pieces([pieces] if isinstance(pieces, str) and pieces else [])
    if piece:
        pieces.append(piece)


def _joined(step: dict[str, Any]) -> dict[str, Any]:
    """A step with its texts' pieces joined (a copy: the merge's state stays)."""
    out = dict(step)
    for key in ("content", "summary"):
        items = out.get(key)
        if isinstance(items, list):
            out[key] = [
                {**i, "text": "".join(i["text"])}
                if isinstance(i, dict) and isinstance(i.get("text"), Pieces)
                else i
                for i in items
            ]
    return out


def _text(step: dict[str, Any]) -> dict[str, Any]:
    """The step's one text content (a ``model_output`` step unless it says otherwise)."""
    step.setdefault("type", "model_output")
    if step["type"] == "thought":
        summary = step.setdefault("summary", [])
        if not summary or not isinstance(summary[-1], dict) or summary[-1].get("type") != "text":
            summary.append({"type": "text"})
        return summary[-1]  # type: ignore[no-any-return]
    content = step.setdefault("content", [])
    for item in content:
        if isinstance(item, dict) and item.get("type") == "text":
            return item
    item = {"type": "text"}
    content.append(item)
    return item


def merge_interaction_events(events: Iterable[object]) -> tuple[dict[str, Any], list[Problem]]:
    """The ``Interaction`` a stream's events add up to, and what merging found
    (``stream-incomplete``).

    Raises:
        StreamError: an ``error`` event, or an event of another kind.
    """
    return merge_numbered(enumerate(events, 1))


def merge_numbered(
    events: Iterable[tuple[int, object]],
) -> tuple[dict[str, Any], list[Problem]]:
    """:func:`merge_interaction_events` of events numbered by the stream reader."""
    merger = InteractionMerger()
    for number, event in events:
        merger.add(number, event)
    return merger.merged(), merger.incomplete()
