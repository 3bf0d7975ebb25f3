"""Markdown markers are placed on the text parsed a segment at a time (issue 34: the
CLI's memory on a big answer), with the places of the whole text parsed at once.

The oracle is the same function with one segment (``_SEGMENT`` larger than the text):
the parse of the whole text, as before the segments. With ``_SEGMENT = 1`` the text is
cut at every candidate (a line at column 0 after a blank line), so every block that
may run on past a blank line (a fence never closed, an HTML comment, ``<pre>``…), every
list that goes on after one, and every reference definition before or after its use
meets a cut.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos._render import markdown_places as mp
from grounding_protos._render.markdown_html import _parser
from grounding_protos._render.markdown_places import markdown_places
from grounding_protos.citations import Citation, render
from tests.test_render_markdown_code import (
    BLOCKS,
    CONSTRUCTS,
    WORDS,
    A,
    B,
    byte_span,
    check_kept,
    check_text_back,
)

WHOLE = 1 << 62  # one segment: the whole text, as parsed before the segments


@contextmanager
def segment(size: int) -> Iterator[None]:
    with mock.patch.object(mp, "_SEGMENT", size):
        yield


def places(text: str, positions: list[int], size: int) -> Any:
    with segment(size):
        return markdown_places(text, positions)


# --- Texts whose blocks meet blank lines ---------------------------------------------------

# Blocks that go on past a blank line, or end at one; lists and quotes that go on after
# one; reference links and the definitions they use (before or after them, repeated).
SPANNING = [
    "```py\nx = 1\n\n\ny = '東京'\n```",
    "```\nnie zu 🍕\n\nDer Kölner Dom.",
    "~~~~\n\n```\n\n~~~~",
    "- ```\n  a = 1\n\n  b = 2\n  ```",
    "> ```\n> quoted\n\n> more",
    "<script>\nlet x = 1;\n\nx++;\n</script>",
    "<pre>\n\nvorformatiert\n\n</pre>",
    "<style>\n\np {}\n</style>",
    "<textarea>\n\n서울\n</textarea>",
    "<!--\nKommentar\n\n[k]: https://in.comment.example\n-->",
    "<!-- nie geschlossen\n\nالقاهرة",  # noqa: RUF001
    "<?php\n\necho 1;\n?>",
    "<!DOCTYPE html\n\n>",
    "<![CDATA[\n\n]]>",
    "<div>\nraw\n\n</div>",
    "<span>\nx\n\ny",
    "</span>\n```\nnie zu",
    "<!-- note -->\n    东京 = code()\n    more = 2",
    "    indented = 1\n\n    still = 2",
    "- eins\n\n- zwei `z`\n\n\n- drei",
    "1. erste\n\n2. zweite\n\n   weiter [k]",
    "- a\n\n  fortgesetzt 🍕",
    "> zitiert\n\n> wieder\nfaul",
    "Titel\n===",
    "Überschrift\n---\n\n---",
    "| a | b |\n|---|---|\n| [k] | `c` |\n\n| x |\n|---|",
    "[k]: https://k.example/köln",
    "[K]: https://k.example/zweite 'Titel'",
    "[ref]:\n  https://ref.example/späť",
    "[k] und [Köln][k] und ![Bild][ref] und [nirgends][]",
    "[ref]",
]
SEPARATORS = ["\n\n", "\n", "\n  \n", "\n\n\n", "\t\n\n", "\r\n\r\n", "\r\n", "\r\r"]


@st.composite
def spanning_texts(draw: st.DrawFn) -> str:
    text = ""
    for i in range(draw(st.integers(1, 9))):
        if i:
            text += draw(st.sampled_from(SEPARATORS))
        kind = draw(st.integers(0, 2))
        if kind == 0:
            text += draw(st.sampled_from(SPANNING))
        elif kind == 1:
            text += draw(st.sampled_from(BLOCKS))
        else:
            parts = draw(st.lists(st.sampled_from(WORDS + CONSTRUCTS), min_size=1, max_size=6))
            text += draw(st.sampled_from(["", "  ", "> ", "- ", "[k] "])) + " ".join(parts)
    return text + draw(st.sampled_from(["", "\n", "\n\n", "\r\n"]))


@st.composite
def placed(draw: st.DrawFn) -> tuple[str, list[int]]:
    text = draw(spanning_texts())
    # right after blank lines (where segments start), and anywhere
    after_blank = [m.end() for m in re.finditer(r"\n[ \t]*\n", text)]
    anywhere = st.integers(0, len(text))
    pick = st.one_of(anywhere, st.sampled_from(after_blank)) if after_blank else anywhere
    return text, sorted(draw(st.lists(pick, min_size=1, max_size=12)))


@settings(max_examples=400, deadline=None)
@given(placed(), st.sampled_from([1, 1, 2, 16, 64]))
def test_segments_place_markers_as_the_whole_text(case: tuple[str, list[int]], size: int) -> None:
    text, positions = case
    assert places(text, positions, size) == places(text, positions, WHOLE)


@settings(max_examples=150, deadline=None)
@given(placed(), st.sampled_from([A, B]))
def test_markdown_cut_at_every_candidate_keeps_code_urls_and_text(
    case: tuple[str, list[int]], source: Any
) -> None:
    text, positions = case
    cites = [byte_span(text, p, p, source) for p in positions]
    with segment(1):
        output = render(text, cites, "markdown")
    check_kept(text, output)
    check_text_back(text, output)


# --- Examples ------------------------------------------------------------------------------


def cite_end(text: str, piece: str) -> Citation:
    end = text.index(piece) + len(piece)
    return byte_span(text, 0, end, A)


@pytest.mark.parametrize(
    ("text", "piece", "expected"),
    [
        # a fence with blank lines in it, over the candidate cut at "y = 2": after it
        (
            "Vorher.\n\n```py\nx = 1\n\ny = 2\n```\nDanach 東京.",
            "y = ",
            "Vorher.\n\n```py\nx = 1\n\ny = 2\n```\n[1]\n\nDanach 東京.",
        ),
        # an HTML comment block over a blank line: after the whole comment
        (
            "<!--\nKöln\n\nDom\n-->\nWeiter.",
            "Dom",
            "<!--\nKöln\n\nDom\n-->\n\n[1]\n\nWeiter.",
        ),
        # a definition after its use, in a later segment: the reference link is whole
        (
            "Siehe [Köln][k] hier.\n\nMehr 서울.\n\n[k]: https://k.example/köln",
            "Siehe [Kö",
            "Siehe [Köln][k] [1] hier.\n\nMehr 서울.\n\n[k]: https://k.example/köln",
        ),
        # a marker at the start of a segment goes back into the one before
        (
            "Erster 🍕 Absatz.\n\nZweiter.",
            "Erster 🍕 Absatz.\n\n",
            "Erster 🍕 Absatz.[1]\n\nZweiter.",
        ),
    ],
)
def test_markers_across_cuts(text: str, piece: str, expected: str) -> None:
    for size in (1, WHOLE):
        with segment(size):
            assert render(text, [cite_end(text, piece)]) == expected


@pytest.mark.parametrize("text", ["", "\n\n", "\r\n\r\n東京"])
def test_an_empty_or_blank_text_is_one_segment(text: str) -> None:
    ends = list(range(len(text) + 1))
    assert places(text, ends, 1) == places(text, ends, WHOLE)
    assert places("", [0], 1) == [(0, "", "")]


def test_cuts_are_after_blank_lines_and_never_inside_a_block_that_runs_on() -> None:
    text = "Eins 東京.\n\n- a\n\n- b\n  \n<!--\n\nx\n-->\n\n[k]: /u\n\n    code\n\nZwei 🍕.\n"
    with segment(1):
        segments = [seg for _, seg, *_ in mp._segments(text, [len(text)], True, {})][1:]
        every = [seg for _, seg, *_ in mp._segments(text, range(len(text) + 1), True, {})]
    assert segments == ["Zwei 🍕.\n"]  # the first, and the one a marker is in
    assert every == [
        "Eins 東京.\n\n",
        "- a\n\n",
        "- b\n  \n",
        "<!--\n\nx\n-->\n\n[k]: /u\n\n    code\n\n",  # not before "x", nor "[k]"
        "Zwei 🍕.\n",
    ]


def test_the_first_definition_of_a_label_is_kept_over_the_segments() -> None:
    text = "[k]\n\n# Eins\n[k]: https://first.example\n\n# Zwei\n[K]: https://second.example\n"
    references: dict[str, Any] = {}
    with segment(1):  # only the first segment is wanted; the others are read for their
        # definitions (block tokens only)
        cuts = [(a, seg) for a, seg, *_ in mp._segments(text, [0], False, references)]
    assert cuts == [(0, "[k]\n\n")]
    assert {k: v["href"] for k, v in references.items()} == {"K": "https://first.example"}


# --- Only the segments a marker lands in are parsed ----------------------------------------


@contextmanager
def counted() -> Iterator[list[int]]:
    """The lengths of the texts markdown-it's block parser is given (with HTML off)."""
    block = _parser(False).block
    parse = block.parse
    lengths: list[int] = []

    def counting(src: str, *args: Any) -> Any:
        lengths.append(len(src))
        return parse(src, *args)

    with mock.patch.object(block, "parse", counting):
        yield lengths


