"""The peers side by side with this package: time and correctness, in one process.

Run (with the frameworks of the ``frameworks-test`` extra installed; a few minutes of
CPU, most of it in the peers' streams)::

    PYTHONPATH=src LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/peers.py

Not a test: ratios measured in this one run are printed, nothing fails.

The peers are pydantic-ai (its Google, OpenAI Responses and Anthropic models' own
mapping of a provider response into a ``ModelResponse`` with its ``TextPart.citations``),
LangChain (langchain-google-genai, -openai and -anthropic turning the provider response
into an ``AIMessage``; its citations read from the v1 ``content_blocks``) and LiteLLM
(its Gemini, Responses-to-chat and Anthropic transformations, and their stream chunk
parsers with ``stream_chunk_builder``); pydantic-ai's streams run through the
``StreamedResponse`` its Google and OpenAI Responses models make. Ours is
:func:`grounding_protos.citations.read` of the response (a dict) and
:func:`~grounding_protos.citations.read_stream` of a stream's SSE lines.

Every answer has multi-script text (German, Japanese, Arabic, emoji) before every span,
so UTF-8 bytes, UTF-16 units and characters all differ there. Each peer starts from
what its API takes: the same dict, made into its SDK's types (google-genai's
``model_validate``, the openai and anthropic SDKs' ``construct``), or for LiteLLM an
``httpx.Response`` of the same body (it parses the JSON itself); streams from the same
SSE lines (what ``httpx.Response.iter_lines()`` gives). All of that is timed.

Time: CPU time (``time.process_time``, GC off while timing) of one conversion, peers
and ours interleaved in each round; per run, each one's best round; the ratio printed
is peer ÷ ours, the median over ``RUNS`` runs (their range beside it). Where a peer
takes its SDK's objects, also "from parsed input": its conversion of those objects
built beforehand, against ours of the dict (of a stream: of its events as dicts).

Correctness: the spans each reader gives, as (start, end, url) in characters of the
answer, against an oracle computed here from the raw input (Gemini's UTF-8 byte offsets
decoded by slicing the encoded text; OpenAI's character offsets as they are; an
Anthropic cited block's place in the joined text). A citation is right when every
(span, url) of it is among the reader's; "right n/n" needs all of them and no other
span. A case a peer's API cannot do prints "—" with the reason.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from _corpus import SENTENCES  # benchmarks/ is the script directory
from _timing import best  # benchmarks/ is the script directory

from grounding_protos.citations import Grounded, read, read_stream

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch at litellm import

Json = dict[str, Any]
Span = tuple[int, int, str]  # start, end (characters of the answer), url
RUNS = 3

# Text with a character of more than one UTF-8 byte: written before every span.
MULTI = [s for s in SENTENCES if len(s.encode()) > len(s)]
URLS = [f"https://quelle-{i}.example/köln-東京-{i}" for i in range(20)]


# --- What is measured, and how it is judged ------------------------------------------------


@dataclass
class Peer:
    """One reader's conversion of a case: ``convert`` (from the dict or the SSE lines) is
    timed, ``spans`` reads its result; ``given`` is the same conversion from input already
    parsed (a peer: its SDK's objects; ours: a stream's event dicts), timed too."""

    convert: Callable[[], object]
    spans: Callable[[Any], list[Span]]
    given: Callable[[], object] | None = None


@dataclass
class Case:
    name: str
    oracle: list[list[Span]]  # per citation of the input: its (span, url) pairs
    ours: Peer
    peers: dict[str, Peer | str] = field(default_factory=dict)  # str: why "—"


def verdict(oracle: list[list[Span]], got: list[Span]) -> str:
    """``right n/n``; ``wrong k/n``: k citations of n not given as the oracle has them (or
    spans given that are not in the input); ``lost n/n``: no citation given at all."""
    given = set(got)
    wanted = {span for spans in oracle for span in spans}
    missed = sum(1 for spans in oracle if not set(spans) <= given)
    n = len(oracle)
    if not given:
        return f"lost {n}/{n}"
    if missed == 0 and given <= wanted:
        return f"right {n}/{n}"
    extra = len(given - wanted)
    return f"wrong {missed}/{n}" + (f" (+{extra} spans not in the input)" if not missed else "")


def cpu_ratios(case: Case, rounds: int, runs: int = RUNS) -> dict[str, list[float]]:
    """CPU seconds of each contender's best round, per run: ``ours``, each peer's name,
    and ``<name> given`` for a peer's conversion from its SDK's objects."""
    contenders = {"ours": case.ours.convert}
    if case.ours.given is not None:
        contenders["ours given"] = case.ours.given
    for name, peer in case.peers.items():
        if isinstance(peer, Peer):
            contenders[name] = peer.convert
            if peer.given is not None:
                contenders[f"{name} given"] = peer.given
    out: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(runs):
        bests = dict.fromkeys(contenders, float("inf"))
        for _ in range(rounds):  # interleaved: a busy machine slows every contender alike
            for name, convert in contenders.items():
                bests[name] = min(bests[name], best(convert, 1, time.process_time))
        for name, seconds in bests.items():
            out[name].append(seconds)
    return out


def ratio(times: dict[str, list[float]], name: str) -> tuple[float, float, float]:
    """Median, lowest and highest of name ÷ ours over the runs (``<peer> given``: ÷ ours
    of the stream's parsed events, where the case is a stream)."""
    ours = times.get("ours given", times["ours"]) if name.endswith(" given") else times["ours"]
    r = [a / b for a, b in zip(times[name], ours, strict=True)]
    return statistics.median(r), min(r), max(r)


def shown(r: float) -> str:
    """``2.2x slower`` / ``1.5x faster`` / ``as fast`` (peer against ours, within 5 %)."""
    if 1 / 1.05 < r < 1.05:
        return "as fast"
    return f"{r:.1f}x slower" if r >= 1 else f"{1 / r:.1f}x faster"


# --- The answers ------------------------------------------------------------------------------


@dataclass
class Answer:
    """A text with ``count`` claims, multi-script text before each."""

    text: str
    claims: list[tuple[int, int]]  # character spans
    sources: list[list[int]]  # indices into URLS, per claim


def answer(count: int, seed: int, link: bool = False) -> Answer:
    """``link``: each claim followed by the markdown link OpenAI's web search writes,
    which its url_citation spans (the claims then are that link)."""
    rng = random.Random(seed)
    out: list[str] = []
    claims = []
    sources = []
    size = 0
    for i in range(count):
        cited = rng.sample(range(len(URLS)), 1 if link else rng.choice((1, 2)))
        before = rng.choice(MULTI) + rng.choice(MULTI)
        claim = f"{rng.choice(MULTI).strip()} ⟨{i}⟩"
        if link:
            before += claim + " "
            claim = f"([quelle-{cited[0]}]({URLS[cited[0]]}?utm_source=openai))"
        out += [before, claim, " "]
        start = size + len(before)
        claims.append((start, start + len(claim)))
        sources.append(cited)
        size = start + len(claim) + 1
    return Answer("".join(out), claims, sources)


def char_oracle(a: Answer) -> list[list[Span]]:
    return [[(s, e, URLS[u]) for u in us] for (s, e), us in zip(a.claims, a.sources, strict=True)]


def byte_spans(a: Answer) -> list[tuple[int, int]]:
    """The claims' UTF-8 byte offsets (what Gemini sends)."""
    return [(len(a.text[:s].encode()), len(a.text[:e].encode())) for s, e in a.claims]


def byte_oracle(a: Answer, spans: list[tuple[int, int]]) -> list[list[Span]]:
    """The character spans the byte offsets stand for, by decoding the bytes before them."""
    data = a.text.encode()
    out = []
    for (b0, b1), us in zip(spans, a.sources, strict=True):
        c0, c1 = len(data[:b0].decode()), len(data[:b1].decode())
        out.append([(c0, c1, URLS[u]) for u in us])
    return out


# --- Gemini generateContent -----------------------------------------------------------------


def gemini_response(a: Answer, spans: list[tuple[int, int]]) -> Json:
    """A grounded ``generateContent`` response (REST JSON, as the docs show it)."""
    supports = [
        {"segment": {"startIndex": b0, "endIndex": b1, "text": a.text[s:e]},
         "groundingChunkIndices": us, "confidenceScores": [0.9] * len(us)}
        for (b0, b1), (s, e), us in zip(spans, a.claims, a.sources, strict=True)
    ]  # fmt: skip
    return {
        "candidates": [{
            "content": {"role": "model", "parts": [{"text": a.text}]},
            "finishReason": "STOP", "index": 0,
            "groundingMetadata": {
                "webSearchQueries": ["Kölner Dom Höhe", "東京 首都"],
                "searchEntryPoint": {"renderedContent": "<div class='chips'></div>"},
                "groundingChunks": [{"web": {"uri": u, "title": u[8:30]}} for u in URLS],
                "groundingSupports": supports,
            },
        }],
        "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 900,
                          "totalTokenCount": 909},
        "modelVersion": "gemini-2.5-flash", "responseId": "peers-1",
    }  # fmt: skip


