"""Fixtures of the OpenAI family's streams, built here by hand.

Each vendor has a final response (what the non-streaming API returns: a Responses API
``Response``, a ``ChatCompletion``, a ``thread.message``) and a function that streams
it: the events the vendor sends for it (field names, order and units as OpenAI's API
reference and the openai SDK's types give them), its text cut at the given character
positions. The texts mix scripts and put astral characters (emoji) before the cited
spans, so that byte, UTF-16 and character offsets all differ.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Sequence
from typing import Any

INTRO = "🌉👍🏽 Grüße aus Köln: "
PART_A = "Köln liegt am Rhein ([k.example](https://k.example)). 東京は日本の首都です。"
PART_B = "서울은 한국의 수도입니다 😀. القاهرة عاصمة مصر."
INTRO_B = "Und danach: "


def _span(text: str, piece: str) -> tuple[int, int]:
    start = text.index(piece)
    return start, start + len(piece)


def _url(text: str, piece: str, url: str, title: str) -> dict[str, Any]:
    start, end = _span(text, piece)
    return {"type": "url_citation", "start_index": start, "end_index": end,
            "url": url, "title": title}  # fmt: skip


# --- Responses API ------------------------------------------------------------------------


def responses_final(*, positionless: bool = True) -> dict[str, Any]:
    """A ``Response``: a web search, a message of two text parts, a function call, then
    another message; character offsets per part; a position-less ``url_citation`` (xAI)."""
    text_a = INTRO + PART_A
    text_b = PART_B
    notes_a = [
        _url(text_a, "([k.example](https://k.example))", "https://k.example", "Köln"),
        _url(text_a, "東京は日本の首都です。", "https://t.example", "東京"),
    ]
    notes_b = [_url(text_b, "القاهرة عاصمة مصر", "https://c.example", "القاهرة")]
    if positionless:
        notes_b.append({"type": "url_citation", "url": "https://x.example", "title": "xAI"})
    text_c = INTRO_B + "Seoul 🏙️ ist groß."
    notes_c = [_url(text_c, "Seoul 🏙️ ist groß", "https://s.example", "Seoul")]
    return {
        "id": "resp_1", "object": "response", "created_at": 1.7e9, "status": "completed",
        "model": "gpt-4.1", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": [
            {"id": "ws_1", "type": "web_search_call", "status": "completed",
             "action": {"type": "search", "query": "Köln"}},
            {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
             "content": [
                 {"type": "output_text", "text": text_a, "annotations": notes_a, "logprobs": []},
                 {"type": "output_text", "text": text_b, "annotations": notes_b, "logprobs": []},
             ]},
            {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "weather",
             "arguments": '{"city": "Köln"}', "status": "completed"},
            {"id": "msg_2", "type": "message", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text_c, "annotations": notes_c,
                          "logprobs": []}]},
        ],
    }  # fmt: skip


def _pieces(text: str, cuts: Sequence[int]) -> list[str]:
    points = sorted({c for c in cuts if 0 < c < len(text)})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def responses_events(
    final: dict[str, Any], cuts: Sequence[int] = (7, 30), *, completed: bool = True
) -> list[dict[str, Any]]:
    """The events of a Responses API stream that ends in ``final``."""
    events: list[dict[str, Any]] = []
    head = {k: v for k, v in final.items() if k != "output"}
    events.append({"type": "response.created",
                   "response": {**head, "status": "in_progress", "output": []}})  # fmt: skip
    events.append({"type": "response.in_progress",
                   "response": {**head, "status": "in_progress", "output": []}})  # fmt: skip
    for i, item in enumerate(final["output"]):
        start = copy.deepcopy(item)
        start["status"] = "in_progress"
        if item["type"] == "message":
            start["content"] = []
        if item["type"] == "function_call":
            start["arguments"] = ""
        events.append({"type": "response.output_item.added", "output_index": i, "item": start})
        if item["type"] == "web_search_call":
            for step in ("in_progress", "searching", "completed"):
                events.append({"type": f"response.web_search_call.{step}", "output_index": i,
                               "item_id": item["id"]})  # fmt: skip
        if item["type"] == "function_call":
            for piece in _pieces(item["arguments"], [5]):
                events.append({"type": "response.function_call_arguments.delta",
                               "output_index": i, "item_id": item["id"],
                               "delta": piece})  # fmt: skip
            events.append({"type": "response.function_call_arguments.done", "output_index": i,
                           "item_id": item["id"], "arguments": item["arguments"]})  # fmt: skip
        for j, part in enumerate(item.get("content", [])):
            where = {"item_id": item["id"], "output_index": i, "content_index": j}
            empty = {"type": "output_text", "text": "", "annotations": []}
            events.append({"type": "response.content_part.added", **where, "part": empty})
            for piece in _pieces(part["text"], cuts):
                events.append({"type": "response.output_text.delta", **where, "delta": piece,
                               "logprobs": []})  # fmt: skip
            for k, note in enumerate(part["annotations"]):
                events.append({"type": "response.output_text.annotation.added", **where,
                               "annotation_index": k, "annotation": note})  # fmt: skip
            events.append({"type": "response.output_text.done", **where, "text": part["text"],
                           "logprobs": []})  # fmt: skip
            events.append({"type": "response.content_part.done", **where, "part": part})
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
    if completed:
        events.append({"type": "response.completed", "response": final})
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def deltas_only(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events without what repeats the deltas (``.done`` events, ``response.completed``)."""
    return [e for e in events if not e["type"].endswith(".done")
            and e["type"] != "response.completed"]  # fmt: skip


