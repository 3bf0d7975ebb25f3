"""Tests of citation rendering against independent oracles.

Character positions come from the naive oracle ``len(data[:b].decode())`` and byte
spans from ``len(text[:c].encode())``; the expected numbering is recomputed from the
rule itself (sources by first appearance, citations taken by end, start, input
order). Rendered output is taken apart again (unique custom markers, or the HTML
tags) to show that the text comes back exactly and every marker sits at a cited
span's end.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos._core.model import Citation, Source
from grounding_protos._exceptions import (
    ArgumentTypeError,
    ArgumentValueError,
    GroundingProtosError,
    OffsetError,
)
from grounding_protos._render.markers import number_sources, render, source_list

# --- Strategies and oracles -------------------------------------------------------------

ATOMS = [
    "a",
    "The dome is 157 m high. ",
    " ",
    "\n",
    "é",
    "Grüße aus Köln, Ångström, naïve façade. ",
    "e\u0301",  # e + combining acute
    "日本語のテキスト。",
    "東京",
    "한국어",
    "שלום",
    "مرحبا",
    "👍",
    "👍🏽",  # thumbs up + skin-tone modifier
    "\U0001f3ff",  # a lone skin-tone modifier
    "👨‍👩‍👧‍👦",  # ZWJ family
    "\u200d",
    "🇯🇵🇫🇷",  # regional indicators
    "\U0001d518",  # astral letter
    "<b>&amp;</b>",
    "\"quoted\" 'single'",
    "[1]",  # marker look-alikes in the text itself
    "![x]",
]
# The custom-marker tests use U+E000/U+E001 as delimiters; the text never holds them.
texts = st.one_of(
    st.lists(st.sampled_from(ATOMS), max_size=12).map("".join),
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\ue000\ue001")),
)

# Some sources are equal but distinct objects: they must get one number.
POOL = [
    Source(uri="https://a.example/", title="A"),
    Source(uri="https://a.example/", title="A"),
    Source(uri="https://b.example/x?y=1&z=2", title='B "quoted" <b>'),
    Source(title="C"),
    Source(uri="javascript:alert(1)"),
    Source(),
]
FAST = settings(max_examples=200, deadline=None)


def byte_of(text: str, char: int) -> int:
    return len(text[:char].encode("utf-8"))


def char_of(text: str, byte: int) -> int:
    return len(text.encode("utf-8")[:byte].decode("utf-8"))


def cite(
    text: str, first: int, last: int, *sources: Source, path: str = "", kind: Any = "citation"
) -> Citation:
    """A citation of characters ``first..last`` of ``text``, by byte offsets."""
    return Citation(
        byte_of(text, first), byte_of(text, last), first, last, text[first:last], sources,
        kind=kind, path=path,
    )  # fmt: skip


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, list[Citation]]:
    text = draw(texts)
    citations: list[Citation] = []
    for i in range(draw(st.integers(0, 8))):
        a, b = sorted(draw(st.lists(st.integers(0, len(text)), min_size=2, max_size=2)))
        if draw(st.booleans()) and citations:  # duplicates and shared ends
            start, end = draw(st.sampled_from([(c.char_start, c.char_end) for c in citations]))
            assert start is not None and end is not None
            a, b = start, end
        sources = tuple(draw(st.lists(st.sampled_from(POOL), max_size=3)))  # may repeat
        path = draw(st.sampled_from(["", f"supports[{i}]"]))
        kind = draw(st.sampled_from(["citation", "support"]))
        citations.append(cite(text, a, b, *sources, path=path, kind=kind))
    return text, citations


def overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two character spans share a character; an empty span stands for the point right
    after its place."""
    (s1, e1), (s2, e2) = a, b
    if s1 == e1 and s2 == e2:
        return s1 == s2
    if s1 == e1:
        return s2 <= s1 < e2
    if s2 == e2:
        return s1 <= s2 < e1
    return max(s1, s2) < min(e1, e2)


