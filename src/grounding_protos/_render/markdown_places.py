"""Where the markers of Markdown output go, so that they never change its code or URLs.

``render(style="markdown")`` writes the answer's own Markdown with ``[1]`` (or
``[^1]``) inserted. A marker inserted at a span's end as it is would rewrite what the
Markdown means wherever that end falls inside a construct: ``get(pl[1]ace_id)`` in a
code span is other code, ``https://maps[2].example`` in a link destination another URL.
So the Markdown is parsed with the HTML view's parser (markdown-it-py, CommonMark plus
GFM tables and strikethrough, the same token alignment as ``markdown_html``), and a
marker whose place is inside one of these goes right after it:

- inline code, a link (its text or its destination; a reference link too), an image,
  an autolink (``<https://…>``), raw HTML (a tag or a comment), a bare URL (which GFM
  renderers link: a marker right after one gets a space before it, or the link would
  take it in), an escape or entity, an emphasis delimiter run;
- a line's block syntax (indentation, ``>``, a list item's bullet or number, a heading's
  ``#``): before the line;
- a code block (fenced or indented) or a link reference definition: on the line after
  it, as a paragraph of its own (a blank line after the marker when a line follows, a
  ``"\\n"`` before it when the block ends the text without one). A fence that is never
  closed runs to the end of the text, where nothing can follow it: its markers go on a
  line of their own before it;
- the end of a line of only spaces or tabs: before them (four of them and the marker
  would start an indented code block).

A marker before a ``(`` or ``[`` gets a space after it (``[1](…)`` would be a link,
``[1][label]`` a reference link), and one after a ``[label]`` link a space before it. Table rows
keep their cells: a marker after a row's last ``|`` (or in the delimiter
row) goes to the end of the cell content before it, and one before a table's first
cell on a line of its own before the table. A marker at the start of a line (a span
that ends with its line's newline) goes before that newline (and the blank lines
before it), so that it never turns the next line's ``#``, ``-`` or ``|`` into text,
nor joins two blocks on a blank line; one before a text that starts with
other syntax than a paragraph's is a paragraph of its own.

Raw HTML is read as the HTML view reads it, as text, with its tags kept whole; and as
a viewer with raw HTML on reads it (GitHub's, say): an HTML block (a line that starts
with a tag, running to the next blank line or to its end condition, ``-->``, ``</pre>``
…) is one construct, and a marker inside it goes after it, as a paragraph of its own
(a blank line before it, since a line right after such a block would continue it).

A long text (a recorded stream's answer can have tens of millions of characters) is
parsed a segment at a time, so that the parse takes the memory of a segment, not of
the text. It is cut at the start of a line that begins at column 0 (with no space, tab
or ``[``) after a blank line, the first such at least ``_SEGMENT`` characters into the
segment. There every paragraph, table, indented code block, quote and list item has
ended (a list that goes on after the blank line is two lists with the same items), so
the blocks of the segments are those of the whole text, but for blocks that go on over
blank lines: a fence not closed yet, an HTML block before its end condition (``-->``,
``</pre>``…). A segment in which one of them runs to the end is made longer (at least
twice as long) and parsed again. Link reference definitions hold in the whole text,
before or after their use: the segments with a ``]:`` are read for them first (block
tokens only), the first definition of a label kept, as markdown-it keeps it. No
construct crosses a cut, and a marker is placed from the constructs around the point
it reaches once moved back over line breaks and blank lines (``_back``): only the
segments holding such a point (and the first) are parsed whole, each marker is placed
with the constructs of its segment alone, and the places are those of the whole text
parsed at once.

Each marker moves forward or back over syntax only, never over a character the reader
sees as text of another claim, and the text itself is never changed: removing the
markers (with the spaces and line breaks some of them bring) gives it back exactly.
"""

from __future__ import annotations

import bisect
import itertools
import re
import warnings
from collections.abc import Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from grounding_protos._render.markdown_html import (
    _NEWLINES,
    _TAG_LIKE,
    Misaligned,
    _inline_map,
    _Lines,
    _link_end,
    _Map,
    _parser,
    available,
)

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

Place = tuple[int, str, str]
"""Where a marker goes: a position in the text, and what it needs written before and
after it there (line breaks, for a marker after a code block)."""

