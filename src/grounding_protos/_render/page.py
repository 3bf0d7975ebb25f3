"""The self-contained HTML page of ``grounding-protos render --style html``.

One file, readable offline: inline CSS, no script, no external asset, and a
Content-Security-Policy that forbids loading anything (``default-src 'none'``), so
that even a mistake elsewhere could not make the page fetch or run something. The
answer and the source list come from :func:`grounding_protos.citations.render` and
:func:`~grounding_protos.citations.source_list`, which escape everything taken from
the input and link only ``http(s)`` URIs (``mailto`` too in the answer's Markdown);
this module adds escaped text only.

The answer is shown as rendered Markdown (the ``gp-md`` class) when markdown-it-py is
installed, else, or with ``raw_text=True``, as the text it is (``pre-wrap``).

Languages: the page's own words (headings, the footer) are English, so ``<html
lang="en">``; the answer's ``<div>`` carries the answer's language, given as ``lang=``
or else named from its script where one script names one language (Hangul: ``ko``,
kana: ``ja``, Greek: ``el``, …; :func:`answer_language`), and ``lang=""`` (unknown)
otherwise. Browsers choose fonts and line breaking by it (Korean keeps its words
whole only under ``:lang(ko)``; Han characters take Japanese or Chinese forms), and
screen readers their voice.
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Sequence
from typing import Final

from grounding_protos._core.model import Citation, SearchInfo, Source, cited_characters
from grounding_protos._exceptions import ArgumentTypeError, ArgumentValueError
from grounding_protos._render.markers import number_sources, render, search_notes, source_list

DEFAULT_TITLE: Final = "Grounded answer"

# Colours as custom properties, light by default and dark where the reader's system
# asks for it (prefers-color-scheme): the page follows the reader's choice.
_CSS: Final = """
:root {
  color-scheme: light dark;
  --gp-bg: #f3f4f7; --gp-fg: #1c2230; --gp-card: #fff; --gp-shadow: rgb(0 0 0 / 0.1);
  --gp-muted: #5b6475; --gp-faint: #7a8293; --gp-line: #d5d9e2; --gp-quote: #444c5c;
  --gp-code: #f1f3f7; --gp-th: #f6f7fa; --gp-link: #1f5bd6; --gp-flag: #8a5a00;
  --gp-mark: #fff1a8; --gp-mark-more: #ffd9a0; --gp-mark-code: rgb(0 0 0 / 0.06);
}
@media (prefers-color-scheme: dark) {
  :root {
    --gp-bg: #14171d; --gp-fg: #e3e6ec; --gp-card: #1e222a; --gp-shadow: rgb(0 0 0 / 0.5);
    --gp-muted: #a0a8b8; --gp-faint: #8a93a5; --gp-line: #3a404c; --gp-quote: #c2c8d4;
    --gp-code: #2a2f39; --gp-th: #262b34; --gp-link: #8ab4ff; --gp-flag: #f0b45a;
    --gp-mark: #5a4a00; --gp-mark-more: #7a4300; --gp-mark-code: rgb(255 255 255 / 0.1);
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--gp-bg); color: var(--gp-fg);
  font: 17px/1.65 system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK JP",
    "Noto Color Emoji", sans-serif;
}
main {
  max-width: 48rem; margin: 2rem auto; padding: 2rem 2.5rem 1.5rem;
  background: var(--gp-card); border-radius: 12px; box-shadow: 0 1px 4px var(--gp-shadow);
}
@media (max-width: 36rem) {
  main { margin: 0; padding: 1.2rem 1rem 1rem; border-radius: 0; }
}
h1 { font-size: 1.45rem; line-height: 1.3; margin: 0 0 0.3rem; overflow-wrap: break-word; }
h2 {
  font-size: 0.85rem; letter-spacing: 0.06em; text-transform: uppercase;
  color: var(--gp-muted); margin: 1.8rem 0 0.6rem;
}
.gp-meta { margin: 0; color: var(--gp-muted); font-size: 0.9rem; }
.gp-answer { white-space: pre-wrap; overflow-wrap: break-word; margin: 1.2rem 0 0; }
/* Korean breaks lines between words, not between syllables (Chromium's default): in a
   Korean answer, and in an answer of mixed languages with Korean in it */
