"""``citations.render``: a :class:`Grounded` rendered whole, or a text and its citations.

:func:`render_grounded` is what ``grounding-protos render`` prints for one answer:
the CLI's ``render`` command and the facade's :func:`render` both call it, so the two
cannot drift (the CLI takes it in pieces, :func:`render_grounded_pieces`, and writes
them one by one). It sits in the render layer, above the data model (``_core`` imports
no renderer, so ``Grounded`` has no ``render`` method).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final, overload

from grounding_protos._core.model import Citation, Grounded
from grounding_protos._exceptions import ArgumentTypeError, ArgumentValueError
from grounding_protos._offsets import SpanSnap
from grounding_protos._public import public
from grounding_protos._render.markers import (
    MarkerStyle,
    RenderStyle,
    render_pieces,
    search_notes,
    source_list,
)
from grounding_protos._render.markers import render as _render_text
from grounding_protos._render.own_markers import replace_own_markers

DEFAULT_ID_PREFIX: Final = "gp-source-"
_STYLES: Final = ("markdown", "html", "plain")
# finish reasons that say nothing about why an answer is empty
_PLAIN_FINISH: Final = frozenset({"STOP", "FINISH_REASON_UNSPECIFIED"})
_GROUNDED_OPTIONS: Final = frozenset(
    {"footnotes", "raw_text", "page", "title", "lang", "id_prefix", "remote_images", "highlight"}
)


_ARGUMENTS: Final = ("text", "citations", "style")


def render_grounded(
    grounded: Grounded,
    style: RenderStyle = "markdown",
    *,
    footnotes: bool = False,
    raw_text: bool = False,
    page: bool = True,
    title: str | None = None,
    lang: str | None = None,
    id_prefix: str = DEFAULT_ID_PREFIX,
    remote_images: bool = False,
    highlight: bool = True,
) -> str:
    """What ``grounding-protos render --style STYLE`` prints for ``grounded`` (see
    :func:`render`); ``page=False``: the HTML fragment of a ``--jsonl`` line."""
    return "".join(
        render_grounded_pieces(
            grounded, style, footnotes=footnotes, raw_text=raw_text, page=page, title=title,
            lang=lang, id_prefix=id_prefix, remote_images=remote_images, highlight=highlight,
        )
    )  # fmt: skip


def render_grounded_pieces(
    grounded: Grounded,
    style: RenderStyle = "markdown",
    *,
    footnotes: bool = False,
    raw_text: bool = False,
    page: bool = True,
    title: str | None = None,
    lang: str | None = None,
    id_prefix: str = DEFAULT_ID_PREFIX,
    remote_images: bool = False,
    highlight: bool = True,
) -> Iterator[str]:
    """:func:`render_grounded` in pieces, as the CLI writes them one by one (an answer's
    text is not copied into one output string). Every check is done, and every marker
    placed, before this returns."""
    from grounding_protos._render import page as html

    if not isinstance(grounded, Grounded):
        raise ArgumentTypeError(f"expected a Grounded, not {type(grounded).__name__}")
    if not isinstance(style, str) or style not in _STYLES:
        raise ArgumentValueError(
            f"style must be 'markdown', 'html' or 'plain' for a Grounded, not {style!r}"
        )
    if footnotes and style != "markdown":
        raise ArgumentValueError("footnotes=True needs style='markdown'")
    if style != "html":
        for name, value in (("raw_text", raw_text), ("remote_images", remote_images),
                            ("title", title), ("lang", lang)):  # fmt: skip
            if value:
                raise ArgumentValueError(f"{name}= is for style='html'")
        if not page:
            raise ArgumentValueError("page=False is for style='html'")
        if not highlight:
            raise ArgumentValueError("highlight=False is for style='html'")
    elif page and (remote_images or id_prefix != DEFAULT_ID_PREFIX):
        raise ArgumentValueError(
            "remote_images= and id_prefix= are for the fragment (page=False): the page "
            "loads no image, and its ids are its own"
        )
    elif not page and title is not None:
        raise ArgumentValueError("title= is for the page (page=True)")
    text = grounded.text
    citations: Sequence[Citation] = grounded.citations
    if text is None:
        if citations:
            raise ArgumentValueError(
                "the answer has no text to place its citations on (a bare "
                "GroundingMetadata?): read it with text="
            )
        text = ""
    # the answer's own markers ([1] of a Perplexity answer) give way to the style's
    text, citations = replace_own_markers(text, citations)
    uncited = grounded.uncited_sources
    if style == "html":
        if page:
            whole = html.page(text, citations, title=html.DEFAULT_TITLE if title is None else title,
                              uncited=uncited, search=grounded.search, raw_text=raw_text,
                              lang=lang, highlight=highlight)  # fmt: skip
            return iter((whole,))
        fragment = html.fragment(text, citations, id_prefix=id_prefix, uncited=uncited,
                                 search=grounded.search, raw_text=raw_text, lang=lang,
                                 remote_images=remote_images, highlight=highlight)  # fmt: skip
        return iter((fragment, "\n"))
    if text:
        body = render_pieces(text, citations, style, footnotes=footnotes)
    else:
        body = iter(("(the answer has no text" + _why_empty(grounded) + ")",))
    sources = source_list(text, citations, style, uncited=uncited, footnotes=footnotes)
    notes = search_notes(grounded.search, style)
    return _ending(body, [f"\n{extra}\n" for extra in (sources, notes) if extra])


def _ending(body: Iterator[str], after: list[str]) -> Iterator[str]:
    """``body``'s pieces, a line break if it does not end with one, then ``after``."""
    last = ""
    for piece in body:
        if piece:
            last = piece
        yield piece
    if not last.endswith("\n"):
        yield "\n"
    yield from after