def test_only_the_segments_with_a_marker_are_parsed() -> None:
    paragraph = "Der Kölner Dom ist 157 m hoch. 東京は雨です。 القاهرة عاصمة مصر 🍕."
    paragraphs = [f"Absatz {i}: {paragraph}" if i % 7 else f"## Teil {i}" for i in range(400)]
    text = "\n\n".join(paragraphs)
    at = text.index("Absatz 250:") + 6
    with segment(len(text) // 40), counted() as lengths:
        assert markdown_places(text, [at]) == [(at, "", "")]
    # the first segment and the one holding the marker, each about a 40th of the text
    assert len(lengths) == 2
    assert all(n < len(text) // 20 for n in lengths)
    with segment(1), counted() as lengths:
        markdown_places(text, [at])
    assert len(lengths) == 2  # a paragraph each
    assert max(lengths) == len(paragraphs[250]) + 2
    with segment(WHOLE), counted() as lengths:
        markdown_places(text, [at])
    assert lengths == [len(text)]


def test_a_fence_over_many_cuts_is_parsed_in_doubling_segments() -> None:
    code = "\n\n".join(f"x{i} = {i}" for i in range(2000))
    text = f"Vorher.\n\n```\n{code}\n```\n\nDanach."
    with segment(100), counted() as lengths:
        assert markdown_places(text, [len(text)]) == [(len(text), "", "")]
    # each try at least twice as long as the last: about log2(len / 100) of them
    assert len(lengths) <= 12
    assert sum(lengths) <= 4 * len(text)
