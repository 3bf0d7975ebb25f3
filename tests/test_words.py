"""The same words everywhere (issue 33, point 8): what Python takes the command line
takes (``markers``, ``lang``, ``page=False``, ``highlight``), ``help(render)`` shows its
parameters, and ``inspect`` counts in words that agree with their numbers."""

from __future__ import annotations

import inspect
import json
import pydoc
import re
from pathlib import Path
from typing import Any

import pytest

from grounding_protos.citations import read, render
from grounding_protos.cli import build_parser, main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
GEMINI = EXAMPLES / "gemini_response.json"


def options_of(command: str) -> set[str]:
    parser = build_parser()
    sub: Any = next(a for a in parser._actions if a.dest == "command")
    return {o for a in sub.choices[command]._actions for o in a.option_strings}


def test_pythons_render_words_are_the_clis() -> None:
    # render(grounded, ...)'s keywords and read's markers=, as options of `render`
    flags = options_of("render")
    for word, flag in [("footnotes", "--footnotes"), ("raw_text", "--raw-text"),
                       ("title", "--title"), ("lang", "--lang"), ("page", "--fragment"),
                       ("highlight", "--no-highlight"), ("markers", "--markers"),
                       ("errors", "--errors"), ("unit", "--unit"), ("snap", "--snap"),
                       ("clamp", "--clamp"), ("candidate", "--candidate")]:  # fmt: skip
        assert (
            word in inspect.signature(render).parameters
            or word in inspect.signature(read).parameters
        ), word
        assert flag in flags, flag
    assert "--markers" in options_of("inspect")


def test_help_shows_renders_parameters() -> None:
    signature = inspect.signature(render)
    assert list(signature.parameters)[:3] == ["text", "citations", "style"]
    assert signature.parameters["style"].default == "markdown"
    shown = pydoc.render_doc(render)
    assert "*args" not in shown and "**options" not in shown
    assert "footnotes" in shown and "highlight" in shown


def test_the_defaults_shown_are_the_defaults() -> None:
    grounded = read(json.loads(GEMINI.read_text(encoding="utf-8")))
    signature = inspect.signature(render)
    shown = {
        name: p.default
        for name, p in signature.parameters.items()
        if p.kind is p.KEYWORD_ONLY and name not in ("snap", "clamp")
    }
    shown.pop("title")  # the page's default title is its own
    untyped: Any = render  # the signature help() shows, not the typed overloads
    assert untyped(grounded, None, "html", **shown) == render(grounded, "html")
    text, cites = grounded.text, grounded.citations
    assert text is not None
    assert untyped(text, cites, "html", highlight=None, snap=None, clamp=False) == render(
        text, cites, "html"
    )


@pytest.mark.parametrize(
    ("document", "line"),
    [
        ("citation_metadata.json", "citations:  4 citations on 4 distinct spans"),
        ("discoveryengine_answer.json",
         "citations:  6 (3 citations, 3 grounding supports) on 3 distinct spans"),
    ],
)  # fmt: skip
def test_inspect_counts_in_words(
    document: str, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["inspect", str(EXAMPLES / document)])
    out = capsys.readouterr().out
    assert line in out.splitlines()


def test_one_of_a_kind_is_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = {
        "candidates": [
            {
                "content": {"parts": [{"text": "한"}]},
                "citationMetadata": {
                    "citationSources": [
                        {"startIndex": 0, "endIndex": 3, "uri": "https://k.example"}
                    ]
                },
            }
        ]
    }
    path = tmp_path / "one.json"
    path.write_text(json.dumps(one), encoding="utf-8")
    main(["inspect", str(path)])
    out = capsys.readouterr().out
    assert "citations:  1 citation on 1 distinct span\n" in out
    assert "text:       1 character, 3 UTF-8 bytes, 1 UTF-16 unit\n" in out
    assert not re.search(r"\b1 \w+s\b", out.split("\nspans:")[0])


def test_validate_says_why_it_takes_no_span_policy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--help"]) == 0
    assert "It takes no span policy" in " ".join(capsys.readouterr().out.split())
    assert main(["validate", "--errors", "skip", str(GEMINI)]) == 2
    err = capsys.readouterr().err
    assert "validate reports every problem; render and inspect take --errors" in err
