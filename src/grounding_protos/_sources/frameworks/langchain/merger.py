"""Merging a stream of LangChain ``AIMessageChunk`` s (``model.stream(...)``) into the
one message it makes, which reads as a whole ``AIMessage``.

The chunks merge by LangChain's own rules for adding chunks: string contents are
concatenated; a list's blocks with the same ``index`` merge (their ``text`` joined,
their lists such as ``annotations`` extended), other items are appended; a string
after a list continues the list's last string. ``response_metadata`` keeps each key's
last value, except ``grounding_metadata``: the last non-empty one wins (Gemini sends it
whole on the last chunk), where LangChain's ``+`` would concatenate the lists of two
copies. langchain-core's ``stream()`` ends with a chunk of ``chunk_position: "last"``;
a stream without one was cut short (``stream-incomplete``).

>>> merged, problems = merge_chunks(enumerate([
...     {"type": "AIMessageChunk", "content": "Grüße ", "response_metadata": {}},
...     {"type": "AIMessageChunk", "content": "aus Köln.", "response_metadata": {},
...      "chunk_position": "last"}], 1))
>>> merged["content"], problems
('Grüße aus Köln.', [])
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from grounding_protos._core.access import get, unwrap
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._sources.common import describe, is_list, string
from grounding_protos._sources.frameworks.langchain.reader import is_message, message_of


def is_chunk(value: object) -> bool:
    """Whether a stream's first chunk is a LangChain ``AIMessageChunk`` (or its dump)."""
    value = message_of(unwrap(value))
    return is_message(value) and string(value, "type") == "AIMessageChunk"


def merge_chunks(events: Iterable[tuple[int, object]]) -> tuple[dict[str, Any], list[Problem]]:
    """The numbered chunks merged into one message (a ``model_dump()``-shaped dict; its
    leaves may be the chunks' own objects, never changed).

    Raises:
        StreamError: a chunk that is not a LangChain AI message chunk.
    """
    content: str | list[Any] = ""
    meta: dict[str, Any] = {}
    last = False
    count = 0
    for number, value in events:
        chunk = message_of(unwrap(value))
        if not is_message(chunk):
            raise StreamError(f"not a LangChain AIMessageChunk: {describe(chunk)}", event=number)
        count += 1
        content = _merge_content(content, get(chunk, "content"))
        for key, item in get(chunk, "response_metadata").items():
            if key == "grounding_metadata" and not item:
                continue
            meta[key] = item
        last = last or string(chunk, "chunk_position") == "last"
    problems = []
    if not last:
        problems.append(
            Problem(
                "stream-incomplete",
                f"the stream ended after {count} chunks without the chunk_position 'last' "
                "that langchain-core's stream() ends with (interrupted?): the text and "
                "citations are those that arrived",
                "chunk_position",
            )
        )
    return {"type": "ai", "content": content, "response_metadata": meta}, problems


def _merge_content(merged: str | list[Any], content: Any) -> str | list[Any]:
    if isinstance(merged, str):
        if isinstance(content, str):
            return merged + content
        if is_list(content):
            return _merge_lists([merged] if merged else [], list(content))
        return merged
    if is_list(content):
        return _merge_lists(merged, list(content))
    if isinstance(content, str) and content:
        if merged and isinstance(merged[-1], str):
            return [*merged[:-1], merged[-1] + content]
        return [*merged, content]
    return merged


def _merge_lists(merged: list[Any], items: list[Any]) -> list[Any]:
    out = list(merged)
    for item in items:
        index = item.get("index") if isinstance(item, Mapping) else None
        if isinstance(index, int) and not isinstance(index, bool):
            at = next((k for k, b in enumerate(out) if _indexed(b, index)), None)
            if at is not None:
                out[at] = _merge_block(out[at], item)
                continue
        out.append(copy.copy(item) if isinstance(item, dict) else item)
    return out


def _indexed(block: object, index: int) -> bool:
    return isinstance(block, Mapping) and block.get("index") == index


def _merge_block(left: Mapping[str, Any], right: Mapping[str, Any]) -> dict[str, Any]:
    block = dict(left)
    for key, value in right.items():
        if key in ("index", "type", "id") or value is None:
            block.setdefault(key, value)
        elif isinstance(value, str) and isinstance(block.get(key), str):
            block[key] = block[key] + value
        elif is_list(value) and is_list(block.get(key)):
            block[key] = [*block[key], *value]
        elif block.get(key) is None:
            block[key] = value
    return block
