"""The HTML view of an answer's Markdown: markers and highlights on the right characters.

Oracles: ``plain_html`` (markdown-it-py on the text, no citations) for the text
invariant; Python's ``html.parser`` for the page structure; and, for fixtures in the
style of real Gemini answers, the character each marker must follow, written here by
hand. Browser checks of the same fixtures are in ``test_html_view.py``.
"""

from __future__ import annotations

import json
import re
import warnings
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

pytest.importorskip("markdown_it")

from grounding_protos._render.markdown_html import plain_html, render_markdown
from grounding_protos.citations import Citation, Source, number_sources, render
from tests.markdown_cases import (
    ANSWER,
    EXPECTED_BEFORE_MARKERS,
    JOE,
    PRINCE,
    WIKI,
    answer_citations,
    cite,
)

# Markers and marks as render(style="html") writes them; text content never holds '<'.
MARKER = re.compile(r'<sup class="gp-cite">\u2060(?:<a [^>]*>\[\d+\]</a>)+</sup>')
MARK = re.compile(r'<mark class="gp-span"[^>]*>|</mark>')
VOID = {"br", "hr", "img", "input", "meta", "link"}


class Structure(HTMLParser):
    """Balanced tags, marks never nesting or holding a marker, the text, the markers'
    numbers, the text of each code element, and the highlight groups."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.text: list[str] = []
        self.numbers: list[list[int]] = []  # each marker's numbers, in order
        self.codes: list[str] = []  # the text of each <code>, in order
        self.groups = 0  # runs of highlighted text, only tags and markers between
        self._code: list[str] | None = None
        self._grouped = False  # in a highlight group
        self._since_marker: bool | None = None  # text since the last marker (None: none yet)
        self._whole = 0  # inside a whole element in a mark (inline code, an image link)

    @property
    def markers(self) -> int:
        return len(self.numbers)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        attributes = dict(attrs)
        if self._whole:
            self._whole += 1
        elif "mark" in self.stack:
            # a highlight holds text, and at most inline code or an image link whole
            if tag == "code" or "gp-image" in str(attributes.get("class")):
                self._whole = 1
            else:
                self.errors.append(f"<{tag}> inside a mark")
        if tag == "mark" and "mark" in self.stack:
            self.errors.append("a mark inside a mark")
        if tag == "sup" and attributes.get("class") == "gp-cite":
            if "a" in self.stack:  # (markdown-it itself may nest an autolink in a link)
                self.errors.append("a marker inside a link")
            if "code" in self.stack:
                self.errors.append("a marker inside code")
            if self._since_marker is False:
                self.errors.append("two markers with nothing rendered between them")
            self.numbers.append([])
        if tag == "code":
            self._code = []
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
            return
        self.stack.pop()
        if self._whole:
            self._whole -= 1
        if tag == "code" and self._code is not None:
            self.codes.append("".join(self._code))
            self._code = None
        elif tag == "sup" and "sup" not in self.stack:
            self._since_marker = False

    def handle_data(self, data: str) -> None:
        if "sup" in self.stack:  # a marker's text
            if data.startswith("[") and data.endswith("]"):
                self.numbers[-1].append(int(data[1:-1]))
            return
        self.text.append(data)
        if self._code is not None:
            self._code.append(data)
        if self._since_marker is False:
            self._since_marker = True
        if "mark" in self.stack:
            if not self._grouped:
                self.groups += 1
                self._grouped = True
        elif data.strip("\n"):  # (newlines between blocks split nothing)
            self._grouped = False


def structure(html: str) -> Structure:
    parser = Structure()
    parser.feed(html)
    parser.close()
    assert not parser.errors, parser.errors
    assert not parser.stack, f"unclosed: {parser.stack}"
    return parser


def strip_citations(html: str) -> str:
    return MARK.sub("", MARKER.sub("", html))


def marker_groups(text: str, citations: list[Citation]) -> int:
    return len({c.end for c in citations if c.sources})


def check_markers(parsed: Structure, text: str, citations: list[Citation]) -> None:
    """The view's markers are the plan's marker groups (one per distinct span end, in
    order), where some that land on one place are joined: each marker holds the
    numbers of a run of consecutive groups, ascending, no number twice."""
    numbers = {s.key: n for n, s in number_sources(text, citations)}
    by_end: dict[int, set[int]] = {}
    for c in citations:
        if c.sources:
            by_end.setdefault(c.end, set()).update(numbers[s.key] for s in c.sources)
    groups = [by_end[end] for end in sorted(by_end)]
    shown = parsed.numbers
    for marker in shown:
        assert marker == sorted(set(marker)) and marker, marker

    def fits(i: int, j: int) -> bool:  # markers i.. are the unions of runs of groups j..
        if i == len(shown):
            return j == len(groups)
        union: set[int] = set()
        for k in range(j, len(groups)):
            union |= groups[k]
            if union == set(shown[i]) and fits(i + 1, k + 1):
                return True
        return False

    assert fits(0, 0), (shown, groups)


def code_texts(html: str) -> list[str]:
    return structure(html).codes


# --- Fixtures --------------------------------------------------------------------------------


def test_markdown_renders_with_no_syntax_left() -> None:
    html = render(ANSWER, answer_citations(), "html", highlight=True)
    shown = "".join(structure(html).text)
    for syntax in ("**", "*   ", "## ", "|:--", "```", "](https", "> Tip", "~~"):
        assert syntax not in shown
    assert "<strong>" in html and "<table>" in html and "<h2>" in html
    assert '<pre><code class="language-python">' in html and "<blockquote>" in html
    assert "<s>cheap</s>" in html and '<a href="https://maps.example/joes"' in html


def test_text_invariant() -> None:
    citations = answer_citations()
    for highlight in (False, True):
        html = render(ANSWER, citations, "html", highlight=highlight)
        assert strip_citations(html) == plain_html(ANSWER)
        assert structure(html).markers == marker_groups(ANSWER, citations)


def before_markers(html: str) -> list[str]:
    """The rendered text before each marker (markers and marks taken out)."""
    texts = []
    for m in MARKER.finditer(html):
        parser = Structure()
        parser.feed(strip_citations(html[: m.start()]))
        texts.append("".join(parser.text))
    return texts


def test_each_marker_follows_its_spans_last_character() -> None:
    html = render(ANSWER, answer_citations(), "html", highlight=True)
    expected = EXPECTED_BEFORE_MARKERS
    found = before_markers(html)
    assert len(found) == len(expected)
    for text, tail in zip(found, expected, strict=True):
        assert text.rstrip("\n").endswith(tail.rstrip("\n")), (text[-40:], tail)


@pytest.mark.parametrize(
    ("text", "piece", "drop", "expected"),
    [
        ("**Joe's Pizza** is good.", "**Joe's Pizza**", 0, "<strong>Joe's Pizza</strong>[1]"),
        ("**Joe's Pizza** is good.", "**Joe's Pizza", 0, "<strong>Joe's Pizza[1]</strong>"),
        ("Call `get(x)` now.", "`get(x)`", 3, "<code>get(x)</code>[1] now"),
        ("Call `get(x)` now.", "`get(x)`", 1, "<code>get(x)</code>[1] now"),
        ("Call `get(x)` now.", "`get(x)`", 0, "<code>get(x)</code>[1] now"),
        ("Call **`get(x)`** now.", "**`get(x)`", 0, "<code>get(x)</code>[1]</strong>"),
        ("See [docs](https://d.example/a) now.", "[docs](https", 0, "</a>[1] now"),
        ("A &amp; B", "A &am", 0, "A &amp;[1] B"),
        ("A \\* B", "A \\", 0, "A *[1] B"),
        ("one\ntwo", "one\n", 0, "one[1]\ntwo"),
        ("para one.\n\n- item", "para one.\n\n- ", 0, "para one.[1]</p>"),
        ("```\ncode\n```\nafter", "cod", 0, "</code>[1]</pre>\n<p>after"),
        ("```\ncode\n```\nafter", "```\ncode\n```\n", 0, "</code>[1]</pre>\n<p>after"),
        ("x <b>bold</b> y", "x <b", 0, "x &lt;b&gt;[1]bold"),
        ("# ", "# ", 0, "<h1></h1>\n[1]"),
        ("![alt](https://i.example/a.png) z", "![al", 0, '">alt</a>[1] z'),
        ("<https://a.example/x>", "<https://a.example/", 0, "</a>[1]"),
        ("a\r\nb", "a\r\nb", 0, "a\nb[1]"),
        ("> | > | b |\n> |---|---|\n", "> | >", 0, "<th>&gt;[1]</th>"),  # not the quote's '>'
        (
            "- [x](https://x.example) `a` **b**",
            "- [x](https://x.example) `a",
            0,
            "<code>a</code>[1]",
        ),
    ],
)
def test_marker_places(text: str, piece: str, drop: int, expected: str) -> None:
    char_end = len(text[: text.index(piece) + len(piece) - drop])
    output = render_markdown(text, [char_end], ["[1]"])
    assert expected in output, output
    assert output.replace("[1]", "") == plain_html(text)


def test_highlights_split_at_elements() -> None:
    text = "Try **Joe's Pizza** or *Prince* St."
    html = render(text, [cite(text, "Pizza** or *Pri", JOE)], "html", highlight=True)
    marks = re.findall(r"<mark[^>]*>(.*?)</mark>", html)
    assert marks == ["Pizza", " or ", "Pri"]
    assert "<strong>Joe's <mark" in html and "<em><mark" in html
    assert structure(html).groups == 1  # pieces, but one highlight


def marked_text(html: str) -> str:
    """The highlighted text, markers left out."""
    return "".join(re.findall(r"<mark[^>]*>(.*?)</mark>", MARKER.sub("", html), re.DOTALL))


def test_each_fixture_span_is_one_highlight_group() -> None:
    for citation in answer_citations():
        html = render(ANSWER, [citation], "html", highlight=True)
        assert structure(html).groups == 1, html
    prince = cite(ANSWER, "Street Pizza** is known for its *spicy* pepperoni squares.", PRINCE)
    html = render(ANSWER, [prince], "html", highlight=True)
    assert re.sub("<[^>]*>", "", marked_text(html)) == (
        "Street Pizza is known for its spicy pepperoni squares."
    )
    # inline code one source covers whole is one piece inside the mark
    text = "Call `get_place(id)` **now** 🍕."
    html = render(text, [cite(text, "Call `get_place(id)` **now", JOE)], "html", highlight=True)
    assert '<mark class="gp-span" data-sources="1">Call <code>get_place(id)</code> </mark>' in html
    assert structure(html).groups == 1


def test_code_text_is_never_changed() -> None:
    """Spans ending at every character of inline code and of a code block: the code's
    text stays exactly what markdown-it renders, the markers go after the code."""
    text = "Nutze `straße_öffnen(日本)` hier.\n\n```py\nx = '👍🏽'\ny = 2\n```\nEnde."
    expected = code_texts(plain_html(text))
    for end in range(len(text) + 1):
        for highlight in (False, True):
            citations = [cite(text, text[:end], JOE), cite(text, text[end // 2 : end], WIKI)]
            html = render(text, citations, "html", highlight=highlight)
            assert code_texts(html) == expected, (end, html)


def test_hostile_markdown_stays_inert() -> None:
    text = (
        "<script>alert(1)</script> [x](javascript:alert(2)) [y](data:text/html,z) "
        "![i](javascript:alert(3)) <javascript:alert(4)> [ok](https://ok.example) "
        "[rel](/local) <mailto:a@b.example>"
    )
    trap = Source(uri="javascript:alert(5)", title='"><script>alert(6)</script>')
    html = render(text, [Citation(0, len(text), None, None, None, (trap,))], "html")
    assert "<script" not in html and "javascript:" not in re.sub(r">[^<]*<", "><", html)
    assert re.findall(r'href="([^"#][^"]*)"', html) == ["https://ok.example", "mailto:a@b.example"]
    assert "[rel](/local)" in html  # a relative link stays its source text
    structure(html)


def test_spans_ending_inside_one_link_share_one_marker() -> None:
    """Markers that land on one place (after a link, code, an entity, an image) are one
    marker, its numbers ascending, never one twice (issue: ``</a>[1][2][1]``)."""
    text = "Siehe [die Karte von Köln 🗺](https://maps.example/k%C3%B6ln) und mehr."
    pieces = ["[die", "[die Karte", "[die Karte von Köln", "[die Karte von Köln 🗺](https"]
    citations = [
        cite(text, piece, s) for piece, s in zip(pieces, [JOE, WIKI, JOE, PRINCE], strict=True)
    ]
    out = render(text, citations, "html", highlight=True)
    assert out.count('<sup class="gp-cite">') == 1
    assert re.search(
        r"</a><sup[^>]*>\u2060<a [^>]*>\[1\]</a><a [^>]*>\[2\]</a><a [^>]*>\[3\]</a></sup> und", out
    )
    for tail, end in (
        ("`a_b(c)` x", "`a_b"),
        ("&amp; x", "&am"),
        ("![Köln](https://i.example/k.png) x", "![Kö"),
    ):
        t = "Hier " + tail
        stop = t.index(end) + len(end)
        both = [cite(t, t[:stop], JOE), cite(t, t[: stop - 1], WIKI), cite(t, t[: stop - 2], JOE)]
        html_out = render(t, both, "html")
        assert html_out.count('<sup class="gp-cite">') == 1, html_out
        assert re.findall(r">\[(\d)\]<", html_out) == ["1", "2"], html_out


def test_images_are_links_unless_asked_for() -> None:
    """Showing the answer loads nothing: an image is a link to its URL, its alt text the
    link text (its URL when it has none); inside a link's text, a span. ``<img>`` only
    with ``remote_images=True``."""
    text = (
        'Köln ![Dom 🏰](https://img.example/dom.png?secret=42 "Der Dom") und '
        "![](https://img.example/bare.png) [![Badge](https://img.example/b.svg)](https://site.example)"
    )
    citations = [cite(text, text, JOE)]
    out = render(text, citations, "html", highlight=True)
    assert "<img" not in out
    dom = 'href="https://img.example/dom.png?secret=42" title="Der Dom">Dom 🏰</a>'
    assert f'<a class="gp-image" {dom}' in out
    assert (
        '<a class="gp-image" href="https://img.example/bare.png">https://img.example/bare.png</a>'
        in out
    )
    assert re.search(
        r'<a href="https://site\.example">(<mark[^>]*>)?<span class="gp-image" '
        r'title="https://img\.example/b\.svg">Badge</span>',
        out,
    )
    assert strip_citations(out) == plain_html(text)
    parsed = structure(out)
    assert parsed.groups == 1  # the image links are in the highlight
    remote = render(text, citations, "html", highlight=True, remote_images=True)
    assert remote.count("<img ") == 3 and 'src="https://img.example/dom.png?secret=42"' in remote
    assert strip_citations(remote) == plain_html(text, remote_images=True)
    with pytest.raises(ValueError, match="remote_images=True needs style='html'"):
        render(text, citations, remote_images=True)
    with pytest.raises(ValueError, match="remote_images=True needs style='html'"):
        render(text, citations, "html", raw_text=True, remote_images=True)


def test_raw_text_option() -> None:
    text = "**Joe's** <b>"
    citations = [Citation(0, 9, None, None, None, (JOE,))]
    raw = render(text, citations, "html", raw_text=True)
    assert raw.startswith("**Joe&#x27;s**") or raw.startswith("**Joe's**")
    assert "<p>" not in raw


def test_missing_markdown_it_falls_back_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import grounding_protos._render.markdown_html as view

    monkeypatch.setattr(view, "available", lambda: False)
    monkeypatch.setattr(view, "_warned_missing", False)
    citations = [Citation(0, 3, None, None, None, (JOE,))]
    with pytest.warns(RuntimeWarning, match=r"markdown-it-py \(3 or later\) is not installed"):
        first = render("**a**", citations, "html")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = render("**a**", citations, "html")
    assert first == second == render("**a**", citations, "html", raw_text=True)


def test_footnotes() -> None:
    from grounding_protos.citations import source_list

    text = "Köln [Dom] ist alt. Bonn auch."
    dom = Source(uri="https://dom.example", title="Der Dom [Köln]")
    book = Source(title="Ein Buch")
    citations = [cite(text, "Köln [Dom] ist alt.", dom), cite(text, "Bonn auch.", dom, book)]
    assert render(text, citations, footnotes=True) == ("Köln [Dom] ist alt.[^1] Bonn auch.[^1][^2]")
    assert source_list(text, citations, footnotes=True) == (
        "[^1]: [Der Dom \\[Köln\\]](<https://dom.example>)\n[^2]: Ein Buch"
    )
    assert [n for n, _ in number_sources(text, citations)] == [1, 2]
    with pytest.raises(ValueError, match="footnotes=True needs style='markdown'"):
        render(text, citations, "plain", footnotes=True)
    with pytest.raises(ValueError, match="raw_text=True needs style='html'"):
        render(text, citations, raw_text=True)


# --- Hypothesis ------------------------------------------------------------------------------

PIECES = [
    "Joe's", "Pizza", "Köln", "東京", "タワー", "🍕", "👩‍🍳", "a", "b", " ", " ", "  ", "\t",
    "\n", "\n", "\n\n", "  \n", "\\\n", "*", "**", "_", "__", "~~", "~", "`", "``", "[", "]",
    "(", ")", "](https://a.example/x)", "](https://b.example \"T\")", "](javascript:x)",
    "![", "\\", "\\*", "\\|", "&amp;", "&#x41;", "&nope;", "<b>", "</b>", "<!-- c -->",
    "<https://a.example>", "<a@b.example>", "# ", "## ", "> ", "- ", "* ", "1. ", "+ ",
    "    ", "```\n", "```py\n", "~~~\n", "|", " | ", "|---|---|\n", "| a | b |\n", "---\n",
    "===\n", "[r]: https://r.example\n", "[r]", "[r][]", "\r\n", "\0", "\u00a0", "\u3000",
    ".", ",", "!", ":", "*   ", "    *   ", "**Joe's Pizza**", "1.  ", "\n\n***\n\n",
]  # fmt: skip


@st.composite
def markdownish(draw: Any) -> tuple[str, list[Citation]]:
    text = "".join(draw(st.lists(st.sampled_from(PIECES), max_size=40)))
    n = len(text)
    spans = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, n)), max_size=8))
    sources = [JOE, PRINCE, WIKI]
    citations = []
    for a, b in spans:
        first, last = min(a, b), max(a, b)
        picked = tuple(draw(st.lists(st.sampled_from(sources), min_size=1, max_size=2)))
        citations.append(
            Citation(
                len(text[:first].encode()), len(text[:last].encode()), None, None, None, picked
            )
        )
    return text, citations


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdownish())
def test_random_markdown_keeps_structure_and_markers(case: tuple[str, list[Citation]]) -> None:
    text, citations = case
    for highlight in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a fallback to raw text fails the test
            html = render(text, citations, "html", highlight=highlight)
        parsed = structure(html)
        check_markers(parsed, text, citations)
        assert strip_citations(html) == plain_html(text)
        assert parsed.codes == code_texts(plain_html(text))  # never a marker in code


def union_runs(text: str, citations: list[Citation]) -> int:
    """How many stretches of the source the cited spans cover (touching ones as one)."""
    spans = sorted(
        (len(text.encode()[: c.start].decode()), len(text.encode()[: c.end].decode()))
        for c in citations
        if c.sources and c.start < c.end
    )
    runs, reach = 0, -1
    for start, end in spans:
        if start > reach:
            runs += 1
        reach = max(reach, end)
    return runs


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdownish())
def test_each_span_is_one_highlight_group(case: tuple[str, list[Citation]]) -> None:
    """A span's highlight may be cut into pieces by inline markup and by markers, but
    no unhighlighted character comes between them: one group per span, and never more
    groups than the stretches the spans cover together."""
    text, citations = case
    for citation in citations:
        assert structure(render(text, [citation], "html", highlight=True)).groups <= 1
    parsed = structure(render(text, citations, "html", highlight=True))
    assert parsed.groups <= union_runs(text, citations)


SENTINEL = "\ue000"  # a private-use character: not space, not punctuation, like a letter


def rendered_text(html: str) -> str:
    parser = Structure()
    parser.feed(html)
    return "".join(parser.text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdownish(), st.integers(0, 10_000))
def test_marker_lands_where_a_sentinel_character_renders(
    case: tuple[str, list[Citation]], pick: int
) -> None:
    """An independent oracle for placement: a letter-like character inserted into the
    source right after a span's last (alphanumeric) character renders exactly where
    the marker must go, as long as it does not change the parse."""
    text, _ = case
    ends = [i + 1 for i, ch in enumerate(text) if ch.isalnum()]
    if not ends:
        return
    end = ends[pick % len(ends)]
    if any(m.start() < end < m.end() for m in re.finditer(r"<[^<>]*>", text)):
        return  # inside raw HTML shown as text: the marker goes after it
    probe = plain_html(text[:end] + SENTINEL + text[end:])
    if SENTINEL not in probe or probe.replace(SENTINEL, "") != plain_html(text):
        return  # not rendered (a link label), or the parse changed (an entity, a URL)
    before, _, _ = probe.partition(SENTINEL)
    if (
        before.count("<a ") > before.count("</a>")
        or before.count("<code") > before.count("</code>")
        or re.search(r"<[^>]*$", before)
    ):
        return  # inside a link, code or an attribute: the marker goes after it
    event("checked")
    html = render_markdown(text, [end], ['<sup class="gp-cite"><a x>[1]</a></sup>'])
    marker = html.index('<sup class="gp-cite">')
    assert rendered_text(strip_citations(html[:marker])) == rendered_text(before)


# --- The command line ------------------------------------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from grounding_protos.cli import main

    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write_answer(tmp_path: Path) -> Path:
    from tests.markdown_cases import gemini_document

    path = tmp_path / "answer.json"
    path.write_text(json.dumps(gemini_document(), ensure_ascii=False), encoding="utf-8")
    return path


def test_cli_page_renders_markdown_and_raw_text_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_answer(tmp_path)
    code, page, err = run_cli(capsys, "render", str(path), "--style", "html")
    assert (code, err) == (0, "")
    assert '<div class="gp-answer gp-md" lang=""><h2>' in page and "<strong>" in page
    assert page.count('<sup class="gp-cite">') == len(EXPECTED_BEFORE_MARKERS)
    code, raw, err = run_cli(capsys, "render", str(path), "--style", "html", "--raw-text")
    assert (code, err) == (0, "")
    assert '<div class="gp-answer" lang="">## <mark' in raw and "<strong>" not in raw


def test_cli_footnotes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_answer(tmp_path)
    code, out, _ = run_cli(capsys, "render", str(path), "--footnotes")
    assert code == 0
    body, _, notes = out.partition("\n\n[^1]: ")
    assert "Fulton St 🍕[^1]" in body and "[1]" not in body
    assert notes.startswith("[wikipedia.org](<https://en.wikipedia.example/Pizza>)\n[^2]: ")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--style", "html", "--footnotes"), "--footnotes is for --style markdown"),
        (("--raw-text",), "--raw-text is for --style html"),
    ],
)
def test_cli_view_options_need_their_style(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, _, err = run_cli(capsys, "render", str(write_answer(tmp_path)), *argv)
    assert code == 2 and message in err


def test_cli_without_markdown_it_says_so_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import grounding_protos._render.markdown_html as view
    from tests.markdown_cases import gemini_document

    monkeypatch.setattr(view, "available", lambda: False)
    batch = tmp_path / "answers.jsonl"
    line = json.dumps(gemini_document(), ensure_ascii=False)
    batch.write_text(f"{line}\n{line}\n{line}\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the library's warning is not raised: the CLI asks
        code, out, err = run_cli(capsys, "render", "--jsonl", str(batch), "--style", "html")
    assert code == 0
    assert (
        err.count("markdown-it-py (3 or later) is not installed") == 1
        and len(err.splitlines()) == 1
    )
    outputs = [json.loads(r)["output"] for r in out.splitlines()]
    assert len(outputs) == 3 and all(
        '<div class="gp-answer" lang="">## <mark' in o for o in outputs
    )


WORDS = st.sampled_from(["Köln", "Dom", "東京", "タワー", "🍕", "Ελλάδα", "naïve", "a", "zz"])


@st.composite
def plain_paragraph(draw: Any) -> tuple[str, list[Citation]]:
    """Words and single line breaks only: Markdown with nothing to render but a <p>."""
    words = draw(st.lists(WORDS, min_size=1, max_size=30))
    text = words[0]
    for word in words[1:]:
        text += draw(st.sampled_from([" ", " ", "\n"])) + word
    # no span may end right after a line break: there the raw view puts its marker at
    # the start of the next line, and the Markdown view at the end of the line
    ends = [i for i in range(len(text) + 1) if i == 0 or text[i - 1] != "\n"]
    citations = []
    for _ in range(draw(st.integers(0, 8))):
        end = draw(st.sampled_from(ends))
        start = draw(st.integers(0, end))
        picked = tuple(draw(st.lists(st.sampled_from([JOE, PRINCE, WIKI]), min_size=1)))
        citations.append(
            Citation(len(text[:start].encode()), len(text[:end].encode()), None, None, None, picked)
        )
    return text, citations


@settings(max_examples=300, deadline=None)
@given(plain_paragraph())
def test_plain_paragraph_is_the_raw_view_in_a_p(case: tuple[str, list[Citation]]) -> None:
    """An independent oracle for marks and markers together: on text without Markdown
    syntax, the Markdown view is the raw-text view (which never moves a character)
    wrapped in a paragraph."""
    text, citations = case
    for highlight in (False, True):
        raw = render(text, citations, "html", highlight=highlight, raw_text=True)
        view = render(text, citations, "html", highlight=highlight)
        assert view == f"<p>{raw}</p>\n"


def test_shipped_markdown_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.markdown_cases import gemini_document

    example = Path(__file__).resolve().parents[1] / "examples" / "gemini_maps_markdown.json"
    document = json.loads(example.read_text(encoding="utf-8"))
    parts = document["candidates"][0]["content"]["parts"]
    assert parts[0]["text"] == ANSWER  # the fixture, with Maps chunks for the places
    expected = gemini_document()["candidates"][0]["groundingMetadata"]["groundingSupports"]
    assert document["candidates"][0]["groundingMetadata"]["groundingSupports"] == expected
    code, page, _ = run_cli(capsys, "render", str(example), "--style", "html")
    assert code == 0 and '<div class="gp-answer gp-md" lang="">' in page
    assert page.count('<sup class="gp-cite">') == len(EXPECTED_BEFORE_MARKERS)