def _why_empty(grounded: Grounded) -> str:
    """``": finish reason SAFETY"``, the skipped reasons, or ``""``."""
    reasons = list(grounded.skipped_reasons)
    finish = grounded.finish_reason
    if finish and finish not in _PLAIN_FINISH:
        reasons.insert(0, f"finish reason {finish}")
    return f": {', '.join(reasons)}" if reasons else ""


@overload
def render(
    grounded: Grounded,
    /,
    style: RenderStyle = "markdown",
    *,
    footnotes: bool = False,
    raw_text: bool = False,
    page: bool = True,
    title: str | None = None,
    lang: str | None = None,
    id_prefix: str = DEFAULT_ID_PREFIX,
    remote_images: bool = False,
    highlight: bool = True,
) -> str: ...
@overload
def render(
    text: str,
    citations: Iterable[Citation],
    style: RenderStyle | MarkerStyle = "markdown",
    *,
    highlight: bool = False,
    snap: SpanSnap | None = None,
    clamp: bool = False,
    id_prefix: str = DEFAULT_ID_PREFIX,
    raw_text: bool = False,
    footnotes: bool = False,
    remote_images: bool = False,
) -> str: ...
def render(*args: Any, **options: Any) -> str:
    """An answer with its citations marked: ``render(grounded, style)``, what
    ``grounding-protos render --style STYLE`` prints, or ``render(text, citations,
    style)``, the text alone with its markers.

    **A** :class:`Grounded` (what :func:`~grounding_protos.citations.read` and
    :func:`~grounding_protos.citations.read_stream` give): the whole rendering, exactly
    as the command line writes it (the same code). ``"markdown"`` and ``"plain"``: the
    text with its markers, then the numbered source list (uncited sources after the
    cited ones, marked so) and the search queries; ``footnotes=True`` (Markdown) writes
    GFM footnotes, as ``--footnotes``. ``"html"``: the self-contained page (``title``,
    ``raw_text``, ``lang`` as in ``--title``, ``--raw-text``), or with ``page=False``
    the fragment to embed in a page of your own: the highlighted answer (``<div
    class="gp-answer">``), the source list and the search information, with the Search
    Suggestions chip (which Google's terms require an app to show) in a sandboxed frame;
    ``id_prefix`` and ``remote_images`` as for the text form. The cited text is
    highlighted; ``highlight=False`` (``--no-highlight``) leaves it unmarked, markers
    kept. An answer with no text (a
    blocked response, ``text == ""``) renders ``(the answer has no text)``, why (its
    finish or skipped reason) where the response says, and its sources. An answer whose
    citations have no text to sit on (``text is None``: a bare ``GroundingMetadata``)
    raises :class:`ArgumentValueError`: read it with ``text=``.

    >>> from grounding_protos.citations import read
    >>> grounded = read({"candidates": [{"content": {"parts": [{"text": "東京は首都です。"}]},
    ...     "groundingMetadata": {
    ...         "groundingChunks": [{"web": {"uri": "https://t.example", "title": "Tokyo"}}],
    ...         "groundingSupports": [{"segment": {"endIndex": 9, "text": "東京は"},
    ...                                "groundingChunkIndices": [0]}]}}]})
    >>> print(render(grounded), end="")
    東京は[1]首都です。
    <BLANKLINE>
    - [1] [Tokyo](<https://t.example>)
    >>> print(render(grounded, "plain"), end="")
    東京は[1]首都です。
    <BLANKLINE>
    [1] Tokyo — https://t.example
    >>> render(grounded, "html").startswith("<!DOCTYPE html>")
    True
    >>> render(grounded, "html", page=False).startswith('<div class="gp-answer gp-md" lang="ja">')
    True

    **A text and its citations**: ``text`` with a citation marker right after the last
    character of each cited span.

    Positions come from each citation's UTF-8 byte offsets ``start``/``end``, converted
    against ``text`` (its ``char_start``/``char_end`` are not used). Sources are numbered
    by first appearance in text order; citations ending at one place share one marker
    listing their distinct numbers in ascending order; a citation without sources gets
    no marker. No character of ``text`` is changed: removing the markers (and, for
    HTML, the tags and the escaping) gives it back exactly; but a citation of
    ``kind="marker"`` (an answer's own ``[1]``, Perplexity's) has the marker run after
    its span replaced by the style's marker, so that each shows once.

    - ``"markdown"``, ``"plain"``: ``[1]``, ``[1][3]``; the text is left as it is. In
      Markdown a marker never goes into code or a URL: one whose span ends inside an
      inline code span, a code block, a link (text or destination), an image, an
      autolink, raw HTML or a bare URL goes right after it (``docs/render.md``).
      ``footnotes=True`` (Markdown only) writes GFM footnote references ``[^1]``
      instead, to go with :func:`source_list`'s ``footnotes=True`` definitions.
    - ``"html"``: the text's Markdown rendered (CommonMark, GFM tables and
      strikethrough, by markdown-it-py), markers and
      highlights placed by the source positions (see ``docs/render.md``). With
      ``raw_text=True``, or without markdown-it-py (a warning, once), the text as
      it is, HTML-escaped, each marker a
      ``<sup class="gp-cite">`` of links to ``#gp-source-N`` (the ids of
      :func:`source_list`'s HTML, prefix ``id_prefix``). With ``highlight=True`` every
      cited stretch is also wrapped in ``<mark class="gp-span" data-sources="1 3">``,
      split at every span boundary so that no two elements overlap or nest. Images
      of the Markdown are links (``<a class="gp-image">``), never loaded, unless
      ``remote_images=True``.
    - a callable: called once per marker position with the ``(number, source)``
      pairs; its result is inserted verbatim, and the text is left as it is.

    Offsets are strict: one that is out of range or splits a character, or a reversed
    span, raises :class:`OffsetError` naming the citation's ``path`` (or
    ``citations[i]``). ``snap`` (``"floor"``, ``"ceil"``, ``"outward"``) and ``clamp``
    allow leniency as in :meth:`~grounding_protos.offsets.TextIndex.to_char_span`.

    >>> from grounding_protos.citations import Citation, Source
    >>> dom, wiki = Source(uri="https://dom.example", title="Dom"), Source(title="Wiki")
    >>> text = "Der Kölner Dom ist 157 m hoch. Er ist gotisch."
    >>> cites = [Citation(0, 31, None, None, None, (dom,)),
    ...          Citation(32, 47, None, None, None, (wiki, dom))]
    >>> render(text, cites)
    'Der Kölner Dom ist 157 m hoch.[1] Er ist gotisch.[1][2]'
    >>> render("<b>", [Citation(0, 3, None, None, None, (dom,))], "html", raw_text=True)
    '&lt;b&gt;<sup class="gp-cite">\u2060<a href="#gp-source-1" title="Dom">[1]</a></sup>'
    >>> render(text, cites, lambda pairs: "^" + ",".join(str(n) for n, _ in pairs))
    'Der Kölner Dom ist 157 m hoch.^1 Er ist gotisch.^1,2'
    """
    if len(args) > len(_ARGUMENTS):
        raise TypeError(f"render() takes at most 3 positional arguments ({len(args)} given)")
    given = dict(zip(_ARGUMENTS, args, strict=False))
    for name in _ARGUMENTS:
        if name in options:
            if name in given:
                raise TypeError(f"render() got multiple values for argument {name!r}")
            given[name] = options.pop(name)
    if "text" not in given:
        raise TypeError("render() missing 1 required positional argument: 'text'")
    # None and the defaults shown in the signature (_SIGNATURE) mean "not given"
    if "citations" in given and given["citations"] is None:
        del given["citations"]
    for name, default in (("highlight", None), ("snap", None), ("clamp", False)):
        if name in options and options[name] is default:
            del options[name]
    text = given["text"]
    if isinstance(text, Grounded):
        style = given.get("style", "markdown")
        if "citations" in given:
            # render(grounded, "html"): the second positional argument is the style
            if len(args) < 2 or "style" in given or not isinstance(given["citations"], str):
                raise ArgumentTypeError(
                    "render(grounded, style) takes no citations: a Grounded carries its own"
                )
            style = given["citations"]
        unknown = sorted(set(options) - _GROUNDED_OPTIONS)
        if unknown:
            raise TypeError(
                f"render() got an unexpected keyword argument {unknown[0]!r} for a Grounded "
                f"(it takes {', '.join(sorted(_GROUNDED_OPTIONS))})"
            )
        return render_grounded(text, style, **options)
    if "citations" not in given:
        raise ArgumentTypeError(
            "render() needs citations with a text: render(text, citations), or "
            "render(grounded) for what read() gives"
        )
    return _render_text(text, given["citations"], given.get("style", "markdown"), **options)


