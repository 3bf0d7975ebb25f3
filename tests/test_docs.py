"""The examples in docs/*.md run and print what they say."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

DOCS = sorted((Path(__file__).resolve().parents[1] / "docs").glob("*.md"))


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_doc_examples(path: Path) -> None:
    result = doctest.testfile(str(path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0, f"{path.name} has no examples"
