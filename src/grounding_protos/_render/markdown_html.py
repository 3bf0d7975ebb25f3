"""The HTML view of an answer's Markdown, with citations placed by source positions.

An answer is Markdown (lists, ``**bold**`` names, tables, code); its citations point
into that *source* text. This module renders the Markdown (CommonMark plus GFM
tables and strikethrough) with markdown-it-py and places each citation marker, and
each highlighted stretch, on the rendered characters that come from the cited
source characters.

How: markdown-it-py's block tokens carry line ranges (``map``) but its inline tokens
carry no offsets. So each inline token's ``content`` is first aligned with the
source lines it came from (block prefixes such as ``>``, list markers and
indentation removed), then its children are walked beside that content, each one
consuming a known stretch: a text token its own characters, an escape or entity its
``markup``, emphasis its delimiters, a link ``[`` and then ``](url "title")`` (found
by running markdown-it's own link rule in silent mode), a code span its backtick
runs, a line break the spaces and newline around it. Every rendered character thus
has a source position, and the citations' events (marker ends, highlight
boundaries) are merged in, in one pass in text order.

Rules:

- A marker goes right after the last rendered character before its span's end (after
  the inline closing tags whose delimiters the span covers, but inside the block):
  where the span ends inside a construct that cannot hold one (a link, whose marker
  would nest a link in a link; an image; inline code and code blocks, whose text
  must stay the code; an entity or escape; raw HTML shown as text), right after that
  construct (for a code block, inside its ``<pre>``, after the ``<code>``). A marker
  before every rendered character goes before the first one, and one in a text that
  renders no character at all goes at the end. Markers that land on one place, with
  no rendered character between them, are one marker: no number twice.
- Highlights are ``<mark>`` elements inside one inline element each: split at every
  tag, marker and block boundary, so that they never cross or nest. Inline code that
  one set of sources covers whole goes inside the mark as one piece.
- Nothing of the text is lost or duplicated: the result, minus markers and marks, is
  exactly what :func:`plain_html` gives.
- Safety: raw HTML in the answer is text (``html=False``), links keep only
  ``http``, ``https`` and ``mailto`` URLs (anything else stays as its source text),
  and images are links to their URL, never loaded, unless ``remote_images``.

When the alignment meets something it does not expect (a markdown-it-py version that
tokenizes differently), :class:`Misaligned` is raised and the caller falls back to
the raw-text view, so that a marker is never put on a wrong character.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from grounding_protos._render.plan import Key, highlight_bounds, mark_tag, merge_keys

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

    from grounding_protos._render.plan import Plan

_LINKABLE: Final = re.compile(r"(?:https?|mailto):", re.IGNORECASE)
# Tag-like text (raw HTML, shown as text): a marker never goes inside one.
_TAG_LIKE: Final = re.compile(r"<[/!?]?[A-Za-z][^<>\n]*>|<!--.*?-->")
_NEWLINES: Final = re.compile(r"\r\n?")


class Misaligned(Exception):
    """The tokens do not match the source as expected: fall back to raw text."""


def available() -> bool:
    """Whether markdown-it-py 3 or later (which keeps escapes and entities as tokens of
    their own) can be imported."""
    try:
        import markdown_it
    except ImportError:
        return False
    major = str(getattr(markdown_it, "__version__", "0")).split(".")[0]
    return major.isdigit() and int(major) >= 3


def _linkable(url: str) -> bool:
    return _LINKABLE.match(url) is not None


@cache
def _parser(join_text: bool, remote_images: bool = False) -> MarkdownIt:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import image, link

    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    if not join_text:
        # keep escapes and entities as their own tokens, with their source markup
        md.disable("text_join")
        # and note where each link ends in the inline content
        md.inline.ruler.at("link", _recording_end(link, "link_open"))
    # note where each image ends, and whether it is inside a link's text
    md.inline.ruler.at("image", _recording_end(image, "image"))
    if not remote_images:
        md.add_render_rule("image", _image_as_link)
    md.validateLink = _linkable  # type: ignore[method-assign]
    return md


_END: Final = "gp_end"  # Token.meta key: the content index where a link or image ends
_IN_LINK: Final = "gp_in_link"  # Token.meta key of an image: it is inside a link's text


def _recording_end(rule: Callable[[Any, bool], bool], kind: str) -> Callable[[Any, bool], bool]:
    """``rule`` (markdown-it's link or image rule), noting in the meta of the token it
    opens the content index where its whole syntax (label, URL, title) ends."""

    def recording(state: Any, silent: bool) -> bool:
        first = len(state.tokens)
        if not rule(state, silent):
            return False
        if not silent:
            for token in state.tokens[first:]:
                if token.type == kind:
                    token.meta[_END] = state.pos
                    token.meta[_IN_LINK] = state.linkLevel > 0
                    break
        return True

    return recording


def _image_as_link(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """An image as a link to it, so that showing the answer loads nothing: its alt
    text (or else its URL) as the link text. Inside a link's text, where a link may
    not go, a ``<span>`` with the URL as its title."""
    from markdown_it.common.utils import escapeHtml

    token = tokens[idx]
    src = escapeHtml(str(token.attrGet("src") or ""))
    alt = renderer.renderInlineAsText(token.children or [], options, env)
    label = escapeHtml(alt) if alt else src
    if token.meta.get(_IN_LINK):
        return f'<span class="gp-image" title="{src}">{label}</span>'
    title = token.attrGet("title")
    extra = f' title="{escapeHtml(str(title))}"' if title else ""
    return f'<a class="gp-image" href="{src}"{extra}>{label}</a>'


def _renderer(md: MarkdownIt) -> RendererHTML:
    from markdown_it.renderer import RendererHTML

    renderer = md.renderer
    if not isinstance(renderer, RendererHTML):
        raise Misaligned(f"an unexpected renderer {type(renderer).__name__}")
    return renderer


def plain_html(text: str, *, remote_images: bool = False) -> str:
    """The Markdown of ``text`` as HTML, without citations: what :func:`render_markdown`
    gives once its markers and marks are taken out.

    >>> plain_html("**Köln** & <b>Bonn</b>")
    '<p><strong>Köln</strong> &amp; &lt;b&gt;Bonn&lt;/b&gt;</p>\\n'
    >>> plain_html("![Dom](https://img.example/dom.png)")
    '<p><a class="gp-image" href="https://img.example/dom.png">Dom</a></p>\\n'
    """
    return str(_parser(True, remote_images).render(text))


# --- Source positions of the inline content -----------------------------------------------


class _Map:
    """Content index -> source index, as runs of consecutive characters, with a
    cursor: the content is walked in order."""

    __slots__ = ("cs", "j", "n", "ss")

    def __init__(self) -> None:
        self.cs: list[int] = []  # content start of each run
        self.ss: list[int] = []  # its source start
        self.n: list[int] = []  # its length
        self.j = 0  # the run the walk is in

    def add(self, c: int, s: int, n: int) -> None:
        if n > 0:
            self.cs.append(c)
            self.ss.append(s)
            self.n.append(n)

    def _seek(self, k: int) -> int:
        cs, j = self.cs, self.j
        while j + 1 < len(cs) and cs[j + 1] <= k:
            j += 1
        while j > 0 and cs[j] > k:
            j -= 1
        self.j = j
        return j

    def runs(self, first: int, last: int) -> list[tuple[int, int, int]]:
        """The runs ``(content, source, length)`` covering ``[first, last)``."""
        cs, ss, n = self.cs, self.ss, self.n
        j = self._seek(first)
        out = []
        pos = first
        while pos < last:
            if j >= len(cs) or not cs[j] <= pos < cs[j] + n[j]:
                raise Misaligned(f"content index {pos} has no source position")
            take = min(last, cs[j] + n[j]) - pos
            out.append((pos, ss[j] + pos - cs[j], take))
            pos += take
            if pos == cs[j] + n[j] and j + 1 < len(cs):
                j += 1
        self.j = j
        return out

    def at(self, k: int) -> int:
        """The source position of content index ``k`` (or of the end of the content)."""
        if not self.cs:
            return 0
        j = self._seek(k)
        return self.ss[j] + max(0, min(k - self.cs[j], self.n[j]))


class _Lines:
    """Start and end (the newline's index) of each source line."""

    def __init__(self, src: str) -> None:
        starts = [0]
        find = src.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self.starts = starts
        self.ends = [s - 1 for s in starts[1:]] + [len(src)]


def _lead(m: _Map, off: int, lead: int, x: int, floor: int) -> None:
    """Map ``lead`` leading whitespace characters of a content line, right-aligned
    before source position ``x`` (tabs may have become several spaces)."""
    for j in range(lead):
        m.add(off + j, max(floor, x - (lead - j)), 1)


def _paragraph_map(src: str, lines: _Lines, content: str, first: int, count: int) -> _Map:
    """Map the content of a paragraph (or setext heading) of ``count`` lines."""
    parts = content.split("\n")
    # lines of only (Unicode) whitespace at either end vanish in the content's strip():
    # try each way of dropping them
    extra = count - len(parts)
    if extra < 0:
        raise Misaligned(f"{len(parts)} content lines for {count} source lines")
    for skip in range(extra + 1):
        try:
            return _lines_map(src, lines, parts, first + skip)
        except Misaligned:
            if skip == extra:
                raise
    raise AssertionError("unreachable")


def _lines_map(src: str, lines: _Lines, parts: list[str], first: int) -> _Map:
    m = _Map()
    off = 0
    last = len(parts) - 1
    for i, part in enumerate(parts):
        if first + i >= len(lines.starts):
            raise Misaligned("paragraph content past the end of the text")
        ls, le = lines.starts[first + i], lines.ends[first + i]
        t = part.lstrip(" \t")
        if i < last:
            x = le - len(t)
            if x < ls or not src.startswith(t, x):
                raise Misaligned(f"line {first + i}: content not at the end of its line")
            _lead(m, off, len(part) - len(t), x, ls)
            m.add(off + len(part) - len(t), x, len(t) + 1)  # and the newline
        else:
            x = src.rfind(t, ls, le)
            if x < 0:
                raise Misaligned(f"line {first + i}: content not in its line")
            _lead(m, off, len(part) - len(t), x, ls)
            m.add(off + len(part) - len(t), x, len(t))
        off += len(part) + 1
    return m


def _heading_map(src: str, lines: _Lines, content: str, line: int) -> _Map:
    ls, le = lines.starts[line], lines.ends[line]
    hashes = src.find("#", ls, le)
    if hashes < 0:
        raise Misaligned(f"line {line}: no '#' in an ATX heading")
    while hashes < le and src[hashes] == "#":
        hashes += 1
    x = src.find(content, hashes, le)
    if x < 0:
        raise Misaligned(f"line {line}: heading content not in its line")
    m = _Map()
    m.add(0, x, len(content))
    return m


def _cell_maps(src: str, lines: _Lines, contents: Sequence[str], line: int) -> list[_Map]:
    """Map the cells of one table row: cell contents in order in the line, each ``|``
    of a content being an escaped ``\\|`` in the source. Found from the end of the line
    backwards, so that a container's prefix (``>``, a list marker) is never taken for
    a cell."""
    ls, end = lines.starts[line], lines.ends[line]
    maps = []
    for content in reversed(contents):
        m = _Map()
        if content:
            form = content.replace("|", "\\|")
            x = src.rfind(form, ls, end)
            if x < 0:
                raise Misaligned(f"line {line}: table cell {content!r} not in its line")
            c = 0
            s = x
            pieces = content.split("|")
            for k, piece in enumerate(pieces):
                m.add(c, s, len(piece))
                if k + 1 < len(pieces):
                    m.add(c + len(piece), s + len(piece) + 1, 1)  # '|', after its '\\'
                c += len(piece) + 1
                s += len(piece) + 2
            end = x
        maps.append(m)
    maps.reverse()
    return maps


def _code_runs(src: str, lines: _Lines, content: str, first: int) -> list[tuple[str, int]]:
    """A code block's content as ``(text, source start)`` runs, line by line (a line's
    leading spaces may come from a tab, and are mapped one by one)."""
    runs: list[tuple[str, int]] = []
    parts = content.split("\n")
    for i, part in enumerate(parts):
        newline = "\n" if i + 1 < len(parts) else ""
        if not part and not newline:
            break
        line = first + i
        if line >= len(lines.starts):
            raise Misaligned("code block content past the end of the text")
        ls, le = lines.starts[line], lines.ends[line]
        j = 0
        while not src.endswith(part[j:], ls, le):
            if j < len(part) and part[j] == " ":
                j += 1
            else:
                raise Misaligned(f"line {line}: code line not at the end of its line")
        x = le - (len(part) - j)
        runs.extend((" ", max(ls, x - (j - k))) for k in range(j))
        runs.append((part[j:] + newline, x))
    return runs


# --- Events: markers and highlights -----------------------------------------------------------


class _Events:
    """Marker positions and highlight boundaries, consumed in text order."""

    def __init__(
        self,
        marker_at: Sequence[int],
        markers: Sequence[str],
        bounds: Sequence[int],
        keys: Sequence[Key],
        tag: Callable[[Key], str],
        combine: Callable[[Sequence[int]], str] | None,
    ) -> None:
        self.mpos = marker_at
        self.mhtml = markers
        self.mi = 0
        self.hpos = bounds
        self.hkeys = keys
        self.hi = 0  # hpos[hi - 1] <= the last position asked about
        self.tag = tag
        self.combine = combine

    def marker(self, indices: Sequence[int]) -> str:
        """The HTML of the markers ``indices``, landing on one place."""
        if len(indices) == 1:
            return self.mhtml[indices[0]]
        if self.combine is not None:
            return self.combine(indices)
        return "".join(map(self.mhtml.__getitem__, indices))

    def key_at(self, pos: int) -> Key:
        hpos, hi = self.hpos, self.hi
        while hi < len(hpos) and hpos[hi] <= pos:
            hi += 1
        while hi and hpos[hi - 1] > pos:  # a step back (a line break's newline)
            hi -= 1
        self.hi = hi
        return self.hkeys[hi - 1] if hi else ()

    def key_over(self, first: int, last: int) -> Key:
        """Every source covering some character of ``[first, last)``."""
        keys = [self.key_at(first)]
        hpos, hi = self.hpos, self.hi
        while hi < len(hpos) and hpos[hi] < last:
            keys.append(self.hkeys[hi])
            hi += 1
        return keys[0] if len(keys) == 1 else merge_keys(keys)

    def constant_key(self, first: int, last: int) -> Key | None:
        """The sources covering all of ``[first, last)``, or ``None`` when they change
        inside it."""
        key = self.key_at(first)
        bound = self.next_bound(first)
        return key if bound is None or bound >= last else None

    def next_bound(self, after: int) -> int | None:
        hpos, hi = self.hpos, self.hi
        while hi < len(hpos) and hpos[hi] <= after:
            hi += 1
        return hpos[hi] if hi < len(hpos) else None


class _Writer:
    """Builds the HTML of the containers (inline content, code blocks) in text order."""

    def __init__(self, events: _Events) -> None:
        self.ev = events
        self.pending_end: list[str] | None = None  # where markers before the next point go
        self.out: list[str] = []  # the current container's pieces
        self.open_key: Key = ()
        self.markers_ok = True
        # the last marker written, while no character has been rendered after it:
        # (its list, its index there, the markers it holds), for markers to join it
        self.last: tuple[list[str], int, list[int]] | None = None

    # marks

    def close_mark(self) -> None:
        if self.open_key:
            self.out.append("</mark>")
            self.open_key = ()

    def text(self, html: str, key: Key) -> None:
        """Rendered characters, highlighted by the sources ``key``."""
        if key != self.open_key:
            self.close_mark()
            if key:
                self.out.append(self.ev.tag(key))
                self.open_key = key
        self.out.append(html)
        self.last = None

    def tag(self, html: str) -> None:
        self.close_mark()
        self.out.append(html)

    # markers

    def point(self, theta: int) -> None:
        """A place where markers may go: those ending at or before ``theta`` go here
        (or at the end of the previous container, when nothing was rendered since)."""
        if not self.markers_ok:
            return
        ev = self.ev
        mpos, mi = ev.mpos, ev.mi
        if mi < len(mpos) and mpos[mi] <= theta:
            first = mi
            while mi < len(mpos) and mpos[mi] <= theta:
                mi += 1
            ev.mi = mi
            if self.last is not None:  # nothing rendered since the last marker: join it
                target, at, held = self.last
                held.extend(range(first, mi))
                target[at] = ev.marker(held)
            else:
                if self.pending_end is not None:
                    target = self.pending_end
                else:
                    self.close_mark()
                    target = self.out
                held = list(range(first, mi))
                target.append(ev.marker(held))
                self.last = (target, len(target) - 1, held)
        self.pending_end = None

    def run(self, text: str, start: int, escape: Callable[[str], str]) -> None:
        """Rendered characters ``text`` from source ``start`` on, one per position."""
        self.point(start)
        ev = self.ev
        end = start + len(text)
        pos = start
        while pos < end:
            cut = end
            if self.markers_ok and ev.mi < len(ev.mpos) and ev.mpos[ev.mi] < cut:
                cut = ev.mpos[ev.mi]
            key = ev.key_at(pos)
            bound = ev.next_bound(pos)
            if bound is not None and bound < cut:
                cut = bound
            self.text(escape(text[pos - start : cut - start]), key)
            pos = cut
            if pos < end:
                self.point(pos)

    def unit(self, html: str, first: int, last: int) -> None:
        """A rendered piece that cannot be split, from source ``[first, last)``,
        highlighted by every source covering some of it."""
        self.point(first)
        self.text(html, self.ev.key_over(first, max(last, first + 1)))

    def end_container(self) -> list[str]:
        self.close_mark()
        out = self.out
        self.pending_end = out
        self.out = []
        return out


# --- Inline content ---------------------------------------------------------------------------


def _link_end(
    md: MarkdownIt,
    env: dict[str, Any],
    token: Token,
    content: str,
    pos: int,
    rule: Any,
    state: list[Any],
) -> int:
    """Where the link or image starting at ``pos`` ends: as its rule noted while
    parsing, else by running the rule again, silently (``state`` keeps the parser state
    made for that, one per inline content)."""
    from markdown_it.rules_inline import StateInline

    end = token.meta.get(_END)
    if isinstance(end, int) and end > pos:
        return end
    if not state:
        state.append(StateInline(content, md, env, []))
    st = state[0]
    st.pos = pos
    st.posMax = len(content)
    if not rule(st, True):
        raise Misaligned(f"no link at content index {pos}")
    return int(st.pos)


class _Inline:
    """Walks one inline token's children beside its content."""

    def __init__(self, md: MarkdownIt, env: dict[str, Any], w: _Writer) -> None:
        from markdown_it.common.utils import escapeHtml
        from markdown_it.rules_inline import image, link

        self.md = md
        self.env = env
        self.w = w
        self.escape = escapeHtml
        self.link_rule = link
        self.image_rule = image
        self.renderer = _renderer(md)
        self.rules = self.renderer.rules
        self.options = md.options

    def render_token(self, children: Sequence[Token], idx: int) -> str:
        rule = self.rules.get(children[idx].type)
        if rule is not None:
            return str(rule(children, idx, self.options, self.env))
        return str(self.renderer.renderToken(children, idx, self.options, self.env))

    def link_end(self, token: Token, content: str, pos: int, rule: Any, state: list[Any]) -> int:
        """Where the link or image starting at ``pos`` ends (see :func:`_link_end`)."""
        return _link_end(self.md, self.env, token, content, pos, rule, state)

    def walk(self, tok: Token, m: _Map) -> None:
        content = tok.content
        children = tok.children or []
        w = self.w
        escape = self.escape
        p = 0  # content index
        link_state: list[Any] = []
        link_ends: list[int] = []
        autolink = False

        def src_runs(first: int, last: int, text: str) -> None:
            for c, s, n in m.runs(first, last):
                w.run(text[c - first : c - first + n], s, escape)

        at = m.at

        for idx, child in enumerate(children):
            t = child.type
            if t == "text":
                text = child.content
                if autolink:
                    close = content.find(">", p)
                    if close < 0:
                        raise Misaligned("autolink without '>'")
                    w.unit(escape(text), at(p), at(close))
                    p = close
                    continue
                if not content.startswith(text, p):
                    raise Misaligned(f"text {text!r} not at content index {p}")
                if "<" in text:
                    q = 0
                    for tag in _TAG_LIKE.finditer(text):
                        if tag.start() > q:
                            src_runs(p + q, p + tag.start(), text[q : tag.start()])
                        w.unit(escape(tag.group()), at(p + tag.start()), at(p + tag.end() - 1) + 1)
                        q = tag.end()
                    if q < len(text):
                        src_runs(p + q, p + len(text), text[q:])
                else:
                    src_runs(p, p + len(text), text)
                p += len(text)
            elif t == "text_special":
                markup = child.markup
                if not content.startswith(markup, p):
                    raise Misaligned(f"{markup!r} not at content index {p}")
                w.unit(escape(child.content), at(p), at(p + len(markup) - 1) + 1)
                p += len(markup)
            elif t in ("softbreak", "hardbreak"):
                q = p
                if t == "hardbreak" and content.startswith("\\\n", q):
                    q += 1
                else:
                    while q < len(content) and content[q] == " ":
                        q += 1
                if q >= len(content) or content[q] != "\n":
                    raise Misaligned(f"no line break at content index {p}")
                newline = q
                q += 1
                while q < len(content) and content[q] in " \t":
                    q += 1
                w.point(at(q))
                if t == "softbreak":
                    w.text(self.render_token(children, idx), w.ev.key_at(at(newline)))
                else:
                    w.tag(self.render_token(children, idx))
                p = q
            elif t in ("em_open", "strong_open", "s_open"):
                p = self.delimiter(content, p, child.markup)
                w.point(at(p))
                w.tag(self.render_token(children, idx))
            elif t in ("em_close", "strong_close", "s_close"):
                w.point(at(p))
                w.tag(self.render_token(children, idx))
                p = self.delimiter(content, p, child.markup)
            elif t == "code_inline":
                p = self.code(children, idx, content, p, src_runs, at)
            elif t == "link_open":
                if child.markup == "autolink":
                    p = self.delimiter(content, p, "<")
                    w.point(at(p))
                    autolink = True
                else:
                    link_ends.append(self.link_end(child, content, p, self.link_rule, link_state))
                    p = self.delimiter(content, p, "[")
                    w.point(at(p))
                w.tag(self.render_token(children, idx))
                w.markers_ok = False  # a marker is a link: none inside a link
            elif t == "link_close":
                if autolink:
                    p = self.delimiter(content, p, ">")
                    autolink = False
                else:
                    if not link_ends or not content.startswith("]", p):
                        raise Misaligned(f"no ']' of a link at content index {p}")
                    p = link_ends.pop()
                w.tag(self.render_token(children, idx))
                w.markers_ok = not link_ends
            elif t == "image":
                end = self.link_end(child, content, p, self.image_rule, link_state)
                _join_text(child)  # the alt text, as text_join would have made it
                w.unit(self.render_token(children, idx), at(p), at(end - 1) + 1)
                p = end
            else:
                raise Misaligned(f"unexpected inline token {t!r}")
        if p != len(content):
            raise Misaligned(f"inline content left over at index {p} of {len(content)}")

    @staticmethod
    def delimiter(content: str, p: int, markup: str) -> int:
        if not content.startswith(markup, p):
            raise Misaligned(f"{markup!r} not at content index {p}")
        return p + len(markup)

    def code(
        self,
        children: Sequence[Token],
        idx: int,
        content: str,
        p: int,
        src_runs: Callable[[int, int, str], None],
        at: Callable[[int], int],
    ) -> int:
        child = children[idx]
        ticks = child.markup
        p = self.delimiter(content, p, ticks)
        # the closing run: the first run of exactly as many backticks
        close = re.compile(r"(?<!`)" + ticks + r"(?!`)").search(content, p)
        if close is None:
            raise Misaligned(f"code span at content index {p} has no closing run")
        raw = content[p : close.start()]
        code = child.content
        inner = raw.replace("\n", " ")
        if inner == code:
            first = p
        elif inner[1:-1] == code and len(inner) >= 2:
            first = p + 1
        else:
            raise Misaligned(f"code span {code!r} does not match its source")
        whole = self.render_token(children, idx)
        escaped = self.escape(code)
        head = whole.find(">") + 1
        if not whole.endswith("</code>") or whole[head : len(whole) - 7] != escaped:
            raise Misaligned("code span renders unexpectedly")
        w = self.w
        w.point(at(p))
        # markers ending inside the code go right after it: its text stays the code
        markers_ok, w.markers_ok = w.markers_ok, False
        key = w.ev.constant_key(at(first), at(first + len(code) - 1) + 1) if code else ()
        if key is not None:  # one piece, inside the mark of the text around it
            w.text(whole, key)
        else:  # the highlight changes inside: marks inside the code
            w.tag(whole[:head])
            src_runs(first, first + len(code), code)
            w.tag("</code>")
            w.last = None
        w.markers_ok = markers_ok
        w.point(at(close.start()))
        return close.end()


# --- The whole document -----------------------------------------------------------------------


def render_markdown(
    text: str,
    marker_at: Sequence[int],
    markers: Sequence[str],
    bounds: Sequence[int] = (),
    keys: Sequence[Key] = (),
    tag: Callable[[Key], str] = lambda key: "<mark>",
    combine: Callable[[Sequence[int]], str] | None = None,
    *,
    remote_images: bool = False,
) -> str:
    """The Markdown of ``text`` as HTML, with ``markers[i]`` placed after the rendered
    character that ends at source position ``marker_at[i]`` (ascending), and each
    stretch from ``bounds[i]`` to the next bound covered by the sources ``keys[i]``
    (``()`` for none) wrapped in ``tag(keys[i])`` … ``</mark>``. Markers ``indices``
    that land on one place become ``combine(indices)`` (else they are written one
    after the other).

    Raises :class:`Misaligned` when the tokens cannot be matched with the source.

    >>> render_markdown("**Joe's Pizza** is *good*.", [13, 26], ["[1]", "[2]"])
    "<p><strong>Joe's Pizza[1]</strong> is <em>good</em>.[2]</p>\\n"
    >>> render_markdown("Call `get(x)` now.", [10], ["[1]"])
    '<p>Call <code>get(x)</code>[1] now.</p>\\n'
    """
    from markdown_it.token import Token

    md = _parser(False, remote_images)
    src = text
    if "\r" in text or "\0" in text:
        src, marker_at, bounds = _normalize(text, marker_at, bounds)
    env: dict[str, Any] = {}
    tokens = md.parse(src, env)
    lines = _Lines(src)
    w = _Writer(_Events(marker_at, markers, bounds, keys, tag, combine))
    inline = _Inline(md, env, w)
    # each container's token, its pieces, and what closes it after its markers
    containers: list[tuple[Token, list[str], str]] = []
    blocks: list[tuple[int, Token]] = []  # code blocks, replaced by their HTML
    cells: dict[int, _Map] = {}
    for i, tok in enumerate(tokens):
        if tok.type == "inline":
            if not tok.children or tok.map is None:
                continue
            inline.walk(tok, _inline_map(src, lines, tokens, i, cells))
            containers.append((tok, w.end_container(), ""))
        elif tok.type in ("fence", "code_block") and tok.map is not None:
            first = tok.map[0] + (1 if tok.type == "fence" else 0)
            whole = str(inline.rules[tok.type](tokens, i, md.options, env))
            escaped = inline.escape(tok.content)
            tail = "</code></pre>\n"
            if not whole.endswith(escaped + tail):
                raise Misaligned(f"{tok.type} renders unexpectedly")
            runs = _code_runs(src, lines, tok.content, first)
            if not runs:
                continue  # nothing rendered: no place for a marker
            w.point(runs[0][1])
            w.markers_ok = False
            w.tag(whole[: len(whole) - len(escaped) - len(tail)])
            for piece, start in runs:
                w.run(piece, start, inline.escape)
            w.tag("</code>")
            w.markers_ok = True
            blocks.append((i, Token("html_block", "", 0)))
            # the block's markers go after its code, inside its <pre>
            containers.append((blocks[-1][1], w.end_container(), "</pre>\n"))
    # markers after the last rendered character
    w.point(len(src) + 1)
    trailing = w.ev.mhtml[w.ev.mi :]
    if trailing:
        raise Misaligned("markers left after the end of the text")
    for tok, pieces, closing in containers:
        html = "".join(pieces) + closing
        if tok.type == "inline":
            done = Token("html_inline", "", 0)
            done.content = html
            tok.children = [done]
        else:
            tok.content = html
    for i, block in reversed(blocks):
        tokens[i] = block
    body = str(md.renderer.render(tokens, md.options, env))
    if not containers and w.out:
        body += "".join(w.out)
    return body


def _inline_map(
    src: str, lines: _Lines, tokens: Sequence[Token], i: int, cells: dict[int, _Map]
) -> _Map:
    """The source positions of inline token ``i``'s content (``cells`` keeps the maps
    of a table row's other cells, found with the first)."""
    tok = tokens[i]
    opener = tokens[i - 1]
    if tok.map is None:
        raise Misaligned("inline content without a line range")
    first, last = tok.map
    if opener.type == "paragraph_open":
        return _paragraph_map(src, lines, tok.content, first, last - first)
    if opener.type == "heading_open" and opener.markup.startswith("#"):
        return _heading_map(src, lines, tok.content, first)
    if opener.type == "heading_open":  # setext: the underline is not in the map
        return _paragraph_map(src, lines, tok.content, first, last - first)
    if opener.type in ("th_open", "td_open"):
        if i not in cells:
            row = _row_inlines(tokens, i)
            maps = _cell_maps(src, lines, [tokens[k].content for k in row], first)
            cells.update(zip(row, maps, strict=True))
        return cells.pop(i)
    raise Misaligned(f"inline content in a {opener.type!r}")


def _join_text(token: Token) -> None:
    for child in token.children or ():
        if child.type == "text_special":
            child.type = "text"
        _join_text(child)


def _row_inlines(tokens: Sequence[Token], i: int) -> list[int]:
    """The indices of the inline tokens of the table row holding token ``i``."""
    start = i
    while tokens[start].type != "tr_open":
        start -= 1
    row = []
    k = start + 1
    while tokens[k].type != "tr_close":
        if tokens[k].type == "inline":
            row.append(k)
        k += 1
    return row


def _normalize(
    text: str, marker_at: Sequence[int], bounds: Sequence[int]
) -> tuple[str, list[int], list[int]]:
    """markdown-it's input normalization (CR LF and CR to LF, NUL to U+FFFD), with
    the event positions moved along."""
    removed = [m.start() + 1 for m in _NEWLINES.finditer(text) if m.end() - m.start() == 2]
    # removed: the index of each LF dropped after a CR; positions past it shift left

    def move(positions: Sequence[int]) -> list[int]:
        out = []
        k = 0
        for pos in positions:
            while k < len(removed) and removed[k] < pos:
                k += 1
            out.append(pos - k)
        return out

    src = _NEWLINES.sub("\n", text).replace("\0", "\ufffd")
    return src, move(marker_at), move(bounds)


# --- The entry point of render(style="html") --------------------------------------------------

_warned_missing = False


def html_view(
    text: str,
    plan: Plan,
    markers: Sequence[str],
    combine: Callable[[Sequence[int]], str],
    *,
    highlight: bool,
    remote_images: bool = False,
) -> str | None:
    """``render(style="html")``'s Markdown view, or ``None`` for the raw-text view:
    markdown-it-py missing (a warning, once per process) or a text whose tokens cannot
    be matched with the source (a warning). ``combine`` makes one marker of the marker
    groups (indices) that land on one place."""
    global _warned_missing
    if not available():
        if not _warned_missing:
            _warned_missing = True
            warnings.warn(
                "markdown-it-py (3 or later) is not installed, so the HTML view shows the "
                "answer as raw text; install it (pip install 'markdown-it-py>=3'), or pass "
                "raw_text=True to ask for raw text (and silence this warning)",
                RuntimeWarning,
                stacklevel=3,
            )
        return None
    bounds: list[int] = []
    keys: list[Key] = []
    if highlight:
        bounds, keys = highlight_bounds(plan)
    tags: dict[Key, str] = {}

    def tag(key: Key) -> str:
        found = tags.get(key)
        if found is None:
            found = tags[key] = mark_tag(key)
        return found

    try:
        return render_markdown(
            text, plan.positions, markers, bounds, keys, tag, combine, remote_images=remote_images
        )
    except Misaligned as exc:
        warnings.warn(
            f"could not place the citations on the Markdown of this text ({exc}); "
            "showing it as raw text",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