def shown_sources(text: str, citations: Sequence[Citation]) -> list[tuple[Source, ...]]:
    """Each citation's sources its marker shows: all, but that a citation leaves out a
    source that a grounding support overlapping it cites too (one claim, one number)."""
    spans = [(char_of(text, c.start), char_of(text, c.end)) for c in citations]
    out = []
    for i, c in enumerate(citations):
        if c.kind != "citation":
            out.append(c.sources)
            continue
        out.append(
            tuple(
                s
                for s in c.sources
                if not any(
                    d.kind == "support"
                    and overlap(spans[i], spans[j])
                    and s.key in {t.key for t in d.sources}
                    for j, d in enumerate(citations)
                )
            )
        )
    return out


def expected(text: str, citations: Sequence[Citation]) -> tuple[list[Source], dict[int, list[int]]]:
    """The numbered sources and the markers {char position: numbers}, from the rule."""
    spans = [(char_of(text, c.start), char_of(text, c.end)) for c in citations]
    order = sorted(range(len(citations)), key=lambda i: (spans[i][1], spans[i][0], i))
    shown = shown_sources(text, citations)
    numbered: list[Source] = []
    markers: dict[int, set[int]] = defaultdict(set)
    for i in order:
        for source in shown[i]:
            if source not in numbered:
                numbered.append(source)
            markers[spans[i][1]].add(numbered.index(source) + 1)
    return numbered, {pos: sorted(nums) for pos, nums in markers.items()}


def unique_style(pairs: Sequence[tuple[int, Source]]) -> str:
    return "\ue000" + ",".join(f"{n}={id(s)}" for n, s in pairs) + "\ue001"


def take_apart(output: str) -> tuple[str, dict[int, list[tuple[int, int]]]]:
    """The text without the unique markers, and {char position: [(number, id(source))]}."""
    pieces = re.split("\ue000([^\ue001]*)\ue001", output)
    text, markers = "", {}
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            text += piece
        else:
            assert len(text) not in markers, "two markers at one position"
            markers[len(text)] = [tuple(map(int, p.split("="))) for p in piece.split(",")]
    return text, markers  # type: ignore[return-value]


SUP = re.compile(
    r'<sup class="gp-cite">\u2060((?:<a href="#gp-source-\d+" title="[^"<>]*">\[\d+\]</a>)+)</sup>'
)
MARK_OPEN = re.compile(r'<mark class="gp-span" data-sources="([\d ]+)">')


def take_apart_html(output: str) -> tuple[str, dict[int, list[int]], list[set[int]]]:
    """The unescaped text, the markers and, per character, the numbers marking it."""
    tokens = re.split(rf"({SUP.pattern}|{MARK_OPEN.pattern}|</mark>)", output)
    text, markers, covered = "", {}, []
    current: set[int] | None = None  # numbers of the open <mark>
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if i % 4 == 0:  # text between tags: escaped, so no tag characters
            assert "<" not in token and ">" not in token
            plain = html.unescape(token)
            text += plain
            covered += [set(current or ())] * len(plain)
            i += 1
            continue
        sup_body, mark_numbers = tokens[i + 1], tokens[i + 2]
        if token.startswith("<sup"):
            assert current is None, "a marker inside a <mark>"
            numbers = [int(n) for n in re.findall(r">\[(\d+)\]<", sup_body)]
            assert len(text) not in markers
            markers[len(text)] = numbers
        elif token.startswith("<mark"):
            assert current is None, "nested <mark>"
            current = {int(n) for n in mark_numbers.split()}
            assert current
        else:
            assert current is not None, "</mark> without <mark>"
            current = None
        i += 3
    assert current is None
    return text, markers, covered


# --- Properties -----------------------------------------------------------------------------


@FAST
@given(cases())
def test_markers_are_at_span_ends_and_the_text_comes_back(case: tuple[str, list[Citation]]) -> None:
    text, citations = case
    numbered, markers = expected(text, citations)
    back, found = take_apart(render(text, citations, unique_style))
    assert back == text
    assert {pos: [n for n, _ in pairs] for pos, pairs in found.items()} == markers
    shown = shown_sources(text, citations)
    ends = {char_of(text, c.end) for c, sources in zip(citations, shown, strict=True) if sources}
    assert set(found) == ends  # every marker right after text[end - 1] of a cited span
    for pairs in found.values():  # each number with its source (the first object met)
        assert all(id(numbered[n - 1]) == ident for n, ident in pairs)
    numbers_in_reading_order = [n for pos in sorted(found) for n, _ in found[pos]]
    first_seen = list(dict.fromkeys(numbers_in_reading_order))
    assert first_seen == list(range(1, len(numbered) + 1))


