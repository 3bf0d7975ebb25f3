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

from collections.abc import Iterable, Mapping
from typing import Any, cast

from grounding_protos._core.access import get, unwrap
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._quote import shown
from grounding_protos._sources.common import describe, is_list, string
from grounding_protos._sources.frameworks.langchain.reader import (
    MESSAGE_TYPES,
    is_message,
    message_of,
)
from grounding_protos._sources.merging import Pieces, field, json_kind


def is_chunk(value: object) -> bool:
    """Whether a stream's first chunk is a LangChain ``AIMessageChunk`` (or its dump)."""
    value = message_of(unwrap(value))
    return is_message(value) and string(value, "type") == "AIMessageChunk"


def merge_chunks(events: Iterable[tuple[int, object]]) -> tuple[dict[str, Any], list[Problem]]:
    """The numbered chunks merged into one message (a ``model_dump()``-shaped dict; its
    leaves may be the chunks' own objects, never changed). The texts are joined once, at
    the end: the work is linear in the chunks.

    Raises:
        StreamError: a chunk that is not a LangChain AI message chunk, or whose blocks
            do not merge (a block's field of another JSON type than before).
    """
    content = _Content()
    meta: dict[str, Any] = {}
    last = False
    count = 0
    for number, value in events:
        plain = _plain_chunk(value)
        chunk = value if plain else message_of(unwrap(value))
        if not plain and not is_message(chunk):
            raise StreamError(f"not a LangChain AIMessageChunk: {describe(chunk)}", event=number)
        count += 1
        content.add(number, get(chunk, "content"))
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
    return {"type": "ai", "content": content.merged(), "response_metadata": meta}, problems


_CHUNK_TYPES = tuple(MESSAGE_TYPES)  # compared with ==: a hostile type may be unhashable


def _plain_chunk(value: object) -> bool:
    """A chunk's ``model_dump()`` as is: a dict that :func:`is_message` accepts, told
    without its general field access (the common case)."""
    return (
        type(value) is dict
        and value.get("type") in _CHUNK_TYPES
        and type(value.get("response_metadata")) is dict
        and type(value.get("content")) in (str, list)
    )


class _Block(dict[str, Any]):
    """A block (or a dict inside one) built by the merge, its strings as :class:`Pieces`."""


_TEXTS = ("text", "thinking", "reasoning")  # a block's text fields: strings
_KEPT = frozenset({"index", "type", "id"})  # the first value stays
_MAX_DEPTH = 32


class _Content:
    """A message's content as LangChain adds chunks: a string, or a list of strings and
    blocks, where blocks of the same ``index`` merge."""

    def __init__(self) -> None:
        self.text = Pieces()
        self.items: list[Any] | None = None  # a list content: Pieces (strings), blocks
        self.at: dict[int, int] = {}  # a block's index -> its place in items

    def add(self, number: int, content: object) -> None:
        if isinstance(content, str):
            if self.items is None:
                self.text.append(content)
            elif content:  # a string after a list continues the list's last string
                if self.items and isinstance(self.items[-1], Pieces):
                    self.items[-1].append(content)
                else:
                    self.items.append(Pieces([content]))
            return
        if self.items is None:
            self.items = [Pieces(["".join(self.text)])] if any(self.text) else []
        blocks: list[Any] = list(cast("list[Any]", content)) if is_list(content) else []
        for k, item in enumerate(blocks):
            self._item(number, f"content[{k}]", item)

    def _item(self, number: int, at: str, item: object) -> None:
        assert self.items is not None
        if not isinstance(item, Mapping):
            self.items.append(Pieces([item]) if isinstance(item, str) else item)
            return
        for name in _TEXTS:
            if name in item and type(item[name]) is not str:
                field(item, name, str, number=number, at=at)
        index = item.get("index")
        if isinstance(index, int) and not isinstance(index, bool):
            place = self.at.get(index)
            if place is not None:
                block = self.items[place]
                if not isinstance(block, _Block):  # merged into: a block of the merge's own
                    block = self.items[place] = _merge(number, at, _Block(), block, 0)
                _merge(number, at, block, item, 0)
                return
            self.at[index] = len(self.items)
        self.items.append(item)  # the chunk's own block, copied only when merged into

    def merged(self) -> str | list[Any]:
        if self.items is None:
            return "".join(self.text)
        return [_joined(item) for item in self.items]


def _merge(number: int, at: str, block: _Block, right: Mapping[str, Any], depth: int) -> _Block:
    """``right`` merged into ``block`` by LangChain's rules for merging dicts: strings
    concatenated, lists extended, dicts merged, integers added, equal values kept; a
    value of another type than the one before is a :class:`StreamError`."""
    if depth > _MAX_DEPTH:
        raise StreamError(f"{at} nests too deeply to merge", event=number)
    for key, value in right.items():
        current = block.get(key)
        if type(current) is Pieces and type(value) is str:  # the common case: more text
            current.append(value)
            continue
        where = f"{at}.{key}"
        if value is None or (depth == 0 and key in _KEPT):  # the first value stays
            if current is None:
                block[key] = value
        elif current is None:
            block[key] = _own(number, where, value, depth)
        elif isinstance(current, Pieces) and isinstance(value, str):
            current.append(value)
        elif isinstance(current, list) and not isinstance(current, Pieces) and is_list(value):
            current.extend(value)
        elif isinstance(current, _Block) and isinstance(value, Mapping):
            _merge(number, where, current, value, depth + 1)
        elif _same_type(current, value) and current == value:
            continue
        elif type(current) is int and type(value) is int:
            block[key] = current + value
        else:
            raise StreamError(
                f"{where} is {json_kind(value)} ({shown(value)}), where an earlier chunk "
                f"gave {json_kind(_joined(current))}: the chunks do not merge",
                event=number,
            )
    return block


def _same_type(a: object, b: object) -> bool:
    return type(a) is type(b)


def _own(number: int, at: str, value: object, depth: int) -> object:
    """A value the merge may add to: a string as pieces, a list copied, a dict as a
    block of its own values."""
    if type(value) is str or isinstance(value, str):
        return Pieces([value])
    if type(value) is list or is_list(value):
        return list(value)  # type: ignore[call-overload]
    if isinstance(value, Mapping):
        return _merge(number, at, _Block(), value, depth + 1)
    return value


def _joined(value: object) -> object:
    """A merged value with its pieces joined (only what the merge built is walked)."""
    if isinstance(value, Pieces):
        return "".join(value)
    if isinstance(value, _Block):
        return {k: _joined(v) for k, v in value.items()}
    return value
