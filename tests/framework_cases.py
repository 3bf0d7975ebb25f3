"""A multi-script grounded Gemini answer, whole and streamed, with one or two text parts,
and the objects each framework makes of it through its own conversion code (offline).

The raw responses are written here by hand in the shape of ``generateContent``
(camelCase REST JSON; offsets in UTF-8 bytes; an emoji before every citation, so bytes,
UTF-16 units and characters all differ). The builders import the frameworks; the tests
skip a builder whose framework is not installed (extra ``frameworks-test``).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

PART_A = "Grüße aus Köln 🌉! Der Dom ist 157 m hoch. "
PART_B = "東京は日本の首都です 🗼。Berlin liegt an der Spree."
CLAIMS = [
    (0, "Der Dom ist 157 m hoch."),
    (1, "東京は日本の首都です"),
    (1, "Berlin liegt an der Spree."),
]
REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"
CHUNKS = [
    {"web": {"uri": REDIRECT + "AbC1", "title": "koeln.de"}},
    {"web": {"uri": REDIRECT + "XyZ2", "title": "tokyo.jp"}},
    {"web": {"uri": REDIRECT + "QrS3", "title": "berlin.de"}},
]
# (parts, part_index): one text part; two parts, offsets into the joined text; two parts,
# offsets into each part with its partIndex (the second claim's start is 0: proto3 JSON
# leaves it out)
CASES = [(1, False), (2, False), (2, True)]
CASE_IDS = ["one-part", "two-parts", "two-parts-part-index"]
FRAMEWORKS_EXTRA = "frameworks-test extra (pip install -e '.[frameworks-test]')"


def _utf8(text: str) -> int:
    return len(text.encode())


def raw_response(parts: int, part_index: bool) -> dict[str, Any]:
    """The whole ``GenerateContentResponse`` of the answer, as the REST API sends it."""
    texts = [PART_A + PART_B] if parts == 1 else [PART_A, PART_B]
    whole = "".join(texts)
    supports = []
    for i, (part, claim) in enumerate(CLAIMS):
        segment: dict[str, Any] = {}
        if parts == 2 and part_index:
            start = _utf8(texts[part][: texts[part].index(claim)])
            if part:
                segment["partIndex"] = part
        else:
            start = _utf8(whole[: whole.index(claim)])
        if start:
            segment["startIndex"] = start
        segment["endIndex"] = start + _utf8(claim)
        segment["text"] = claim
        indices, scores = ([1, 0], [0.81, 0.66]) if i == 1 else ([i], [0.93])
        supports.append(
            {"segment": segment, "groundingChunkIndices": indices, "confidenceScores": scores}
        )
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": t} for t in texts]},
                "finishReason": "STOP",
                "index": 0,
                "groundingMetadata": {
                    "webSearchQueries": ["Kölner Dom Höhe", "東京 首都"],
                    "searchEntryPoint": {"renderedContent": "<div class='chips'></div>"},
                    "groundingChunks": CHUNKS,
                    "groundingSupports": supports,
                },
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 11,
            "candidatesTokenCount": 42,
            "totalTokenCount": 53,
        },
        "modelVersion": "gemini-2.5-flash",
        "responseId": "fw-1",
    }


def raw_stream(parts: int) -> list[dict[str, Any]]:
    """The same answer streamed: the text in pieces, the metadata whole on the last chunk.

    A stream's chunks continue one text part (Gemini's streams merge a chunk's first part
    into the last one), so its offsets count the joined text: two parts stream as the
    two-parts case without part indices."""
    whole = raw_response(parts, False)
    candidate = whole["candidates"][0]
    chunks: list[dict[str, Any]] = []
    for part in candidate["content"]["parts"]:
        text = part["text"]
        cuts = [0, 7, 19, len(text)]
        for a, b in itertools.pairwise(cuts):
            piece = {"content": {"role": "model", "parts": [{"text": text[a:b]}]}, "index": 0}
            chunks.append({"candidates": [piece], "modelVersion": "gemini-2.5-flash"})
    last = chunks[-1]["candidates"][0]
    last["finishReason"] = "STOP"
    last["groundingMetadata"] = candidate["groundingMetadata"]
    chunks[-1]["usageMetadata"] = whole["usageMetadata"]
    return chunks


# --- What each framework makes of it, through its own conversion code ------------------


def genai_response(raw: dict[str, Any]) -> Any:
    types = pytest.importorskip("google.genai.types", reason=FRAMEWORKS_EXTRA)
    return types.GenerateContentResponse.model_validate(raw)


def langchain_message(raw: dict[str, Any], *, stream: bool = False) -> Any:
    """langchain-google-genai's ``AIMessage`` (or chunk) of a response."""
    chat_models = pytest.importorskip("langchain_google_genai.chat_models", reason=FRAMEWORKS_EXTRA)
    result = chat_models._response_to_result(genai_response(raw), stream=stream)
    return result.generations[0].message


def langchain_chunks(parts: int) -> list[Any]:
    """The chunks langchain-core's ``stream()`` yields: the integration's chunks, then the
    empty chunk of ``chunk_position="last"`` it ends with."""
    messages = pytest.importorskip("langchain_core.messages", reason=FRAMEWORKS_EXTRA)
    chunks = [langchain_message(c, stream=True) for c in raw_stream(parts)]
    return [*chunks, messages.AIMessageChunk(content="", chunk_position="last")]


