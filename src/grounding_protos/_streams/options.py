"""How a stream's merged response is read: :class:`ReadOptions` (``read``'s arguments as
``read_stream`` took them) and :func:`read_gemini`, the read of what a Gemini
:class:`~grounding_protos._sources.google.gemini.merger.Merger` holds, final or so far.

The sources' mergers end at the merged response; reading it happens here, above them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from grounding_protos._citations.read import read
from grounding_protos._core.model import Grounded, Problem, SpanPolicy
from grounding_protos._exceptions import CitationError, OffsetError, StreamError
from grounding_protos._offsets import SpanSnap, Unit
from grounding_protos._sources.google.gemini.merger import Merger


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

    def read_merged(self, merged: object, problems: list[Problem]) -> Grounded:
        """``read`` of a stream's merged response, with what the stream lacked (merging's
        ``problems``) after what reading found."""
        grounded = self.read(merged)
        return replace(grounded, problems=[*grounded.problems, *problems])


def read_gemini(
    merger: Merger, options: ReadOptions, *, final: bool, merged: dict[str, Any] | None = None
) -> Grounded:
    """``read`` of the response a Gemini stream's ``merger`` holds, with the stream's
    problems added; before the end (``final=False``), grounding metadata that points past
    the text received so far is left out with a ``stream-grounding-pending`` problem.

    Raises:
        StreamError: no event was merged.
        OffsetError, CitationError: as :func:`read`.
    """
    if not merger.events:
        raise StreamError("the stream holds no response: 0 events")
    merged = merger.merged() if merged is None else merged
    state = merger.candidates.get(options.candidate)
    problems = merger.stream_problems(options.candidate)
    try:
        grounded = options.read(merged)
    except (OffsetError, CitationError):
        if final or state is None or state.grounding is None or state.finish_reason:
            raise
        # Before the candidate finishes, grounding metadata that arrived early may
        # point past the text received so far: leave it for later, and say so.
        candidate = dict(merged["candidates"][options.candidate])
        del candidate["groundingMetadata"]
        partial = dict(merged)
        partial["candidates"] = list(merged["candidates"])
        partial["candidates"][options.candidate] = candidate
        grounded = options.read(partial)
        problems.append(
            Problem(
                "stream-grounding-pending",
                f"the groundingMetadata of event {state.grounding_event} points past "
                "the text received so far; its supports are left out until the "
                "candidate finishes",
                f"{state.path}.grounding_metadata",
            )
        )
    if final:
        problems.extend(merger.incomplete(options.candidate))
    finish = grounded.finish_reason
    if finish is None and state is not None:
        finish = state.finish_reason
    return replace(grounded, problems=[*grounded.problems, *problems], finish_reason=finish)
