"""Reading Anthropic Messages responses.

A response is ``{"type": "message", "role": "assistant", "content": [blocks]}``.
The answer text is its ``text`` blocks joined; a text block with ``citations`` is
one cited span (Anthropic cites whole blocks, so the spans are made here, in
characters, and ``unit=`` does not apply). Each citation is a source:
``char_location``, ``page_location`` and ``content_block_location`` point into a
document of the request (``document_index``, ``document_title``; their
``*_index``/``*_number`` fields count in that document, not in the answer),
``web_search_result_location`` is a web page (``url``, ``title``) and
``search_result_location`` a search result (``source``, ``title``). Their
``cited_text`` is text of the *source*, kept as ``Source.text``.

>>> raw = read_message({"type": "message", "content": [
...     {"type": "text", "text": "Laut dem Bericht "},
...     {"type": "text", "text": "wächst Köln.", "citations": [{"type": "char_location",
...      "cited_text": "Köln wächst.", "document_index": 0, "document_title": "Bericht",
...      "start_char_index": 0, "end_char_index": 12}]}]}, 0)
>>> raw.text[raw.spans[0].start : raw.spans[0].end], raw.sources[0][1].title
('wächst Köln.', 'Bericht')
"""

from __future__ import annotations

from typing import Any

from grounding_protos._core.access import fields, get, items, text_or_none
from grounding_protos._core.model import Source
from grounding_protos._core.raw import RawAnswer, RawSpan
from grounding_protos._sources.common import SourceTable, is_list, string


def is_message(obj: object) -> bool:
    """An Anthropic ``Message``: ``type`` ``"message"`` and a ``content`` list."""
    return string(obj, "type") == "message" and is_list(get(obj, "content"))


def read_message(obj: object, candidate: int) -> RawAnswer:
    """The text blocks joined; each cited block one span with a source per citation."""
    raw = RawAnswer("none", "", unit="char")
    raw.offsets = False
    table = SourceTable(raw)
    texts: list[str] = []
    at = 0
    for i, block in enumerate(items(obj, "content")):
        if string(block, "type") != "text":
            continue
        text = string(block, "text") or ""
        citations = items(block, "citations")
        if citations:
            path = f"content[{i}]"
            span = RawSpan(path, at, at + len(text), "citation", segment_text=text)
            for j, citation in enumerate(citations):
                cited = f"{path}.citations[{j}]"
                span.refs.append(table.ref_of(source_values(citation), source_of, cited))
            raw.spans.append(span)
        texts.append(text)
        at += len(text)
    raw.text = "".join(texts) if texts else None
    raw.finish_reason = string(obj, "stop_reason")
    return raw


def source_values(citation: object) -> tuple[Any, ...]:
    """What a citation's :class:`Source` is made of (hashable), by its location kind: the
    same values make the same source (``shape.py`` makes a ``web_search_result_location``'s
    inline, as here)."""
    kind = string(citation, "type")
    cited = text_or_none(get(citation, "cited_text"))
    if kind == "web_search_result_location":
        url, title = fields(citation, "url", "title")
        return ("web", text_or_none(url), text_or_none(title), cited)
    if kind == "search_result_location":
        source, title = fields(citation, "source", "title")
        numbers = _numbers(citation, "search_result_index", "start_block_index",
                           "end_block_index")  # fmt: skip
        return ("search", text_or_none(source), text_or_none(title), cited, numbers)
    page = None
    if kind == "page_location":
        first, end = get(citation, "start_page_number"), get(citation, "end_page_number")
        if isinstance(first, int) and isinstance(end, int):  # end is exclusive
            page = str(first) if end <= first + 1 else f"{first}-{end - 1}"
    numbers = _numbers(citation, "document_index", "start_char_index", "end_char_index",
                       "start_block_index", "end_block_index")  # fmt: skip
    title = text_or_none(get(citation, "document_title"))
    return ("document", title, text_or_none(get(citation, "file_id")), page, cited, numbers)


def source_of(values: tuple[Any, ...]) -> Source:
    """The :class:`Source` of a citation's :func:`source_values`."""
    if values[0] == "web":
        _, uri, title, cited = values
        return Source(uri=uri, title=title, kind="web", text=cited)
    if values[0] == "search":
        _, uri, title, cited, numbers = values
        return Source(uri=uri, title=title, kind="document", text=cited, custom_metadata=numbers)
    _, title, file_id, page, cited, numbers = values
    return Source(
        title=title, id=file_id, document=file_id, kind="document", page=page, text=cited,
        custom_metadata=numbers,
    )  # fmt: skip


def _numbers(obj: object, *names: str) -> tuple[tuple[str, str], ...]:
    out = []
    for name in names:
        value = get(obj, name)
        if isinstance(value, int) and not isinstance(value, bool):
            out.append((name, str(value)))
    return tuple(out)
