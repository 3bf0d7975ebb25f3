"""The answer's own citation markers, replaced by the rendering's.

An answer that cites by markers in its text (Perplexity's ``[1]``, Azure On Your
Data's ``[doc1]``, xAI's ``[[1]](url)``) reads as citations
of ``kind="marker"``, each spanning the clause its marker run ends (the run itself
stays in the text unless ``read(obj, markers="remove")`` cut it). Rendering such a
citation adds the style's marker at the span's end, right before the answer's own
run: ``雨です[1][1]``. So every renderer first cuts the run that follows a
``"marker"`` citation's span (with the spaces before it) and lets the style's marker
take its place, numbered as the source list numbers it: each marker shown once.

Only a run right after a marker citation's span is cut; a ``[3]`` anywhere else is
text, and an answer read with ``markers="remove"`` has no run left to cut.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Sequence
from itertools import accumulate
from typing import Final

from grounding_protos._core.model import Citation
from grounding_protos._exceptions import ArgumentTypeError, OffsetError
from grounding_protos._offsets import TextIndex

# A run of markers after a span: spaces, then markers, with spaces between: [n]
# (Perplexity's), [docn] (Azure On Your Data's), [[n]](url) (xAI's); a [n] followed by
# "(" is a Markdown link, no marker.
_ONE: Final = (
    r"(?:\[\[[0-9]{1,4}\]\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*\)"
    r"|\[(?:doc)?[0-9]{1,4}\](?!\())"
)
_RUN: Final = re.compile(rf"[ \t]*{_ONE}(?:[ \t]*{_ONE})*")


def replace_own_markers(text: str, citations: Sequence[Citation]) -> tuple[str, Sequence[Citation]]:
    """``text`` without the marker runs that end its ``"marker"`` citations' spans, and
    the citations moved to match (both unchanged when there is none).

    >>> from grounding_protos.citations import Citation
    >>> text = "東京は雨です [1][2]。"
    >>> cited = Citation(0, 18, kind="marker")
    >>> new_text, (moved,) = replace_own_markers(text, [cited])
    >>> new_text, moved.start, moved.end, moved.char_end
    ('東京は雨です。', 0, 18, 6)
    """
    if not any(c.kind == "marker" for c in citations):
        return text, citations
    index = TextIndex(text)
    try:
        spans = [(index.to_char(c.start), index.to_char(c.end)) for c in citations]
    except (OffsetError, ArgumentTypeError):
        return text, citations  # the renderer's own conversion names the bad citation
    runs: dict[int, int] = {}
    for c, (_, end) in zip(citations, spans, strict=True):
        if c.kind == "marker":
            run = _RUN.match(text, end)
            if run is not None:
                runs[end] = run.end()
    if not runs:
        return text, citations
    cuts: list[tuple[int, int]] = []
    for start in sorted(runs):
        if not cuts or start >= cuts[-1][1]:
            cuts.append((start, runs[start]))
    starts = [s for s, _ in cuts]
    removed = [0, *accumulate(e - s for s, e in cuts)]  # before each cut, and in all
    pieces, kept = [], 0
    for start, end in cuts:
        pieces.append(text[kept:start])
        kept = end
    pieces.append(text[kept:])
    new_text = "".join(pieces)
    new_index = TextIndex(new_text)

    def moved(char: int) -> int:
        i = bisect.bisect_left(starts, char)  # the cuts that start before it
        if i and cuts[i - 1][1] > char:  # inside a run: where the run was
            return cuts[i - 1][0] - removed[i - 1]
        return char - removed[i]

    out = []
    for c, (first, last) in zip(citations, spans, strict=True):
        a, b = moved(first), moved(last)
        out.append(
            dataclasses.replace(
                c,
                start=new_index.to_byte(a),
                end=new_index.to_byte(b),
                char_start=a,
                char_end=b,
                text=new_text[a:b],
            )
        )
    return new_text, out
