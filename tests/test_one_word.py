"""One word, one meaning across Python, the command line and ``batch``: ``errors`` is
the span policy (``read(errors=)``, ``--errors``, ``process_lines(errors=)``); the
file of a batch's failed lines is ``--failed-lines FILE``, and where
``process_lines`` puts them is ``failed_lines=``. The old spellings still work, with
a warning; a span policy's name where a file is expected is refused with a hint.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from grounding_protos import ArgumentValueError, CitationError, OffsetError
from grounding_protos.batch import process_lines
from grounding_protos.citations import read, render
from grounding_protos.cli import main

TEXT = "😀 Grüße aus Köln! 東京は首都です。"
# three supports: one a byte late with its text right (repaired, or refused by
# strict), one right, one splitting 'ö' with no text (refused by repair, left out by
# skip): each span policy gives a different result
DRIFTED = {
    "candidates": [{
        "content": {"parts": [{"text": TEXT}]},
        "groundingMetadata": {
            "groundingChunks": [{"web": {"uri": "https://koeln.example", "title": "Köln"}}],
            "groundingSupports": [
                {"segment": {"startIndex": 6, "endIndex": 13, "text": "Grüße"},
                 "groundingChunkIndices": [0]},
                {"segment": {"startIndex": 24, "endIndex": 30}, "groundingChunkIndices": [0]},
                {"segment": {"startIndex": 19, "endIndex": 22}, "groundingChunkIndices": [0]},
            ],
        },
    }],
}  # fmt: skip
SKIPPED = "😀 Grüße[1] aus Köln! 東京[1]は首都です。"
LINES = [json.dumps(DRIFTED, ensure_ascii=False), "{not json", json.dumps(DRIFTED)]


def run(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsysbinary.readouterr()
    return code, captured.out.decode("utf-8"), captured.err.decode("utf-8")


@pytest.fixture
def drifted(tmp_path: Path) -> Path:
    path = tmp_path / "drifted.json"
    path.write_text(json.dumps(DRIFTED), encoding="utf-8")
    return path


@pytest.fixture
def batch(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


def test_the_fixture_tells_the_policies_apart() -> None:
    """The oracle: what each span policy does in Python."""
    data = TEXT.encode()
    assert data[5:12].decode() == "Grüße" and data[24:30].decode() == "東京"
    with pytest.raises(CitationError, match="differs from the text"):
        read(DRIFTED, errors="strict")
    with pytest.raises(OffsetError, match="splits 'ö'"):
        read(DRIFTED, errors="repair")
    skipped = read(DRIFTED, errors="skip")
    assert [c.text for c in skipped.citations] == ["Grüße", "東京"]
    assert [p.code for p in skipped.problems] == ["offset-drift", "offset-splits-character"]


@pytest.mark.parametrize(
    ("policy", "error"), [("strict", "differs from the text"), ("repair", "splits 'ö'")]
)
def test_cli_errors_is_the_span_policy_as_in_python(
    policy: str, error: str, drifted: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, err = run(["render", "--errors", policy, str(drifted)], capsysbinary)
    assert code == 1 and out == "" and error in err
    code, out, err = run(["render", "--errors", "skip", str(drifted)], capsysbinary)
    assert code == 1 and out == render(read(DRIFTED, errors="skip"))
    assert out.startswith(SKIPPED) and "left out" in err
    code, out, _ = run(["inspect", "--json", "--errors", "skip", str(drifted)], capsysbinary)
    assert len(json.loads(out)["spans"]) == 2
    code, out, _ = run(["inspect", "--json", "--errors", policy, str(drifted)], capsysbinary)
    assert error in json.loads(out)["error"]


def test_cli_spans_still_works_with_a_warning(
    drifted: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    old = run(["render", "--spans", "skip", str(drifted)], capsysbinary)
    new = run(["render", "--errors", "skip", str(drifted)], capsysbinary)
    assert old[:2] == new[:2]
    assert "warning: --spans is deprecated: use --errors skip" in old[2]
    assert "deprecated" not in new[2]


@pytest.mark.parametrize("command", ["render", "validate", "inspect"])
def test_cli_errors_file_of_0_1_still_works_with_a_warning(
    command: str, batch: Path, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    old_file, new_file = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    old = run([command, "--jsonl", str(batch), "--errors", str(old_file)], capsysbinary)
    new = run([command, "--jsonl", str(batch), "--failed-lines", str(new_file)], capsysbinary)
    assert old[:2] == new[:2] and old_file.read_bytes() == new_file.read_bytes()
    failed = [json.loads(r)["line"] for r in new_file.read_text().splitlines()]
    assert failed == ([1, 2, 3] if command == "render" else [2])  # repair refuses 1, 3
    assert f"warning: --errors FILE is deprecated: use --failed-lines {old_file}" in old[2]
    assert "deprecated" not in new[2]


def test_cli_errors_skip_is_the_policy_and_writes_no_file(
    batch: Path, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """The issue's case: ``render --errors skip --jsonl big.jsonl -o /dev/null`` wrote a
    file named ``skip``."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out.jsonl"
    code, _, err = run(["render", "--errors", "skip", "--jsonl", str(batch), "-o", str(out)],
                       capsysbinary)  # fmt: skip
    assert code == 1 and not (tmp_path / "skip").exists()
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["ok"] for r in records] == [True, False, True]
    assert records[0]["output"] == render(read(DRIFTED, errors="skip"))
    assert "deprecated" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["render", "--jsonl", "{batch}", "--failed-lines", "skip"],
        ["validate", "--jsonl", "{batch}", "--failed-lines", "repair"],
        ["render", "{drifted}", "-o", "strict"],
        ["render", "{drifted}", "--resolve-urls", "--cache", "skip"],
        ["convert", "--type", "Answer", "--from", "jsonl", "--to", "jsonl", "{batch}",
         "--failed-lines", "skip"],
    ],
)  # fmt: skip
def test_a_span_policy_where_a_file_is_expected_is_refused_with_a_hint(
    argv: list[str], batch: Path, drifted: Path, tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    argv = [a.format(batch=batch, drifted=drifted) for a in argv]
    code, out, err = run(argv, capsysbinary)
    value = next(a for a in argv if a in ("strict", "repair", "skip"))
    assert code == 2 and out == ""
    assert f"takes a file, and '{value}' is a span policy" in err
    assert f"use --errors {value}" in err and f"./{value}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (batch, drifted) if p.parent == tmp_path
    )


