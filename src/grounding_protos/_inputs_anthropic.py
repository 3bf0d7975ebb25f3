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

from grounding_protos._access import get, items, text_or_none
from grounding_protos._inputs_common import SourceTable, is_list, string
from grounding_protos._model import Source
from grounding_protos._raw import RawAnswer, RawSpan


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
                span.refs.append(table.ref(_source(citation), cited))
            raw.spans.append(span)
        texts.append(text)
        at += len(text)
    raw.text = "".join(texts) if texts else None
    raw.finish_reason = string(obj, "stop_reason")
    return raw


def _source(citation: object) -> Source:
    kind = string(citation, "type")
    cited = text_or_none(get(citation, "cited_text"))
    if kind == "web_search_result_location":
        return Source(
            uri=text_or_none(get(citation, "url")),
            title=text_or_none(get(citation, "title")),
            kind="web",
            text=cited,
        )
    if kind == "search_result_location":
        return Source(
            uri=text_or_none(get(citation, "source")),
            title=text_or_none(get(citation, "title")),
            kind="document",
            text=cited,
            custom_metadata=_numbers(citation, "search_result_index", "start_block_index",
                                     "end_block_index"),
        )  # fmt: skip
    page = None
    if kind == "page_location":
        first, end = get(citation, "start_page_number"), get(citation, "end_page_number")
        if isinstance(first, int) and isinstance(end, int):  # end is exclusive
            page = str(first) if end <= first + 1 else f"{first}-{end - 1}"
    file_id = text_or_none(get(citation, "file_id"))
    return Source(
        title=text_or_none(get(citation, "document_title")),
        id=file_id,
        document=file_id,
        kind="document",
        page=page,
        text=cited,
        custom_metadata=_numbers(citation, "document_index", "start_char_index",
                                 "end_char_index", "start_block_index", "end_block_index"),
    )  # fmt: skip


def _numbers(obj: object, *names: str) -> tuple[tuple[str, str], ...]:
    out = []
    for name in names:
        value = get(obj, name)
        if isinstance(value, int) and not isinstance(value, bool):
            out.append((name, str(value)))
    return tuple(out)