:lang(ko), .gp-keep-words { word-break: keep-all; }
.gp-answer.gp-md { white-space: normal; }
.gp-md > :first-child { margin-top: 0; }
.gp-md h1, .gp-md h2, .gp-md h3, .gp-md h4, .gp-md h5, .gp-md h6 {
  font-size: 1.15rem; letter-spacing: normal; text-transform: none; color: inherit;
  margin: 1.3rem 0 0.5rem; line-height: 1.35;
}
.gp-md h1 { font-size: 1.35rem; }
.gp-md h2 { font-size: 1.25rem; }
.gp-md p, .gp-md ul, .gp-md ol, .gp-md blockquote, .gp-md table, .gp-md pre { margin: 0.7rem 0; }
.gp-md ul, .gp-md ol { padding-left: 1.6rem; }
.gp-md li { margin: 0.2rem 0; }
.gp-md blockquote {
  border-left: 3px solid var(--gp-line); padding: 0 0 0 1rem; color: var(--gp-quote);
}
.gp-md code {
  font: 0.9em/1.5 ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", monospace;
  background: var(--gp-code); border-radius: 4px; padding: 0.05em 0.3em;
}
/* code keeps its lines: a long one scrolls (the code, so that the block's marker stays
   in its corner), it never wraps into what looks like two */
.gp-md pre {
  white-space: pre; overflow-wrap: normal; word-break: normal;
  background: var(--gp-code); border-radius: 6px; padding: 0.7rem 0.9rem;
  position: relative;
}
.gp-md pre code {
  display: block; overflow-x: auto; background: none; padding: 0; white-space: inherit;
}
/* a code block's marker: in the block's corner, beside its last line */
.gp-md pre:has(> sup.gp-cite) { padding-right: 3.2rem; }
.gp-md pre > sup.gp-cite { position: absolute; right: 0.6rem; bottom: 0.95rem; line-height: 1; }
a.gp-image::before, span.gp-image::before {
  content: "image: "; font-size: 0.8em; color: var(--gp-muted); font-style: normal;
}
.gp-md table { border-collapse: collapse; display: block; overflow-x: auto; }
.gp-md th, .gp-md td { border: 1px solid var(--gp-line); padding: 0.3rem 0.6rem; }
.gp-md th { background: var(--gp-th); }
.gp-md a { color: var(--gp-link); }
.gp-md hr { border: 0; border-top: 1px solid var(--gp-line); }
/* flat, with no border or rounding of its own: the pieces of one highlight, cut by
   inline markup (bold, links, code), meet as one band */
mark.gp-span { background: var(--gp-mark); color: inherit; padding: 0.08em 0; }
mark.gp-span[data-sources*=" "], mark.gp-span[data-count] { background: var(--gp-mark-more); }
mark.gp-span > code { background: var(--gp-mark-code); }
sup.gp-cite { line-height: 0; font-size: 0.72em; white-space: nowrap; }
sup.gp-cite a { color: var(--gp-link); text-decoration: none; font-weight: 600; padding: 0 1px; }
sup.gp-cite a:hover, sup.gp-cite a:focus { text-decoration: underline; }
ol.gp-sources { margin: 0; padding-left: 2.2rem; overflow-wrap: break-word; }
ol.gp-sources li { margin: 0.25rem 0; padding: 0.1rem 0.4rem; border-radius: 4px; }
ol.gp-sources li:target { background: var(--gp-mark); }
ol.gp-sources a { color: var(--gp-link); }
ol.gp-sources li.gp-uncited { color: var(--gp-muted); }
ul.gp-reviews { margin: 0.15rem 0 0.3rem; padding-left: 1.4rem; font-size: 0.92rem; }
ul.gp-reviews li { margin: 0.1rem 0; padding: 0; }
.gp-attribution { color: var(--gp-muted); font-size: 0.85rem; }
.gp-attribution::before { content: "· "; }
a.gp-flag { font-size: 0.85rem; color: var(--gp-flag); }
p.gp-queries { margin: 0.8rem 0 0.2rem; color: var(--gp-muted); font-size: 0.9rem; }
ul.gp-queries { margin: 0; padding-left: 2.2rem; overflow-wrap: break-word; }
/* Google's chips are light: the frame keeps them so, on a light ground of its own. On a
   narrow screen the chips wrap, so the frame leaves room for each on a line of its own
   (--gp-chips: how many there are), and the reader can make it taller still. */
