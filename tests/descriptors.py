"""Descriptor helpers that give mypy --strict the types the tests rely on.

types-protobuf types ``Message.DESCRIPTOR`` as a union with upb's descriptor class and
``message_type``/``enum_type`` as optional; these helpers check and narrow instead.
"""

from __future__ import annotations

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message


def descriptor_of(message: Message | type[Message]) -> Descriptor:
    """``message.DESCRIPTOR``; upb's descriptors are instances too (protobuf's metaclass)."""
    found = message.DESCRIPTOR
    assert isinstance(found, Descriptor), found
    return found


def message_type_of(field: FieldDescriptor) -> Descriptor:
    """The message type of a message (or map) field."""
    assert field.message_type is not None, f"{field.full_name} is not a message field"
    return field.message_type


def enum_type_of(field: FieldDescriptor) -> EnumDescriptor:
    """The enum type of an enum field."""
    assert field.enum_type is not None, f"{field.full_name} is not an enum field"
    return field.enum_type
