"""Packaging: the sdist carries the sources, and the wheel built from it the layer.

Runs ``python -m build`` (isolated, so it fetches the build requirements): slow.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.expected import GENERATED_STEMS

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("build", reason="the build package is a test extra")
    out = tmp_path_factory.mktemp("dist")
    # sdist from the tree, then a wheel from that sdist (build's default).
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                   check=True, capture_output=True)  # fmt: skip
    return out


def _one(dist: Path, pattern: str) -> Path:
    (found,) = dist.glob(pattern)
    return found


def test_wheel_from_sdist_holds_the_generated_layer(dist: Path) -> None:
    names = set(zipfile.ZipFile(_one(dist, "*.whl")).namelist())
    package = "grounding_protos/"
    for stem in GENERATED_STEMS:
        assert f"{package}{stem}_pb2.py" in names
        assert f"{package}{stem}_pb2.pyi" in names
    for name in ["py.typed", "_descriptor_set.binpb", "__init__.py", "discoveryengine_v1.py"]:
        assert package + name in names
    top_level = {name.split("/")[0] for name in names}
    assert top_level == {"grounding_protos", f"grounding_protos-{VERSION}.dist-info"}
    assert not any(name.startswith("google/") for name in names)


def test_sdist_holds_sources_not_outputs(dist: Path) -> None:
    with tarfile.open(_one(dist, "*.tar.gz")) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for name in [
        "build_protos.py",
        "hatch_build.py",
        "pyproject.toml",
        "protos/google/cloud/discoveryengine/v1/answer.proto",
        "protos/google/cloud/discoveryengine/v1/safety.proto",
        "protos/google/cloud/dialogflow/v2beta1/grounding.proto",
        "protos/google/cloud/discoveryengine/v1beta/grounding.proto",
        "protos/google/ai/generativelanguage/v1beta3/citation.proto",
        "src/grounding_protos/py.typed",
    ]:
        assert name in names
    assert not any(name.endswith(("_pb2.py", "_pb2.pyi", ".binpb")) for name in names)


def test_wheel_installs_and_imports_in_a_fresh_venv(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(_one(dist, "*.whl"))],
                   check=True, capture_output=True)  # fmt: skip
    code = (
        "import grounding_protos as g; from grounding_protos.discoveryengine_v1 import Answer;"
        "a = Answer(answer_text='ok'); assert g.from_bytes('Answer', a.SerializeToString()) == a;"
        "print(len(g.message_types()))"
    )
    result = subprocess.run([str(python), "-c", code], check=True, capture_output=True,
                            text=True, cwd=tmp_path)  # fmt: skip
    assert result.stdout.strip() == "31"
    # the README's next suggestion after installing: the HTML view of a Markdown answer,
    # rendered (markdown-it-py came with the install), not raw text with a note
    page = tmp_path / "page.html"
    example = ROOT / "examples" / "gemini_maps_markdown.json"
    command = venv / "bin" / "grounding-protos"
    argv = [str(command), "render", "--style", "html", "-o", str(page), str(example)]
    shown = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "not installed" not in shown.stderr
    html = page.read_text(encoding="utf-8")
    assert 'class="gp-answer gp-md"' in html and "<table>" in html and "<strong>" in html
