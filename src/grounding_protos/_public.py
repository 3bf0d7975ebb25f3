"""Public names carry their public module in ``__module__`` (httpx's pattern).

So tracebacks print ``grounding_protos.OffsetError``, ``repr`` and the docs show
``grounding_protos.citations.Citation``, and pickles name the path a user imports
rather than one that may move. Each private module calls :func:`public` on what a
facade re-exports, where it defines it, so the name is right however it was reached.
"""

from __future__ import annotations

from types import FunctionType


def public(module: str, *objects: object) -> None:
    """Set ``__module__`` of each object (a class, with the functions defined in its
    body, so that doctest still finds their examples; or a function) to ``module``."""
    for obj in objects:
        old = getattr(obj, "__module__", None)
        obj.__module__ = module
        if not isinstance(obj, type):
            continue
        for member in vars(obj).values():
            function = getattr(member, "__func__", member)  # static and class methods
            if isinstance(function, FunctionType) and function.__module__ == old:
                function.__module__ = module
