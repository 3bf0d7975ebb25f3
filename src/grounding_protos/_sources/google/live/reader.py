"""Reading Gemini Live API server messages (``BidiGenerateContent``, google-genai's
``client.aio.live``): a ``LiveServerMessage`` with ``serverContent``, or a whole turn
merged into one (``_sources.google.live.merger``).

``serverContent`` holds ``modelTurn`` (a ``Content``: its ``parts``),
``groundingMetadata``, ``urlContextMetadata``, and the flags that end a turn:
``generationComplete`` (the model is done generating), ``interrupted`` (the user
spoke over it), ``turnComplete`` (the turn is over; with ``turnCompleteReason``).
It reads as a Gemini candidate: the answer is ``modelTurn``'s text parts joined
(thought parts skipped), and ``partIndex``, offsets and grounding chunks mean what
they mean in ``generateContent``. A turn of an audio model has no text parts: its
answer text is then ``outputTranscription``, the transcript of what it said.
``Grounded.finish_reason`` is the ``turnCompleteReason`` (``"STOP"`` for a
``turnComplete`` without one, ``"INTERRUPTED"`` for an interrupted turn).

>>> raw = read_live_message({"serverContent": {
...     "modelTurn": {"parts": [{"text": "Köln 🌉."}]}, "turnComplete": True}}, 0)
>>> raw.text, raw.finish_reason, raw.prefix
('Köln 🌉.', 'STOP', 'server_content.')
"""

from __future__ import annotations

from grounding_protos._core.access import get, unwrap
from grounding_protos._core.raw import RawAnswer, RawPart
from grounding_protos._sources.common import enum_name, is_record, string
from grounding_protos._sources.google.gemini.reader import read_candidate

CONTENT_FIELDS = (
    "model_turn", "grounding_metadata", "url_context_metadata", "turn_complete",
    "generation_complete", "interrupted", "output_transcription",
)  # fmt: skip


def is_live_message(obj: object) -> bool:
    """A ``LiveServerMessage`` whose ``serverContent`` says something of the answer
    (a model turn, grounding, the end of a turn)."""
    content = unwrap(get(obj, "server_content"))
    return is_record(content) and any(get(content, n) is not None for n in CONTENT_FIELDS)


def read_live_message(obj: object, candidate: int) -> RawAnswer:
    content = unwrap(get(obj, "server_content"))
    turn = get(content, "model_turn")
    reason = enum_name(content, "turn_complete_reason")
    if reason is None and get(content, "interrupted") is True:
        reason = "INTERRUPTED"
    if reason is None and get(content, "turn_complete") is True:
        reason = "STOP"
    raw = read_candidate(
        {
            "content": turn if turn is not None else {"parts": []},
            "grounding_metadata": get(content, "grounding_metadata"),
            "url_context_metadata": get(content, "url_context_metadata"),
        },
        "server_content.",
    )
    if raw.text is None:  # an audio model's turn: what it said, as transcribed
        spoken = string(get(content, "output_transcription"), "text")
        if spoken:
            raw.text = spoken
            raw.parts = [*(raw.parts or ()), RawPart(len(raw.parts or ()), spoken, False)]
    raw.finish_reason = reason
    return raw