def grounded_spans(g: Grounded) -> list[Span]:
    return [(c.char_start, c.char_end, s.uri or "") for c in g.citations for s in c.sources]


def lc_spans(message: Any) -> list[Span]:
    """The v1 ``citation`` annotations of an ``AIMessage``'s text blocks, as spans of the
    joined text (no ``start_index``: the whole block)."""
    out: list[Span] = []
    at = 0
    for block in message.content_blocks:
        if block.get("type") != "text":
            continue
        for note in block.get("annotations") or []:
            if note.get("type") == "citation":
                start = note.get("start_index", 0)
                end = note.get("end_index", len(block["text"]))
                out.append((at + start, at + end, note.get("url") or ""))
        at += len(block["text"])
    return out


def pai_spans(response: Any) -> list[Span]:
    """pydantic-ai's ``TextPart.citations``, as spans of the joined text parts (an
    anchor's positions count within its part; no anchor: not placed)."""
    from pydantic_ai.messages import TextPart

    out: list[Span] = []
    at = 0
    for part in response.parts:
        if not isinstance(part, TextPart):
            continue
        for citation in part.citations or []:
            if citation.anchor is None:
                continue
            for source in citation.sources:
                out.append((at + citation.anchor.start, at + citation.anchor.end,
                            getattr(source, "url", None) or ""))  # fmt: skip
        at += len(part.content)
    return out


