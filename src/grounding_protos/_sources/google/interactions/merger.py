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
its list fields (``result``) and sets the others. The merged interaction is read by
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

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from grounding_protos._core.access import get
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
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
    """A JSON-shaped copy of an event's part: dicts deep-copied, SDK (pydantic) objects
    dumped (fields left unset out), anything else as it is."""
    if isinstance(value, Mapping):
        return copy.deepcopy(dict(value))
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(exclude_none=True)
    return copy.deepcopy(value)


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
            StreamError: an ``error`` event, or an event that is not an Interactions one.
        """
        self.events = number
        data = plain(event)
        if not isinstance(data, dict):
            raise StreamError(
                f"an Interactions stream event is a JSON object, not {type(data).__name__}",
                event=number,
            )
        unknown = data.get("event_type") == "UNKNOWN" and isinstance(data.get("raw"), Mapping)
        event = dict(data["raw"]) if unknown else data
        kind = event.get("event_type")
        if kind == "error":
            raise StreamError(f"the stream reports an error: {error_text(event.get('error'))}",
                              event=number)  # fmt: skip
        if kind not in EVENT_TYPES:
            raise StreamError(
                f"not an event of an Interactions stream: event_type {kind!r}", event=number
            )
        inner = event.get("interaction")
        if isinstance(inner, Mapping):
            steps = inner.get("steps")
            self.interaction.update({k: v for k, v in inner.items() if k != "steps"})
            if isinstance(steps, list) and steps:
                self.final_steps = steps
        if kind == "interaction.status_update" and isinstance(event.get("status"), str):
            self.interaction["status"] = event["status"]
        elif kind == "interaction.completed":
            self.completed = True
        elif kind == "interaction.cancelled":
            self.interaction["status"] = "cancelled"
            self.completed = True
        elif kind.startswith("step."):
            self._step(number, kind, event)

    def _step(self, number: int, kind: str, event: dict[str, Any]) -> None:
        index = event.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise StreamError(f"{kind} without a step index (index {index!r})", event=number)
        step = self.steps.get(index)
        if kind == "step.start":
            start = event.get("step")
            step = self.steps[index] = dict(start) if isinstance(start, Mapping) else {}
            return
        if step is None:  # a delta or stop of a step that never started: keep what it says
            step = self.steps[index] = {}
        if kind != "step.delta":
            return
        delta = event.get("delta")
        if not isinstance(delta, Mapping):
            return
        _add_delta(step, dict(delta))

    def merged(self) -> dict[str, Any]:
        """The interaction the events add up to."""
        out = dict(self.interaction)
        if self.final_steps is not None:
            out["steps"] = self.final_steps
        else:
            out["steps"] = [self.steps[i] for i in sorted(self.steps)]
        return out

    def incomplete(self) -> list[Problem]:
        status = self.interaction.get("status")
        if self.completed and status in _DONE:
            return []
        return [
            Problem(
                "stream-incomplete",
                f"the stream ended after {self.events} events "
                + ("without interaction.completed" if not self.completed
                   else f"in status {status!r}")
                + " (interrupted?): the text and citations are those that arrived",
                "status",
            )
        ]  # fmt: skip


def _add_delta(step: dict[str, Any], delta: dict[str, Any]) -> None:
    kind = delta.get("type")
    if kind == "text":
        _text(step).setdefault("text", "")
        _text(step)["text"] += delta.get("text") or ""
    elif kind == "text_annotation_delta":
        annotations = delta.get("annotations")
        if isinstance(annotations, list):
            _text(step).setdefault("annotations", []).extend(annotations)
    elif kind == "thought_summary":
        step.setdefault("type", "thought")
        content = delta.get("content")
        if content is not None:
            summary = step.setdefault("summary", [])
            last = summary[-1] if summary else None
            if (
                isinstance(last, dict)
                and last.get("type") == "text"
                and isinstance(content, Mapping)
                and content.get("type") == "text"
            ):
                last["text"] = (last.get("text") or "") + (content.get("text") or "")
            else:
                summary.append(dict(content) if isinstance(content, Mapping) else content)
    elif kind == "thought_signature":
        step.setdefault("type", "thought")
        step["signature"] = delta.get("signature")
    elif kind == "arguments_delta":
        step["arguments_delta"] = (step.get("arguments_delta") or "") + (
            delta.get("arguments") or "")  # fmt: skip
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
                step[key] = value


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
