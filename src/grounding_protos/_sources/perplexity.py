"""Reading Perplexity chat completions, which cite by ``[n]`` markers in the text.

A Perplexity ``/chat/completions`` response has the Chat Completions layout plus a
top-level ``citations`` list (URLs) and ``search_results`` (``title``, ``url``,
``date``, ``last_updated``, ``snippet``). The answer cites with markers: ``[n]``
(1-based) cites ``citations[n-1]``; without ``citations``, ``search_results[n-1]``.
A run of markers (``[1][3]``, ``[1] [3]``) is one citation with each marker's source.

**Which text a marker cites** (the rule chosen here; Perplexity documents none): the
sentence or clause the marker run ends, by the rule of ``_sources.markers`` (which
also keeps code, inline or fenced, out of it: `` `arr[1]` `` is no marker). So in
``"Köln liegt am Rhein[1], und Bonn auch[2]."`` marker 1 cites ``Köln liegt am Rhein``
and marker 2 ``und Bonn auch``. Such citations have ``kind="marker"``, so a renderer
can tell them from spans a vendor placed by offsets. A run followed by ``(`` (a
Markdown link) is no marker.

The markers stay in the text; ``read(obj, markers="remove")`` removes them (each run
with one space before it) and moves every span to match.

>>> raw = read_perplexity({"citations": ["https://k.example"], "choices": [{"message": {
...     "role": "assistant", "content": "Köln 🌉 liegt am Rhein[1]."}}]}, 0)
>>> [(raw.text[s.start : s.end], s.refs, s.kind) for s in raw.spans]
[('Köln 🌉 liegt am Rhein', [0], 'marker')]
"""

from __future__ import annotations

from grounding_protos._core.access import get, items, text_or_none
from grounding_protos._core.model import Source
from grounding_protos._core.raw import RawAnswer
from grounding_protos._sources.common import is_list, string
from grounding_protos._sources.markers import BRACKETS, add_marker_spans, chat_answer
from grounding_protos._sources.openai.reader import is_chat_completion


def is_perplexity(obj: object) -> bool:
    """A chat completion with a top-level ``citations`` list of URLs or a
    ``search_results`` list (what only Perplexity's responses have)."""
    citations = get(obj, "citations")
    results = get(obj, "search_results")
    has = (is_list(citations) and all(isinstance(c, str) for c in citations)) or is_list(results)
    return has and is_chat_completion(obj)


def read_perplexity(obj: object, candidate: int) -> RawAnswer:
    """``choices[candidate].message.content``; a citation per marker run (see above)."""
    raw, _message = chat_answer(obj, candidate)
    raw.sources = _sources(obj)
    add_marker_spans(raw, BRACKETS, f"{raw.prefix}content", lambda n, _link: n - 1)
    return raw


def _sources(obj: object) -> list[tuple[str, Source]]:
    results = items(obj, "search_results")
    by_url = {string(r, "url"): r for r in results if string(r, "url")}
    urls = get(obj, "citations")
    if is_list(urls) and urls:
        out = []
        for i, url in enumerate(urls):
            result = by_url.get(url) if isinstance(url, str) else None
            out.append((f"citations[{i}]", _source(i, text_or_none(url), result)))
        return out
    return [
        (f"search_results[{i}]", _source(i, string(r, "url"), r)) for i, r in enumerate(results)
    ]


def _source(i: int, url: str | None, result: object) -> Source:
    return Source(
        uri=url,
        title=string(result, "title"),
        id=str(i + 1),
        kind="web",
        text=string(result, "snippet"),
        publication_date=string(result, "date"),
    )