@FAST
@given(cases())
def test_sources_given_to_a_custom_style(case: tuple[str, list[Citation]]) -> None:
    text, citations = case
    calls: list[Sequence[tuple[int, Source]]] = []

    def style(pairs: Sequence[tuple[int, Source]]) -> str:
        calls.append(pairs)
        return ""

    assert render(text, citations, style) == text
    numbered = number_sources(text, citations)
    assert [s for _, s in numbered] == expected(text, citations)[0]
    assert [n for n, _ in numbered] == list(range(1, len(numbered) + 1))
    for pairs in calls:
        numbers = [n for n, _ in pairs]
        assert numbers == sorted(set(numbers)) and numbers
        assert all(numbered[n - 1][1] == s for n, s in pairs)


@FAST
@given(cases())
def test_markdown_and_plain(case: tuple[str, list[Citation]]) -> None:
    text, citations = case
    brackets = render(text, citations, lambda pairs: "".join(f"[{n}]" for n, _ in pairs))
    if not re.search(r"[`<>\[\]()&\\*_~|\n\r#]|https?:|www\.", text) and not text[:1].isspace():
        # no Markdown syntax for a marker to move out of (tests/test_render_markdown_code.py)
        assert render(text, citations) == brackets
    assert render(text, citations, "plain") == brackets
    if "[" not in text:
        assert re.sub(r"\[\d+\]", "", brackets) == text


@FAST
@given(cases(), st.booleans())
def test_html_gives_back_the_escaped_text(
    case: tuple[str, list[Citation]], highlight: bool
) -> None:
    text, citations = case
    output = render(text, citations, "html", highlight=highlight, raw_text=True)
    back, markers, covered = take_apart_html(output)
    assert back == text
    assert markers == expected(text, citations)[1]
    coverage: list[set[int]] = [set() for _ in text]
    if highlight:
        numbers = {s: n for n, s in number_sources(text, citations)}
        for c in citations:
            for j in range(char_of(text, c.start), char_of(text, c.end)):
                coverage[j] |= {numbers[s] for s in c.sources}
    assert covered == coverage


@FAST
@given(cases(), st.randoms())
def test_input_order_only_breaks_ties(case: tuple[str, list[Citation]], rng: Any) -> None:
    text, citations = case
    shuffled = list(citations)
    rng.shuffle(shuffled)
    spans = {(c.start, c.end) for c in citations}
    if len(spans) == len(citations):  # no two spans alike: input order cannot matter
        assert render(text, shuffled) == render(text, citations)
    assert render(text, iter(citations)) == render(text, citations)


# --- Examples ---------------------------------------------------------------------------

A, B, C = Source(uri="https://a.example", title="A"), Source(title="B"), Source(title="C")


def test_markdown_basics() -> None:
    text = "Köln hat einen Dom. Er ist 157 m hoch. Er ist gotisch."
    one, two, three = 19, 38, len(text)
    citations = [
        cite(text, 20, three, C, A),  # listed first, ends last
        cite(text, 0, one, A),
        cite(text, 20, two, B, A, B),  # repeats within a citation
        cite(text, 0, two, C),  # nested: contains the second sentence's span
        cite(text, 5, 10),  # no sources: no marker
    ]
    assert render(text, citations) == (
        "Köln hat einen Dom.[1] Er ist 157 m hoch.[1][2][3] Er ist gotisch.[1][2]"
    )
    # At 38 the span starting at 0 comes before the one starting at 20: C before B.
    assert number_sources(text, citations) == [(1, A), (2, C), (3, B)]


def test_ties_at_one_end_go_by_start_then_input_order() -> None:
    text = "abcdef"
    assert render(text, [cite(text, 3, 6, A), cite(text, 0, 6, B)]) == "abcdef[1][2]"
    assert number_sources(text, [cite(text, 3, 6, A), cite(text, 0, 6, B)])[0] == (1, B)
    assert number_sources(text, [cite(text, 0, 6, A), cite(text, 0, 6, B)])[0] == (1, A)
    assert number_sources(text, [cite(text, 0, 6, B), cite(text, 0, 6, A)])[0] == (1, B)