iframe.gp-suggestions {
  width: 100%; height: 4.5rem; border: 0; margin-top: 0.6rem; color-scheme: light;
  background: #fff; border-radius: 8px; resize: vertical;
}
@media (max-width: 40rem) {
  iframe.gp-suggestions { height: calc(1.5rem + var(--gp-chips, 2) * 2.25rem); }
}
.gp-none { color: var(--gp-muted); }
footer { margin-top: 1.8rem; color: var(--gp-faint); font-size: 0.8rem; }
"""

_FOOTER: Final = (
    "Highlighted text is cited, and its source numbers follow it: select a number to go "
    "to its source. Darker highlights have several sources."
)
_FOOTER_PLAIN: Final = (
    "Source numbers follow the text they cite: select a number to go to its source."
)
# The chips of Google's Search Suggestions (class "chip"), or else its links.
_CHIP: Final = re.compile(r"""class\s*=\s*["']?[^"'>]*\bchip\b""", re.IGNORECASE)

_CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; "
    "base-uri 'none'; form-action 'none'"
)


# The Search Suggestions frame's own policy, first in its document: whatever page the
# frame is embedded in, its content loads nothing but inline styles and data: images.
FRAME_CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)

# A <link> start tag (its name ends at a space, '/' or '>'): resource hints such as
# preconnect and dns-prefetch open connections that no CSP governs, so in the Search
# Suggestions (whose CSS is inline) a <link> becomes an element that does nothing.
_LINK_TAG: Final = re.compile(r"<link(?=[\t\n\f\r /> ])", re.IGNORECASE)
# What the Markdown view starts with (the raw-text view escapes every '<' of the text)
_BLOCK: Final = re.compile(r"<(?:p|h[1-6]|ul|ol|table|pre|blockquote|hr)\b")
# A language tag (BCP 47's shape: a language, then subtags), or "" for unknown.
_LANG_TAG: Final = re.compile(r"(?:[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*)?")
# Scripts that name one language, as (language, character class); Han is decided apart.
_SCRIPTS: Final = tuple(
    (lang, re.compile(f"[{chars}]"))
    for lang, chars in (
        ("ko", "\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\ud7b0-\ud7ff"),
        ("ja", "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"),  # kana
        ("el", "\u0370-\u03ff\u1f00-\u1fff"),
        ("he", "\u05d0-\u05ea"),
        ("th", "\u0e01-\u0e5b"),
        ("hy", "\u0531-\u0587"),
        ("ka", "\u10a0-\u10ff"),
        ("km", "\u1780-\u17ff"),
        ("lo", "\u0e81-\u0edf"),
        ("si", "\u0d80-\u0dff"),
        ("ta", "\u0b80-\u0bff"),
        ("te", "\u0c00-\u0c7f"),
        ("kn", "\u0c80-\u0cff"),
        ("ml", "\u0d00-\u0d7f"),
        ("gu", "\u0a80-\u0aff"),
        ("pa", "\u0a00-\u0a7f"),
    )
)
_HAN: Final = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_LETTER: Final = re.compile(r"[^\W\d_]")
_SAMPLE: Final = 20_000  # characters looked at: enough to tell a script


