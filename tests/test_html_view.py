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
import html as html_module
import json
import re
import shutil
import subprocess
import threading
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from grounding_protos._render.page import FRAME_CSP
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
        self.lang: str | None = None  # of <html>
        self.answer_lang: str | None = None  # of the answer's <div>
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
        if tag == "html":
            self.lang = attributes.get("lang")
        elif tag == "div" and "gp-answer" in str(attributes.get("class")):
            self.answer_lang = attributes.get("lang")
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
    # the Search Suggestions chip in a sandboxed frame, with a policy of its own; the
    # queries it shows are not listed a second time
    assert dom.queries == []
    (frame,) = dom.frames
    assert frame["sandbox"] == "allow-popups allow-popups-to-escape-sandbox"
    srcdoc = str(frame["srcdoc"])
    assert "Elbphilharmonie Eröffnung" in srcdoc and "Elbphilharmonie Akustik 豊田泰久" in srcdoc
    assert srcdoc.startswith(f'<meta http-equiv="Content-Security-Policy" content="{FRAME_CSP}">')
    # the highlighted texts are the cited texts; they name their sources by number
    assert [text for _, text in dom.marks] == [c.text for c in grounded.citations]
    assert [a for a, _ in dom.marks] == [
        {"class": "gp-span", "data-sources": numbers} for numbers in ["1 2", "2", "3", "2 3", "2 4"]
    ]
    assert dom.lang == "en"  # the page's own words; the answer's language is unknown
    assert dom.answer_lang == ""
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
    # (each marker starts with a word joiner, which keeps it on its span's line)
    assert "<img src=x onerror=alert(1)>\u2060[1][2] Köln & <b>Bonn</b>.\u2060[3]" in shown
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


# --- The view as a person sees it: layout measured in the browser ----------------------------

# Runs after load in a copy of a page (its CSP taken out for this script only) and
# writes what the checks need, as JSON, into <pre id="gp-result">.
MEASURE = r"""
window.addEventListener("load", () => {
  const answer = document.querySelector(".gp-answer");
  const box = (r) => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom});
  const charBox = (node, i) => {
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const rects = range.getClientRects();
    return rects.length ? box(rects[rects.length - 1]) : null;
  };
  const out = {markers: [], blockMarkers: [], codes: [], hangul: [], pieces: []};
  // every text node in order: the character before each marker, Hangul line breaks
  const walker = document.createTreeWalker(answer, NodeFilter.SHOW_TEXT);
  let last = null;  // the box of the last visible character before here
  const seen = new Set();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const sup = node.parentElement.closest("sup.gp-cite");
    if (sup) {
      if (!seen.has(sup)) {
        seen.add(sup);
        const first = box(sup.querySelector("a").getBoundingClientRect());
        const pre = sup.closest("pre");
        if (pre) {
          out.blockMarkers.push({marker: first, block: box(pre.getBoundingClientRect()),
                                 code: box(pre.querySelector("code").getBoundingClientRect())});
        } else {
          out.markers.push({before: last, marker: first, text: sup.textContent});
        }
      }
      continue;
    }
    const data = node.data;
    for (let i = 0; i < data.length; i++) {
      if (/\S/.test(data[i]) && data[i] !== "\u2060") last = charBox(node, i) || last;
      if (/[\uac00-\ud7a3]/.test(data[i]) && /[\uac00-\ud7a3]/.test(data[i + 1] || "")) {
        const a = charBox(node, i), b = charBox(node, i + 1);
        out.hangul.push({pair: data.slice(i, i + 2), same: Math.abs(a.top - b.top) < 1});
      }
    }
  }
  for (const code of answer.querySelectorAll("code")) out.codes.push(code.textContent);
  // consecutive highlight pieces with nothing between them: do they meet as one band?
  const marks = [...answer.querySelectorAll("mark.gp-span")];
  for (let k = 0; k + 1 < marks.length; k++) {
    const range = document.createRange();
    range.setStartAfter(marks[k]);
    range.setEndBefore(marks[k + 1]);
    if (range.collapsed && marks[k].compareDocumentPosition(marks[k + 1]) === 0) continue;
    if (range.toString() !== "" || range.cloneContents().querySelector("sup")) continue;
    const a = marks[k].getClientRects(), b = marks[k + 1].getClientRects();
    const left = box(a[a.length - 1]), right = box(b[0]);
    if (right.top >= left.bottom || left.top >= right.bottom) continue;  // a line apart
    const style = (m) => {
      const s = getComputedStyle(m);
      return [s.borderTopRightRadius, s.borderTopLeftRadius, s.boxShadow, s.borderRightWidth,
              s.paddingLeft, s.paddingRight, s.marginLeft, s.marginRight].join(" ");
    };
    out.pieces.push({text: marks[k].textContent + "|" + marks[k + 1].textContent,
                     left, right, styles: [style(marks[k]), style(marks[k + 1])]});
  }
  const pre = document.createElement("pre");
  pre.id = "gp-result";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
"""


