"""Schema-neutral citation records: :class:`Source`, :class:`Citation`, :class:`Grounded`.

Pure data (frozen dataclasses, picklable, hashable), no protobuf: every input kind
(our messages, official client objects, google-genai objects, REST JSON) is read
into these, and rendering, validation and conversion work on them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

SourceKind = Literal[
    "web",  # GroundingChunk.web
    "retrieved_context",  # GroundingChunk.retrieved_context
    "maps",  # Gemini GroundingChunk.maps
    "chunk",  # Answer.Reference.chunk_info
    "unstructured_document",  # Answer.Reference.unstructured_document_info
    "structured_document",  # Answer.Reference.structured_document_info
    "citation_source",  # CitationMetadata's CitationSource / Gemini Citation
    "other",
]
CitationKind = Literal["citation", "support"]


@dataclass(frozen=True, slots=True)
class Source:
    """Where a cited claim comes from: a web page, a document, a chunk, a licensed work.

    ``id`` is what the response uses to point at it (a ``reference_id``, the index of
    a grounding chunk); every other field is ``None`` when the schema does not carry
    it. ``text`` is the retrieved text (chunk content, retrieved context).

    >>> Source(uri="https://example.com", title="Example").label
    'Example'
    """

    uri: str | None = None
    title: str | None = None
    id: str | None = None
    kind: SourceKind = "other"
    domain: str | None = None
    license: str | None = None
    document: str | None = None
    chunk: str | None = None
    page: str | None = None
    text: str | None = None
    score: float | None = None
    publication_date: str | None = None

    @property
    def label(self) -> str:
        """A short human label: the title, else the URI, else the document, else the id."""
        for value in (self.title, self.uri, self.document, self.chunk, self.id):
            if value:
                return value
        return "(unnamed source)"


@dataclass(frozen=True, slots=True)
class Citation:
    """A span of the answer text and the sources that support it.

    ``start``/``end`` are UTF-8 *byte* offsets into the answer text (for a multi-part
    Gemini response, into the joined text parts); ``char_start``/``char_end`` are the
    same span in Python ``str`` positions and ``text`` the cited text, all ``None``
    when no answer text was available. ``kind`` says whether it came from a citation
    or from a grounding support; ``score`` is the support's grounding score and
    ``source_scores`` the per-source confidence scores, where the schema has them.
    ``path`` is where the span was found in the input (``citations[3]``).
    """

    start: int
    end: int
    char_start: int | None
    char_end: int | None
    text: str | None
    sources: tuple[Source, ...]
    kind: CitationKind = "citation"
    score: float | None = None
    source_scores: tuple[float, ...] = ()
    part: int | None = None
    path: str = ""


@dataclass(frozen=True, slots=True)
class Grounded:
    """An answer text with its citations, as :func:`grounding_protos.citations.read` gives.

    ``text`` is the answer text (joined text parts for Gemini), ``None`` when the
    input held none and none was passed; ``sources`` lists every source the
    citations use, in order of first use.
    """

    text: str | None
    citations: list[Citation] = field(default_factory=list)

    @property
    def sources(self) -> list[Source]:
        """The distinct sources of all citations, in order of first appearance."""
        return list(dict.fromkeys(s for c in self.citations for s in c.sources))


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a grounded answer, as :func:`grounding_protos.validate` reports.

    ``code`` is stable and machine-readable (``"offset-splits-character"``), ``message``
    says what and why, ``path`` points at the field (``citations[3].end_index``, with
    proto field names whatever the input's spelling).
    """

    code: str
    message: str
    path: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message} [{self.code}]" if self.path else self.message


def cited_characters(citations: Iterable[Citation]) -> int:
    """How many characters at least one citation with sources covers (overlaps count once).

    >>> a, b = (Citation(0, 0, 0, 5, None, (Source(),)), Citation(0, 0, 3, 8, None, (Source(),)))
    >>> cited_characters([a, b])
    8
    """
    spans = sorted(
        (c.char_start, c.char_end)
        for c in citations
        if c.sources and c.char_start is not None and c.char_end is not None
    )
    covered = reach = 0
    for start, end in spans:
        start = max(start, reach)
        if end > start:
            covered += end - start
            reach = end
    return covered
