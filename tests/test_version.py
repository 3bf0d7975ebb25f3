"""The release's version (issue 33, point 12): 0.2.0 in the metadata, with its section
in the changelog; "0.1's" behaviour is that of the previous release."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_0_2_0_with_a_changelog_section() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"
    ]
    assert version == "0.2.0"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## \[([^\]]+)\]", changelog, re.MULTILINE)
    assert version in sections and sections.index(version) < sections.index("0.1.0")
    assert f"\n[{version}]: " in changelog