def measure(browser: str, tmp_path: Path, page: Path, width: int) -> dict[str, Any]:
    """Lay ``page`` out ``width`` pixels wide in Chromium, and measure it."""
    html = page.read_text(encoding="utf-8")
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
    probe = page.with_name(page.stem + "-measured.html")
    probe.write_text(html.replace("</body>", f"<script>{MEASURE}</script></body>"), "utf-8")
    result = chromium(browser, tmp_path / "profile", f"--window-size={width},3000",
                      "--dump-dom", probe.as_uri())  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    found = re.search(r'<pre id="gp-result">(.*?)</pre>', result.stdout, re.DOTALL)
    assert found, result.stdout[-2000:]
    data: dict[str, Any] = json.loads(html_module.unescape(found.group(1)))
    return data


def check_layout(data: dict[str, Any]) -> None:
    # a marker sits on the line of the character it follows, right after it
    for m in data["markers"]:
        before, marker = m["before"], m["marker"]
        assert before is not None, m
        assert marker["top"] < before["bottom"] and marker["bottom"] > before["top"], m
        assert marker["left"] >= before["right"] - 1, m
    # a code block's marker: inside the block, beside (not below) its code
    for m in data["blockMarkers"]:
        marker, block, code = m["marker"], m["block"], m["code"]
        assert block["left"] <= marker["left"] and marker["right"] <= block["right"], m
        assert block["top"] <= marker["top"] and marker["bottom"] <= block["bottom"], m
        assert marker["top"] < code["bottom"], m  # not on a line of its own below
    # the pieces of one highlight meet: no gap, no rounding or border of their own
    assert data["pieces"], "the fixture has highlights cut by inline markup"
    for p in data["pieces"]:
        assert abs(p["right"]["left"] - p["left"]["right"]) <= 1, p
        for style in p["styles"]:
            assert style == "0px 0px none 0px 0px 0px 0px 0px", p


def test_markdown_view_as_a_person_sees_it(browser: str, tmp_path: Path) -> None:
    from tests.markdown_cases import gemini_document

    page = write_page(tmp_path, "person", gemini_document())
    for width in (1200, 520):
        data = measure(browser, tmp_path, page, width)
        check_layout(data)
        # a code element's text is the code: no marker inside
        assert data["codes"] == [
            "get_place(place_id)",
            'hours = get_place("ChIJ-joes")["opening_hours"]\n',
        ]
        assert len(data["blockMarkers"]) == 1
        joined = {p["text"] for p in data["pieces"]}
        assert "Street Pizza| is known for its " in joined and "spicy| pepperoni squares." in joined
    shot = tmp_path / "person.png"
    result = chromium(browser, tmp_path / "profile", f"--screenshot={shot}",
                      "--window-size=1000,1300", page.as_uri())  # fmt: skip
    assert result.returncode == 0 and shot.read_bytes().startswith(b"\x89PNG")


def byte_span(text: str, piece: str, drop: int = 0) -> tuple[str, str]:
    first = text.index(piece)
    last = first + len(piece) - drop
    return str(len(text[:first].encode())), str(len(text[:last].encode()))


KOREAN = (
    "서울은 대한민국의 수도이며 인구는 약 940만 명입니다. 경복궁은 조선 왕조의 법궁으로 "
    "1395년에 지어졌고, 임진왜란 때 불에 탔다가 고종 때 다시 지어졌습니다. 🏯 한국어 "
    "문장은 띄어쓰기 단위로 줄을 바꾸는 것이 자연스럽습니다."
)


