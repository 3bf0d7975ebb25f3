"""The page's design in headless Chromium (issue 33, point 3), at 1200 and 400 px, light
and dark: it follows the reader's colour scheme with readable contrast, code blocks
scroll instead of wrapping, highlighting can be turned off, the Search Suggestions
frame leaves room for every chip on a phone, the footer asks for nothing a phone cannot
do, and Korean words stay whole in an answer of mixed languages.

Measurements are made by a script in a copy of the page (its policy taken out for that
script only), as in ``tests/test_html_view.py``; contrast is computed here from the
colours the browser used (WCAG 2's formula), not taken from the stylesheet.
"""

from __future__ import annotations

import html as html_module
import json
import re
from pathlib import Path
from typing import Any

import pytest

from grounding_protos.citations import read, render
from grounding_protos.cli import main
from tests.page_cases import page_document
from tests.test_html_view import BROWSERS, chromium, find_browser


@pytest.fixture(scope="module")
def browser() -> str:
    path = find_browser()
    if path is None:
        pytest.skip(f"no headless browser found (looked for {', '.join(BROWSERS)} on PATH)")
    return path


DESIGN = r"""
window.addEventListener("load", () => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const style = (e) => getComputedStyle(e);
  const answer = document.querySelector(".gp-answer");
  const code = document.querySelector("pre code");
  const frame = document.querySelector("iframe.gp-suggestions");
  const sup = document.querySelector("pre > sup.gp-cite");
  const marks = [...document.querySelectorAll("mark.gp-span")];
  const hangul = [];
  const walker = document.createTreeWalker(answer, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const data = node.data;
    for (let i = 0; i + 1 < data.length; i++) {
      if (/[\uac00-\ud7a3]/.test(data[i]) && /[\uac00-\ud7a3]/.test(data[i + 1])) {
        const top = (k) => { const r = document.createRange(); r.setStart(node, k);
          r.setEnd(node, k + 1); const rs = r.getClientRects(); return rs[rs.length - 1].top; };
        hangul.push({pair: data.slice(i, i + 2), same: Math.abs(top(i) - top(i + 1)) < 1});
      }
    }
  }
  const out = {
    dark: matchMedia("(prefers-color-scheme: dark)").matches,
    body: [style(document.body).backgroundColor, style(document.body).color],
    card: [style(document.querySelector("main")).backgroundColor,
           style(document.querySelector("main")).color],
    marks: marks.slice(0, 3).map((m) => [style(m).backgroundColor, style(m).color]),
    markCount: marks.length,
    link: [style(document.querySelector("ol.gp-sources a")).color,
           style(document.querySelector("main")).backgroundColor],
    code: code && {box: box(code), scrollWidth: code.scrollWidth, clientWidth: code.clientWidth,
                   height: code.getBoundingClientRect().height,
                   lineHeight: parseFloat(style(code).lineHeight),
                   whiteSpace: style(code).whiteSpace},
    sup: sup && box(sup),
    frame: frame && {width: frame.clientWidth, height: frame.clientHeight},
    footer: document.querySelector("footer").textContent,
    answerClass: answer.className, wordBreak: style(answer).wordBreak, hangul,
  };
  report(out);
});
"""

# the height a document's content needs, laid out at the viewport's width: the lowest
# bottom of its elements, and the body's margin below
HEIGHT = r"""
window.addEventListener("load", () => {
  let bottom = 0;
  for (const e of document.body.querySelectorAll("*")) {
    bottom = Math.max(bottom, e.getBoundingClientRect().bottom);
  }
  bottom += parseFloat(getComputedStyle(document.body).marginBottom);
  report({height: Math.ceil(bottom)});
});
"""