# A fence's closing line (container prefixes such as "> " and list indentation kept).
_CLOSING: Final = re.compile(r"[ \t>]*(`{3,}|~{3,})[ \t]*")
# A bare URL's reach as GFM's extended autolinks take it: up to a space or "<". Its
# trailing punctuation (and an unbalanced ")") is not part of the link, but a marker
# written right after it would be: such a marker gets a space before it.
_URL_REACH: Final = re.compile(r"(?:https?://|www\.)[^\s<]*", re.IGNORECASE)
_TRAILING: Final = "?!.,:*_~"


def _gfm_url(reach: str) -> str:
    """The part of a bare URL's reach that GFM links (its trailing punctuation cut)."""
    while reach:
        if reach[-1] in _TRAILING or (reach[-1] == ")" and reach.count(")") > reach.count("(")):
            reach = reach[:-1]
        else:
            break
    return reach


class _Found:
    """The constructs a marker may not go into, of one segment of the text (see
    :func:`_constructs`), in positions of the text."""

    def __init__(self) -> None:
        self.inline: list[tuple[int, int]] = []  # [start, end): the marker goes to end
        # the first line's start, the last line's end, the position after the block,
        # whether it is closed
        self.blocks: list[tuple[int, int, int, bool]] = []
        # a table's rows: (first line's start, end of its last line, its cells' spans)
        self.tables: list[tuple[int, int, list[tuple[int, int]]]] = []
        # bare URLs: where each starts and how far a GFM renderer would take it
        self.reaches: list[tuple[int, int]] = []
        # where links written "[label]" end: "[label][1]" would ask for label "1"
        self.label_ends: set[int] = set()
        # HTML blocks, as a viewer with raw HTML on reads them: (first line's start,
        # last line's end, the position after the block)
        self.html: list[tuple[int, int, int]] = []
        self.opens_with_text = False  # the text starts with a paragraph's text
        # the blocks of both readings, (first line's start, last line's end), by start,
        # and how far any of them up to each one reaches (for the outermost around a point)
        self.regions: list[tuple[int, int]] = []
        self.reach: list[int] = []

    @classmethod
    def at(cls, part: _Found, offset: int) -> _Found:
        """The constructs of a segment (``part``, in positions of the segment) in
        positions of the text, where the segment starts at ``offset``; ordered for the
        look-ups."""

        def shift(span: tuple[int, int]) -> tuple[int, int]:
            return span[0] + offset, span[1] + offset

        found = cls()
        found.inline = sorted(map(shift, part.inline))
        found.blocks = sorted((a + offset, b + offset, c + offset, d) for a, b, c, d in part.blocks)
        found.tables = [
            (a + offset, b + offset, list(map(shift, cells))) for a, b, cells in part.tables
        ]
        found.reaches = sorted(map(shift, part.reaches))
        found.label_ends = {end + offset for end in part.label_ends}
        found.html = sorted((a + offset, b + offset, c + offset) for a, b, c in part.html)
        found.opens_with_text = part.opens_with_text and offset == 0
        found.regions = sorted([(a, b) for a, b, _ in found.html] + [b[:2] for b in found.blocks])
        found.reach = list(itertools.accumulate((b for _, b in found.regions), max))
        return found

    def outermost(self, first: int, own_line: bool) -> int | None:
        """The start of the first block (of either reading) that starts before ``first``
        and goes on past it (or ends there, for a marker not on a line of its own)."""
        i = bisect.bisect_left(self.reach, first + 1 if own_line else first)
        if i < len(self.regions) and self.regions[i][0] < first:
            return self.regions[i][0]
        return None


