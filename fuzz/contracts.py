"""The contracts every fuzz harness asserts (the same as ``tests/test_fuzz.py``).

A violated contract raises ``AssertionError`` (or lets an unexpected exception
through), which atheris reports as a crash and saves the input that caused it.
Import this module inside ``atheris.instrument_imports()`` after the package, so
that the package's modules are instrumented.
"""

from __future__ import annotations

import dataclasses
import html
import re
from typing import Any

from grounding_protos import (
    CitationError,
    GroundingProtosError,
    OffsetError,
    Problem,
    TextEncodingError,
    UnsupportedInputError,
    message_class,
    message_types,
    validate,
)
from grounding_protos._core.resolve import FATAL
from grounding_protos._render.markdown_html import available, plain_html
from grounding_protos.citations import Grounded, read, read_stream, render, source_list
from grounding_protos.offsets import TextIndex

CLASSES = [message_class(name) for name in message_types()]
_FATAL = FATAL | {"invalid-text"}
_CODE = re.compile(r"<code[^>]*>(.*?)</code>", re.DOTALL)


def pick(data: bytes, choices: list[Any]) -> tuple[Any, bytes]:
    """The choice the first byte selects, and the rest of ``data``."""
    return choices[data[0] % len(choices)], data[1:]


def check_downstream(obj: object, text: str | bytes | None = None, candidate: int = 0) -> None:
    """validate never raises; read raises only the package's errors, exactly when
    validate finds a fatal problem; what read returns renders back to its text."""
    problems = validate(obj, text=text, candidate=candidate)
    assert all(isinstance(p, Problem) and p.code for p in problems), problems
    if text is None or (isinstance(text, str) and _has_utf8(text)):
        assert not [p for p in problems if p.code == "invalid-text"], problems
    fatal = [p for p in problems if p.code in _FATAL]
    try:
        grounded = read(obj, text=text, candidate=candidate)
    except UnsupportedInputError:
        assert not fatal, fatal
        return
    except (CitationError, OffsetError, TextEncodingError) as exc:
        assert fatal, f"read raised {exc!r}, validate found nothing fatal: {problems}"
        return
    assert not fatal, f"read succeeded, validate found {fatal}"
    check_grounded(grounded)


def check_grounded(grounded: Grounded) -> None:
    """Citations consistent with the text; no rendering changes a character."""
    text = grounded.text
    index = TextIndex(text) if text is not None else None
    for c in grounded.citations:
        assert 0 <= c.start <= c.end, c
        if index is not None and text is not None:
            assert index.to_char_span(c.start, c.end) == (c.char_start, c.char_end), c
            assert c.text == text[c.char_start : c.char_end], c
    if text is None:
        return
    # a citation of a marker in the text (Perplexity's [1]) gives the marker's place to
    # the style's (issue 33): the checks that the text comes back read it as a citation
    citations = [
        dataclasses.replace(c, kind="citation") if c.kind == "marker" else c
        for c in grounded.citations
    ]
    for footnotes in (False, True):  # Markdown: markers moved out of code and links
        assert isinstance(render(text, grounded.citations, footnotes=footnotes), str)
    assert isinstance(render(text, grounded.citations, "html"), str)
    assert render(text, citations, lambda pairs: "") == text
    mark = next(ch for ch in "\x00\x01\ue000\U0010fffd|#" if ch not in text)
    marked = render(text, citations, lambda pairs: mark + ",".join(str(n) for n, _ in pairs) + mark)
    assert re.sub(f"{re.escape(mark)}[0-9,]*{re.escape(mark)}", "", marked) == text
    page = render(text, citations, "html", highlight=True, raw_text=True)
    page = re.sub(r'<sup class="gp-cite">.*?</sup>', "", page, flags=re.DOTALL)
    page = re.sub(r"</?mark\b[^>]*>", "", page)
    assert html.unescape(page) == text
    if available():
        # the Markdown view: what markdown-it-py renders, markers and marks aside; no
        # marker inside code, and nothing of the answer loads (its images are links)
        view = render(text, citations, "html", highlight=True)
        unmarked = re.sub(r"</?mark\b[^>]*>", "", view)
        bare = re.sub(r'<sup class="gp-cite">.*?</sup>', "", unmarked, flags=re.DOTALL)
        assert bare == plain_html(text)
        assert _CODE.findall(unmarked) == _CODE.findall(bare)
        assert "<img" not in view
    for style in ("markdown", "plain", "html"):
        assert isinstance(source_list(text, citations, style), str)


def _has_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


MESSAGE_LIMIT = 2_000
"""The longest message a hostile input may give (each quoted value is cut at 200)."""
_RAW_CONTROLS = frozenset(chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]) - {"\n", "\t"}


def _bounded(what: str, message: str, path: str = "") -> None:
    assert len(message) - len(path) <= MESSAGE_LIMIT, f"{what}: {len(message)} characters"


def check_bounded(obj: object) -> None:
    """On any input: validate, read (every policy) and read_stream give short messages
    (a quoted value is an excerpt), and raise nothing but the package's errors (never a
    RecursionError)."""
    for p in validate(obj):
        _bounded(f"validate {p.code}", p.message)
    for errors in ("strict", "repair", "skip"):
        try:
            grounded = read(obj, errors=errors)  # type: ignore[arg-type]
        except GroundingProtosError as exc:
            _bounded(f"read {type(exc).__name__}", str(exc), getattr(exc, "path", "") or "")
            continue
        for p in grounded.problems:
            _bounded(f"read {p.code}", p.message)
    try:
        streamed = read_stream([obj])
    except GroundingProtosError as exc:
        _bounded(f"read_stream {type(exc).__name__}", str(exc), getattr(exc, "path", "") or "")
    else:
        for p in streamed.problems:
            _bounded(f"read_stream {p.code}", p.message)


def check_terminal_output(shown: str) -> None:
    """What the command line showed on a terminal holds no raw control character."""
    raw = _RAW_CONTROLS & set(shown)
    assert not raw, f"raw control characters on a terminal: {sorted(raw)}"
