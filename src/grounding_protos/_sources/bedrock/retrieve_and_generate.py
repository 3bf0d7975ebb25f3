"""Reading Amazon Bedrock Knowledge Bases ``RetrieveAndGenerate`` responses.

``{"output": {"text"}, "citations": [{"generatedResponsePart": {"textResponsePart":
{"text", "span": {"start", "end"}}}, "retrievedReferences": [{"content": {"text"},
"location": {"type", "s3Location": {"uri"}, "webLocation": {"url"}, …},
"metadata"}]}]}`` (boto3 returns these camelCase dicts). ``span.end`` is
*inclusive* (recordings: ``text[start : end + 1]`` is the part's text), so it is
made exclusive here. AWS documents the span only as "where the text with a citation
starts/ends in the generated output", without a unit: the default is code points
(``read(obj, unit="utf16")`` for the other reading), and the part's ``text`` is
the check: a span whose offsets disagree with it is re-anchored on it.

>>> raw = read_retrieve_and_generate({"output": {"text": "Köln liegt am Rhein."},
...     "citations": [{"generatedResponsePart": {"textResponsePart": {
...         "text": "Köln", "span": {"start": 0, "end": 3}}},
...     "retrievedReferences": [{"content": {"text": "Köln am Rhein"},
...         "location": {"type": "S3", "s3Location": {"uri": "s3://b/koeln.pdf"}}}]}]}, 0)
>>> raw.spans[0].end, raw.sources[0][1].uri
(4, 's3://b/koeln.pdf')
"""

from __future__ import annotations

from typing import Any

from grounding_protos._core.access import get, items, text_or_none
from grounding_protos._core.model import Source
from grounding_protos._core.raw import RawAnswer, RawSpan
from grounding_protos._sources.common import (
    SourceTable,
    integer_plus_one,
    is_record,
    lists_or_absent,
    metadata_pairs,
    string,
)

# location type -> (field, key of its address)
_LOCATIONS = {
    "S3": ("s3_location", "uri"),
    "WEB": ("web_location", "url"),
    "CONFLUENCE": ("confluence_location", "url"),
    "SALESFORCE": ("salesforce_location", "url"),
    "SHAREPOINT": ("share_point_location", "url"),
    "KENDRA": ("kendra_document_location", "uri"),
    "CUSTOM": ("custom_document_location", "id"),
    "SQL": ("sql_location", "query"),
}


def is_retrieve_and_generate(obj: object) -> bool:
    """A ``RetrieveAndGenerate`` response: ``output`` a record with a ``text`` string."""
    output = get(obj, "output")
    return (
        is_record(output)
        and string(output, "text") is not None
        and lists_or_absent(obj, "citations")
    )


def read_retrieve_and_generate(obj: object, candidate: int) -> RawAnswer:
    """``output.text`` and one span per citation's ``textResponsePart``."""
    raw = RawAnswer("none", "", text=string(get(obj, "output"), "text"), unit="char")
    read_citations(raw, items(obj, "citations"), "citations")
    raw.finish_reason = string(obj, "guardrail_action")
    return raw


def read_citations(raw: RawAnswer, citations: list[Any], path: str) -> None:
    """One span of ``raw`` per citation record (``generatedResponsePart``,
    ``retrievedReferences``; RetrieveAndGenerate's and InvokeAgent's attribution's),
    ``span.end`` inclusive; ``path`` is where the list is."""
    table = SourceTable(raw)
    for i, citation in enumerate(citations):
        part = get(get(citation, "generated_response_part"), "text_response_part")
        span_of = get(part, "span")
        where = f"{path}[{i}]"
        span = RawSpan(
            where,
            get(span_of, "start"),
            integer_plus_one(get(span_of, "end")),  # inclusive in the response
            "citation",
            segment_text=get(part, "text"),
            offsets=".generatedResponsePart.textResponsePart.span",
            names=("start", "end", "part_index"),
        )
        for j, reference in enumerate(items(citation, "retrieved_references")):
            ref = f"{where}.retrievedReferences[{j}]"
            span.refs.append(table.ref_of(_values(reference), _source, ref))
        raw.spans.append(span)


def _values(reference: object) -> tuple[Any, ...]:
    """What a retrieved reference's :class:`Source` is made of (hashable)."""
    location = get(reference, "location")
    kind = string(location, "type") or ""
    field, key = _LOCATIONS.get(kind, ("", ""))
    address = text_or_none(get(get(location, field), key)) if field else None
    metadata = metadata_pairs(get(reference, "metadata"))
    text = text_or_none(get(get(reference, "content"), "text"))
    return (kind, address, metadata, text)


def _source(values: tuple[Any, ...]) -> Source:
    kind, address, metadata, text = values
    title = next((v for k, v in metadata if k.lower() in ("title", "x-amz-bedrock-kb-title")),
                 None)  # fmt: skip
    return Source(
        uri=address if kind != "SQL" else None,
        title=title,
        kind="web" if kind == "WEB" else "document",
        text=text,
        custom_metadata=metadata + ((("sql", address),) if kind == "SQL" and address else ()),
    )
