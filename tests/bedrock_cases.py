"""Hand-made Amazon Bedrock answers of the shapes found on recordings (issue #32) and in
AWS's API reference (botocore's ``bedrock-runtime`` and ``bedrock-agent-runtime``
service models), and the streams that send them, cut where the caller says.

- Nova web grounding on Converse (recordings): ``citationsContent`` blocks **without**
  ``content``, each right after the text block it cites; streamed, such a block holds
  only citation deltas.
- RetrieveAndGenerate (recordings: ``span.end`` inclusive) and its stream (the one
  recording: ``output`` text pieces, then ``citation`` events whose ``span.end`` is
  *exclusive*).
- InvokeAgent (the API reference; attribution ``span.end`` inclusive, as
  RetrieveAndGenerate's): ``chunk`` events, ``bytes`` a piece of the answer's UTF-8
  text (cut anywhere here, even inside a character), ``attribution.citations`` the
  RetrieveAndGenerate records; ``trace`` events before them.

Every text has German, Japanese, Korean, Arabic and astral characters (emoji) before its
cited spans; the spans' offsets are computed here by ``str.index`` (code points).
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Sequence
from typing import Any

from tests.stream_vendor_cases import pieces
from tests.test_vendors_stream import eventstream_message

Json = dict[str, Any]

TEXTS = (
    "Grüße 👋🏽 aus Köln! ",
    "東京タワーは高さ333m🗼です。",
    " 서울은 크다 🇰🇷, ",
    "والقاهرة كبيرة 🐪.",
)
CITED = ("東京タワー", "القاهرة كبيرة")  # the parts the citations of the agents runtime cite


# --- Nova on Converse -------------------------------------------------------------------------


def nova_final(texts: Sequence[str] = TEXTS) -> Json:
    """A Converse response as Nova's web grounding sends it: text blocks, each cited
    one followed by content-less ``citationsContent`` blocks (the last text block cited
    by two of them), and one such block right after a tool call (no text to cite)."""
    domains = ("koeln.example", "東京.example", "서울.example", "القاهرة.example")
    web = [{"location": {"web": {"url": f"https://{d}/", "domain": d}}} for d in domains]
    return {
        "output": {"message": {"role": "assistant", "content": [
            {"text": texts[0]},
            {"citationsContent": {"citations": [web[0]]}},
            {"text": texts[1]},
            {"citationsContent": {"citations": [web[1], web[0]]}},
            {"toolUse": {"toolUseId": "t1", "name": "search", "input": {"q": "서울"}}},
            {"citationsContent": {"citations": [web[2]]}},
            {"text": texts[2]},
            {"text": texts[3]},
            {"citationsContent": {"citations": [web[3]]}},
            {"citationsContent": {"citations": [{"title": "Kairo 🐪", **web[3]}]}},
        ]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 12, "outputTokens": 34, "totalTokens": 46},
        "metrics": {"latencyMs": 700},
    }  # fmt: skip


def converse_events(final: Json, cuts: Sequence[float] = (0.5,)) -> list[Json]:
    """The event dicts boto3's ``converse_stream()["stream"]`` yields for ``final``: a
    content-less ``citationsContent`` block's citations as deltas of a block of its own."""
    out: list[Json] = [{"messageStart": {"role": "assistant"}}]
    for i, block in enumerate(final["output"]["message"]["content"]):
        if "toolUse" in block:
            tool = block["toolUse"]
            start = {"toolUseId": tool["toolUseId"], "name": tool["name"]}
            out.append({"contentBlockStart": {"start": {"toolUse": start}, "contentBlockIndex": i}})
            for piece in pieces(json.dumps(tool["input"], ensure_ascii=False), cuts):
                out.append({"contentBlockDelta": {"delta": {"toolUse": {"input": piece}},
                                                  "contentBlockIndex": i}})  # fmt: skip
        else:
            cited = block.get("citationsContent")
            text = (
                "".join(c["text"] for c in cited.get("content") or ()) if cited else block["text"]
            )
            for piece in pieces(text, cuts) if text else ():
                out.append({"contentBlockDelta": {"delta": {"text": piece},
                                                  "contentBlockIndex": i}})  # fmt: skip
            for citation in cited["citations"] if cited else ():
                out.append({"contentBlockDelta": {"delta": {"citation": citation},
                                                  "contentBlockIndex": i}})  # fmt: skip
        out.append({"contentBlockStop": {"contentBlockIndex": i}})
    out.append({"messageStop": {"stopReason": final["stopReason"]}})
    if "usage" in final:
        out.append({"metadata": {"usage": final["usage"], "metrics": final["metrics"]}})
    return out


# --- The Agents runtime: RetrieveAndGenerate and InvokeAgent -------------------------------