def answer_language(text: str) -> str:
    """The language an answer is written in, as far as its script tells: the language
    of the script that holds more than half of its letters, where that script is
    written for one language only; ``""`` (unknown) otherwise: Latin, Cyrillic and
    Arabic scripts, among others, are written for many languages. Han characters are
    Japanese with kana beside them (a tenth of the Han and kana, or more), else
    Chinese. Only the first 20,000 characters are looked at.

    >>> answer_language("서울은 대한민국의 수도입니다. Seoul 🏙")
    'ko'
    >>> answer_language("東京タワーは333 mです。"), answer_language("北京是中国的首都。")
    ('ja', 'zh')
    >>> answer_language("Der Kölner Dom ist 157 m hoch.")
    ''
    """
    sample = text[:_SAMPLE]
    letters = len(_LETTER.findall(sample))
    if not letters:
        return ""
    counts = {lang: len(script.findall(sample)) for lang, script in _SCRIPTS}
    han = len(_HAN.findall(sample))
    if han:
        if counts["ja"] * 10 >= counts["ja"] + han:
            counts["ja"] += han
        else:
            counts["zh"] = han
    lang, most = max(counts.items(), key=lambda item: item[1])
    return lang if 2 * most > letters else ""


def _lang_attribute(text: str, lang: str | None) -> str:
    if lang is None:
        lang = answer_language(text)
    elif not isinstance(lang, str):
        raise ArgumentTypeError(f"lang must be a str or None, not {type(lang).__name__}")
    elif _LANG_TAG.fullmatch(lang) is None:
        raise ArgumentValueError(
            f"lang must be a language tag such as 'ko' or 'pt-BR', or '' for unknown, not {lang!r}"
        )
    return html.escape(lang, quote=True)


def _answer(
    text: str,
    citations: Sequence[Citation],
    id_prefix: str,
    raw_text: bool,
    lang: str | None,
    remote_images: bool,
    highlight: bool = True,
) -> str:
    """The answer's ``<div>``: rendered Markdown, or raw text kept as it is."""
    body = render(
        text, citations, "html", highlight=highlight, id_prefix=id_prefix, raw_text=raw_text,
        remote_images=remote_images,
    )  # fmt: skip
    kind = "gp-answer gp-md" if not raw_text and _BLOCK.match(body) else "gp-answer"
    attribute = _lang_attribute(text, lang)
    if attribute != "ko" and keeps_korean_words(text):
        kind += " gp-keep-words"
    return f'<div class="{kind}" lang="{attribute}">{body}</div>'


_HANGUL: Final = _SCRIPTS[0][1]
_KANA: Final = _SCRIPTS[1][1]


def keeps_korean_words(text: str) -> bool:
    """Whether an answer not in Korean as a whole still holds Korean, whose words the
    page keeps whole (``word-break: keep-all``, the ``gp-keep-words`` class): some
    Hangul, and no more Han and kana than Hangul (keep-all would keep Japanese and
    Chinese from breaking between their characters).

    >>> keeps_korean_words("Seoul (서울특별시) ist die Hauptstadt Südkoreas.")
    True
    >>> keeps_korean_words("東京タワーは333 mです。서울"), keeps_korean_words("Köln")
    (False, False)
    """
    sample = text[:_SAMPLE]
    hangul = len(_HANGUL.findall(sample))
    return hangul > 0 and len(_HAN.findall(sample)) + len(_KANA.findall(sample)) <= hangul


def suggestions(search: SearchInfo | None) -> str:
    """The Search Suggestions chip in a sandboxed frame, and the search queries as text.

    The chip (``searchEntryPoint.renderedContent``) is HTML and CSS from the API, which
    the Grounding with Google Search terms require applications to show. It goes into
    an ``<iframe sandbox srcdoc>``: no script runs, it cannot reach the page, and its
    links open in a new tab (``allow-popups``). Its document starts with a policy of
    its own (:data:`FRAME_CSP`), so that wherever the frame is embedded its content
    loads no remote resource (images, style sheets, fonts, frames, objects, also by
    relative URLs); DNS prefetching is off, and ``<link>`` elements, whose resource
    hints no CSP governs, are renamed to an element that does nothing. The chip shows
    the web search queries, so they are not listed again; retrieval queries and URLs
    that could not be read are.
    """
    if search is None:
        return ""
    out = []
    if search.rendered_content:
        doc = (
            f'<meta http-equiv="Content-Security-Policy" content="{FRAME_CSP}">'
            '<meta http-equiv="x-dns-prefetch-control" content="off">'
            '<base target="_blank">' + _LINK_TAG.sub("<gp-inert-link", search.rendered_content)
        )
        chips = max(1, len(_CHIP.findall(search.rendered_content)))
        out.append(
            '<iframe class="gp-suggestions" title="Search Suggestions" '
            'sandbox="allow-popups allow-popups-to-escape-sandbox" referrerpolicy="no-referrer" '
            f'style="--gp-chips: {chips}" srcdoc="{html.escape(doc, quote=True)}"></iframe>'
        )
        search = dataclasses.replace(search, queries=())  # the chip shows them
    notes = search_notes(search, "html")
    if notes:
        out.append(notes)
    return "\n".join(out)