def korean_answer() -> dict[str, Any]:
    """A Discovery Engine answer whose citations and grounding supports cite the same
    claims, the supports ending one character earlier (before the period)."""
    claims = [
        "서울은 대한민국의 수도이며 인구는 약 940만 명입니다.",
        "경복궁은 조선 왕조의 법궁으로 1395년에 지어졌고, 임진왜란 때 불에 탔다가 "
        "고종 때 다시 지어졌습니다.",
    ]
    citations, supports = [], []
    for i, claim in enumerate(claims):
        start, end = byte_span(KOREAN, claim)
        citations.append({"startIndex": start, "endIndex": end,
                          "sources": [{"referenceId": str(i)}]})  # fmt: skip
        start, end = byte_span(KOREAN, claim, drop=1)
        supports.append({"startIndex": start, "endIndex": end, "groundingScore": 0.9,
                         "sources": [{"referenceId": str(i)}]})  # fmt: skip
    return {
        "answerText": KOREAN,
        "citations": citations,
        "groundingSupports": supports,
        "references": [
            {"structuredDocumentInfo": {"title": "서울특별시", "uri": "https://seoul.example/"}},
            {"structuredDocumentInfo": {"title": "경복궁", "uri": "https://palace.example/"}},
        ],
    }


def test_korean_answer_keeps_its_words_and_numbers_once(browser: str, tmp_path: Path) -> None:
    page = write_page(tmp_path, "korean", korean_answer())
    dom = open_page(browser, tmp_path, page)
    assert (dom.lang, dom.answer_lang) == ("en", "ko")
    # citations and supports of one claim: one marker each, no number twice
    assert [[h.removeprefix("#gp-source-") for h in m] for m in dom.markers] == [["1"], ["2"]]
    for width in (420, 560, 760):
        data = measure(browser, tmp_path, page, width)
        check_layout(data) if data["pieces"] else None
        assert data["hangul"] and all(pair["same"] for pair in data["hangul"]), [
            pair["pair"] for pair in data["hangul"] if not pair["same"]
        ]


# --- Fragments in a bare page load nothing -----------------------------------------------------


class Recorder(ThreadingHTTPServer):
    """Serves ``pages`` by path and records every other path asked for."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.pages = pages
        self.asked: list[str] = []
        super().__init__(("127.0.0.1", 0), _Recording)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Recording(BaseHTTPRequestHandler):
    server: Recorder

    def do_GET(self) -> None:
        body = self.server.pages.get(self.path)
        if body is None:
            self.server.asked.append(self.path)
        data = (body or "").encode()
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def recorder(pages: dict[str, str]) -> Any:
    server = Recorder(pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def hostile_chip(base: str) -> str:
    """Search Suggestions that try every way of loading something from ``base``."""
    return f"""<style>@import url({base}/import.css); .c {{ background: url({base}/bg.png) }}
