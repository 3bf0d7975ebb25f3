"""Merging Gemini Live API server messages, turn by turn.

A Live session (``BidiGenerateContent`` over a WebSocket; google-genai's
``client.aio.live.connect(...)`` and ``session.receive()``) is a stream of
``LiveServerMessage`` s. The model's answers come in ``serverContent`` messages:
``modelTurn.parts`` pieces of the answer, ``groundingMetadata`` and
``urlContextMetadata``, ``outputTranscription`` (what an audio model said), and the
end of a turn: ``generationComplete`` (done generating), ``interrupted`` (the user
spoke over it: the text is what was said until then), ``turnComplete`` (the turn is
over; the model speaks again only after more client input). Other messages
(``setupComplete``, ``toolCallCancellation``, ``usageMetadata``, ``goAway``,
``sessionResumptionUpdate``) say nothing of an answer; a ``toolCall`` is a function
call part of the turn.

**Turns are told apart by ``turnComplete``**: a turn is the messages up to and
including the one with ``turnComplete: true``. One turn's messages merge by the rules
of Gemini streams (``docs/streams.md``: a message's first part continues the last
one when both are text of the same kind; the last non-empty ``groundingMetadata``
wins) into one ``LiveServerMessage``, which reads as that turn's answer
(shape ``live_server_message``). ``citations.TurnReader`` (``_streams.turns``) reads
every turn of a session as it completes; ``citations.read_turns`` the turns of a recorded session.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from grounding_protos._core.access import get, items, unwrap
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._sources.common import describe, enum_name, string
from grounding_protos._sources.google.gemini.merger import Candidate

_LIVE_FIELDS = (
    "setup_complete", "server_content", "tool_call", "tool_call_cancellation", "go_away",
    "session_resumption_update", "voice_activity_detection_signal", "voice_activity",
)  # fmt: skip


def is_message(value: object) -> bool:
    """Whether ``value`` is a ``LiveServerMessage`` (a field only Live messages have,
    and no ``candidates``)."""
    value = unwrap(value)
    if isinstance(value, (str, bytes, bytearray)) or get(value, "candidates") is not None:
        return False
    return any(get(value, name) is not None for name in _LIVE_FIELDS)


def _usage_only(message: object) -> bool:
    """A message of a session with nothing but ``usageMetadata`` (a field Gemini's
    responses have too: it does not start a Live stream, but belongs to one)."""
    return get(message, "usage_metadata") is not None and get(message, "candidates") is None


def answers(message: object) -> bool:
    """Whether a message is part of an answer (content, grounding, a tool call)."""
    content = get(message, "server_content")
    if content is not None and any(
        get(content, n) is not None
        for n in ("model_turn", "grounding_metadata", "url_context_metadata",
                  "output_transcription", "turn_complete", "interrupted")
    ):  # fmt: skip
        return True
    return get(message, "tool_call") is not None


class TurnMerger:
    """The messages of one turn, merged into one ``LiveServerMessage``."""

    def __init__(self) -> None:
        self.candidate = Candidate(0, False)
        self.transcript: list[str] = []
        self.flags: dict[str, Any] = {}
        self.events = 0
        self.first = 0
        self.complete = False

    def add(self, number: int, message: object) -> None:
        """Merge message ``number`` (one of this turn's).

        Raises:
            StreamError: not a Live server message.
        """
        message = unwrap(message)
        if not is_message(message) and not _usage_only(message):
            raise StreamError(f"not a Live server message: {describe(message)}", event=number)
        self.events += 1
        self.first = self.first or number
        content = unwrap(get(message, "server_content"))
        if content is not None:
            turn = get(content, "model_turn")
            self.candidate.add(number, {
                "content": turn if turn is not None else {"parts": []},
                "grounding_metadata": get(content, "grounding_metadata"),
                "url_context_metadata": get(content, "url_context_metadata"),
            })  # fmt: skip
            spoken = string(get(content, "output_transcription"), "text")
            if spoken:
                self.transcript.append(spoken)
            for name in ("generation_complete", "interrupted", "turn_complete"):
                if get(content, name) is True:
                    self.flags[name] = True
            reason = enum_name(content, "turn_complete_reason")
            if reason is not None:
                self.flags["turn_complete_reason"] = reason
            self.complete = self.complete or get(content, "turn_complete") is True
        calls = items(get(message, "tool_call"), "function_calls")
        if calls:
            parts = [{"functionCall": call} for call in calls]
            self.candidate.add(number, {"content": {"parts": parts}})

    def merged(self) -> dict[str, Any]:
        """The turn as one ``LiveServerMessage`` (REST JSON; its leaves may be the
        messages' own objects)."""
        candidate = self.candidate.merged()
        content: dict[str, Any] = {"modelTurn": candidate["content"]}
        for key in ("groundingMetadata", "urlContextMetadata"):
            if key in candidate:
                content[key] = candidate[key]
        if self.transcript:
            content["outputTranscription"] = {"text": "".join(self.transcript)}
        names = {
            "generation_complete": "generationComplete",
            "interrupted": "interrupted",
            "turn_complete": "turnComplete",
            "turn_complete_reason": "turnCompleteReason",
        }
        for name, value in self.flags.items():
            content[names[name]] = value  # fmt: skip
        return {"serverContent": content}

    def problems(self) -> list[Problem]:
        out = list(self.candidate.problems)
        if not self.complete:
            out.append(
                Problem(
                    "stream-incomplete",
                    f"the turn that began with event {self.first} ended after "
                    f"{self.events} messages without turnComplete (interrupted?): the text "
                    "and citations are those that arrived",
                    "server_content.turn_complete",
                )
            )
        return out


def merge_turn(events: Iterable[tuple[int, object]]) -> tuple[dict[str, Any], list[Problem]]:
    """One turn's numbered messages merged (``read_stream`` of a Live turn).

    Raises:
        StreamError: a message of a second turn (read a session with ``read_turns``),
            or one that is not a Live server message.
    """
    merger = TurnMerger()
    ended = 0
    for number, message in events:
        if ended and answers(unwrap(message)):
            raise StreamError(
                f"a second turn starts after the turnComplete of event {ended}: read a Live "
                "session turn by turn with citations.read_turns (or TurnReader)",
                event=number,
            )
        merger.add(number, message)
        if merger.complete and not ended:
            ended = number
    return merger.merged(), merger.problems()


def any_answer(merger: TurnMerger) -> bool:
    return bool(merger.candidate.parts or merger.transcript or merger.candidate.grounding)
