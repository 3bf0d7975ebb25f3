"""Reading Amazon Bedrock ``Converse`` responses (and merged ``ConverseStream`` streams).

``{"output": {"message": {"role": "assistant", "content": [blocks]}}, "stopReason"}``
(boto3's ``converse()`` dict). The answer text is the ``text`` blocks and the
generated text of the ``citationsContent`` blocks, joined in order; reasoning, tool
use and the other block kinds are not answer text. With document or web citations
enabled, a cited passage comes as ``{"citationsContent": {"content": [{"text"}],
"citations": [...]}}``: the wrapped ``content`` text is the cited span (made here, in
characters, so ``unit=`` does not apply), and each citation one source of it:
``title``, ``source``, ``sourceContent[].text`` (text of the *source*, kept as
``Source.text``) and ``location``, one of ``documentChar``, ``documentPage``,
``documentChunk`` (``documentIndex``, ``start``, ``end``: positions in the request's
document), ``searchResultLocation`` (``searchResultIndex``, ``start``, ``end``: blocks of
a search result) or ``web`` (``url``, ``domain``). A location counts in the source,
never in the answer, so it is kept on the source (:class:`LocationInfo`).

Amazon Nova's web grounding (recordings) sends ``citationsContent`` blocks **without**
``content`` (read alike: an empty one, or one of empty texts), each right after the text
block it cites: such a block's citations span
that text block (several such blocks in a row all cite it). One with no text block
right before it cites no text that can be found: its sources are sources of the whole
answer (``Grounded.declared_sources``), never an empty span.

>>> raw = read_converse({"output": {"message": {"role": "assistant", "content": [
...     {"text": "Laut Bericht 📄 "},
...     {"citationsContent": {"content": [{"text": "wächst Köln."}], "citations": [
...         {"title": "Bericht", "sourceContent": [{"text": "Köln wächst."}],
...          "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 12}}}]}}]}},
...     "stopReason": "end_turn"}, 0)
>>> raw.text[raw.spans[0].start : raw.spans[0].end], raw.sources[0][1].details
('wächst Köln.', LocationInfo(unit='char', index=0, start=0, end=12))
"""

from __future__ import annotations

from typing import Any

from grounding_protos._core.access import fields, get, items, text_or_none
from grounding_protos._core.model import LocationInfo, Source
from grounding_protos._core.raw import RawAnswer, RawSpan
from grounding_protos._sources.common import SourceTable, is_list, is_record, string

# location member -> (LocationInfo.unit, the member's index field)
_LOCATIONS = {
    "document_char": ("char", "document_index"),
    "document_page": ("page", "document_index"),
    "document_chunk": ("chunk", "document_index"),
    "search_result_location": ("search_result_block", "search_result_index"),
}


def is_converse(obj: object) -> bool:
    """A ``Converse`` response: ``output.message`` a record whose ``content`` is a list."""
    message = get(get(obj, "output"), "message")
    return is_record(message) and is_list(get(message, "content"))


def read_converse(obj: object, candidate: int) -> RawAnswer:
    """The answer's text blocks joined; each ``citationsContent`` block one span: its
    own generated text, or (without ``content``, Nova's) the text block before it."""
    raw = RawAnswer("none", "output.message.", unit="char")
    raw.offsets = False
    table = SourceTable(raw)
    texts: list[str] = []
    at = 0
    cites: tuple[int, str] | None = None  # the text block a content-less block cites
    for i, block in enumerate(items(get(get(obj, "output"), "message"), "content")):
        text, cited = fields(block, "text", "citations_content")
        if isinstance(text, str):
            cites = (at, text) if text else None  # an empty block: nothing to cite
        else:
            if not is_record(cited):
                cites = None
                continue  # reasoning, tool use, images ...: not answer text
            path = f"output.message.content[{i}].citationsContent"
            text = "".join(string(c, "text") or "" for c in items(cited, "content"))
            if text:
                span = RawSpan(path, at, at + len(text), "citation", segment_text=text)
            elif cites is not None:  # Nova: the citations of the text block right before
                start, before = cites
                span = RawSpan(path, start, start + len(before), "citation",
                               segment_text=before)  # fmt: skip
            else:  # no text block right before it to cite: sources of the whole answer
                for j, citation in enumerate(items(cited, "citations")):
                    source = _source(_values(citation))
                    raw.answer_sources.append((f"{path}.citations[{j}]", source))
                continue
            for j, citation in enumerate(items(cited, "citations")):
                where = f"{path}.citations[{j}]"
                span.refs.append(table.ref_of(_values(citation), _source, where))
            raw.spans.append(span)
            if not text:
                continue
            cites = None
        texts.append(text)
        at += len(text)
    raw.text = "".join(texts) if texts else None
    raw.finish_reason = string(obj, "stop_reason")
    return raw


def _integer(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _values(citation: object) -> tuple[Any, ...]:
    """What a citation's :class:`Source` is made of (hashable)."""
    title, source, content, location = fields(
        citation, "title", "source", "source_content", "location"
    )
    title, source = text_or_none(title), text_or_none(source)
    pieces = [get(c, "text") for c in content] if is_list(content) else []
    text = "".join(p for p in pieces if isinstance(p, str)) or None
    web, *places = fields(location, "web", *_LOCATIONS)
    if is_record(web):
        url, domain = fields(web, "url", "domain")
        return ("web", title, source, text, text_or_none(url), text_or_none(domain))
    where = None
    for (unit, index), found in zip(_LOCATIONS.values(), places, strict=True):
        if is_record(found):
            numbers = fields(found, index, "start", "end")
            where = (unit, *map(_integer, numbers))
            break
    return ("document", title, source, text, where)


def _source(values: tuple[Any, ...]) -> Source:
    if values[0] == "web":
        _, title, source, text, url, domain = values
        return Source(uri=url or source, title=title, kind="web", domain=domain, text=text)
    _, title, source, text, where = values
    details = LocationInfo(*where) if where is not None else None
    return Source(title=title, kind="document", document=source, text=text, details=details)
