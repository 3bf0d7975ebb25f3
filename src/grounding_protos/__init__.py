"""grounding-protos: the grounding and citation messages of Google AI APIs.

Messages (one module per API version, full names as upstream):

- :mod:`grounding_protos.dialogflow_v2beta1`: ``GroundingMetadata``, ``Segment``, …
- :mod:`grounding_protos.discoveryengine_v1`: ``Answer``, ``SafetyRating``, ``HarmCategory``
- :mod:`grounding_protos.discoveryengine_v1beta`: ``GroundingFact``, ``FactChunk``
- :mod:`grounding_protos.generativelanguage_v1beta3`: ``CitationMetadata``, ``CitationSource``

>>> import grounding_protos
>>> Answer = grounding_protos.message_class("Answer")
>>> grounding_protos.from_bytes(Answer, Answer(answer_text="日本").SerializeToString())
answer_text: "日本"
<BLANKLINE>

Importing this package is cheap: the descriptor pool loads on first use of a
message, and :mod:`grounding_protos.offsets` never imports protobuf.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grounding_protos._exceptions import (
    AmbiguousTypeError,
    ArgumentTypeError,
    ArgumentValueError,
    CitationError,
    GroundingProtosError,
    MissingDependencyError,
    NotBuiltError,
    OffsetError,
    StreamError,
    TextEncodingError,
    TypeLookupError,
    UnknownTypeError,
    UnsupportedInputError,
)

if TYPE_CHECKING:
    from grounding_protos._citations.validate import validate
    from grounding_protos._core.model import Problem
    from grounding_protos._proto.errors import JSONParseError, WireFormatError
    from grounding_protos._proto.registry import message_class, message_types
    from grounding_protos._proto.wire import from_bytes

__all__ = [
    "AmbiguousTypeError",
    "ArgumentTypeError",
    "ArgumentValueError",
    "CitationError",
    "GroundingProtosError",
    "JSONParseError",
    "MissingDependencyError",
    "NotBuiltError",
    "OffsetError",
    "Problem",
    "StreamError",
    "TextEncodingError",
    "TypeLookupError",
    "UnknownTypeError",
    "UnsupportedInputError",
    "WireFormatError",
    "from_bytes",
    "message_class",
    "message_types",
    "validate",
]

# Names that need protobuf, imported on first access (PEP 562).
_LAZY = {
    "JSONParseError": "grounding_protos._proto.errors",
    "WireFormatError": "grounding_protos._proto.errors",
    "from_bytes": "grounding_protos._proto.wire",
    "message_class": "grounding_protos._proto.registry",
    "message_types": "grounding_protos._proto.registry",
    "Problem": "grounding_protos._core.model",
    "validate": "grounding_protos._citations.validate",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'grounding_protos' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