# --- Chat Completions (OpenAI, OpenRouter) ---------------------------------------------


def chat_final(*, zero_zero: bool = True) -> dict[str, Any]:
    """A ``ChatCompletion`` with ``url_citation`` annotations (and OpenRouter's 0/0 one)."""
    text = INTRO + PART_A + " " + PART_B
    notes = [
        {"type": "url_citation", "url_citation": {k: v for k, v in note.items() if k != "type"}}
        for note in (
            _url(text, "([k.example](https://k.example))", "https://k.example", "Köln"),
            _url(text, "القاهرة عاصمة مصر", "https://c.example", "القاهرة"),
        )
    ]
    if zero_zero:
        notes.append({"type": "url_citation", "url_citation": {
            "url": "https://or.example", "title": "OpenRouter", "start_index": 0,
            "end_index": 0, "content": "Köln …"}})  # fmt: skip
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000,
        "model": "gpt-4o-search-preview",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": text, "annotations": notes}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 40, "total_tokens": 50},
    }  # fmt: skip


def chat_chunks(final: dict[str, Any], cuts: Sequence[int] = (7, 30),
                *, finish: bool = True) -> list[dict[str, Any]]:  # fmt: skip
    """The chunks of a Chat Completions stream that ends in ``final``: the role, the
    content deltas, a tool call in pieces, the annotations, the finish, the usage."""
    head = {"id": final["id"], "object": "chat.completion.chunk", "created": final["created"],
            "model": final["model"]}  # fmt: skip
    message = final["choices"][0]["message"]
    chunks = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                    "finish_reason": None}]}]  # fmt: skip
    for piece in _pieces(message["content"], cuts):
        chunks.append({**head, "choices": [{"index": 0, "delta": {"content": piece},
                                            "finish_reason": None}]})  # fmt: skip
    for call in message.get("tool_calls", []):
        chunks.append({**head, "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": call["id"], "type": "function",
             "function": {"name": call["function"]["name"], "arguments": ""}}]}}]})  # fmt: skip
        for piece in _pieces(call["function"]["arguments"], [4]):
            chunks.append({**head, "choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": piece}}]}}]})  # fmt: skip
    if message.get("annotations"):
        chunks.append({**head, "choices": [{"index": 0, "delta": {
            "annotations": message["annotations"]}, "finish_reason": None}]})  # fmt: skip
    if finish:
        reason = final["choices"][0]["finish_reason"]
        chunks.append({**head, "choices": [{"index": 0, "delta": {},
                                            "finish_reason": reason}]})  # fmt: skip
        chunks.append({**head, "choices": [], "usage": final["usage"]})
    return chunks


# --- Assistants ------------------------------------------------------------------------


def thread_message() -> dict[str, Any]:
    """A completed assistant ``thread.message`` with ``file_citation`` and ``file_path``
    annotations over their markers, in two text parts."""
    text_a = INTRO + "Köln liegt am Rhein【4:0†rhein.pdf】. 東京は首都です【4:1†japan.pdf】。"
    text_b = "서울 😀 [Bericht](sandbox:/mnt/data/bericht.csv)"
    a0 = _span(text_a, "【4:0†rhein.pdf】")
    a1 = _span(text_a, "【4:1†japan.pdf】")
    b0 = _span(text_b, "sandbox:/mnt/data/bericht.csv")
    return {
        "id": "msg_a1", "object": "thread.message", "created_at": 1700000000,
        "thread_id": "thread_1", "run_id": "run_1", "assistant_id": "asst_1",
        "role": "assistant", "status": "completed", "attachments": [], "metadata": {},
        "content": [
            {"type": "text", "text": {"value": text_a, "annotations": [
                {"type": "file_citation", "text": text_a[a0[0]:a0[1]], "start_index": a0[0],
                 "end_index": a0[1], "file_citation": {"file_id": "file-rhein"}},
                {"type": "file_citation", "text": text_a[a1[0]:a1[1]], "start_index": a1[0],
                 "end_index": a1[1], "file_citation": {"file_id": "file-japan"}},
            ]}},
            {"type": "text", "text": {"value": text_b, "annotations": [
                {"type": "file_path", "text": text_b[b0[0]:b0[1]], "start_index": b0[0],
                 "end_index": b0[1], "file_path": {"file_id": "file-csv"}},
            ]}},
        ],
    }  # fmt: skip