def litellm_spans(response: Any) -> list[Span]:
    """LiteLLM's OpenAI-style ``message.annotations`` of the first choice (Chat
    Completions nests the fields under ``url_citation``; its Responses bridge does not)."""
    message = response.choices[0].message
    out: list[Span] = []
    for note in getattr(message, "annotations", None) or []:
        note = note if isinstance(note, dict) else note.model_dump()
        cite = note.get("url_citation") or note
        out.append((cite["start_index"], cite["end_index"], cite["url"]))
    return out


class _Logging:
    """The part of LiteLLM's logging object its transformations call (no network)."""

    optional_params: dict[str, Any] = {}  # noqa: RUF012
    litellm_params: dict[str, Any] = {}  # noqa: RUF012
    model_call_details: dict[str, Any] = {}  # noqa: RUF012

    def post_call(self, **_: object) -> None:
        return None


def _http(body: Json) -> Any:
    import httpx

    data = json.dumps(body).encode()
    return httpx.Response(200, content=data, request=httpx.Request("POST", "https://peer.test"))


def gemini_case(count: int, seed: int = 5) -> Case:
    a = answer(count, seed)
    spans = byte_spans(a)
    raw = gemini_response(a, spans)
    case = Case(f"Gemini, {count:,} supports", byte_oracle(a, spans),
                Peer(lambda: read(raw), grounded_spans))  # fmt: skip
    case.peers["pydantic-ai"] = _try(lambda: _pai_gemini(raw))
    case.peers["LangChain"] = _try(lambda: _lc_gemini(raw))
    case.peers["LiteLLM"] = _try(lambda: _litellm_gemini(raw))
    return case


def _pai_gemini(raw: Json) -> Peer:
    from google.genai import types
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider

    model = GoogleModel("gemini-2.5-flash", provider=GoogleProvider(api_key="offline"))
    params = ModelRequestParameters()
    convert = types.GenerateContentResponse.model_validate
    sdk = convert(raw)
    return Peer(lambda: model._process_response(convert(raw), params), pai_spans,
                lambda: model._process_response(sdk, params))  # fmt: skip


def _lc_gemini(raw: Json) -> Peer:
    from google.genai import types
    from langchain_google_genai import chat_models

    def given(response: Any) -> object:
        return _blocks(chat_models._response_to_result(response))

    sdk = types.GenerateContentResponse.model_validate(raw)
    return Peer(lambda: given(types.GenerateContentResponse.model_validate(raw)), lc_spans,
                lambda: given(sdk))  # fmt: skip