# How a probe reports: into its own DOM, or, in a frame, to the page around it.
REPORT = r"""
const report = (out) => {
  if (window.parent !== window) { parent.postMessage(JSON.stringify(out), "*"); return; }
  const pre = document.createElement("pre");
  pre.id = "gp-result";
  pre.textContent = JSON.stringify(out);
  document.documentElement.appendChild(pre);
};
"""
# Chromium's headless windows are at least 500 px wide: a narrower viewport is a frame
# of that width (media queries inside it see its width), which reports by a message.
FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe src="probe.html" style="width:{width}px;height:3000px;border:0"></iframe>
<script>addEventListener("message", (e) => {{
  const pre = document.createElement("pre");
  pre.id = "gp-result";
  pre.textContent = e.data;
  document.body.appendChild(pre);
}});</script></body></html>"""


def run(
    path: str, tmp_path: Path, html: str, script: str, width: int, *flags: str
) -> dict[str, Any]:
    """Lay ``html`` out ``width`` px wide, run ``script`` in it, and give what it reports."""
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
    probe = tmp_path / "probe.html"
    code = f"<script>{REPORT}{script}</script>"
    html = html.replace("</body>", f"{code}</body>") if "</body>" in html else html + code
    probe.write_text(html, encoding="utf-8")
    target = probe
    if width < 500:
        target = tmp_path / "frame.html"
        target.write_text(FRAME.format(width=width), encoding="utf-8")
        flags = (*flags, "--virtual-time-budget=5000")
    result = chromium(path, tmp_path / "profile", f"--window-size={max(width, 500)},3000",
                      *flags, "--dump-dom", target.as_uri())  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    found = re.search(r'<pre id="gp-result">(.*?)</pre>', result.stdout, re.DOTALL)
    assert found, result.stdout[-2000:]
    data: dict[str, Any] = json.loads(html_module.unescape(found.group(1)))
    return data


def rgb(css: str) -> tuple[float, ...]:
    values = re.findall(r"[\d.]+", css)
    assert len(values) >= 3, css
    return tuple(float(v) for v in values[:3])


def luminance(css: str) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = map(channel, rgb(css))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def page_html(tmp_path: Path, *extra: str, document: object = None) -> str:
    source = tmp_path / "answer.json"
    source.write_text(json.dumps(document or page_document(), ensure_ascii=False), "utf-8")
    out = tmp_path / "page.html"
    assert main(["render", "--style", "html", str(source), "-o", str(out), *extra]) == 0
    return out.read_text(encoding="utf-8")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1200, 400])
def test_the_page_at_each_width_and_colour_scheme(
    browser: str,
    tmp_path: Path,
    width: int,
    scheme: str,
) -> None:
    page = page_html(tmp_path)
    flags = (f"--blink-settings=preferredColorScheme={0 if scheme == 'dark' else 1}",)
    data = run(browser, tmp_path, page, DESIGN, width, *flags)
    assert data["dark"] == (scheme == "dark")
    # the page follows the scheme: a dark ground in dark mode, a light one in light
    ground = luminance(data["card"][0])
    assert (ground < 0.1) if scheme == "dark" else (ground > 0.8), data["card"]
    # readable: text on the card, highlighted text and links (WCAG AA, 4.5:1)
    assert contrast(*data["card"]) >= 7, data["card"]
    assert data["marks"] and all(contrast(*pair) >= 4.5 for pair in data["marks"]), data["marks"]
    assert contrast(*data["link"]) >= 4.5, data["link"]
    # a long code line scrolls: one line high, wider than its box, never wrapped
    code = data["code"]
    assert code["whiteSpace"] == "pre"
    assert code["scrollWidth"] > code["clientWidth"], code
    assert code["height"] < 2 * code["lineHeight"], code
    # the code block's marker sits beside the code, not over it
    assert data["sup"]["left"] >= code["box"]["right"] - 1, (data["sup"], code["box"])
    # every chip of the Search Suggestions fits in its frame
    frame = data["frame"]
    chips = re.search(r'srcdoc="([^"]*)"', page)
    assert chips is not None
    srcdoc = html_module.unescape(chips.group(1))
    needed = run(browser, tmp_path, srcdoc, HEIGHT, frame["width"])
    assert needed["height"] <= frame["height"], (needed, frame)
    # nothing a phone cannot do
    assert "hover" not in data["footer"].lower()
    # Korean in an answer of mixed languages: its words stay whole
    assert "gp-keep-words" in data["answerClass"] and data["wordBreak"] == "keep-all"
    assert data["hangul"] and all(p["same"] for p in data["hangul"]), data["hangul"]
    # the page is screenshotted as the docs show it (scripts/page_screenshots.py)
    shot = tmp_path / "shot.png"
    result = chromium(browser, tmp_path / "profile", *flags, f"--window-size={width},2000",
                      f"--screenshot={shot}", (tmp_path / "page.html").as_uri())  # fmt: skip
    assert result.returncode == 0 and shot.read_bytes().startswith(b"\x89PNG")


def test_the_old_fixed_frame_would_clip_the_chips(browser: str, tmp_path: Path) -> None:
    """The check above can fail: at 400 px the chips need more than the 4.5rem the
    frame had on every screen."""
    page = page_html(tmp_path)
    chips = re.search(r'srcdoc="([^"]*)"', page)
    assert chips is not None
    data = run(browser, tmp_path, page, DESIGN, 400)
    srcdoc = html_module.unescape(chips.group(1))
    needed = run(browser, tmp_path, srcdoc, HEIGHT, data["frame"]["width"])
    assert needed["height"] > 4.5 * 17


def test_highlighting_can_be_turned_off(browser: str, tmp_path: Path) -> None:
    page = page_html(tmp_path, "--no-highlight")
    data = run(browser, tmp_path, page, DESIGN, 1200)
    assert data["markCount"] == 0
    assert "Highlighted" not in data["footer"] and "hover" not in data["footer"].lower()
    assert page.count('<sup class="gp-cite">') == render(read(page_document()), "html").count(
        '<sup class="gp-cite">'
    )
    # the same in Python, and for the fragment
    grounded = read(page_document())
    assert render(grounded, "html", highlight=False) == page
    assert "<mark" not in render(grounded, "html", page=False, highlight=False)
    assert "<mark" in render(grounded, "html", page=False)


def test_a_korean_answer_and_an_answer_without_korean() -> None:
    korean = {"candidates": [{"content": {"parts": [{"text": "서울은 한국의 수도입니다."}]}}]}
    japanese = {"candidates": [{"content": {"parts": [{"text": "東京は日本の首都です。"}]}}]}
    assert 'class="gp-answer gp-md" lang="ko"' in render(read(korean), "html")
    assert '<div class="gp-answer gp-md" lang="ja">' in render(read(japanese), "html")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--no-highlight"], "--no-highlight is for --style html"),
        (["--lang", "ko"], "--lang is for --style html"),
        (["--style", "html", "--lang", "not a tag"], "lang must be a language tag"),
        (["--style", "html", "--fragment", "--title", "x"], "--title is for the page"),
    ],
)
def test_page_options_in_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    source = tmp_path / "a.json"
    source.write_text(json.dumps(page_document(), ensure_ascii=False), "utf-8")
    assert main(["render", *argv, str(source)]) == 2
    assert message in capsys.readouterr().err


def test_lang_and_fragment_in_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "a.json"
    source.write_text(json.dumps(page_document(), ensure_ascii=False), "utf-8")
    grounded = read(page_document())
    assert main(["render", "--style", "html", "--fragment", "--lang", "de", str(source)]) == 0
    assert capsys.readouterr().out == render(grounded, "html", page=False, lang="de")
    assert main(["render", "--style", "html", "--lang", "de", str(source)]) == 0
    assert capsys.readouterr().out == render(grounded, "html", lang="de")


def test_highlight_false_is_for_html() -> None:
    from grounding_protos import ArgumentValueError

    with pytest.raises(ArgumentValueError, match="highlight=False is for style='html'"):
        render(read(page_document()), "markdown", highlight=False)