def fragment(
    text: str,
    citations: Sequence[Citation],
    *,
    id_prefix: str = "gp-source-",
    uncited: Sequence[Source] = (),
    search: SearchInfo | None = None,
    raw_text: bool = False,
    lang: str | None = None,
    remote_images: bool = False,
    highlight: bool = True,
) -> str:
    """The highlighted answer and its source list, to embed in a page of your own.

    ``lang`` is the answer's language tag (``None``: from its script, see
    :func:`answer_language`); ``remote_images=True`` shows the Markdown's images as
    ``<img>`` (which loads them) instead of links; ``highlight=False`` leaves the cited
    text unmarked (the markers stay).
    """
    answer = _answer(text, citations, id_prefix, raw_text, lang, remote_images, highlight)
    sources = source_list(text, citations, "html", uncited=uncited, id_prefix=id_prefix)
    listing = sources or '<p class="gp-none">No sources.</p>'
    extra = suggestions(search)
    return f"{answer}\n{listing}" + (f"\n{extra}" if extra else "")


def page(
    text: str,
    citations: Sequence[Citation],
    *,
    title: str = DEFAULT_TITLE,
    uncited: Sequence[Source] = (),
    search: SearchInfo | None = None,
    raw_text: bool = False,
    lang: str | None = None,
    highlight: bool = True,
) -> str:
    """A whole HTML document: the answer with cited spans highlighted, numbered
    superscript links to the source list (their titles on hover), and the list itself,
    with the ``uncited`` sources after the cited ones and the ``search`` queries and
    Search Suggestions below.

    The answer's Markdown is rendered (with markdown-it-py installed) unless
    ``raw_text``; its images are links (the page's policy loads no image anyway).
    ``lang`` is the answer's language tag (``None``: from its script, see
    :func:`answer_language`). ``highlight=False`` leaves the cited text unmarked (an
    answer that is nearly all cited reads better so); the markers stay. The citations'
    offsets must fit ``text`` (as ``citations.read`` gives them).
    """
    answer = _answer(text, citations, "gp-source-", raw_text, lang, False, highlight)
    sources = source_list(text, citations, "html", uncited=uncited)
    numbered = number_sources(text, citations, uncited=uncited)
    n_sources = len({s.key for c in citations for s in c.sources})  # numbered first
    # citations and grounding supports often share spans: count the spans
    n_cited = len({(c.start, c.end) for c in citations if c.sources})
    covered = cited_characters(citations)
    share = f"{100 * covered / len(text):.0f}%" if text else "0%"
    meta = (
        f"{n_cited} cited span{'' if n_cited == 1 else 's'} · "
        f"{n_sources} source{'' if n_sources == 1 else 's'} · "
        f"{share} of the text cited"
    )
    not_cited = len(numbered) - n_sources
    if not_cited:
        meta += f" · {not_cited} source{'' if not_cited == 1 else 's'} not cited"
    listing = sources or '<p class="gp-none">No sources.</p>'
    extra = suggestions(search)
    if extra:
        listing += "\n" + extra
    escaped_title = html.escape(title, quote=False)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="grounding-protos">
<title>{escaped_title}</title>
<style>{_CSS}</style>
</head>
<body>
<main>
<header>
<h1>{escaped_title}</h1>
<p class="gp-meta">{meta}</p>
</header>
<section aria-label="Answer">
{answer}
</section>
<section aria-labelledby="gp-sources-heading">
<h2 id="gp-sources-heading">Sources</h2>
{listing}
</section>
<footer>{_FOOTER if highlight else _FOOTER_PLAIN}</footer>
</main>
</body>
</html>
"""
