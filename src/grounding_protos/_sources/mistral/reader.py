"""Reading Mistral answers, which cite by reference chunks after the text they support.

**Chat Completions** (``/v1/chat/completions``, also ``/v1/agents/completions``): a
``choices[].message.content`` that is a list of chunks (Mistral's API reference and its
SDK's ``TextChunk``, ``ReferenceChunk``, ``ThinkChunk``): ``{"type": "text", "text":
...}`` and ``{"type": "reference", "reference_ids": [0, 2]}``, the ids naming the
references the request gave the model in a tool result (an object keyed by id, each
with ``url``, ``title``, ``snippets``, ...; Mistral's "Citations and References"
guide). A response does not carry those tool results, so each id is a bare source:
``Source(id="0")``; read the chat's messages with the answer last (what the guide
builds) and an id names that entry of the latest ``tool`` message's JSON object.
**Conversations / Agents** (``/v1/conversations``): ``outputs[]`` entries of type
``message.output`` whose ``content`` holds text chunks and ``{"type": "tool_reference",
"tool": "web_search", "title", "url", "favicon", "description"}`` (the SDK's
``ToolReferenceChunk``), each a source with its URL.
A ``content`` that is a string is plain text. Thinking, image and file chunks are not
answer text.

**Which text a reference cites** (the rule chosen here; Mistral documents that a
reference follows the text it supports, not where that text starts): the text chunks
since the previous reference, or since the start of the message. Adjacent references
(nothing but other non-text chunks between them) are one citation with each one's
sources. The span leaves out leading white space and the punctuation that closed the
previous sentence or clause (``.``, ``,``, ``;``, ``:``, ``!``, ``?`` and their
ideographic and fullwidth forms), and trailing white space. A reference with no text
before it (the first chunk, or right after a sentence already cited) cites no span:
its sources are sources of the whole answer. Spans count characters (code points) of
the joined text; they are made here, so ``unit=`` does not apply.

>>> raw = read_chat_completion({"choices": [{"message": {"role": "assistant", "content": [
...     {"type": "text", "text": "Köln liegt am Rhein"}, {"type": "reference",
...     "reference_ids": [0]}, {"type": "text", "text": ". 東京は首都です"},
...     {"type": "reference", "reference_ids": [1, 0]}, {"type": "text", "text": "。"}]}}]}, 0)
>>> [(raw.text[s.start : s.end], [raw.sources[r][1].id for r in s.refs]) for s in raw.spans]
[('Köln liegt am Rhein', ['0']), ('東京は首都です', ['1', '0'])]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from grounding_protos._core.access import get, items
from grounding_protos._core.model import Source, SourceKind
from grounding_protos._core.raw import RawAnswer, RawSpan
from grounding_protos._sources.common import (
    SourceTable,
    chat_choice,
    is_list,
    is_record,
    string,
    wrong_type,
)

_REFERENCES = frozenset({"reference", "tool_reference"})
# what closes the sentence or clause before a span: not part of the cited text
_CLOSING = frozenset(".,;:!?\u3002\u3001\uff0c\uff1b\uff1a\uff01\uff1f")


# --- Recognizing the shapes ----------------------------------------------------------------


def is_chunk_list(content: object) -> bool:
    """A Mistral ``content`` list: one of its elements a ``text`` or ``reference``
    chunk (the others, whatever they are, are the reader's to check)."""
    if not is_list(content):
        return False
    return any(
        is_record(chunk) and string(chunk, "type") in ("text", "reference")
        for chunk in cast("Sequence[object]", content)
    )


def is_chat_completion(obj: object) -> bool:
    """A chat completion whose assistant messages' ``content`` is a list of Mistral
    chunks (a string in some of them is plain text); OpenAI's ``content`` is never a
    list."""
    choices = get(obj, "choices")
    if not is_list(choices) or not choices:
        return False
    listed = False
    for choice in choices:
        message = get(choice, "message") if is_record(choice) else None
        if not is_record(message) or string(message, "role") != "assistant":
            return False
        content = get(message, "content")
        if is_chunk_list(content):
            listed = True
        elif not (content is None or isinstance(content, str)):
            return False
    return listed


def is_conversation(obj: object) -> bool:
    """A Conversations API response: ``outputs`` with a ``message.output`` entry."""
    outputs = get(obj, "outputs")
    if not is_list(outputs) or not outputs:
        return False
    kind = string(obj, "object")
    if kind is not None and kind != "conversation.response":
        return False
    return any(is_record(o) and string(o, "type") == "message.output" for o in outputs)


# --- Reading them ----------------------------------------------------------------------


def read_chat_completion(obj: object, candidate: int) -> RawAnswer:
    """``choices[candidate].message.content``: its chunks, cited by their references."""
    choice = chat_choice(obj, candidate)
    prefix = f"choices[{candidate}].message."
    reader = _Chunks(RawAnswer("none", prefix, unit="char"))
    reader.content(get(get(choice, "message"), "content"), f"{prefix}content")
    raw = reader.done()
    raw.finish_reason = string(choice, "finish_reason")
    return raw


def is_chat_history(obj: object) -> bool:
    """A chat's messages (what a caller sends to ``chat.complete``) ending with the
    answer: a list of records each with a ``role`` string, the last an ``assistant``
    message whose ``content`` is a list of chunks."""
    if not is_list(obj) or not obj:
        return False
    messages = cast("Sequence[object]", obj)
    last = messages[-1]
    return (
        all(is_record(m) and isinstance(string(m, "role"), str) for m in messages)
        and string(last, "role") == "assistant"
        and is_chunk_list(get(last, "content"))
    )


def read_chat_history(obj: object, candidate: int) -> RawAnswer:
    """The last message's chunks; a reference id names the entry of that key in the
    tool results before it (a ``tool`` message whose ``content`` is a JSON object keyed
    by id, Mistral's "Citations and References" guide; the latest wins), else it is a
    bare id."""
    messages = cast("Sequence[object]", obj)
    results: dict[str, Source] = {}
    raw = RawAnswer("none", f"[{len(messages) - 1}].", unit="char")
    for i, message in enumerate(messages[:-1]):
        if string(message, "role") == "tool":
            _tool_result(get(message, "content"), f"[{i}].content", raw, results)
    reader = _Chunks(raw, results)
    reader.content(get(messages[-1], "content"), f"[{len(messages) - 1}].content")
    return reader.done()


def _tool_result(content: object, path: str, raw: RawAnswer, out: dict[str, Source]) -> None:
    """The references of a tool result: a JSON object keyed by id, each entry with
    ``url``, ``title``, ``snippets`` (lists of strings), ``description``, ``date``,
    ``source``. A result that is no such object (another tool's) names none; an entry
    that is no object, or a field of another type, is a ``wrong-type`` problem."""
    if not isinstance(content, str):
        return
    try:
        data = json.loads(content)
    except (ValueError, RecursionError):  # another tool's text; nesting beyond reason
        return
    if not isinstance(data, dict):
        return
    for key, entry in data.items():
        where = f"{path}.{key}"
        if not isinstance(entry, dict):
            wrong_type(raw, where, entry, "a reference object")
            continue
        values = {}
        for name in ("url", "title", "description", "date", "source"):
            value = entry.get(name)
            if value is not None and not isinstance(value, str):
                wrong_type(raw, f"{where}.{name}", value, "a string")
                value = None
            values[name] = value or None
        snippets = _snippets(entry.get("snippets"), f"{where}.snippets", raw)
        url, source = values["url"], values["source"]
        out[str(key)] = Source(
            uri=url, title=values["title"], id=str(key), kind="web" if url else "document",
            text="\n".join(snippets) or values["description"],
            publication_date=values["date"],
            custom_metadata=(("source", source),) if source else (),
        )  # fmt: skip


def _snippets(value: object, path: str, raw: RawAnswer) -> list[str]:
    """A reference's ``snippets``: strings, or lists of strings (the guide's example)."""
    if value is None:
        return []
    if not isinstance(value, list):
        wrong_type(raw, path, value, "a list")
        return []
    out = []
    for k, item in enumerate(value):
        for m, text in enumerate(item if isinstance(item, list) else [item]):
            if isinstance(text, str):
                out.append(text)
            else:
                where = f"{path}[{k}][{m}]" if isinstance(item, list) else f"{path}[{k}]"
                wrong_type(raw, where, text, "a string")
    return out


def read_conversation(obj: object, candidate: int) -> RawAnswer:
    """Every ``message.output`` entry's content, joined, in the order of ``outputs``."""
    reader = _Chunks(RawAnswer("none", "", unit="char"))
    for i, entry in enumerate(items(obj, "outputs")):
        if is_record(entry) and string(entry, "type") == "message.output":
            reader.content(get(entry, "content"), f"outputs[{i}].content")
    return reader.done()


class _Chunks:
    """The chunks of one answer, read in order into ``raw``: the text joined, a span per
    run of references (see the module's rule)."""

    def __init__(self, raw: RawAnswer, results: dict[str, Source] | None = None) -> None:
        raw.offsets = False
        self.raw = raw
        self.results = results or {}  # the tool results' references, by id
        self.table = SourceTable(raw)
        self.texts: list[str] = []
        self.at = 0  # characters of text so far
        self.since = 0  # where the text not yet cited starts
        self.recent: list[str] = []  # the text since then
        self.span: RawSpan | None = None  # the citation the last reference chunk began
        self.any_text = False

    def content(self, content: object, path: str) -> None:
        if content is None:
            return
        if isinstance(content, str):
            self._text(content)
            return
        if not is_list(content):
            wrong_type(self.raw, path, content, "a string or a list of chunks")
            return
        for k, chunk in enumerate(cast("Sequence[object]", content)):
            where = f"{path}[{k}]"
            kind = get(chunk, "type") if is_record(chunk) else None
            if not isinstance(kind, str):
                wrong_type(self.raw, where if kind is None else f"{where}.type",
                           chunk if kind is None else kind,
                           "a chunk object" if kind is None else "a string")  # fmt: skip
                continue
            if kind == "text":
                text = get(chunk, "text")
                if isinstance(text, str):
                    self._text(text)
                else:
                    wrong_type(self.raw, f"{where}.text", text, "a string")
            elif kind in _REFERENCES:
                self._reference(chunk, kind, where)
            # thinking, image, document and file chunks: not answer text, no citation

    def _text(self, text: str) -> None:
        if text:
            self.texts.append(text)
            self.recent.append(text)
            self.at += len(text)
            self.span = None  # the next reference begins another citation
        self.any_text = True

    def _reference(self, chunk: Any, kind: str, path: str) -> None:
        refs = self._ids(chunk, path) if kind == "reference" else self._tool(chunk, path)
        if refs is None:
            return
        if self.span is not None:  # a run of references: one citation
            self.span.refs.extend(r for r in refs if r not in self.span.refs)
            return
        text = "".join(self.recent)
        start, end = _trimmed(text)
        if start >= end:  # no text before it: its sources, in the table, cite no span
            return
        at = self.since
        span = RawSpan(path, at + start, at + end, "citation", segment_text=text[start:end])
        span.refs.extend(dict.fromkeys(refs))
        span.ref_path = ".reference_ids[{}]" if kind == "reference" else ""
        self.raw.spans.append(span)
        self.span = span
        self.since = self.at
        self.recent = []

    def _ids(self, chunk: Any, path: str) -> list[int] | None:
        """The sources a ``reference`` chunk's ``reference_ids`` name (bare ids)."""
        ids = get(chunk, "reference_ids")
        if not is_list(ids):
            wrong_type(self.raw, f"{path}.reference_ids", ids, "a list of ids")
            return None
        refs = []
        for j, value in enumerate(ids):
            where = f"{path}.reference_ids[{j}]"
            if isinstance(value, bool) or not isinstance(value, int):
                wrong_type(self.raw, where, value, "an integer id")
                continue
            refs.append(self.table.ref_of(str(value), self._named, where))
        return refs

    def _named(self, key: str) -> Source:
        """The reference a tool result gave under ``key``, else a bare id."""
        return self.results.get(key) or _bare(key)

    def _tool(self, chunk: Any, path: str) -> list[int] | None:
        """The source a ``tool_reference`` chunk is."""
        values = []
        for name in ("tool", "title", "url", "description"):
            value = get(chunk, name)
            if value is not None and not isinstance(value, str):
                value = getattr(value, "value", value)  # the SDK's BuiltInConnectors enum
            if value is not None and not isinstance(value, str):
                wrong_type(self.raw, f"{path}.{name}", value, "a string")
                value = None
            values.append(value or None)
        return [self.table.ref_of(tuple(values), _tool_source, path)]

    def done(self) -> RawAnswer:
        raw = self.raw
        raw.text = "".join(self.texts) if self.any_text else None
        return raw


def _trimmed(text: str) -> tuple[int, int]:
    """The cited part of ``text``: without leading white space and closing punctuation
    of the sentence before, nor trailing white space.

    >>> _trimmed(". 東京は首都です "), _trimmed(" ,\\n"), _trimmed("Köln")
    ((2, 9), (3, 3), (0, 4))
    """
    start, end = 0, len(text)
    while start < end and (text[start].isspace() or text[start] in _CLOSING):
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _bare(value: str) -> Source:
    return Source(id=value, kind="document")


def _tool_source(values: tuple[str | None, ...]) -> Source:
    tool, title, url, description = values
    kind: SourceKind = "web" if url else "document" if tool == "document_library" else "other"
    metadata = (("tool", tool),) if tool else ()
    return Source(uri=url, title=title, kind=kind, text=description, custom_metadata=metadata)
