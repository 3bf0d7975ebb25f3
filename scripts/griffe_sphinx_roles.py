"""A griffe extension for mkdocstrings: Sphinx roles become links, doctests code blocks.

The docstrings name other objects the Sphinx way (:func:`render`,
:class:`~grounding_protos.JSONParseError`, :mod:`grounding_protos.offsets`). Markdown
would show the role's text literally; this extension resolves each target from the
docstring's own module (as the name would be looked up in its code) and writes a
cross-reference in its place. A target that resolves to nothing is logged as a
warning, which ``mkdocs build --strict`` turns into a failure: a renamed function
cannot leave a stale name behind. A target that exists but is not on any page (a
private helper) stays plain code.

Doctest examples (``>>>`` lines and their output, up to a blank line) are fenced as
``pycon`` code, so that Markdown does not read ``[1, 2]`` in an output as a link.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

PROMPT = re.compile(r"^(\s*)>>> ")
ROLE = re.compile(r":(?:py:)?(func|meth|class|mod|attr|data|exc|obj|const):`(~?)([\w.]+)`")
logger = griffe.get_logger("griffe_sphinx_roles")


def fence_doctests(text: str) -> str:
    """Put every doctest block (prompt lines and output, up to a blank line) in a fence."""
    out: list[str] = []
    indent: str | None = None  # the open block's indentation
    for line in text.splitlines():
        if indent is not None and not line.strip():
            out += [indent + "```", line]
            indent = None
        elif indent is None and (prompt := PROMPT.match(line)):
            indent = prompt.group(1)
            out += [indent + "```pycon", line]
        else:
            out.append(line)
    if indent is not None:
        out.append(indent + "```")
    return "\n".join(out)


def _module_of(obj: griffe.Object | griffe.Alias) -> griffe.Module:
    while not isinstance(obj, griffe.Module):
        assert obj.parent is not None
        obj = obj.parent
    return obj


def _member(obj: griffe.Object | griffe.Alias, name: str) -> griffe.Object | griffe.Alias | None:
    try:
        return obj.members.get(name) or obj.all_members.get(name)
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def resolve(
    context: griffe.Object | griffe.Alias, target: str, root: griffe.Module
) -> griffe.Object | griffe.Alias | None:
    """The object ``target`` names, looked up as Python would from ``context``."""
    first, *rest = target.split(".")
    found: griffe.Object | griffe.Alias | None = None
    # The enclosing class (for :meth:`other_method`-style names), its module, the package.
    scopes = [context, context.parent, _module_of(context), root]
    for scope in scopes:
        if scope is not None and (found := _member(scope, first)) is not None:
            break
    else:
        if first == root.name:
            found = root
    for name in rest:
        if found is None:
            return None
        found = _member(found, name)
    return found


class SphinxRoles(griffe.Extension):
    """Rewrite ``:role:`target``` in every docstring of the package once it is loaded."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        self._visit(pkg, pkg, set())

    def _visit(self, obj: griffe.Object, root: griffe.Module, seen: set[str]) -> None:
        if obj.path in seen:
            return
        seen.add(obj.path)
        if obj.docstring is not None:
            text = ROLE.sub(lambda m: self._link(obj, root, m), obj.docstring.value)
            obj.docstring.value = fence_doctests(text)
        for member in obj.members.values():
            if not member.is_alias and isinstance(member, griffe.Object):
                self._visit(member, root, seen)

    def _link(self, obj: griffe.Object, root: griffe.Module, match: re.Match[str]) -> str:
        _role, short, target = match.groups()
        text = target.rsplit(".", 1)[-1] if short else target
        found = resolve(obj, target, root)
        if found is None:
            where = f"{obj.relative_filepath}:{obj.docstring.lineno if obj.docstring else '?'}"
            logger.warning("%s: %s names %r, which does not exist", where, obj.path, target)
            return f"`{text}`"
        try:
            identifier = found.final_target.path if isinstance(found, griffe.Alias) else found.path
        except (griffe.AliasResolutionError, griffe.CyclicAliasError):
            identifier = found.path
        # autorefs resolves this where the target is rendered (under any of its paths);
        # "optional" leaves plain code for targets no page shows, without a warning.
        return f'<autoref identifier="{identifier}" optional><code>{text}</code></autoref>'
