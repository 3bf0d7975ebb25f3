"""Merging an Amazon Bedrock Agents ``InvokeAgent`` stream into the one ``chunk`` event
its answer adds up to.

boto3's ``invoke_agent(...)["completion"]`` yields one dict per event, each with one
key: ``chunk`` (``bytes``: a piece of the answer's UTF-8 text, ``attribution.citations``:
citation records as ``RetrieveAndGenerate``'s), ``trace`` (the agent's steps, with
``enableTrace``), ``returnControl`` (the agent asks the caller to run an action),
``files``, or one of the stream's exceptions. The chunks' bytes are joined (a character
may be split between two chunks) and their citations kept in order: one ``chunk`` event
holding the whole answer, as ``InvokeAgent`` sends it without ``streamFinalResponse``.
The citations' spans are taken to count the whole answer ("where the text with a
citation begins and ends in the generated output", AWS's API reference; not settled
by a recording of several chunks). The stream has no end event; a stream without a
``chunk`` holds no answer (a ``StreamError``, never an empty answer).

>>> merged, problems = merge_numbered(enumerate([
...     {"trace": {"agentId": "A1", "trace": {}}},
...     {"chunk": {"bytes": "東京".encode()[:4]}},
...     {"chunk": {"bytes": "東京".encode()[4:] + " 🗼".encode()}}], 1))
>>> merged["chunk"]["bytes"].decode(), problems
('東京 🗼', [])
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from typing import Any

from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._sources.bedrock import checks
from grounding_protos._sources.bedrock.eventstream import AwsStream
from grounding_protos._sources.bedrock.retrieve_and_generate_stream import (
    EXCEPTIONS,
    raise_exception,
)
from grounding_protos._sources.common import describe
from grounding_protos._sources.merging import OneAnswerMerger, field, merge_with

_EVENTS = frozenset({"chunk", "trace", "returnControl", "files"})
EVENTSTREAM = AwsStream(
    "bedrock-agent-runtime", "InvokeAgent", "completion", _EVENTS, ("PayloadPart", "attribution")
)
"""The raw event stream's operation (its parser drops the fields its model lacks)."""


def is_event(value: object) -> bool:
    """Whether a stream's first event is an ``InvokeAgent`` stream's (boto3's dicts): one
    key, ``chunk`` with ``bytes`` or ``attribution``, ``trace`` with its ``trace``,
    ``returnControl`` with ``invocationId``/``invocationInputs``, ``files`` with ``files``."""
    if not isinstance(value, Mapping) or len(value) != 1:
        return False
    ((kind, body),) = value.items()
    if not isinstance(body, Mapping):
        return False
    if kind == "chunk":
        return "bytes" in body or "attribution" in body
    if kind == "trace":
        return "trace" in body
    if kind == "returnControl":
        return "invocationId" in body or "invocationInputs" in body
    return kind == "files" and "files" in body


class InvokeAgentMerger(OneAnswerMerger):
    """The one ``chunk`` event of an ``InvokeAgent`` stream, event by event."""

    fast = True
    """Whether plain dict events of the common kind take their own path (the
    differential test turns it off to compare them with the general code)."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.citations: list[Mapping[str, Any]] = []
        self.chunks = 0
        self.events = 0
        self.stopped = False  # the stream has no end event
        self._decoder = codecs.getincrementaldecoder("utf-8")()

    def _add(self, number: int, value: object) -> str:
        """Merge event ``number``; the answer text it adds.

        Raises:
            StreamError: an exception event, an event of another stream, a field of the
                wrong JSON type, bytes that are not UTF-8.
        """
        self.events += 1
        if self.fast and type(value) is dict and len(value) == 1:  # the common event
            body = value.get("chunk")
            if type(body) is dict and len(body) == 1:
                data = body.get("bytes")
                if type(data) is bytes:
                    self.chunks += 1
                    return self._text(number, data)
        if not isinstance(value, Mapping) or len(value) != 1:
            raise StreamError(f"not a part of an InvokeAgent stream: {describe(value)}",
                              event=number)  # fmt: skip
        ((kind, body),) = value.items()
        if kind in EXCEPTIONS:
            raise_exception(number, kind, body)
        if kind not in _EVENTS:
            raise StreamError(f"not a part of an InvokeAgent stream: {describe(value)}",
                              event=number)  # fmt: skip
        body = checks.record(number, body, kind)
        if kind != "chunk":
            return ""  # the agent's steps, a return of control, files: no answer text
        self.chunks += 1
        data = field(body, "bytes", bytes, number=number, at="chunk")
        attribution = field(body, "attribution", dict, number=number, at="chunk")
        if attribution is not None:
            found = field(attribution, "citations", list, number=number, at="chunk.attribution")
            for j, citation in enumerate(found or ()):
                where = f"chunk.attribution.citations[{j}]"
                self.citations.append(checks.citation(number, citation, where))
        return self._text(number, bytes(data)) if data else ""

    def _text(self, number: int, data: bytes) -> str:
        """The answer text a chunk's ``data`` completes (a character split between
        chunks comes with the chunk that ends it).

        Raises:
            StreamError: the bytes are not UTF-8.
        """
        pending = self._decoder.getstate()[0]  # the bytes of a character split before
        try:
            text: str = self._decoder.decode(data)
        except UnicodeDecodeError as exc:
            at = len(self.data) - len(pending) + exc.start
            raise StreamError(f"chunk.bytes is not UTF-8 at byte {max(at, 0)} of the answer",
                              event=number) from exc  # fmt: skip
        self.data += data
        return text

    def result(self) -> tuple[dict[str, Any], list[Problem]]:
        """The merged ``chunk`` event (boto3's dict) and what merging found.

        Raises:
            StreamError: no ``chunk`` came (no answer: only the agent's steps, or a
                return of control to the caller).
        """
        if not self.chunks:
            raise StreamError(
                f"the InvokeAgent stream holds no chunk in {self.events} events: no answer "
                "(only the agent's trace, or control returned to the caller)"
            )
        data, problems = bytes(self.data), []
        cut = len(self._decoder.getstate()[0])
        if cut:  # the stream ended inside a character
            data = data[:-cut]
            problems.append(Problem(
                "stream-incomplete",
                f"the answer's bytes end inside a character after {self.events} events "
                f"(interrupted?): its last {cut} bytes are left out",
                "chunk.bytes",
            ))  # fmt: skip
        chunk: dict[str, Any] = {"bytes": data}
        if self.citations:
            chunk["attribution"] = {"citations": list(self.citations)}
        return {"chunk": chunk}, problems


merge_numbered = merge_with(InvokeAgentMerger)
"""The merged ``chunk`` of numbered events, and what merging found."""
