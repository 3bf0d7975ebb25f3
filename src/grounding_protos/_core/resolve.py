"""Checking raw span records and turning them into :class:`Citation` objects.

``extract`` and ``validate`` both run :func:`resolve`: the first stops at the first
problem that leaves a citation undefined (raising it), the second collects every
problem, including the ones that do not stop extraction (a ``Segment.text`` that
differs from its byte slice, a score outside [0, 1]).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import repeat
from typing import Final, Literal, NoReturn

from grounding_protos._core.model import Citation, Problem, SharedText, Source, new_citation
from grounding_protos._core.raw import RawAnswer, RawSpan
from grounding_protos._exceptions import (
    CitationError,
    OffsetError,
    TextEncodingError,
)
from grounding_protos._offsets import PartMap, Snap, SpanSnap, TextIndex, Unit
from grounding_protos._quote import excerpt, shown

Mode = Literal["strict", "repair", "skip", "collect"]
Hint = tuple[int, int, int, int] | None
"""A span placed in bulk: its whole-text bytes and characters (start, end, start, end)."""
_NOUNS = {"byte": "byte offset", "char": "character offset", "utf16": "UTF-16 offset"}
_PLURALS = {"byte": "bytes", "char": "characters", "utf16": "UTF-16 units"}
REPAIR_WINDOW = 128
"""How far (in characters, either side) a span is looked for on its own text."""

# Problems after which a citation cannot be built: extract raises them.
FATAL = frozenset(
    {
        "text-conflict",
        "text-not-utf8",
        "not-an-integer",
        "offset-out-of-range",
        "offset-inverted",
        "offset-splits-character",
        "part-index-out-of-range",
        "reference-id-not-a-number",
        "reference-id-out-of-range",
        "chunk-index-not-a-number",
        "chunk-index-out-of-range",
        "segment-text-mismatch",
    }
)
# A reader's notes that "strict" raises (the others are recorded in every mode).
STRICT_NOTES = frozenset({"framework-disagreement", "wrong-type"})
_INTEGER = re.compile(r"-?[0-9]+")
# Problems of the whole answer, which no span policy can skip.
_WHOLE_ANSWER = frozenset({"text-conflict", "text-not-utf8"})
_OFFSET_CODES = frozenset({"offset-out-of-range", "offset-inverted", "offset-splits-character"})


class _Stop(Exception):
    """Internal: a fatal problem in strict mode."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


