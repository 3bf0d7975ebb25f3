"""Responses of other vendors, built from their documented shapes (not recordings).

The text puts an emoji ZWJ sequence with a skin tone, accented Latin and Japanese
before the citations, so that bytes, code points and UTF-16 units all differ.
"""

from __future__ import annotations

from typing import Any

PIECES = [
    "👩🏽‍💻 Die Entwicklerin aus Köln ",
    "([köln.example](https://koeln.example/a))",
    " sagt: 東京の夏は暑い。",
    "([tokyo.example](https://tokyo.example/b))",
]
TEXT = "".join(PIECES)
CITED = [PIECES[1], PIECES[3]]
URLS = ["https://koeln.example/a", "https://tokyo.example/b"]


def units(text: str, unit: str) -> int:
    """Length of ``text`` in ``unit`` (the oracle: plain Python encoders)."""
    if unit == "byte":
        return len(text.encode("utf-8"))
    if unit == "utf16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def span(k: int, unit: str = "char") -> tuple[int, int]:
    start = units("".join(PIECES[:k]), unit)
    return start, start + units(PIECES[k], unit)


def char_span(k: int) -> tuple[int, int]:
    return span(k, "char")


# --- OpenAI ---------------------------------------------------------------------------


def openai_response(unit: str = "char") -> dict[str, Any]:
    annotations: list[dict[str, Any]] = []
    for k, url, title in ((1, URLS[0], "Köln: Sommer"), (3, URLS[1], "東京の天気")):
        start, end = span(k, unit)
        annotations.append({"type": "url_citation", "start_index": start, "end_index": end,
                            "url": url, "title": title})  # fmt: skip
    annotations.append({"type": "file_citation", "index": span(2, unit)[1],
                        "file_id": "file-abc", "filename": "bericht_köln.pdf"})  # fmt: skip
    return {
        "id": "resp_1", "object": "response", "created_at": 1700000000, "model": "gpt-x",
        "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto",
        "tools": [], "output": [
            {"type": "web_search_call", "id": "ws_1", "status": "completed",
             "action": {"type": "search", "query": "Köln Sommer"}},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": TEXT, "annotations": annotations,
                          "logprobs": []}]},
        ],
    }  # fmt: skip


def openai_chat_completion() -> dict[str, Any]:
    annotations = [
        {"type": "url_citation", "url_citation": {
            "start_index": span(k)[0], "end_index": span(k)[1], "url": URLS[i],
            "title": f"Quelle {i}"}}
        for i, k in enumerate((1, 3))
    ]  # fmt: skip
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000,
        "model": "gpt-x-search",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": TEXT, "refusal": None,
            "annotations": annotations}}],
    }  # fmt: skip


# --- Anthropic ------------------------------------------------------------------------


def anthropic_message() -> dict[str, Any]:
    return {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-x",
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 20},
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
             "input": {"query": "Köln"}},
            {"type": "text", "text": PIECES[0]},
            {"type": "text", "text": PIECES[1], "citations": [
                {"type": "char_location", "cited_text": "Köln ist heiß.", "document_index": 0,
                 "document_title": "Bericht Köln", "start_char_index": 12,
                 "end_char_index": 26},
                {"type": "web_search_result_location", "cited_text": "Hitze in Köln",
                 "url": URLS[0], "title": "Köln: Sommer", "encrypted_index": "abc"}]},
            {"type": "text", "text": PIECES[2]},
            {"type": "text", "text": PIECES[3], "citations": [
                {"type": "page_location", "cited_text": "東京の夏", "document_index": 1,
                 "document_title": "東京ガイド", "start_page_number": 3,
                 "end_page_number": 5}]},
        ],
    }  # fmt: skip


# --- Cohere ---------------------------------------------------------------------------


def cohere_chat(drift: int = 0) -> dict[str, Any]:
    citations = []
    for i, k in enumerate((1, 3)):
        start, end = char_span(k)
        citations.append({
            "start": start + (drift if i else 0), "end": end + (drift if i else 0),
            "text": PIECES[k], "type": "TEXT_CONTENT", "content_index": 1,
            "sources": [{"type": "document", "id": f"doc:{i}", "document": {
                "id": f"d{i}", "title": ["Köln: Sommer", "東京の天気"][i],
                "snippet": PIECES[k], "url": URLS[i]}}],
        })  # fmt: skip
    citations.append({"start": 0, "end": 4, "text": "Plan", "type": "PLAN",
                      "sources": [{"type": "tool", "id": "t:0",
                                   "tool_output": {"result": "ok"}}]})  # fmt: skip
    return {
        "id": "c-1", "finish_reason": "COMPLETE",
        "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Ich suche Köln."},
            {"type": "text", "text": TEXT}], "citations": citations},
        "usage": {"billed_units": {"input_tokens": 5, "output_tokens": 9}},
    }  # fmt: skip


# --- Bedrock --------------------------------------------------------------------------


def bedrock_response(drift: int = 0) -> dict[str, Any]:
    citations = []
    for i, k in enumerate((1, 3)):
        start, end = char_span(k)
        shift = drift if i else 0
        citations.append({
            "generatedResponsePart": {"textResponsePart": {
                "text": PIECES[k], "span": {"start": start + shift, "end": end - 1 + shift}}},
            "retrievedReferences": [{
                "content": {"text": PIECES[k], "type": "TEXT"},
                "location": {"type": "S3", "s3Location": {"uri": f"s3://kb/doc{i}.pdf"}}
                if i == 0 else {"type": "WEB", "webLocation": {"url": URLS[1]}},
                "metadata": {"x-amz-bedrock-kb-source-uri": f"s3://kb/doc{i}.pdf",
                             "x-amz-bedrock-kb-chunk-id": f"chunk-{i}", "page": 2},
            }],
        })  # fmt: skip
    return {
        "ResponseMetadata": {"HTTPStatusCode": 200},
        "sessionId": "s-1",
        "output": {"text": TEXT},
        "citations": citations,
    }


def bedrock_converse() -> dict[str, Any]:
    """A ``Converse`` response with document and web citations (``citationsContent``)."""
    cited = [
        [{"title": "Köln: Sommer", "source": "koeln.pdf",
          "sourceContent": [{"text": "Köln im Sommer"}],
          "location": {"documentChar": {"documentIndex": 0, "start": 3, "end": 17}}}],
        [{"title": "東京の天気", "sourceContent": [{"text": "東京の夏"}],
          "location": {"web": {"url": URLS[1], "domain": "tokyo.example"}}},
         {"title": "Wetter", "source": "wetter.pdf", "sourceContent": [{"text": "heiß"}],
          "location": {"documentPage": {"documentIndex": 1, "start": 2, "end": 3}}}],
    ]  # fmt: skip
    return {
        "ResponseMetadata": {"HTTPStatusCode": 200},
        "output": {"message": {"role": "assistant", "content": [
            {"text": PIECES[0]},
            {"citationsContent": {"content": [{"text": PIECES[1]}], "citations": cited[0]}},
            {"text": PIECES[2]},
            {"citationsContent": {"content": [{"text": PIECES[3]}], "citations": cited[1]}},
        ]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 10, "outputTokens": 20, "totalTokens": 30},
    }  # fmt: skip
