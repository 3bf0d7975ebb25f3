"""What the stream readers and every vendor's merger share: the options a merged
response is read with (:class:`ReadOptions`), and one stream element as text.
"""

from __future__ import annotations

from dataclasses import dataclass

from grounding_protos._citations.read import read
from grounding_protos._core.model import Grounded, SpanPolicy
from grounding_protos._exceptions import StreamError
from grounding_protos._offsets import SpanSnap, Unit


@dataclass(frozen=True)
class ReadOptions:
    """How a merged response is read: ``read``'s arguments as ``read_stream`` took them."""

    candidate: int
    text: str | bytes | None
    snap: SpanSnap | None
    clamp: bool
    errors: SpanPolicy
    unit: Unit | None = None  # what the offsets count, as read(unit=) takes it

    def read(self, obj: object, *, text: bool = True) -> Grounded:
        return read(
            obj,
            text=self.text if text else None,
            candidate=self.candidate if text else 0,
            errors=self.errors,
            snap=self.snap,
            clamp=self.clamp,
            unit=self.unit,
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
