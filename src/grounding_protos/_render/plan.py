"""The plan that every renderer of placed citations shares: character spans, source
numbers and marker groups (:class:`Plan`), the highlighted stretches
(:func:`highlight_bounds`, :func:`mark_tag`), and HTML attribute escaping (:func:`attr`).

Used by ``markers`` (``render``, ``number_sources``, ``source_list``) and by the HTML
view of ``markdown_html``; imports nothing of either.

Two rules live here, so that every style follows them:

- **One claim, one number.** A grounding support and a citation (Discovery Engine
  answers can carry both for one claim) that share text and a source show that
  source's number once, at the support's end: the citation's marker leaves it out.
  Its highlight keeps it.
- **Output linear in the input.** A highlight piece names the numbers of the sources
  covering it only while there are at most :data:`LISTED` of them; past that it says
  how many (``data-count``). Without the bound, spans that overlap many others make
  every piece repeat a long list, and the output grows with the square of the spans.
"""

from __future__ import annotations

import bisect
import html
import operator
from collections.abc import Iterable, Sequence
from itertools import accumulate
from typing import Final

from grounding_protos._core.model import Citation, Source
from grounding_protos._exceptions import ArgumentTypeError, OffsetError
from grounding_protos._offsets import SpanSnap, TextIndex, check_span_snap

LISTED: Final = 16
"""The most source numbers a highlight piece lists in ``data-sources``."""

Key = tuple[int, ...]
"""The sources covering a stretch: their numbers ascending (``()`` for none), or, when
more than :data:`LISTED` cover it, ``(0, count)``."""


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
        claimed = _claimed(cites, cited, starts, ends)
        # Sources are numbered by Source.key (chunks of one document, or one URI,
        # share a number); id() spares computing the key of a Source met again (the
        # citations hold every source alive meanwhile).
        numbering: dict[object, int] = {}
        number_of: dict[int, int] = {}
        firsts: list[Source] = []
        groups: dict[int, set[int]] = {}
        late: list[Source] = []  # sources met only where their support shows them
        for i in cited:
            shown = claimed.get(i)
            sources = cites[i].sources
            if shown is not None:
                late.extend(s for s in sources if s.key not in shown)
                sources = tuple(s for s in sources if s.key in shown)
                if not sources:
                    continue
            end = ends[i]
            group = groups.get(end)
            if group is None:
                group = groups[end] = set()
            for source in sources:
                n = number_of.get(id(source))
                if n is None:
                    key = source.key
                    n = numbering.get(key)
                    if n is None:
                        n = numbering[key] = len(numbering) + 1
                        firsts.append(source)
                    number_of[id(source)] = n
                group.add(n)
        for source in late:  # numbered by the support that claims them
            number_of[id(source)] = numbering[source.key]
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


def _claimed(
    cites: Sequence[Citation], cited: list[int], starts: list[int], ends: list[int]
) -> dict[int, set[object]]:
    """For each citation (``kind="citation"``) that shares text and a source with a
    grounding support, the keys of the sources its own marker still shows: those no
    overlapping support cites. Empty unless both kinds are there; one sorted list of
    support spans per source, so O((k + s) log s).

    Two spans overlap when they share a character; an empty span stands for the point
    right after its place (it overlaps a span holding the character there, or an empty
    span at the same place): in doubled coordinates, ``[2s, 2e)`` or ``[2s, 2s + 1)``.
    """
    kinds = {cites[i].kind for i in cited}
    if len(kinds) < 2:
        return {}

    def doubled(i: int) -> tuple[int, int]:
        s, e = starts[i], ends[i]
        return (2 * s, 2 * e) if e > s else (2 * s, 2 * s + 1)

    by_key: dict[object, list[tuple[int, int]]] = {}
    for i in cited:
        if cites[i].kind == "support":
            span = doubled(i)
            for source in cites[i].sources:
                by_key.setdefault(source.key, []).append(span)
    tables: dict[object, tuple[list[int], list[int]]] = {}
    for key, spans in by_key.items():
        spans.sort()
        # the supports' starts in order, and the furthest any of the first j reaches
        tables[key] = ([s for s, _ in spans], list(accumulate((e for _, e in spans), max)))
    out: dict[int, set[object]] = {}
    for i in cited:
        if cites[i].kind != "citation":
            continue
        start, end = doubled(i)
        keys = {s.key for s in cites[i].sources}
        kept = set()
        for key in keys:
            table = tables.get(key)
            if table is not None:
                j = bisect.bisect_left(table[0], end)  # the supports starting before its end
                if j and table[1][j - 1] > start:  # one of them reaches past its start
                    continue
            kept.add(key)
        if len(kept) < len(keys):
            out[i] = kept
    return out


def highlight_bounds(plan: Plan) -> tuple[list[int], list[Key]]:
    """The positions where the set of sources covering the text changes, and the
    :data:`Key` from each on: one sweep over the cited spans' starts and ends, each
    step O(1) past :data:`LISTED` sources (so the whole is linear in the spans and
    their sources)."""
    delta: dict[int, list[tuple[int, int]]] = {}
    for i, (start, end, cite) in enumerate(zip(plan.starts, plan.ends, plan.cites, strict=True)):
        if start < end and cite.sources:
            for n in plan.numbers(i):
                delta.setdefault(start, []).append((n, 1))
                delta.setdefault(end, []).append((n, -1))
    active: dict[int, int] = {}
    bounds: list[int] = []
    keys: list[Key] = []
    key: Key = ()
    for pos in sorted(delta):
        for n, d in delta[pos]:
            count = active.get(n, 0) + d
            if count:
                active[n] = count
            else:
                del active[n]
        new = tuple(sorted(active)) if len(active) <= LISTED else (0, len(active))
        if new != key:
            bounds.append(pos)
            keys.append(new)
            key = new
    return bounds, keys


def merge_keys(keys: Iterable[Key]) -> Key:
    """The sources covering any of several stretches (for a piece that cannot be cut):
    their union, or ``(0, count)`` with the largest count known."""
    union: set[int] = set()
    most = 0
    for key in keys:
        if key[:1] == (0,):
            most = max(most, key[1])
        else:
            union.update(key)
    if most or len(union) > LISTED:
        return (0, max(most, len(union)))
    return tuple(sorted(union))


def mark_tag(key: Key) -> str:
    """The ``<mark>`` start tag of a highlighted stretch: its sources by number, never
    by label (the labels are in the one source list)."""
    if key[:1] == (0,):
        return f'<mark class="gp-span" data-count="{key[1]}">'
    return f'<mark class="gp-span" data-sources="{" ".join(map(str, key))}">'


def char_spans(
    index: TextIndex, cites: Sequence[Citation], snap: SpanSnap | None, clamp: bool
) -> tuple[list[int], list[int]]:
    """Every citation's character start and end, converted in bulk; on an error, the
    spans are converted again one by one to name the first bad citation by its path."""
    if snap is not None:
        check_span_snap(snap)
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
