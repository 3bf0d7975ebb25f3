"""The generated stubs: mypy --strict accepts real usage and rejects mistakes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "typing"


def _mypy(path: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy is a test extra")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file=",
         "--python-version=3.11", str(path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_user_script_type_checks_and_runs() -> None:
    result = _mypy(HERE / "user_script.py")
    assert result.returncode == 0, result.stdout + result.stderr
    subprocess.run([sys.executable, str(HERE / "user_script.py")], check=True)


def test_stubs_reject_wrong_usage() -> None:
    result = _mypy(HERE / "wrong_usage.py")
    assert result.returncode == 1
    expected_lines = [
        i for i, line in enumerate((HERE / "wrong_usage.py").read_text().splitlines(), 1)
        if "# E:" in line
    ]  # fmt: skip
    flagged = {int(line.split(":")[1]) for line in result.stdout.splitlines() if ": error:" in line}
    assert flagged == set(expected_lines), result.stdout
