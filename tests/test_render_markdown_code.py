"""Markdown output keeps the answer's code and URLs byte for byte (issue 33, point 1),
and an answer's own citation markers are shown once (point 2).

The oracle is markdown-it-py itself, parsed with its own stock CommonMark + GFM
tables configuration (raw HTML on, as a Markdown viewer has it), not the package's
aligned parser: the code spans, code blocks, link and image URLs, autolinks, raw HTML
tags and table shapes of the output must be those of the input, and the bare URLs
GFM would link (taken by the GFM rule, written out here) must be the same strings.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from grounding_protos.citations import Citation, Grounded, Source, read, read_stream, render
from grounding_protos.cli import main
from tests.marker_cases import BUILDERS, spelled

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SHIPPED = sorted(
    p
    for p in [*EXAMPLES.glob("*.json"), *EXAMPLES.glob("*.sse")]
    if p.name not in ("broken_answer.json", "gemini_live_session.json")
)
A = Source(uri="https://a.example/", title="A")
B = Source(uri="https://b.example/", title="B")

# --- The oracle ---------------------------------------------------------------------------

_ORACLE = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
_GFM_URL = re.compile(r"(?:https?://|www\.)[^\s<]*", re.IGNORECASE)
_TAG = re.compile(r"<[^<>]*>")


def gfm_trim(url: str) -> str:
    """GFM's extended autolink: trailing ?!.,:*_~ and unbalanced ) are not linked."""
    while url and (url[-1] in "?!.,:*_~" or (url[-1] == ")" and url.count(")") > url.count("("))):
        url = url[:-1]
    return url


def constructs(doc: str) -> dict[str, Counter[Any]]:
    """What a Markdown reader sees as code, URLs, raw HTML and tables in ``doc``."""
    found: dict[str, Counter[Any]] = {
        k: Counter() for k in ("code", "blocks", "urls", "bare", "html", "tables")
    }
    rows: list[int] = []
    for tok in _ORACLE.parse(doc):
        if tok.type in ("fence", "code_block"):
            found["blocks"][(tok.info, tok.content)] += 1
        elif tok.type == "html_block":
            found["html"].update(_TAG.findall(tok.content))
        elif tok.type == "table_open":
            rows = []
        elif tok.type == "tr_open":
            rows.append(0)
        elif tok.type in ("th_open", "td_open"):
            rows[-1] += 1
        elif tok.type == "table_close":
            found["tables"][tuple(rows)] += 1
        elif tok.type == "inline":
            text = ""
            for child in tok.children or ():
                if child.type == "text":
                    text += child.content
                    continue
                found["bare"].update(gfm_trim(u) for u in _GFM_URL.findall(text))
                text = ""
                if child.type == "code_inline":
                    found["code"][child.content] += 1
                elif child.type == "link_open":
                    found["urls"][child.attrGet("href")] += 1
                elif child.type == "image":
                    found["urls"][child.attrGet("src")] += 1
                elif child.type == "html_inline":
                    found["html"][child.content] += 1
            found["bare"].update(gfm_trim(u) for u in _GFM_URL.findall(text))
    return found


def byte_span(
    text: str, first: int, last: int, *sources: Source, kind: Any = "citation"
) -> Citation:
    return Citation(
        len(text[:first].encode()), len(text[:last].encode()), sources=sources, kind=kind
    )


# --- Texts: Markdown constructs in many scripts ------------------------------------------

WORDS = [
    "Der Kölner Dom ist 157 m hoch.",
    "Grüße aus Köln",
    "東京は明日雨です。",
    "서울은 비가 와요",
    "القاهرة عاصمة مصر",
    "Pizza 🍕 und 𝔘nicode 👨‍👩‍👧",  # noqa: RUF001
    "plain words",
    " ",
    ", ",
    ".",
    "(",
    ")",
]
CONSTRUCTS = [
    "`get_place(place_id)`",
    "``a ` b``",
    "`東京 = 1`",
    '[the listing](https://maps.example/joes "Joe\'s")',
    "[Köln](https://de.example/K%C3%B6ln)",
    "![Dom](https://img.example/dom.png)",
    "<https://auto.example/path?q=1>",
    "https://bare.example/a_b",
    "www.bare.example/서울",
    '<span title="x">',
    "</span>",
    "<!-- note -->",
    "**bold**",
    "*em*",
    "~~gone~~",
    "\\[not a link\\]",
    "&amp;",
]
BLOCKS = [
    '```python\nhours = get_place("ChIJ-joes")["opening_hours"]\n```',
    "~~~\n東京 = '雨'\n~~~",
    "    indented = code()\n    more = 2",
    "| Ort | Preis |\n|:--|--:|\n| Köln `x` | 3 € |\n| 서울 | [a](https://t.example) |",
    "> quote with `code` and https://q.example/x",
    "- item `one`\n- item [two](https://two.example)",
    "# Überschrift `h`",
    "[ref]: https://ref.example/defined",
    "<div>\nraw <b>html</b>\n</div>",
    "```\nnever closed\n",
]


