"""Reading Cohere v2 chat responses.

``{"message": {"role": "assistant", "content": [{"type": "text", "text": …}],
"citations": [{start, end, text, sources, content_index, type}]}, "finish_reason"}``.
``start``/``end`` count code points of the content item ``content_index`` (Cohere's
own SDKs slice the text with them; recordings agree) and ``text`` is the cited text,
so a span whose offsets disagree with it is re-anchored on it (the span policy).
Citations of type ``PLAN`` or ``THINKING_CONTENT`` cite the tool plan or the
thinking, not the answer text, and are not read. Sources are ``document`` (its
``document`` fields: ``id``, ``title``, ``url``, ``snippet``/``text``) or ``tool``
(``tool_output``).

>>> raw = read_chat({"finish_reason": "COMPLETE", "message": {"role": "assistant",
...     "content": [{"type": "text", "text": "Zürich liegt am See."}],
...     "citations": [{"start": 0, "end": 6, "text": "Zürich", "sources": [{"type": "document",
...      "id": "doc:0", "document": {"title": "Zürichsee"}}]}]}}, 0)
>>> raw.spans[0].segment_text, raw.sources[0][1].title
('Zürich', 'Zürichsee')
"""

from __future__ import annotations

from typing import Any

from grounding_protos._core.access import fields, get, items, text_or_none
from grounding_protos._core.model import Source
from grounding_protos._core.raw import RawAnswer, RawPart, RawSpan
from grounding_protos._sources.common import (
    SourceTable,
    is_list,
    is_record,
    lists_or_absent,
    metadata_pairs,
    string,
)

_ANSWER_CITATIONS = (None, "TEXT_CONTENT")


def is_chat(obj: object) -> bool:
    """A v2 ``ChatResponse``: an assistant ``message`` whose ``content`` is a list (or,
    for a response that only calls tools, absent with ``tool_calls``)."""
    message = get(obj, "message")
    if not is_record(message) or string(message, "role") != "assistant":
        return False
    content = get(message, "content")
    if not lists_or_absent(message, "citations", "tool_calls"):
        return False
    return is_list(content) or (content is None and is_list(get(message, "tool_calls")))


def read_chat(obj: object, candidate: int) -> RawAnswer:
    """The text content items joined; citations relative to their ``content_index``."""
    message = get(obj, "message")
    raw = RawAnswer("none", "message.", unit="char")
    table = SourceTable(raw)
    parts = []
    for i, item in enumerate(items(message, "content")):
        kind = string(item, "type")
        if kind == "text":
            parts.append(RawPart(i, string(item, "text") or "", False))
        else:
            parts.append(RawPart(i, string(item, "thinking"), kind == "thinking"))
    raw.parts = parts
    texts = [p.text for p in parts if p.text is not None and not p.thought]
    raw.text = "".join(texts) if texts else None
    for i, citation in enumerate(items(message, "citations")):
        if string(citation, "type") not in _ANSWER_CITATIONS:
            continue
        path = f"message.citations[{i}]"
        span = RawSpan(
            path, get(citation, "start"), get(citation, "end"), "citation",
            part=get(citation, "content_index"), part_relative=True,
            segment_text=get(citation, "text"), names=("start", "end", "content_index"),
        )  # fmt: skip
        for j, source in enumerate(items(citation, "sources")):
            span.refs.append(table.ref_of(_values(source), _source, f"{path}.sources[{j}]"))
        raw.spans.append(span)
    raw.finish_reason = string(obj, "finish_reason")
    return raw


def _values(source: object) -> tuple[Any, ...]:
    """What a citation source's :class:`Source` is made of (hashable)."""
    ident = text_or_none(get(source, "id"))
    if string(source, "type") == "tool":
        return ("tool", ident, metadata_pairs(get(source, "tool_output")))
    document = get(source, "document")
    uri, title, name, snippet, text = fields(document, "url", "title", "id", "snippet", "text")
    text = text_or_none(snippet) or text_or_none(text)
    return ("document", ident, text_or_none(uri), text_or_none(title), text_or_none(name), text)


def _source(values: tuple[Any, ...]) -> Source:
    if values[0] == "tool":
        return Source(id=values[1], kind="other", custom_metadata=values[2])
    _, ident, uri, title, name, text = values
    return Source(uri=uri, title=title, id=ident, document=name, kind="document", text=text)