def _signature() -> inspect.Signature:
    """What ``help(render)`` shows: both forms' parameters, not ``(*args, **options)``.
    ``highlight=None`` is each form's default (``True`` for a :class:`Grounded`, ``False``
    for a text); ``citations`` is for the text form, ``snap`` and ``clamp`` too."""
    p = inspect.Parameter
    positional = [
        p("text", p.POSITIONAL_OR_KEYWORD, annotation="Grounded | str"),
        p("citations", p.POSITIONAL_OR_KEYWORD, default=None,
          annotation="Iterable[Citation] | None"),
        p("style", p.POSITIONAL_OR_KEYWORD, default="markdown",
          annotation="RenderStyle | MarkerStyle"),
    ]  # fmt: skip
    keywords = [
        ("footnotes", False, "bool"),
        ("raw_text", False, "bool"),
        ("page", True, "bool"),
        ("title", None, "str | None"),
        ("lang", None, "str | None"),
        ("id_prefix", DEFAULT_ID_PREFIX, "str"),
        ("remote_images", False, "bool"),
        ("highlight", None, "bool | None"),
        ("snap", None, "SpanSnap | None"),
        ("clamp", False, "bool"),
    ]
    named = [p(n, p.KEYWORD_ONLY, default=d, annotation=a) for n, d, a in keywords]
    return inspect.Signature([*positional, *named], return_annotation="str")


render.__signature__ = _signature()  # type: ignore[attr-defined]

public("grounding_protos.citations", render)