@st.composite
def markdown_texts(draw: st.DrawFn) -> str:
    blocks = []
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.booleans()):
            blocks.append(draw(st.sampled_from(BLOCKS)))
        else:
            parts = draw(st.lists(st.sampled_from(WORDS + CONSTRUCTS), min_size=1, max_size=8))
            blocks.append(" ".join(parts))
    sep = draw(st.sampled_from(["\n\n", "\n", "\r\n\r\n"]))
    # a raw HTML block runs to the next blank line where a viewer allows raw HTML (the
    # markers are placed as the HTML view reads the text: raw HTML as text)
    blocks = [b + "\n" if b.startswith("<div>") else b for b in blocks]
    return sep.join(blocks) + draw(st.sampled_from(["", "\n"]))


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, list[Citation]]:
    text = draw(markdown_texts())
    cites = []
    for _ in range(draw(st.integers(1, 10))):
        a, b = sorted(draw(st.lists(st.integers(0, len(text)), min_size=2, max_size=2)))
        sources = tuple(draw(st.lists(st.sampled_from([A, B]), min_size=1, max_size=2)))
        cites.append(byte_span(text, a, b, *sources))
    return text, cites


def check_kept(text: str, output: str) -> None:
    before, after = constructs(text), constructs(output)
    for kind in before:
        assert after[kind] == before[kind], kind


MARKER = re.compile(r"\[\^?\d+\]")


def check_text_back(text: str, output: str) -> None:
    """Without its markers (and the spaces and line breaks they bring), the output is
    the text."""
    squeezed = MARKER.sub("", output)
    assert re.sub(r"\s", "", squeezed) == re.sub(r"\s", "", text)
    # markers add whitespace, never remove or reorder a character
    it = iter(squeezed)
    assert all(ch in it for ch in text)


@settings(max_examples=300, deadline=None)
@given(cases(), st.booleans())
def test_markdown_keeps_code_urls_html_and_tables(
    case: tuple[str, list[Citation]], footnotes: bool
) -> None:
    text, cites = case
    output = render(text, cites, "markdown", footnotes=footnotes)
    check_kept(text, output)
    check_text_back(text, output)
    # every source number shows, and a marker lists a number once
    assert {int(n) for n in re.findall(r"\[\^?(\d+)\]", output)} >= {1}
    for run in re.findall(r"(?:\[\^?\d+\])+", output):
        numbers = re.findall(r"\d+", run)
        assert len(numbers) == len(set(numbers)) or run in text


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
@pytest.mark.parametrize("footnotes", [False, True])
def test_every_shipped_example_keeps_its_code_and_urls(path: Path, footnotes: bool) -> None:
    if path.suffix == ".sse":
        grounded = read_stream(path.read_bytes())
    else:
        grounded = read(json.loads(path.read_text(encoding="utf-8")))
    assert grounded.text is not None
    body = render(grounded, footnotes=footnotes).split("\n\n- [1]")[0].split("\n\n[^1]:")[0]
    check_kept(grounded.text, body)
    check_text_back(grounded.text.rstrip("\n"), body.rstrip("\n"))


def test_the_maps_example_as_the_issue_saw_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(EXAMPLES / "gemini_maps_markdown.json")]) == 0
    out = capsys.readouterr().out
    assert "`get_place(place_id)`[4]" in out
    assert '\nhours = get_place("ChIJ-joes")["opening_hours"]\n```\n[4]\n\n> Tip' in out
    assert '[the Maps listing](https://maps.example/joes "Joe\'s")[2] & the reviews' in out
    # markers inside table cells stay in their cell
    assert "| Joe's Pizza | $3.50 | 4.5 ⭐[1] |" in out
    assert "| Prince St \\| Nolita[3] | $4.25 | 4.7 |" in out