def _litellm_gemini(raw: Json) -> Peer:
    from litellm.llms.vertex_ai.gemini import vertex_and_google_ai_studio_gemini as gemini
    from litellm.types.utils import ModelResponse

    config = gemini.VertexGeminiConfig()
    http = _http(raw)

    def convert() -> object:
        return config.transform_response(
            model="gemini-2.5-flash", raw_response=http, model_response=ModelResponse(),
            logging_obj=_Logging(), request_data={}, messages=[], optional_params={},
            litellm_params={}, encoding=None,
        )  # fmt: skip

    return Peer(convert, litellm_spans)


def _try(build: Callable[[], Peer]) -> Peer | str:
    """A peer's conversion, or why not (its framework is not installed)."""
    try:
        return build()
    except ImportError as e:
        return f"not installed ({e.name})"


def _blocks(result: Any) -> Any:
    """The ``AIMessage`` of a LangChain ``ChatResult``, its v1 content blocks translated
    (on access, so timed)."""
    message = result.generations[0].message
    message.content_blocks  # noqa: B018
    return message


def _lc_merged(chunks: Iterator[Any]) -> Any:
    """An integration's stream chunks and langchain-core's closing chunk, merged as
    ``invoke`` merges a stream (``generate_from_stream``)."""
    from langchain_core.language_models.chat_models import generate_from_stream
    from langchain_core.messages import AIMessageChunk
    from langchain_core.outputs import ChatGenerationChunk

    last = ChatGenerationChunk(message=AIMessageChunk(content="", chunk_position="last"))
    return _blocks(generate_from_stream(itertools.chain(chunks, [last])))


def _pai_streamed(make: Callable[[Any], Any]) -> Callable[[Iterable[Any]], object]:
    """Runs a pydantic-ai ``StreamedResponse`` (``make`` of its source of SDK objects) to
    the end over some items: its ``ModelResponse``. One event loop, as in an application."""
    from pydantic_ai import _utils

    loop = asyncio.new_event_loop()

    async def run(items: Iterable[Any]) -> object:
        async def source() -> Any:
            for item in items:
                yield item

        streamed = make(_utils.PeekableAsyncStream(source()))
        async for _ in streamed:
            pass
        return streamed.get()

    return lambda items: loop.run_until_complete(run(items))


# --- OpenAI Responses API ---------------------------------------------------------------------


def openai_response(a: Answer) -> Json:
    """A Responses API response with web search: url_citation spans (characters) over the
    markdown links the model wrote (as the API reference shows it)."""
    notes = [{"type": "url_citation", "start_index": s, "end_index": e, "url": URLS[us[0]],
              "title": URLS[us[0]][8:30]}
             for (s, e), us in zip(a.claims, a.sources, strict=True)]  # fmt: skip
    message = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": a.text, "annotations": notes,
                            "logprobs": []}]}  # fmt: skip
    search = {"id": "ws_1", "type": "web_search_call", "status": "completed",
              "action": {"type": "search", "query": "Kölner Dom Höhe"}}  # fmt: skip
    return {
        "id": "resp_1", "object": "response", "created_at": 1764000000, "status": "completed",
        "model": "gpt-5-2025-08-07", "output": [search, message], "error": None,
        "incomplete_details": None, "instructions": None, "metadata": {},
        "parallel_tool_calls": True, "temperature": 1.0, "tool_choice": "auto",
        "tools": [{"type": "web_search"}], "top_p": 1.0,
        "usage": {"input_tokens": 9, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 900, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 909},
    }  # fmt: skip


def openai_case(count: int, seed: int = 6) -> Case:
    a = answer(count, seed, link=True)
    raw = openai_response(a)
    case = Case(f"OpenAI Responses, {count:,} url_citations", char_oracle(a),
                Peer(lambda: read(raw), grounded_spans))  # fmt: skip
    case.peers["pydantic-ai"] = _try(lambda: _pai_openai(raw))
    case.peers["LangChain"] = _try(lambda: _lc_openai(raw))
    case.peers["LiteLLM"] = _try(lambda: _litellm_openai(raw))
    return case