@font-face {{ font-family: x; src: url({base}/font.woff) }} .c {{ font-family: x }}</style>
<link rel="stylesheet" href="{base}/link.css"><LINK rel=prefetch href="{base}/prefetch">
<link/rel="preload"/as="image"/href="{base}/preload.png">
<img src="{base}/img.png"><img src="relative.png"><iframe src="{base}/frame.html"></iframe>
<object data="{base}/object"></object><embed src="{base}/embed">
<video poster="{base}/poster.png"></video><audio src="{base}/audio.mp3" autoplay></audio>
<svg><image href="{base}/svg.png"/></svg><input type="image" src="{base}/input.png">
<meta http-equiv="refresh" content="0; url={base}/refresh">
<base href="{base}/based/"><img src="after-base.png">
<div class="c"><a class="chip" href="https://www.google.com/search?q=K%C3%B6ln">Köln</a></div>"""


def bare_page(fragment_html: str) -> str:
    head = "<!DOCTYPE html><html><head><meta charset='utf-8'></head>"
    return f"{head}<body>{fragment_html}</body></html>"


def test_fragment_in_a_bare_page_loads_nothing(browser: str, tmp_path: Path) -> None:
    """The fragment of ``render --jsonl --style html`` and of ``page.fragment``, in a page
    with no policy of its own, served over HTTP (so relative URLs resolve to the server):
    neither the answer's Markdown image nor anything in the Search Suggestions frame is
    fetched. With ``remote_images=True`` the image is, which shows the check can see."""
    from grounding_protos._render.page import fragment
    from grounding_protos.citations import Citation, SearchInfo, Source

    with recorder({}) as server:
        base = server.base
        text = f"Köln 🍕: ![Dom]({base}/md.png?secret=42) and ![]({base}/bare.png) [a]({base}/a)."
        cites = [Citation(0, 5, None, None, None, (Source(uri="https://k.example", title="K"),))]
        search = SearchInfo(queries=("Köln Dom",), rendered_content=hostile_chip(base))
        server.pages["/default.html"] = bare_page(fragment(text, cites, search=search))
        server.pages["/remote.html"] = bare_page(
            fragment(text, cites, search=search, remote_images=True)
        )
        for name in ("default", "remote"):
            result = chromium(browser, tmp_path / f"profile-{name}", "--virtual-time-budget=3000",
                              "--dump-dom", f"{base}/{name}.html")  # fmt: skip
            assert result.returncode == 0, result.stderr[-2000:]
            asked = [p for p in server.asked if p != "/favicon.ico"]  # the browser's own
            server.asked.clear()
            if name == "default":
                assert asked == [], asked
                dom = DOM()
                dom.feed(result.stdout)
                (frame,) = dom.frames
                assert 'class="chip" href="https://www.google.com/search?q=' in str(frame["srcdoc"])
                assert frame["sandbox"] == "allow-popups allow-popups-to-escape-sandbox"
                assert f"{base}/md.png?secret=42" in dom.links  # the image, as a link
            else:
                assert sorted(asked) == ["/bare.png", "/md.png?secret=42"], asked


# --- Languages and search queries (no browser needed) ----------------------------------------


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("서울은 대한민국의 수도입니다. 인구는 약 940만 명 🏙.", "ko"),
        ("東京タワーは高さ333メートル、1958年に完成しました 🗼。", "ja"),
        ("北京是中国的首都，人口约两千万 🏯。", "zh"),  # noqa: RUF001
        ("Η Ακρόπολη βρίσκεται στην Αθήνα 🏛.", "el"),  # noqa: RUF001
        ("Der Kölner Dom ist 157 m hoch 🏰.", ""),  # Latin: many languages
        ("Москва — столица России.", ""),
        ("Köln: 東京タワー und Ελλάδα, dazu viel mehr deutscher Text hier.", ""),  # no majority
        ("서울 Seoul 서울특별시 대한민국 한국어 텍스트 and more", "ko"),
        ("서울 Seoul 서울특별시 대한민국 한국어 텍스트 and some English", ""),  # 17 of 36
        ("👍🏽 123 !!", ""),
        ("", ""),
    ],
)
def test_answer_language_from_its_script(text: str, lang: str) -> None:
    from grounding_protos._render.page import answer_language, fragment, page

    assert answer_language(text) == lang
    # an answer with Korean in it that is not Korean as a whole keeps Korean words whole
    kind = "gp-answer gp-keep-words" if "서울" in text and not lang else "gp-answer"
    assert f'<div class="{kind}" lang="{lang}">' in fragment(text, [], raw_text=True)
    whole = page(text, [], raw_text=True)
    assert whole.startswith('<!DOCTYPE html>\n<html lang="en">')
    assert f'<div class="{kind}" lang="{lang}">' in whole


def test_lang_can_be_given() -> None:
    from grounding_protos import GroundingProtosError
    from grounding_protos._render.page import fragment, page

    assert 'lang="pt-BR"' in fragment("Olá, mundo", [], lang="pt-BR", raw_text=True)
    assert 'lang=""' in page("서울", [], lang="", raw_text=True)
    for bad in ('ko" onload="x', "ko_KR", "-", "k"):
        with pytest.raises(ValueError, match="lang must be a language tag") as info:
            fragment("x", [], lang=bad)
        assert isinstance(info.value, GroundingProtosError) and repr(bad) in str(info.value)
    with pytest.raises(TypeError, match="lang must be a str or None, not int"):
        fragment("x", [], lang=7)  # type: ignore[arg-type]


def test_queries_the_chip_shows_are_not_listed_again() -> None:
    from grounding_protos._render.page import suggestions
    from grounding_protos.citations import SearchInfo

    info = SearchInfo(queries=("Köln Dom",), retrieval_queries=("dom höhe",))
    listed = suggestions(info)
    assert "<iframe" not in listed and "<li>Köln Dom</li>" in listed  # no chip: listed
    chip = suggestions(SearchInfo(queries=("Köln Dom",), retrieval_queries=("dom höhe",),
                                  rendered_content="<a class=chip>Köln Dom</a>"))  # fmt: skip
    assert chip.count("Köln Dom") == 1 and "Search queries" not in chip
    assert "<li>dom höhe</li>" in chip  # what the chip does not show is still listed
