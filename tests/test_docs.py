"""The examples in docs/*.md run and print what they say; the docs site builds clean."""

from __future__ import annotations

import doctest
import re
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


def test_the_home_page_lists_every_guide() -> None:
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w-]+\.md)\)", home))
    assert linked == {p.name for p in DOCS} - {"index.md"}
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert set(re.findall(r": ([\w-]+\.md)$", nav, re.MULTILINE)) == {p.name for p in DOCS}


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


def test_docstring_roles_resolve_and_a_stale_name_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The griffe extension of mkdocs.yml on a small package: roles become links to the
    object they name (looked up from the docstring's module), unknown names warnings,
    doctest blocks fenced code."""
    griffe = pytest.importorskip("griffe", reason="griffe comes with the docs extra")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        '"""See :func:`helper`, :class:`~pkg.impl.Thing` and :func:`gone`.\n\n'
        '>>> [1, 2]\n[1, 2]\n\nAfter."""\n'
        "from pkg.impl import Thing, helper\n"
    )
    (package / "impl.py").write_text(
        '"""Implementation."""\n\n\ndef helper() -> None:\n    """Help."""\n\n\n'
        'class Thing:\n    """A thing; see :meth:`size`."""\n\n'
        '    def size(self) -> int:\n        """Its size."""\n        return 0\n'
    )
    extensions = griffe.load_extensions(str(ROOT / "scripts" / "griffe_sphinx_roles.py"))
    with caplog.at_level("WARNING"):
        module = griffe.load("pkg", search_paths=[tmp_path], extensions=extensions)
    text = module.docstring.value
    assert '<autoref identifier="pkg.impl.helper" optional><code>helper</code></autoref>' in text
    assert '<autoref identifier="pkg.impl.Thing" optional><code>Thing</code></autoref>' in text
    assert "`gone`" in text and ":func:" not in text
    assert "```pycon\n>>> [1, 2]\n[1, 2]\n```\n\nAfter." in text
    thing = module["impl"]["Thing"].docstring.value
    assert 'identifier="pkg.impl.Thing.size"' in thing
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("names 'gone', which does not exist" in message for message in warnings)
    assert not any("helper" in message or "Thing" in message for message in warnings)
