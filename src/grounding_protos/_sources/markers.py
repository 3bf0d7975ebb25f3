"""Citations by markers in the answer's text: which text a run of markers cites, where
the text's code is (a marker there is code, never a citation), and cutting the markers
out. Shared by every marker-style source (Perplexity's ``[1]``, Azure On Your Data's
``[doc1]``, xAI's ``[[1]](url)``, Perplexity through OpenRouter).

**Which text a marker run cites** (the rule chosen here; no vendor documents one): the
sentence or clause the run ends. The span ends where the run starts (spaces before it
left out) and starts after the nearest of: the previous marker run, the end of the
previous sentence (``.``, ``!`` or ``?`` followed by a space, an ideographic full stop
or a fullwidth ``!`` or ``?``, a line end), or the start of the text; leading spaces,
clause punctuation (``,;:``) and a list bullet (``-``, ``*``, ``1.``) are left out.
Only ASCII digits make a marker's number: ``[`` U+FF11 ``]`` (a fullwidth one) or
``[`` U+0661 ``]`` (an Arabic-Indic one) is text.

**Code is never a marker.** A marker inside an inline code span (`` `arr[1]` ``) or a
fenced code block is code: it cites nothing, no span ends or starts inside code, and
``markers="remove"`` leaves it. Code is found by CommonMark's rules: fenced blocks
(in lists and block quotes too) by markdown-it-py's block parser, imported only for a
text with a backtick or ``~~~``; code spans by CommonMark's backtick-run rule (a run of
n backticks opens a span closed by the next run of exactly n; ``\\``` is a literal
backtick; no span crosses a block). Indented code blocks are not code here (an indented
line of an answer is far more often a list's continuation), nor are backticks inside
raw HTML or autolinks special.

>>> [(r.start, r.end, r.numbers) for r in marker_spans("Köln[1] und `arr[2]` Bonn[3]", BRACKETS)]
[(0, 4, [1]), (8, 25, [3])]
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import accumulate
from typing import TYPE_CHECKING, NamedTuple

from grounding_protos._core.access import get
from grounding_protos._core.raw import RawAnswer, RawSpan
from grounding_protos._sources.common import chat_choice, string

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@dataclass(frozen=True)
class MarkerStyle:
    """How a source writes one marker: ``marker`` with group ``n`` (its 1-based number,
    ASCII digits) and, for a Markdown-link marker, group ``url`` (its target). ``run``
    matches a run of them, separated by spaces or tabs, not followed by ``(`` (a
    Markdown link's target: ``[1](https://…)`` is a link, not a marker)."""

    marker: re.Pattern[str]
    run: re.Pattern[str]


def marker_style(marker: str) -> MarkerStyle:
    """The style of markers written as the regular expression ``marker``."""
    bare = re.sub(r"\(\?P<\w+>", "(?:", marker)  # a run repeats it: no named groups
    return MarkerStyle(re.compile(marker), re.compile(rf"{bare}(?:[ \t]*{bare})*(?!\()"))


BRACKETS = marker_style(r"(?<!\[)\[(?P<n>[0-9]{1,4})\]")
"""``[1]``: Perplexity's markers (also through OpenRouter); not one inside brackets
(``[[1]]`` is no ``[1]``: xAI's ``[[1]](url)`` is a link)."""


class Run(NamedTuple):
    """One run of markers: the span it cites (``start``, ``end``: characters), where
    the run itself is, and each marker's number and link target (``""``: none)."""

    start: int
    end: int
    run_start: int
    run_end: int
    numbers: list[int]
    links: list[str]


_CJK_ENDS = "\u3002\uff01\uff1f"  # ideographic full stop, fullwidth ! and ?
_BOUNDARY = re.compile(rf"[.!?](?=\s)|[{_CJK_ENDS}\n]")
# spaces, clause punctuation (also the ideographic and fullwidth ones, dashes), a bullet
_LEAD = re.compile(
    r"(?:\s|[,;:\u3001\uff0c\uff1b\uff1a\u2014\u2013]|(?:[-*\u2022]|[0-9]{1,3}[.)])(?=\s))*"
)


def marker_spans(text: str, style: MarkerStyle) -> list[Run]:
    """Each marker run of ``text`` outside code, with the span it cites (module rule).

    >>> [tuple(r) for r in marker_spans("東京は首都です。[1][2] Köln liegt am Rhein[3]", BRACKETS)]
    [(0, 8, 8, 14, [1, 2], ['', '']), (15, 34, 34, 37, [3], [''])]
    """
    code = Code(text)
    out = []
    previous = 0
    for run in style.run.finditer(text):
        if code.overlaps(run.start(), run.end()):
            continue
        end = run.start()
        while end > previous and text[end - 1].isspace():
            end -= 1
        body = end - 1 if end > previous and text[end - 1] in ".!?" + _CJK_ENDS else end
        start = previous
        for boundary in _BOUNDARY.finditer(text, previous, body):
            if not code.overlaps(boundary.start(), boundary.end()):
                start = boundary.end()
        lead = _LEAD.match(text, start, end)
        if lead is not None:
            start = lead.end()
        markers = list(style.marker.finditer(run.group()))
        numbers = [int(m.group("n")) for m in markers]
        links = [m.groupdict().get("url") or "" for m in markers]
        out.append(Run(min(start, end), end, run.start(), run.end(), numbers, links))
        previous = run.end()
    return out


def chat_answer(obj: object, candidate: int) -> tuple[RawAnswer, object]:
    """A chat completion's ``choices[candidate]``: its message's ``content`` as the
    text of a :class:`RawAnswer` whose spans the markers will make (characters), and the
    message.

    Raises:
        UnsupportedInputError: ``candidate`` names no choice.
    """
    choice = chat_choice(obj, candidate)
    message = get(choice, "message")
    raw = RawAnswer("none", f"choices[{candidate}].message.", unit="char")
    raw.text = string(message, "content")
    raw.source_kind = "chunks"
    raw.offsets = False  # the spans are made here: unit= does not apply
    raw.finish_reason = string(choice, "finish_reason")
    return raw, message


def add_marker_spans(
    raw: RawAnswer, style: MarkerStyle, where: str, ref: Callable[[int, str], object]
) -> None:
    """A ``kind="marker"`` span per marker run of ``raw.text`` (path ``where`` +
    ``.markers[k]``), referring to ``ref(number, link)`` of each marker; the runs are
    kept in ``raw.markers`` for ``markers="remove"``."""
    if not raw.text:
        return
    for k, run in enumerate(marker_spans(raw.text, style)):
        span = RawSpan(f"{where}.markers[{k}]", run.start, run.end, "marker")
        span.refs.extend(ref(n, link) for n, link in zip(run.numbers, run.links, strict=True))
        span.ref_path = ".numbers[{}]"
        raw.spans.append(span)
        raw.markers.append((run.run_start, run.run_end))


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


# --- Where the code is ----------------------------------------------------------------


class Code:
    """The code of a Markdown text: its inline code spans and fenced code blocks, as
    sorted, disjoint character ranges (see the module's rules)."""

    def __init__(self, text: str) -> None:
        self.ranges = code_ranges(text)
        self.starts = [s for s, _ in self.ranges]

    def overlaps(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` shares a character with code."""
        i = bisect_left(self.starts, end) - 1  # the last range starting before ``end``
        return i >= 0 and self.ranges[i][1] > start


_LINE_END = re.compile(r"\r\n?|\n")  # what markdown-it-py counts as a line end
_BACKTICKS = re.compile(r"`+")


def code_ranges(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each code span and fenced code block of ``text``, sorted.

    >>> code_ranges("a `b` c\\n\\n```\\nx[1]\\n```\\n`` d ` e ``")
    [(2, 5), (9, 21), (22, 33)]
    """
    if "`" not in text and "~~~" not in text:
        return []  # no code: markdown-it-py is not imported
    try:
        parser = _block_parser()
    except ImportError:  # markdown-it-py (a runtime dependency) removed: without the
        # blocks, the whole text as one (a fence's backtick lines pair up as a span)
        return code_spans(text, 0, len(text))
    lines = [0] + [m.end() for m in _LINE_END.finditer(text)]
    ends = [m.start() for m in _LINE_END.finditer(text)] + [len(text)]
    out: list[tuple[int, int]] = []
    for token in parser.parse(text):
        if token.map is None:
            continue
        first, stop = token.map
        if stop <= first:
            continue
        start, end = lines[first], ends[min(stop, len(ends)) - 1]
        if token.type == "fence":
            out.append((start, end))
        elif token.type == "inline" and "`" in text[start:end]:
            out.extend(code_spans(text, start, end))
    out.sort()
    return out


@cache
def _block_parser() -> MarkdownIt:
    """CommonMark's block structure only (the inline rules, which give no offsets, off)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable("inline")


def code_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The code spans of the inline content ``text[start:end]`` (one block), by
    CommonMark's rule: a backtick run not escaped by a backslash opens a span that the
    next run of exactly its length closes; without one, the run is literal text.

    >>> s = "a ``b ` c`` \\\\``d` e`"
    >>> [s[i:j] for i, j in code_spans(s, 0, len(s))]
    ['``b ` c``', '`d`']
    """
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text, start, end)]
    by_length: dict[int, list[int]] = {}
    for k, (i, j) in enumerate(runs):
        by_length.setdefault(j - i, []).append(k)
    out = []
    k = 0
    scanned = start  # text before it is in a span already, or was read
    while k < len(runs):
        i, j = runs[k]
        slashes = 0
        while i - slashes - 1 >= scanned and text[i - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2:  # an escaped backtick: the rest of the run may open a span
            i += 1
        length = j - i
        closers = by_length.get(length, []) if length else []
        c = bisect_right(closers, k)
        if c < len(closers):
            close = closers[c]
            out.append((i, runs[close][1]))
            scanned = runs[close][1]
            k = close + 1
        else:
            k += 1
    return out
