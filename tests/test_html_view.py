"""The HTML view of ``grounding-protos render --style html``, opened in a real browser.

Headless Chromium loads the page from a file (no network), and its DOM, as the
browser built it, is checked: one superscript marker group per cited span end,
every link pointing at an entry of the source list, the highlighted texts being the
cited texts, hostile titles shown as text and no script element anywhere. A
screenshot is saved (and copied to ``/tmp/grounding-protos-html-view.png``).

Needs a Chromium (Debian's ``chromium`` package, installed by ``.ci/run``); the
tests skip, saying so, where none can be found.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from grounding_protos.citations import read
from grounding_protos.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
GEMINI = EXAMPLES / "gemini_response.json"
SCREENSHOT_COPY = Path("/tmp/grounding-protos-html-view.png")
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def browser() -> str:
    path = find_browser()
    if path is None:
        pytest.skip(f"no headless browser found (looked for {', '.join(BROWSERS)} on PATH)")
    return path


def chromium(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium as root can, with nothing reaching out to the network."""
    return subprocess.run(
        [
            browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-extensions", "--disable-dev-shm-usage",
            "--hide-scrollbars", f"--user-data-dir={profile}", *args,
        ],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


class DOM(HTMLParser):
    """What the checks need from the DOM: markers, links, ids, highlights, text."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.markers: list[list[str]] = []  # the hrefs of each <sup class="gp-cite">
        self.marks: list[tuple[dict[str, str | None], str]] = []
        self.sources: list[str] = []  # text of each <li> of the source list
        self.queries: list[str] = []  # text of each <li> of the search query lists
        self.frames: list[dict[str, str | None]] = []  # attributes of each <iframe>
        self.links: list[str] = []
        self.scripts = 0
        self.title = ""
        self.text: list[str] = []
        self._stack: list[str] = []
        self._sup: list[str] | None = None
        self._mark: list[str] | None = None
        self._mark_attrs: dict[str, str | None] = {}
        self._li: list[str] | None = None
        self._list = ""  # the class of the list being read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self._stack.append(tag)
        if attributes.get("id"):
            self.ids.add(str(attributes["id"]))
        if tag == "script":
            self.scripts += 1
        elif tag == "sup" and attributes.get("class") == "gp-cite":
            self._sup = []
            self.markers.append(self._sup)
        elif tag == "a":
            href = str(attributes.get("href"))
            self.links.append(href)
            if self._sup is not None:
                self._sup.append(href)
        elif tag == "mark":
            self._mark, self._mark_attrs = [], attributes
        elif tag == "li":
            self._li = []
        elif tag in ("ol", "ul"):
            self._list = str(attributes.get("class"))
        elif tag == "iframe":
            self.frames.append(attributes)

    def handle_endtag(self, tag: str) -> None:
        if self._stack:
            self._stack.pop()
        if tag == "sup":
            self._sup = None
        elif tag == "mark" and self._mark is not None:
            self.marks.append((self._mark_attrs, "".join(self._mark)))
            self._mark = None
        elif tag == "li" and self._li is not None:
            listing = self.queries if self._list == "gp-queries" else self.sources
            listing.append("".join(self._li))
            self._li = None

    def handle_data(self, data: str) -> None:
        if self._stack and self._stack[-1] == "title":
            self.title += data
        self.text.append(data)
        if self._mark is not None:
            self._mark.append(data)
        if self._li is not None:
            self._li.append(data)


def open_page(browser: str, tmp_path: Path, page: Path) -> DOM:
    result = chromium(browser, tmp_path / "profile", "--dump-dom", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    assert "<body" in result.stdout, result.stderr[-2000:]
    dom = DOM()
    dom.feed(result.stdout)
    return dom


def write_page(tmp_path: Path, name: str, document: object, *extra: str) -> Path:
    source = tmp_path / f"{name}.json"
    source.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    page = tmp_path / f"{name}.html"
    assert main(["render", str(source), "--style", "html", "-o", str(page), *extra]) == 0
    return page


def test_page_in_a_browser(browser: str, tmp_path: Path) -> None:
    document = json.loads(GEMINI.read_text(encoding="utf-8"))
    page = write_page(tmp_path, "gemini", document, "--title", "Elbphilharmonie")
    dom = open_page(browser, tmp_path, page)
    grounded = read(document)

    assert dom.title == "Elbphilharmonie"
    assert dom.scripts == 0
    # one marker group per distinct span end, each linking its sources' entries in order
    assert [[h.removeprefix("#gp-source-") for h in m] for m in dom.markers] == [
        ["1", "2"], ["2"], ["3"], ["2", "3"], ["2", "4"],
    ]  # fmt: skip
    for href in (h for m in dom.markers for h in m):
        assert href.startswith("#") and href[1:] in dom.ids
    assert dom.sources == ["elbphilharmonie.de", "wikipedia.org", "nagata.co.jp", "ndr.de"]
    # the search queries as text, and the Search Suggestions chip in a sandboxed frame
    assert dom.queries == ["Elbphilharmonie Eröffnung", "Elbphilharmonie Akustik 豊田泰久"]
    (frame,) = dom.frames
    assert frame["sandbox"] == "allow-popups allow-popups-to-escape-sandbox"
    assert "Elbphilharmonie Eröffnung" in str(frame["srcdoc"])
    # the highlighted texts are the cited texts, and hover titles name the sources
    assert [text for _, text in dom.marks] == [c.text for c in grounded.citations]
    assert [(a["data-sources"], a["title"]) for a, _ in dom.marks] == [
        ("1 2", "elbphilharmonie.de; wikipedia.org"),
        ("2", "wikipedia.org"),
        ("3", "nagata.co.jp"),
        ("2 3", "wikipedia.org; nagata.co.jp"),
        ("2 4", "wikipedia.org; ndr.de"),
    ]
    external = [h for h in dom.links if not h.startswith("#")]
    assert len(external) == 4
    assert all(h.startswith("https://vertexaisearch.cloud.google.com/") for h in external)

    shot = tmp_path / "page.png"
    result = chromium(browser, tmp_path / "profile", f"--screenshot={shot}",
                      "--window-size=1200,900", page.as_uri())  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
    # the copy is a convenience for looking at it, not part of the test
    with contextlib.suppress(OSError):
        shutil.copyfile(shot, SCREENSHOT_COPY)


def test_hostile_input_is_shown_as_text(browser: str, tmp_path: Path) -> None:
    document: dict[str, Any] = {
        "answerText": "<img src=x onerror=alert(1)> Köln & <b>Bonn</b>.",
        "citations": [
            {"endIndex": "28", "sources": [{"referenceId": "0"}, {"referenceId": "1"}]},
            {"startIndex": "29", "endIndex": "49", "sources": [{"referenceId": "2"}]},
        ],
        "references": [
            {"structuredDocumentInfo": {"title": "<script>alert(1)</script>",
                                        "uri": "javascript:alert(1)"}},
            {"structuredDocumentInfo": {"title": '"><script>alert(2)</script>',
                                        "uri": " javascript:alert(3)"}},
            {"structuredDocumentInfo": {"title": "Bonn & Köln",
                                        "uri": "https://bonn.example/?a=1&b=<2>"}},
        ],
    }  # fmt: skip
    page = write_page(tmp_path, "hostile", document, "--title", "<script>alert(4)</script>")
    dom = open_page(browser, tmp_path, page)
    assert dom.scripts == 0
    assert dom.title == "<script>alert(4)</script>"
    shown = "".join(dom.text)
    assert "<img src=x onerror=alert(1)>[1][2] Köln & <b>Bonn</b>.[3]" in shown
    assert dom.sources[0] == "<script>alert(1)</script> — javascript:alert(1)"
    assert dom.sources[1] == '"><script>alert(2)</script> —  javascript:alert(3)'
    assert not [h for h in dom.links if "javascript" in h.lower()]
    assert "https://bonn.example/?a=1&b=<2>" in dom.links
    assert [t for _, t in dom.marks] == ["<img src=x onerror=alert(1)>", "Köln & <b>Bonn</b>."]


class Answer(HTMLParser):
    """The answer section of a dumped DOM: its text without markers, the text before
    each marker, the elements inside each highlight, and the highlighted texts."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # inside the answer's <div>, when > 0
        self.text: list[str] = []
        self.before_markers: list[str] = []
        self.marks: list[str] = []
        self.inside_marks: list[str] = []  # tags met inside a <mark>
        self.div_class = ""
        self._sup = 0
        self._mark: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if self.depth == 0:
            if tag == "div" and "gp-answer" in str(attributes.get("class")):
                self.depth = 1
                self.div_class = str(attributes.get("class"))
            return
        if tag not in ("br", "hr", "img", "input"):
            self.depth += 1
        if self._mark is not None:
            self.inside_marks.append(tag)
        if self._sup or (tag == "sup" and attributes.get("class") == "gp-cite"):
            if not self._sup:
                self.before_markers.append("".join(self.text))
            self._sup += 1
        elif tag == "mark":
            self._mark = []

    def handle_endtag(self, tag: str) -> None:
        if self.depth == 0 or tag in ("br", "hr", "img", "input"):
            return
        self.depth -= 1
        if self._sup:
            self._sup -= 1
        elif tag == "mark" and self._mark is not None:
            self.marks.append("".join(self._mark))
            self._mark = None

    def handle_data(self, data: str) -> None:
        if self.depth and not self._sup:
            self.text.append(data)
            if self._mark is not None:
                self._mark.append(data)


def test_markdown_answer_in_a_browser(browser: str, tmp_path: Path) -> None:
    from grounding_protos._render.markdown_html import plain_html
    from tests.markdown_cases import ANSWER, EXPECTED_BEFORE_MARKERS, gemini_document

    page = write_page(tmp_path, "markdown", gemini_document(), "--title", "Pizza")
    result = chromium(browser, tmp_path / "profile", "--dump-dom", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    answer = Answer()
    answer.feed(result.stdout)
    shown = "".join(answer.text)
    assert answer.div_class == "gp-answer gp-md"

    # the Markdown is rendered: none of its syntax is left in the text
    for syntax in ("**", "*   ", "## ", "|:--", "| --", "```", "](https", "> Tip", "~~", "\\|"):
        assert syntax not in shown, syntax
    # the text invariant: the answer's text minus the markers is what the Markdown
    # renders without citations (as the same browser parses it)
    plain = Answer()
    plain.feed(f'<div class="gp-answer">{plain_html(ANSWER)}</div>')
    assert shown == "".join(plain.text)
    # every marker right after its span's last character (or the construct it ends in)
    assert len(answer.before_markers) == len(EXPECTED_BEFORE_MARKERS)
    for before, tail in zip(answer.before_markers, EXPECTED_BEFORE_MARKERS, strict=True):
        assert before.rstrip("\n").endswith(tail), (before[-40:], tail)
    # highlights hold text only: they never cross an element's boundary
    assert answer.inside_marks == []
    assert "Street Pizza" in answer.marks and " is known for its " in answer.marks
    assert "spicy" in answer.marks  # split at <em>

    shot = tmp_path / "markdown.png"
    result = chromium(browser, tmp_path / "profile", f"--screenshot={shot}",
                      "--window-size=1200,1400", page.as_uri())  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert shot.read_bytes().startswith(b"\x89PNG")
    with contextlib.suppress(OSError):
        shutil.copyfile(shot, Path("/tmp/grounding-protos-markdown-view.png"))


def test_raw_text_page_in_a_browser(browser: str, tmp_path: Path) -> None:
    from tests.markdown_cases import ANSWER, gemini_document

    page = write_page(tmp_path, "raw", gemini_document(), "--raw-text")
    result = chromium(browser, tmp_path / "profile", "--dump-dom", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    answer = Answer()
    answer.feed(result.stdout)
    assert answer.div_class == "gp-answer"
    assert "".join(answer.text) == ANSWER  # the text as it is, syntax and all
