"""Raw span records: what a reader found in an input, values unchecked.

Every reader (one per input shape) produces a :class:`RawAnswer`; ``_core.resolve``
checks and converts its values, so ``read`` and ``validate`` share every check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from grounding_protos._core.model import CitationKind, Problem, SearchInfo, Source
from grounding_protos._offsets import Unit

Shape = Literal["answer", "grounding_metadata", "citation_metadata", "candidate", "none"]
"""The schema a reader's spans and sources follow (what ``validate`` checks JSON types
against); ``"none"`` for shapes without one of our schemas (search summaries, other
vendors)."""

InputShape = Literal[
    "gemini_response",
    "gemini_candidate",
    "gemini_answer_response",
    "grounding_metadata",
    "citation_metadata",
    "answer",
    "answer_query_response",
    "search_response",
    "search_summary",
    "summary_with_metadata",
    "interaction",
    "assist_answer",
    "assist_response",
    "check_grounding_response",
    "grounded_generation_response",
    "live_server_message",
    "openai_response",
    "openai_chat_completion",
    "openai_thread_message",
    "openai_message_list",
    "perplexity_chat_completion",
    "mistral_chat_completion",
    "mistral_conversation",
    "mistral_chat_history",
    "xai_chat_completion",
    "azure_on_your_data_chat_completion",
    "openrouter_perplexity_chat_completion",
    "anthropic_message",
    "cohere_chat",
    "bedrock_retrieve_and_generate",
    "bedrock_converse",
    "bedrock_invoke_agent",
    "langchain_message",
    "litellm_response",
    "pydantic_ai_response",
    "adk_session_state",
]
"""What :func:`~grounding_protos.citations.read` read, as ``Grounded.shape`` names it."""

SHAPES: tuple[InputShape, ...] = get_args(InputShape)
"""Every value ``Grounded.shape`` can take."""


RefKind = Literal["chunk_index", "reference_id"]
"""What a span's references are: indices into ``raw.sources``, or ``reference_id`` values."""


@dataclass(slots=True)
class RawSpan:
    """A span as found in the input, values unchecked.

    Paths are kept relative to ``path`` and are only joined when a problem names them:
    a reader spends no string work on paths that stay unused.
    """

    path: str  # the span record: "citations[3]"
    start: object
    end: object
    kind: CitationKind
    part: object = None
    part_relative: bool = False  # offsets relative to the content part `part` (Gemini)
    segment_text: object = None
    refs: list[object] = field(default_factory=list)  # chunk indices or reference ids
    ref_kind: RefKind = "chunk_index"
    ref_path: str = ""  # where ref j is, after `path`, "{}" standing for j: ".sources[{}]"
    offsets: str = ""  # where start/end/part live, after `path`: ".segment"
    inline_source: Source | None = None  # CitationSource carries its own source
    # refs index a table of their own: (where it starts in raw.sources, its size, its
    # path for problems); None: raw.sources itself
    ref_window: tuple[int, int, str] | None = None
    anchor: bool = False  # no offsets: placed where segment_text occurs, once, in the text
    score: object = None
    source_scores: list[object] = field(default_factory=list)
    # the input's names of the start, end and part fields, for problem paths
    names: tuple[str, str, str] = ("start_index", "end_index", "part_index")
    # what the input gave for the list of refs when it is no list (a JSON string, number
    # or object: ``"groundingChunkIndices": "0"``), for resolve to report; refs is empty
    refs_not_a_list: object = None

    @property
    def offsets_path(self) -> str:
        """Where the offsets live: ``"grounding_supports[3].segment"``."""
        return self.path + self.offsets

    def ref_at(self, j: int) -> str:
        """Where reference ``j`` is: ``"citations[3].sources[1].reference_id"``."""
        return self.path + self.ref_path.format(j)


@dataclass(slots=True)
class RawPart:
    """One part of the answer's content (Gemini), by its index among all parts."""

    index: int
    text: str | None  # None: not a text part
    thought: bool


@dataclass
class RawAnswer:
    """Everything read from one input, before checks."""

    shape: Shape
    prefix: str  # path prefix of the citation-bearing object ("candidates[0].")
    text: str | None = None
    parts: list[RawPart] | None = None  # Gemini content parts, when present
    spans: list[RawSpan] = field(default_factory=list)
    sources: list[tuple[str, Source]] = field(default_factory=list)  # (path, source)
    source_kind: Literal["chunks", "references", "none"] = "none"
    unit: Unit = "byte"  # what the span offsets count
    input_shape: InputShape | None = None  # what was read, as Grounded.shape names it
    search: SearchInfo = field(default_factory=SearchInfo)
    finish_reason: str | None = None
    skipped_reasons: tuple[str, ...] = ()  # why the vendor gave no (full) answer
    safety: tuple[tuple[str, float | None], ...] = ()  # (category, score) attributes
    offsets: bool = True  # False: the reader made the spans itself (unit= does not apply)
    score: object = None  # the response's score of the whole answer (supportScore, ...)
    # declared sources no span points at by index: sources of the whole answer (AQA
    # grounding attributions), places a Maps tool returned (Interactions)
    answer_sources: list[tuple[str, Source]] = field(default_factory=list)
    # character ranges of the citation markers in the text (Perplexity's "[1]", Azure's
    # "[doc1]", xAI's "[[1]](url)"), which
    # read(markers="remove") cuts out
    markers: list[tuple[int, int]] = field(default_factory=list)
    # what the reader found about the input beside its spans, recorded in
    # Grounded.problems: a framework's copy of the citations that disagrees with the
    # provider's (raised under "strict": ``_core.resolve.STRICT_NOTES``), a
    # span placed by its text because the framework lost the offsets' frame
    notes: list[Problem] = field(default_factory=list)

    @property
    def declared_sources(self) -> list[Source]:
        """Every source the input declares: its table, inline citation sources, then the
        sources of the whole answer."""
        inline = [s.inline_source for s in self.spans if s.inline_source is not None]
        whole = [source for _, source in self.answer_sources]
        return [source for _, source in self.sources] + inline + whole
