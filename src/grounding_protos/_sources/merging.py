"""What every source's merger shares: the protocol of mergers that take one event at a
time (:class:`EventMerger`, :class:`OneAnswerMerger`), SDK objects as plain JSON, and the
problems a cut stream gives. A merger ends at the source's merged final response; the
stream entry points (``_streams``) read it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from grounding_protos._core.model import Problem

# --- Mergers that take one event at a time (the OpenAI family) ------------------------------


class EventMerger(Protocol):
    """A vendor's merger that takes a stream's events one at a time, so that
    ``StreamReader`` and the command line's live view can show the text as it arrives.

    ``add`` merges event ``number`` and puts the answer text it adds into ``texts``
    (by candidate: a chat completion's choice ``index``, else 0); ``finished`` says
    whether the vendor marked a candidate done; ``result`` is the vendor's final
    response the events add up to and what merging found (``stream-incomplete`` ...).
    """

    events: int

    def add(self, number: int, event: object, texts: dict[int, str] | None = None) -> None: ...

    def finished(self, candidate: int) -> bool: ...

    def result(self) -> tuple[object, list[Problem]]: ...


class OneAnswerMerger:
    """The part of an :class:`EventMerger` that the one-answer streams share (Anthropic
    Messages, Cohere v2 chat, Bedrock ConverseStream): ``add`` puts the text that the
    vendor's ``_add`` returns for an event into ``texts[0]``, and the one answer is
    finished when the stream's end event set ``stopped``.
    """

    events: int
    stopped: bool

    def finished(self, candidate: int) -> bool:
        """Whether the stream's end event came (one answer: ``candidate`` is not used)."""
        return self.stopped

    def add(self, number: int, value: object, texts: dict[int, str] | None = None) -> None:
        """Merge event ``number``; the answer text it adds goes into ``texts[0]``.

        Raises:
            StreamError: as the vendor's ``_add``.
        """
        text = self._add(number, value)
        if text and texts is not None:
            texts[0] = texts.get(0, "") + text

    def _add(self, number: int, value: object) -> str:
        """Merge event ``number``; return the answer text it adds."""
        raise NotImplementedError


def merge_with(
    factory: Callable[[], EventMerger],
) -> Callable[[Iterable[tuple[int, object]]], tuple[object, list[Problem]]]:
    """The whole-stream merger (``_streams.read``'s ``Merge``) of an :class:`EventMerger`."""

    def merge(events: Iterable[tuple[int, object]]) -> tuple[object, list[Problem]]:
        merger = factory()
        for number, event in events:
            merger.add(number, event)
        return merger.result()

    merge.__doc__ = f"The events merged by {getattr(factory, '__name__', 'the merger')}."
    return merge


def plain(value: object) -> Any:
    """An SDK (pydantic) object dumped to JSON-shaped dicts (fields left unset out); a
    dict or anything else as it is (the caller copies what it keeps)."""
    if type(value) is dict:
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(exclude_none=True)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values say the same, ``None`` entries of dicts counted as absent
    (compared as they are first: the common case costs one comparison)."""
    return bool(a == b) or drop_none(a) == drop_none(b)


def drop_none(value: Any) -> Any:
    """``value`` without ``None`` entries in its dicts, at every depth (a JSON ``null``
    is an absent field), for comparing what two events say."""
    if isinstance(value, Mapping):
        return {k: drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_none(v) for v in value]
    return value


def incomplete(events: int, what: str, path: str) -> Problem:
    """The ``stream-incomplete`` problem of a stream that ended before ``what``."""
    return Problem(
        "stream-incomplete",
        f"the stream ended after {events} events without {what} (interrupted?): the text "
        "and citations are those that arrived",
        path,
    )


@dataclass(frozen=True, slots=True)
class Placeable:
    """A citation that became placeable while a vendor's stream is merged (Anthropic,
    Cohere, Bedrock; the merger's ``track`` set, as ``StreamReader`` sets it): a small
    response of the vendor's shape holding that citation alone (``response``), where
    that response's answer text starts in the whole answer (``byte_base``,
    ``char_base``), and the citation's path in the merged response."""

    response: object
    byte_base: int
    char_base: int
    path: str