@pytest.mark.parametrize(
    ("text", "piece", "expected"),
    [
        # a span ending inside a code span: after it
        ("Ruf `get(x)` auf.", "Ruf `get", "Ruf `get(x)`[1] auf."),
        ("東京は `東京 = 1` です", "東京は `東京", "東京は `東京 = 1`[1] です"),
        # inside a link destination, or its text
        (
            "서울 [지도](https://map.example/서울) 보기",
            "서울 [지도](https://map",
            "서울 [지도](https://map.example/서울)[1] 보기",
        ),
        (
            "القاهرة [رابط](https://c.example)",
            "القاهرة [را",
            "القاهرة [رابط](https://c.example)[1]",
        ),
        # an autolink, raw HTML, an entity
        ("See <https://a.example/x> now", "See <https://a.ex", "See <https://a.example/x>[1] now"),
        ('a <span title="k">b</span>', "a <span ti", 'a <span title="k">[1]b</span>'),
        ("Tom &amp; Jerry", "Tom &am", "Tom &amp;[1] Jerry"),
        # a bare URL: a space, so that GFM does not take the marker into the link
        (
            "Quelle: https://x.example/köln.",
            "Quelle: https://x.example/köln.",
            "Quelle: https://x.example/köln. [1]",
        ),
        (
            "Quelle: https://x.example/a b",
            "Quelle: https://x.ex",
            "Quelle: https://x.example/a [1] b",
        ),
        # a fenced block: on a line after it, its own paragraph
        (
            "Code:\n```py\nx = f()[0]\n```\nDanach.",
            "Code:\n```py\nx = f()",
            "Code:\n```py\nx = f()[0]\n```\n[1]\n\nDanach.",
        ),
        ("```\n😀 = 1\n```", "```\n😀", "```\n😀 = 1\n```\n[1]"),
        # an indented block at the end
        ("Text\n\n    code = 1", "Text\n\n    code", "Text\n\n    code = 1\n[1]"),
        # an unclosed fence: before it
        ("Vorher\n```\nnie zu", "Vorher\n```\nnie", "Vorher\n\n[1]\n```\nnie zu"),
        # a span ending with its line's newline: before the newline
        ("Satz eins.\n# Titel", "Satz eins.\n", "Satz eins.[1]\n# Titel"),
        # after a row's last pipe, or in the delimiter row: the cell before
        (
            "| a | b |\n|---|---|\n| 東京 | 1 |",
            "| a | b |\n|--",
            "| a | b[1] |\n|---|---|\n| 東京 | 1 |",
        ),
        # the end of a line of only spaces: before them, or "     [1]" is indented code
        ("     \n\n```py\nx = 1\n```", "     \n", "[1]\n\n     \n\n```py\nx = 1\n```"),
        ("서울 🍕\n\n      \nweiter", "서울 🍕\n\n      \n", "서울 🍕[1]\n\n      \nweiter"),
        ("Köln\n\t \t", "Köln\n\t \t", "Köln[1]\n\t \t"),
        # raw HTML read two ways: what is code in either reading stays code
        (
            "<!-- note -->\n    东京 = code()\n    more = 2",
            "<!-- note -->\n    东",
            "<!-- note -->\n    东京 = code()\n    more = 2\n[1]",
        ),
        (
            "</span>\n```\nnie zu 🍕\n\nDer Kölner Dom.",
            "</span>\n```\nnie",
            "[1]\n\n</span>\n```\nnie zu 🍕\n\nDer Kölner Dom.",
        ),
        # a marker before "(": a space, or "[1](…)" is a link
        ("Köln(Dom)", "Köln", "Köln[1] (Dom)"),
    ],
)
def test_markers_go_after_the_construct(text: str, piece: str, expected: str) -> None:
    assert text.startswith(piece)
    cites = [byte_span(text, 0, len(piece), A)]
    output = render(text, cites)
    assert output == expected
    check_kept(text, output)
    assert render(text, cites, footnotes=True) == expected.replace("[1]", "[^1]")


def test_markers_meeting_after_a_construct_are_one_marker() -> None:
    text = "Call `a(b)` now."
    cites = [byte_span(text, 0, 7, A), byte_span(text, 0, 9, B), byte_span(text, 0, 11, A)]
    assert render(text, cites) == "Call `a(b)`[1][2] now."


def test_plain_text_is_left_as_it_is() -> None:
    text = "Call `get(x)` now."
    assert render(text, [byte_span(text, 0, 9, A)], "plain") == "Call `get[1](x)` now."


# --- Point 2: the answer's own markers, once --------------------------------------------

PERPLEXITY = {
    "id": "p", "object": "chat.completion", "model": "sonar",
    "citations": ["https://wetter.example/tokyo", "https://kma.example/"],
    "choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant",
        "content": "東京は明日雨です[1]。 서울은 맑아요 [1][2]. Köln auch[2]",
    }}],
}  # fmt: skip