def test_equal_sources_share_a_number() -> None:
    text = "xy"
    twin = Source(uri="https://a.example", title="A")
    assert twin is not A
    assert render(text, [cite(text, 0, 1, A), cite(text, 1, 2, twin)]) == "x[1]y[1]"
    assert render(text, [cite(text, 0, 2, A, twin, A), cite(text, 0, 2, twin)]) == "xy[1]"


def test_empty_duplicate_and_overlapping_spans() -> None:
    text = "0123456789"
    citations = [
        cite(text, 4, 4, A),  # empty: a marker at its place
        cite(text, 2, 8, B),
        cite(text, 2, 8, B),  # duplicate
        cite(text, 6, 10, C),  # overlaps the one before
        cite(text, 0, 0, C),  # empty, at the very start
        cite(text, 10, 10, A),  # empty, at the very end
    ]
    assert render(text, citations) == "[1]0123[2]4567[3]89[1][2]"
    assert render("", [cite("", 0, 0, A)]) == "[1]"
    assert render(text, []) == text
    assert render("", []) == ""


@pytest.mark.parametrize(
    ("text", "first", "last", "expected_output"),
    [
        ("東京は日本の首都です。人口は多い。", 0, 11, "東京は日本の首都です。[1]人口は多い。"),
        ("Crème brûlée à Zürich.", 6, 12, "Crème brûlée[1] à Zürich."),
        ("Cafe\u0301 au lait", 0, 5, "Cafe\u0301[1] au lait"),  # combining accent kept
        ("Good 👍🏽 work", 5, 7, "Good 👍🏽[1] work"),  # thumb + skin tone
        ("Good 👍🏽 work", 5, 6, "Good 👍[1]🏽 work"),  # a code point boundary, as given
        ("We 👨‍👩‍👧‍👦 are", 3, 10, "We 👨‍👩‍👧‍👦[1] are"),  # 7 code points, 25 bytes
        ("Flags 🇯🇵🇫🇷!", 6, 8, "Flags 🇯🇵[1]🇫🇷!"),
    ],
)
def test_multi_script(text: str, first: int, last: int, expected_output: str) -> None:
    citation = cite(text, first, last, A)
    assert render(text, [citation]) == expected_output
    assert expected_output.startswith(text.encode()[: citation.end].decode() + "[1]")


def test_markers_where_the_emoji_bytes_say() -> None:
    text = "😀 👨‍👩‍👧"  # 4 + 1 + 18 bytes
    assert render(text, [Citation(0, 4, None, None, None, (A,))]) == "😀[1] 👨‍👩‍👧"
    assert render(text, [Citation(5, 23, None, None, None, (A,))]) == "😀 👨‍👩‍👧[1]"


def test_a_claim_with_a_citation_and_a_support_shows_its_number_once() -> None:
    """A Discovery Engine answer with both: the support (the claim, ending before the
    period) places the number; the citation's marker leaves it out, keeps a source of
    its own, and a citation that no support of its source overlaps keeps its marker."""
    text = "서울은 수도입니다. 부산은 항구입니다 🚢. Köln ist alt."
    a, b, c = Source(uri="https://a.example", title="A"), Source(title="B"), Source(title="C")
    first, second = text.index("서울"), text.index("부산")
    third = text.index("Köln")
    citations = [
        cite(text, first, second - 1, a),  # "서울은 수도입니다."
        cite(text, first, second - 2, Source(uri="https://a.example"), kind="support"),
        cite(text, second, third - 1, a, b),  # "부산은 항구입니다 🚢."
        cite(text, second, third - 2, a, kind="support"),
        cite(text, third, len(text), a),  # no support overlaps it
        cite(text, third, third + 4, c, kind="support"),
    ]
    assert render(text, citations) == (
        "서울은 수도입니다[1]. 부산은 항구입니다 🚢[1].[2] Köln[3] ist alt.[1]"
    )
    # one number per source key: A's support (a Source of its own) is met first
    numbered = [s for _, s in number_sources(text, citations)]
    assert [s.key for s in numbered] == [a.key, b.key, c.key]
    # the highlights keep every source of every span
    html_out = render(text, citations, "html", highlight=True, raw_text=True)
    assert '<mark class="gp-span" data-sources="1">서울은 수도입니다</mark>' in html_out
    assert '<mark class="gp-span" data-sources="1 2">.</mark>' in html_out
    # one kind alone is shown as it is
    only = [x for x in citations if x.kind == "citation"]
    assert (
        render(text, only) == "서울은 수도입니다.[1] 부산은 항구입니다 🚢.[1][2] Köln ist alt.[1]"
    )


