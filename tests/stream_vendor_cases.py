"""Hand-made final responses of Anthropic, Cohere and Bedrock, and the streams that send
them, cut where the caller says (the streams' event order and fields as the vendors
document them and their SDKs accumulate them).

Each final response has multi-script text with astral characters (emoji) before the
citations, several text blocks, and a tool call between text blocks. ``*_events(final,
cuts)`` cut each text into pieces at the given fractions, so a Hypothesis property can
cut anywhere.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

Json = dict[str, Any]

TEXTS = (
    "Grüße 👋🏽 aus Köln! ",
    "東京タワーは高さ333m🗼です。",
    " 서울은 크다 🇰🇷, ",
    "والقاهرة كبيرة 🐪.",
)


def pieces(text: str, cuts: Sequence[float]) -> list[str]:
    """``text`` cut at the fractions ``cuts`` (never inside a code point)."""
    at = sorted({round(c * len(text)) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(at)] or [""]


# --- Anthropic ----------------------------------------------------------------------------


def anthropic_final() -> Json:
    return {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [
            {"type": "text", "text": TEXTS[0]},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
             "input": {"query": "Tokyo Tower höhe"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "url": "https://tower.example/jp",
                 "title": "東京タワー", "encrypted_content": "EqgC", "page_age": None}]},
            {"type": "text", "text": TEXTS[1], "citations": [
                {"type": "web_search_result_location", "url": "https://tower.example/jp",
                 "title": "東京タワー", "encrypted_index": "Eo8B",
                 "cited_text": "東京タワーの高さは333メートル"}]},
            {"type": "tool_use", "id": "toolu_2", "name": "lookup",
             "input": {"city": "서울", "n": 2}},
            {"type": "text", "text": TEXTS[2]},
            {"type": "text", "text": TEXTS[3], "citations": [
                {"type": "char_location", "cited_text": "Kairo ist groß.", "document_index": 0,
                 "document_title": "Städte 🌍", "start_char_index": 4, "end_char_index": 19},
                {"type": "page_location", "cited_text": "القاهرة", "document_index": 1,
                 "document_title": "كتاب", "start_page_number": 2, "end_page_number": 4}]},
        ],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 70},
    }  # fmt: skip


def anthropic_events(final: Json, cuts: Sequence[float] = (0.5,)) -> list[Json]:
    """The events of ``final`` as the Messages API streams it."""
    start = {k: v for k, v in final.items() if k not in ("content", "stop_reason")}
    start.update(content=[], stop_reason=None, usage={"input_tokens": 50, "output_tokens": 1})
    out: list[Json] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for i, block in enumerate(final["content"]):
        kind = block["type"]
        if kind == "text":
            first: Json = {"type": "text", "text": ""}
            if "citations" in block:
                first["citations"] = []
            out.append({"type": "content_block_start", "index": i, "content_block": first})
            for citation in block.get("citations") or ():
                out.append(
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "citations_delta", "citation": citation},
                    }
                )
            for piece in pieces(block["text"], cuts):
                out.append(
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "text_delta", "text": piece},
                    }
                )
        elif kind in ("tool_use", "server_tool_use"):
            out.append(
                {"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}}
            )
            for piece in pieces(json.dumps(block["input"], ensure_ascii=False), cuts):
                out.append(
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    }
                )
        else:  # web_search_tool_result: whole in its start
            out.append({"type": "content_block_start", "index": i, "content_block": block})
        out.append({"type": "content_block_stop", "index": i})
    out.append(
        {
            "type": "message_delta",
            "usage": {"output_tokens": 70},
            "delta": {"stop_reason": final["stop_reason"], "stop_sequence": None},
        }
    )
    out.append({"type": "message_stop"})
    return out  # fmt: skip


def sse(events: Sequence[Json], *, name: bool = True, done: bool = False) -> str:
    """Events as SSE text (``event:`` lines named as the data's ``type``)."""
    lines = []
    for event in events:
        head = f"event: {event['type']}\n" if name else ""
        lines.append(f"{head}data: {json.dumps(event, ensure_ascii=False)}\n\n")
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines)


# --- Cohere -------------------------------------------------------------------------------


def cohere_final() -> Json:
    text0, text1 = TEXTS[0] + TEXTS[1], TEXTS[2] + TEXTS[3]
    a = text0.index("東京")
    b = text1.index("القاهرة")
    return {
        "id": "c-1", "finish_reason": "COMPLETE",
        "message": {
            "role": "assistant",
            "tool_plan": "Ich suche 🔎 zuerst.",
            "tool_calls": [{"id": "call_1", "type": "function",
                            "function": {"name": "search", "arguments": '{"q": "東京"}'}}],
            "content": [{"type": "text", "text": text0}, {"type": "text", "text": text1}],
            "citations": [
                {"start": a, "end": a + 5, "text": "東京タワー", "type": "TEXT_CONTENT",
                 "content_index": 0, "sources": [{"type": "document", "id": "doc:0",
                                                  "document": {"title": "塔", "id": "d0"}}]},
                {"start": b, "end": b + 7, "text": "القاهرة", "type": "TEXT_CONTENT",
                 "content_index": 1, "sources": [{"type": "tool", "id": "call_1:0",
                                                  "tool_output": {"city": "Kairo"}}]},
            ],
        },
        "usage": {"billed_units": {"input_tokens": 9, "output_tokens": 30}},
    }  # fmt: skip


