"""Reading xAI's chat completions with live search, which cite by ``[[n]](url)`` links.

xAI's ``/v1/chat/completions`` with search (its older live search, and its agent tools)
has the Chat Completions layout plus a top-level ``citations`` list: every URL the
search looked at, not all of them cited, in no order the markers follow. The answer
cites with Markdown-link markers, ``[[1]](https://x.ai/news)``: the link's target is
the source (each URL of ``citations`` is a source; a target missing from it is one
more). A run of markers cites the sentence or clause it ends, as Perplexity's do
(``_sources.markers``): ``kind="marker"``, code never counts, and
``read(obj, markers="remove")`` cuts the markers (link and all).

Recognized by what only it has: a top-level ``citations`` list of URLs with no
``search_results`` (Perplexity's), and a ``[[n]](url)`` marker outside code or
``usage.num_sources_used`` (xAI's count of the sources searched).

>>> raw = read_xai({"citations": ["https://x.ai/news"], "choices": [{"message": {
...     "role": "assistant", "content": "Grok 🚀 ist neu [[1]](https://x.ai/news)."}}]}, 0)
>>> [(raw.text[s.start : s.end], s.refs) for s in raw.spans]
[('Grok 🚀 ist neu', [0])]
"""

from __future__ import annotations

from grounding_protos._core.access import get, items, unwrap
from grounding_protos._core.model import Source
from grounding_protos._core.raw import RawAnswer
from grounding_protos._sources.common import SourceTable, is_list, string
from grounding_protos._sources.markers import (
    add_marker_spans,
    chat_answer,
    marker_spans,
    marker_style,
)
from grounding_protos._sources.openai.reader import is_chat_completion

# ``[[1]](https://…)``: the target may hold balanced parentheses (Wikipedia's URLs)
LINKS = marker_style(r"\[\[(?P<n>[0-9]{1,4})\]\]\((?P<url>[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)\)")


def is_xai(obj: object) -> bool:
    """A chat completion with a ``citations`` list of URLs, no ``search_results``, and a
    ``[[n]](url)`` marker (outside code) or ``usage.num_sources_used``."""
    citations = get(obj, "citations")
    if not (is_list(citations) and all(isinstance(c, str) for c in citations)):
        return False
    if get(obj, "search_results") is not None or not is_chat_completion(obj):
        return False
    if get(get(obj, "usage"), "num_sources_used") is not None:
        return True
    for choice in items(obj, "choices"):
        text = string(get(unwrap(choice), "message"), "content")
        if text and "[[" in text and marker_spans(text, LINKS):
            return True
    return False


def read_xai(obj: object, candidate: int) -> RawAnswer:
    """``choices[candidate].message.content``; a citation per marker run, citing each
    marker's link target."""
    raw, _message = chat_answer(obj, candidate)
    table = SourceTable(raw)
    for i, url in enumerate(get(obj, "citations") or ()):
        table.ref(Source(uri=url, id=str(i + 1), kind="web"), f"citations[{i}]")
    by_url = {source.uri: index for index, (_, source) in enumerate(raw.sources)}
    where = f"{raw.prefix}content"

    def ref(_number: int, link: str) -> int:
        index = by_url.get(link)
        if index is None:  # a target the citations list lacks: a source of its own
            index = by_url[link] = table.ref(Source(uri=link, kind="web"), where)
        return index

    add_marker_spans(raw, LINKS, where, ref)
    return raw
