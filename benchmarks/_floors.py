"""Lower bounds for any Python codec on the standard payload, measured not guessed.

Each half of a conversion is timed alone, written as the least Python that does it
for exactly this payload (straight-line code, no checks, no dispatch, the fastest
idiom measured for each access):

- ``to_dict`` must read every value through protobuf's message API
  (:func:`read_all`) and build json_format's dict from those values
  (:func:`build_dict`).
- ``from_dict`` must walk the JSON, looking each key up and checking or converting
  each value (:func:`walk_json`), and set every value through the message API
  (:func:`write_all`).

A real codec does both halves and more (dispatch, presence checks, errors with
paths), so json_format's time over the sum of a pair is the most any codec written
in Python can reach on this runtime. :func:`check` asserts that each floor does
the whole of its half: the built dict and the written message equal json_format's
results, and the walk visits every key of the JSON.

>>> from codec import standard_answer
>>> check(standard_answer())
"""

# ruff: noqa: B018  (bare attribute reads are what the read floor measures)

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from grounding_protos._codec.runtime import float32
from grounding_protos.discoveryengine_v1 import Answer


def _read_value(value: Any) -> None:
    kind = value.WhichOneof("kind")
    if kind == "list_value":
        for item in value.list_value.values[:]:
            _read_value(item)
    elif kind == "struct_value":
        fields = value.struct_value.fields
        for key in fields:
            _read_value(fields[key])
    elif kind:
        getattr(value, kind)


def read_all(answer: Any) -> None:
    """Read every value ``to_dict`` puts in its dict, building nothing."""
    answer.name, answer.state, answer.answer_text, answer.grounding_score
    for citation in answer.citations[:]:
        citation.start_index, citation.end_index
        for source in citation.sources[:]:
            source.reference_id
    for reference in answer.references[:]:
        reference.WhichOneof("content")
        chunk = reference.chunk_info
        chunk.chunk, chunk.content, chunk.relevance_score, chunk.HasField("document_metadata")
        meta = chunk.document_metadata
        meta.document, meta.uri, meta.title, meta.page_identifier, meta.HasField("struct_data")
        fields = meta.struct_data.fields
        for key in fields:
            _read_value(fields[key])
    answer.related_questions[:]
    answer.HasField("create_time")
    answer.create_time.seconds, answer.create_time.nanos
    for support in answer.grounding_supports[:]:
        support.start_index, support.end_index
        support.grounding_score, support.grounding_check_required
        for source in support.sources[:]:
            source.reference_id


def raw_values(answer: Any) -> dict[str, Any]:
    """The values :func:`read_all` reads, as plain Python, for :func:`build_dict`."""
    return {
        "answer": answer,
        "citations": [
            (c.start_index, c.end_index, [s.reference_id for s in c.sources])
            for c in answer.citations
        ],
        "supports": [
            (
                s.start_index,
                s.end_index,
                s.grounding_score,
                s.grounding_check_required,
                [x.reference_id for x in s.sources],
            )
            for s in answer.grounding_supports
        ],
        "references": [
            (
                r.chunk_info.chunk,
                r.chunk_info.content,
                r.chunk_info.relevance_score,
                (
                    r.chunk_info.document_metadata.document,
                    r.chunk_info.document_metadata.uri,
                    r.chunk_info.document_metadata.title,
                    r.chunk_info.document_metadata.page_identifier,
                    list(
                        json_format.MessageToDict(
                            r.chunk_info.document_metadata.struct_data
                        ).items()
                    ),
                ),
            )
            for r in answer.references
        ],
        "related": list(answer.related_questions),
    }


def build_dict(raw: dict[str, Any]) -> dict[str, Any]:
    """json_format's dict of the payload, from values already read (no message access
    but the Timestamp's text)."""
    answer = raw["answer"]
    out: dict[str, Any] = {
        "name": answer.name,
        "state": "SUCCEEDED",
        "answerText": answer.answer_text,
    }
    citations = out["citations"] = []
    for start, end, refs in raw["citations"]:
        citation = {"startIndex": f"{start}"} if start else {}
        citation["endIndex"] = f"{end}"
        citation["sources"] = [{"referenceId": r} for r in refs]
        citations.append(citation)
    out["references"] = [
        {
            "chunkInfo": {
                "chunk": chunk,
                "content": content,
                "relevanceScore": float32(score),
                "documentMetadata": {
                    "document": document,
                    "uri": uri,
                    "title": title,
                    "pageIdentifier": page,
                    "structData": {k: (v[:] if type(v) is list else v) for k, v in struct},
                },
            }
        }
        for chunk, content, score, (document, uri, title, page, struct) in raw["references"]
    ]
    out["relatedQuestions"] = raw["related"][:]
    out["createTime"] = answer.create_time.ToJsonString()
    out["groundingScore"] = answer.grounding_score
    supports = out["groundingSupports"] = []
    for start, end, score, required, refs in raw["supports"]:
        support = {"startIndex": f"{start}"} if start else {}
        support["endIndex"] = f"{end}"
        support["groundingScore"] = score
        support["groundingCheckRequired"] = required  # set on every support here
        support["sources"] = [{"referenceId": r} for r in refs]
        supports.append(support)
    return out