def cohere_events(final: Json, cuts: Sequence[float] = (0.5,)) -> list[Json]:
    """The events of ``final`` as the v2 chat API streams it."""
    message = final["message"]
    out: list[Json] = [
        {"type": "message-start", "id": final["id"], "delta": {"message": {"role": "assistant"}}}
    ]
    for piece in pieces(message.get("tool_plan", ""), cuts):
        out.append({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": piece}}})
    for i, call in enumerate(message.get("tool_calls", ())):
        function = call["function"]
        head = {**call, "function": {"name": function["name"], "arguments": ""}}
        out.append(
            {"type": "tool-call-start", "index": i, "delta": {"message": {"tool_calls": head}}}
        )
        for piece in pieces(function["arguments"], cuts):
            out.append(
                {
                    "type": "tool-call-delta",
                    "index": i,
                    "delta": {"message": {"tool_calls": {"function": {"arguments": piece}}}},
                }
            )
        out.append({"type": "tool-call-end", "index": i})
    for i, item in enumerate(message["content"]):
        out.append(
            {
                "type": "content-start",
                "index": i,
                "delta": {"message": {"content": {"type": "text", "text": ""}}},
            }
        )
        for piece in pieces(item["text"], cuts):
            out.append(
                {
                    "type": "content-delta",
                    "index": i,
                    "delta": {"message": {"content": {"text": piece}}},
                }
            )
        out.append({"type": "content-end", "index": i})
    for i, citation in enumerate(message.get("citations", ())):
        out.append(
            {"type": "citation-start", "index": i, "delta": {"message": {"citations": citation}}}
        )
        out.append({"type": "citation-end", "index": i})
    out.append(
        {
            "type": "message-end",
            "delta": {"finish_reason": final["finish_reason"], "usage": final["usage"]},
        }
    )
    return out  # fmt: skip


# --- Bedrock Converse ---------------------------------------------------------------------


def bedrock_final() -> Json:
    return {
        "output": {"message": {"role": "assistant", "content": [
            {"text": TEXTS[0]},
            {"citationsContent": {"content": [{"text": TEXTS[1]}], "citations": [
                {"title": "Turm", "source": "turm.pdf",
                 "sourceContent": [{"text": "Der Turm ist 333 m hoch."}],
                 "location": {"documentChar": {"documentIndex": 0, "start": 10, "end": 34}}},
                {"title": "Tower", "sourceContent": [{"text": "333 m"}],
                 "location": {"web": {"url": "https://tower.example/", "domain": "tower.example"}}},
            ]}},
            {"toolUse": {"toolUseId": "t1", "name": "lookup", "input": {"city": "서울"}}},
            {"text": TEXTS[2]},
            {"citationsContent": {"content": [{"text": TEXTS[3]}], "citations": [
                {"title": "كتاب", "source": "kitab.pdf", "sourceContent": [{"text": "القاهرة"}],
                 "location": {"documentPage": {"documentIndex": 1, "start": 2, "end": 3}}},
                {"title": "Chunks", "sourceContent": [{"text": "Kairo"}],
                 "location": {"documentChunk": {"documentIndex": 2, "start": 0, "end": 1}}},
                {"title": "Suche", "source": "search", "sourceContent": [{"text": "groß"}],
                 "location": {"searchResultLocation": {"searchResultIndex": 0, "start": 1,
                                                       "end": 2}}},
            ]}},
        ]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 20, "outputTokens": 40, "totalTokens": 60},
        "metrics": {"latencyMs": 900},
    }  # fmt: skip


def bedrock_events(final: Json, cuts: Sequence[float] = (0.5,)) -> list[Json]:
    """The event dicts boto3's ``converse_stream()["stream"]`` yields for ``final``."""
    out: list[Json] = [{"messageStart": {"role": "assistant"}}]
    for i, block in enumerate(final["output"]["message"]["content"]):
        if "toolUse" in block:
            tool = block["toolUse"]
            start = {"toolUseId": tool["toolUseId"], "name": tool["name"]}
            out.append({"contentBlockStart": {"start": {"toolUse": start}, "contentBlockIndex": i}})
            for piece in pieces(json.dumps(tool["input"], ensure_ascii=False), cuts):
                out.append(
                    {
                        "contentBlockDelta": {
                            "delta": {"toolUse": {"input": piece}},
                            "contentBlockIndex": i,
                        }
                    }
                )
        else:
            cited = block.get("citationsContent")
            text = cited["content"][0]["text"] if cited else block["text"]
            for piece in pieces(text, cuts):
                out.append(
                    {"contentBlockDelta": {"delta": {"text": piece}, "contentBlockIndex": i}}
                )
            for citation in cited["citations"] if cited else ():
                out.append(
                    {"contentBlockDelta": {"delta": {"citation": citation}, "contentBlockIndex": i}}
                )
        out.append({"contentBlockStop": {"contentBlockIndex": i}})
    out.append({"messageStop": {"stopReason": final["stopReason"]}})
    out.append({"metadata": {"usage": final["usage"], "metrics": final["metrics"]}})
    return out  # fmt: skip
