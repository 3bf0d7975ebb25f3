"""``[build-system] requires`` is exactly what the build uses: nothing installed for nothing.

pip fills the isolated build environment with ``requires``; the build then runs
``hatch_build.py``, which runs ``build_protos.py``. Both name every third-party
distribution they need by a module: an import, ``importlib.util.find_spec("m")`` or
``python -m m``. Each such module is mapped to the installed distribution holding its
files, and that set must equal ``requires``: an unused requirement (google-genai once
cost every ``pip install .`` pydantic and httpx) or a missing one fails here.
"""

from __future__ import annotations

import ast
import itertools
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
BUILD_FILES = ["build_protos.py", "hatch_build.py"]
LOCAL_MODULES = {Path(name).stem for name in BUILD_FILES}


def _is_find_spec(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "find_spec") or (
        isinstance(func, ast.Name) and func.id == "find_spec"
    )


def _string(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def modules_named(source: str) -> set[str]:
    """Every absolute module ``source`` imports, finds with ``find_spec`` or runs with ``-m``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Call) and _is_find_spec(node.func) and node.args:
            name = _string(node.args[0])
            if name:
                found.add(name)
        elif isinstance(node, ast.List | ast.Tuple):
            strings = [_string(item) for item in node.elts]
            found.update(
                module for flag, module in itertools.pairwise(strings) if flag == "-m" and module
            )
    return found


def third_party(modules: set[str]) -> set[str]:
    """Leave out the standard library and the build's own files."""
    return {
        name
        for name in modules
        if name.split(".")[0] not in sys.stdlib_module_names | LOCAL_MODULES
    }


def distributions_of(module: str) -> set[str]:
    """The installed distributions holding files of ``module`` (a package or a .py)."""
    path = module.replace(".", "/")
    owners: set[str] = set()
    for dist in metadata.distributions():
        files = dist.files or []
        if any(f.as_posix().startswith(path + "/") or f.as_posix() == path + ".py" for f in files):
            owners.add(canonicalize_name(dist.metadata["Name"]))
    return owners


def build_requires() -> list[Requirement]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        requires: list[str] = tomllib.load(file)["build-system"]["requires"]
    return [Requirement(line) for line in requires]


def test_the_scanner_sees_each_way_of_naming_a_module() -> None:
    source = (
        "from __future__ import annotations\nimport os, a.b\nfrom c.d import e\n"
        "from . import local\nimport build_protos\n"
        "spec = importlib.util.find_spec('f')\n"
        "subprocess.run([sys.executable, '-m', 'g.h', '--flag', '-m'])\n"
    )
    assert modules_named(source) == {
        "__future__", "os", "a.b", "c.d", "build_protos", "f", "g.h"
    }  # fmt: skip
    assert third_party(modules_named(source)) == {"a.b", "c.d", "f", "g.h"}


def test_the_build_files_need_the_tools_they_are_known_to_use() -> None:
    modules = set()
    for name in BUILD_FILES:
        modules |= third_party(modules_named((ROOT / name).read_text(encoding="utf-8")))
    tops = {module.split(".")[0] for module in modules} | {m for m in modules if "." in m}
    # Spot checks against what the build is documented to run, so the scanner
    # cannot silently find nothing.
    assert {"grpc_tools", "mypy_protobuf", "hatchling", "google.protobuf", "google.api"} <= tops


def test_build_requires_are_exactly_what_the_build_uses() -> None:
    modules = set()
    for name in BUILD_FILES:
        modules |= third_party(modules_named((ROOT / name).read_text(encoding="utf-8")))
    needed: dict[str, set[str]] = {}
    for module in sorted(modules):
        owners = distributions_of(module)
        if not owners:
            pytest.fail(f"{module} (used by the build) is not installed: install the test extra")
        assert len(owners) == 1, f"{module} is in several distributions: {sorted(owners)}"
        needed.setdefault(owners.pop(), set()).add(module)
    declared = [canonicalize_name(req.name) for req in build_requires()]
    assert len(declared) == len(set(declared)), f"a build requirement is listed twice: {declared}"
    unused = sorted(set(declared) - set(needed))
    missing = sorted(set(needed) - set(declared))
    assert not unused, f"[build-system] requires lists {unused}, which the build never uses"
    assert not missing, f"the build uses {[needed[m] for m in missing]} from {missing}, " + (
        "which [build-system] requires does not list"
    )
