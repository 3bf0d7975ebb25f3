"""Merging a streamed Discovery Engine answer (``:streamAnswer``) into one ``Answer``.

``ConversationalSearchService.StreamAnswerQuery`` sends a sequence of
``AnswerQueryResponse`` messages, each with an ``answer`` in state ``STREAMING``
until the last. Google's guide says the answer "is broken into multiple parts that
are sent in sequence" and that "typically, each response contains one sentence":
each message carries a *delta* of ``answerText``. Nothing public says whether the
citation offsets of a later part count from the start of the whole answer or of
the part, so :func:`merge_answer_chunks` takes ``offsets=``:

- ``"answer"`` (default): offsets already count the whole answer, as they do in
  Gemini streams (measured on recordings) and in every non-streamed ``Answer``;
- ``"chunk"``: offsets count from the start of their own part; they are shifted by
  the UTF-8 length of the text before it.

A part whose ``answerText`` starts with the whole text merged so far is taken as
cumulative (the answer so far, not a delta): it replaces the text and its offsets
count the whole answer whatever ``offsets`` says. References work the same way: a
part whose references start with those merged so far replaces them; otherwise its
references are appended and its ``referenceId`` values shifted to match.

>>> merged = merge_answer_chunks([
...     {"answer": {"state": "STREAMING", "answerText": "Köln liegt am Rhein. "}},
...     {"answer": {"state": "SUCCEEDED", "answerText": "東京は首都です。",
...                 "citations": [{"endIndex": "24", "sources": [{"referenceId": "0"}]}],
...                 "references": [{"chunkInfo": {"content": "東京"}}]}},
... ], offsets="chunk")
>>> merged["answerText"], merged["state"], merged["citations"][0]["startIndex"]
('Köln liegt am Rhein. 東京は首都です。', 'SUCCEEDED', '22')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from google.protobuf import json_format
from google.protobuf.message import Message

from grounding_protos._core.access import get, items, unwrap
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import ArgumentValueError, StreamError, UnsupportedInputError
from grounding_protos._sources.common import describe, is_record
from grounding_protos._sources.google.answer.reader import is_answer, is_query_response

StreamOffsets = Literal["answer", "chunk"]
_SPAN_LISTS = ("citations", "groundingSupports")
_LAST_WINS = ("name", "state", "steps", "queryUnderstandingInfo", "completeTime",
              "groundingScore")  # fmt: skip
_UNION = ("answerSkippedReasons", "relatedQuestions")


_MESSAGES = frozenset({"Answer", "AnswerQueryResponse"})


def is_chunk(value: object) -> bool:
    """Whether a chunk is part of a streamed Discovery Engine answer (an
    ``AnswerQueryResponse`` or an ``Answer``), not a ``generateContent`` chunk."""
    if isinstance(value, (str, bytes, bytearray)):
        return False  # JSON text of a chunk: decoded by the Gemini path, which says so
    value = unwrap(value)
    if isinstance(value, Message):
        name = value.DESCRIPTOR.full_name
        return name.startswith("google.cloud.discoveryengine.") and (
            name.rpartition(".")[2] in _MESSAGES
        )
    return is_query_response(value) or is_answer(value)


def merge_numbered(events: Iterable[tuple[int, object]]) -> tuple[dict[str, Any], list[Problem]]:
    """The ``Answer`` a ``:streamAnswer`` stream's numbered chunks merge into (each chunk
    a delta of the text, :func:`merge_answer_chunks`), with ``stream-incomplete`` when
    the last chunk's state is not final.

    Raises:
        StreamError: a chunk that is not part of a streamed answer, naming its number.
    """
    chunks: list[object] = []
    for number, value in events:
        if not is_chunk(value):
            raise StreamError("not a part of a streamed Discovery Engine answer", event=number)
        chunks.append(value)
    merged = merge_answer_chunks(chunks)
    state = merged.get("state")
    problems = []
    if state in (None, "STREAMING", "IN_PROGRESS", "STATE_UNSPECIFIED"):
        problems.append(
            Problem(
                "stream-incomplete",
                f"the stream ended after {len(chunks)} answers, the last in state "
                f"{state or 'STATE_UNSPECIFIED'} (interrupted?): the text and citations are "
                "those that arrived",
                "answer.state",
            )
        )
    return merged, problems


def merge_answer_chunks(
    chunks: Iterable[object], *, offsets: StreamOffsets = "answer"
) -> dict[str, Any]:
    """One ``Answer`` (a proto3 JSON dict) from the parts of a streamed answer.

    ``chunks`` are ``AnswerQueryResponse`` or ``Answer`` values: REST JSON dicts,
    our messages or the official client's (proto-plus or raw). The result is what
    ``citations.read`` takes like any answer.

    Raises:
        UnsupportedInputError: a chunk is neither an ``AnswerQueryResponse`` nor an
            ``Answer``.
        ArgumentValueError: ``offsets`` is not ``"answer"`` or ``"chunk"``.
    """
    if offsets not in ("answer", "chunk"):
        raise ArgumentValueError(f"offsets must be 'answer' or 'chunk', not {offsets!r}")
    merged: dict[str, Any] = {}
    text = ""
    references: list[Any] = []
    for position, chunk in enumerate(chunks):
        answer = _answer_of(chunk, position)
        part = get(answer, "answer_text")
        part = part if isinstance(part, str) else ""
        cumulative = bool(text) and part.startswith(text)
        shift = 0 if cumulative or offsets == "answer" else len(text.encode("utf-8"))
        text = part if cumulative else text + part
        part_references = list(items(answer, "references"))
        id_shift = 0
        if part_references:
            if part_references[: len(references)] == references:
                references = part_references
            else:
                id_shift = len(references)
                references = references + part_references
        for name in _SPAN_LISTS:
            spans = [_moved(s, shift, id_shift) for s in items(answer, name)]
            if spans:
                merged.setdefault(name, []).extend(spans)
        for name in _LAST_WINS:
            value = get(answer, name)
            if value not in (None, "", [], {}):
                merged[name] = value  # not copied: nothing below changes it
        for name in _UNION:
            for value in items(answer, name):
                if value not in merged.setdefault(name, []):
                    merged[name].append(value)
        created = get(answer, "create_time")
        if created is not None and "createTime" not in merged:
            merged["createTime"] = created
    if text:
        merged["answerText"] = text
    if references:
        merged["references"] = list(references)
    return {k: v for k, v in merged.items() if v != []}


def _answer_of(chunk: object, position: int) -> Mapping[str, Any]:
    """The ``Answer`` of one chunk, as a JSON dict."""
    chunk = unwrap(chunk)
    if isinstance(chunk, Message):
        chunk = json_format.MessageToDict(chunk)
    if isinstance(chunk, Mapping):
        inner = get(chunk, "answer")
        if is_record(inner):
            return dict(inner)
        if any(get(chunk, n) is not None for n in ("answer_text", "state", "citations")):
            return chunk
    raise UnsupportedInputError(
        f"chunk {position} of a streamed answer is {describe(chunk)}, not an "
        "AnswerQueryResponse or an Answer"
    )


def _moved(span: object, shift: int, id_shift: int) -> object:
    """A copy of a citation or grounding support with offsets and reference ids shifted.

    Only what changes is copied (the span and its sources, one level each): a deep
    copy of the whole span recursed once per level of any value nested in it.
    """
    if not isinstance(span, Mapping):
        return span
    out = dict(span)
    if id_shift and isinstance(out.get("sources"), list):
        out["sources"] = [dict(s) if isinstance(s, Mapping) else s for s in out["sources"]]
    for key in ("startIndex", "start_index", "endIndex", "end_index"):
        if shift and key in out:
            out[key] = _plus(out[key], shift)
    if shift and not any(k in out for k in ("startIndex", "start_index")):
        out["startIndex"] = _plus("0", shift)  # proto3 JSON omitted a start of 0
    for source in out.get("sources", []) if isinstance(out.get("sources"), list) else []:
        for key in ("referenceId", "reference_id"):
            if id_shift and isinstance(source, dict) and key in source:
                source[key] = _plus(source[key], id_shift)
    return out


def _plus(value: object, shift: int) -> object:
    """``value + shift`` keeping the JSON spelling (int64 as a string); anything that is
    not an integer unchanged (``read`` reports it)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value + shift
    if isinstance(value, str) and value.isascii() and value.isdecimal():
        return str(int(value) + shift)
    return value
