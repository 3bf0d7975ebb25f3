"""Merging a Bedrock Knowledge Bases ``RetrieveAndGenerateStream`` into the
``RetrieveAndGenerate`` response it adds up to.

boto3's ``retrieve_and_generate_stream(...)["stream"]`` yields one dict per event, each
with one key: ``output`` (``text``: a piece of the answer), ``citation``
(``generatedResponsePart.textResponsePart`` ``{text, span: {start, end}}`` and
``retrievedReferences``, the records of ``RetrieveAndGenerate``'s ``citations``; the
deprecated ``citation`` member holds the same record), ``guardrail`` (``action``), or
one of the stream's exceptions. The pieces are joined into ``output.text``, each citation
event becomes one of ``citations``, and the last guardrail action is
``guardrailAction``. The stream has no end event: an interrupted stream can only be told
by raw bytes cut inside an event.

``span.end``: in the one stream recording it is *exclusive* (``text[start:end]`` is the
part's text), where the non-streamed response's is inclusive; the merged response has
the non-streamed convention (``end - 1``), and its reader checks each span against the
part's ``text``, re-anchoring one whose end says otherwise (with a recorded problem).

>>> merged, problems = merge_numbered(enumerate([
...     {"output": {"text": "Köln 🏙 liegt am "}}, {"output": {"text": "Rhein."}},
...     {"citation": {"generatedResponsePart": {"textResponsePart": {
...         "text": "Rhein", "span": {"start": 16, "end": 21}}},
...         "retrievedReferences": [{"content": {"text": "Der Rhein"}}]}}], 1))
>>> merged["output"]["text"], problems
('Köln 🏙 liegt am Rhein.', [])
>>> merged["citations"][0]["generatedResponsePart"]["textResponsePart"]["span"]
{'start': 16, 'end': 20}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._quote import shown
from grounding_protos._sources.bedrock import checks
from grounding_protos._sources.bedrock.eventstream import AwsStream
from grounding_protos._sources.common import describe
from grounding_protos._sources.merging import OneAnswerMerger, field, merge_with

_EVENTS = frozenset({"output", "citation", "guardrail"})
EXCEPTIONS = frozenset({
    "accessDeniedException", "badGatewayException", "conflictException",
    "dependencyFailedException", "internalServerException", "resourceNotFoundException",
    "serviceQuotaExceededException", "throttlingException", "validationException",
    "modelNotReadyException",
})  # fmt: skip
"""The exceptions the Agents runtime's streams (this one and InvokeAgent's) may send."""
EVENTSTREAM = AwsStream(
    "bedrock-agent-runtime", "RetrieveAndGenerateStream", "stream", _EVENTS,
    ("CitationEvent", "generatedResponsePart"),
)  # fmt: skip
"""The raw event stream's operation (its parser drops the fields its model lacks)."""


def is_event(value: object) -> bool:
    """Whether a stream's first event is a ``RetrieveAndGenerateStream``'s (boto3's dicts):
    one key, ``output`` with a ``text``, or ``citation``/``guardrail`` with an object."""
    if not isinstance(value, Mapping) or len(value) != 1:
        return False
    ((kind, body),) = value.items()
    if kind == "output":
        return isinstance(body, Mapping) and "text" in body and len(body) == 1
    return kind in ("citation", "guardrail") and isinstance(body, Mapping)


def raise_exception(number: int, kind: str, body: object) -> None:
    """Raise the ``StreamError`` of an exception event ``{kind: body}``."""
    said = body.get("message") if isinstance(body, Mapping) else body
    raise StreamError(f"the stream reports an error: {kind}: {shown(said)}", event=number)


class RetrieveAndGenerateMerger(OneAnswerMerger):
    """The ``RetrieveAndGenerate`` response of a ``RetrieveAndGenerateStream``, event by
    event."""

    fast = True
    """Whether plain dict events of the common kind take their own path (the
    differential test turns it off to compare them with the general code)."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.citations: list[dict[str, Any]] = []
        self.guardrail: str | None = None
        self.events = 0
        self.stopped = False  # the stream has no end event

    def _add(self, number: int, value: object) -> str:
        """Merge event ``number``; the answer text it adds.

        Raises:
            StreamError: an exception event, an event of another stream, a field of the
                wrong JSON type.
        """
        self.events += 1
        if self.fast and type(value) is dict and len(value) == 1:  # the common event
            body = value.get("output")
            if type(body) is dict and len(body) == 1:
                text = body.get("text")
                if type(text) is str:
                    self.texts.append(text)
                    return text
        if not isinstance(value, Mapping) or len(value) != 1:
            raise StreamError(
                f"not a part of a RetrieveAndGenerateStream: {describe(value)}", event=number
            )
        ((kind, body),) = value.items()
        if kind in EXCEPTIONS:
            raise_exception(number, kind, body)
        if kind not in _EVENTS:
            raise StreamError(
                f"not a part of a RetrieveAndGenerateStream: {describe(value)}", event=number
            )
        body = checks.record(number, body, kind)
        if kind == "output":
            text = field(body, "text", str, number=number, at="output")
            if text:
                self.texts.append(text)
            return text or ""
        if kind == "guardrail":
            self.guardrail = field(body, "action", str, number=number, at="guardrail")
            return ""
        where, cited = "citation", body
        if (
            "generatedResponsePart" not in body
            and "retrievedReferences" not in body
            and body.get("citation") is not None
        ):  # the deprecated member: the same record
            where, cited = "citation.citation", body["citation"]
        self.citations.append(_inclusive(checks.citation(number, cited, where)))
        return ""

    def result(self) -> tuple[dict[str, Any], list[Problem]]:
        """The merged ``RetrieveAndGenerate`` response (boto3's dict) and what merging found."""
        merged: dict[str, Any] = {"output": {"text": "".join(self.texts)},
                                  "citations": list(self.citations)}  # fmt: skip
        if self.guardrail is not None:
            merged["guardrailAction"] = self.guardrail
        return merged, []


def _inclusive(cited: Mapping[str, Any]) -> dict[str, Any]:
    """A citation record with its span's exclusive end (the stream's) made inclusive
    (the ``RetrieveAndGenerate`` response's); the event's own dicts are not changed."""
    out = {k: v for k, v in cited.items() if k in ("generatedResponsePart",
                                                   "retrievedReferences")}  # fmt: skip
    part: Any = out.get("generatedResponsePart")
    text_part: Any = part.get("textResponsePart") if part is not None else None
    span: Any = text_part.get("span") if text_part is not None else None
    if span is not None and span.get("end") is not None:
        text_part = {**text_part, "span": {**span, "end": span["end"] - 1}}
        out["generatedResponsePart"] = {**part, "textResponsePart": text_part}
    return out


merge_numbered = merge_with(RetrieveAndGenerateMerger)
"""The merged ``RetrieveAndGenerate`` response of numbered events, and what merging found."""
