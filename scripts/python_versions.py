"""Print the promised Python minors, oldest first, one a line: CI tests exactly these.

The promise is the ``Programming Language :: Python :: 3.X`` classifiers of
``pyproject.toml``. Every other statement of it must agree, else this exits with
status 1 and names the one that does not: ``requires-python`` (``>=`` the oldest),
ruff's ``target-version`` and mypy's ``python_version`` (the oldest), and the
README's "Python ≥ 3.X" and its range of 3.X to 3.Y. ``.ci/run`` and
``scripts/runtime_matrix.sh`` read their Pythons from here.

    python3 scripts/python_versions.py      # 3.11, 3.12, 3.13 (one a line)
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CLASSIFIER = re.compile(r"^Programming Language :: Python :: (3\.\d+)$")


def promised(pyproject: dict[str, Any]) -> list[str]:
    """The minors of the version classifiers, oldest first."""
    classifiers: list[str] = pyproject["project"]["classifiers"]
    found = [m.group(1) for c in classifiers if (m := CLASSIFIER.match(c))]
    return sorted(found, key=lambda v: tuple(int(p) for p in v.split(".")))


def disagreements(pyproject: dict[str, Any], readme: str, minors: list[str]) -> list[str]:
    """Each statement of the supported Pythons that says otherwise than the classifiers."""
    if not minors:
        return ["pyproject.toml: no 'Programming Language :: Python :: 3.X' classifier"]
    oldest, newest = minors[0], minors[-1]
    stated = {
        "pyproject.toml [project] requires-python": (
            pyproject["project"]["requires-python"],
            f">={oldest}",
        ),
        "pyproject.toml [tool.ruff] target-version": (
            pyproject["tool"]["ruff"]["target-version"],
            f"py{oldest.replace('.', '')}",
        ),
        "pyproject.toml [tool.mypy] python_version": (
            pyproject["tool"]["mypy"]["python_version"],
            oldest,
        ),
    }
    problems = [
        f"{where} is {have!r}, the classifiers say {want!r}"
        for where, (have, want) in stated.items()
        if have != want
    ]
    problems += [
        f"README.md does not say {phrase!r}"
        for phrase in (f"Python ≥ {oldest}", f"Python {oldest}\u2013{newest}")
        if phrase not in readme
    ]
    return problems


def main() -> int:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    minors = promised(pyproject)
    problems = disagreements(pyproject, (ROOT / "README.md").read_text(encoding="utf-8"), minors)
    for problem in problems:
        print(f"python_versions.py: {problem}", file=sys.stderr)
    if problems:
        return 1
    print("\n".join(minors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
