"""The docs as a new user meets them (issue 33, points 9-11): they name no private
module or helper as if it were public, the README's examples run as pasted, extras are
explained for a clone, and the Dask recipe works when saved as a script."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PRIVATE = re.compile(
    r"`_(?:sources|streams|inputs|render|core|citations|cli|codec|proto|net)\b[./]"
    r"|\bMerger\.add\b|\bplan\.LISTED\b|\bpage\.FRAME_CSP\b|`answer_language\("
)


def blocks(path: Path, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", path.read_text("utf-8"), re.M | re.S)


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_no_private_names_in_the_docs(path: Path) -> None:
    found = [m.group() for m in PRIVATE.finditer(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_readme_python_runs_as_pasted(tmp_path: Path) -> None:
    """Every Python block of the README (not doctest), run from the clone's root."""
    for i, code in enumerate(blocks(ROOT / "README.md", "python")):
        if code.lstrip().startswith(">>>"):
            continue
        if "google.cloud import" in code and importlib.util.find_spec("google.cloud") is None:
            continue  # the official client libraries: the test extra
        script = tmp_path / f"readme_{i}.py"
        script.write_text(code, encoding="utf-8")
        result = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True,
                                text=True, timeout=120, check=False)  # fmt: skip
        assert result.returncode == 0, (code, result.stderr[-2000:])


def test_the_readme_says_how_extras_install_from_a_clone() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert 'python -m pip install ".[dask]"' in readme
    assert '"grounding-protos[dask]"' in readme  # the index form, named as such


def recipe() -> str:
    code = next(c for c in blocks(ROOT / "docs" / "scale-out.md", "python") if "def main" in c)
    return code


def test_the_dask_recipe_guards_its_processes() -> None:
    tree = ast.parse(recipe())
    guard = [
        node for node in tree.body
        if isinstance(node, ast.If) and "__name__" in ast.unparse(node.test)
        and "__main__" in ast.unparse(node.test)
    ]  # fmt: skip
    assert guard, "no if __name__ == '__main__': in the recipe"
    # nothing at module level starts work: only imports, the function and the guard
    assert all(isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.If))
               for n in tree.body)  # fmt: skip
    assert 'scheduler="processes"' in ast.unparse(
        next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    ).replace("'", '"')


def test_the_dask_recipe_runs_as_a_script(tmp_path: Path) -> None:
    pytest.importorskip("dask.bag")
    shards = tmp_path / "shards"
    shards.mkdir()
    answer = (ROOT / "examples" / "discoveryengine_answer.json").read_text(encoding="utf-8")
    line = " ".join(answer.split())
    (shards / "part-00.jsonl").write_text(f"{line}\n{line}\n", encoding="utf-8")
    script = tmp_path / "validate_shards.py"
    script.write_text(recipe().replace("num_workers=8", "num_workers=2"), encoding="utf-8")
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    out = (tmp_path / "out" / "0.jsonl").read_text(encoding="utf-8").splitlines()
    cli = subprocess.run(
        [sys.executable, "-m", "grounding_protos", "validate", "--jsonl",
         str(shards / "part-00.jsonl")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out == cli.stdout.splitlines() and len(out) == 2
