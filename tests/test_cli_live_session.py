"""The command line reads a Gemini Live session (issue 33, point 4): every turn, or one
with ``--turn N``, each exactly as ``citations.read_turns`` reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grounding_protos.citations import read_turns, render
from grounding_protos.cli import main
from tests import google_cases as g

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "gemini_live_session.json"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(params=["example", "cut short"])
def session(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, list[object]]:
    if request.param == "example":
        messages = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    else:  # a session that ended in the middle of its second turn
        messages = g.live_session()[:-3]
    path = tmp_path / "session.json"
    path.write_text(json.dumps(messages, ensure_ascii=False), encoding="utf-8")
    return path, messages


@pytest.mark.parametrize("style", ["markdown", "plain"])
def test_every_turn_under_its_number(
    session: tuple[Path, list[object]], style: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    path, messages = session
    turns = read_turns(messages)
    assert len(turns) == 2
    code, out, _ = run(["render", "--style", style, str(path)], capsys)
    heading = "## Turn {}" if style == "markdown" else "Turn {}"
    expected = "\n".join(
        f"{heading.format(n)}\n\n{render(turn, style)}" for n, turn in enumerate(turns, 1)
    )
    assert out == expected
    assert code in (0, 1)


@pytest.mark.parametrize("style", ["markdown", "plain", "html"])
def test_one_turn(
    session: tuple[Path, list[object]], style: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    path, messages = session
    for number, turn in enumerate(read_turns(messages), 1):
        code, out, _ = run(["render", "--style", style, "--turn", str(number), str(path)], capsys)
        assert code in (0, 1)
        assert out == render(turn, style)


def test_the_shipped_session_renders(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["render", str(EXAMPLE)], capsys)
    assert code == 0, err
    assert out.startswith("## Turn 1\n\nDas Café Müller 🍰 in Köln")
    assert "\n## Turn 2\n\nIn Köln regnet es 🌧" in out


def test_validate_and_inspect_every_turn(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["validate", str(EXAMPLE)], capsys)
    assert (code, out) == (0, ""), err
    code, out, _ = run(["inspect", "--json", str(EXAMPLE)], capsys)
    summaries = json.loads(out)
    turns = read_turns(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    assert [s["text"]["characters"] for s in summaries] == [len(t.text or "") for t in turns]
    code, out, _ = run(["inspect", "--json", "--turn", "2", str(EXAMPLE)], capsys)
    assert json.loads(out) == summaries[1]


def test_an_unfinished_turn_is_a_problem_with_its_turn_number(
    session: tuple[Path, list[object]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, messages = session
    code, out, _ = run(["validate", "--json", str(path)], capsys)
    problems = json.loads(out)
    cut = read_turns(messages)[1].problems
    expected = [p for p in problems if p["path"].startswith("turn 2")]
    assert [p["code"] for p in expected] == [p.code for p in cut]
    assert code == (1 if cut else 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["render", "--style", "html"], "a Live session of 2 turns: --style html shows one"),
        (["render", "--turn", "3"], "--turn 3: the Live session has 2 turns (--turn 1 to 2)"),
        (["render", "--turn", "0"], "turns are numbered from 1"),
        (["inspect", "--turn", "x"], "not a whole number"),
    ],
)
def test_bad_turns(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([*argv, str(EXAMPLE)], capsys)
    assert code == 2 and message in err


def test_turn_is_for_a_live_session(capsys: pytest.CaptureFixture[str]) -> None:
    other = EXAMPLE.with_name("gemini_response.json")
    code, _, err = run(["render", "--turn", "1", str(other)], capsys)
    assert code == 2 and "--turn is for a Gemini Live session" in err


def test_a_session_of_one_turn_is_one_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "turn.json"
    path.write_text(json.dumps(g.live_turn(), ensure_ascii=False), encoding="utf-8")
    (turn,) = read_turns(g.live_turn())
    code, out, _ = run(["render", "--style", "html", str(path)], capsys)
    assert (code, out) == (0, render(turn, "html"))