def staggered(n: int) -> tuple[str, list[Citation]]:
    """``n`` spans, each starting a little after the last and reaching a quarter of the
    text on, each with a source of its own: every point is covered by n/4 of them."""
    text = "Grüße aus Köln, 東京 und 🍕. " * (n // 2 + 1)
    size = len(text)
    citations = []
    for k in range(n):
        first = k * size // n
        citations.append(
            cite(text, first, min(size, first + size // 4), Source(title=f"Quelle {k} 📚"))
        )
    return text, citations


@pytest.mark.parametrize("raw_text", [True, False])
def test_highlighted_html_grows_linearly_with_spans(raw_text: bool) -> None:
    """Sources are named by number, and a piece lists at most LISTED of them: 4x the
    spans, each overlapping n/4 others, gives about 4x the HTML, not 16x."""
    from grounding_protos._render.plan import LISTED

    sizes = {}
    for n in (100, 400):
        text, citations = staggered(n)
        out = render(text, citations, "html", highlight=True, raw_text=raw_text)
        sizes[n] = len(out)
        tags = re.findall(r"<mark[^>]*>", out)
        assert all(len(t) < 40 + 6 * LISTED for t in tags), max(tags, key=len)
        assert '<mark class="gp-span" data-count="' in out  # covered by many
    assert sizes[400] / sizes[100] < 4.5, sizes


def test_a_piece_lists_its_sources_up_to_the_bound() -> None:
    from grounding_protos._render.plan import LISTED

    text = "abcdefghijklmnopqrstuvwxyz"
    sources = [Source(title=f"S{k}") for k in range(LISTED + 1)]
    citations = [cite(text, 0, 10 + (k == LISTED), s) for k, s in enumerate(sources)]
    out = render(text, citations[:LISTED], "html", highlight=True, raw_text=True)
    listed = " ".join(map(str, range(1, LISTED + 1)))
    assert out.startswith(f'<mark class="gp-span" data-sources="{listed}">abcdefghij</mark>')
    out = render(text, citations, "html", highlight=True, raw_text=True)
    assert out.startswith(f'<mark class="gp-span" data-count="{LISTED + 1}">abcdefghij</mark>')
    assert f'<mark class="gp-span" data-sources="{LISTED + 1}">k</mark>' in out


def test_a_markers_title_shows_a_long_label_cut() -> None:
    text = "Köln"
    long = Source(title="Der Kölner Dom 🏰 " * 100_000)
    out = render(text, [cite(text, 0, 4, long)], "html", highlight=True, raw_text=True)
    (title,) = re.findall(r'title="([^"]*)"', out)
    assert len(title) <= 120 and title.endswith("…") and title.startswith("Der Kölner Dom 🏰 ")
    assert len(out) < 400
    assert "Der Kölner Dom 🏰 " * 1000 in source_list(text, [cite(text, 0, 4, long)], "html")


# --- Errors and leniency -------------------------------------------------------------------


def test_a_split_character_names_the_citation() -> None:
    text = "Grüße, 世界"  # 'ü' is bytes [2, 4), '世' [9, 12)
    good = Citation(0, 2, None, None, None, (A,), path="candidates[0].supports[0]")
    bad = Citation(0, 10, None, None, None, (A,), path="candidates[0].supports[1]")
    with pytest.raises(OffsetError) as info:
        render(text, [good, bad])
    message = str(info.value)
    assert message.startswith("candidates[0].supports[1]: span end: byte offset 10 splits '世'")
    assert isinstance(info.value, ValueError) and isinstance(info.value, GroundingProtosError)
    nameless = Citation(3, 4, None, None, None, ())  # no sources, still checked
    with pytest.raises(OffsetError, match=r"^citations\[1\]: span start: byte offset 3 splits"):
        render(text, iter([good, nameless]))
    for fn in (number_sources, source_list):
        with pytest.raises(OffsetError, match=r"^citations\[1\]"):
            fn(text, [good, nameless])


@pytest.mark.parametrize(
    ("start", "end", "pattern"),
    [
        (0, 99, r"^citations\[0\]: span end: byte offset 99 is past the end"),
        (-1, 2, r"^citations\[0\]: span start: byte offset -1 is negative"),
        (4, 2, r"^citations\[0\]: span \(4, 2\) is reversed"),
    ],
)
def test_offset_errors(start: int, end: int, pattern: str) -> None:
    with pytest.raises(OffsetError, match=pattern):
        render("Grüße", [Citation(start, end, None, None, None, (A,))])


def test_a_wrong_offset_type_names_the_citation() -> None:
    citation = Citation("3", 4, None, None, None, (A,), path="x")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"^x: span start: byte offset must be an int"):
        render("abcd", [citation])


def test_snap_and_clamp() -> None:
    text = "a😀b"  # bytes: a 0..1, 😀 1..5, b 5..6
    inside = Citation(0, 3, None, None, None, (A,))
    assert render(text, [inside], snap="floor") == "a[1]😀b"
    assert render(text, [inside], snap="ceil") == "a😀[1]b"
    assert render(text, [inside], snap="outward") == "a😀[1]b"
    start_inside = Citation(2, 3, None, None, None, (A,))
    assert render(text, [start_inside], "html", highlight=True, snap="outward", raw_text=True) == (
        'a<mark class="gp-span" data-sources="1">😀</mark>'
        '<sup class="gp-cite">\u2060<a href="#gp-source-1" title="A">[1]</a></sup>b'
    )
    beyond = Citation(5, 40, None, None, None, (A,))
    assert render(text, [beyond], clamp=True) == "a😀b[1]"
    with pytest.raises(OffsetError, match="past the end"):
        render(text, [beyond], snap="outward")
    with pytest.raises(OffsetError, match="splits"):
        render(text, [inside], clamp=True)
    with pytest.raises(ArgumentValueError, match="snap"):
        render(text, [inside], snap="nearest")  # type: ignore[arg-type]


def test_bad_arguments() -> None:
    with pytest.raises(ArgumentValueError, match="style"):
        render("x", [], "latex")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="style"):
        render("x", [], 3)  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="highlight"):
        render("x", [], highlight=True)
    with pytest.raises(ArgumentTypeError, match="must return a str"):
        render("x", [cite("x", 0, 1, A)], lambda pairs: 1)  # type: ignore[arg-type,return-value]
    with pytest.raises(ArgumentTypeError, match="text must be a str"):
        render(b"x", [])  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="style"):
        source_list("x", [], "rst")  # type: ignore[arg-type]


