"""Merging a stream of ``GenerateGroundedContentResponse`` messages
(``GroundedGenerationService.StreamGenerateGroundedContent``) into one response.

The service's proto gives the stream's messages the type of the unary response and
documents nothing else about them. The rules here are those of Gemini streams, whose
responses have the same layout (``docs/streams.md``): per candidate (by ``index``,
else position) the text of the parts is joined in order, the last non-empty
``groundingMetadata`` and the last ``groundingScore`` are kept. The claims are then
placed by their text in the whole merged answer, so where the stream cut the text
does not matter. A stream is recognized as one of these when its first message shows
what only grounded generation has (``groundingScore``, ``groundingSupport``,
``supportChunks``); a first message of text alone reads as a ``generateContent``
stream would.

>>> merged, problems = merge_grounded_chunks([
...     (1, {"candidates": [{"content": {"parts": [{"text": "Köln 🌉 "}]},
...                          "groundingScore": 0.1}]}),
...     (2, {"candidates": [{"content": {"parts": [{"text": "am Rhein."}]},
...                          "groundingScore": 0.9}]}),
... ])
>>> merged["candidates"][0]["content"]["parts"], merged["candidates"][0]["groundingScore"]
([{'text': 'Köln 🌉 am Rhein.'}], 0.9)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from grounding_protos._core.access import get, unwrap
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._sources.common import describe
from grounding_protos._sources.google.grounded_generation.reader import is_response
from grounding_protos._sources.merging import field, index_of, items_of


def is_chunk(value: object) -> bool:
    value = unwrap(value)
    return not isinstance(value, (str, bytes, bytearray)) and is_response(value)


def _json(value: object) -> Any:
    value = unwrap(value)
    if isinstance(value, Message):
        return json_format.MessageToDict(value)
    dump = getattr(value, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else value


def merge_grounded_chunks(
    events: Iterable[tuple[int, object]],
) -> tuple[dict[str, Any], list[Problem]]:
    """The ``GenerateGroundedContentResponse`` a stream's numbered messages add up to.

    Raises:
        StreamError: a message that is not a ``GenerateGroundedContentResponse``.
    """
    texts: dict[int, list[str]] = {}
    candidates: dict[int, dict[str, Any]] = {}
    for number, chunk in events:
        value = _json(chunk)
        listed = get(value, "candidates") if isinstance(value, Mapping) else None
        if not isinstance(listed, list):
            raise StreamError(
                f"not a grounded generation response: {describe(value)}", event=number
            )
        for position, candidate in enumerate(listed):
            if not isinstance(candidate, Mapping):
                raise StreamError(f"candidate {position} is not an object", event=number)
            at = f"candidates[{position}]"
            index = index_of(candidate, "index", number=number, at=at, default=position)
            assert index is not None
            state = candidates.setdefault(index, {"index": index})
            pieces = texts.setdefault(index, [])
            for k, part in enumerate(items_of(candidate, "content.parts", number=number, at=at)):
                text = field(part, "text", str, number=number, at=f"{at}.content.parts[{k}]")
                if text is not None:
                    pieces.append(text)
            for key, item in candidate.items():
                if key not in ("content", "index") and item not in (None, "", [], {}):
                    state[key] = item
    merged = []
    for index in sorted(candidates):
        candidate = dict(candidates[index])
        candidate["content"] = {"role": "model", "parts": [{"text": "".join(texts[index])}]}
        merged.append(candidate)
    return {"candidates": merged}, []
