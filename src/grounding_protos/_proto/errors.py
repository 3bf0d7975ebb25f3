"""Errors that are also protobuf's own exception types.

They live apart from ``_exceptions`` because that module must not import protobuf
(``grounding_protos.offsets`` depends on it and is protobuf-free).
"""

from __future__ import annotations

from google.protobuf.json_format import ParseError
from google.protobuf.message import DecodeError

from grounding_protos._exceptions import GroundingProtosError
from grounding_protos._public import public

__all__ = ["JSONParseError", "WireFormatError"]


class WireFormatError(GroundingProtosError, DecodeError):
    """Raised by ``from_bytes`` when bytes are not a valid encoding of the message type.

    ``type_name`` is the message's full name, ``offset`` the byte where the problem
    was found (``None`` when protobuf rejected the bytes for a reason not located),
    and ``path`` the field path to it (``Answer.citations[2].start_index``).
    """

    def __init__(self, message: str, *, type_name: str, offset: int | None, path: str) -> None:
        super().__init__(message)
        self.type_name = type_name
        self.offset = offset
        self.path = path


class JSONParseError(GroundingProtosError, ParseError):
    """Raised by ``grounding_protos.codec`` when JSON does not fit the message type.

    It is a ``google.protobuf.json_format.ParseError``, raised where json_format
    raises one; ``path`` is the JSON path to the offending value
    (``citations[3].startIndex``), empty for the document itself.
    """

    def __init__(self, message: str, *, path: str = "") -> None:
        super().__init__(message)
        self.path = path


public("grounding_protos", JSONParseError, WireFormatError)