@dataclass
class Resolution:
    """The answer text, the citations that could be built, and every problem found."""

    text: str | None
    citations: list[Citation] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class _Resolver:
    def __init__(self, raw: RawAnswer, mode: Mode, snap: SpanSnap | None, clamp: bool):
        self.raw = raw
        self.mode = mode
        self.snap = snap
        self.clamp = clamp
        self.problems: list[Problem] = []
        self.extents: dict[tuple[int, int], tuple[int, int]] = {}  # part chars -> unit bounds
        self.table = [source for _, source in raw.sources]
        # the answer text the citations slice their ``text`` from (one per answer): a
        # Citation given a SharedText as its text (model.py) slices it when asked
        self._shared: SharedText | None = None
        self.positions: dict[int, int] | None = None  # part index -> text part position
        self.occurrences: dict[str, tuple[int, ...]] | None = None  # of anchored spans' texts

    def report(self, code: str, message: str, path: str) -> None:
        """A problem of one span: raised, recorded as a skip, or collected, by the mode."""
        problem = Problem(code, message, path)
        if self.mode == "collect":
            self.problems.append(problem)
        elif code in FATAL or self.mode == "strict":
            if self.mode == "skip" and code not in _WHOLE_ANSWER:
                self.problems.append(
                    Problem(code, f"{message}; the span was left out (errors='skip')", path)
                )
            else:
                raise _Stop(problem)

    # --- values -------------------------------------------------------------------

    def integer(self, value: object, path: str, default: int | None = 0) -> int | None:
        """An int from an int, an integral float, or a decimal string (JSON int64)."""
        if value is None:
            return default
        number = _as_int(value)
        if number is not None:
            return number
        if isinstance(value, str) and _INTEGER.fullmatch(value):
            # more digits than int() takes (sys.get_int_max_str_digits())
            self.report("not-an-integer", f"integer of {len(value)} digits is too long", path)
        else:
            self.report("not-an-integer", f"expected an integer, got {shown(value)}", path)
        return None

    @staticmethod
    def score(value: object) -> float | None:
        """A finite number, or ``None`` (validate checks scores on the whole tree)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        try:
            number = float(value)
        except OverflowError:  # an int too large for a float
            return None
        return number if math.isfinite(number) else None

    # --- the text -----------------------------------------------------------------

    def text(self, given: str | bytes | None) -> tuple[TextIndex | None, PartMap | None]:
        raw = self.raw
        if isinstance(given, (bytes, bytearray)):
            given = TextIndex(given).text  # TextEncodingError for invalid UTF-8
        if raw.text is not None and given is not None and given != raw.text:
            self.report(
                "text-conflict",
                "text= differs from the answer text the input holds "
                f"({len(given)} vs {len(raw.text)} characters)",
                raw.prefix + ("answer_text" if raw.shape == "answer" else "content"),
            )
        text = raw.text if raw.text is not None else given
        if text is None:
            return None, None
        parts = [p for p in raw.parts or () if p.text is not None and not p.thought]
        try:
            if raw.text is not None and len(parts) > 1:
                part_map = PartMap([p.text or "" for p in parts])
                return part_map.index, part_map
            return TextIndex(text), None
        except TextEncodingError as exc:
            self.report("text-not-utf8", str(exc), raw.prefix + "answer_text")
            return None, None

    # --- one span -----------------------------------------------------------------

    def span(
        self, span: RawSpan, index: TextIndex | None, parts: PartMap | None, hint: Hint
    ) -> Citation | None:
        """The citation of ``span``; ``hint``, its bytes and characters if placed in bulk."""
        if span.anchor:
            return self.anchored(span, index)
        # ints (and absent values) are the common case: checked without a call
        start = span.start
        if type(start) is not int:
            start = self.integer(start, f"{span.offsets_path}.{span.names[0]}")
        end = span.end
        if type(end) is not int:
            end = self.integer(end, f"{span.offsets_path}.{span.names[1]}")
        part = span.part
        if part is not None and type(part) is not int:
            part = self.integer(part, f"{span.offsets_path}.{span.names[2]}", default=None)
        sources = self.sources(span)
        score = None if span.score is None else self.score(span.score)
        scores = span.source_scores
        source_scores: tuple[float, ...] = ()
        if scores:
            source_scores = tuple(scores)  # type: ignore[arg-type]
            if not _unit_floats(source_scores):
                source_scores = tuple(s for s in map(self.score, scores) if s is not None)
        if start is None or end is None or sources is None:
            return None
        char_start = char_end = None
        cited = span.segment_text
        if type(cited) is not str:
            cited = None
        if index is not None:
            if hint is not None and (
                cited is None
                or (len(cited) == hint[3] - hint[2] and index.text.startswith(cited, hint[2]))
            ):
                # placed in bulk (whole-text offsets in range) and its text agrees
                start, end, char_start, char_end = hint
            else:
                located = self.locate(span, start, end, part, index, parts, hint)
                if located is None:
                    return None
                start, end, char_start, char_end = located
            # the cited text is sliced from the one answer text when asked: no copy
            shared = self._shared
            if shared is None or shared.text is not index.text:
                shared = self._shared = SharedText(index.text)
            return new_citation(
                start, end, char_start, char_end, shared, sources,
                span.kind, score, source_scores, part, span.path,
            )  # fmt: skip
        if start > end:
            self.report(
                "offset-inverted",
                f"{span.names[0]} {shown(start)} is after {span.names[1]} {shown(end)}",
                f"{span.offsets_path}.{span.names[1]}",
            )  # fmt: skip
            return None
        elif start < 0:  # out of range whatever the text
            if not self.clamp:
                self.report(
                    "offset-out-of-range", f"byte offset {shown(start)} is negative",
                    f"{span.offsets_path}.{span.names[0]}",
                )  # fmt: skip
                return None
            start, end = 0, max(end, 0)
        # positional, in Citation's field order: start, end, char_start, char_end, text,
        # sources, kind, score, source_scores, part, path
        return new_citation(
            start, end, char_start, char_end, cited, sources, span.kind, score, source_scores,
            part, span.path,
        )  # fmt: skip

    def anchored(self, span: RawSpan, index: TextIndex | None) -> Citation | None:
        """A span without offsets (a grounded generation claim): where its text occurs in
        the answer, when it occurs exactly once; otherwise a problem, never a guess."""
        sources = self.sources(span)
        wanted = span.segment_text
        path = f"{span.path}.{span.names[0]}"
        if sources is None:
            return None
        if not isinstance(wanted, str) or not wanted:
            self.unplaced("claim-not-found", "the claim has no text to place it by", path)
            return None
        if index is None:
            self.unplaced("claim-not-found", f"no answer text to find {_short(wanted)} in", path)
            return None
        text = index.text
        if self.occurrences is None:
            wanted_texts = [s.segment_text for s in self.raw.spans if s.anchor]
            self.occurrences = occurrences(text, [w for w in wanted_texts if isinstance(w, str)])
        hits = self.occurrences.get(wanted, ())
        at = hits[0] if hits else -1
        if at == -1:
            self.unplaced(
                "claim-not-found", f"the claim {_short(wanted)} is not in the answer text", path
            )
            return None
        if len(hits) > 1:
            again = hits[1]
            self.unplaced(
                "claim-ambiguous",
                f"the claim {_short(wanted)} occurs at characters {at} and {again} of the "
                "answer text: it could be either",
                path,
            )
            return None
        end = at + len(wanted)
        score = None if span.score is None else self.score(span.score)
        scores = tuple(s for s in map(self.score, span.source_scores) if s is not None)
        return Citation(
            index.to_byte(at), index.to_byte(end), at, end, wanted, sources, span.kind, score,
            scores, None, span.path,
        )  # fmt: skip

    def unplaced(self, code: str, message: str, path: str) -> None:
        """A span that cannot be placed by its text: raised under ``"strict"``, recorded
        (and the span left out) otherwise."""
        if self.mode == "strict":
            raise _Stop(Problem(code, message, path))
        if self.mode != "collect":
            message += "; the span was left out"
        self.problems.append(Problem(code, message, path))

    def locate(
        self,
        span: RawSpan,
        start: int,
        end: int,
        part: int | None,
        index: TextIndex,
        parts: PartMap | None,
        hint: Hint,
    ) -> tuple[int, int, int, int] | None:
        """Joined-text byte and char offsets of a span, checked against its own text and,
        where they disagree, re-anchored on it (by the mode)."""
        o = span.offsets_path
        unit = self.raw.unit
        first, last, where = 0, index.char_length, ""
        if span.part_relative and part is not None:  # absent: offsets into the whole answer
            bounds = self.part_bounds(part or 0, parts, index, f"{o}.{span.names[2]}")
            if bounds is None:
                return None
            (first, last), where = bounds, f" of part {part or 0}" if parts else ""
        if hint is not None and not first and last == index.char_length:
            placed: tuple[int, int] | Problem = hint[2:]
        else:
            placed = self.place(span, start, end, first, last, where, index)
        wanted = span.segment_text if isinstance(span.segment_text, str) else None
        if type(placed) is tuple and (wanted is None or _at(index.text, wanted, *placed)):
            char_start, char_end = placed
            if unit == "byte" and self.snap is None and not self.clamp:  # already exact
                origin = self.extent(first, last, index)[0]
                return origin + start, origin + end, char_start, char_end
            return index.to_byte(char_start), index.to_byte(char_end), char_start, char_end
        if self.mode == "strict" or wanted is None:
            problem = placed if isinstance(placed, Problem) else self.mismatch(span, placed, index)
            self.report(problem.code, problem.message, problem.path)
            return None
        origin = self.extent(first, last, index)[0]
        found = _reanchor(wanted, origin + start, origin + end, first, last, unit, index)
        if isinstance(found, str):  # not repairable
            problem = placed if isinstance(placed, Problem) else self.mismatch(span, placed, index)
            self.report(problem.code, f"{problem.message} (not repairable: {found})", problem.path)
            return None
        char_start, char_end = found
        byte_start, byte_end = index.to_byte(char_start), index.to_byte(char_end)
        if unit == "byte":
            new_start, new_end = byte_start - origin, byte_end - origin
        else:
            new_start = index.convert(char_start, "char", unit) - origin
            new_end = index.convert(char_end, "char", unit) - origin
        names = _PLURALS[unit]
        drift = Problem(
            "offset-drift",
            (f"re-anchored from {names} {shown(start)}..{shown(end)} to {new_start}..{new_end}"
             f"{where} on its segment.text {_short(wanted)}")
            if self.mode != "collect"
            else (f"offsets {shown(start)}..{shown(end)}{where} disagree with its segment.text "
                  f"{_short(wanted)}, which is at {new_start}..{new_end}: repairable"),
            f"{o}.{span.names[0]}",
        )  # fmt: skip
        self.problems.append(drift)
        return byte_start, byte_end, char_start, char_end

    def place(
        self, span: RawSpan, start: int, end: int, first: int, last: int, where: str,
        index: TextIndex,
    ) -> tuple[int, int] | Problem:  # fmt: skip
        """The character span of offsets ``start..end`` (in the input's unit) within the
        characters ``first..last`` of the text, or the problem that prevents it."""
        unit = self.raw.unit
        origin, limit = self.extent(first, last, index)
        if self.clamp:
            start, end = min(max(start, 0), limit), min(max(end, 0), limit)
        o = span.offsets_path
        for name, value in ((span.names[0], start), (span.names[1], end)):
            if not 0 <= value <= limit:
                return Problem(
                    "offset-out-of-range",
                    f"{_NOUNS[unit]} {shown(value)} is out of range: the text{where} has "
                    f"{limit} {_PLURALS[unit]}",
                    f"{o}.{name}",
                )
        if start > end:
            return Problem(
                "offset-inverted",
                f"{span.names[0]} {shown(start)} is after {span.names[1]} {shown(end)}",
                f"{o}.{span.names[1]}",
            )
        start_snap: Snap | None
        end_snap: Snap | None
        if self.snap == "outward":
            start_snap, end_snap = "floor", "ceil"
        else:
            start_snap = end_snap = self.snap
        chars = []
        for name, value, snap in (
            (span.names[0], start, start_snap),
            (span.names[1], end, end_snap),
        ):
            try:
                if unit == "byte":
                    chars.append(index.to_char(origin + value, snap=snap))
                else:
                    chars.append(index.convert(origin + value, unit, "char", snap=snap))
            except OffsetError:
                return Problem(
                    "offset-splits-character", _split(index, origin, value, where, unit),
                    f"{o}.{name}",
                )  # fmt: skip
        return chars[0], chars[1]

    def extent(self, first: int, last: int, index: TextIndex) -> tuple[int, int]:
        """Where the characters ``first..last`` start, and how long they are, in the
        input's unit (computed once per part)."""
        extent = self.extents.get((first, last))
        if extent is None:
            unit = self.raw.unit
            origin = index.convert(first, "char", unit) if first else 0
            if last == index.char_length:
                end = index.length(unit)
            else:
                end = index.convert(last, "char", unit)
            extent = self.extents[(first, last)] = (origin, end - origin)
        return extent

    def mismatch(self, span: RawSpan, placed: tuple[int, int], index: TextIndex) -> Problem:
        cited = index.text[slice(*placed)]
        a, b = index.to_byte(placed[0]), index.to_byte(placed[1])
        return Problem(
            "segment-text-mismatch",
            f"segment text {_short(str(span.segment_text))} differs from the text at bytes "
            f"{a}..{b}, {_short(cited)}",
            f"{span.offsets_path}.text",
        )

    def part_bounds(
        self, part: int, parts: PartMap | None, index: TextIndex, path: str
    ) -> tuple[int, int] | None:
        """The character bounds of text part ``part`` in the joined text."""
        raw_parts = self.raw.parts or []
        positions = self.positions
        if positions is None:  # built once: a scan per span is quadratic in the parts
            text_parts = (p for p in raw_parts if p.text is not None and not p.thought)
            positions = self.positions = {}
            for k, p in enumerate(text_parts):
                positions.setdefault(p.index, k)
        position = positions.get(part)
        if position is None or (parts is None and position != 0):
            what = "no such part"
            if 0 <= part < len(raw_parts):
                what = "a thought part" if raw_parts[part].thought else "not a text part"
            elif not raw_parts:
                what = "the input has no content parts"
            self.report(
                "part-index-out-of-range",
                f"part_index {shown(part)} names no text part of the answer ({what}; "
                f"{len(raw_parts)} parts)",
                path,
            )
            return None
        if parts is None:
            return 0, index.char_length
        return parts.bounds(position, "char")

    # --- sources ------------------------------------------------------------------

    def sources(self, span: RawSpan) -> tuple[Source, ...] | None:
        if span.inline_source is not None:
            return (span.inline_source,)
        table = self.table
        window = span.ref_window
        if window is None:
            base, size = 0, len(table)
        else:  # the refs index a table of their own, at base in raw.sources
            base, size = window[0], window[1]
        out: list[Source] = []
        ok = True
        if span.refs_not_a_list is not None:
            return self.not_a_list(span, span.refs_not_a_list)
        for j, value in enumerate(span.refs):
            if type(value) is int and 0 <= value < size:  # the common case, checked
                out.append(table[base + value])
                continue
            number = self.reference(span, j, size)
            if number is None:
                ok = False
            else:
                out.append(table[base + number])
        return tuple(out) if ok else None

    def not_a_list(self, span: RawSpan, value: object) -> tuple[Source, ...]:
        """A span whose list of references is no list: kept without sources (it has no
        readable ones), and recorded; ``"strict"`` raises it."""
        field = span.ref_path.split("[", 1)[0]  # ".grounding_chunk_indices"
        problem = Problem(
            "references-not-a-list",
            f"{field.lstrip('.')} must be a list, not {shown(value)}: the span has no sources",
            span.path + field,
        )
        if self.mode == "strict":
            raise _Stop(problem)
        self.problems.append(problem)
        return ()

    def reference(self, span: RawSpan, j: int, size: int) -> int | None:
        by_id = span.ref_kind == "reference_id"
        noun = "reference_id" if by_id else "chunk index"
        code = "reference-id" if by_id else "chunk-index"
        table = "references" if by_id else "grounding_chunks"
        if span.ref_window is not None:
            table = span.ref_window[2]
        value = span.refs[j]
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and value.isdecimal() and value.isascii():
            try:
                number = int(value)
            except ValueError:  # more digits than int() takes: out of range in any case
                number = size
        if number is None:
            self.report(
                f"{code}-not-a-number", f"{noun} {shown(value)} is not a number", span.ref_at(j)
            )
            return None
        if not 0 <= number < size:
            self.report(
                f"{code}-out-of-range",
                f"{noun} {excerpt(value) if isinstance(value, str) else shown(number)} is out of "
                f"range: {table} has {size} entries",
                span.ref_at(j),
            )
            return None
        return number


def _at(text: str, wanted: str, start: int, end: int) -> bool:
    """Whether ``text[start:end] == wanted``, without copying the slice."""
    return end - start == len(wanted) and text.startswith(wanted, start)


def occurrences(text: str, wanted: list[str]) -> dict[str, tuple[int, ...]]:
    """Where each of ``wanted`` occurs in ``text``: its first two character positions
    (one: it occurs once; none: not at all).

    Few strings are looked for with ``str.find``; many (each search scans the text to
    its end to rule out a second occurrence) in one pass over the positions where one
    of them can start: a character that starts one of them, whose next few characters
    start one of them too.

    >>> occurrences("Köln, Köln und Bonn", ["Köln", "Bonn", "Rom"])
    {'Köln': (0, 6), 'Bonn': (15,), 'Rom': ()}
    """
    distinct = list(dict.fromkeys(w for w in wanted if w))
    found: dict[str, list[int]] = {w: [] for w in distinct}
    if not distinct:
        return {}
    if len(distinct) * len(text) <= _FIND_BUDGET:
        for w in distinct:
            first = text.find(w)
            if first != -1:
                found[w].append(first)
                second = text.find(w, first + 1)
                if second != -1:
                    found[w].append(second)
    else:
        # the strings by their first k characters, then by length: at a position, one
        # slice and one lookup per length tells which of them starts there
        k = min(8, min(map(len, distinct)))
        heads: dict[str, dict[int, set[str]]] = {}
        for w in distinct:
            heads.setdefault(w[:k], {}).setdefault(len(w), set()).add(w)
        groups = {head: tuple(by_length.items()) for head, by_length in heads.items()}
        starts = re.compile("[" + "".join(sorted({re.escape(w[0]) for w in distinct})) + "]")
        group_of = groups.get
        for match in starts.finditer(text):
            at = match.start()
            group = group_of(text[at : at + k])
            if group is not None:
                for length, names in group:
                    piece = text[at : at + length]
                    if piece in names:
                        places = found[piece]
                        if len(places) < 2:
                            places.append(at)
    return {w: tuple(places) for w, places in found.items()}


_FIND_BUDGET = 2_000_000
"""Characters that ``str.find`` may scan (strings x text) before :func:`occurrences`
takes its one pass instead."""


def _unit_floats(values: tuple[object, ...]) -> bool:
    """Whether every value is a float in [0, 1] (what scores are, in the common case)."""
    for value in values:  # noqa: SIM110 (a loop: about half the cost of all() on a genexpr)
        if type(value) is not float or not 0.0 <= value <= 1.0:
            return False
    return True


def _reanchor(
    wanted: str, start: int, end: int, first: int, last: int, unit: Unit, index: TextIndex
) -> tuple[int, int] | str:
    """Where ``wanted`` is nearest the stated ``start..end`` (in ``unit``, of the whole
    text) within ``REPAIR_WINDOW`` characters and the characters ``first..last``; the
    reason it cannot be placed otherwise (absent, or two equally near occurrences)."""
    if not wanted:
        return "its segment.text is empty"
    length = index.length(unit)
    center = index.convert(min(max(start, 0), length), unit, "char", snap="floor")
    lo = max(first, center - REPAIR_WINDOW)
    hi = min(last, center + len(wanted) + REPAIR_WINDOW)
    text = index.text
    hits = []
    at = text.find(wanted, lo, hi)
    while at != -1:
        hits.append(at)
        at = text.find(wanted, at + 1, hi)
    if not hits:
        return f"its segment.text is not within {REPAIR_WINDOW} characters of the offsets"

    def distance(char: int) -> int:
        return abs(index.convert(char, "char", unit) - start) + abs(
            index.convert(char + len(wanted), "char", unit) - end
        )

    if len(hits) == 1:
        return hits[0], hits[0] + len(wanted)
    ranked = sorted(hits, key=distance)
    if distance(ranked[0]) == distance(ranked[1]):
        return (
            f"its segment.text occurs at characters {min(ranked[:2])} and {max(ranked[:2])}, "
            "equally near the offsets"
        )
    return ranked[0], ranked[0] + len(wanted)


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _split(index: TextIndex, base: int, value: int, where: str, unit: Unit) -> str:
    char = index.convert(base + value, unit, "char", snap="floor")
    ch = index.text[char]
    lo = index.convert(char, "char", unit) - base
    hi = lo + (len(ch.encode("utf-8")) if unit == "byte" else len(ch.encode("utf-16-le")) // 2)
    noun, units = ("byte offset", "bytes") if unit == "byte" else ("UTF-16 offset", "units")
    return (
        f"{noun} {value}{where} splits {ch!r} (U+{ord(ch):04X}), "
        f"which occupies {units} [{lo}, {hi})"
    )


def resolve(
    raw: RawAnswer,
    text: str | bytes | None,
    *,
    mode: Mode,
    snap: SpanSnap | None = None,
    clamp: bool = False,
) -> Resolution:
    """Check ``raw`` and build its citations.

    ``mode`` is a span policy (:data:`~grounding_protos.citations.SpanPolicy`): ``"strict"``
    raises the first problem (``OffsetError`` for offsets, ``CitationError`` otherwise), including a
    ``segment.text`` that disagrees with its offsets; ``"repair"`` re-anchors such a
    span on its text when that is unambiguous and raises otherwise; ``"skip"`` leaves
    out what cannot be placed. ``"collect"`` (validate) never raises and lists every
    problem. Every repair and skip is in ``problems``.
    """
    resolver = _Resolver(raw, mode, snap, clamp)
    index: TextIndex | None = None
    try:
        for note in raw.notes:  # the reader's findings about the whole input
            if mode == "strict" and note.code in STRICT_NOTES:
                raise _Stop(note)
            resolver.problems.append(note)
        index, parts = resolver.text(text)
        result = Resolution(index.text if index is not None else None)
        hints: Iterable[Hint] = repeat(None)
        if index is not None and parts is None:
            hints = _bulk_place(raw, index, snap, clamp)
        for span, hint in zip(raw.spans, hints, strict=False):  # hints may repeat None
            citation = resolver.span(span, index, parts, hint)
            if citation is not None:
                result.citations.append(citation)
    except _Stop as stop:
        problem = stop.problem
        if problem.code in _SPAN_CODES:
            problem = _explained(problem, raw, index, snap, clamp)
        _raise(problem)
    result.problems = resolver.problems
    if result.problems:  # what the problems together say, once
        result.problems = _diagnosed(result.problems, raw, index, snap, clamp)
    return result


# --- what several problems together say (only looked at when there are problems) ------

# problems of a span's offsets or its segment.text
_SPAN_CODES = _OFFSET_CODES | {"segment-text-mismatch"}


def _explained(
    problem: Problem, raw: RawAnswer, index: TextIndex | None, snap: object, clamp: bool
) -> Problem:
    """A span's problem with the fix it points to, where the input shows one: offsets
    that are characters (:func:`_in_characters`), or a lone chunk of a stream."""
    spans = _in_characters(raw, index, snap, clamp)
    if spans:
        return Problem(problem.code, f"{problem.message}; {_characters_note(raw, spans)}",
                       problem.path)  # fmt: skip
    if problem.code == "offset-out-of-range" and _fit_utf16(raw, index, snap, clamp):
        return Problem(problem.code, f"{problem.message}; {_UTF16_NOTE}", problem.path)
    if problem.code == "offset-out-of-range" and raw.shape == "candidate":
        return Problem(problem.code, f"{problem.message}; {_CHUNK_NOTE}", problem.path)
    return problem


_CHUNK_NOTE: Final = (
    "offsets past the end of the text look like one chunk of a stream (a streamed "
    "answer's offsets count the whole answer's text, and its grounding metadata comes "
    "with the last chunk): read the whole stream with read_stream"
)


def _diagnosed(
    problems: list[Problem], raw: RawAnswer, index: TextIndex | None, snap: object, clamp: bool
) -> list[Problem]:
    """The problems, with offsets in characters said once instead of one repair per
    span, and the first offset past the end of a Gemini answer's text pointing to
    ``read_stream``."""
    drifts = [p for p in problems if p.code == "offset-drift"]
    if drifts:
        spans = _in_characters(raw, index, snap, clamp)
        if spans:
            note = Problem("offsets-in-characters", _characters_note(raw, spans), drifts[0].path)
            out = [p for p in problems if p.code != "offset-drift"]
            out.insert(problems.index(drifts[0]), note)
            return out
    hint: str | None = None
    if any(p.code == "offset-out-of-range" for p in problems):
        if _fit_utf16(raw, index, snap, clamp):
            hint = _UTF16_NOTE
        elif raw.shape == "candidate":
            hint = _CHUNK_NOTE
    if hint is not None:
        for k, p in enumerate(problems):
            if p.code == "offset-out-of-range":
                problems = list(problems)
                problems[k] = Problem(p.code, f"{p.message}; {hint}", p.path)
                break
    return problems


_UTF16_NOTE: Final = (
    "the offsets fit the text counted in UTF-16 units (as JavaScript counts), not in "
    "characters: read(obj, unit='utf16') reads them so"
)


def _fit_utf16(raw: RawAnswer, index: TextIndex | None, snap: object, clamp: bool) -> bool:
    """Whether offsets taken as characters, some past the end of their text, all fit it
    counted in UTF-16 units (a text with astral characters, such as emoji, is longer in
    UTF-16 units), none inside a surrogate pair."""
    if index is None or raw.unit != "char" or snap is not None or clamp:
        return False
    parts = {p.index: p.text for p in raw.parts or () if p.text is not None and not p.thought}
    past = False
    for span in raw.spans:
        text = index.text
        if span.part_relative and span.part is not None:
            part = parts.get(span.part) if isinstance(span.part, int) else None
            if part is None:
                return False
            text = part
        units = TextIndex(text) if text is not index.text else index
        for value in (span.start, span.end):
            offset = 0 if value is None else _as_int(value)
            if offset is None or offset < 0:
                return False
            if offset > units.length("utf16"):
                return False
            past = past or offset > len(text)
            try:
                units.from_utf16(offset)
            except OffsetError:
                return False  # inside a surrogate pair: not UTF-16 units either
    return past


def _characters_note(raw: RawAnswer, spans: int) -> str:
    what = "the span's" if spans == 1 else f"each of the {spans} spans'"
    return (
        f"the offsets look like characters, not {_PLURALS[raw.unit]}: {what} segment.text "
        "is at its offsets counted in characters; read(obj, unit='char') reads them so"
    )


def _in_characters(raw: RawAnswer, index: TextIndex | None, snap: object, clamp: bool) -> int:
    """How many spans have a ``segment.text`` that sits exactly at their offsets counted
    in characters, when every span with a text does (and the offsets are taken in
    another unit); 0 otherwise."""
    if index is None or raw.unit == "char" or snap is not None or clamp:
        return 0
    text = index.text
    several_parts = sum(1 for p in raw.parts or () if p.text is not None and not p.thought) > 1
    matched = 0
    for span in raw.spans:
        wanted = span.segment_text
        if not isinstance(wanted, str) or not wanted:
            continue
        if span.part_relative and span.part is not None and several_parts:
            return 0  # offsets into one of several parts: not looked at
        start = 0 if span.start is None else _as_int(span.start)
        end = 0 if span.end is None else _as_int(span.end)
        if start is None or end is None or not 0 <= start <= end <= len(text):
            return 0
        if not _at(text, wanted, start, end):
            return 0
        matched += 1
    return matched


def _bulk_place(raw: RawAnswer, index: TextIndex, snap: SpanSnap | None, clamp: bool) -> list[Hint]:
    """The byte and character spans of every span whose whole-text offsets are plain ints
    in range, in bulk conversions (``None`` for the others, in the order of the spans);
    all ``None`` when one of them splits a character, which the spans then find out one
    by one."""
    hints: list[Hint] = [None] * len(raw.spans)
    if snap is not None or clamp:
        return hints
    unit = raw.unit
    size = index.length(unit)
    # offsets relative to the one text part are whole-text offsets too
    text_parts = [p.index for p in raw.parts or () if p.text is not None and not p.thought]
    only = text_parts[0] if len(text_parts) == 1 else None
    picked: list[int] = []
    offsets: list[int] = []
    for position, span in enumerate(raw.spans):
        start = span.start  # read as span() reads it: absent is 0
        if type(start) is not int:
            start = 0 if start is None else _as_int(start)
        end = span.end
        if type(end) is not int:
            end = 0 if end is None else _as_int(end)
        part = span.part
        if (
            type(start) is int
            and type(end) is int
            and 0 <= start <= end <= size
            and (part is None or not span.part_relative or (type(part) is int and part == only))
        ):
            picked.append(position)
            offsets.append(start)
            offsets.append(end)
    try:
        if unit == "byte":
            chars = index.to_chars(offsets)
            bytes_ = offsets
        else:
            chars = offsets if unit == "char" else index.convert_many(offsets, unit, "char")
            bytes_ = index.to_bytes(chars)
    except OffsetError:
        return hints
    placed = zip(bytes_[0::2], bytes_[1::2], chars[0::2], chars[1::2], strict=True)
    for position, hint in zip(picked, placed, strict=True):
        hints[position] = hint
    return hints


def _as_int(value: object) -> int | None:
    """An int from an int, an integral float, or a decimal string (JSON int64, as in
    Discovery Engine's ``"startIndex": "12"``); ``None`` for anything else."""
    if isinstance(value, str):
        if value.isdigit() and value.isascii() and len(value) < 19:  # the common case
            return int(value)
        try:
            return int(value) if _INTEGER.fullmatch(value) else None
        except ValueError:  # more digits than int() takes
            return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _raise(problem: Problem) -> NoReturn:
    message = f"{problem.path}: {problem.message}" if problem.path else problem.message
    if problem.code in _OFFSET_CODES:
        raise OffsetError(message)
    if problem.code == "text-not-utf8":
        raise TextEncodingError(message)
    raise CitationError(message, path=problem.path, code=problem.code)
