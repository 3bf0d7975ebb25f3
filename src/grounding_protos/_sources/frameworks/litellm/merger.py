"""Merging LiteLLM's stream chunks of a Gemini or Vertex AI model
(``ModelResponseStream``, ``litellm.completion(..., stream=True)``) into the
``ModelResponse`` they make, which reads as a whole LiteLLM response.

LiteLLM's Gemini chunks say they are Gemini's by a ``vertex_ai_grounding_metadata``
field (an empty list until the chunk that carries the grounding, usually the last); a
chunk stream without it is an OpenAI-shaped stream. Each choice's ``delta.content``
pieces are joined; ``finish_reason`` is the last one given; the last non-empty
``vertex_ai_grounding_metadata`` wins. LiteLLM has lost the grounding of streams in
some releases (LiteLLM issues 10237, 14140): a stream whose chunks carry none merges
into an answer without citations, as the chunks say.

>>> merged, problems = merge_chunks(enumerate([
...     {"choices": [{"index": 0, "delta": {"content": "Grüße "}}],
...      "vertex_ai_grounding_metadata": []},
...     {"choices": [{"index": 0, "delta": {"content": "aus Köln."}, "finish_reason": "stop"}],
...      "vertex_ai_grounding_metadata": [{"webSearchQueries": ["Köln"]}]}], 1))
>>> merged["choices"][0]["message"]["content"], len(merged["vertex_ai_grounding_metadata"])
('Grüße aus Köln.', 1)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from grounding_protos._core.access import get, items, unwrap
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._sources.common import describe, is_list
from grounding_protos._sources.frameworks.litellm.reader import FIELD, grounding_entries
from grounding_protos._sources.merging import field, index_of


def is_chunk(value: object) -> bool:
    """A LiteLLM chunk of a Gemini model: ``choices`` with a ``delta``, and the
    ``vertex_ai_grounding_metadata`` field (itself or in ``_hidden_params``)."""
    value = unwrap(value)
    if isinstance(value, (str, bytes, bytearray)):
        return False
    choices = get(value, "choices")
    if not is_list(choices) or not any(get(c, "delta") is not None for c in choices):
        return False
    hidden = get(value, "_hidden_params") or getattr(value, "_hidden_params", None)
    return is_list(get(value, FIELD)) or is_list(get(hidden, FIELD))


def merge_chunks(events: Iterable[tuple[int, object]]) -> tuple[dict[str, Any], list[Problem]]:
    """The numbered chunks merged into one ``ModelResponse`` (REST-shaped dict).

    Raises:
        StreamError: a chunk that is not a LiteLLM chat completion chunk.
    """
    texts: dict[int, list[str]] = {}
    reasons: dict[int, str] = {}
    grounding: list[object] = []
    count = 0
    for number, value in events:
        chunk = unwrap(value)
        if not is_list(get(chunk, "choices")):
            raise StreamError(f"not a LiteLLM stream chunk: {describe(chunk)}", event=number)
        count += 1
        for position, choice in enumerate(items(chunk, "choices")):
            at = f"choices[{position}]"
            index = index_of(choice, "index", number=number, at=at, default=position)
            assert index is not None
            content = field(choice, "delta.content", str, number=number, at=at)
            pieces = texts.setdefault(index, [])
            if content is not None:
                pieces.append(content)
            reason = field(choice, "finish_reason", str, number=number, at=at)
            if reason:
                reasons[index] = reason
        entries = grounding_entries(chunk)
        if entries:
            grounding = entries
    choices = [
        {"index": i, "message": {"role": "assistant", "content": "".join(texts[i])},
         "finish_reason": reasons.get(i)}
        for i in sorted(texts)
    ]  # fmt: skip
    problems = [
        Problem(
            "stream-incomplete",
            f"choice {i} has no finish_reason after {count} chunks (interrupted?): the text "
            "and citations are those that arrived",
            f"choices[{position}].finish_reason",
        )
        for position, i in enumerate(sorted(texts))
        if i not in reasons
    ]
    return {"object": "chat.completion", "choices": choices, FIELD: grounding}, problems
