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


ROOT = EXAMPLES.parent


def _readme_commands() -> list[str]:
    """The commands of the README's "Start here" block, comments left out."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Start here", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_readme_step_one_installs_what_the_readme_shows_next() -> None:
    """Step 1 installs the runtime dependencies only; the README's next suggestion is
    the HTML view of a Markdown answer, whose renderer must be one of them (it once
    showed raw ``##`` and table pipes with a note on stderr)."""
    import re
    import tomllib

    step_one = _readme_commands()[0]
    assert step_one.startswith("python -m pip install . &&")  # no extra: runtime deps only
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "--style html -o page.html examples/gemini_maps_markdown.json" in readme
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0] for d in project["dependencies"]}
    assert "markdown-it-py" in names
    # the answer of that example is Markdown: the HTML view renders it (tables, bold)
    text = (EXAMPLES / "gemini_maps_markdown.json").read_text(encoding="utf-8")
    assert "**" in text and "|" in text


def test_ci_runs_the_readme_commands_exactly() -> None:
    """.ci/run runs the README's two commands as written (in a fresh venv per Python)."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    one, two = _readme_commands()
    assert one in ci.replace(" \\\n    ", " ")
    install, test = two.split(" && ")
    assert install in ci and test in ci


def test_ci_runs_the_frameworks_tests_the_readme_names() -> None:
    """The framework tests skip in step 2's environment (their extra pins google-genai<3):
    the README gives their own commands, and .ci/run runs them."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install = 'python -m pip install -e ".[frameworks-test]"'
    assert f'{install} && python -m pytest -m "not slow"' in readme
    assert install in ci and 'python -m pytest -m "not slow"' in ci
