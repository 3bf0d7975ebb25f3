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
``search_results`` at the top level, which the merge keeps (the last chunk's), and its
stream ends with a ``chat.completion.done`` event: the whole response again, each choice
with its whole ``message``, which is checked against the deltas' merge (a disagreement is
a ``stream-mismatch`` problem) and then kept, as what the non-streaming API returns.
Mistral's chunks are Chat Completions chunks whose ``delta.content`` may be a list of
chunks (``{"type": "text", "text"}``, ``{"type": "reference", "reference_ids"}``): from
the first such delta on, the choice's content is kept as a list of chunks, each text
piece appended to the text chunk before it, each other chunk as sent.

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

from collections.abc import Iterable, Mapping
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
from grounding_protos._sources.mistral.merger import add_text, built
from grounding_protos._sources.parse import error_text

_SKIPPED = frozenset({"choices", "object", "error"})
_TEXTS = frozenset({"refusal", "reasoning"})  # a delta's text pieces
_DONE = "chat.completion.done"  # Perplexity's last event: the whole response again
# Perplexity's chunks say "chat.completion"; Azure's first chunk (its prompt_filter_results,
# no choices) says "" (with an empty id and model)
_OBJECTS = (None, "chat.completion.chunk", "chat.completion", _DONE, "")


def is_chunk(value: object) -> bool:
    """Whether ``value`` is a chunk of a Chat Completions stream: ``object``
    ``chat.completion.chunk``, ``choices`` whose first has a ``delta``, or Azure's first
    chunk (no ``choices``, a ``prompt_filter_results`` list)."""
    if get(value, "object") == "chat.completion.chunk":
        return True
    choices = get(value, "choices")
    if isinstance(choices, list) and not choices:
        return isinstance(get(value, "prompt_filter_results"), list)
    return (
        isinstance(choices, list) and bool(choices) and isinstance(get(choices[0], "delta"), dict)
    )


class _Choice:
    __slots__ = (
        "annotations", "chunks", "extra", "finish_reason", "index", "message", "pieces", "tools",
    )  # fmt: skip

    def __init__(self, index: int) -> None:
        self.index = index
        self.pieces: list[str] = []
        self.message: dict[str, Any] = {"role": "assistant"}
        self.annotations: list[Any] = []
        self.tools: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.extra: dict[str, Any] = {}
        self.chunks: list[Any] | None = None  # a content of chunks (Mistral), once one came


class ChatMerger:
    """The chunks of one Chat Completions stream, merged choice by choice."""

    def __init__(self) -> None:
        self.top: dict[str, Any] = {}
        self.choices: dict[int, _Choice] = {}
        self.events = 0
        self.problems: list[Problem] = []

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
        done = chunk.get("object") == _DONE
        for position, choice in enumerate(choices):
            if done:
                self._done(number, position, choice)
            else:
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
        content: Any = delta.get("content")
        index = choice.get("index", 0)
        state = self.choices.get(index) if type(index) is int else None
        listed = type(content) is list and len(content) == 1  # one text chunk (Mistral)
        if listed:
            piece = content[0]
            if type(piece) is not dict or piece.get("type") != "text" or len(piece) != 2:
                return False
            content = piece.get("text")
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
        if listed and state.chunks is None:
            _chunks(state, 0, 0, [])  # the choice's content is chunks from now on
        if content:
            if state.chunks is not None:
                add_text(state.chunks, content)
            else:
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
            listed = delta.get("content") if isinstance(delta, Mapping) else None
            if isinstance(listed, list):  # chunks (Mistral): kept as chunks
                content: str | None = _chunks(state, number, position, listed)
            else:
                content = field(delta, "content", str, number=number, at=at)
                if content and state.chunks is not None:
                    add_text(state.chunks, content)
                elif content:
                    state.pieces.append(content)
            if content and texts is not None:
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

    def _done(self, number: int, position: int, choice: object) -> None:
        """A choice of Perplexity's ``chat.completion.done`` event: its whole ``message``,
        checked against the deltas' merge (a disagreement is a ``stream-mismatch``
        problem) and then kept, as what the non-streaming API returns."""
        if not isinstance(choice, dict):
            raise StreamError(f"choices[{position}] is not a JSON object", event=number)
        message = choice.get("message")
        if message is None:  # nothing whole to check: its delta, as any chunk's
            self._choice(number, position, choice, None)
            return
        if not isinstance(message, dict):
            raise StreamError(f"choices[{position}].message is not a JSON object, but "
                              f"{shown(message)}", event=number)  # fmt: skip
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            raise StreamError(f"choices[{position}].message.content is not text, but "
                              f"{shown(content)}", event=number)  # fmt: skip
        self._choice(number, position, {k: v for k, v in choice.items() if k != "delta"}, None)
        state = self.choices[choice.get("index", position)]
        if content is not None:
            if state.pieces and "".join(state.pieces) != content:
                self.problems.append(Problem(
                    "stream-mismatch",
                    f"event {number} ({_DONE}) gives another text than the deltas before it "
                    "add up to; the event's is kept",
                    f"choices[{state.index}].message.content",
                ))  # fmt: skip
            state.pieces = [content] if content else []
        for key, value in message.items():
            if key not in ("content", "role") and value is not None:
                if key == "annotations" and isinstance(value, list):
                    state.annotations = list(value)
                elif key == "tool_calls" and isinstance(value, list):
                    state.tools = dict(enumerate(value))
                else:
                    state.message[key] = value  # kept as sent, never changed

    def merged(self) -> dict[str, Any]:
        """The ``ChatCompletion`` so far."""
        out: dict[str, Any] = {"object": "chat.completion", **self.top}
        choices = []
        for index in sorted(self.choices):
            state = self.choices[index]
            message = dict(state.message)
            message["role"] = "assistant"
            message["content"] = "".join(state.pieces) if state.pieces else None
            if state.chunks is not None:
                message["content"] = built(state.chunks)
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
        problems = self.problems + [
            incomplete(self.events, "a finish_reason", f"choices[{i}].finish_reason")
            for i, state in sorted(self.choices.items())
            if state.finish_reason is None
        ]
        if not self.choices:
            problems.append(incomplete(self.events, "a choice", "choices"))
        return self.merged(), problems


def _chunks(state: _Choice, number: int, position: int, content: list[Any]) -> str:
    """A delta whose ``content`` is a list of chunks (Mistral's ``TextChunk``,
    ``ReferenceChunk``, ...): appended to the choice's chunks, a text chunk's text to the
    text chunk before it; the text it adds. The text that came as strings before it
    becomes the first text chunk."""
    if state.chunks is None:
        state.chunks = [state.pieces] if state.pieces else []  # text: its pieces, joined late
        state.pieces = []
    added = []
    for k, chunk in enumerate(content):
        where = f"choices[{position}].delta.content[{k}]"
        if not isinstance(chunk, dict):
            raise StreamError(f"{where} is not a JSON object, but {shown(chunk)}", event=number)
        if chunk.get("type") == "text":
            text = chunk.get("text")
            if not isinstance(text, str):
                raise StreamError(f"{where}.text is not text, but {shown(text)}", event=number)
            add_text(state.chunks, text)
            added.append(text)
        else:
            state.chunks.append(chunk)  # kept as sent, never changed
    return "".join(added)


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