def markdown_places(text: str, positions: Sequence[int]) -> list[Place] | None:
    """Where each marker at ``positions`` (character positions in ``text``, ascending)
    goes in Markdown output (see the module's docstring); ``None``, with a warning,
    when the tokens of the text (of a segment a marker is in) cannot be matched with
    it (the markers then stay where the spans end).

    >>> markdown_places("Call `get(x)` now.", [9, 18])
    [(13, '', ''), (18, '', '')]
    >>> markdown_places("Code:\\n```\\nx = 1\\n```\\nMore.", [12])
    [(20, '', '\\n\\n')]
    """
    if not positions:
        return []
    if not available():
        return None
    src = _NEWLINES.sub("\n", text).replace("\0", "\ufffd")
    # the LF dropped after each CR, as indices of text: positions past one shift
    removed = [m.start() + 1 for m in _NEWLINES.finditer(text) if m.end() - m.start() == 2]
    shifted = [r - k for k, r in enumerate(removed)]  # where each removal is in src
    backs = [_back(src, pos - bisect.bisect_left(removed, pos)) for pos in positions]
    wanted = sorted(set(backs))
    placed: dict[int, Place] = {}
    try:
        for start, end, found in _constructs(src, wanted):
            # the markers that arrive in this segment (one at the text's end in the last)
            first = bisect.bisect_left(wanted, start)
            stop = len(wanted) if end == len(src) else bisect.bisect_left(wanted, end)
            for q in wanted[first:stop]:
                placed[q] = _place(src, found, q)
    except Misaligned as exc:
        warnings.warn(
            f"could not find the Markdown constructs of this text ({exc}); its markers "
            "stay where the spans end, also inside code or links",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
    out = []
    for q in backs:
        q, before, after = placed[q]
        out.append((q + bisect.bisect_right(shifted, q), before, after))
    return out


def _back(src: str, q: int) -> int:
    """Where a marker at ``q`` is placed from: out of its line's block syntax, and back
    over line breaks and lines of only spaces or tabs. Only text is read here; where
    it arrives, the constructs around it decide the rest (so its segment is parsed)."""
    line = src.rfind("\n", 0, q) + 1
    prefix = _BLOCK_PREFIX.match(src, line, q)
    if prefix is not None and q <= prefix.end() and prefix.end() > line:
        q = line  # inside a line's block syntax ("- ", "> ", "## "): before the line
    while True:
        while q > 0 and src[q - 1] == "\n":
            q -= 1  # never at the start of a line (or on a blank one): before the newlines
        line = src.rfind("\n", 0, q) + 1
        if line == q or src[line:q].strip(" \t"):
            return q
        q = line  # after a line of only spaces: "    [1]" would be an indented code block


def _place(src: str, found: _Found, q: int) -> Place:
    """The place of a marker at ``q``, a position as :func:`_back` gives it."""
    place = _near(src, found, q)
    # The two readings of raw HTML can disagree on where a block ends ("</span>" then a
    # fence: one HTML block up to the blank line, or a fence never closed): a place
    # still inside a block of either reading goes before the outermost such block.
    first = place[0]
    own_line = place[1].startswith("\n")  # written on a line after ``first``'s line
    while (outer := found.outermost(first, own_line)) is not None:
        first = outer
    if first == place[0]:
        return place
    blank = first == 0 or src[max(first - 2, 0) : first] == "\n\n"
    return first, "" if blank else "\n", "\n\n"


def _near(src: str, found: _Found, q: int) -> Place:
    n = len(src)
    if q == 0 and n and not found.opens_with_text:
        return 0, "", "\n\n"  # before a block's syntax: a paragraph of its own
    i = bisect.bisect_right(found.html, (q, n + 1, n + 1)) - 1
    if i >= 0 and found.html[i][0] < q <= found.html[i][1]:
        past = found.html[i][2]
        if past >= n:  # the block ends the text: a blank line, then the marker
            return n, "\n" if src.endswith("\n") else "\n\n", ""
        return past, "\n", "\n" if src[past] == "\n" else "\n\n"
    inline = found.inline
    i = bisect.bisect_right(inline, (q, n + 1)) - 1
    if i >= 0 and inline[i][0] < q < inline[i][1]:
        q = inline[i][1]
    blocks = found.blocks
    i = bisect.bisect_right(blocks, (q, n + 1, n + 1, True)) - 1
    if i >= 0 and blocks[i][0] < q <= blocks[i][1]:
        first, _, past, closed = blocks[i]
        if not closed:  # a paragraph of its own before it (a blank line ends a table)
            blank = first == 0 or src[max(first - 2, 0) : first] == "\n\n"
            return first, "" if blank else "\n", "\n"
        if past == n:
            return past, "" if src.endswith("\n") else "\n", ""
        return past, "", "\n" if src[past] == "\n" else "\n\n"
    for start, end, cells in found.tables:
        if start <= q <= end:
            if any(a <= q <= b for a, b in cells):
                break
            ends = [b for _, b in cells if b <= q]
            if ends:
                q = max(ends)
                break
            return start, "", "\n\n"
    reaches = found.reaches
    i = bisect.bisect_left(reaches, (q, -1)) - 1
    glued = (i >= 0 and reaches[i][0] < q <= reaches[i][1]) or q in found.label_ends
    before = " " if glued else ""
    # "[1](…)" would be a link, "[1][label]" a reference link: a space keeps them apart
    after = " " if src.startswith(("(", "["), q) else ""
    return q, before, after


_HTML_START: Final = re.compile(r"^ {0,3}<", re.MULTILINE)
# A line's block syntax before its text: indentation, block quote markers, a list item's
# bullet or number, a heading's hashes (a marker inside it would make the line text).
_BLOCK_PREFIX: Final = re.compile(
    r"[ \t]*(?:>[ \t]?)*(?:(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)[ \t]*|#{1,6}(?=[ \t]|$)[ \t]*)?"
)


@cache
def _html_parser() -> MarkdownIt:
    """CommonMark with raw HTML on: what a viewer that shows raw HTML parses."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


# --- The text, a segment at a time ----------------------------------------------------------

_SEGMENT = 1 << 16
"""How many characters a segment of the text has at least (up to the next cut; the
last one may be shorter). A variable, so that tests can cut at every candidate."""

# A candidate cut: the start of a line that starts at column 0 with neither a space, a
# tab, a line break nor a "[" (a link reference definition there could join the ones
# before the blank line into one run of definitions), after a blank line.
_CUT: Final = re.compile(r"(?:^|\n)[ \t]*\n(?=[^ \t\n\[])")
# The blocks that may go on past a blank line: a fence never closed, an HTML block of
# the kinds that end only at their end condition ("-->", "</pre>"...). An indented code
# block is checked too, though one ends before the blank line a segment ends with.
_RUNNING: Final = frozenset({"fence", "code_block", "html_block"})


def _cut(src: str, start: int, size: int) -> int:
    """The first candidate cut at least ``size`` characters after ``start``, or the
    end of the text."""
    m = _CUT.search(src, start + max(size, 1) - 1)
    return len(src) if m is None else m.end()


def _runs_on(tokens: Sequence[Token], lines: int) -> bool:
    """Whether a block of ``tokens`` runs to the end of its segment of ``lines`` lines:
    what follows the segment may still be part of it."""
    return any(t.type in _RUNNING and t.map is not None and t.map[1] >= lines for t in tokens)


def _tokens(md: MarkdownIt, seg: str, env: dict[str, Any], inline: bool) -> list[Token]:
    """The tokens of ``seg`` (already normalized as markdown-it normalizes a text); only
    the block tokens, their inline content not parsed, unless ``inline``."""
    if inline:
        return md.parse(seg, env)
    tokens: list[Token] = []
    md.block.parse(seg, md, env, tokens)
    return tokens


_Segment = tuple[int, str, "list[Token] | None", "list[Token] | None"]


def _segments(
    src: str, wanted: Sequence[int], html: bool, references: dict[str, Any]
) -> Iterator[_Segment]:
    """The segments of ``src`` that the first segment and each position of ``wanted``
    (ascending) are in: ``(start, text, tokens, html_tokens)``, ``tokens`` parsed whole
    with the link reference definitions known (``None`` where a definition after the
    segment may still be missing: then parse it again once all are known), and
    ``html_tokens`` the block tokens of the raw-HTML-on reading, where ``html`` asks
    for it and the segment has a ``"<"``. Every segment is read, in order: parsed where
    it holds a definition (added to ``references``, the first of a label kept, as
    markdown-it keeps it) or may open a block that goes on past its end, in which
    case it is made longer (at least twice as long each time) until none does."""
    n = len(src)
    md = _parser(False)
    last_definition = src.rfind("]:")
    start = k = 0
    while True:  # an empty text is one (empty) segment
        end = _cut(src, start, _SEGMENT)
        k = bisect.bisect_left(wanted, start, k)
        while True:
            seg = src[start:end]
            want = start == 0 or (k < len(wanted) and (wanted[k] < end or end == n))
            whole = want and last_definition < end  # no definition after it
            check = end < n
            tokens = on = None
            if whole or "]:" in seg or (check and ("```" in seg or "~~~" in seg)):
                tokens = _tokens(md, seg, {"references": references}, whole)
            if want or check:
                on = _html_tokens(seg, html)
            lines = seg.count("\n") if check and (tokens or on) else 0
            if lines and (_runs_on(tokens or (), lines) or _runs_on(on or (), lines)):
                end = _cut(src, start, 2 * (end - start))
                continue
            break
        if want:
            yield (start, seg, tokens, on) if whole else (start, seg, None, None)
        if end == n:
            return
        start = end


def _html_tokens(seg: str, html: bool) -> list[Token] | None:
    """The block tokens of ``seg`` as a viewer with raw HTML on reads it, where that
    reading is made (``html``: a line of the text starts with a tag) and may differ
    (``seg`` has a ``"<"``)."""
    return _tokens(_html_parser(), seg, {}, False) if html and "<" in seg else None


def _constructs(src: str, wanted: Sequence[int]) -> Iterator[tuple[int, int, _Found]]:
    """The constructs of the segments of ``src`` where the markers arrive from
    :func:`_back` (``wanted``, ascending), and of the first (see the module's
    docstring): ``(start, end, constructs)``, in positions of ``src``, a segment at
    a time. No construct crosses a cut: a marker's place is found in its segment's."""
    md = _parser(False)
    html = _HTML_START.search(src) is not None
    references: dict[str, Any] = {}
    later = []
    for start, seg, tokens, on in _segments(src, wanted, html, references):
        if tokens is None:
            later.append((start, start + len(seg)))
            continue
        env = {"references": references}
        part = _segment_constructs(md, seg, env, tokens, on, start + len(seg) == len(src))
        yield start, start + len(seg), _Found.at(part, start)
    for start, end in later:  # every definition is known now
        seg = src[start:end]
        env = {"references": references}
        tokens, on = md.parse(seg, env), _html_tokens(seg, html)
        part = _segment_constructs(md, seg, env, tokens, on, end == len(src))
        yield start, end, _Found.at(part, start)


def _segment_constructs(
    md: MarkdownIt,
    src: str,
    env: dict[str, Any],
    tokens: Sequence[Token],
    html_tokens: Sequence[Token] | None,
    ends_text: bool,
) -> _Found:
    """The constructs of one segment ``src``, from its ``tokens`` (parsed with ``env``)
    and the block tokens of its raw-HTML-on reading, in positions of the segment
    (``ends_text``: the segment ends the text)."""
    lines = _Lines(src)
    count = len(lines.starts)

    def uncovered() -> list[bool]:
        # the empty line after a segment's last newline is the next segment's first
        # line, which a block covers: a cut is never before a definition
        return [False] * (count - 1) + [not ends_text]

    def start_of(line: int) -> int:
        return lines.starts[line] if line < count else len(src)

    found = _Found()
    found.opens_with_text = bool(
        tokens
        and tokens[0].type == "paragraph_open"
        and tokens[0].map is not None
        and tokens[0].map[0] == 0
        and not src[:1].isspace()
        and not src.startswith("<")  # raw HTML: an HTML block where a viewer allows it
    )
    covered = uncovered()
    cells: dict[int, _Map] = {}
    table: list[tuple[int, int]] | None = None
    for i, tok in enumerate(tokens):
        if tok.map is not None:
            for line in range(tok.map[0], min(tok.map[1], count)):
                covered[line] = True
        if tok.type == "inline" and tok.children and tok.map is not None:
            m = _inline_map(src, lines, tokens, i, cells)
            _inline(md, env, tok, m, found)
            if table is not None and tok.content:
                table.append((m.at(0), m.at(len(tok.content) - 1) + 1))
        elif tok.type in ("fence", "code_block") and tok.map is not None:
            found.blocks.append(_code_block(src, lines, tok, *tok.map))
        elif tok.type == "table_open" and tok.map is not None:
            table = []
            found.tables.append((start_of(tok.map[0]), lines.ends[tok.map[1] - 1], table))
        elif tok.type == "table_close":
            table = None
    _definitions(src, lines, covered, found)
    if html_tokens is not None:  # HTML blocks, as a viewer with raw HTML on sees them
        covered = uncovered()
        for tok in html_tokens:
            if tok.map is None:
                continue
            first, last = tok.map
            for line in range(first, min(last, count)):
                covered[line] = True
            if tok.type == "html_block":
                found.html.append((start_of(first), lines.ends[last - 1], start_of(last)))
            elif tok.type in ("fence", "code_block"):
                # code only there: "<!-- x -->" ends its HTML block on its line, so an
                # indented line after it is code, not the text it is with HTML off
                block = _code_block(src, lines, tok, first, last)
                if block not in found.blocks:
                    found.blocks.append(block)
        _definitions(src, lines, covered, found)  # those after an HTML block, too
    return found


def _code_block(
    src: str, lines: _Lines, tok: Token, first: int, last: int
) -> tuple[int, int, int, bool]:
    """A fenced or indented code block as ``_Found.blocks`` holds it: its first line's
    start, its last line's end, the position after it, and whether it is closed (a fence
    never closed runs to the end of the text)."""
    count = len(lines.starts)
    closed = True
    if tok.type == "fence":
        close = _CLOSING.fullmatch(src, lines.starts[last - 1], lines.ends[last - 1])
        closed = (
            last - 1 > first
            and close is not None
            and close.group(1)[0] == tok.markup[0]
            and len(close.group(1)) >= len(tok.markup)
        )
    past = lines.starts[last] if last < count else len(src)
    return lines.starts[first], lines.ends[last - 1], past, closed


def _definitions(src: str, lines: _Lines, covered: list[bool], found: _Found) -> None:
    """Link reference definitions, as blocks: the only lines of text no token covers."""
    count = len(lines.starts)
    line = 0
    while line < count:
        if covered[line] or not src[lines.starts[line] : lines.ends[line]].strip():
            line += 1
            continue
        first = line
        while line < count and not covered[line]:
            line += 1
        past = lines.starts[line] if line < count else len(src)
        found.blocks.append((lines.starts[first], lines.ends[line - 1], past, True))


def _inline(md: MarkdownIt, env: dict[str, Any], tok: Token, m: _Map, found: _Found) -> None:
    """Add the source spans of ``tok``'s constructs to ``found``, walking its children
    beside its content as ``markdown_html`` does (a link or image whole, from its
    ``[`` to the end of its destination and title)."""
    from markdown_it.rules_inline import image, link

    content = tok.content
    state: list[Any] = []
    p = 0  # content index
    inside_to: int | None = None  # in a link: where it ends
    out = found.inline

    def protect(first: int, last: int) -> None:
        if last > first:
            out.append((m.at(first), m.at(last - 1) + 1))

    def skip(p: int, markup: str) -> int:
        if not content.startswith(markup, p):
            raise Misaligned(f"{markup!r} not at content index {p}")
        return p + len(markup)

    for child in tok.children or ():
        t = child.type
        if inside_to is not None:  # a link's text: the link is one construct
            if t == "link_close":
                p, inside_to = inside_to, None
            continue
        if t == "text":
            text = child.content
            if not content.startswith(text, p):
                raise Misaligned(f"text {text!r} not at content index {p}")
            tags = [t.span() for t in _TAG_LIKE.finditer(text)] if "<" in text else []
            for a, b in tags:
                protect(p + a, p + b)
            for url in _URL_REACH.finditer(text):
                if any(a < url.end() and url.start() < b for a, b in tags):
                    continue  # inside a tag: the tag is the construct
                first, last = p + url.start(), p + url.end()
                protect(first, first + len(_gfm_url(url.group())))
                found.reaches.append((m.at(first), m.at(last - 1) + 1))
            p += len(text)
        elif t == "text_special":
            protect(p, skip(p, child.markup))
            p += len(child.markup)
        elif t in ("softbreak", "hardbreak"):
            q = p
            if t == "hardbreak" and content.startswith("\\\n", q):
                q += 1
            else:
                while q < len(content) and content[q] == " ":
                    q += 1
            if q >= len(content) or content[q] != "\n":
                raise Misaligned(f"no line break at content index {p}")
            q += 1
            while q < len(content) and content[q] in " \t":
                q += 1
            p = q
        elif t in ("em_open", "strong_open", "s_open", "em_close", "strong_close", "s_close"):
            end = skip(p, child.markup)
            protect(p, end)
            p = end
        elif t == "code_inline":
            ticks = child.markup
            opened = skip(p, ticks)
            close = re.compile(r"(?<!`)" + ticks + r"(?!`)").search(content, opened)
            if close is None:
                raise Misaligned(f"code span at content index {p} has no closing run")
            protect(p, close.end())
            p = close.end()
        elif t == "link_open":
            if child.markup == "autolink":
                end = content.find(">", p) + 1
                if end <= p:
                    raise Misaligned("autolink without '>'")
            else:
                end = _link_end(md, env, child, content, p, link, state)
                if content.endswith("]", 0, end) and not content.endswith("[]", 0, end):
                    found.label_ends.add(m.at(end - 1) + 1)
            protect(p, end)
            inside_to = end
        elif t == "image":
            end = _link_end(md, env, child, content, p, image, state)
            protect(p, end)
            p = end
        else:
            raise Misaligned(f"unexpected inline token {t!r}")
    if inside_to is not None or p != len(content):
        raise Misaligned(f"inline content left over at index {p} of {len(content)}")
