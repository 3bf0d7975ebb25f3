"""Schema-neutral citation records: :class:`Source`, :class:`Citation`, :class:`Grounded`.

Pure data (frozen dataclasses, picklable, hashable), no protobuf: every input kind
(our messages, official client objects, google-genai objects, REST JSON) is read
into these, and rendering, validation and conversion work on them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Literal
from urllib.parse import urlsplit

SourceKind = Literal[
    "web",  # GroundingChunk.web
    "retrieved_context",  # GroundingChunk.retrieved_context
    "maps",  # Gemini GroundingChunk.maps
    "chunk",  # Answer.Reference.chunk_info
    "unstructured_document",  # Answer.Reference.unstructured_document_info
    "structured_document",  # Answer.Reference.structured_document_info
    "citation_source",  # CitationMetadata's CitationSource / Gemini Citation
    "document",  # another vendor's document or file (Anthropic, OpenAI, Cohere, Bedrock)
    "other",
]
CitationKind = Literal["citation", "support"]
SpanPolicy = Literal["strict", "repair", "skip"]
"""What :func:`~grounding_protos.citations.read` does with a span whose offsets are wrong:
raise (``"strict"``), re-anchor it on its own text or raise (``"repair"``), or
re-anchor it or leave it out (``"skip"``); every repair and skip is a :class:`Problem`."""

REDIRECT_HOSTS = frozenset({"vertexaisearch.cloud.google.com"})
"""Hosts of grounding redirects (Gemini API and Vertex AI grounding with Google Search):
their URIs say nothing about the page."""
_EXCERPT = 60


@dataclass(frozen=True, slots=True)
class Source:
    """Where a cited claim comes from: a web page, a document, a chunk, a place, a work.

    ``id`` is what the response uses to point at it (a ``reference_id``, the index of
    a grounding chunk); every other field is ``None`` (or empty) when the schema does
    not carry it. ``text`` is the retrieved text (chunk content, retrieved context).
    Kind-specific fields: ``place_id`` (Maps), ``file_search_store`` and
    ``custom_metadata`` (File Search, as ``(key, value)`` pairs), ``redirect_uri``
    (the grounding redirect ``uri`` was resolved from, see ``resolve_urls``).

    >>> Source(uri="https://example.com", title="Example").label
    'Example'
    >>> Source(uri="https://www.example.com/a/b", kind="web").label
    'www.example.com'
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
    place_id: str | None = None
    file_search_store: str | None = None
    custom_metadata: tuple[tuple[str, str], ...] = ()
    redirect_uri: str | None = None

    @property
    def label(self) -> str:
        """A short human label, never a bare index.

        The title; else, by kind, what identifies the source best: a web page's
        domain (never a grounding redirect's host), a place's id, a file-search
        document or store, a ``customMetadata`` URL or title, the document, an
        excerpt of the retrieved text; ``"(untitled web page)"`` or
        ``"(untitled source)"`` when there is nothing at all.

        >>> Source(kind="maps", place_id="ChIJ9Q").label
        'place ChIJ9Q'
        >>> Source(kind="retrieved_context", text="Opening hours: 9 to 5.").label
        '“Opening hours: 9 to 5.”'
        >>> Source(kind="web").label
        '(untitled web page)'
        """
        if self.title:
            return self.title
        for key, value in self.custom_metadata:
            if key.lower() in ("title", "name", "source_title") and value:
                return value
        if self.kind == "maps" and self.place_id:
            return f"place {self.place_id}"
        uri = self.uri if self.uri and not _is_redirect(self.uri) else None
        if self.kind == "web":
            host = self.domain or (_host(uri) if uri else None)
            return host or uri or "(untitled web page)"
        for named in (self.document, uri):
            if named:
                return named
        for key, value in self.custom_metadata:
            if "url" in key.lower() or "uri" in key.lower():
                return value
        if self.file_search_store:
            return self.file_search_store
        if self.text and self.text.strip():
            return f"“{_excerpt(self.text)}”"
        for named in (self.chunk, self.uri, self.domain):
            if named:
                return named
        return "(untitled source)"

    @property
    def key(self) -> object:
        """What makes two sources one entry in a source list: the same document, else
        the same URI, else equality. Chunks of one document share one number.

        >>> a = Source(document="d/1", chunk="c/1", kind="chunk")
        >>> a.key == Source(document="d/1", chunk="c/2", kind="chunk").key
        True
        """
        if self.document:
            return ("document", self.document)
        if self.uri and not _is_redirect(self.uri):
            return ("uri", self.uri)
        return self


def _host(uri: str) -> str | None:
    try:
        return urlsplit(uri).hostname or None
    except ValueError:
        return None


