"""The well-known types of the package's own descriptor pool, and helpers to build them.

Our messages live in a pool of their own (so they coexist with Google's client
libraries), and a pool's message fields only take that pool's classes. So
``Answer.create_time`` holds *this* module's :class:`Timestamp`, not
``google.protobuf.timestamp_pb2.Timestamp``; the ``struct_data`` fields hold this
module's :class:`Struct`. They have the usual helper methods
(``FromDatetime``/``ToDatetime``, ``ToJsonString``, ``update``, ``get_or_create_struct``…).

On protobuf >= 5.28 the fields also take plain values, in constructors and by
assignment:

>>> import datetime
>>> from grounding_protos.discoveryengine_v1 import Answer
>>> when = datetime.datetime(2025, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
>>> Answer(create_time=timestamp(when)).create_time.ToJsonString()
'2025-01-02T03:04:05Z'

:func:`timestamp` and :func:`struct` work on every supported runtime (5.26 and 5.27
included) and check their input:

>>> Info = Answer.Reference.StructuredDocumentInfo
>>> info = Info(struct_data=struct({"year": 2024, "tags": ["a", "b"]}))
>>> info.struct_data["tags"][1]
'b'
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any, cast

from grounding_protos._exceptions import ArgumentTypeError
from grounding_protos._quote import shown
from grounding_protos.google.protobuf.struct_pb2 import ListValue, NullValue, Struct, Value
from grounding_protos.google.protobuf.timestamp_pb2 import Timestamp

__all__ = ["ListValue", "NullValue", "Struct", "Timestamp", "Value", "struct", "timestamp"]

_JSON_SCALARS = (str, int, float, bool, type(None))


def timestamp(value: datetime.datetime) -> Timestamp:
    """A pool-own :class:`Timestamp` for a ``datetime`` (naive ones are taken as UTC).

    >>> timestamp(datetime.datetime(2024, 5, 1, 12, 0)).ToJsonString()
    '2024-05-01T12:00:00Z'
    """
    if not isinstance(value, datetime.datetime):
        raise ArgumentTypeError(f"timestamp() takes a datetime, not {type(value).__name__}")
    result = Timestamp()
    result.FromDatetime(value)
    return result


def struct(value: Mapping[str, object]) -> Struct:
    """A pool-own :class:`Struct` from a JSON-like mapping (str keys; None, bool,
    int, float, str, sequences and mappings as values) — a ``dict``, or another
    pool's ``Struct``.

    >>> struct({"a": [1, None]})["a"][1] is None
    True
    >>> struct({"a": {1, 2}})
    Traceback (most recent call last):
    ...
    grounding_protos.ArgumentTypeError: struct value at $.a is a set; \
expected None, bool, int, float, str, list, tuple or a mapping with str keys
    """
    _check_json_like(value, "$")
    result = Struct()
    result.update(cast("Mapping[str, Any]", value))  # checked just above
    return result


def _check_json_like(value: object, path: str) -> None:
    if isinstance(value, _JSON_SCALARS):
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ArgumentTypeError(f"struct key at {path} is {shown(key)}; keys must be str")
            _check_json_like(item, f"{path}.{key}")
        return
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        for i, item in enumerate(value):
            _check_json_like(item, f"{path}[{i}]")
        return
    raise ArgumentTypeError(
        f"struct value at {path} is a {type(value).__name__}; expected None, bool, int, "
        "float, str, list, tuple or a mapping with str keys"
    )