_ANSWER_KEYS = dict.fromkeys(
    [
        "name",
        "state",
        "answerText",
        "citations",
        "references",
        "relatedQuestions",
        "createTime",
        "groundingScore",
        "groundingSupports",
    ]
)
_CITATION_KEYS = {"startIndex": 0, "endIndex": 0, "sources": 1}
_SUPPORT_KEYS = {
    "startIndex": 0,
    "endIndex": 0,
    "groundingScore": 1,
    "groundingCheckRequired": 1,
    "sources": 1,
}
_SOURCE_KEYS = dict.fromkeys(["referenceId"])
_CHUNK_KEYS = dict.fromkeys(["chunk", "content", "relevanceScore", "documentMetadata"])
_META_KEYS = dict.fromkeys(["document", "uri", "title", "pageIdentifier", "structData"])


def walk_json(data: dict[str, Any]) -> int:
    """Look every key of the payload's JSON up and check or convert every value
    (int64 strings to int); returns the number of keys visited."""
    seen = len(data)
    for key, value in data.items():
        _ANSWER_KEYS[key], type(value)
    for citation in data["citations"]:
        seen += len(citation)
        for key, value in citation.items():
            if _CITATION_KEYS[key]:
                type(value)
            else:
                int(value)
        for source in citation["sources"]:
            seen += len(source)
            for key, value in source.items():
                _SOURCE_KEYS[key], type(value)
    for support in data["groundingSupports"]:
        seen += len(support)
        for key, value in support.items():
            if _SUPPORT_KEYS[key]:
                type(value)
            else:
                int(value)
        for source in support["sources"]:
            seen += len(source)
            for key, value in source.items():
                _SOURCE_KEYS[key], type(value)
    for reference in data["references"]:
        chunk = reference["chunkInfo"]
        meta = chunk["documentMetadata"]
        seen += len(reference) + len(chunk) + len(meta)
        for key, value in chunk.items():
            _CHUNK_KEYS[key], type(value)
        for key, value in meta.items():
            _META_KEYS[key], type(value)
        for value in meta["structData"].values():
            seen += 1
            if type(value) is list:
                for item in value:
                    type(item)
    return seen


def write_all(values: dict[str, Any]) -> Message:
    """Set every value of the payload through the message API, from values already
    converted (field names, int offsets, enum numbers)."""
    answer: Any = Answer()
    answer.name = values["name"]
    answer.state = Answer.SUCCEEDED
    answer.answer_text = values["answer_text"]
    add = answer.citations.add
    for data in values["citations"]:
        citation = add()
        citation.start_index = data["start_index"]
        citation.end_index = data["end_index"]
        add_source = citation.sources.add
        for source in data["sources"]:
            add_source().reference_id = source["reference_id"]
    add = answer.references.add
    for data in values["references"]:
        chunk, data = add().chunk_info, data["chunk_info"]
        chunk.chunk = data["chunk"]
        chunk.content = data["content"]
        chunk.relevance_score = data["relevance_score"]
        meta, data = chunk.document_metadata, data["document_metadata"]
        meta.document = data["document"]
        meta.uri = data["uri"]
        meta.title = data["title"]
        meta.page_identifier = data["page_identifier"]
        fields = meta.struct_data.fields
        for key, value in data["struct_data"].items():
            if type(value) is list:
                add_value = fields[key].list_value.values.add
                for item in value:
                    add_value().string_value = item
            elif type(value) is str:
                fields[key].string_value = value
            else:
                fields[key].number_value = value
    append = answer.related_questions.append
    for question in values["related_questions"]:
        append(question)
    answer.create_time.seconds = values["create_seconds"]
    answer.create_time.nanos = values["create_nanos"]
    answer.grounding_score = values["grounding_score"]
    add = answer.grounding_supports.add
    for data in values["grounding_supports"]:
        support = add()
        support.start_index = data["start_index"]
        support.end_index = data["end_index"]
        support.grounding_score = data["grounding_score"]
        support.grounding_check_required = data.get("grounding_check_required", False)
        add_source = support.sources.add
        for source in data["sources"]:
            add_source().reference_id = source["reference_id"]
    return answer  # type: ignore[no-any-return]


def converted_values(answer: Any) -> dict[str, Any]:
    """The payload's JSON as :func:`write_all` takes it: converted in advance."""
    values = json_format.MessageToDict(answer, preserving_proto_field_name=True)
    for name in ("citations", "grounding_supports"):
        for item in values[name]:
            item["start_index"] = int(item.get("start_index", 0))
            item["end_index"] = int(item["end_index"])
    values["create_seconds"] = answer.create_time.seconds
    values["create_nanos"] = answer.create_time.nanos
    return values


def count_keys(data: Any) -> int:
    """Every key of every object in ``data`` (a naive count for :func:`check`)."""
    if isinstance(data, dict):
        return len(data) + sum(count_keys(value) for value in data.values())
    if isinstance(data, list):
        return sum(count_keys(item) for item in data)
    return 0


def check(answer: Message) -> None:
    """Assert that every floor does the whole of its half on ``answer``."""
    data = json_format.MessageToDict(answer)
    read_all(answer)
    assert build_dict(raw_values(answer)) == data
    assert write_all(converted_values(answer)) == answer
    assert walk_json(data) == count_keys(data)