# --- HTML and source lists: escaping and link safety --------------------------------------

HOSTILE = [
    Source(uri="javascript:alert(1)", title="<script>alert(1)</script>"),
    Source(uri="JaVaScRiPt:alert(2)", title="two"),
    Source(uri="data:text/html,<script>alert(3)</script>", title="three"),
    Source(uri=" javascript:alert(4)", title="four"),
    Source(uri="java\tscript:alert(5)", title="five"),
    Source(uri='https://x.example/" onmouseover="alert(6)', title="six \" ' & > <"),
    Source(uri="https://ok.example/a b\n<c>", title="line\nbreak [x](y) *z*"),
    Source(uri="vbscript:msgbox(8)"),
]


def hostile_case() -> tuple[str, list[Citation]]:
    text = 'Say <img src=x onerror="alert(0)"> & "more". ' * 2
    return text, [cite(text, 0, 10 + i, s) for i, s in enumerate(HOSTILE)]


def test_html_escapes_everything() -> None:
    text, citations = hostile_case()
    output = render(text, citations, "html", highlight=True, id_prefix='x"><script>', raw_text=True)
    assert "<script" not in output and "<img" not in output
    assert 'onerror="alert(0)"&gt;' in output  # quotes in text content are inert
    assert set(re.findall(r"<(\w+)", output)) == {"sup", "a", "mark"}
    assert 'href="#x&quot;&gt;&lt;script&gt;1"' in output
    assert 'title="&lt;script&gt;alert(1)&lt;/script&gt;"' in output


