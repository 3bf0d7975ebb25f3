"""``citations.render(grounded, style)`` prints what ``grounding-protos render --style
STYLE`` prints, for every shipped example and the multi-script fixtures; the HTML
fragment of ``page=False`` is what a ``--jsonl --style html`` line holds; an answer
with no text renders.

The oracle is the command line itself, run in-process on the same input written to a
file (and, for the fragment, the assembled parts: the answer's ``<div>``, the source
list and the Search Suggestions frame).
"""

from __future__ import annotations

import html
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from grounding_protos import ArgumentTypeError, ArgumentValueError
from grounding_protos._render.grounded import render_grounded_pieces
from grounding_protos._render.markers import render_pieces
from grounding_protos.batch import process_line
from grounding_protos.citations import Grounded, read, read_stream, render, source_list
from grounding_protos.cli import main
from tests import citation_cases as cases
from tests import vendor_cases as vendors

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# what the CLI renders: every example but the broken answer (which fails, exit 1) and
# the Live session (a session of turns: read_turns)
SHIPPED = sorted(
    p
    for p in [*EXAMPLES.glob("*.json"), *EXAMPLES.glob("*.sse")]
    if p.name not in ("broken_answer.json", "gemini_live_session.json")
)

SUGGESTIONS = '<style>.chip{color:#333}</style><div class="chip">Köln 🌧 Wetter</div>'

FIXTURES: dict[str, Any] = {
    "gemini, three scripts over parts": cases.gemini_response_json(),
    "gemini with search suggestions": {
        "candidates": [{
            "content": {"parts": [{"text": "🌧 Köln: 서울은 비가 와요. Gestern regnete es."}]},
            "finishReason": "STOP",
            "groundingMetadata": {
                "webSearchQueries": ["Köln Wetter", "서울 날씨"],
                "searchEntryPoint": {"renderedContent": SUGGESTIONS},
                "groundingChunks": [
                    {"web": {"uri": "https://wetter.example/koeln", "title": "wetter.example"}},
                    {"web": {"uri": "https://kma.example/", "title": "kma.example"}},
                ],
                "groundingSupports": [{
                    "segment": {"startIndex": 12, "endIndex": 36, "text": "서울은 비가 와요."},
                    "groundingChunkIndices": [1, 0],
                }],
            },
        }],
    },
    "openai responses": vendors.openai_response(),
    "blocked gemini answer": {
        "candidates": [{"finishReason": "SAFETY", "index": 0}],
        "modelVersion": "gemini-x",
    },
    "discovery engine answer, skipped": {
        "answerText": "",
        "answerSkippedReasons": ["ADVERSARIAL_QUERY_IGNORED"],
        "references": [{"chunkInfo": {"content": "Köln 🏰", "documentMetadata": {
            "uri": "https://dom.example", "title": "Kölner Dom"}}}],
    },
}  # fmt: skip

# the CLI's options for each rendering, and render()'s keywords for the same
VARIANTS: list[tuple[list[str], dict[str, Any]]] = [
    (["--style", "markdown"], {"style": "markdown"}),
    (["--style", "plain"], {"style": "plain"}),
    (["--style", "markdown", "--footnotes"], {"style": "markdown", "footnotes": True}),
    (["--style", "html"], {"style": "html"}),
    (["--style", "html", "--raw-text"], {"style": "html", "raw_text": True}),
    (["--style", "html", "--title", "Köln & <co>"], {"style": "html", "title": "Köln & <co>"}),
]
VARIANT_IDS = [" ".join(argv) for argv, _ in VARIANTS]


