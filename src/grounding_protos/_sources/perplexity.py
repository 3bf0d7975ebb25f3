"""Reading Perplexity chat completions, which cite by ``[n]`` markers in the text.

A Perplexity ``/chat/completions`` response has the Chat Completions layout plus a
top-level ``citations`` list (URLs) and ``search_results`` (``title``, ``url``,
``date``, ``last_updated``, ``snippet``). The answer cites with markers: ``[n]``
(1-based) cites ``citations[n-1]``; without ``citations``, ``search_results[n-1]``.
A run of markers (``[1][3]``, ``[1] [3]``) is one citation with each marker's source.

**Which text a marker cites** (the rule chosen here; Perplexity documents none): the
sentence or clause the marker run ends. The span ends where the run starts (spaces
before it left out) and starts after the nearest of: the previous marker run, the end
of the previous sentence (``.``, ``!`` or ``?`` followed by a space, an ideographic
full stop or a fullwidth ``!`` or ``?``, a line end), or the start of the text;
leading spaces, clause punctuation (``,;:``) and a list bullet (``-``, ``*``, ``1.``)
are left out. So in ``"Köln liegt am Rhein[1], und
Bonn auch[2]."`` marker 1 cites ``Köln liegt am Rhein`` and marker 2 ``und Bonn
auch``. Such citations have ``kind="marker"``, so a renderer can tell them from spans
a vendor placed by offsets. A run followed by ``(`` (a Markdown link) is no marker.

The markers stay in the text; ``read(obj, markers="remove")`` removes them (each run
with one space before it) and moves every span to match.

>>> raw = read_perplexity({"citations": ["https://k.example"], "choices": [{"message": {
...     "role": "assistant", "content": "Köln 🌉 liegt am Rhein[1]."}}]}, 0)
>>> [(raw.text[s.start : s.end], s.refs, s.kind) for s in raw.spans]
[('Köln 🌉 liegt am Rhein', [0], 'marker')]
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

from grounding_protos._core.access import get, items, text_or_none, unwrap
from grounding_protos._core.model import Source
from grounding_protos._core.raw import RawAnswer, RawSpan
from grounding_protos._exceptions import UnsupportedInputError
from grounding_protos._sources.common import is_list, string
from grounding_protos._sources.openai.reader import is_chat_completion

_RUN = re.compile(r"\[(\d{1,4})\](?:[ \t]*\[\d{1,4}\])*(?!\()")
_NUMBER = re.compile(r"\[(\d{1,4})\]")
_CJK_ENDS = "\u3002\uff01\uff1f"  # ideographic full stop, fullwidth ! and ?
_BOUNDARY = re.compile(rf"[.!?](?=\s)|[{_CJK_ENDS}\n]")
# spaces, clause punctuation (also the ideographic and fullwidth ones, dashes), a bullet
_LEAD = re.compile(
    r"(?:\s|[,;:\u3001\uff0c\uff1b\uff1a\u2014\u2013]|(?:[-*\u2022]|\d{1,3}[.)])(?=\s))*"
)


def is_perplexity(obj: object) -> bool:
    """A chat completion with a top-level ``citations`` list of URLs or a
    ``search_results`` list (what only Perplexity's responses have)."""
    citations = get(obj, "citations")
    results = get(obj, "search_results")
    has = (is_list(citations) and all(isinstance(c, str) for c in citations)) or is_list(results)
    return has and is_chat_completion(obj)


def read_perplexity(obj: object, candidate: int) -> RawAnswer:
    """``choices[candidate].message.content``; a citation per marker run (see above)."""
    choices = items(obj, "choices")
    if not 0 <= candidate < len(choices):
        raise UnsupportedInputError(
            f"the chat completion has {len(choices)} choices; candidate={candidate} is out of range"
        )
    choice = unwrap(choices[candidate])
    prefix = f"choices[{candidate}].message."
    text = string(get(choice, "message"), "content")
    raw = RawAnswer("none", prefix, text=text, unit="char")
    raw.source_kind = "chunks"
    raw.offsets = False
    raw.sources = _sources(obj)
    raw.finish_reason = string(choice, "finish_reason")
    if text:
        for k, (start, end, run_start, run_end, numbers) in enumerate(marker_spans(text)):
            span = RawSpan(f"{prefix}content.markers[{k}]", start, end, "marker")
            span.refs.extend(n - 1 for n in numbers)
            span.ref_path = ".numbers[{}]"
            raw.spans.append(span)
            raw.markers.append((run_start, run_end))
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


def marker_spans(text: str) -> list[tuple[int, int, int, int, list[int]]]:
    """``(start, end, run_start, run_end, numbers)`` of each marker run: the span it
    cites (character offsets) and where the run itself is.

    >>> marker_spans("東京は首都です。[1][2] Köln liegt am Rhein[3], Bonn auch.[4]")
    [(0, 8, 8, 14, [1, 2]), (15, 34, 34, 37, [3]), (39, 49, 49, 52, [4])]
    """
    out = []
    previous = 0
    for run in _RUN.finditer(text):
        end = run.start()
        while end > previous and text[end - 1].isspace():
            end -= 1
        body = end - 1 if end > previous and text[end - 1] in ".!?" + _CJK_ENDS else end
        start = previous
        for boundary in _BOUNDARY.finditer(text, previous, body):
            start = boundary.end()
        lead = _LEAD.match(text, start, end)
        if lead is not None:
            start = lead.end()
        numbers = [int(m.group(1)) for m in _NUMBER.finditer(run.group())]
        out.append((min(start, end), end, run.start(), run.end(), numbers))
        previous = run.end()
    return out


def remove_markers(raw: RawAnswer) -> None:
    """``raw`` with its marker runs (each with one space before it) cut from the text
    and every span moved to match; nothing for an input without markers."""
    if not raw.markers or raw.text is None:
        return
    text = raw.text
    cuts = []
    for start, end in raw.markers:
        if start > 0 and text[start - 1] in " \t":
            start -= 1
        cuts.append((start, end))
    pieces, last = [], 0
    for start, end in cuts:
        pieces.append(text[last:start])
        last = end
    pieces.append(text[last:])
    raw.text = "".join(pieces)
    starts = [s for s, _ in cuts]
    removed = [0, *accumulate(e - s for s, e in cuts)]

    def moved(position: object) -> object:
        if not isinstance(position, int):
            return position
        i = bisect_right(starts, position - 1)  # the cuts that start before it
        if i and cuts[i - 1][1] > position:  # inside a cut: where the cut was
            return cuts[i - 1][0] - removed[i - 1]
        return position - removed[i]

    for span in raw.spans:
        span.start, span.end = moved(span.start), moved(span.end)
    raw.markers = []