@pytest.mark.parametrize("markers", ["keep", "remove"])
@pytest.mark.parametrize("style", ["markdown", "plain"])
def test_an_answers_own_markers_show_once(markers: Any, style: Any) -> None:
    grounded = read(PERPLEXITY, markers=markers)
    body = render(grounded, style).split("\n\n")[0]
    assert body == "東京は明日雨です[1]。 서울은 맑아요[1][2]. Köln auch[2]"


def test_an_answers_own_markers_show_once_in_html() -> None:
    page = render(read(PERPLEXITY), "html")
    answer = page[page.index('<div class="gp-answer') :]
    answer = answer[: answer.index("</div>")]
    visible = re.sub(r"<[^>]*>", "", answer).replace("\u2060", "").strip()
    assert visible == "東京は明日雨です[1]。 서울은 맑아요[1][2]. Köln auch[2]"


def test_own_markers_are_renumbered_as_the_list_numbers_them() -> None:
    obj = json.loads(json.dumps(PERPLEXITY))
    obj["choices"][0]["message"]["content"] = "Erst zwei[2]. Dann eins[1]."
    out = render(read(obj))
    # the list numbers sources by first appearance: citations[1] is [1] here
    assert out.startswith(
        "Erst zwei[1]. Dann eins[2].\n\n- [1] [kma.example](<https://kma.example/>)"
    )


def test_a_marker_look_alike_elsewhere_stays_text() -> None:
    text = "Array a[0] ist null."
    grounded_text = render(text, [byte_span(text, 0, 5, A, kind="marker")])
    assert grounded_text == "Array[1] a[0] ist null."


def test_the_cli_takes_markers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(PERPLEXITY, ensure_ascii=False), encoding="utf-8")
    choices: tuple[Literal["keep", "remove"], ...] = ("keep", "remove")
    for choice in choices:
        assert main(["render", "--markers", choice, str(path)]) == 0
        out = capsys.readouterr().out
        assert out == render(read(PERPLEXITY, markers=choice))
    for choice in choices:
        assert main(["inspect", "--markers", choice, "--json", str(path)]) == 0
        summary = json.loads(capsys.readouterr().out)
        text = read(PERPLEXITY, markers=choice).text
        assert text is not None
        assert summary["text"]["characters"] == len(text)
    assert main(["render", "--markers", "drop", str(path)]) == 2


def test_grounded_is_unchanged_by_rendering() -> None:
    grounded = read(PERPLEXITY)
    assert isinstance(grounded, Grounded)
    before = (grounded.text, grounded.citations)
    render(grounded)
    assert (grounded.text, grounded.citations) == before


def test_batch_lines_take_markers() -> None:
    from grounding_protos import ArgumentValueError
    from grounding_protos.batch import process_line

    line = json.dumps(PERPLEXITY, ensure_ascii=False)
    for choice in ("keep", "remove"):
        record = json.loads(process_line(line, "render", markers=choice))
        assert record["output"] == render(read(PERPLEXITY, markers=choice))
    with pytest.raises(ArgumentValueError, match="markers must be"):
        process_line(line, "render", markers="drop")


@pytest.mark.parametrize("name", sorted(BUILDERS))
@pytest.mark.parametrize("style", ["markdown", "plain", "html"])
def test_every_marker_source_shows_each_marker_once(name: str, style: Any) -> None:
    """Perplexity's [1], Azure's [doc1], xAI's [[1]](url), OpenRouter's: the rendered
    answer is the answer without its markers (as read(markers="remove") cuts them),
    with one of the style's markers for each run."""
    content = spelled(name, "Köln 🌉 liegt am Rhein{1}. 東京は雨です {1}{2}。 서울{2}")
    response = BUILDERS[name](content)
    kept, removed = read(response), read(response, markers="remove")
    assert kept.text is not None and removed.text is not None
    runs = len({c.char_end for c in kept.citations if c.kind == "marker"})
    assert runs == 3
    out = render(kept, style)
    if style == "html":
        body = out[out.index('<div class="gp-answer') : out.index("</div>")]
        ours = len(re.findall('<sup class="gp-cite">', body))
        shown = re.sub(r"<sup.*?</sup>|<[^>]*>|\u2060", "", body, flags=re.S)
    else:
        body = out.split("\n\n")[0]
        ours = len(re.findall(r"(?:\[\d+\])+", body))
        shown = re.sub(r"\[\d+\]", "", body)
    assert ours == runs
    assert " ".join(html.unescape(shown).split()) == " ".join(removed.text.split())
