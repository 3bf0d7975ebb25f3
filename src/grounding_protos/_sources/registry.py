"""The one registry of sources (:data:`SOURCES`) and the dispatch over it: which reader
reads an input, and which merger joins a stream.

A source is one entry: the shapes it reads (:class:`Reader`) and, where it streams, how
its stream is recognized and merged (:class:`Stream`). :func:`read_input` decides which
shape an input has and runs that shape's reader; each reader turns it into a
:class:`~grounding_protos._core.raw.RawAnswer` through the field access of
``_core.access`` (messages, proto-plus and SDK objects, REST JSON dicts in camelCase
or snake_case alike). The records keep raw values (an int64 may be a JSON string, a
score anything); ``_core.resolve`` checks and converts them, so ``read`` and
``validate`` share every check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from google.protobuf.message import Message

from grounding_protos._core.access import (
    camel,
    unwrap,
)
from grounding_protos._core.model import Grounded, Problem
from grounding_protos._core.raw import InputShape, RawAnswer
from grounding_protos._exceptions import ArgumentValueError, UnsupportedInputError
from grounding_protos._offsets import Unit
from grounding_protos._sources import azure_on_your_data, openrouter, perplexity, xai
from grounding_protos._sources.anthropic import merger as anthropic_merger
from grounding_protos._sources.anthropic import reader as anthropic
from grounding_protos._sources.bedrock import converse as bedrock_converse
from grounding_protos._sources.bedrock import converse_stream, invoke_agent, invoke_agent_stream
from grounding_protos._sources.bedrock import retrieve_and_generate as bedrock
from grounding_protos._sources.bedrock import retrieve_and_generate_stream as bedrock_stream
from grounding_protos._sources.bedrock.eventstream import AwsStream
from grounding_protos._sources.cohere import merger as cohere_merger
from grounding_protos._sources.cohere import reader as cohere
from grounding_protos._sources.common import unsupported
from grounding_protos._sources.frameworks.adk import merger as adk_merger
from grounding_protos._sources.frameworks.adk import reader as adk
from grounding_protos._sources.frameworks.langchain import merger as langchain_merger
from grounding_protos._sources.frameworks.langchain import reader as langchain
from grounding_protos._sources.frameworks.litellm import merger as litellm_merger
from grounding_protos._sources.frameworks.litellm import reader as litellm
from grounding_protos._sources.frameworks.pydantic_ai import merger as pydantic_ai_merger
from grounding_protos._sources.frameworks.pydantic_ai import reader as pydantic_ai
from grounding_protos._sources.google import check_grounding, search
from grounding_protos._sources.google.answer import merger as answer_merger
from grounding_protos._sources.google.answer import reader as answer
from grounding_protos._sources.google.assist import merger as assist_merger
from grounding_protos._sources.google.assist import reader as assist
from grounding_protos._sources.google.gemini import reader as gemini
from grounding_protos._sources.google.grounded_generation import merger as gg_merger
from grounding_protos._sources.google.grounded_generation import reader as grounded_generation
from grounding_protos._sources.google.interactions import merger as interactions_merger
from grounding_protos._sources.google.interactions import reader as interactions
from grounding_protos._sources.google.live import merger as live_merger
from grounding_protos._sources.google.live import reader as live
from grounding_protos._sources.merging import EventMerger, merge_with
from grounding_protos._sources.mistral import merger as mistral_merger
from grounding_protos._sources.mistral import reader as mistral
from grounding_protos._sources.openai import assistants_stream, chat_stream, responses_stream
from grounding_protos._sources.openai import reader as openai

# --- Dispatch -------------------------------------------------------------------------


@dataclass(frozen=True)
class Reader:
    """One input shape: how to recognize it (from structure only it has) and read it.

    ``keys`` are the fields (snake_case) of which a dict of this shape has at least one:
    the dispatcher skips the reader for a dict with none of them, in either spelling,
    without calling ``matches``.
    """

    shape: InputShape
    matches: Callable[[object], bool]
    read: Callable[[object, int], RawAnswer]  # (input, candidate) -> raw records
    keys: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        spelled = self.keys | {camel(k) for k in self.keys}
        object.__setattr__(self, "keys", frozenset(spelled))


def read_input(obj: object, *, candidate: int = 0, unit: Unit | None = None) -> RawAnswer:
    """Read any supported input into a :class:`RawAnswer`; ``unit`` overrides what the
    shape's offsets are taken to count.

    The readers are tried in the order of :data:`READERS`; a message is read by its
    full type name. ``input_shape`` says which one read it.

    Raises:
        UnsupportedInputError: the object has none of the supported shapes (the
            message names what it saw and the shapes known).
        ArgumentValueError: ``unit`` given for a shape whose spans have no offsets.
    """
    obj = unwrap(obj)
    reader = reader_for(obj)
    raw = reader.read(obj, candidate)
    if raw.input_shape is None:
        raw.input_shape = reader.shape
    if unit is not None:
        if not raw.offsets:
            raise ArgumentValueError(
                f"unit={unit!r} does not apply to {raw.input_shape}: its spans are whole "
                "text blocks, not offsets"
            )
        raw.unit = unit
    return raw


def reader_for(obj: object) -> Reader:
    """The reader of ``obj``'s shape.

    Raises:
        UnsupportedInputError: no reader recognizes it.
    """
    if isinstance(obj, Message):
        shape = _message_shape(obj.DESCRIPTOR.full_name)
        if shape is not None:
            return _BY_SHAPE[shape]
        for reader in READERS:  # another API's message (Gemini, Vertex AI): by structure
            if reader.matches(obj):
                return reader
    elif isinstance(obj, Mapping):
        for reader in _by_keys(obj.keys()):
            if reader.matches(obj):
                return reader
    else:
        for reader in READERS:
            if reader.matches(obj):
                return reader
        if isinstance(obj, (str, bytes, bytearray)):
            raise unsupported(
                obj,
                " (JSON text?): parse it first (json.loads), or use read_stream for a "
                "recorded stream",
            )
    raise unsupported(obj)


def classify(obj: object) -> InputShape | None:
    """The shape ``obj`` has, or ``None`` (no exception).

    >>> classify({"summary": {"summaryText": "…"}}), classify({"content": []})
    ('search_response', None)
    """
    try:
        return reader_for(unwrap(obj)).shape
    except UnsupportedInputError:
        return None


def _message_shape(full_name: str) -> InputShape | None:
    for prefix, names in _MESSAGE_FAMILIES:
        if full_name.startswith(prefix):
            version, _, name = full_name[len(prefix) :].partition(".")
            if version.startswith("v1"):  # v1, v1beta, v1beta1, v1alpha
                return names.get(name)
    return _MESSAGES.get(full_name)


_DISCOVERY_ENGINE_MESSAGES: dict[str, InputShape] = {
    "Answer": "answer",
    "AnswerQueryResponse": "answer_query_response",
    "SearchResponse": "search_response",
    "SearchResponse.Summary": "search_summary",
    "SearchResponse.Summary.SummaryWithMetadata": "summary_with_metadata",
    "AssistAnswer": "assist_answer",
    "StreamAssistResponse": "assist_response",
    "AssistResponse": "assist_response",
    "CheckGroundingResponse": "check_grounding_response",
    "GenerateGroundedContentResponse": "grounded_generation_response",
}
# Gemini's messages, in the Gemini API's and Vertex AI's official clients
_GEMINI_MESSAGES: dict[str, InputShape] = {
    "GenerateContentResponse": "gemini_response",
    "GenerateAnswerResponse": "gemini_answer_response",
    "BidiGenerateContentServerMessage": "live_server_message",
    "Candidate": "gemini_candidate",
    "GroundingMetadata": "grounding_metadata",
    "CitationMetadata": "citation_metadata",
}
_MESSAGE_FAMILIES: tuple[tuple[str, dict[str, InputShape]], ...] = (
    ("google.cloud.discoveryengine.", _DISCOVERY_ENGINE_MESSAGES),
    ("google.ai.generativelanguage.", _GEMINI_MESSAGES),
    ("google.cloud.aiplatform.", _GEMINI_MESSAGES),
)
_MESSAGES: dict[str, InputShape] = {
    "google.cloud.dialogflow.v2beta1.GroundingMetadata": "grounding_metadata",
    "google.ai.generativelanguage.v1beta3.CitationMetadata": "citation_metadata",
}


# --- The sources --------------------------------------------------------------------------

Merge = Callable[[Iterable[tuple[int, object]]], tuple[object, list[Problem]]]
"""A whole-stream merger: the numbered events in, the source's final response and what
merging found out."""


@dataclass(frozen=True)
class Stream:
    """How a source's stream is recognized (from its first event) and merged into the
    source's own final response: by an event-at-a-time merger (``events``, so that
    ``StreamReader`` and the command line's live view show the text as it arrives) or
    by a whole-stream ``merge``."""

    recognizes: Callable[[object], bool]
    merge: Merge | None = None
    events: Callable[[], EventMerger] | None = None
    aws: AwsStream | None = None  # the operation of its raw AWS event stream, if it has one

    def merger(self) -> Merge:
        """The whole-stream merger (an event merger's events fed one by one)."""
        if self.merge is not None:
            return self.merge
        assert self.events is not None
        return merge_with(self.events)


@dataclass(frozen=True)
class Source:
    """One source of citations: the shapes it reads, tried in order (``readers``), the
    fragments of its shape tried only after every source's readers (``fallbacks``), and
    its stream, if it streams. Gemini's chunks are the stream of last resort
    (``_sources.google.gemini.merger.Merger``): a stream no source's ``stream``
    recognizes is merged as Gemini's."""

    name: str
    readers: tuple[Reader, ...]
    stream: Stream | None = None
    fallbacks: tuple[Reader, ...] = ()


def _keys(*names: str) -> frozenset[str]:
    return frozenset(names)


SOURCES: tuple[Source, ...] = (
    Source("grounded_generation", (
        Reader("grounded_generation_response", grounded_generation.is_response,
               grounded_generation.read_grounded_generation, _keys("candidates")),
    ), Stream(gg_merger.is_chunk, gg_merger.merge_grounded_chunks)),
    Source("discovery_engine_answer", (
        Reader("answer_query_response", answer.is_query_response, answer.read_query_response,
               _keys("answer")),
        Reader("answer", answer.is_answer, answer.read_bare_answer,
               _keys("answer_text", "answer_skipped_reasons", "citations",
                     "grounding_supports", "references", "state")),
    ), Stream(answer_merger.is_chunk, answer_merger.merge_numbered)),
    Source("gemini", (
        Reader("gemini_response", gemini.is_response, gemini.read_response,
               _keys("candidates", "prompt_feedback")),
        Reader("gemini_answer_response", gemini.is_answer_response,
               gemini.read_answer_response, _keys("answer")),
    ), fallbacks=(
        Reader("gemini_candidate", gemini.is_candidate, gemini.read_bare_candidate,
               _keys("content", "grounding_metadata", "citation_metadata", "finish_reason")),
        Reader("grounding_metadata", gemini.is_grounding_metadata,
               gemini.read_bare_grounding_metadata,
               _keys("grounding_supports", "grounding_chunks", "web_search_queries",
                     "retrieval_queries", "search_entry_point")),
        Reader("citation_metadata", gemini.is_citation_metadata,
               gemini.read_bare_citation_metadata, _keys("citation_sources", "citations")),
    )),
    Source("discovery_engine_assist", (
        Reader("assist_response", assist.is_assist_response, assist.read_assist_response,
               _keys("answer", "assist_token")),
        Reader("assist_answer", assist.is_assist_answer, assist.read_assist_answer,
               _keys("replies", "assist_skipped_reasons", "name")),
    ), Stream(assist_merger.is_chunk, assist_merger.merge_assist_chunks)),
    Source("discovery_engine_search", (
        Reader("search_response", search.is_search_response, search.read_search_response,
               _keys("summary")),
        Reader("search_summary", search.is_summary, search.read_summary,
               _keys("summary_text", "summary_with_metadata", "summary_skipped_reasons",
                     "safety_attributes")),
        Reader("summary_with_metadata", search.is_summary_with_metadata,
               search.read_summary_with_metadata, _keys("summary")),
    )),
    Source("discovery_engine_check_grounding", (
        Reader("check_grounding_response", check_grounding.is_check_grounding,
               check_grounding.read_check_grounding,
               _keys("claims", "cited_chunks", "cited_facts")),
    )),
    Source("gemini_live", (
        Reader("live_server_message", live.is_live_message, live.read_live_message,
               _keys("server_content")),
    ), Stream(live_merger.is_message, live_merger.merge_turn)),
    Source("gemini_interactions", (
        Reader("interaction", interactions.is_interaction, interactions.read_interaction,
               _keys("steps")),
    ), Stream(interactions_merger.is_event, interactions_merger.merge_numbered)),
    # the frameworks before the other vendors: their objects hold a vendor's shape inside
    # (a chat completion's ``choices``, Anthropic's ``content``) that reader would claim
    Source("langchain", (
        Reader("langchain_message", langchain.is_message, langchain.read_message,
               _keys("response_metadata", "kwargs")),
    ), Stream(langchain_merger.is_chunk, langchain_merger.merge_chunks)),
    Source("litellm", (
        Reader("litellm_response", litellm.is_response, litellm.read_response,
               _keys(litellm.FIELD, "_hidden_params")),
    ), Stream(litellm_merger.is_chunk, litellm_merger.merge_chunks)),
    Source("pydantic_ai", (
        Reader("pydantic_ai_response", pydantic_ai.is_response, pydantic_ai.read_response,
               _keys("parts")),
    ), Stream(pydantic_ai_merger.is_message, pydantic_ai_merger.merge_messages)),
    Source("adk", (
        Reader("adk_session_state", adk.is_state, adk.read_state,
               _keys(adk.STATE_KEY, "state")),
    ), Stream(adk_merger.is_event, adk_merger.merge_events)),
    Source("openai_responses", (
        Reader("openai_response", openai.is_response, openai.read_response, _keys("output")),
    ), Stream(responses_stream.is_event, events=responses_stream.ResponsesMerger)),
    # the marker-style sources before Chat Completions, whose layout they share; xAI's
    # before Perplexity's (both have a top-level ``citations`` list)
    Source("xai_chat", (
        Reader("xai_chat_completion", xai.is_xai, xai.read_xai, _keys("citations")),
    )),
    Source("perplexity", (
        Reader("perplexity_chat_completion", perplexity.is_perplexity,
               perplexity.read_perplexity, _keys("citations", "search_results")),
    )),
    # a chat completion whose content is a list of chunks: Mistral's (its chat stream is
    # a Chat Completions one, merged by openai_chat's merger into this shape); its stream
    # here is the Conversations API's
    Source("mistral", (
        Reader("mistral_chat_completion", mistral.is_chat_completion,
               mistral.read_chat_completion, _keys("choices")),
        Reader("mistral_conversation", mistral.is_conversation, mistral.read_conversation,
               _keys("outputs")),
        # a list (the chat's messages), never a dict: no keys
        Reader("mistral_chat_history", mistral.is_chat_history, mistral.read_chat_history),
    ), Stream(mistral_merger.is_event, events=mistral_merger.ConversationMerger)),
    Source("azure_on_your_data", (
        Reader("azure_on_your_data_chat_completion", azure_on_your_data.is_on_your_data,
               azure_on_your_data.read_on_your_data, _keys("choices")),
    )),
    Source("openrouter_perplexity", (
        Reader("openrouter_perplexity_chat_completion", openrouter.is_openrouter,
               openrouter.read_openrouter, _keys("choices")),
    )),
    Source("openai_chat", (
        Reader("openai_chat_completion", openai.is_chat_completion,
               openai.read_chat_completion, _keys("choices")),
    ), Stream(chat_stream.is_chunk, events=chat_stream.ChatMerger)),
    Source("openai_assistants", (
        Reader("openai_thread_message", openai.is_thread_message, openai.read_thread_message,
               _keys("content")),
        Reader("openai_message_list", openai.is_message_list, openai.read_message_list,
               _keys("data")),
    ), Stream(assistants_stream.is_event, events=assistants_stream.RunMerger)),
    Source("anthropic", (
        Reader("anthropic_message", anthropic.is_message, anthropic.read_message,
               _keys("content")),
    ), Stream(anthropic_merger.is_event, events=anthropic_merger.MessageMerger)),
    Source("cohere", (
        Reader("cohere_chat", cohere.is_chat, cohere.read_chat, _keys("message")),
    ), Stream(cohere_merger.is_event, events=cohere_merger.ChatMerger)),
    Source("bedrock_converse", (
        Reader("bedrock_converse", bedrock_converse.is_converse, bedrock_converse.read_converse,
               _keys("output")),
    ), Stream(converse_stream.is_event, events=converse_stream.ConverseMerger,
              aws=converse_stream.EVENTSTREAM)),
    Source("bedrock_retrieve_and_generate", (
        Reader("bedrock_retrieve_and_generate", bedrock.is_retrieve_and_generate,
               bedrock.read_retrieve_and_generate, _keys("output")),
    ), Stream(bedrock_stream.is_event, events=bedrock_stream.RetrieveAndGenerateMerger,
              aws=bedrock_stream.EVENTSTREAM)),
    Source("bedrock_invoke_agent", (
        Reader("bedrock_invoke_agent", invoke_agent.is_chunk, invoke_agent.read_chunk,
               _keys("chunk")),
    ), Stream(invoke_agent_stream.is_event, events=invoke_agent_stream.InvokeAgentMerger,
              aws=invoke_agent_stream.EVENTSTREAM)),
)  # fmt: skip
"""Every source, once: a new source is one more entry here (and its folder)."""

READERS: tuple[Reader, ...] = (
    *(reader for source in SOURCES for reader in source.readers),
    *(reader for source in SOURCES for reader in source.fallbacks),
)
"""Every reader, in the order they are tried; the first whose ``matches`` accepts an
input reads it."""

STREAMS: tuple[Stream, ...] = tuple(s.stream for s in SOURCES if s.stream is not None)
"""Every source's stream, in the order they are recognized."""


AWS_STREAMS: tuple[AwsStream, ...] = tuple(s.aws for s in STREAMS if s.aws is not None)
"""The operations whose raw AWS event streams are read (the first event picks one)."""


def stream_of(value: object) -> Stream | None:
    """The stream whose first event is ``value`` (decoded), or ``None`` for a Gemini
    chunk (or anything else, which the Gemini merger reports)."""
    for stream in STREAMS:
        if stream.recognizes(value):
            return stream
    return None


_BY_SHAPE: dict[InputShape, Reader] = {r.shape: r for r in READERS}


def _index_keys() -> dict[str, tuple[int, ...]]:
    index: dict[str, list[int]] = {}
    for i, reader in enumerate(READERS):
        for key in reader.keys:
            index.setdefault(key, []).append(i)
    return {key: tuple(found) for key, found in index.items()}


_BY_KEY: dict[str, tuple[int, ...]] = _index_keys()
"""For each key a mapping may hold, the readers (their places in :data:`READERS`)
whose shape has it at the top level."""


def _by_keys(keys: Iterable[object]) -> list[Reader]:
    """The readers whose shape shares a key with ``keys``, in :data:`READERS`' order: a
    mapping's candidates, found by its keys rather than by asking every reader."""
    found: set[int] = set()
    for key in keys:
        places = _BY_KEY.get(key)  # type: ignore[call-overload]
        if places is not None:
            found.update(places)
    return [READERS[i] for i in sorted(found)]


# --- Declared shapes: whole responses decoded at C speed -----------------------------------


class Declared(Protocol):
    """A source's declared shape (msgspec Structs beside its reader) and the fast reader
    of what they hold: ``None`` from any of them sends the input the tolerant way.
    ``UNIT`` is what its offsets count (``None``: it has none, whole blocks are cited):
    ``read(..., unit=...)`` takes the fast path only for that unit."""

    @property
    def UNIT(self) -> Unit | None: ...  # a module's constant

    def decode(self, data: str | bytes) -> Any: ...

    def convert(self, obj: dict[str, Any]) -> Any: ...

    def grounded(self, response: Any, candidate: int) -> Grounded | None: ...


DECLARED: frozenset[InputShape] = frozenset(
    {"gemini_response", "openai_response", "anthropic_message"}
)
"""The shapes that :func:`declared` has a declared shape for."""


def declared(shape: InputShape) -> Declared | None:
    """The declared shape of an input shape, where it has one, imported on first use
    (msgspec is not imported with the registry)."""
    if shape == "gemini_response":
        from grounding_protos._sources.google.gemini import shape as gemini_shape

        return gemini_shape
    if shape == "openai_response":
        from grounding_protos._sources.openai import shape as openai_shape

        return openai_shape
    if shape == "anthropic_message":
        from grounding_protos._sources.anthropic import shape as anthropic_shape

        return anthropic_shape
    return None