class _Logging:
    """The part of LiteLLM's logging object its transformation calls (no network)."""

    optional_params: ClassVar[dict[str, Any]] = {}
    litellm_params: ClassVar[dict[str, Any]] = {}
    model_call_details: ClassVar[dict[str, Any]] = {}

    def post_call(self, **_: object) -> None:
        return None


def _litellm_gemini() -> Any:
    return pytest.importorskip(
        "litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini", reason=FRAMEWORKS_EXTRA
    )


def litellm_response(raw: dict[str, Any]) -> Any:
    """LiteLLM's ``ModelResponse`` of a Gemini response (its Gemini transformation)."""
    gemini = _litellm_gemini()
    httpx = pytest.importorskip("httpx", reason=FRAMEWORKS_EXTRA)
    utils = pytest.importorskip("litellm.types.utils", reason=FRAMEWORKS_EXTRA)
    http = httpx.Response(
        200, content=json.dumps(raw).encode(), request=httpx.Request("POST", "https://gemini.test")
    )
    return gemini.VertexGeminiConfig().transform_response(
        model="gemini-2.5-flash", raw_response=http, model_response=utils.ModelResponse(),
        logging_obj=_Logging(), request_data={}, messages=[], optional_params={},
        litellm_params={}, encoding=None,
    )  # fmt: skip


def litellm_chunks(parts: int) -> list[Any]:
    """LiteLLM's stream chunks of the Gemini stream (its chunk parser)."""
    gemini = _litellm_gemini()
    parser = gemini.ModelResponseIterator(
        streaming_response=iter(()), sync_stream=True, logging_obj=_Logging()
    )
    return [parser.chunk_parser(c) for c in raw_stream(parts)]


def pydantic_ai_response(raw: dict[str, Any]) -> Any:
    """pydantic-ai's ``ModelResponse`` of a Gemini response (its Google model's mapping)."""
    google = pytest.importorskip("pydantic_ai.models.google", reason=FRAMEWORKS_EXTRA)
    models = pytest.importorskip("pydantic_ai.models", reason=FRAMEWORKS_EXTRA)
    providers = pytest.importorskip("pydantic_ai.providers.google", reason=FRAMEWORKS_EXTRA)
    model = google.GoogleModel(
        "gemini-2.5-flash", provider=providers.GoogleProvider(api_key="offline")
    )
    return model._process_response(genai_response(raw), models.ModelRequestParameters())


def pydantic_ai_history_json(raw: dict[str, Any]) -> Any:
    """The JSON of ``ModelMessagesTypeAdapter`` of a request and its response."""
    messages = pytest.importorskip("pydantic_ai.messages", reason=FRAMEWORKS_EXTRA)
    request = messages.ModelRequest(parts=[messages.UserPromptPart("Wie hoch ist der Dom?")])
    data = messages.ModelMessagesTypeAdapter.dump_json([request, pydantic_ai_response(raw)])
    return json.loads(data)


def adk_response(raw: dict[str, Any]) -> Any:
    """ADK's ``LlmResponse.create`` of a response."""
    llm_response = pytest.importorskip("google.adk.models.llm_response", reason=FRAMEWORKS_EXTRA)
    return llm_response.LlmResponse.create(genai_response(raw))


def adk_event(raw: dict[str, Any], *, partial: bool = False) -> Any:
    """The ``Event`` an agent's run yields for a model response."""
    event = pytest.importorskip("google.adk.events.event", reason=FRAMEWORKS_EXTRA)
    response = adk_response(raw)
    response.partial = partial or None
    return event.Event(
        author="stadtfuehrer", invocation_id="e-42", **response.model_dump(exclude_none=True)
    )


def adk_events(parts: int) -> list[Any]:
    """A streamed run's events: the partial pieces, then the whole answer."""
    pieces = [adk_event(c, partial=True) for c in raw_stream(parts)]
    return [*pieces, adk_event(raw_response(parts, False))]


def adk_json(obj: Any) -> Any:
    """An ADK object's camelCase JSON (as ADK's API server and session stores write it)."""
    return json.loads(obj.model_dump_json(by_alias=True, exclude_none=True))


def framework_objects(parts: int, part_index: bool) -> dict[str, Callable[[], Any]]:
    """Every framework object of the answer, by name, built lazily (a builder whose
    framework is missing skips the test that asks for it)."""
    raw = raw_response(parts, part_index)
    return {
        "langchain-aimessage": lambda: langchain_message(raw),
        "langchain-model-dump": lambda: langchain_message(raw).model_dump(),
        "langchain-json": lambda: json.loads(langchain_message(raw).model_dump_json()),
        "langchain-dumpd": lambda: _dumpd(langchain_message(raw)),
        "litellm-modelresponse": lambda: litellm_response(raw),
        "litellm-model-dump": lambda: litellm_response(raw).model_dump(),
        "pydantic-ai-modelresponse": lambda: pydantic_ai_response(raw),
        "pydantic-ai-history-json": lambda: pydantic_ai_history_json(raw),
        "adk-llmresponse": lambda: adk_response(raw),
        "adk-event": lambda: adk_event(raw),
        "adk-event-json": lambda: adk_json(adk_event(raw)),
    }


FORMS = list(framework_objects(1, False))


def _dumpd(message: Any) -> Any:
    load = pytest.importorskip("langchain_core.load", reason=FRAMEWORKS_EXTRA)
    return json.loads(json.dumps(load.dumpd(message)))
