"""Real-shaped answers of the marker-style sources, each built around a given text.

Where each shape comes from (the values are made up; the layouts are the vendors'):

- Perplexity ``/chat/completions``: Perplexity's API reference (``citations``,
  ``search_results``), as in ``tests/test_openai_stream.py``.
- Azure OpenAI On Your Data: Azure's API reference (2024-02-15-preview and later:
  ``message.context`` with ``citations`` and ``intent``, ``end_turn``,
  ``prompt_filter_results``); no recording.
- xAI chat completions with search: xAI's documentation (a top-level ``citations`` list
  of URLs, ``[[n]](url)`` inline citations, ``usage.num_sources_used``); no recording.
- Perplexity through OpenRouter: the layout of the recordings described in DESIGN.md
  ("What real responses look like": ``[n]`` markers naming ``annotations[n-1]``, each
  ``url_citation`` at 0/0, ``provider``, ``native_finish_reason``).
- Azure AI Foundry agents: the Azure AI Agents REST reference
  (``MessageTextUrlCitationAnnotation``: ``type``, ``text``, ``start_index``,
  ``end_index``, ``url_citation.url``/``title``); no recording.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

Builder = Callable[[str], dict[str, Any]]

URLS = ["https://k.example/köln", "https://t.example/東京", "https://c.example/القاهرة"]
TITLES = ["Köln am Rhein", "東京都", "القاهرة"]


def perplexity(content: str) -> dict[str, Any]:
    return {
        "id": "p1", "model": "sonar", "object": "chat.completion", "created": 1700000000,
        "citations": list(URLS),
        "search_results": [{"title": t, "url": u, "date": "2024-05-01"}
                           for t, u in zip(TITLES, URLS, strict=True)],
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 40, "total_tokens": 49,
                  "search_context_size": "low"},
    }  # fmt: skip


def azure(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-9Az", "object": "chat.completion", "created": 1717000000,
        "model": "gpt-4o-2024-05-13", "system_fingerprint": "fp_5f4bad809a",
        "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}],
        "choices": [{
            "index": 0, "finish_reason": "stop", "logprobs": None,
            "message": {
                "role": "assistant", "content": content, "end_turn": True,
                "context": {
                    "citations": [
                        {"content": f"{t} … Auszug", "title": t, "url": u,
                         "filepath": f"{t}.pdf", "chunk_id": str(i),
                         "rerank_score": 3.25 - i}
                        for i, (t, u) in enumerate(zip(TITLES, URLS, strict=True))
                    ],
                    "intent": '["Köln Rhein", "東京 首都", "القاهرة"]',
                },
            },
        }],
        "usage": {"prompt_tokens": 3000, "completion_tokens": 60, "total_tokens": 3060},
    }  # fmt: skip


def xai(content: str) -> dict[str, Any]:
    return {
        "id": "3b2e", "object": "chat.completion", "created": 1743000000, "model": "grok-3",
        "system_fingerprint": "fp_156d35dcaa",
        "citations": [*URLS, "https://x.com/i/status/1"],  # everything searched
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": content, "refusal": None}}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 40, "total_tokens": 49,
                  "num_sources_used": 4},
    }  # fmt: skip


def openrouter(content: str) -> dict[str, Any]:
    return {
        "id": "gen-17", "provider": "Perplexity", "model": "perplexity/sonar",
        "object": "chat.completion", "created": 1760000000,
        "choices": [{
            "logprobs": None, "finish_reason": "stop", "native_finish_reason": "stop",
            "index": 0,
            "message": {
                "role": "assistant", "content": content, "refusal": None, "reasoning": None,
                "annotations": [
                    {"type": "url_citation", "url_citation": {
                        "url": u, "title": t, "start_index": 0, "end_index": 0}}
                    for t, u in zip(TITLES, URLS, strict=True)
                ],
            },
        }],
        "usage": {"prompt_tokens": 9, "completion_tokens": 40, "total_tokens": 49},
    }  # fmt: skip


# Each source's marker for source number n (1-based), and the URL it cites.
MARKERS: dict[str, Callable[[int], str]] = {
    "perplexity": lambda n: f"[{n}]",
    "azure": lambda n: f"[doc{n}]",
    "xai": lambda n: f"[[{n}]]({URLS[n - 1]})",
    "openrouter": lambda n: f"[{n}]",
}
BUILDERS: dict[str, Builder] = {
    "perplexity": perplexity, "azure": azure, "xai": xai, "openrouter": openrouter,
}  # fmt: skip
SHAPES = {
    "perplexity": "perplexity_chat_completion",
    "azure": "azure_on_your_data_chat_completion",
    "xai": "xai_chat_completion",
    "openrouter": "openrouter_perplexity_chat_completion",
}


def spelled(name: str, template: str) -> str:
    """``template`` with each ``{n}`` written as source ``name``'s marker for ``n``."""
    return re.sub(r"\{(\d)\}", lambda m: MARKERS[name](int(m.group(1))), template)


def chunks(final: dict[str, Any], size: int = 5) -> list[dict[str, Any]]:
    """``final`` as a Chat Completions stream: the message's other fields (Azure's
    ``context``) in the first delta, the text ``size`` characters at a time, the
    annotations (OpenRouter's) in the last delta, the top level (xAI's and Perplexity's
    ``citations``) on every chunk."""
    head = {k: v for k, v in final.items() if k not in ("choices", "object")}
    message = final["choices"][0]["message"]
    text = message["content"]
    extra = {k: copy.deepcopy(v) for k, v in message.items()
             if k not in ("content", "annotations") and v is not None}  # fmt: skip
    out = [{**head, "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": extra, "finish_reason": None}]}]  # fmt: skip
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    for k, piece in enumerate(pieces):
        delta: dict[str, Any] = {"content": piece}
        last = k == len(pieces) - 1
        if last and message.get("annotations"):
            delta["annotations"] = copy.deepcopy(message["annotations"])
        out.append({**head, "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": delta, "finish_reason": "stop" if last else None}]})  # fmt: skip
    return out


def foundry_message(value: str) -> dict[str, Any]:
    """An Azure AI Foundry agent's thread message grounded with Bing: a
    ``url_citation`` on each ``【n:m†source】`` marker of ``value``."""
    notes = []
    for k, m in enumerate(re.finditer(r"【\d+:\d+†source】", value)):
        notes.append({
            "type": "url_citation", "text": m.group(),
            "start_index": m.start(), "end_index": m.end(),
            "url_citation": {"url": URLS[k % 3], "title": TITLES[k % 3]},
        })  # fmt: skip
    return {
        "id": "msg_abc123", "object": "thread.message", "created_at": 1740000000,
        "assistant_id": "asst_abc123", "thread_id": "thread_abc123", "run_id": "run_abc123",
        "role": "assistant", "attachments": [], "metadata": {},
        "content": [{"type": "text", "text": {"value": value, "annotations": notes}}],
    }  # fmt: skip