def _is_redirect(uri: str) -> bool:
    return _host(uri) in REDIRECT_HOSTS


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT else flat[: _EXCERPT - 1].rstrip() + "…"


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

    The citations :func:`~grounding_protos.citations.read` gives share the one answer
    text and slice ``text`` from it when asked, so N citations over a T-character text
    take memory O(N + T), however long their spans; equality, hashing and pickling see
    ``text`` as a value, as for any field.

    >>> tower = Source(uri="https://tower.example", title="Tokyo Tower")
    >>> c = Citation(start=0, end=12, char_start=0, char_end=4, text="東京タワ", sources=(tower,))
    >>> c == Citation(0, 12, 0, 4, "東京タワ", (tower,))
    True
    >>> Citation(start=57, end=89, sources=(tower,)).char_start is None
    True
    """

    start: int
    end: int
    char_start: int | None = None
    char_end: int | None = None
    text: str | None = None
    sources: tuple[Source, ...] = ()
    kind: CitationKind = "citation"
    score: float | None = None
    source_scores: tuple[float, ...] = ()
    part: int | None = None
    path: str = ""


class SharedText:
    """The answer text the citations of one answer slice their ``text`` from.

    Held in a :class:`Citation`'s ``text`` slot in place of a copy of the cited text;
    pickled once per pickle however many citations hold it (pickle's memo).
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __reduce__(self) -> tuple[type[SharedText], tuple[str]]:
        return SharedText, (self.text,)


# ``Citation.text`` is a property over the slot the dataclass made for the field: the
# slot holds the text itself (what a caller passed, or an 0.1 pickle held) or the
# answer's SharedText, which the property slices by the citation's characters.
_TEXT_SLOT = Citation.__dict__["text"]
_FIELDS = tuple(f.name for f in fields(Citation))


def _citation_text(self: Citation) -> str | None:
    value = _TEXT_SLOT.__get__(self, Citation)
    if type(value) is SharedText:
        return value.text[self.char_start : self.char_end]
    return value  # type: ignore[no-any-return]


def _citation_getstate(self: Citation) -> list[object]:
    # the layout of 0.1's pickles (a list of the field values, in order), with the
    # SharedText in place of the text where the citation shares the answer's
    return [
        _TEXT_SLOT.__get__(self, Citation) if n == "text" else getattr(self, n) for n in _FIELDS
    ]


def _citation_setstate(self: Citation, state: list[object]) -> None:
    for name, value in zip(_FIELDS, state, strict=True):
        object.__setattr__(self, name, value)


setattr(  # noqa: B010 (mypy sees the field's type, str | None)
    Citation,
    "text",
    property(_citation_text, _TEXT_SLOT.__set__, doc="The cited text (``None`` without one)."),
)
setattr(Citation, "__getstate__", _citation_getstate)  # noqa: B010
setattr(Citation, "__setstate__", _citation_setstate)  # noqa: B010


def replace_citation(citation: Citation, **changes: object) -> Citation:
    """``dataclasses.replace(citation, **changes)``, still sharing the answer text when
    neither the text nor the characters change (``dataclasses.replace`` copies it)."""
    if "text" in changes or "char_start" in changes or "char_end" in changes:
        return replace(citation, **changes)  # type: ignore[arg-type]
    state = _citation_getstate(citation)
    for name, value in changes.items():
        state[_FIELDS.index(name)] = value
    new = object.__new__(Citation)
    _citation_setstate(new, state)
    return new


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


@dataclass(frozen=True, slots=True)
class UrlStatus:
    """One URL the model was given to read (Gemini URL context) and whether it could."""

    url: str
    status: str


@dataclass(frozen=True, slots=True)
class SearchInfo:
    """What the response says about its search, some of which Google requires to be shown.

    ``queries`` are the web search queries (``webSearchQueries``); ``rendered_content``
    is the Search Suggestions chip (``searchEntryPoint.renderedContent``, HTML and CSS
    that the Grounding with Google Search terms require applications to display);
    ``retrieval_queries`` the queries run against a data store; ``url_statuses`` the
    URL-context retrieval results.
    """

    queries: tuple[str, ...] = ()
    rendered_content: str | None = None
    retrieval_queries: tuple[str, ...] = ()
    url_statuses: tuple[UrlStatus, ...] = ()

    def __bool__(self) -> bool:
        return bool(
            self.queries or self.rendered_content or self.retrieval_queries or self.url_statuses
        )


@dataclass(frozen=True, slots=True)
class Grounded:
    """An answer text with its citations, as :func:`grounding_protos.citations.read` gives.

    ``text`` is the answer text (joined text parts for Gemini), ``None`` when the
    input held none and none was passed. ``declared_sources`` lists every source the
    response declares (grounding chunks, references, inline citation sources) in
    declaration order, cited or not; :attr:`sources` the ones the citations use, in
    order of first use, and :attr:`uncited_sources` the rest. ``problems`` records every
    span that was repaired or skipped (and, for streams, what was incomplete); nothing
    is moved or dropped without one. ``shape`` names what was read (``"gemini_response"``,
    ``"answer"``, …, one of ``citations.SHAPES``); ``search`` holds the search queries
    and Search Suggestions; ``finish_reason`` the candidate's, where the input has one.
    ``skipped_reasons`` says why the vendor gave no (or no full) answer
    (``answerSkippedReasons``, ``summarySkippedReasons``), ``safety`` the
    ``(category, score)`` safety attributes of a search summary.
    """

    text: str | None
    citations: list[Citation] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    declared_sources: list[Source] = field(default_factory=list)
    shape: str = ""
    search: SearchInfo = field(default_factory=SearchInfo)
    finish_reason: str | None = None
    skipped_reasons: tuple[str, ...] = ()
    safety: tuple[tuple[str, float | None], ...] = ()

    @property
    def sources(self) -> list[Source]:
        """The distinct sources of all citations, in order of first appearance."""
        return list(dict.fromkeys(s for c in self.citations for s in c.sources))

    @property
    def uncited_sources(self) -> list[Source]:
        """The declared sources no citation uses, in declaration order."""
        cited = {s.key for c in self.citations for s in c.sources}
        out: dict[object, Source] = {}
        for source in self.declared_sources:
            if source.key not in cited:
                out.setdefault(source.key, source)
        return list(out.values())


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
