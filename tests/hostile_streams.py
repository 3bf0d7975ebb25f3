"""One real-shaped stream per vendor merger, as decoded JSON events, for the hostile
properties of ``tests/test_stream_hostile.py`` and the seeds of ``fuzz/fuzz_streams.py``.

Each is built by the fixture modules of the tests (from the vendors' documented shapes:
see each builder's docstring) or, for the frameworks, recorded from the frameworks' own
conversion code (``tests/data/framework_streams.json``, made by
``tests/framework_cases.py``). Every text is multi-script (German, Japanese, Korean,
Arabic, emoji) before its cited spans.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests import bedrock_cases as bc
from tests import google_cases as gc
from tests import marker_cases as mc
from tests import openai_streams as oa
from tests import stream_vendor_cases as sv
from tests import wild_cases as wc
from tests.test_google_answer_stream import _chunks as answer_chunks

DATA = Path(__file__).resolve().parent / "data" / "framework_streams.json"


def _frameworks(name: str) -> Callable[[], list[Any]]:
    def build() -> list[Any]:
        streams: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
        events: list[Any] = streams[name]
        return events

    return build


def _gemini() -> list[Any]:
    """Gemini ``streamGenerateContent`` chunks: the text in pieces, the grounding last."""
    whole = gc.gemini_chunks_response()
    candidate = whole["candidates"][0]
    text = "".join(p["text"] for p in candidate["content"]["parts"])
    cuts = [0, 5, 17, len(text)]
    chunks: list[Any] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": text[a:b]}]},
                         "index": 0}], "modelVersion": "gemini-2.5-flash"}
        for a, b in itertools.pairwise(cuts)
    ]  # fmt: skip
    last = chunks[-1]["candidates"][0]
    last["finishReason"] = "STOP"
    last["groundingMetadata"] = candidate["groundingMetadata"]
    return chunks


def _grounded_generation() -> list[Any]:
    """``StreamGenerateGroundedContent``: the text in two messages, the grounding last."""
    whole = gc.grounded_generation_response()
    candidate = whole["candidates"][0]
    text = candidate["content"]["parts"][0]["text"]
    cut = len(text) // 2
    first = {"index": 0, "content": {"role": "model", "parts": [{"text": text[:cut]}]},
             "groundingScore": 0.4}  # fmt: skip
    second = {**candidate, "content": {"role": "model", "parts": [{"text": text[cut:]}]}}
    return [{"candidates": [first]}, {"candidates": [second]}]


def _mistral_chat() -> list[Any]:
    """A Mistral chat stream whose content comes as strings and as lists of chunks."""
    chunks, _, _ = wc.mistral_chunks()
    return wc.mistral_chat_events(wc.mistral_chat(chunks))


def _mistral_conversation() -> list[Any]:
    """A Mistral Conversations stream: a web search, then the answer's chunks."""
    chunks, _, _ = wc.conversation_chunks()
    return wc.conversation_events(wc.conversation(chunks))


AZURE = "Grüße aus Köln 🌉: der Dom ist hoch [{1}]. 東京は大きい。[{2}] القاهرة كبيرة [{1}][{2}]."


STREAMS: dict[str, Callable[[], list[Any]]] = {
    "gemini": _gemini,
    "answer": lambda: answer_chunks("answer"),
    "assist": gc.assist_stream,
    "grounded_generation": _grounded_generation,
    "live": gc.live_turn,
    "interactions": gc.interaction_events,
    "responses": lambda: oa.responses_events(oa.responses_final()),
    "chat": lambda: oa.chat_chunks(oa.chat_final()),
    "assistants": lambda: oa.run_events(oa.thread_message()),
    "anthropic": lambda: sv.anthropic_events(sv.anthropic_final()),
    "cohere": lambda: sv.cohere_events(sv.cohere_final()),
    "bedrock": lambda: sv.bedrock_events(sv.bedrock_final()),
    "langchain": _frameworks("langchain"),
    "litellm": _frameworks("litellm"),
    "pydantic_ai": _frameworks("pydantic_ai"),
    "adk": _frameworks("adk"),
    # the mergers and event kinds this release added
    "nova": lambda: bc.converse_events(bc.nova_final()),
    "retrieve_and_generate": lambda: bc.rag_events(bc.rag_final()),
    "invoke_agent": lambda: bc.agent_events(bc.agent_final()),
    "mistral_chat": _mistral_chat,
    "mistral_conversation": _mistral_conversation,
    "perplexity": wc.perplexity_events,
    "azure": lambda: mc.chunks(mc.azure(mc.spelled("azure", AZURE))),
}
"""Every vendor merger's stream, by the merger's name."""
