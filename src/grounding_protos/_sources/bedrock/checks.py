"""The typed boundary of the Bedrock Agents runtime's stream events (RetrieveAndGenerate
streams, InvokeAgent): a field of the wrong JSON type is a :class:`StreamError` naming the
event and the field's path, checked once where the event enters.

>>> try:
...     citation(3, {"generatedResponsePart": {"textResponsePart": {"span": {"end": "7"}}}},
...              "citation")
... except StreamError as exc:
...     print(exc.event, exc.reason)
3 citation.generatedResponsePart.textResponsePart.span.end is '7', not an integer
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from grounding_protos._exceptions import StreamError
from grounding_protos._quote import excerpt, shown

# each kind: the type of a value as JSON or boto3 gives it (checked first, fast), and the
# types it may also have
_KINDS: dict[str, tuple[type, tuple[type, ...]]] = {
    "a string": (str, (str,)),
    "an integer": (int, (int,)),
    "an object": (dict, (Mapping,)),
    "a list": (list, (list, tuple)),
    "bytes": (bytes, (bytes, bytearray, memoryview)),
}


def field(number: int, record: Mapping[str, Any], name: str, path: str, kind: str) -> Any:
    """``record[name]`` (``None`` when absent or null), checked to be ``kind`` (a key
    of ``_KINDS``).

    Raises:
        StreamError: the value has another JSON type.
    """
    value = record.get(name)
    if value is None:
        return None
    exact, types = _KINDS[kind]
    if type(value) is exact or (isinstance(value, types) and not isinstance(value, bool)):
        return value
    raise StreamError(f"{path}.{name} is {_what(value)}, not {kind}", event=number)


def record(number: int, value: object, path: str) -> Mapping[str, Any]:
    """``value`` checked to be an object.

    Raises:
        StreamError: it is not.
    """
    if type(value) is dict or isinstance(value, Mapping):
        return value
    raise StreamError(f"{path} is {_what(value)}, not an object", event=number)


def _what(value: object) -> str:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return shown(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"bytes {excerpt(repr(bytes(value)), 40)}"
    return f"a {type(value).__name__}"


def citation(number: int, value: object, path: str) -> Mapping[str, Any]:
    """A citation record (``generatedResponsePart``, ``retrievedReferences``), every field
    the readers use checked.

    Raises:
        StreamError: a field of the wrong JSON type.
    """
    cited = record(number, value, path)
    part = field(number, cited, "generatedResponsePart", path, "an object")
    if part is not None:
        where = f"{path}.generatedResponsePart"
        text_part = field(number, part, "textResponsePart", where, "an object")
        if text_part is not None:
            where += ".textResponsePart"
            field(number, text_part, "text", where, "a string")
            span = field(number, text_part, "span", where, "an object")
            if span is not None:
                field(number, span, "start", f"{where}.span", "an integer")
                field(number, span, "end", f"{where}.span", "an integer")
    references = field(number, cited, "retrievedReferences", path, "a list")
    for j, reference in enumerate(references or ()):
        where = f"{path}.retrievedReferences[{j}]"
        reference = record(number, reference, where)
        content = field(number, reference, "content", where, "an object")
        if content is not None:
            field(number, content, "text", f"{where}.content", "a string")
        location = field(number, reference, "location", where, "an object")
        if location is not None:
            field(number, location, "type", f"{where}.location", "a string")
        field(number, reference, "metadata", where, "an object")
    return cited