@pytest.mark.parametrize("command", ["validate", "convert"])
def test_a_span_policy_for_a_command_without_one_is_refused(
    command: str, batch: Path, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    batched = (
        ["--type", "Answer", "--from", "jsonl", "--to", "jsonl"]
        if command == "convert"
        else ["--jsonl"]
    )
    code, _, err = run([command, *batched, str(batch), "--errors", "skip"], capsysbinary)
    assert code == 2 and f"{command} has no span policy, and 'skip' is one" in err
    assert "--failed-lines FILE" in err and not (tmp_path / "skip").exists()


def test_the_help_names_each_option_once(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, _ = run(["render", "--help"], capsysbinary)
    assert code == 0
    assert "--errors POLICY" in out and "--failed-lines FILE" in out
    assert "--spans" not in out  # deprecated: works, not shown
    code, out, _ = run(["validate", "--help"], capsysbinary)
    assert "--failed-lines FILE" in out and "--errors" not in out


# --- batch ---------------------------------------------------------------------------------


def _outputs(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


def test_batch_errors_is_the_span_policy() -> None:
    skipped = _outputs(list(process_lines(LINES, "render", errors="skip", failed_lines="inline")))
    repaired = _outputs(list(process_lines(LINES, "render")))
    assert skipped[0]["output"] == render(read(DRIFTED, errors="skip"))
    assert [r["ok"] for r in skipped] == [True, False, True]
    assert [r["ok"] for r in repaired] == [False, False, False]
    assert "splits 'ö'" in repaired[0]["error"]
    with pytest.raises(ArgumentValueError, match="errors must be 'strict'"):
        process_lines(LINES, "render", errors="lenient")


@pytest.mark.parametrize("failed", ["inline", "skip", "only"])
def test_batch_failed_lines_says_where_failed_lines_go(failed: str) -> None:
    out = _outputs(list(process_lines(LINES, "validate", failed_lines=failed)))  # type: ignore[arg-type]
    lines = {"inline": [1, 2, 3], "skip": [1, 3], "only": [2]}[failed]
    assert [r["line"] for r in out] == lines
    with pytest.raises(ArgumentValueError, match="failed_lines must be 'inline', 'skip' or"):
        process_lines(LINES, "validate", failed_lines="drop")  # type: ignore[arg-type]


@pytest.mark.parametrize("old", ["inline", "skip", "only"])
def test_batch_errors_of_0_1_still_works_with_a_deprecation_warning(old: str) -> None:
    with pytest.warns(DeprecationWarning, match=f"use failed_lines='{old}'") as caught:
        got = list(process_lines(LINES, "validate", errors=old))
    assert caught[0].filename == __file__  # the warning points at the caller
    assert got == list(process_lines(LINES, "validate", failed_lines=old))  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="both say where failed lines go"):
        process_lines(LINES, "validate", errors="only", failed_lines="inline")


def test_batch_spans_still_works_with_a_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match="spans= is deprecated: use errors="):
        old = list(process_lines(LINES, "render", spans="skip"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = list(process_lines(LINES, "render", errors="skip", failed_lines="inline"))
    assert old == new
    with pytest.raises(ArgumentValueError, match="both give the span policy"):
        process_lines(LINES, "render", spans="skip", errors="repair")


def test_a_wrong_policy_outside_a_batch_is_named(
    drifted: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, err = run(["render", "--errors", "lenient", str(drifted)], capsysbinary)
    assert code == 2 and out == ""
    assert "--errors takes a span policy (strict, repair or skip), not 'lenient'" in err
    assert "deprecated" not in err