def _citations(text: str, cited: Sequence[str]) -> list[Json]:
    """One citation record per cited part, ``span.end`` inclusive (the whole response's)."""
    out = []
    at = 0
    for n, part in enumerate(cited):
        start = text.index(part, at)  # the parts in order, as the vendor sends them
        at = start + len(part)
        out.append({
            "generatedResponsePart": {"textResponsePart": {
                "text": part, "span": {"start": start, "end": start + len(part) - 1}}},
            "retrievedReferences": [
                {"content": {"text": f"Quelle {n} über {part} 📚", "type": "TEXT"},
                 "location": {"type": "S3", "s3Location": {"uri": f"s3://kb/doc{n}.pdf"}},
                 "metadata": {"x-amz-bedrock-kb-source-uri": f"s3://kb/doc{n}.pdf",
                              "x-amz-bedrock-kb-chunk-id": f"chunk-{n}"}},
                {"content": {"text": "مصدر على الويب"},
                 "location": {"type": "WEB", "webLocation": {"url": f"https://w{n}.example/"}}},
            ],
        })  # fmt: skip
    return out


def rag_final(texts: Sequence[str] = TEXTS, cited: Sequence[str] = CITED) -> Json:
    """A RetrieveAndGenerate response (boto3's dict)."""
    text = "".join(texts)
    return {"sessionId": "s-1", "output": {"text": text},
            "citations": _citations(text, cited), "guardrailAction": "NONE"}  # fmt: skip


def rag_events(final: Json, cuts: Sequence[float] = (0.5,)) -> list[Json]:
    """The event dicts of ``retrieve_and_generate_stream()["stream"]`` for ``final``: the
    text in ``output`` pieces, each ``citation`` event as soon as its part's text has
    arrived, its ``span.end`` exclusive (the stream recording), the guardrail last."""
    text = final["output"]["text"]
    ends = sorted(((c["generatedResponsePart"]["textResponsePart"]["span"]["end"] + 1, c)
                   for c in final["citations"]), key=lambda pair: pair[0])  # fmt: skip
    out: list[Json] = []
    at = 0
    for piece in pieces(text, cuts):
        out.append({"output": {"text": piece}})
        at += len(piece)
        while ends and ends[0][0] <= at:
            out.append({"citation": _exclusive(ends.pop(0)[1])})
    out.extend({"citation": _exclusive(c)} for _, c in ends)
    if "guardrailAction" in final:
        out.append({"guardrail": {"action": final["guardrailAction"]}})
    return out


def _exclusive(citation: Json) -> Json:
    part = citation["generatedResponsePart"]["textResponsePart"]
    span = {**part["span"], "end": part["span"]["end"] + 1}
    return {**citation, "generatedResponsePart": {"textResponsePart": {**part, "span": span}}}


def agent_final(texts: Sequence[str] = TEXTS, cited: Sequence[str] = CITED) -> Json:
    """An InvokeAgent answer: its one ``chunk`` event (boto3's dict)."""
    text = "".join(texts)
    return {"chunk": {"bytes": text.encode(),
                      "attribution": {"citations": _citations(text, cited)}}}  # fmt: skip


TRACE = {"trace": {
    "agentId": "AGENT1", "agentAliasId": "TSTALIAS", "sessionId": "s-1",
    "agentVersion": "DRAFT",
    "trace": {"orchestrationTrace": {"rationale": {
        "traceId": "t-1", "text": "Ich suche zuerst 🔎 in der Wissensdatenbank."}}},
}}  # fmt: skip


def agent_events(final: Json, cuts: Sequence[float] = (0.5,)) -> list[Json]:
    """The event dicts of ``invoke_agent()["completion"]`` for ``final`` with
    ``streamFinalResponse``: a trace, then the answer's bytes in chunks cut at the byte
    fractions ``cuts`` (inside a character too), each citation in the chunk where its
    part's bytes end."""
    data: bytes = final["chunk"]["bytes"]
    text = data.decode()
    citations = final["chunk"].get("attribution", {}).get("citations", [])
    ends = []
    for citation in citations:
        span = citation["generatedResponsePart"]["textResponsePart"]["span"]
        ends.append(len(text[: span["end"] + 1].encode()))
    at = sorted({round(c * len(data)) for c in cuts} | {0, len(data)})
    out: list[Json] = [TRACE]
    for a, b in itertools.pairwise(at):
        chunk: Json = {"bytes": data[a:b]}
        here = [c for c, end in zip(citations, ends, strict=True) if a < end <= b]
        if here:
            chunk["attribution"] = {"citations": here}
        out.append({"chunk": chunk})
    if len(at) < 2:
        out.append({"chunk": dict(final["chunk"])})
    return out


# --- Raw event-stream bytes ------------------------------------------------------------------

message = eventstream_message
"""One frame, built from AWS's published layout (botocore has no encoder)."""


def wire(events: Sequence[Json]) -> bytes:
    """The raw body that sends ``events`` (boto3's dicts): JSON payloads, a ``blob``
    (``chunk.bytes``) in base64 as AWS's JSON protocol writes it."""
    out = b""
    for event in events:
        ((kind, body),) = event.items()
        if kind == "chunk" and "bytes" in body:
            body = {**body, "bytes": base64.b64encode(body["bytes"]).decode()}
        out += message(
            {":event-type": kind, ":content-type": "application/json", ":message-type": "event"},
            json.dumps(body, ensure_ascii=False).encode(),
        )
    return out


def exception(kind: str, said: str) -> bytes:
    """An exception message of the stream."""
    return message({":exception-type": kind, ":content-type": "application/json",
                    ":message-type": "exception"},
                   json.dumps({"message": said}, ensure_ascii=False).encode())  # fmt: skip
