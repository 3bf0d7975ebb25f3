"""Inline citation markers for an answer text: Markdown, plain text, HTML or your own.

The work behind ``grounding_protos.citations.render`` and its helpers. Markers go
right after the last character of each cited span, so a span's *end* is all that
places a marker: overlapping, nested, duplicate, empty and unsorted spans need no
special case. Sources are numbered by first appearance in text order. Markdown output
moves a marker out of code and links (``markdown_places``), and an answer's own marker
run after a ``kind="marker"`` citation gives way to the style's (``own_markers``).

How it is fast: every citation's byte offsets are converted in one bulk pass
(:meth:`~grounding_protos.offsets.TextIndex.convert_spans`), the cited spans are
sorted once by end, and the output is text slices and markers, joined (or written
one by one, :func:`render_pieces`):
O(n + k log k) for a text of n characters and k citations. No prefix is ever
re-encoded.

This module works on :class:`Citation`, :class:`Source` and ``str`` only; it must
never import protobuf.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Final, Literal

from grounding_protos._core.model import (
    Citation,
    FileInfo,
    ImageInfo,
    PlaceInfo,
    ReviewSnippet,
    Route,
    SearchInfo,
    Source,
)
from grounding_protos._exceptions import ArgumentTypeError, ArgumentValueError
from grounding_protos._offsets import SpanSnap
from grounding_protos._public import public
from grounding_protos._render.own_markers import replace_own_markers
from grounding_protos._render.plan import Key, Plan, attr, highlight_bounds, mark_tag

RenderStyle = Literal["markdown", "html", "plain"]
"""A built-in marker style of :func:`render`."""

ListStyle = Literal["markdown", "html", "plain"]
"""A built-in style of :func:`source_list`."""

MarkerStyle = Callable[[Sequence[tuple[int, Source]]], str]
"""A custom marker: called once per marker position with the ``(number, source)``
pairs cited there (ascending numbers, no repeats); its result is inserted verbatim."""

_STYLES: Final = ("markdown", "html", "plain")
_DEFAULT_ID_PREFIX: Final = "gp-source-"
# Only these URIs ever become links; ``javascript:``, ``data:`` and the rest are shown
# as text. Matched on the raw string: no leading space or control character, since
# browsers strip those before reading the scheme.
_LINKABLE: Final = re.compile(r"https?://", re.IGNORECASE)
# Characters that can start inline markup inside link text or a list item (CommonMark,
# plus GFM's ~ and |); each is backslash-escaped, other punctuation stays readable.
_MD_PUNCT: Final = re.compile(r"([\\`*_\[\]<>&!~|#])")
_MD_DEST: Final = re.compile(r"([\\<>])")
_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f]")
# A marker's hover title shows a source's label up to this many characters (the list
# below the answer shows it whole): a title repeated at every marker must not make the
# output grow with labels times markers.
_TITLE_CHARS: Final = 120
# U+2060 WORD JOINER opens each HTML marker: no line break between a span's last
# character and its marker, so a marker never starts a line alone.
_JOINER: Final = "\u2060"


# --- Public functions -------------------------------------------------------------------


def render(
    text: str,
    citations: Iterable[Citation],
    style: RenderStyle | MarkerStyle = "markdown",
    *,
    highlight: bool = False,
    snap: SpanSnap | None = None,
    clamp: bool = False,
    id_prefix: str = _DEFAULT_ID_PREFIX,
    raw_text: bool = False,
    footnotes: bool = False,
    remote_images: bool = False,
) -> str:
    """The text form of :func:`grounding_protos.citations.render` (documented there):
    ``text`` with a marker after each cited span, in ``style``."""
    return "".join(
        render_pieces(
            text, citations, style, highlight=highlight, snap=snap, clamp=clamp,
            id_prefix=id_prefix, raw_text=raw_text, footnotes=footnotes,
            remote_images=remote_images,
        )
    )  # fmt: skip


def render_pieces(
    text: str,
    citations: Iterable[Citation],
    style: RenderStyle | MarkerStyle = "markdown",
    *,
    highlight: bool = False,
    snap: SpanSnap | None = None,
    clamp: bool = False,
    id_prefix: str = _DEFAULT_ID_PREFIX,
    raw_text: bool = False,
    footnotes: bool = False,
    remote_images: bool = False,
) -> Iterator[str]:
    """:func:`render`'s output in pieces, one after the other: what a writer streams
    without holding the whole output (the CLI's ``render``). Every check and every
    marker's place is settled before this returns; what is left is cutting the text.

    >>> list(render_pieces("Köln ist alt.", [Citation(0, 5, sources=(Source(title="K"),))]))
    ['Köln', '[1]', ' ist alt.']
    """
    if isinstance(style, str):
        if style not in _STYLES:
            raise ArgumentValueError(
                f"style must be 'markdown', 'html', 'plain' or a callable, not {style!r}"
            )
    elif not callable(style):
        raise ArgumentTypeError(
            f"style must be 'markdown', 'html', 'plain' or a callable, not {type(style).__name__}"
        )
    if highlight and style != "html":
        raise ArgumentValueError("highlight=True needs style='html'")
    if raw_text and style != "html":
        raise ArgumentValueError("raw_text=True needs style='html'")
    if footnotes and style != "markdown":
        raise ArgumentValueError("footnotes=True needs style='markdown'")
    if remote_images and (style != "html" or raw_text):
        raise ArgumentValueError("remote_images=True needs style='html' (and not raw_text)")
    if isinstance(text, str):  # else Plan names the wrong type
        cites = citations if isinstance(citations, (list, tuple)) else list(citations)
        text, citations = replace_own_markers(text, cites)
    plan = Plan(text, citations, snap, clamp)
    groups = plan.groups
    if style == "html":
        anchors = [""] + [_html_anchor(n, s, id_prefix) for n, s in enumerate(plan.sources, 1)]
        markers = [_html_marker(nums, anchors) for nums in groups]
        if not raw_text:
            from grounding_protos._render.markdown_html import html_view

            def merged(indices: Sequence[int]) -> str:
                """One marker for several groups that land on one place."""
                numbers = sorted({n for i in indices for n in groups[i]})
                return _html_marker(numbers, anchors)

            view = html_view(
                text, plan, markers, merged, highlight=highlight, remote_images=remote_images
            )
            if view is not None:
                return iter((view,))
        if highlight:
            return iter((_html_highlighted(text, plan, markers),))
        return _cuts(text, plan.positions, markers, _html_escape)
    if callable(style):
        sources = plan.sources
        markers = []
        for nums in groups:
            marker = style(tuple((n, sources[n - 1]) for n in nums))
            if not isinstance(marker, str):
                raise ArgumentTypeError(
                    f"a marker style must return a str, not {type(marker).__name__}"
                )
            markers.append(marker)
        return _cuts(text, plan.positions, markers, None)
    label = "[^{}]" if footnotes else "[{}]"
    labels = [label.format(n) for n in range(len(plan.sources) + 1)]
    positions = plan.positions
    if style == "markdown" and positions:
        from grounding_protos._render.markdown_places import markdown_places

        places = markdown_places(text, positions)
        if places is not None:
            positions, markers = _merged_places(places, groups, labels)
            return _cuts(text, positions, markers, None)
    markers = ["".join(map(labels.__getitem__, nums)) for nums in groups]
    return _cuts(text, positions, markers, None)


def _merged_places(
    places: Sequence[tuple[int, str, str]], groups: Sequence[Sequence[int]], labels: list[str]
) -> tuple[list[int], list[str]]:
    """The Markdown markers at their places: groups that land on one place are one
    marker (each number once, ascending)."""
    at: dict[int, tuple[set[int], str, str]] = {}
    for (pos, before, after), nums in zip(places, groups, strict=True):
        held = at.get(pos)
        if held is None:
            at[pos] = (set(nums), before, after)
        else:
            held[0].update(nums)
            at[pos] = (held[0], max(held[1], before, key=len), max(held[2], after, key=len))
    positions = sorted(at)
    markers = []
    for pos in positions:
        numbers, before, after = at[pos]
        markers.append(before + "".join(map(labels.__getitem__, sorted(numbers))) + after)
    return positions, markers


def number_sources(
    text: str,
    citations: Iterable[Citation],
    *,
    uncited: Iterable[Source] = (),
    snap: SpanSnap | None = None,
    clamp: bool = False,
) -> list[tuple[int, Source]]:
    """The ``(number, source)`` pairs :func:`render` uses, numbers 1, 2, … in order.

    A source is numbered where its first marker is met in the text: citations are
    taken by end, then start, then input order, and each one's sources in their
    order. Sources are one entry when their :attr:`Source.key` is equal: the same
    document (chunks of it), else the same URI, else equal sources. ``uncited``
    sources (``Grounded.uncited_sources``) follow, numbered on, minus any already
    numbered.

    >>> from grounding_protos.citations import Citation, Source
    >>> a, b = Source(title="A"), Source(title="B")
    >>> cites = [Citation(9, 15, None, None, None, (a,)), Citation(0, 3, None, None, None, (b, a))]
    >>> [(n, s.title) for n, s in number_sources("日本語です", cites)]
    [(1, 'B'), (2, 'A')]
    """
    plan = Plan(text, citations, snap, clamp)
    return list(enumerate(plan.sources + _rest(plan.sources, uncited), 1))


def _rest(numbered: list[Source], uncited: Iterable[Source]) -> list[Source]:
    """The uncited sources not already numbered, one per key, in order."""
    seen = {s.key for s in numbered}
    out = []
    for i, source in enumerate(uncited):
        if not isinstance(source, Source):
            raise ArgumentTypeError(f"uncited[{i}] must be a Source, not {type(source).__name__}")
        key = source.key
        if key not in seen:
            seen.add(key)
            out.append(source)
    return out


def source_list(
    text: str,
    citations: Iterable[Citation],
    style: ListStyle = "markdown",
    *,
    uncited: Iterable[Source] = (),
    snap: SpanSnap | None = None,
    clamp: bool = False,
    id_prefix: str = _DEFAULT_ID_PREFIX,
    footnotes: bool = False,
) -> str:
    """The numbered list of the sources :func:`render` cites, to show below the text.

    One line per source, numbered as :func:`render` numbers them (no trailing newline;
    ``""`` when there is no source). ``uncited`` sources (``Grounded.uncited_sources``:
    declared by the response, cited by no span) follow the cited ones, numbered on and
    marked "(not cited)":

    - ``"markdown"``: a bullet list ``- [1] [Title](<https://…>)``, titles escaped;
      with ``footnotes=True``, GFM footnote definitions ``[^1]: [Title](<https://…>)``
      for :func:`render`'s ``footnotes=True`` references;
    - ``"plain"``: ``[1] Title — https://…``;
    - ``"html"``: ``<ol class="gp-sources">`` with ``<li id="gp-source-1">`` entries
      (the targets of :func:`render`'s HTML markers), everything escaped.

    Only ``http:`` and ``https:`` URIs become links; any other (``javascript:``,
    ``data:``) is shown as escaped text. A source without a title shows its label
    (:attr:`Source.label`).

    What a kind of source carries besides its label follows it: a Google Maps place
    is attributed to Google Maps, with its link to report the content, and its review
    snippets (author, review, their own report links) and route on lines below, as
    Google's Maps grounding terms ask (``docs/render.md``); an image links the image;
    a RAG chunk gives its pages.

    >>> from grounding_protos.citations import Citation, Source
    >>> a = Source(uri="https://a.example/dom", title="Der Dom [Köln]")
    >>> b = Source(uri="javascript:alert(1)", title="Trap")
    >>> cites = [Citation(0, 3, None, None, None, (a, b))]
    >>> print(source_list("Dom", cites))
    - [1] [Der Dom \\[Köln\\]](<https://a.example/dom>)
    - [2] Trap — javascript:alert(1)
    >>> print(source_list("Dom", cites, "plain"))
    [1] Der Dom [Köln] — https://a.example/dom
    [2] Trap — javascript:alert(1)
    """
    if style not in _STYLES:
        raise ArgumentValueError(f"style must be 'markdown', 'html' or 'plain', not {style!r}")
    if footnotes and style != "markdown":
        raise ArgumentValueError("footnotes=True needs style='markdown'")
    plan = Plan(text, citations, snap, clamp)
    cited = len(plan.sources)
    numbered = list(enumerate(plan.sources + _rest(plan.sources, uncited), 1))
    if not numbered:
        return ""
    if style == "markdown":
        entry = _footnote_entry if footnotes else _markdown_entry
        lines = [entry(n, s) for n, s in numbered]
        indent = "    " if footnotes else "  "
        subs = [[f"{indent}- {line}" for line in _md_details(s)] for _, s in numbered]
    elif style == "plain":
        lines = [_plain_entry(n, s) for n, s in numbered]
        subs = [[f"    {line}" for line in _plain_details(s)] for _, s in numbered]
    else:
        lines = [_html_entry(n, s, id_prefix, n > cited) for n, s in numbered]
        return '<ol class="gp-sources">\n' + "\n".join(lines) + "\n</ol>"
    for i in range(cited, len(lines)):
        lines[i] += " (not cited)"
    return "\n".join(line for head, sub in zip(lines, subs, strict=True) for line in (head, *sub))


def search_notes(search: SearchInfo, style: ListStyle = "markdown") -> str:
    """The search queries of a response, to show under its sources (``""`` when none).

    Lists ``queries`` (web search), ``retrieval_queries`` and ``image_queries``, and
    URL-context retrievals that failed. The Search Suggestions chip (``rendered_content``) is HTML
    that only the HTML view shows (in a sandboxed frame).

    >>> from grounding_protos.citations import SearchInfo
    >>> print(search_notes(SearchInfo(queries=("Köln Dom Höhe", "Dom *Bauzeit*"))))
    Search queries: Köln Dom Höhe; Dom \\*Bauzeit\\*
    """
    if style not in _STYLES:
        raise ArgumentValueError(f"style must be 'markdown', 'html' or 'plain', not {style!r}")
    rows = [
        ("Search queries", search.queries),
        ("Retrieval queries", search.retrieval_queries),
        ("Image search queries", search.image_queries),
        (
            "URLs not retrieved",
            tuple(
                f"{u.url} ({u.status})"
                for u in search.url_statuses
                if u.status not in ("", "URL_RETRIEVAL_STATUS_SUCCESS", "success")
            ),
        ),
    ]
    lines = []
    for name, values in rows:
        if not values:
            continue
        if style == "html":
            entries = "".join(f"<li>{_html_escape(_one_line(v))}</li>" for v in values)
            lines.append(f'<p class="gp-queries">{name}:</p><ul class="gp-queries">{entries}</ul>')
        elif style == "markdown":
            lines.append(f"{name}: " + "; ".join(_md_text(v) for v in values))
        else:
            lines.append(f"{name}: " + "; ".join(_one_line(v) for v in values))
    return "\n".join(lines)


# --- Assembly ---------------------------------------------------------------------------


def _cuts(
    text: str, positions: list[int], markers: list[str], escape: Callable[[str], str] | None
) -> Iterator[str]:
    """The text cut at ``positions`` (ascending), each cut followed by its marker: the
    pieces in order, each text slice made only when it is asked for."""
    previous = 0
    for position, marker in zip(positions, markers, strict=True):
        piece = text[previous:position]
        yield piece if escape is None else escape(piece)
        yield marker
        previous = position
    piece = text[previous:]
    yield piece if escape is None else escape(piece)


def _html_escape(piece: str) -> str:
    # Text content needs only &, < and > escaped; quotes stay readable.
    return html.escape(piece, quote=False)


def _html_anchor(n: int, source: Source, id_prefix: str) -> str:
    return f'<a href="#{attr(id_prefix)}{n}" title="{attr(_tooltip(source.label))}">[{n}]</a>'


def _tooltip(label: str) -> str:
    """A label on one line, cut to :data:`_TITLE_CHARS` characters (with "…")."""
    line = _one_line(label[: 4 * _TITLE_CHARS])
    return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1].rstrip() + "…"


def _html_marker(nums: Sequence[int], anchors: list[str]) -> str:
    return f'<sup class="gp-cite">{_JOINER}' + "".join(map(anchors.__getitem__, nums)) + "</sup>"


def _html_highlighted(text: str, plan: Plan, markers: list[str]) -> str:
    """HTML with every cited stretch in a ``<mark>``: the text cut where the covering
    sources change (:func:`highlight_bounds`) and at every marker, so that marks never
    overlap, nest or contain a marker."""
    bounds, keys = highlight_bounds(plan)
    tags: dict[Key, str] = {}
    out: list[str] = []
    positions = plan.positions
    b = m = 0  # the next bound, the next marker
    key: Key = ()  # the sources covering the text from prev on
    prev = 0
    end = len(text)
    while prev < end or m < len(positions):
        cut = end
        if b < len(bounds) and bounds[b] < cut:
            cut = bounds[b]
        if m < len(positions) and positions[m] < cut:
            cut = positions[m]
        if cut > prev:
            piece = _html_escape(text[prev:cut])
            if key:
                tag = tags.get(key)
                if tag is None:
                    tag = tags[key] = mark_tag(key)
                out.append(f"{tag}{piece}</mark>")
            else:
                out.append(piece)
            prev = cut
        while b < len(bounds) and bounds[b] <= prev:
            key = keys[b]
            b += 1
        while m < len(positions) and positions[m] <= prev:
            out.append(markers[m])
            m += 1
    return "".join(out)


# --- Source list entries ----------------------------------------------------------------


def _one_line(value: str) -> str:
    """A title on one line: every run of whitespace (newlines included) as one space."""
    return " ".join(value.split())


def _shown_uri(source: Source) -> str | None:
    """The URI to show as text beside the label, when there is one it does not repeat."""
    uri = source.uri
    return uri if uri and uri != source.label else None


def _plain_entry(n: int, source: Source) -> str:
    label = _one_line(source.label)
    uri = _shown_uri(source)
    head = f"[{n}] {label} — {_one_line(uri)}" if uri else f"[{n}] {label}"
    return head + _plain_suffix(source)


# --- What a kind of source shows besides its label -----------------------------------------

MAPS_ATTRIBUTION: Final = "Google Maps"
"""The text attribution a Google Maps source carries (Google Maps attribution guidelines:
"Google Maps", not "Google")."""


def _place(source: Source) -> PlaceInfo | None:
    details = source.details
    return details if type(details) is PlaceInfo else None


def _pages(source: Source) -> str | None:
    details = source.details
    if type(details) is not FileInfo or details.first_page is None:
        return None
    first, last = details.first_page, details.last_page
    return f"p. {first}" if last in (None, first) else f"pp. {first}-{last}"


def _image(source: Source) -> str | None:
    details = source.details
    return details.image_uri if type(details) is ImageInfo else None


def _route(route: Route) -> str:
    parts = []
    if route.distance_meters is not None:
        meters = route.distance_meters
        parts.append(f"{meters / 1000:.1f} km" if meters >= 1000 else f"{meters} m")
    if route.duration:
        seconds = route.duration.removesuffix("s")
        try:
            minutes = round(float(seconds) / 60)
        except ValueError:
            parts.append(route.duration)
        else:
            parts.append(f"{minutes} min" if minutes else f"{route.duration}")
    return "Route: " + (", ".join(parts) or "(no distance or duration)")


def _review_words(review: ReviewSnippet) -> str:
    """What a review shows as text: its title, else an excerpt of the review."""
    words = review.title or (review.text and _excerpt(review.text)) or review.id or "review"
    return f"“{_one_line(words)}”"


def _excerpt(text: str, limit: int = 120) -> str:
    flat = _one_line(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _md_link(text: str, uri: str | None) -> str:
    """Markdown link text (already escaped) to ``uri``, or the text and the URI as text."""
    if uri and _LINKABLE.match(uri):
        return f"[{text}](<{_md_destination(uri)}>)"
    return f"{text} ({_md_text(uri)})" if uri else text


def _md_details(source: Source) -> list[str]:
    """The lines under a Markdown entry: a place's reviews and route."""
    place = _place(source)
    if place is None:
        return []
    lines = []
    for review in place.reviews:
        author = review.author
        line = "Review"
        if author is not None and author.name:
            line += " by " + _md_link(_md_text(author.name), author.uri)
        if review.published:
            line += f", {_md_text(review.published)}"
        line += ": " + _md_link(_md_text(_review_words(review)), review.uri)
        if review.flag_uri:
            line += " · " + _md_link("Report", review.flag_uri)
        lines.append(line)
    if place.route is not None:
        lines.append(_md_text(_route(place.route)))
    return lines


def _md_suffix(source: Source) -> str:
    """What follows a Markdown entry's label on its line."""
    out = ""
    if source.kind == "maps" or _place(source) is not None:
        out += f" · {MAPS_ATTRIBUTION}"
        place = _place(source)
        if place is not None and place.flag_uri:
            out += " · " + _md_link("Report", place.flag_uri)
    image = _image(source)
    if image:
        out += " · " + _md_link("image", image)
    pages = _pages(source)
    if pages:
        out += f" · {pages}"
    return out


def _plain_details(source: Source) -> list[str]:
    place = _place(source)
    if place is None:
        return []
    lines = []
    for review in place.reviews:
        author = review.author
        line = "Review"
        if author is not None and author.name:
            line += f" by {_one_line(author.name)}"
            if author.uri:
                line += f" ({_one_line(author.uri)})"
        if review.published:
            line += f", {_one_line(review.published)}"
        line += f": {_review_words(review)}"
        if review.uri:
            line += f" — {_one_line(review.uri)}"
        if review.flag_uri:
            line += f" · report: {_one_line(review.flag_uri)}"
        lines.append(line)
    if place.route is not None:
        lines.append(_route(place.route))
    return lines


def _plain_suffix(source: Source) -> str:
    out = ""
    if source.kind == "maps" or _place(source) is not None:
        out += f" · {MAPS_ATTRIBUTION}"
        place = _place(source)
        if place is not None and place.flag_uri:
            out += f" · report: {_one_line(place.flag_uri)}"
    image = _image(source)
    if image:
        out += f" · image: {_one_line(image)}"
    pages = _pages(source)
    if pages:
        out += f" · {pages}"
    return out


def _html_link(text: str, uri: str | None, css: str = "") -> str:
    """An escaped link to an http(s) ``uri``, else the text and the URI as text."""
    klass = f' class="{css}"' if css else ""
    if uri and _LINKABLE.match(uri):
        return f'<a{klass} href="{attr(uri)}">{_html_escape(text)}</a>'
    return f"{_html_escape(text)} ({_html_escape(uri)})" if uri else _html_escape(text)


def _html_details(source: Source) -> tuple[str, str]:
    """What follows an HTML entry's label: attribution, report and image links, pages;
    and a place's reviews and route as a nested list."""
    out = ""
    place = _place(source)
    if source.kind == "maps" or place is not None:
        out += f' <span class="gp-attribution">{MAPS_ATTRIBUTION}</span>'
        if place is not None and place.flag_uri:
            out += " " + _html_link("Report", place.flag_uri, "gp-flag")
    image = _image(source)
    if image:
        out += " · " + _html_link("image", image)
    pages = _pages(source)
    if pages:
        out += f" · {pages}"
    if place is None or not (place.reviews or place.route is not None):
        return out, ""
    items = []
    for review in place.reviews:
        author = review.author
        line = "Review"
        if author is not None and author.name:
            line += " by " + _html_link(_one_line(author.name), author.uri)
        if review.published:
            line += f", {_html_escape(_one_line(review.published))}"
        line += ": " + _html_link(_review_words(review), review.uri)
        if review.flag_uri:
            line += " " + _html_link("Report", review.flag_uri, "gp-flag")
        items.append(f"<li>{line}</li>")
    if place.route is not None:
        items.append(f"<li>{_html_escape(_route(place.route))}</li>")
    return out, '<ul class="gp-reviews">' + "".join(items) + "</ul>"


def _md_text(value: str) -> str:
    return _MD_PUNCT.sub(r"\\\1", _one_line(value))


def _md_destination(uri: str) -> str:
    # A <pointy> destination may hold spaces but no newline, '<' or '>'; control
    # characters are not valid in a URI anyway, and are percent-encoded.
    escaped = _MD_DEST.sub(r"\\\1", uri)
    return _CONTROL.sub(lambda m: f"%{ord(m.group()):02X}", escaped)


def _markdown_entry(n: int, source: Source) -> str:
    label = _md_text(source.label)
    if source.uri and _LINKABLE.match(source.uri):
        head = f"- [{n}] [{label}](<{_md_destination(source.uri)}>)"
    else:
        uri = _shown_uri(source)
        head = f"- [{n}] {label} — {_md_text(uri)}" if uri else f"- [{n}] {label}"
    return head + _md_suffix(source)


def _footnote_entry(n: int, source: Source) -> str:
    return f"[^{n}]:" + _markdown_entry(n, source).removeprefix(f"- [{n}]")


def _html_entry(n: int, source: Source, id_prefix: str, uncited: bool = False) -> str:
    label = _html_escape(source.label)
    if source.uri and _LINKABLE.match(source.uri):
        body = f'<a href="{attr(source.uri)}">{label}</a>'
    else:
        uri = _shown_uri(source)
        body = f"{label} — {_html_escape(uri)}" if uri else label
    inline, nested = _html_details(source)
    body += inline
    if uncited:
        return f'<li id="{attr(id_prefix)}{n}" class="gp-uncited">{body} (not cited){nested}</li>'
    return f'<li id="{attr(id_prefix)}{n}">{body}{nested}</li>'


public("grounding_protos.citations", number_sources, source_list, search_notes)
