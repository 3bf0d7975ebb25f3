"""Finding message classes by name: ``message_class`` and ``message_types``."""

from __future__ import annotations

import difflib
import functools
import importlib

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

from grounding_protos._exceptions import AmbiguousTypeError, ArgumentTypeError, UnknownTypeError
from grounding_protos._proto import pool as _pool
from grounding_protos._public import public

# Files of the pool that are dependencies, not one of the package's own schemas.
_DEPENDENCY_PREFIXES = ("google/protobuf/", "google/api/")
_TYPE_URL_PREFIX = "type.googleapis.com/"


@functools.cache
def message_types() -> tuple[str, ...]:
    """Full names of every message type of the package's schemas, nested ones included.

    >>> "google.cloud.discoveryengine.v1.Answer.Citation" in message_types()
    True
    """
    names: list[str] = []
    for file in _pool.FILE_SET.file:
        if not file.name.startswith(_DEPENDENCY_PREFIXES):
            descriptor = _pool.file_descriptor(file.name)
            for message in descriptor.message_types_by_name.values():
                names.extend(_walk(message))
    return tuple(sorted(names))


def _walk(descriptor: Descriptor) -> list[str]:
    if descriptor.GetOptions().map_entry:
        return []
    names = [descriptor.full_name]
    for nested in descriptor.nested_types:
        names.extend(_walk(nested))
    return names


def message_class(name: str) -> type[Message]:
    """The message class for a full name, or for a short name that is unambiguous.

    A short name is any dotted tail of a full name: ``"Answer"``,
    ``"Answer.Citation"``, ``"v2beta1.GroundingSupport"``. A leading dot and a
    ``type.googleapis.com/`` prefix (as in ``Any.type_url``) are accepted.

    >>> message_class("Answer").DESCRIPTOR.full_name
    'google.cloud.discoveryengine.v1.Answer'
    >>> message_class("Segment").DESCRIPTOR.full_name
    'google.cloud.dialogflow.v2beta1.Segment'

    Raises:
        UnknownTypeError: no type has that name (the message suggests close names).
        AmbiguousTypeError: several types end with that name (all are listed).
    """
    if not isinstance(name, str):
        raise ArgumentTypeError(f"message type name must be a str, not {type(name).__name__}")
    return _class_for(_resolve(name))


def _resolve(name: str) -> str:
    wanted = name.removeprefix(_TYPE_URL_PREFIX).removeprefix(".")
    names = message_types()
    if wanted in names:
        return wanted
    matches = tuple(full for full in names if full.endswith("." + wanted))
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise AmbiguousTypeError(
            f"message type name {name!r} is ambiguous: it matches {', '.join(matches)}; "
            "use a longer name",
            name=name,
            candidates=matches,
        )
    raise UnknownTypeError(_unknown_message(name, wanted, names), name=name)


def _unknown_message(name: str, wanted: str, names: tuple[str, ...]) -> str:
    by_tail: dict[str, str] = {}
    for full in names:
        parts = full.split(".")
        for i in range(len(parts)):
            by_tail.setdefault(".".join(parts[i:]).lower(), full)
    close = difflib.get_close_matches(wanted.lower(), list(by_tail), n=3, cutoff=0.75)
    hint = sorted({by_tail[c] for c in close})
    suggestion = f"; did you mean {' or '.join(hint)}?" if hint else ""
    return (
        f"unknown message type {name!r}{suggestion} "
        f"(the {len(names)} known types are listed by grounding_protos.message_types())"
    )


def _class_for(full_name: str) -> type[Message]:
    descriptor = _pool.POOL.FindMessageTypeByName(full_name)
    importlib.import_module(_pool.module_name(descriptor.file.name))
    return _pool.message_class(full_name)


def resolve_class(message_type: str | type[Message]) -> type[Message]:
    """A message class given as a class (returned as is) or as a name."""
    if isinstance(message_type, str):
        return message_class(message_type)
    if isinstance(message_type, type) and issubclass(message_type, Message):
        return message_type
    raise ArgumentTypeError(
        f"expected a message class or a type name, not {type(message_type).__name__}"
    )


public("grounding_protos", message_types, message_class)
