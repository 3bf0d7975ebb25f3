"""The package's own descriptor pool and the message classes made from it.

The official client libraries register the same full names
(``google.cloud.discoveryengine.v1.Answer``, …) in protobuf's default pool, so ours
live in a pool of their own, loaded from the descriptor set that ``build_protos.py``
compiled. Only public protobuf APIs are used (``DescriptorPool.AddSerializedFile``,
``message_factory.GetMessageClass``), so the same files work on protobuf 5.26 … 7.x.

The pool also holds its own copies of the well-known types (Timestamp, Struct, …)
and of ``google/api/*``: a pool resolves imports only among its own files.
"""

from __future__ import annotations

import copyreg
import threading
from collections.abc import Callable
from importlib import resources
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, FileDescriptor
from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper
from google.protobuf.message import Message

from grounding_protos._exceptions import NotBuiltError

DESCRIPTOR_SET = "_descriptor_set.binpb"
PACKAGE = "grounding_protos"  # the descriptor set and the generated modules live there


def _load_descriptor_set() -> descriptor_pb2.FileDescriptorSet:
    try:
        data = resources.files(PACKAGE).joinpath(DESCRIPTOR_SET).read_bytes()
    except FileNotFoundError:
        raise NotBuiltError(
            f"{PACKAGE}'s generated layer is missing ({DESCRIPTOR_SET} was never built): "
            "in a source checkout run `python build_protos.py` or `pip install -e .`"
        ) from None
    return descriptor_pb2.FileDescriptorSet.FromString(data)


FILE_SET = _load_descriptor_set()
POOL = descriptor_pool.DescriptorPool()
for _file in FILE_SET.file:  # protoc lists them dependencies first
    POOL.AddSerializedFile(_file.SerializeToString())
del _file

_named: set[str] = set()
_lock = threading.Lock()


def module_name(proto_file: str) -> str:
    """The generated module of a ``.proto`` file: ``google/x/y.proto`` -> ``…google.x.y_pb2``."""
    return f"{PACKAGE}.{proto_file.removesuffix('.proto').replace('/', '.')}_pb2"


def file_descriptor(name: str) -> FileDescriptor:
    """The pool's ``FileDescriptor`` for the file at import path ``name``."""
    return POOL.FindFileByName(name)


def message_class(full_name: str) -> type[Message]:
    """The message class for ``full_name`` in the pool (one class per name, cached)."""
    descriptor = POOL.FindMessageTypeByName(full_name)
    cls = message_factory.GetMessageClass(descriptor)
    top = descriptor
    while top.containing_type is not None:
        top = top.containing_type
    if top.full_name not in _named:
        with _lock:
            if top.full_name not in _named:
                _name_classes(message_factory.GetMessageClass(top), top)
                _named.add(top.full_name)
    return cls


def enum_type(full_name: str) -> EnumTypeWrapper:
    """A wrapper for a top-level enum, as protoc's gencode makes (``Name``, ``Value``…)."""
    return EnumTypeWrapper(POOL.FindEnumTypeByName(full_name))


def _name_classes(cls: type[Message], descriptor: Descriptor) -> None:
    """Give a class and its nested classes importable names, and make them picklable.

    Classes made by ``GetMessageClass`` have no module; protobuf pickles nested
    messages by looking their name up in the *default* pool, where ours are not.
    A ``copyreg`` reducer sends (full name, bytes) instead, rebuilt from this pool.
    """
    module = module_name(descriptor.file.name)
    package = descriptor.file.package
    cls.__module__ = module
    cls.__qualname__ = (
        descriptor.full_name.removeprefix(f"{package}.") if package else descriptor.full_name
    )
    copyreg.pickle(cls, _reduce)
    for nested in descriptor.nested_types:
        _name_classes(message_factory.GetMessageClass(nested), nested)


def _reduce(message: Message) -> tuple[Callable[[str, bytes], Message], tuple[str, bytes]]:
    return _rebuild, (message.DESCRIPTOR.full_name, message.SerializePartialToString())


def _rebuild(full_name: str, data: bytes) -> Message:
    message = message_class(full_name)()
    message.MergeFromString(data)
    return message


# Pickles name the path 0.1 gave it, which grounding_protos._pool keeps: one path that
# does not move with the package's layout.
_rebuild.__module__ = "grounding_protos._pool"


def is_repeated(field: Any) -> bool:  # a FieldDescriptor of any implementation
    """Whether a field is repeated, on every supported runtime.

    ``FieldDescriptor.is_repeated`` appeared in protobuf 6.x and ``label`` is gone
    in 7.x; neither exists on all of 5.26 … 7.x.
    """
    flag = getattr(field, "is_repeated", None)
    if flag is not None:
        return bool(flag)
    return bool(getattr(field, "label", None) == FieldDescriptor.LABEL_REPEATED)