def _pai_openai(raw: Json) -> Peer:
    from openai.types.responses import Response
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.openai import OpenAIResponsesModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIResponsesModel("gpt-5", provider=OpenAIProvider(api_key="offline"))
    params = ModelRequestParameters()
    sdk = Response.construct(**raw)
    return Peer(lambda: model._process_response(Response.construct(**raw), {}, params),
                pai_spans, lambda: model._process_response(sdk, {}, params))  # fmt: skip


def _lc_openai(raw: Json) -> Peer:
    from langchain_openai.chat_models import base
    from openai.types.responses import Response

    def given(response: Any) -> object:
        return _blocks(base._construct_lc_result_from_responses_api(response))

    sdk = Response.construct(**raw)
    return Peer(lambda: given(Response.construct(**raw)), lc_spans, lambda: given(sdk))


def _litellm_openai(raw: Json) -> Peer:
    from litellm.completion_extras.litellm_responses_transformation import transformation
    from litellm.llms.openai.responses.transformation import OpenAIResponsesAPIConfig
    from litellm.types.utils import ModelResponse

    api = OpenAIResponsesAPIConfig()
    bridge = transformation.LiteLLMResponsesTransformationHandler()
    http = _http(raw)

    def convert() -> object:
        response = api.transform_response_api_response("gpt-5", http, _Logging())  # type: ignore[arg-type]
        return bridge.transform_response(
            model="gpt-5", raw_response=response, model_response=ModelResponse(),
            logging_obj=_Logging(), request_data={}, messages=[], optional_params={},
            litellm_params={}, encoding=None,
        )  # fmt: skip

    return Peer(convert, litellm_spans)


# --- Anthropic Messages -----------------------------------------------------------------------


def anthropic_case(count: int, seed: int = 7) -> Case:
    """A message of ``2 * count`` text blocks: multi-script text, then a cited block (web
    search results; Anthropic cites whole blocks)."""
    a = answer(count, seed)
    content: list[Json] = []
    at = 0
    for (s, e), us in zip(a.claims, a.sources, strict=True):
        content.append({"type": "text", "text": a.text[at:s]})
        content.append({"type": "text", "text": a.text[s:e], "citations": [
            {"type": "web_search_result_location", "url": URLS[u], "title": URLS[u][8:30],
             "cited_text": f"Quelle {u}: Köln, 東京, القاهرة", "encrypted_index": f"e{u}"}
            for u in us]})  # fmt: skip
        at = e
    if at < len(a.text):
        content.append({"type": "text", "text": a.text[at:]})
    raw = {"id": "msg_1", "type": "message", "role": "assistant",
           "model": "claude-sonnet-4-5", "content": content, "stop_reason": "end_turn",
           "stop_sequence": None, "usage": {"input_tokens": 9, "output_tokens": 900}}  # fmt: skip
    case = Case(f"Anthropic, {count:,} cited blocks", char_oracle(a),
                Peer(lambda: read(raw), grounded_spans))  # fmt: skip
    case.peers["pydantic-ai"] = _try(lambda: _pai_anthropic(raw))
    case.peers["LangChain"] = _try(lambda: _lc_anthropic(raw))
    case.peers["LiteLLM"] = (
        "no spans: the blocks are joined into one string, each block's citations kept "
        "without a position (provider_specific_fields)"
    )
    return case


def _pai_anthropic(raw: Json) -> Peer:
    from anthropic.types.beta import BetaMessage
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    model = AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(api_key="offline"))
    params = ModelRequestParameters()
    sdk = BetaMessage.construct(**raw)
    return Peer(lambda: model._process_response(BetaMessage.construct(**raw), params, {}),
                pai_spans, lambda: model._process_response(sdk, params, {}))  # fmt: skip


def _lc_anthropic(raw: Json) -> Peer:
    from anthropic.types import Message
    from langchain_anthropic import ChatAnthropic

    llm = ChatAnthropic(model_name="claude-sonnet-4-5", api_key="offline")  # type: ignore[call-arg,arg-type]

    def given(response: Any) -> object:
        return _blocks(llm._format_output(response))

    sdk = Message.construct(**raw)
    return Peer(lambda: given(Message.construct(**raw)), lc_spans, lambda: given(sdk))


# --- Streams ----------------------------------------------------------------------------------


def _pieces(text: str, parts: int) -> list[str]:
    step = len(text) / parts
    at = [round(i * step) for i in range(parts + 1)]
    return [text[a:b] for a, b in itertools.pairwise(at)]


