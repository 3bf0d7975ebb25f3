"""Merging a Chat Completions stream (``stream=True``) into its final ``ChatCompletion``.

Each event is a ``chat.completion.chunk``: top-level ``id``, ``model``, ``created``
(and ``usage`` in a last chunk whose ``choices`` is empty, with
``stream_options.include_usage``), and ``choices[]`` of ``{index, delta,
finish_reason}``, where ``delta`` holds ``role``, ``content`` (text to append),
``annotations`` (``url_citation``\\ s, whose offsets count the whole content), ``refusal``
and ``tool_calls`` (``index``, then ``id``, ``function.name`` and pieces of
``function.arguments``). The SSE stream ends with ``data: [DONE]``. OpenRouter sends the
same chunks, with ``: OPENROUTER PROCESSING`` comment lines while it waits, and reports
an error that happens mid-stream as a chunk with a top-level ``error`` (a
:class:`StreamError`); Perplexity's chunks carry ``citations`` and
``search_results`` at the top level, which the merge keeps (the last chunk's).

A choice without a ``finish_reason`` when the stream ends is ``stream-incomplete``.

>>> merged, problems = merge_chat_chunks([
...     {"object": "chat.completion.chunk", "id": "c1", "choices": [
...         {"index": 0, "delta": {"role": "assistant", "content": "Grüße "}}]},
...     {"object": "chat.completion.chunk", "id": "c1", "choices": [
...         {"index": 0, "delta": {"content": "aus Köln."}, "finish_reason": "stop"}]},
... ])
>>> merged["choices"][0]["message"], problems
({'role': 'assistant', 'content': 'Grüße aus Köln.'}, [])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from grounding_protos._core.access import get
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._quote import shown
from grounding_protos._sources.merging import (
    field,
    incomplete,
    index_of,
    items_of,
    merge_with,
    plain,
)
from grounding_protos._sources.parse import error_text

_SKIPPED = frozenset({"choices", "object", "error"})
_TEXTS = frozenset({"refusal", "reasoning"})  # a delta's text pieces
_OBJECTS = (None, "chat.completion.chunk", "chat.completion")  # Perplexity's say the latter


def is_chunk(value: object) -> bool:
    """Whether ``value`` is a chunk of a Chat Completions stream: ``object``
    ``chat.completion.chunk``, or ``choices`` whose first has a ``delta``."""
    if get(value, "object") == "chat.completion.chunk":
        return True
    choices = get(value, "choices")
    return (
        isinstance(choices, list) and bool(choices) and isinstance(get(choices[0], "delta"), dict)
    )


class _Choice:
    __slots__ = ("annotations", "extra", "finish_reason", "index", "message", "pieces", "tools")

    def __init__(self, index: int) -> None:
        self.index = index
        self.pieces: list[str] = []
        self.message: dict[str, Any] = {"role": "assistant"}
        self.annotations: list[Any] = []
        self.tools: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.extra: dict[str, Any] = {}


class ChatMerger:
    """The chunks of one Chat Completions stream, merged choice by choice."""

    def __init__(self) -> None:
        self.top: dict[str, Any] = {}
        self.choices: dict[int, _Choice] = {}
        self.events = 0

    def add(self, number: int, event: object, texts: dict[int, str] | None = None) -> None:
        """Merge chunk ``number``; the text it adds goes to ``texts`` by choice index.

        Raises:
            StreamError: an error chunk, or a chunk that is not a Chat Completions one.
        """
        self.events = number
        if type(event) is dict and self._text_chunk(event, texts):
            return  # the common chunk: one piece of one known choice's text
        chunk = plain(event)
        if not isinstance(chunk, dict):
            raise StreamError(f"a chat completion chunk is a JSON object, not "
                              f"{type(chunk).__name__}", event=number)  # fmt: skip
        if chunk.get("error") is not None:
            raise StreamError(
                f"the stream reports an error: {error_text(chunk['error'])}", event=number
            )
        choices = chunk.get("choices")
        if not isinstance(choices, list) or chunk.get("object") not in _OBJECTS:
            raise StreamError(
                "not a chunk of a Chat Completions stream: a JSON object with keys {"
                + ", ".join(sorted(map(str, chunk))[:8])
                + "}",
                event=number,
            )
        for key, value in chunk.items():
            if key not in _SKIPPED and value is not None:
                self.top[key] = value
        for position, choice in enumerate(choices):
            self._choice(number, position, choice, texts)

    def _text_chunk(self, chunk: dict[str, Any], texts: dict[int, str] | None) -> bool:
        """A chunk whose one choice (already seen, not finished) adds only text and whose
        other fields repeat what the merge holds, merged without the general code;
        ``False`` for any other chunk."""
        choices = chunk.get("choices")
        if type(choices) is not list or len(choices) != 1 or chunk.get("object") not in _OBJECTS:
            return False
        choice = choices[0]
        if type(choice) is not dict or choice.get("finish_reason") is not None:
            return False
        delta = choice.get("delta")
        if type(delta) is not dict or len(delta) != 1:
            return False
        content = delta.get("content")
        index = choice.get("index", 0)
        state = self.choices.get(index) if type(index) is int else None
        if type(content) is not str or state is None:
            return False
        top = self.top
        for key, value in chunk.items():
            if (
                key != "choices"
                and key != "object"
                and (value is not None and top.get(key) != value)
            ):
                return False
        for key in choice:
            if key not in ("index", "delta", "finish_reason", "logprobs") or (
                key == "logprobs" and choice[key] is not None
            ):
                return False
        if content:
            state.pieces.append(content)
            if texts is not None:
                texts[index] = texts.get(index, "") + content
        return True

    def _choice(self, number: int, position: int, choice: object, texts: dict[int, str] | None
                ) -> None:  # fmt: skip
        if not isinstance(choice, dict):
            raise StreamError(f"choices[{position}] is not a JSON object", event=number)
        index = choice.get("index", position)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < 1 << 16:
            raise StreamError(f"choices[{position}].index {shown(index)} is not an index",
                              event=number)  # fmt: skip
        state = self.choices.get(index)
        if state is None:
            state = self.choices[index] = _Choice(index)
        at = f"choices[{position}]"
        delta = field(choice, "delta", dict, number=number, at=at)
        if delta is not None:
            at = f"{at}.delta"
            content = field(delta, "content", str, number=number, at=at)
            if content:
                state.pieces.append(content)
                if texts is not None:
                    texts[index] = texts.get(index, "") + content
            # kept as sent, never changed
            state.annotations.extend(items_of(delta, "annotations", number=number, at=at))
            for k, call in enumerate(items_of(delta, "tool_calls", number=number, at=at)):
                _tool_call(number, f"{at}.tool_calls[{k}]", state, call)
            for key, value in delta.items():
                if key in ("content", "annotations", "tool_calls") or value is None:
                    continue
                if key in _TEXTS:
                    piece = field(delta, key, str, number=number, at=at)
                    state.message[key] = (state.message.get(key) or "") + (piece or "")
                elif key == "role":
                    state.message[key] = field(delta, key, str, number=number, at=at)
                else:
                    state.message[key] = value  # kept as sent, never changed
        reason = field(choice, "finish_reason", str, number=number, at=f"choices[{position}]")
        if reason is not None:
            state.finish_reason = reason
        for key in ("logprobs", "native_finish_reason"):
            if choice.get(key) is not None:
                state.extra[key] = choice[key]

    def merged(self) -> dict[str, Any]:
        """The ``ChatCompletion`` so far."""
        out: dict[str, Any] = {"object": "chat.completion", **self.top}
        choices = []
        for index in sorted(self.choices):
            state = self.choices[index]
            message = dict(state.message)
            message["role"] = "assistant"
            message["content"] = "".join(state.pieces) if state.pieces else None
            if state.annotations:
                message["annotations"] = state.annotations
            if state.tools:
                message["tool_calls"] = [state.tools[i] for i in sorted(state.tools)]
            choices.append({"index": index, "message": message,
                            "finish_reason": state.finish_reason, **state.extra})  # fmt: skip
        out["choices"] = choices
        return out

    def finished(self, candidate: int) -> bool:
        state = self.choices.get(candidate)
        return state is not None and state.finish_reason is not None

    def result(self) -> tuple[dict[str, Any], list[Problem]]:
        problems = [
            incomplete(self.events, "a finish_reason", f"choices[{i}].finish_reason")
            for i, state in sorted(self.choices.items())
            if state.finish_reason is None
        ]
        if not self.choices:
            problems.append(incomplete(self.events, "a choice", "choices"))
        return self.merged(), problems


def _tool_call(number: int, at: str, state: _Choice, call: object) -> None:
    if not isinstance(call, dict):
        raise StreamError(f"{at} is not an object: {shown(call)}", event=number)
    index = index_of(call, "index", number=number, at=at, default=len(state.tools))
    assert index is not None
    tool = state.tools.setdefault(index, {})
    for key, value in call.items():
        if key == "index" or value is None:
            continue
        if key == "function":
            function = tool.setdefault("function", {})
            for name in field(call, "function", dict, number=number, at=at) or {}:
                part = field(value, name, str, number=number, at=f"{at}.function")
                if name == "arguments":  # pieces of the arguments' JSON text
                    function["arguments"] = (function.get("arguments") or "") + (part or "")
                elif part is not None:
                    function[name] = part
        else:
            tool[key] = value


def merge_chat_chunks(chunks: Iterable[object]) -> tuple[object, list[Problem]]:
    """The ``ChatCompletion`` a stream's chunks add up to, and what merging found."""
    return merge_chat(enumerate(chunks, 1))


merge_chat = merge_with(ChatMerger)
""":func:`merge_chat_chunks` of chunks numbered by the stream reader."""
