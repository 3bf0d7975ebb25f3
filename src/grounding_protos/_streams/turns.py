"""Gemini Live sessions read turn by turn: :class:`TurnReader` merges each turn's
messages (``_sources.google.live.merger``) and reads the turn when it completes.

>>> reader = TurnReader()
>>> reader.feed({"setupComplete": {}}) is None
True
>>> reader.feed({"serverContent": {"modelTurn": {"parts": [{"text": "Köln "}]}}}) is None
True
>>> turn = reader.feed({"serverContent": {"modelTurn": {"parts": [{"text": "🌉."}]},
...                                       "turnComplete": True}})
>>> turn.text, turn.finish_reason, reader.turns
('Köln 🌉.', 'STOP', 1)
"""

from __future__ import annotations

from grounding_protos._core.access import unwrap
from grounding_protos._core.model import Grounded, SpanPolicy
from grounding_protos._offsets import SpanSnap
from grounding_protos._public import public
from grounding_protos._sources.google.gemini.merger import decode_text
from grounding_protos._sources.google.live.merger import (
    TurnMerger,
    answers,
    any_answer,
    is_message,
)
from grounding_protos._streams.options import ReadOptions


class TurnReader:
    """Every turn of a Live session, as it completes.

    Feed it each message ``session.receive()`` gives (google-genai objects, REST JSON
    dicts or their JSON text); :meth:`feed` returns the turn's :class:`Grounded` when the
    message completes a turn (``turnComplete``), else ``None``. :meth:`finish` gives the
    last turn when the session ended in the middle of one (with ``stream-incomplete``),
    or ``None``. The options are those of ``read``.
    """

    def __init__(
        self,
        *,
        snap: SpanSnap | None = None,
        clamp: bool = False,
        errors: SpanPolicy = "repair",
    ) -> None:
        self._options = ReadOptions(0, None, snap, clamp, errors)
        self._merger = TurnMerger()
        self._number = 0
        self.turns = 0
        """How many turns were read."""

    def feed(self, message: object) -> Grounded | None:
        """Merge one message; the turn it completes, read, or ``None``.

        Raises:
            StreamError: not a Live server message.
        """
        self._number += 1
        if isinstance(message, (str, bytes, bytearray)):
            message = decode_text(self._number, bytes(message) if isinstance(
                message, bytearray) else message)  # fmt: skip
        if not answers(unwrap(message)) and not self._merger.events:
            if not is_message(message):
                self._merger.add(self._number, message)  # raises for what is not Live
            return None  # setupComplete, goAway, ...: no turn
        self._merger.add(self._number, message)
        if not self._merger.complete:
            return None
        return self._turn()

    def finish(self) -> Grounded | None:
        """The turn the session ended in, when it did not complete (else ``None``)."""
        if not self._merger.events or not any_answer(self._merger):
            return None
        return self._turn()

    def _turn(self) -> Grounded:
        merged, problems = self._merger.merged(), self._merger.problems()
        self._merger = TurnMerger()
        self.turns += 1
        return self._options.read_merged(merged, problems)


public("grounding_protos.citations", TurnReader)