def run_events(final: dict[str, Any], cuts: Sequence[int] = (7, 30),
               *, completed: bool = True) -> list[dict[str, Any]]:  # fmt: skip
    """The events of a run stream that writes ``final`` (``{"event", "data"}``)."""
    run = {"id": "run_1", "object": "thread.run", "thread_id": final["thread_id"],
           "assistant_id": "asst_1", "status": "queued", "created_at": 1700000000,
           "instructions": "", "model": "gpt-4o", "parallel_tool_calls": True,
           "tools": [{"type": "file_search"}]}  # fmt: skip
    step = {"id": "step_1", "object": "thread.run.step", "type": "message_creation",
            "assistant_id": "asst_1", "created_at": 1700000000, "run_id": "run_1",
            "thread_id": final["thread_id"], "status": "in_progress",
            "step_details": {"type": "message_creation",
                             "message_creation": {"message_id": final["id"]}}}  # fmt: skip
    events = [
        {"event": "thread.run.created", "data": run},
        {"event": "thread.run.queued", "data": run},
        {"event": "thread.run.in_progress", "data": {**run, "status": "in_progress"}},
        {"event": "thread.run.step.created", "data": step},
    ]  # fmt: skip
    start = {**final, "status": "in_progress", "content": []}
    events.append({"event": "thread.message.created", "data": start})
    events.append({"event": "thread.message.in_progress", "data": start})
    for j, part in enumerate(final["content"]):
        text = part["text"]
        for piece in _pieces(text["value"], cuts):
            events.append({"event": "thread.message.delta", "data": {
                "id": final["id"], "object": "thread.message.delta",
                "delta": {"content": [{"index": j, "type": "text",
                                       "text": {"value": piece}}]}}})  # fmt: skip
        for k, note in enumerate(text["annotations"]):
            events.append({"event": "thread.message.delta", "data": {
                "id": final["id"], "object": "thread.message.delta",
                "delta": {"content": [{"index": j, "type": "text", "text": {
                    "annotations": [{"index": k, **note}]}}]}}})  # fmt: skip
    if completed:
        events.append({"event": "thread.message.completed", "data": final})
        events.append({"event": "thread.run.step.completed",
                       "data": {**step, "status": "completed"}})  # fmt: skip
        events.append({"event": "thread.run.completed", "data": {**run, "status": "completed"}})
    return events


# --- Perplexity ------------------------------------------------------------------------


def perplexity_final() -> dict[str, Any]:
    """A Perplexity chat completion citing by ``[n]`` markers."""
    return {
        "id": "p1", "model": "sonar", "object": "chat.completion", "created": 1700000000,
        "citations": ["https://k.example", "https://t.example"],
        "search_results": [{"title": "Köln", "url": "https://k.example", "date": "2024-05-01"},
                           {"title": "東京", "url": "https://t.example"}],
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant",
            "content": INTRO + "Köln liegt am Rhein[1]. 東京は首都です。[2] 😀 Ende [1][2]."}}],
    }  # fmt: skip


# --- SSE -------------------------------------------------------------------------------


def sse(events: Sequence[dict[str, Any]], *, named: str = "type", done: bool = False,
        comments: bool = False) -> str:  # fmt: skip
    """Events as recorded SSE text: named by their ``type`` (Responses), by the
    ``event`` wrapper (Assistants: the data is the object), or not named (``""``: Chat)."""
    out = []
    for event in events:
        if comments:
            out.append(": OPENROUTER PROCESSING\n\n")
        if named == "type":
            out.append(f"event: {event['type']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n")
        elif named == "event":
            data = json.dumps(event["data"], ensure_ascii=False)
            out.append(f"event: {event['event']}\ndata: {data}\n\n")
        else:
            out.append(f"data: {json.dumps(event, ensure_ascii=False)}\n\n")
    if done:
        out.append("event: done\ndata: [DONE]\n\n" if named == "event" else "data: [DONE]\n\n")
    return "".join(out)
