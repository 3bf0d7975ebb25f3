"""The plan that every renderer of placed citations shares: character spans, source
numbers and marker groups (:class:`Plan`), and HTML attribute escaping (:func:`attr`).

Used by ``markers`` (``render``, ``number_sources``, ``source_list``) and by the HTML
view of ``markdown_html``; imports nothing of either.
"""

from __future__ import annotations

import html
import operator
from collections.abc import Iterable, Sequence

from grounding_protos._core.model import Citation, Source
from grounding_protos._exceptions import ArgumentTypeError, OffsetError
from grounding_protos._offsets import SpanSnap, TextIndex


def attr(value: str) -> str:
    """``value`` escaped for an HTML attribute in double quotes."""
    return html.escape(value, quote=True)


class Plan:
    """Character spans, source numbers and marker groups of one text's citations."""

    __slots__ = ("cites", "ends", "groups", "number_of", "positions", "sources", "starts")

    def __init__(
        self,
        text: str,
        citations: Iterable[Citation],
        snap: SpanSnap | None,
        clamp: bool,
    ) -> None:
        if not isinstance(text, str):
            raise ArgumentTypeError(f"text must be a str, not {type(text).__name__}")
        cites = citations if isinstance(citations, (list, tuple)) else list(citations)
        starts, ends = char_spans(TextIndex(text), cites, snap, clamp)
        # Markers in text order: by end, then start, then input order (a stable sort
        # on one int key per citation).
        width = len(text) + 1
        keys = [e * width + s for s, e in zip(starts, ends, strict=True)]
        cited = [i for i, c in enumerate(cites) if c.sources]
        cited.sort(key=keys.__getitem__)
        # Sources are numbered by Source.key (chunks of one document, or one URI,
        # share a number); id() spares computing the key of a Source met again (the
        # citations hold every source alive meanwhile).
        numbering: dict[object, int] = {}
        number_of: dict[int, int] = {}
        firsts: list[Source] = []
        groups: dict[int, set[int]] = {}
        for i in cited:
            end = ends[i]
            group = groups.get(end)
            if group is None:
                group = groups[end] = set()
            for source in cites[i].sources:
                n = number_of.get(id(source))
                if n is None:
                    key = source.key
                    n = numbering.get(key)
                    if n is None:
                        n = numbering[key] = len(numbering) + 1
                        firsts.append(source)
                    number_of[id(source)] = n
                group.add(n)
        self.cites = cites
        self.starts = starts
        self.ends = ends
        self.number_of = number_of
        self.sources = firsts  # number n is self.sources[n - 1]
        # dicts keep insertion order, and ends were met in ascending order
        self.positions = list(groups)  # where markers go, ascending
        self.groups = list(map(sorted, groups.values()))  # their numbers, ascending

    def numbers(self, i: int) -> list[int]:
        """The distinct source numbers of citation ``i``, ascending."""
        number_of = self.number_of
        return sorted({number_of[id(s)] for s in self.cites[i].sources})


def char_spans(
    index: TextIndex, cites: Sequence[Citation], snap: SpanSnap | None, clamp: bool
) -> tuple[list[int], list[int]]:
    """Every citation's character start and end, converted in bulk; on an error, the
    spans are converted again one by one to name the first bad citation by its path."""
    k = len(cites)
    try:
        if snap == "outward":
            starts = index.to_chars([c.start for c in cites], snap="floor", clamp=clamp)
            ends = index.to_chars([c.end for c in cites], snap="ceil", clamp=clamp)
        else:
            both = index.to_chars(
                [c.start for c in cites] + [c.end for c in cites], snap=snap, clamp=clamp
            )
            starts, ends = both[:k], both[k:]
        if not any(map(operator.gt, starts, ends)):
            return starts, ends
    except (OffsetError, ArgumentTypeError):
        pass
    for i, c in enumerate(cites):
        try:
            index.to_char_span(c.start, c.end, snap=snap, clamp=clamp)
        except (OffsetError, ArgumentTypeError) as exc:
            label = c.path or f"citations[{i}]"
            raise type(exc)(f"{label}: {exc}") from None
    raise AssertionError("a bulk span conversion failed, but no single span does")
