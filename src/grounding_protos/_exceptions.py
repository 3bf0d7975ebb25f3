"""Every error grounding-protos raises on its own account.

All of them derive from :class:`GroundingProtosError`; each also derives from the
builtin a caller would expect (``ValueError``, ``LookupError``), so existing
``except`` clauses keep working. This module imports nothing from protobuf, so that
``grounding_protos.offsets`` stays protobuf-free; the errors that must also be
protobuf exceptions live in ``_proto/errors.py``.
"""

from __future__ import annotations

from grounding_protos._public import public

__all__ = [
    "AmbiguousTypeError",
    "ArgumentTypeError",
    "ArgumentValueError",
    "CitationError",
    "GroundingProtosError",
    "MissingDependencyError",
    "NotBuiltError",
    "OffsetError",
    "StreamError",
    "TextEncodingError",
    "TypeLookupError",
    "UnknownTypeError",
    "UnsupportedInputError",
]


class GroundingProtosError(Exception):
    """Base class of every error the package raises on its own account."""


# --- Message type lookup -----------------------------------------------------


class TypeLookupError(GroundingProtosError, LookupError):
    """Raised when a message type name cannot be resolved to one type.

    ``name`` is the name asked for; ``candidates`` holds the full names that
    matched (empty when none did).
    """

    def __init__(self, message: str, *, name: str, candidates: tuple[str, ...] = ()):
        super().__init__(message)
        self.name = name
        self.candidates = candidates

    def __str__(self) -> str:  # LookupError would otherwise repr() the message
        return str(self.args[0])


class UnknownTypeError(TypeLookupError):
    """Raised by ``message_class`` when no message type has the given name."""


class AmbiguousTypeError(TypeLookupError):
    """Raised by ``message_class`` when a short name matches several types."""


# --- Offsets ------------------------------------------------------------------


class OffsetError(GroundingProtosError, ValueError):
    """Raised when an offset is negative, past the end, or splits a character."""


class TextEncodingError(GroundingProtosError, UnicodeError):
    """Raised when a ``str`` has no UTF-8 form (a lone surrogate) or ``bytes`` are not UTF-8.

    A ``UnicodeError``, hence a ``ValueError``.
    """


# --- Package state and arguments -------------------------------------------------


class NotBuiltError(GroundingProtosError, ImportError):
    """Raised on import when the generated layer was never built (a bare checkout)."""


class ArgumentTypeError(GroundingProtosError, TypeError):
    """Raised when an argument has the wrong Python type (``str`` for ``bytes``, …)."""


class ArgumentValueError(GroundingProtosError, ValueError):
    """Raised when an option's value is not one of those accepted (a ``unit``, ``snap``
    or ``style`` name, …) or options contradict each other."""


# --- Citations ----------------------------------------------------------------------


class UnsupportedInputError(GroundingProtosError, TypeError):
    """Raised when an object is none of the shapes citations can be read from."""


class CitationError(GroundingProtosError, ValueError):
    """Raised by ``extract`` when a citation cannot be resolved (a chunk index or
    ``reference_id`` out of range, a ``partIndex`` naming no text part, …).

    ``path`` names the field (``grounding_supports[2].grounding_chunk_indices[0]``) and
    ``code`` the problem, as ``validate`` would report it.
    """

    def __init__(self, message: str, *, path: str = "", code: str = "") -> None:
        super().__init__(message)
        self.path = path
        self.code = code


class MissingDependencyError(GroundingProtosError, ImportError):
    """Raised when an optional package (an official client library, httpx for
    ``resolve_urls``) is not installed; the message names the extra to install."""


# --- Streams ------------------------------------------------------------------------


class StreamError(GroundingProtosError, ValueError):
    """Raised by ``read_stream`` when a chunk is not part of a response stream: an SSE
    ``error`` event, an ``{"error": {...}}`` body, malformed JSON, a chunk of another API.

    ``event`` is the number of the event (from 1, in arrival order), ``None`` when the
    problem is the recording as a whole; ``reason`` is the message without it.
    """

    def __init__(self, reason: str, *, event: int | None = None) -> None:
        super().__init__(f"event {event}: {reason}" if event is not None else reason)
        self.reason = reason
        self.event = event


public("grounding_protos", *(globals()[name] for name in __all__))