def test_html_source_list_links_only_http() -> None:
    text, citations = hostile_case()
    output = source_list(text, citations, "html")
    hrefs = re.findall(r'href="([^"]*)"', output)
    assert hrefs == [
        "https://x.example/&quot; onmouseover=&quot;alert(6)",
        "https://ok.example/a b\n&lt;c&gt;",
    ]
    assert "<script" not in output and 'onmouseover="' not in output
    assert output.startswith('<ol class="gp-sources">\n<li id="gp-source-1">')
    assert output.endswith("</li>\n</ol>")
    assert (
        '<li id="gp-source-1">&lt;script&gt;alert(1)&lt;/script&gt; — javascript:alert(1)</li>'
        in output
    )
    assert '<li id="gp-source-8">vbscript:msgbox(8)</li>' in output


def test_markdown_source_list() -> None:
    text = "abc"
    sources = [
        Source(uri="https://a.example/x_(y)", title="Der Dom [Köln] *gotisch*"),
        Source(title="Only a title"),
        Source(uri="https://b.example/<a b>\n"),
        *HOSTILE[:2],
    ]
    output = source_list(text, [cite(text, 0, 3, *sources)])
    assert output.splitlines() == [
        r"- [1] [Der Dom \[Köln\] \*gotisch\*](<https://a.example/x_(y)>)",
        "- [2] Only a title",
        r"- [3] [https://b.example/\<a b\>](<https://b.example/\<a b\>%0A>)",
        r"- [4] \<script\>alert(1)\</script\> — javascript:alert(1)",
        r"- [5] two — JaVaScRiPt:alert(2)",
    ]
    assert "](<javascript" not in output.lower()


def test_plain_source_list() -> None:
    text = "abc"
    sources = [A, B, Source(uri="https://c.example"), Source(title="Two\nlines", uri="ftp://f")]
    assert source_list(text, [cite(text, 0, 3, *sources)], "plain").splitlines() == [
        "[1] A — https://a.example",
        "[2] B",
        "[3] https://c.example",
        "[4] Two lines — ftp://f",
    ]
    assert source_list(text, [], "plain") == source_list(text, [cite(text, 0, 1)]) == ""
    assert source_list(text, [], "html") == ""


def test_source_list_numbers_match_render() -> None:
    text = "First. Second."
    citations = [cite(text, 7, 14, B), cite(text, 0, 6, A)]
    assert render(text, citations) == "First.[1] Second.[2]"
    assert source_list(text, citations, "plain") == "[1] A — https://a.example\n[2] B"
    html_list = source_list(text, citations, "html", id_prefix="note-")
    assert '<li id="note-1"><a href="https://a.example">A</a></li>' in html_list
    assert 'href="#note-2"' in render(text, citations, "html", id_prefix="note-")


def test_markdown_renders_as_intended() -> None:
    """With a CommonMark renderer at hand: markers stay text, the list links."""
    markdown_it = pytest.importorskip("markdown_it")
    text = "Wow! It works."
    citations = [cite(text, 0, 4, A), cite(text, 0, 14, A, B)]
    doc = render(text, citations) + "\n\n" + source_list(text, citations)
    out = markdown_it.MarkdownIt("commonmark").render(doc)
    assert "<p>Wow![1] It works.[1][2]</p>" in out  # no image, no link made of [1][2]
    assert '<li>[1] <a href="https://a.example">A</a></li>' in out


# --- Module hygiene -------------------------------------------------------------------------


def test_render_imports_no_protobuf() -> None:
    code = (
        "import sys, grounding_protos._render.markers; "
        "bad = [m for m in sys.modules if m.startswith(('google', 'grpc'))]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
