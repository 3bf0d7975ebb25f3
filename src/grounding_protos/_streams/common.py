"""What the stream readers and every vendor's merger share: the options a merged
response is read with (:class:`ReadOptions`), and one stream element as text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from grounding_protos._citations.read import read
from grounding_protos._core.model import Grounded, Problem, SpanPolicy
from grounding_protos._exceptions import StreamError
from grounding_protos._offsets import SpanSnap


@dataclass(frozen=True)
class ReadOptions:
    """How a merged response is read: ``read``'s arguments as ``read_stream`` took them."""

    candidate: int
    text: str | bytes | None
    snap: SpanSnap | None
    clamp: bool
    errors: SpanPolicy

    def read(self, obj: object, *, text: bool = True) -> Grounded:
        return read(
            obj,
            text=self.text if text else None,
            candidate=self.candidate if text else 0,
            errors=self.errors,
            snap=self.snap,
            clamp=self.clamp,
        )


def text_line(element: object) -> str:
    if isinstance(element, str):
        return element
    if isinstance(element, (bytes, bytearray)):
        try:
            return bytes(element).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StreamError(f"an SSE line is not UTF-8 (byte {exc.start})") from exc
    raise StreamError(f"expected the lines of an SSE stream, got {type(element).__name__}")


def plain(value: object) -> object:
    """A stream event as JSON-shaped data: a dict as it is; a vendor SDK's pydantic event
    (anthropic's, cohere's) dumped, its ``None`` fields left out (``None`` means absent).

    >>> plain({"type": "ping"})
    {'type': 'ping'}
    """
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_none=True)
    return value


def incomplete(what: str, count: int, path: str) -> Problem:
    """The ``stream-incomplete`` problem of a vendor's stream that ended before its end
    event (``what``): what arrived is read."""
    return Problem(
        "stream-incomplete",
        f"the stream ended after {count} events without {what} (interrupted?): the text "
        "and citations are those that arrived",
        path,
    )


@dataclass(frozen=True, slots=True)
class Placeable:
    """A citation that became placeable while a vendor's stream is merged (the merger
    was told to ``track``): a small response of the vendor's shape holding that citation
    alone (``response``), where that response's answer text starts in the whole answer
    (``byte_base``, ``char_base``), and the citation's path in the merged response."""

    response: object
    byte_base: int
    char_base: int
    path: str


class EventMerger(Protocol):
    """A vendor's stream merged event by event (``_streams.anthropic``, ``cohere``,
    ``bedrock``): :meth:`add` takes one numbered event and returns the answer text it
    adds (for a live view); :meth:`result` is the vendor's final response and what
    merging found."""

    def add(self, number: int, value: object) -> str: ...

    def result(self) -> tuple[object, list[Problem]]: ...

    @property
    def done(self) -> bool:
        """Whether the stream's end event came (``message_stop``, ``message-end``,
        ``messageStop``)."""
        ...

    track: bool
    """Whether to collect, as events arrive, the citations that become placeable."""

    placeable: list[Placeable]
    """Those collected (with ``track``), for ``StreamReader`` to place and empty."""


@dataclass(frozen=True)
class MergeWith:
    """The merge function (``_streams.read``'s ``Merge``: numbered events in, the final
    response and what merging found out) of an :class:`EventMerger`, which stays
    reachable as ``factory`` for readers that go event by event (the CLI's live view)."""

    factory: Callable[[], EventMerger]

    def __call__(self, events: Iterable[tuple[int, object]]) -> tuple[object, list[Problem]]:
        merger = self.factory()
        for number, value in events:
            merger.add(number, value)
        return merger.result()
