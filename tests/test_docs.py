"""The examples in docs/*.md run and print what they say; the docs site builds clean."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_doc_examples(path: Path) -> None:
    result = doctest.testfile(str(path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0, f"{path.name} has no examples"


def test_site_builds_without_warnings(tmp_path: Path) -> None:
    """``mkdocs build --strict``: every page, API reference entry and cross-reference
    (Sphinx roles in docstrings included) resolves, so a renamed function fails here."""
    pytest.importorskip("mkdocstrings", reason="mkdocs and mkdocstrings are the docs extra")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    warnings = [line for line in result.stderr.splitlines() if "WARNING" in line]
    assert result.returncode == 0, "\n".join(warnings) or result.stderr
    assert (tmp_path / "reference" / "citations" / "index.html").is_file()
