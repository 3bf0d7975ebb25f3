"""The shipped examples run and say what the README says they say."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_quickstart_shows_correct_and_naive_slices() -> None:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "quickstart.py")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    out = result.stdout
    assert "3 citations" in out
    assert "cited:  '東京は日本の首都で、人口は約1400万人です。'" in out
    assert 'cited:  "Zürich\'s café culture dates to the 18th century."' in out
    assert "naive text[start:end] would give" in out
    assert out.rstrip().endswith("round trip OK")
