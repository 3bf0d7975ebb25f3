"""Fixtures of the citation shapes of issue 32, built here by hand, with the oracle of
each: what a reader must find, computed while the fixture is built (never by the
package).

- **Mistral** chat completions whose ``content`` is a list of ``text`` and ``reference``
  chunks, and Conversations responses with ``tool_reference`` chunks: written from the
  documented shapes (Mistral's API reference and the mistralai SDK's ``TextChunk``,
  ``ReferenceChunk``, ``ToolReferenceChunk``, ``MessageOutputEntry``,
  ``ConversationResponse``, ``CompletionChunk``, ``ConversationEvents``), not from a
  recording: none exists here.
- **Perplexity**'s stream ending with ``chat.completion.done``: the shape recorded (the
  chunks carry the message so far beside the delta; the closing event the whole
  response with ``citations`` and ``search_results``), values written here.
- **OpenAI Responses** ``web_search_call.action`` with ``query``, ``queries`` and
  ``sources``: from OpenAI's API reference. **DeepSeek**'s ``phase: "commentary"``
  message before the answer: the shape recorded, values written here.
- **Gemini** ``urlContextMetadata`` without grounding supports: the documented shape.

Every text mixes scripts and puts astral characters (emoji) before the cited spans, so
that byte, UTF-16 and code point offsets all differ.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Sequence
from typing import Any

Json = dict[str, Any]

# (claim, reference ids): each claim is followed by its reference chunk (no chunk for
# no ids); claims are joined by ". ", the closing of the sentence before
CLAIMS: list[tuple[str, list[int]]] = [
    ("Grüße 👋🏽 aus Köln: der Dom ist 157 m hoch", [0]),
    ("東京は日本の首都です 🗼", [1, 0]),
    ("Ελληνικά χωρίς πηγή", []),
    ("القاهرة عاصمة مصر 🌍", [2]),
]
TAIL = "。"

Expected = list[tuple[str, int, int, list[str]]]  # (text, char start, char end, source ids)


def mistral_chunks(
    claims: Sequence[tuple[str, Sequence[object]]] = CLAIMS, *, cuts: Sequence[int] = (5,)
) -> tuple[list[Json], str, Expected]:
    """Chunks of ``claims`` (each claim's text cut into several text chunks at ``cuts``),
    the joined text, and the expected citations: a reference cites every claim since
    the previous reference, joined by ". ", starting at the first of them."""
    chunks: list[Json] = []
    text = ""
    expected: Expected = []
    pending: list[tuple[str, int]] = []  # claims not yet cited: (claim, where it starts)
    for i, (claim, ids) in enumerate(claims):
        lead = ". " if i else ""
        piece = lead + claim
        bounds = [0, *sorted({c for c in cuts if 0 < c < len(piece)}), len(piece)]
        for a, b in itertools.pairwise(bounds):
            chunks.append({"type": "text", "text": piece[a:b]})
        pending.append((claim, len(text) + len(lead)))
        text += piece
        if ids:
            chunks.append({"type": "reference", "reference_ids": list(ids)})
            cited = ". ".join(c for c, _ in pending)
            start = pending[0][1]
            expected.append((cited, start, start + len(cited),
                             [str(x) for x in dict.fromkeys(ids)]))  # fmt: skip
            pending = []
    chunks.append({"type": "text", "text": TAIL})
    return chunks, text + TAIL, expected


def mistral_chat(content: object, *, finish: str = "stop") -> Json:
    """A Mistral ``ChatCompletionResponse`` (``/v1/chat/completions``) with ``content``."""
    return {
        "id": "cmpl-7f3c", "object": "chat.completion", "created": 1733000000,
        "model": "mistral-large-latest",
        "choices": [{"index": 0, "finish_reason": finish, "message": {
            "role": "assistant", "content": content, "tool_calls": None, "prefix": False}}],
        "usage": {"prompt_tokens": 812, "completion_tokens": 64, "total_tokens": 876},
    }  # fmt: skip


SITES: list[Json] = [
    {"tool": "web_search", "title": "Kölner Dom - Wikipedia",
     "url": "https://de.k.example/wiki/K%C3%B6lner_Dom", "favicon": None,
     "description": "Der Kölner Dom ist eine römisch-katholische Kirche"},
    {"tool": "web_search", "title": "東京都", "url": "https://ja.t.example/東京都"},
    {"tool": "web_search", "title": "القاهرة", "url": "https://ar.c.example/cairo",
     "favicon": "https://ar.c.example/favicon.ico"},
]  # fmt: skip


def conversation_chunks(cuts: Sequence[int] = (5,)) -> tuple[list[Json], str, Expected]:
    """A ``message.output`` entry's chunks: :func:`mistral_chunks` with each reference
    chunk a ``tool_reference`` per id (``SITES[id]``); the expected sources are URLs."""
    chunks, text, expected = mistral_chunks(cuts=cuts)
    out: list[Json] = []
    for chunk in chunks:
        if chunk["type"] == "reference":
            out.extend({"type": "tool_reference", **SITES[i]} for i in chunk["reference_ids"])
        else:
            out.append(chunk)
    urls = [(t, a, b, [SITES[int(i)]["url"] for i in ids]) for t, a, b, ids in expected]
    return out, text, urls


def conversation(content: object) -> Json:
    """A Mistral ``ConversationResponse``: a web search, then the answer."""
    return {
        "object": "conversation.response", "conversation_id": "conv_0682a",
        "outputs": [
            {"object": "entry", "type": "tool.execution", "name": "web_search",
             "id": "tool_exec_1", "created_at": "2026-12-01T10:00:00Z",
             "completed_at": "2026-12-01T10:00:02Z", "arguments": "{\"query\": \"Köln\"}",
             "info": {}},
            {"object": "entry", "type": "message.output", "role": "assistant",
             "id": "msg_1", "agent_id": None, "model": "mistral-medium-latest",
             "created_at": "2026-12-01T10:00:02Z", "completed_at": "2026-12-01T10:00:04Z",
             "content": content},
        ],
        "usage": {"prompt_tokens": 90, "completion_tokens": 40, "total_tokens": 130,
                  "connector_tokens": 12},
    }  # fmt: skip


def mistral_chat_events(final: Json, *, listed: bool = True) -> list[Json]:
    """The ``chat.completion.chunk``\\ s of a Mistral chat stream ending in ``final``: a
    role delta, then each chunk of the content, a text chunk's text cut in two, sent
    as a string or (``listed``, every other piece) as a one-chunk list."""
    head = {"id": final["id"], "object": "chat.completion.chunk",
            "created": final["created"], "model": final["model"]}  # fmt: skip

    def delta(content: object, finish: str | None = None) -> Json:
        return {**head, "choices": [{"index": 0, "delta": {"content": content},
                                     "finish_reason": finish, "logprobs": None}]}  # fmt: skip

    events = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                    "finish_reason": None}]}]  # fmt: skip
    n = 0
    for chunk in final["choices"][0]["message"]["content"]:
        if chunk["type"] != "text":
            events.append(delta([chunk]))
            continue
        cut = len(chunk["text"]) // 2
        for piece in (chunk["text"][:cut], chunk["text"][cut:]):
            n += 1
            events.append(delta([{"type": "text", "text": piece}] if listed and n % 2 else piece))
    events.append(delta("", final["choices"][0]["finish_reason"]))
    events[-1]["usage"] = final["usage"]
    return events


def conversation_events(final: Json, *, done: bool = True) -> list[Json]:
    """The events of a Conversations stream ending in ``final``."""
    events: list[Json] = [{"type": "conversation.response.started",
                           "conversation_id": final["conversation_id"],
                           "created_at": "2026-12-01T10:00:00Z"}]  # fmt: skip
    for i, entry in enumerate(final["outputs"]):
        if entry["type"] == "tool.execution":
            head = {"output_index": i, "id": entry["id"], "name": entry["name"]}
            events.append({"type": "tool.execution.started", **head})
            events.append({"type": "tool.execution.done", **head, "info": entry["info"]})
            continue
        head = {"type": "message.output.delta", "output_index": i, "id": entry["id"],
                "role": "assistant", "model": entry["model"], "agent_id": None}  # fmt: skip
        for j, chunk in enumerate(entry["content"]):
            if chunk["type"] == "text":
                cut = len(chunk["text"]) // 2
                for piece in (chunk["text"][:cut], chunk["text"][cut:]):
                    events.append({**head, "content_index": j, "content": piece})
            else:
                events.append({**head, "content_index": j, "content": copy.deepcopy(chunk)})
    if done:
        events.append({"type": "conversation.response.done", "usage": final["usage"]})
    return events


# --- Perplexity's stream ---------------------------------------------------------------

PERPLEXITY_TEXT = "🌉 Grüße aus Köln: Köln liegt am Rhein[1]. 東京は首都です。[2] مرحبا 😀 [1][2]."


def perplexity_events(text: str = PERPLEXITY_TEXT, *, done_text: str | None = None) -> list[Json]:
    """A Perplexity stream as recorded in shape: chunks (``object: "chat.completion"``)
    with the message so far beside each delta, ``citations`` on every chunk, and the
    closing ``chat.completion.done`` event with the whole response and its
    ``search_results`` (the chunks before it have none)."""
    head = {"id": "pplx-1", "model": "sonar", "created": 1733000000,
            "citations": ["https://k.example", "https://t.example"]}  # fmt: skip
    usage = {"prompt_tokens": 9, "completion_tokens": 30, "total_tokens": 39}
    events = []
    cuts = [0, 12, 40, len(text)]
    for a, b in itertools.pairwise(cuts):
        events.append({**head, "object": "chat.completion", "usage": usage, "choices": [{
            "index": 0, "finish_reason": None,
            "message": {"role": "assistant", "content": text[:b]},
            "delta": {"role": "assistant", "content": text[a:b]}}]})  # fmt: skip
    events.append({**head, "object": "chat.completion.done", "usage": usage,
                   "search_results": [
                       {"title": "Köln - Stadt am Rhein", "url": "https://k.example",
                        "date": "2024-05-01", "last_updated": "2025-01-02",
                        "snippet": "Köln liegt am Rhein."},
                       {"title": "東京", "url": "https://t.example"}],
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant",
                                            "content": text if done_text is None else done_text},
                                "delta": {"role": "assistant", "content": ""}}]})  # fmt: skip
    return events


def sse_data(events: Sequence[Json], *, named: bool = False) -> str:
    """Events as SSE text (``event:`` lines from their ``type`` when ``named``)."""
    out = []
    for event in events:
        data = json.dumps(event, ensure_ascii=False)
        out.append(f"event: {event['type']}\ndata: {data}\n\n" if named else f"data: {data}\n\n")
    return "".join(out)


# --- OpenAI Responses: web search, commentary ------------------------------------------

COMMENTARY = "Ich suche kurz… 検索中 🔎"
ANSWER = "🌍 Grüße! Köln liegt am Rhein ([k.example](https://k.example)). 東京は首都です。"


def responses_with_search() -> Json:
    """A ``Response``: a web search (``action`` with ``query``, ``queries``,
    ``sources``), a commentary message (DeepSeek's, with an annotation of its own), the
    answer with one ``url_citation``."""
    link = "([k.example](https://k.example))"
    start = ANSWER.index(link)
    return {
        "id": "resp_ws", "object": "response", "created_at": 1733000000,
        "status": "completed", "model": "deepseek-chat",
        "output": [
            {"type": "message", "id": "msg_c", "role": "assistant", "status": "completed",
             "phase": "commentary", "content": [
                 {"type": "output_text", "text": COMMENTARY, "annotations": [
                     {"type": "url_citation", "start_index": 0, "end_index": 3,
                      "url": "https://commentary.example", "title": "nicht die Antwort"}]}]},
            {"type": "web_search_call", "id": "ws_1", "status": "completed",
             "action": {"type": "search", "query": "Köln Rhein",
                        "queries": ["Köln Rhein", "東京 首都"],
                        "sources": [{"type": "url", "url": "https://k.example"},
                                    {"type": "url", "url": "https://t.example/東京"}]}},
            {"type": "message", "id": "msg_a", "role": "assistant", "status": "completed",
             "phase": "final_answer", "content": [
                 {"type": "output_text", "text": ANSWER, "annotations": [
                     {"type": "url_citation", "start_index": start,
                      "end_index": start + len(link), "url": "https://k.example",
                      "title": "Köln"}]}]},
        ],
    }  # fmt: skip


# --- Gemini: the URL context tool alone --------------------------------------------------

URL_TEXT = "Die Seite sagt: Köln 🌉 liegt am Rhein. 東京は首都です。 مرحبا"
URLS = [("https://k.example/köln", "URL_RETRIEVAL_STATUS_SUCCESS"),
        ("https://t.example/tokyo", "URL_RETRIEVAL_STATUS_ERROR"),
        ("https://p.example/paywall", "URL_RETRIEVAL_STATUS_PAYWALL")]  # fmt: skip


def gemini_url_context(*, supports: bool = False) -> Json:
    """A ``generateContent`` response of the URL context tool alone (no grounding
    supports), or (``supports``) beside a search's grounding metadata."""
    candidate: Json = {
        "content": {"role": "model", "parts": [{"text": URL_TEXT}]},
        "finishReason": "STOP",
        "urlContextMetadata": {"urlMetadata": [
            {"retrievedUrl": url, "urlRetrievalStatus": status} for url, status in URLS]},
    }  # fmt: skip
    if supports:
        cited = "Köln 🌉 liegt am Rhein."
        start = len(URL_TEXT[: URL_TEXT.index(cited)].encode("utf-8"))
        candidate["groundingMetadata"] = {
            "webSearchQueries": ["Köln Rhein"],
            "groundingChunks": [{"web": {"uri": URLS[0][0], "title": "k.example"}}],
            "groundingSupports": [{"segment": {
                "startIndex": start, "endIndex": start + len(cited.encode("utf-8")),
                "text": cited}, "groundingChunkIndices": [0]}],
        }  # fmt: skip
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}


# --- Mistral: the chat's messages with the answer last ------------------------------------

REFERENCES: Json = {
    "0": {"url": "https://de.k.example/wiki/Dom", "title": "Kölner Dom",
          "snippets": [["Der Dom ist 157 m hoch.", "Baubeginn 1248."]], "description": None,
          "date": "2024-11-26T17:39:55.057454", "source": "wikipedia"},
    "1": {"url": "https://ja.t.example/東京", "title": "東京",
          "snippets": [["東京は日本の首都です。"]], "description": None, "date": None,
          "source": "wikipedia"},
}  # fmt: skip


def chat_history(answer: object, *results: object) -> list[Json]:
    """The messages of Mistral's "Citations and References" guide, as a caller keeps
    them: the question, the model's tool call, the tool result(s) (``results``, each a
    ``tool`` message's ``content``: the references as JSON text), the answer."""
    messages: list[Json] = [
        {"role": "system", "content": "Answer the user by providing references."},
        {"role": "user", "content": "Wie hoch ist der Kölner Dom? 東京は何？"},  # noqa: RUF001
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "F4HiRgdZp", "type": "function",
             "function": {"name": "get_information", "arguments": "{}"}}]},
    ]  # fmt: skip
    for result in results:
        messages.append({"role": "tool", "name": "get_information",
                         "tool_call_id": "F4HiRgdZp", "content": result})  # fmt: skip
    messages.append({"role": "assistant", "content": answer, "tool_calls": None})
    return messages
