"""grounding-protos: grounding and citation messages of Google AI APIs."""

from __future__ import annotations

from grounding_protos._exceptions import (
    AmbiguousTypeError,
    GroundingProtosError,
    OffsetError,
    TypeLookupError,
    UnknownTypeError,
)

__all__ = [
    "AmbiguousTypeError",
    "GroundingProtosError",
    "OffsetError",
    "TypeLookupError",
    "UnknownTypeError",
]