def _sse(events: list[Json], names: bool = False) -> list[str]:
    """The lines of an SSE stream (``event:`` lines where the vendor sends them)."""
    lines: list[str] = []
    for event in events:
        if names:
            lines.append(f"event: {event['type']}")
        lines += [f"data: {json.dumps(event, ensure_ascii=False)}", ""]
    return lines


def gemini_stream_case(chunks: int, supports: int, seed: int = 8) -> Case:
    """``streamGenerateContent?alt=sse``: the text in ``chunks`` chunks, the grounding on
    the last one (offsets count the joined text)."""
    a = answer(supports, seed)
    spans = byte_spans(a)
    whole = gemini_response(a, spans)
    events: list[Json] = []
    for piece in _pieces(a.text, chunks):
        events.append({"candidates": [{"content": {"role": "model", "parts": [{"text": piece}]},
                       "index": 0}], "modelVersion": "gemini-2.5-flash",
                       "responseId": "peers-1"})  # fmt: skip
    last = events[-1]["candidates"][0]
    last["finishReason"] = "STOP"
    last["groundingMetadata"] = whole["candidates"][0]["groundingMetadata"]
    events[-1]["usageMetadata"] = whole["usageMetadata"]
    lines = _sse(events)
    case = Case(f"Gemini stream, {chunks:,} chunks, {supports:,} supports",
                byte_oracle(a, spans), Peer(lambda: read_stream(lines), grounded_spans,
                                            lambda: read_stream(events)))  # fmt: skip
    case.peers["pydantic-ai"] = _try(lambda: _pai_gemini_stream(lines))
    case.peers["LangChain"] = _try(lambda: _lc_gemini_stream(lines))
    case.peers["LiteLLM"] = _try(lambda: _litellm_gemini_stream(lines))
    return case


def _data(lines: list[str]) -> Iterator[Json]:
    """The JSON of each SSE event (what the SDKs do before building their objects)."""
    for line in lines:
        if line.startswith("data:"):
            yield json.loads(line[5:])


def _lc_gemini_stream(lines: list[str]) -> Peer:
    from google.genai import types
    from langchain_core.messages.ai import add_usage
    from langchain_google_genai import chat_models

    def chunks(responses: Iterable[Any]) -> Iterator[Any]:  # as ChatGoogleGenerativeAI._stream
        usage = None
        indexer = chat_models._StreamBlockIndexer()
        for response in responses:
            result = chat_models._response_to_result(response, stream=True, prev_usage=usage)
            gen = result.generations[0]
            indexer.assign(gen.message)
            usage = (gen.message.usage_metadata if usage is None
                     else add_usage(usage, gen.message.usage_metadata))  # fmt: skip
            yield gen

    parse = types.GenerateContentResponse.model_validate
    sdk = [parse(d) for d in _data(lines)]
    return Peer(lambda: _lc_merged(chunks(parse(d) for d in _data(lines))), lc_spans,
                lambda: _lc_merged(chunks(sdk)))  # fmt: skip


def _litellm_stream(iterator: Any) -> object:
    """LiteLLM's chunks of a stream, built into one response (``stream_chunk_builder``)."""
    import litellm
    from litellm.types.utils import ModelResponseStream

    chunks = [c for c in iterator if isinstance(c, ModelResponseStream)]
    return litellm.stream_chunk_builder(chunks)


def _litellm_gemini_stream(lines: list[str]) -> Peer:
    from litellm.llms.vertex_ai.gemini import vertex_and_google_ai_studio_gemini as gemini

    def convert() -> object:
        return _litellm_stream(gemini.ModelResponseIterator(
            streaming_response=iter(lines), sync_stream=True, logging_obj=_Logging()))  # type: ignore[arg-type]  # fmt: skip

    return Peer(convert, litellm_spans)


def _pai_gemini_stream(lines: list[str]) -> Peer:
    from google.genai import types
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.google import GeminiStreamedResponse

    run = _pai_streamed(lambda source: GeminiStreamedResponse(
        model_request_parameters=ModelRequestParameters(), _model_name="gemini-2.5-flash",
        _response=source, _provider_name="google-gla", _model_id_namespace="google-gla",
        _provider_url="https://generativelanguage.googleapis.com/",
    ))  # fmt: skip
    parse = types.GenerateContentResponse.model_validate
    sdk = [parse(d) for d in _data(lines)]
    return Peer(lambda: run(parse(d) for d in _data(lines)), pai_spans, lambda: run(sdk))


