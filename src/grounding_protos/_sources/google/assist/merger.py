"""Merging a streamed assistant answer (Discovery Engine ``streamAssist``) into one
``AssistAnswer``.

``AssistantService.StreamAssist`` sends ``StreamAssistResponse`` messages. Its proto
(``assistant_service.proto``) says: while the answer's state is ``IN_PROGRESS``, "the
``AssistAnswer.replies`` field in each response will contain replies (reply
fragments) to be appended to the ones received in previous responses"; a response
that adds nothing has no ``answer``; the last one has the final state
(``SUCCEEDED``, ``FAILED`` or ``SKIPPED``) and the answer's ``name``. So, as a
``:streamAnswer`` is merged: replies are appended in order (unless by the rule of
``docs/streams.md`` every response's replies repeat the ones before and add to them:
then the last response's replies are the answer's, with a ``stream-cumulative``
problem),
``state`` and ``name`` come from the last response that has them, skipped reasons
are united, and the merged answer is read as a whole one. A stream that ends in
state ``IN_PROGRESS`` (or none) is ``stream-incomplete``.

>>> merged, problems = merge_assist_chunks([
...     (1, {"answer": {"state": "IN_PROGRESS", "replies": [
...         {"groundedContent": {"content": {"text": "Köln "}}}]}, "assistToken": "t"}),
...     (2, {"sessionInfo": {"session": "s/1"}}),
...     (3, {"answer": {"state": "SUCCEEDED", "name": "a/assistAnswers/1", "replies": [
...         {"groundedContent": {"content": {"text": "liegt am Rhein 🌊."}}}]}}),
... ])
>>> [r["groundedContent"]["content"]["text"] for r in merged["answer"]["replies"]], problems
(['Köln ', 'liegt am Rhein 🌊.'], [])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from grounding_protos._core.access import get, unwrap
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._sources.common import describe
from grounding_protos._sources.google.assist.reader import is_assist_answer, is_assist_response
from grounding_protos._sources.merging import cumulative, cumulative_problem, items_of


def is_chunk(value: object) -> bool:
    """Whether a stream's chunk is a ``StreamAssistResponse`` (or an ``AssistAnswer``)."""
    value = unwrap(value)
    if isinstance(value, (str, bytes, bytearray)):
        return False
    return is_assist_response(value) or is_assist_answer(value)


_RESPONSE_KEYS = ("sessionInfo", "session_info", "assistToken", "assist_token")


def _adds_nothing(value: Mapping[Any, Any]) -> bool:
    """A response of the stream without an ``answer`` (it adds no reply): only session
    information and the assist token."""
    return bool(value) and all(key in _RESPONSE_KEYS for key in value)


def _json(value: object) -> Any:
    value = unwrap(value)
    if isinstance(value, Message):
        return json_format.MessageToDict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(exclude_none=True)
    return value


def merge_assist_chunks(
    events: Iterable[tuple[int, object]],
) -> tuple[dict[str, Any], list[Problem]]:
    """The ``StreamAssistResponse`` (REST JSON) a stream's numbered responses add up to,
    its ``answer`` holding every reply, and what merging found (``stream-incomplete``).

    Raises:
        StreamError: a chunk that is not a ``StreamAssistResponse``.
    """
    parts: list[list[Any]] = []  # each response's replies
    answer: dict[str, Any] = {}
    response: dict[str, Any] = {}
    reasons: list[Any] = []
    count = 0
    for number, chunk in events:
        count += 1
        value = _json(chunk)
        if not isinstance(value, Mapping) or not (is_chunk(value) or _adds_nothing(value)):
            raise StreamError(
                f"not a part of a streamed assist answer: {describe(value)}", event=number
            )
        inner = get(value, "answer")
        if inner is None and is_assist_answer(value):
            inner = value  # a bare AssistAnswer
        else:
            for key in _RESPONSE_KEYS:
                if value.get(key) not in (None, "", {}):
                    response[key] = value[key]
        if inner is None:
            continue
        parts.append(items_of(inner, "replies", number=number, at="answer"))
        for key, item in inner.items():
            if key in ("replies",):
                continue
            if key in ("assistSkippedReasons", "assist_skipped_reasons"):
                reasons += [r for r in item if r not in reasons] if isinstance(item, list) else []
            elif item not in (None, "", [], {}):
                answer[key] = item
    if reasons:
        answer["assistSkippedReasons"] = reasons
    problems = []
    if cumulative(parts):
        answer["replies"] = next(p for p in reversed(parts) if p)
        problems.append(cumulative_problem(sum(map(bool, parts)), "replies", "answer.replies"))
    else:
        answer["replies"] = [reply for part in parts for reply in part]
    state = get(answer, "state")
    if state in (None, "IN_PROGRESS", "STATE_UNSPECIFIED"):
        problems.append(
            Problem(
                "stream-incomplete",
                f"the stream ended after {count} responses, the answer in state "
                f"{state or 'STATE_UNSPECIFIED'} (interrupted?): the text and citations are "
                "those that arrived",
                "answer.state",
            )
        )
    return {**response, "answer": answer}, problems
