"""The typed boundary of the Bedrock Agents runtime's stream events (RetrieveAndGenerate
streams, InvokeAgent): a field of the wrong JSON type is a :class:`StreamError` naming the
event and the field's path, checked once where the event enters, with the one typed field
reader every merger uses (``merging.field``).

>>> try:
...     citation(3, {"generatedResponsePart": {"textResponsePart": {"span": {"end": "7"}}}},
...              "citation")
... except StreamError as exc:
...     print(exc.event, exc.reason)
3 citation.generatedResponsePart.textResponsePart.span.end is a string ('7'), not an integer
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from grounding_protos._exceptions import StreamError
from grounding_protos._quote import shown
from grounding_protos._sources.merging import field, json_kind


def record(number: int, value: object, path: str) -> Mapping[str, Any]:
    """``value`` checked to be an object.

    Raises:
        StreamError: it is not.
    """
    if type(value) is dict or isinstance(value, Mapping):
        return value
    raise StreamError(f"{path} is {json_kind(value)} ({shown(value)}), not an object", event=number)


def citation(number: int, value: object, path: str) -> Mapping[str, Any]:
    """A citation record (``generatedResponsePart``, ``retrievedReferences``), every field
    the readers use checked.

    Raises:
        StreamError: a field of the wrong JSON type.
    """
    cited = record(number, value, path)
    part = field(cited, "generatedResponsePart", dict, number=number, at=path)
    if part is not None:
        where = f"{path}.generatedResponsePart"
        text_part = field(part, "textResponsePart", dict, number=number, at=where)
        if text_part is not None:
            where += ".textResponsePart"
            field(text_part, "text", str, number=number, at=where)
            span = field(text_part, "span", dict, number=number, at=where)
            if span is not None:
                field(span, "start", int, number=number, at=f"{where}.span")
                field(span, "end", int, number=number, at=f"{where}.span")
    references = field(cited, "retrievedReferences", list, number=number, at=path)
    for j, reference in enumerate(references or ()):
        where = f"{path}.retrievedReferences[{j}]"
        reference = record(number, reference, where)
        content = field(reference, "content", dict, number=number, at=where)
        if content is not None:
            field(content, "text", str, number=number, at=f"{where}.content")
        location = field(reference, "location", dict, number=number, at=where)
        if location is not None:
            field(location, "type", str, number=number, at=f"{where}.location")
        field(reference, "metadata", dict, number=number, at=where)
    return cited
