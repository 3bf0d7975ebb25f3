"""The package's layers, as CONTRIBUTING.md draws them: imports point down, with no cycle.

Every import counts, function-level and ``TYPE_CHECKING`` ones included, read from the
source with :mod:`ast` (nothing is imported to find them).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "grounding_protos"

# Bottom to top. A module may import its own layer and those below it; a folder's
# modules belong to the folder's layer. The public facades stand above the layers
# they re-export; the CLI above the facades it uses.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("_exceptions", "_quote", "_offsets", "_public"),
    ("_proto", "google"),
    ("_codec",),
    ("_core",),
    ("_sources", "_net", "_render"),
    ("_citations",),
    ("_streams",),
    (
        "citations",
        "codec",
        "convert",
        "offsets",
        "well_known",
        "dialogflow_v2beta1",
        "discoveryengine_v1",
        "discoveryengine_v1beta",
        "generativelanguage_v1beta3",
        "_model",
        "_pool",
    ),
    ("_cli",),
    ("cli", "batch", "__main__"),
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
# Modules that only the named importers may use (lazily): the network, the CLI.
ONLY_FROM = {
    "_net": {"_citations.links", "_cli.commands", "_cli.main", "_cli.lines", "_cli.batch"},
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).with_suffix("")
        if rel.parts[0] == "google":  # build outputs: checked through build_protos
            continue
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The package's modules that ``name`` imports, at any depth of its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
                full = f"grounding_protos.{module}" if module else "grounding_protos"
            else:
                full = node.module or ""
            targets = [full, *(f"{full}.{a.name}" for a in node.names)]
        else:
            continue
        for target in targets:
            if target == "grounding_protos" or target.startswith("grounding_protos."):
                inner = target.removeprefix("grounding_protos").lstrip(".")
                if inner in MODULES or inner == "" or inner.startswith("google"):
                    out.add(inner)
    out.discard(name)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(module: str) -> str:
    return module.split(".")[0]


def test_every_module_has_a_layer() -> None:
    missing = sorted({_layer(m) for m in MODULES if m and _layer(m) not in RANK})
    assert missing == [], f"add these to LAYERS (and CONTRIBUTING.md): {missing}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m))
def test_imports_point_down(module: str) -> None:
    rank = RANK[_layer(module)]
    upward = sorted(
        target for target in GRAPH[module] if target and RANK.get(_layer(target), -1) > rank
    )
    assert upward == [], f"{module} imports from a layer above its own: {upward}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m and m != "__main__"))
def test_private_layers_do_not_import_the_package_facade(module: str) -> None:
    # ``from grounding_protos import X`` runs the facade's lazy lookups: below the
    # CLI, import X from where it is defined.
    if RANK[_layer(module)] >= RANK["_cli"]:
        return
    assert "" not in GRAPH[module], f"{module} imports names from grounding_protos itself"


def test_restricted_layers_have_only_their_importers() -> None:
    for restricted, allowed in ONLY_FROM.items():
        users = {
            m
            for m, targets in GRAPH.items()
            if _layer(m) != restricted and any(_layer(t) == restricted for t in targets if t)
        }
        assert users <= allowed, f"{restricted} is imported by {sorted(users - allowed)}"


def test_no_import_cycles() -> None:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH.get(v, ()):
            if w not in GRAPH:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    assert cycles == []


def test_top_folder_stays_small() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 25, top
    private = [n.removesuffix(".py") for n in top if n.startswith("_") and n != "__init__.py"]
    prefixes: dict[str, list[str]] = {}
    for name in private:
        if name.startswith("__"):
            continue
        prefixes.setdefault(name.split("_")[1], []).append(name)
    shared = {k: v for k, v in prefixes.items() if len(v) > 1}
    assert shared == {}, f"private modules sharing a prefix belong in a folder: {shared}"


# --- Inside the sources: shared helpers below the sources, the registry above them -------

_SHARED = ("_sources.common", "_sources.markers", "_sources.merging", "_sources.parse")
_SOURCE_MODULES = sorted(
    m for m in MODULES if m.startswith("_sources.") and m not in (*_SHARED, "_sources.registry")
)


@pytest.mark.parametrize("module", _SHARED)
def test_what_the_sources_share_imports_no_source(module: str) -> None:
    sources = sorted(t for t in GRAPH[module] if t in _SOURCE_MODULES or t == "_sources.registry")
    assert sources == [], f"{module} (shared by every source) imports {sources}"


@pytest.mark.parametrize("module", _SOURCE_MODULES)
def test_a_source_never_imports_the_registry_or_the_stream_entry_points(module: str) -> None:
    # a merger ends at the merged final response: reading it is the entry points' job
    above = sorted(t for t in GRAPH[module] if t == "_sources.registry" or _layer(t) == "_streams")
    assert above == [], f"{module} imports {above}"


def test_every_source_module_is_reached_from_the_registry() -> None:
    # one registration: a source's reader and merger are named in _sources/registry.py
    seen: set[str] = set()
    todo = ["_sources.registry"]
    while todo:
        for target in GRAPH[todo.pop()]:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    modules = [m for m in _SOURCE_MODULES if MODULES[m].name != "__init__.py"]
    unreached = sorted(m for m in modules if m not in seen)
    assert unreached == [], f"source modules the registry does not reach: {unreached}"
