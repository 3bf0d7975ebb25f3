"""Reading LiteLLM's ``ModelResponse`` of a Gemini or Vertex AI model.

LiteLLM turns a Gemini response into an OpenAI chat completion: the answer's text parts
joined into ``choices[i].message.content`` (thought parts into ``reasoning_content``),
and Gemini's raw ``groundingMetadata`` kept in ``vertex_ai_grounding_metadata`` (also in
``_hidden_params``), one entry per candidate that has one. Its
``message.annotations`` copy Gemini's UTF-8 *byte* offsets unchanged into OpenAI's
``url_citation`` fields, which count characters: they are never read. A response
without ``vertex_ai_grounding_metadata`` is what LiteLLM passed through from an
OpenAI-shaped API, and reads as an OpenAI chat completion (another reader).

The supports' offsets count the answer's text parts joined, which is ``content``, so
they are placed by their offsets. A support with a ``partIndex`` above 0 counts within
a part whose boundaries LiteLLM's joined string no longer shows: it is placed where its
``segment.text`` occurs (once, or it is a problem), and each such placement is recorded
(``placed-by-text``).

>>> raw = read_response({"choices": [{"message": {"content": "Grüße aus Köln."}}],
...     "vertex_ai_grounding_metadata": [{"groundingChunks": [{"web": {"uri": "https://k"}}],
...         "groundingSupports": [{"segment": {"startIndex": 12, "endIndex": 17},
...             "groundingChunkIndices": [0]}]}]}, 0)
>>> raw.text, raw.unit, raw.spans[0].start
('Grüße aus Köln.', 'byte', 12)
"""

from __future__ import annotations

from grounding_protos._core.access import get, items, unwrap
from grounding_protos._core.model import Problem
from grounding_protos._core.raw import RawAnswer, RawPart
from grounding_protos._exceptions import UnsupportedInputError
from grounding_protos._sources.common import is_list, is_record, string
from grounding_protos._sources.google.gemini import reader as gemini

FIELD = "vertex_ai_grounding_metadata"


def grounding_entries(obj: object) -> list[object]:
    """The ``vertex_ai_grounding_metadata`` entries of a LiteLLM response (or its
    ``_hidden_params``), ``[]`` when it has none."""
    entries = get(obj, FIELD)
    if not is_list(entries) or not entries:
        hidden = get(obj, "_hidden_params")
        if hidden is None:
            hidden = getattr(obj, "_hidden_params", None)
        entries = get(hidden, FIELD)
    return list(entries) if is_list(entries) else []


def is_response(obj: object) -> bool:
    """A chat completion (``choices`` a list of records) with Gemini grounding metadata."""
    choices = get(obj, "choices")
    if not is_list(choices) or not choices or not all(map(is_record, choices)):
        return False
    return any(map(is_record, grounding_entries(obj)))


def read_response(obj: object, candidate: int) -> RawAnswer:
    """``choices[candidate]``'s content, with the candidate's Gemini grounding metadata."""
    choices = items(obj, "choices")
    if not 0 <= candidate < len(choices):
        raise UnsupportedInputError(
            f"the response has {len(choices)} choices; candidate={candidate} is out of range"
        )
    prefix = f"choices[{candidate}].message."
    message = unwrap(get(choices[candidate], "message"))
    if message is None:
        message = unwrap(get(choices[candidate], "delta"))  # a merged stream chunk
    raw = RawAnswer("candidate", prefix)
    content = get(message, "content")
    raw.text = content if isinstance(content, str) else None
    if raw.text is not None:
        raw.parts = [RawPart(0, raw.text, False)]
    raw.finish_reason = string(choices[candidate], "finish_reason")
    entries = grounding_entries(obj)
    if len(entries) != len(choices):
        raw.notes.append(
            Problem(
                "grounding-unassigned",
                f"{FIELD} has {len(entries)} entries for {len(choices)} choices: LiteLLM "
                "keeps one per candidate that has grounding, so which choice each belongs "
                "to is unknown; no grounding was read",
                FIELD,
            )
        )
        return raw
    meta = unwrap(entries[candidate])
    if not is_record(meta):
        return raw
    gemini.read_grounding_metadata(meta, f"{FIELD}[{candidate}].", raw)
    for span in raw.spans:
        part = span.part
        if part is None or part == 0 or part == "0":
            continue  # offsets into the joined text, or into its first part
        span.anchor = True
        raw.notes.append(
            Problem(
                "placed-by-text",
                f"part_index {part}: LiteLLM joined the answer's parts into one string, so "
                "the part's start is unknown; the span is placed where its segment.text "
                "occurs",
                f"{span.offsets_path}.part_index",
            )
        )
    return raw