def cli_output(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[int, str, str]:
    code = main(["render", *argv])
    captured = capsysbinary.readouterr()
    return code, captured.out.decode("utf-8"), captured.err.decode("utf-8")


def _grounded(path: Path) -> Grounded:
    if path.suffix == ".sse":
        return read_stream(path.read_bytes())
    return read(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize(("argv", "keywords"), VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_render_of_a_grounded_is_what_the_cli_prints_for_the_examples(
    path: Path,
    argv: list[str],
    keywords: dict[str, Any],
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    code, out, err = cli_output([*argv, str(path)], capsysbinary)
    assert code == 0, err
    assert render(_grounded(path), **keywords) == out


@pytest.mark.parametrize(("argv", "keywords"), VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize("name", list(FIXTURES))
def test_render_of_a_grounded_is_what_the_cli_prints_for_multi_script_answers(
    name: str,
    argv: list[str],
    keywords: dict[str, Any],
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    obj = FIXTURES[name]
    path = tmp_path / "in.json"
    path.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    code, out, err = cli_output([*argv, str(path)], capsysbinary)
    assert code == 0, err
    assert render(read(obj), **keywords) == out
    # positional style, as render(text, citations, style) takes it
    assert render(read(obj), keywords["style"], **{k: v for k, v in keywords.items()
                                                  if k != "style"}) == out  # fmt: skip


def test_the_markdown_rendering_has_every_part_in_order() -> None:
    """Built from the parts, not from the CLI: text with markers, sources, queries."""
    grounded = read(FIXTURES["gemini with search suggestions"])
    out = render(grounded)
    text = "🌧 Köln: 서울은 비가 와요.[1][2] Gestern regnete es."
    listing = source_list(grounded.text or "", grounded.citations)
    assert out == f"{text}\n\n{listing}\n\nSearch queries: Köln Wetter; 서울 날씨\n"
    assert listing.startswith("- [1] [kma.example](<https://kma.example/>)")


def test_the_fragment_is_the_jsonl_line_and_carries_the_search_suggestions() -> None:
    obj = FIXTURES["gemini with search suggestions"]
    grounded = read(obj)
    fragment = render(grounded, "html", page=False, id_prefix="gp-l3-source-")
    line = json.loads(process_line(json.dumps(obj), "render", number=3, style="html"))
    assert line["ok"] and line["output"] == fragment
    assert fragment.startswith('<div class="gp-answer gp-md gp-keep-words" lang="">')
    assert '<ol class="gp-sources">' in fragment and 'id="gp-l3-source-1"' in fragment
    # the chip, in its sandboxed frame, escaped into srcdoc; its queries not listed again
    assert '<iframe class="gp-suggestions"' in fragment and 'sandbox="allow-popups' in fragment
    assert html.escape(SUGGESTIONS, quote=True) in fragment
    assert "Köln Wetter" not in fragment.replace(html.escape(SUGGESTIONS, quote=True), "")
    assert "<!DOCTYPE" not in fragment and fragment.endswith("\n")
    default = render(grounded, "html", page=False)
    assert 'id="gp-source-1"' in default and default.count("gp-l3-") == 0


def test_an_answer_without_text_renders_empty_not_none(
    capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    blocked = read(FIXTURES["blocked gemini answer"])
    assert blocked.text == ""
    assert render(blocked) == "(the answer has no text: finish reason SAFETY)\n"
    skipped = read(FIXTURES["discovery engine answer, skipped"])
    assert skipped.text == ""
    assert render(skipped, "plain") == (
        "(the answer has no text: ADVERSARIAL_QUERY_IGNORED)\n\n"
        "[1] Kölner Dom — https://dom.example (not cited)\n"
    )
    page = render(skipped, "html")
    assert "Kölner Dom" in page and "(not cited)" in page
    # the CLI warns about it, and exits 0
    path = tmp_path / "blocked.json"
    path.write_text(json.dumps(FIXTURES["blocked gemini answer"]), encoding="utf-8")
    code, _, err = cli_output([str(path)], capsysbinary)
    assert code == 0 and "warning:" in err and "the answer has no text" in err


def test_text_none_with_citations_asks_for_the_text() -> None:
    bare = read(cases.grounding_metadata_json(parts_relative=False))
    assert bare.text is None and bare.citations
    with pytest.raises(ArgumentValueError, match="read it with text="):
        render(bare)
    placed = read(cases.grounding_metadata_json(parts_relative=False), text=cases.joined())
    assert render(placed).startswith(render(placed.text or "", placed.citations))


def test_bad_arguments_of_render_of_a_grounded() -> None:
    grounded = read(cases.gemini_response_json())
    with pytest.raises(ArgumentTypeError, match="takes no citations"):
        render(grounded, grounded.citations)  # type: ignore[call-overload]
    with pytest.raises(ArgumentValueError, match="'markdown', 'html' or 'plain'"):
        render(grounded, "rst")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="unexpected keyword argument 'clamp'"):
        render(grounded, "html", clamp=True)  # type: ignore[call-overload]
    with pytest.raises(ArgumentValueError, match="footnotes=True needs style='markdown'"):
        render(grounded, "plain", footnotes=True)
    with pytest.raises(ArgumentValueError, match="page=False is for style='html'"):
        render(grounded, "markdown", page=False)
    with pytest.raises(ArgumentValueError, match="for the fragment"):
        render(grounded, "html", remote_images=True)
    with pytest.raises(ArgumentTypeError, match="needs citations with a text"):
        render("Köln")  # type: ignore[call-overload]
    # the text form is unchanged
    assert render("Köln", []) == "Köln"


def test_render_and_the_cli_share_one_implementation() -> None:
    """The CLI's render command calls the facade's code: no second copy to drift."""
    root = Path(__file__).resolve().parents[1] / "src" / "grounding_protos"
    commands = (root / "_cli" / "commands.py").read_text(encoding="utf-8")
    assert "render_grounded" in commands
    for name in ("source_list(", "search_notes(", "fragment(", "page("):
        assert name not in commands, name


def test_stdin_is_read_the_same(
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    obj = FIXTURES["gemini, three scripts over parts"]
    data = json.dumps(obj).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, err = cli_output(["--style", "plain", "-"], capsysbinary)
    assert code == 0, err
    assert out == render(read(obj), "plain")


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda g: render_grounded_pieces(g, "bold"), ArgumentValueError),  # type: ignore[arg-type]
        (lambda g: render_grounded_pieces(g, "plain", footnotes=True), ArgumentValueError),
        (lambda g: render_grounded_pieces(g.text, "plain"), ArgumentTypeError),
        (lambda g: render_pieces(g.text, g.citations, lambda pairs: 1), ArgumentTypeError),  # type: ignore[arg-type,return-value]
        (
            lambda g: render_pieces(
                g.text, g.citations, "html", highlight=False, raw_text=True, footnotes=True
            ),
            ArgumentValueError,
        ),
    ],
)
def test_pieces_are_checked_before_the_first_is_given(call: Any, error: type[Exception]) -> None:
    """The CLI writes ``render``'s output piece by piece: every check (of the arguments,
    of a custom marker's value) fails when the pieces are asked for, before any is
    given, so that nothing is written of an output that would fail."""
    example = Path(__file__).resolve().parents[1] / "examples" / "gemini_response.json"
    grounded = read(json.loads(example.read_text("utf-8")))
    with pytest.raises(error):
        call(grounded)  # raises here, not while iterating
