"""Public names show their public module: in ``__module__`` (tracebacks, ``repr``,
pickles), in the docs' examples, and objects pickled by 0.1 under its module paths
still load."""

from __future__ import annotations

import base64
import importlib
import inspect
import json
import pickle
import re
import traceback
import typing
from pathlib import Path

import pytest

import grounding_protos
import grounding_protos.batch
import grounding_protos.citations
from grounding_protos import GroundingProtosError
from grounding_protos.citations import Citation, Grounded, Problem, Source, read
from grounding_protos.discoveryengine_v1 import Answer
from grounding_protos.offsets import TextIndex
from tests.pickles_v0_1 import PICKLES

ROOT = Path(__file__).resolve().parents[1]
FACADES = [
    "grounding_protos",
    "grounding_protos.citations",
    "grounding_protos.codec",
    "grounding_protos.offsets",
    "grounding_protos.convert",
    "grounding_protos.batch",
    "grounding_protos.cli",
    "grounding_protos.well_known",
]
PRIVATE = re.compile(r"(?:^|\.)_[a-z]")


def _public_objects() -> list[tuple[str, str, object]]:
    out: list[tuple[str, str, object]] = []
    for name in FACADES:
        module = importlib.import_module(name)
        for attr in module.__all__:
            value = getattr(module, attr)
            if inspect.isclass(value) or inspect.isfunction(value):
                out.append((name, attr, value))
    return out


PUBLIC = _public_objects()


@pytest.mark.parametrize(("facade", "name", "obj"), PUBLIC, ids=[f"{f}.{n}" for f, n, _ in PUBLIC])
def test_every_public_name_has_a_public_module(facade: str, name: str, obj: object) -> None:
    module: str = obj.__module__
    assert not PRIVATE.search(module), f"{facade}.{name} says it is from {module}"
    # pickle finds a class (and a function) where __module__ says it is
    assert getattr(importlib.import_module(module), obj.__qualname__) is obj  # type: ignore[attr-defined]


def test_errors_name_the_package_and_models_the_citations_module() -> None:
    errors = [getattr(grounding_protos, n) for n in grounding_protos.__all__ if n.endswith("Error")]
    assert len(errors) >= 14 and all(issubclass(e, GroundingProtosError) for e in errors)
    assert {e.__module__ for e in errors} == {"grounding_protos"}
    assert {c.__module__ for c in (Citation, Grounded, Problem, Source)} == {
        "grounding_protos.citations"
    }
    assert TextIndex.__module__ == "grounding_protos.offsets"


def test_a_traceback_shows_the_public_path() -> None:
    with pytest.raises(grounding_protos.OffsetError) as caught:
        TextIndex("Grüße").to_char(3)
    last = traceback.format_exception_only(caught.type, caught.value)[-1]
    assert last.startswith("grounding_protos.OffsetError: byte offset 3 splits 'ü'")
    source = Source(uri="https://köln.example", title="Köln")
    assert repr(source).startswith("Source(uri='https://köln.example'")
    assert str(type(source)) == "<class 'grounding_protos.citations.Source'>"


RECORDS = [Citation, Grounded, Problem, Source, *(getattr(grounding_protos.citations, n) for n in
           ("SearchInfo", "UrlStatus", "Update")), grounding_protos.batch.LineOptions]  # fmt: skip


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_annotations_of_records_resolve_in_the_public_module(cls: type) -> None:
    # what a pydantic model or a dataclass holding one of these evaluates, in the
    # namespace of cls.__module__
    hints = typing.get_type_hints(cls)
    assert hints and all(not isinstance(h, (str, typing.ForwardRef)) for h in hints.values())


# --- Pickles -------------------------------------------------------------------------------


def _built_now() -> dict[str, object]:
    """The objects of tests/pickles_v0_1.py, made with the code of today."""

    def example(name: str) -> object:
        return json.loads((ROOT / "examples" / name).read_text(encoding="utf-8"))

    return {
        "gemini": read(example("gemini_response.json")),
        "broken": read(example("broken_answer.json"), errors="skip"),
        "answer": Answer(
            answer_text="日本 🎌", citations=[Answer.Citation(start_index=1, end_index=3)]
        ),
    }


@pytest.mark.parametrize("protocol", sorted(PICKLES))
def test_objects_pickled_by_0_1_still_load(protocol: int) -> None:
    data = base64.b64decode("".join(PICKLES[protocol]))
    assert b"grounding_protos._model" in data and b"grounding_protos._pool" in data
    assert pickle.loads(data) == _built_now()


@pytest.mark.parametrize("protocol", [2, pickle.DEFAULT_PROTOCOL, pickle.HIGHEST_PROTOCOL])
def test_new_pickles_name_public_modules(protocol: int) -> None:
    objects = _built_now()
    data = pickle.dumps(objects, protocol=protocol)
    assert pickle.loads(data) == objects
    named = set(re.findall(rb"grounding_protos[\w.]*", data))
    assert b"grounding_protos.citations" in named
    # messages pickle through the descriptor pool's rebuild function (kept since 0.1)
    assert {n for n in named if PRIVATE.search(n.decode())} <= {b"grounding_protos._pool"}


# --- Docs ----------------------------------------------------------------------------------


def _doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", _doc_files(), ids=lambda p: p.name)
def test_docs_show_no_private_module(path: Path) -> None:
    private = re.findall(r"grounding_protos\._\w+[\w.]*", path.read_text(encoding="utf-8"))
    assert private == [], f"{path.name} shows private paths: {sorted(set(private))}"


@pytest.mark.parametrize(("facade", "name", "obj"), PUBLIC, ids=[f"{f}.{n}" for f, n, _ in PUBLIC])
def test_docstring_examples_import_public_names(facade: str, name: str, obj: object) -> None:
    doc = inspect.getdoc(obj) or ""
    assert not re.search(r"grounding_protos\._\w", doc), f"{facade}.{name}'s docstring"
