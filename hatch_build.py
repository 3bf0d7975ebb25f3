"""Hatchling build hook: generate the protobuf layer before a wheel is built.

Named by ``[tool.hatch.build.targets.wheel.hooks.custom]`` in pyproject.toml, so
``pip install .``, ``pip install -e .`` and ``python -m build`` (wheel, and wheel from
sdist) all run ``build_protos.build()``. The files are written into the source tree
(where an editable install finds them) and packed by the wheel target's
``artifacts``, since they are git-ignored.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class ProtoBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        sys.path.insert(0, self.root)
        try:
            import build_protos
        finally:
            sys.path.remove(self.root)
        root = Path(self.root)
        try:
            written = build_protos.build(root / "src" / "grounding_protos", root / "protos")
        except build_protos.BuildError as exc:
            # One clear line instead of a traceback through the build backend.
            raise SystemExit(f"grounding-protos build failed: {exc}") from None
        self.app.display_info(f"build_protos: generated {len(written)} files")
