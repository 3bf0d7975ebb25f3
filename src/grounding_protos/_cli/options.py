"""The parts of a command line that decide how one document is processed: :class:`Options`.

A small frozen, picklable record, so the same options reach worker processes of a
``--jsonl`` batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Command = Literal["render", "validate", "inspect", "convert"]
Style = Literal["markdown", "html", "plain"]


@dataclass(frozen=True)
class Options:
    """The parts of a command line that decide how one document is processed."""

    command: Command
    type_name: str | None = None  # --type: parse as this message type
    source: str = "json"  # --from
    target: str = "jsonl"  # convert --to
    text: str | None = None  # the contents of --text FILE
    candidate: int = 0
    style: Style = "markdown"
    snap: Literal["floor", "ceil", "outward"] | None = None
    clamp: bool = False
    unit: Literal["byte", "char", "utf16"] | None = None  # --unit
    title: str | None = None
    compact: bool = False
    proto_names: bool = False
    errors: Literal["strict", "repair", "skip"] = "repair"  # --errors: the span policy
    resolve_urls: bool = False  # --resolve-urls
    cache: str | None = None  # --cache FILE (a batch without it: a file for the run)
    raw_text: bool = False  # render --raw-text: the HTML view without Markdown
    footnotes: bool = False  # render --footnotes: GFM footnotes in the Markdown style
    markers: Literal["keep", "remove"] = "keep"  # --markers: read(markers=)
    highlight: bool = True  # render --no-highlight: html without <mark>
    lang: str | None = None  # render --lang: the answer's language tag (html)
    fragment: bool = False  # render --fragment: html without the page (page=False)