def openai_stream_events(a: Answer, deltas: int) -> list[Json]:
    """The events of a Responses API stream (``stream=True``) of the answer: a web
    search, then the text in ``deltas`` deltas, each annotation added once its link has
    arrived (as the API reference lists the events)."""
    final = openai_response(a)
    search, message = final["output"]
    part = message["content"][0]
    where = {"item_id": "msg_1", "output_index": 1, "content_index": 0}
    started = {**final, "status": "in_progress", "output": [], "usage": None}
    events: list[Json] = [
        {"type": "response.created", "response": started},
        {"type": "response.in_progress", "response": started},
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**search, "status": "in_progress"}},
        {"type": "response.output_item.done", "output_index": 0, "item": search},
        {"type": "response.output_item.added", "output_index": 1,
         "item": {**message, "status": "in_progress", "content": []}},
        {"type": "response.content_part.added", **where,
         "part": {"type": "output_text", "text": "", "annotations": [], "logprobs": []}},
    ]  # fmt: skip
    notes = iter(enumerate(part["annotations"]))
    pending = next(notes, None)
    received = 0
    for piece in _pieces(a.text, deltas):
        events.append({"type": "response.output_text.delta", **where, "delta": piece,
                       "logprobs": []})  # fmt: skip
        received += len(piece)
        while pending is not None and pending[1]["end_index"] <= received:
            events.append({"type": "response.output_text.annotation.added", **where,
                           "annotation_index": pending[0], "annotation": pending[1]})  # fmt: skip
            pending = next(notes, None)
    events += [
        {"type": "response.output_text.done", **where, "text": a.text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": part},
        {"type": "response.output_item.done", "output_index": 1, "item": message},
        {"type": "response.completed", "response": final},
    ]
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def openai_stream_case(deltas: int, citations: int, seed: int = 9) -> Case:
    a = answer(citations, seed, link=True)
    events = openai_stream_events(a, deltas)
    lines = _sse(events, names=True)
    case = Case(f"OpenAI Responses stream, {deltas:,} deltas, {citations:,} citations",
                char_oracle(a), Peer(lambda: read_stream(lines), grounded_spans,
                                     lambda: read_stream(events)))  # fmt: skip
    case.peers["pydantic-ai"] = _try(lambda: _pai_openai_stream(lines))
    case.peers["LangChain"] = _try(lambda: _lc_openai_stream(lines))
    case.peers["LiteLLM"] = _try(lambda: _litellm_openai_stream(lines))
    return case


def _openai_events(lines: list[str]) -> Iterator[Any]:
    """The openai SDK's event objects of the SSE lines (what its ``Stream`` builds)."""
    from openai._models import construct_type
    from openai.types.responses import ResponseStreamEvent

    for data in _data(lines):
        yield construct_type(type_=ResponseStreamEvent, value=data)


def _lc_openai_stream(lines: list[str]) -> Peer:
    from langchain_openai.chat_models import base

    def chunks(events: Iterable[Any]) -> Iterator[Any]:  # as ChatOpenAI._stream_responses
        index = output_index = sub_index = -1
        item_output_indices: dict[str, int] = {}
        arguments: dict[str, str] = {}
        for event in events:
            index, output_index, sub_index, gen = (
                base._convert_responses_chunk_to_generation_chunk(
                    event, index, output_index, sub_index, metadata={},
                    item_output_indices=item_output_indices, function_call_arguments=arguments,
                )
            )  # fmt: skip
            if gen:
                yield gen

    sdk = list(_openai_events(lines))
    return Peer(lambda: _lc_merged(chunks(_openai_events(lines))), lc_spans,
                lambda: _lc_merged(chunks(sdk)))  # fmt: skip


def _litellm_openai_stream(lines: list[str]) -> Peer:
    from litellm.completion_extras.litellm_responses_transformation import transformation

    def convert() -> object:
        return _litellm_stream(transformation.OpenAiResponsesToChatCompletionStreamIterator(
            streaming_response=iter(lines), sync_stream=True))  # fmt: skip

    return Peer(convert, litellm_spans)


def _pai_openai_stream(lines: list[str]) -> Peer:
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.openai import OpenAIResponsesModel, OpenAIResponsesStreamedResponse
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIResponsesModel("gpt-5", provider=OpenAIProvider(api_key="offline"))
    run = _pai_streamed(lambda source: OpenAIResponsesStreamedResponse(
        model_request_parameters=ModelRequestParameters(), _model_name="gpt-5",
        _model_settings={}, _response=source, _provider_name="openai",
        _model_id_namespace="openai", _provider_url="https://api.openai.com/v1",
        _tool_call_ids_are_response_scoped=False,
        _process_provider_details=model._process_provider_details,
    ))  # fmt: skip
    sdk = list(_openai_events(lines))
    return Peer(lambda: run(_openai_events(lines)), pai_spans, lambda: run(sdk))


# --- The table ----------------------------------------------------------------------------------

PEERS = {"pydantic-ai": "pydantic-ai", "LangChain": "LangChain (v1 content blocks)",
         "LiteLLM": "LiteLLM"}  # fmt: skip
DISTRIBUTIONS = ("pydantic-ai-slim", "langchain-core", "langchain-google-genai",
                 "langchain-openai", "langchain-anthropic", "litellm", "google-genai",
                 "openai", "anthropic")  # fmt: skip


def cases(supports: tuple[int, ...], chunks: int, stream_citations: int) -> Iterator[Case]:
    for count in supports:
        yield gemini_case(count)
    yield openai_case(supports[-1])
    yield anthropic_case(supports[-1])
    yield gemini_stream_case(chunks, stream_citations)
    yield openai_stream_case(chunks, stream_citations)


def judge(case: Case) -> dict[str, str]:
    """Each reader's verdict on the case (its first calls: a warm-up of the timing too);
    a conversion from parsed input must give the same spans as from the raw one."""
    out = {}
    for name, reader in ({"ours": case.ours} | case.peers).items():
        if isinstance(reader, str):
            out[name] = reader
            continue
        spans = reader.spans(reader.convert())
        if reader.given is not None:
            assert sorted(reader.spans(reader.given())) == sorted(spans), name  # the same job
        out[name] = verdict(case.oracle, spans)
    return out


def cell(name: str, judged: str, times: dict[str, list[float]]) -> tuple[str, str]:
    """A peer's cell of the table, and the line with its figures."""
    if name not in times:
        return "—", f"— ({judged})"
    mid, low, high = ratio(times, name)
    text = f"{shown(mid)}, {judged}"
    line = f"{mid:6.2f}x ours (runs {low:.2f}-{high:.2f}), {judged}"
    if f"{name} given" in times:
        given, _, _ = ratio(times, f"{name} given")
        text += f" ({shown(given)} from parsed input)"
        line += f"; from parsed input {given:.2f}x"
    return text, line


def main(
    supports: tuple[int, ...] = (40, 400), chunks: int = 2_000, stream_citations: int = 200,
    rounds: int = 7, runs: int = RUNS,
) -> dict[str, dict[str, str]]:  # fmt: skip
    """Measure every case; print each one's figures, then the table. Returns the table's
    cells by case and peer."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in DISTRIBUTIONS:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} (not installed)")
    print(f"peers: Python {sys.version.split()[0]}; {', '.join(found)}")
    print(f"CPU time, best of {rounds} interleaved rounds per run, ratio = peer ÷ ours, "
          f"median of {runs} runs; {os.cpu_count()} CPUs seen (others may be busy)")  # fmt: skip
    table: dict[str, dict[str, str]] = {}
    for case in cases(supports, chunks, stream_citations):
        print()
        judged = judge(case)
        times = cpu_ratios(case, rounds, runs)
        ours = judged["ours"]
        print(f"{case.name}: ours {statistics.median(times['ours']) * 1e3:.2f} ms CPU, {ours}")
        table[case.name] = {"ours": ours}
        for name in PEERS:
            text, line = cell(name, judged[name], times)
            table[case.name][name] = text
            print(f"  {name:<12} {line}")
    print()
    print("| case | ours | " + " | ".join(PEERS.values()) + " |")
    print("|:--|:--|" + ":--|" * len(PEERS))
    for name, row in table.items():
        print(f"| {name} | {row['ours']} | " + " | ".join(row[p] for p in PEERS) + " |")
    return table


if __name__ == "__main__":
    main()
