"""Schema-neutral citation records: :class:`Source`, :class:`Citation`, :class:`Grounded`.

Pure data (frozen dataclasses, picklable, hashable), no protobuf: every input kind
(our messages, official client objects, google-genai objects, REST JSON) is read
into these, and rendering, validation and conversion work on them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal
from urllib.parse import urlsplit

from grounding_protos._exceptions import ArgumentValueError
from grounding_protos._public import public

SourceKind = Literal[
    "web",  # GroundingChunk.web, an Interactions url_citation
    "retrieved_context",  # GroundingChunk.retrieved_context, an Interactions file_citation
    "maps",  # Gemini GroundingChunk.maps, an Interactions place_citation
    "image",  # Gemini GroundingChunk.image, grounded generation's image metadata
    "chunk",  # Answer.Reference.chunk_info, an Assist reference, a semantic retriever chunk
    "unstructured_document",  # Answer.Reference.unstructured_document_info
    "structured_document",  # Answer.Reference.structured_document_info
    "citation_source",  # CitationMetadata's CitationSource / Gemini Citation
    "fact_chunk",  # a FactChunk of check grounding and grounded generation
    "passage",  # an AQA grounding passage (GroundingAttribution.source_id.grounding_passage)
    "document",  # another vendor's document or file (Anthropic, OpenAI, Cohere, Bedrock)
    "other",
]
CitationKind = Literal["citation", "support", "marker"]
"""Where a span came from: a vendor's citation with offsets (``"citation"``), a grounding
support (``"support"``), or a citation marker in the text (``"marker"``: Perplexity's
``[n]``), whose span is the sentence or clause before the marker by this package's rule
(docs/inputs.md), not a span the vendor stated."""
SpanPolicy = Literal["strict", "repair", "skip"]
"""What :func:`~grounding_protos.citations.read` does with a span whose offsets are wrong:
raise (``"strict"``), re-anchor it on its own text or raise (``"repair"``), or
re-anchor it or leave it out (``"skip"``); every repair and skip is a :class:`Problem`."""

REDIRECT_HOSTS = frozenset({"vertexaisearch.cloud.google.com"})
"""Hosts of grounding redirects (Gemini API and Vertex AI grounding with Google Search):
their URIs say nothing about the page."""
_EXCERPT = 60
_set = object.__setattr__


# --- What one kind of source carries besides the common fields -----------------------------


@dataclass(frozen=True, slots=True)
class WorkInfo:
    """A cited work (``CitationSource``, Gemini's and Vertex AI's ``Citation``): its
    license (required for code) and publication date (``YYYY``, ``YYYY-MM`` or
    ``YYYY-MM-DD``)."""

    license: str | None = None
    publication_date: str | None = None


@dataclass(frozen=True, slots=True)
class ReviewAuthor:
    """Who wrote a Google Maps review (``authorAttribution``): the name to show, and the
    links to their profile and photo."""

    name: str | None = None
    uri: str | None = None
    photo_uri: str | None = None


@dataclass(frozen=True, slots=True)
class ReviewSnippet:
    """A Google Maps review that supports a place (``placeAnswerSources.reviewSnippets``).

    ``uri`` links to the review on Google Maps (``googleMapsUri``), ``flag_uri`` to the
    page where a user reports it (``flagContentUri``); ``published`` is the relative
    time Google gives (``relativePublishTimeDescription``, "2 months ago").
    """

    id: str | None = None
    title: str | None = None
    uri: str | None = None
    text: str | None = None
    author: ReviewAuthor | None = None
    flag_uri: str | None = None
    published: str | None = None


@dataclass(frozen=True, slots=True)
class Route:
    """A route of a Maps grounding chunk: distance, duration (``"1234s"``) and polyline."""

    distance_meters: int | None = None
    duration: str | None = None
    encoded_polyline: str | None = None


@dataclass(frozen=True, slots=True)
class PlaceInfo:
    """A Google Maps place (``GroundingChunk.maps``, an Interactions ``place_citation``).

    ``flag_uri`` is where a user reports the place's content (``placeAnswerSources.
    flagContentUri``, or the ``sourceFlaggingUris`` entry of its place id); ``reviews``
    are the review snippets behind the answer. Google's Maps grounding terms ask apps to
    show both with the source, attributed to Google Maps (``docs/render.md``).
    """

    place_id: str | None = None
    reviews: tuple[ReviewSnippet, ...] = ()
    flag_uri: str | None = None
    route: Route | None = None


@dataclass(frozen=True, slots=True)
class FileInfo:
    """Retrieved context from files or a data store (File Search, RAG Engine, Vertex AI
    Search, an Interactions ``file_citation``): the File Search store, the page span of
    a RAG chunk (``ragChunk.pageSpan``, inclusive), the media id of an image citation, and
    the RAG chunk's and file's ids."""

    store: str | None = None
    first_page: int | None = None
    last_page: int | None = None
    media_id: str | None = None
    chunk_id: str | None = None
    file_id: str | None = None


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """An image found by search (``GroundingChunk.image``; grounded generation's image
    metadata): the image itself, and its thumbnail. ``Source.uri`` is the page it is on."""

    image_uri: str | None = None
    thumbnail_uri: str | None = None
    width: int | None = None
    height: int | None = None


@dataclass(frozen=True, slots=True)
class PassageInfo:
    """An AQA grounding passage: which part of the passage's content was used
    (``groundingPassage.partIndex``). ``Source.id`` is the passage id."""

    part_index: int | None = None


@dataclass(frozen=True, slots=True)
class LocationInfo:
    """Where in a source of the request the cited text is (a Bedrock Converse citation's
    ``location``): ``unit`` says what ``start`` and ``end`` count, as the vendor gave
    them: ``"char"`` (``documentChar``), ``"page"`` (``documentPage``), ``"chunk"``
    (``documentChunk``) or ``"search_result_block"`` (``searchResultLocation``, whose
    ``index`` is the search result's, not a document's); ``index`` is the request's
    document (``documentIndex``). These count in the source, never in the answer."""

    unit: str | None = None
    index: int | None = None
    start: int | None = None
    end: int | None = None


SourceDetails = WorkInfo | PlaceInfo | FileInfo | ImageInfo | PassageInfo | LocationInfo
"""What a source carries besides the common fields, one record per kind of source."""

_LEGACY_DETAILS: dict[str, tuple[type[SourceDetails], str]] = {
    "license": (WorkInfo, "license"),
    "publication_date": (WorkInfo, "publication_date"),
    "place_id": (PlaceInfo, "place_id"),
    "file_search_store": (FileInfo, "store"),
}
# The fields of a 0.1 Source, in the order its pickles list their values.
_LEGACY_FIELDS = (
    "uri", "title", "id", "kind", "domain", "license", "document", "chunk", "page", "text",
    "score", "publication_date", "place_id", "file_search_store", "custom_metadata",
    "redirect_uri",
)  # fmt: skip


@dataclass(frozen=True, slots=True, init=False)
class Source:
    """Where a cited claim comes from: a web page, a document, a chunk, a place, a work.

    ``id`` is what the response uses to point at it (a ``reference_id``, the index of
    a grounding chunk); every other field is ``None`` (or empty) when the schema does
    not carry it. ``text`` is the retrieved text (chunk content, retrieved context).
    The common fields are those that several kinds of source carry (``domain``,
    ``document``, ``chunk``, ``page``, ``custom_metadata`` as ``(key, value)`` pairs,
    ``redirect_uri``: the grounding redirect ``uri`` was resolved from, see
    ``resolve_urls``); what only one kind carries is in ``details``, a small record of
    that kind (:class:`PlaceInfo`, :class:`FileInfo`, :class:`WorkInfo`,
    :class:`ImageInfo`, :class:`PassageInfo`, :class:`LocationInfo`), or ``None``.

    The fields 0.1 had at the top level read as before (``place_id``,
    ``file_search_store``, ``license``, ``publication_date``), and the constructor
    still takes them, putting each into its record:

    >>> Source(uri="https://example.com", title="Example").label
    'Example'
    >>> Source(uri="https://www.example.com/a/b", kind="web").label
    'www.example.com'
    >>> place = Source(kind="maps", place_id="ChIJ9Q")
    >>> place.details, place.place_id
    (PlaceInfo(place_id='ChIJ9Q', reviews=(), flag_uri=None, route=None), 'ChIJ9Q')
    """

    uri: str | None
    title: str | None
    id: str | None
    kind: SourceKind
    domain: str | None
    document: str | None
    chunk: str | None
    page: str | None
    text: str | None
    score: float | None
    custom_metadata: tuple[tuple[str, str], ...]
    redirect_uri: str | None
    details: SourceDetails | None

    def __init__(
        self,
        uri: str | None = None,
        title: str | None = None,
        id: str | None = None,
        kind: SourceKind = "other",
        domain: str | None = None,
        *,
        document: str | None = None,
        chunk: str | None = None,
        page: str | None = None,
        text: str | None = None,
        score: float | None = None,
        custom_metadata: tuple[tuple[str, str], ...] = (),
        redirect_uri: str | None = None,
        details: SourceDetails | None = None,
        license: str | None = None,
        publication_date: str | None = None,
        place_id: str | None = None,
        file_search_store: str | None = None,
    ) -> None:
        if (
            license is not None
            or publication_date is not None
            or place_id is not None
            or (file_search_store is not None)
        ):
            details = _with_legacy(
                details,
                {"license": license, "publication_date": publication_date,
                 "place_id": place_id, "file_search_store": file_search_store},
            )  # fmt: skip
        if type(self) is Source:  # filled by plain stores in the same slots (new_source)
            _set(self, "__class__", _SourceSlots)  # past the frozen __setattr__
            new: Any = self
            new.uri = uri
            new.title = title
            new.id = id
            new.kind = kind
            new.domain = domain
            new.document = document
            new.chunk = chunk
            new.page = page
            new.text = text
            new.score = score
            new.custom_metadata = custom_metadata
            new.redirect_uri = redirect_uri
            new.details = details
            new.__class__ = Source
            return
        for name, value in zip(_FIELD_NAMES, (
            uri, title, id, kind, domain, document, chunk, page, text, score, custom_metadata,
            redirect_uri, details,
        ), strict=True):  # fmt: skip
            _set(self, name, value)

    # --- 0.1's kind-specific fields, read from the details ---------------------------------

    @property
    def place_id(self) -> str | None:
        """The Google Maps place id (:attr:`PlaceInfo.place_id`)."""
        details = self.details
        return details.place_id if type(details) is PlaceInfo else None

    @property
    def file_search_store(self) -> str | None:
        """The File Search store (:attr:`FileInfo.store`)."""
        details = self.details
        return details.store if type(details) is FileInfo else None

    @property
    def license(self) -> str | None:
        """A cited work's license (:attr:`WorkInfo.license`)."""
        details = self.details
        return details.license if type(details) is WorkInfo else None

    @property
    def publication_date(self) -> str | None:
        """A cited work's publication date (:attr:`WorkInfo.publication_date`)."""
        details = self.details
        return details.publication_date if type(details) is WorkInfo else None

    # --- Pickling: the state by field name; 0.1's pickles (a list of 16 values) load -----

    def __getstate__(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in _FIELD_NAMES}

    def __setstate__(self, state: object) -> None:
        if isinstance(state, list) and len(state) == len(_LEGACY_FIELDS):
            values = dict(zip(_LEGACY_FIELDS, state, strict=True))
            legacy = {name: values.pop(name) for name in _LEGACY_DETAILS}
            values["details"] = _legacy_details(values, legacy)
        elif isinstance(state, dict):
            values = dict(state)
        else:
            raise TypeError(f"cannot restore a Source from {type(state).__name__}")
        for name in _FIELD_NAMES:
            _set(self, name, values.get(name, _DEFAULTS[name]))

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
            if key.lower() in ("title", "name", "source_title", "label") and value:
                return value
        place_id = self.place_id
        if self.kind == "maps" and place_id:
            return f"place {place_id}"
        uri = self.uri if self.uri and not _is_redirect(self.uri) else None
        if self.kind in ("web", "image"):
            host = self.domain or (_host(uri) if uri else None)
            return host or uri or f"(untitled {'image' if self.kind == 'image' else 'web page'})"
        if self.kind == "passage" and self.id:
            return f"passage {self.id}"
        for named in (self.document, uri):
            if named:
                return named
        for key, value in self.custom_metadata:
            if "url" in key.lower() or "uri" in key.lower():
                return value
        store = self.file_search_store
        if store:
            return store
        if self.text and self.text.strip():
            return f"“{_excerpt(self.text)}”"
        for named in (self.chunk, self.uri, self.domain):
            if named:
                return named
        for key, value in self.custom_metadata:  # an annotation of a type unknown here
            if key == "type" and value:
                return f"({value})"
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


class _SourceSlots:
    """The slot layout of :class:`Source`, filled by plain stores (as for citations,
    :func:`new_citation`)."""

    __slots__ = Source.__slots__


def new_source(
    uri: str | None, title: str | None, id: str | None, kind: SourceKind,
    domain: str | None = None,
) -> Source:  # fmt: skip
    """``Source(uri, title, id, kind, domain)`` (every other field empty), as a fast
    reader builds a table of them.

    >>> made = new_source("https://k.example", "K", "0", "web")
    >>> made == Source("https://k.example", "K", "0", "web")
    True
    """
    new: Any = _SourceSlots()
    new.uri = uri
    new.title = title
    new.id = id
    new.kind = kind
    new.domain = domain
    new.document = new.chunk = new.page = new.text = new.score = None
    new.custom_metadata = ()
    new.redirect_uri = new.details = None
    new.__class__ = Source
    return new  # type: ignore[no-any-return]


_FIELD_NAMES = (
    "uri", "title", "id", "kind", "domain", "document", "chunk", "page", "text", "score",
    "custom_metadata", "redirect_uri", "details",
)  # fmt: skip
_DEFAULTS: dict[str, object] = {name: None for name in _FIELD_NAMES}
_DEFAULTS.update(kind="other", custom_metadata=())


def _with_legacy(details: SourceDetails | None, legacy: dict[str, str | None]) -> SourceDetails:
    """``details`` with 0.1's top-level fields (``place_id=``, ``license=``, ...) put in.

    Raises:
        ArgumentValueError: the fields belong to two kinds of record, or to another
            kind than ``details``.
    """
    given = {name: value for name, value in legacy.items() if value is not None}
    kinds = {_LEGACY_DETAILS[name][0] for name in given}
    if len(kinds) > 1 or (details is not None and type(details) not in kinds):
        names = ", ".join(f"{name}=" for name in sorted(given))
        held = f" and details={type(details).__name__}(...)" if details is not None else ""
        raise ArgumentValueError(
            f"a Source holds the details of one kind of source; {names}{held} belong to "
            f"{len(kinds | ({type(details)} if details is not None else set()))} kinds"
        )
    (kind,) = kinds
    changes = {_LEGACY_DETAILS[name][1]: value for name, value in given.items()}
    if details is None:
        return kind(**changes)  # type: ignore[arg-type]
    return replace(details, **changes)  # type: ignore[arg-type]


def _legacy_details(values: dict[str, object], legacy: dict[str, object]) -> SourceDetails | None:
    """The details record of a 0.1 Source's values; a value of a second kind of record
    (which 0.1's readers never set together) goes into ``custom_metadata``, not lost."""
    given = {name: value for name, value in legacy.items() if value is not None}
    if not given:
        return None
    wanted = {"maps": PlaceInfo, "citation_source": WorkInfo, "retrieved_context": FileInfo}
    kind = wanted.get(str(values.get("kind")), _LEGACY_DETAILS[next(iter(given))][0])
    if kind not in {_LEGACY_DETAILS[name][0] for name in given}:
        kind = _LEGACY_DETAILS[next(iter(given))][0]
    changes: dict[str, object] = {}
    extra: list[tuple[str, str]] = []
    for name, value in given.items():
        record, field_name = _LEGACY_DETAILS[name]
        if record is kind:
            changes[field_name] = value
        else:
            extra.append((name, str(value)))
    if extra:
        metadata = values.get("custom_metadata")
        values["custom_metadata"] = (*(metadata if isinstance(metadata, tuple) else ()), *extra)
    return kind(**changes)  # type: ignore[arg-type]


def _host(uri: str) -> str | None:
    try:
        return urlsplit(uri).hostname or None
    except ValueError:
        return None


def _is_redirect(uri: str) -> bool:
    # a URL's host, lowercased, is part of the URL lowercased: most URLs need no parse
    lowered = uri.lower()
    if not any(host in lowered for host in REDIRECT_HOSTS):
        return False
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
    when no answer text was available. ``kind`` says whether it came from a citation,
    from a grounding support, or from a citation marker in the text (``"marker"``: the
    span is derived, see :data:`CitationKind`); ``score`` is the support's grounding score and
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


class _CitationSlots:
    """The slot layout of :class:`Citation`, without its frozen ``__setattr__``: a
    citation is filled here by plain attribute stores, then becomes a ``Citation``
    (``__class__`` assignment between classes of one layout), about ten times faster
    than the frozen dataclass's ``__init__``, which sets each field through
    ``object.__setattr__``."""

    __slots__ = Citation.__slots__


def new_citation(
    start: int,
    end: int,
    char_start: int | None,
    char_end: int | None,
    text: str | SharedText | None,
    sources: tuple[Source, ...],
    kind: CitationKind,
    score: float | None,
    source_scores: tuple[float, ...],
    part: int | None,
    path: str,
) -> Citation:
    """``Citation(start, end, ...)`` with every field given, as the readers' hot loops
    build them (a :class:`SharedText` as ``text`` shares the answer's).

    >>> source = Source(uri="https://k.example")
    >>> c = new_citation(0, 6, 0, 5, "Köln.", (source,), "support", None, (), None, "s[0]")
    >>> c == Citation(0, 6, 0, 5, "Köln.", (source,), "support", None, (), None, "s[0]")
    True
    >>> type(c) is Citation, hash(c) == hash(Citation(0, 6, 0, 5, "Köln.", (source,),
    ...                                               "support", None, (), None, "s[0]"))
    (True, True)
    """
    new: Any = _CitationSlots()
    new.start = start
    new.end = end
    new.char_start = char_start
    new.char_end = char_end
    new.text = text
    new.sources = sources
    new.kind = kind
    new.score = score
    new.source_scores = source_scores
    new.part = part
    new.path = path
    new.__class__ = Citation
    return new  # type: ignore[no-any-return]


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
    URL-context retrieval results; ``image_queries`` the image search queries
    (``imageSearchQueries``). An Interactions response's ``google_search_result``
    ``search_suggestions`` are its ``rendered_content`` (joined, when it searched more
    than once).
    """

    queries: tuple[str, ...] = ()
    rendered_content: str | None = None
    retrieval_queries: tuple[str, ...] = ()
    url_statuses: tuple[UrlStatus, ...] = ()
    image_queries: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(
            self.queries
            or self.rendered_content
            or self.retrieval_queries
            or self.url_statuses
            or self.image_queries
        )

    def __getstate__(self) -> list[object]:
        return [getattr(self, f.name) for f in fields(self)]

    def __setstate__(self, state: list[object]) -> None:
        _restore(self, state)  # 0.1 pickled the first four fields


@dataclass(frozen=True, slots=True)
class Grounded:
    """An answer text with its citations, as :func:`grounding_protos.citations.read` gives.

    ``text`` is the answer text (joined text parts for Gemini); ``""`` for an answer
    without text (a blocked or image-only response), ``None`` when the input cannot hold
    the text (a bare ``GroundingMetadata``) and none was passed. ``declared_sources``
    lists every source the response declares (grounding chunks, references, inline
    citation sources) in declaration order, cited or not; :attr:`sources` the ones the
    citations use, in order of first use, and :attr:`uncited_sources` the rest.
    ``problems`` records every span that was repaired or skipped (and, for streams, what
    was incomplete); nothing is moved or dropped without one. ``shape`` names what was
    read (``"gemini_response"``, ``"answer"``, …, one of ``citations.SHAPES``);
    ``search`` holds the search queries and Search Suggestions; ``finish_reason`` the
    candidate's, where the input has one. ``skipped_reasons`` says why the vendor gave
    no (or no full) answer (``answerSkippedReasons``, ``summarySkippedReasons``),
    ``safety`` the ``(category, score)`` safety attributes of a search summary.
    ``score`` is the response's own score of the whole answer, where it has one: check
    grounding's ``supportScore``, a grounded generation candidate's ``groundingScore``.
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
    score: float | None = None

    def __getstate__(self) -> list[object]:
        return [getattr(self, f.name) for f in fields(self)]

    def __setstate__(self, state: list[object]) -> None:
        _restore(self, state)  # 0.1 pickled the first nine fields

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


def _restore(obj: object, state: list[object]) -> None:
    """A dataclass's fields from its pickled values (in field order); fields added since
    the pickle was made take their defaults."""
    layout = fields(obj)  # type: ignore[arg-type]
    for f, value in zip(layout, state, strict=False):
        _set(obj, f.name, value)
    for f in layout[len(state) :]:
        factory = f.default_factory
        _set(obj, f.name, factory() if callable(factory) else f.default)


class _GroundedSlots:
    """The slot layout of :class:`Grounded`, filled by plain stores (as for citations,
    :func:`new_citation`)."""

    __slots__ = Grounded.__slots__


def new_grounded(
    text: str,
    citations: list[Citation],
    declared_sources: list[Source],
    shape: str,
    search: SearchInfo,
    finish_reason: str | None,
) -> Grounded:
    """``Grounded(text, citations, declared_sources=..., shape=..., search=...,
    finish_reason=...)`` (no problem, every other field empty), as a fast reader
    returns it, in a third of the frozen dataclass's time.

    >>> made = new_grounded("Köln", [], [], "gemini_response", SearchInfo(("Dom",)), "STOP")
    >>> made == Grounded("Köln", [], shape="gemini_response", search=SearchInfo(("Dom",)),
    ...                  finish_reason="STOP")
    True
    """
    new: Any = _GroundedSlots()
    new.text = text
    new.citations = citations
    new.problems = []
    new.declared_sources = declared_sources
    new.shape = shape
    new.search = search
    new.finish_reason = finish_reason
    new.skipped_reasons = new.safety = ()
    new.score = None
    new.__class__ = Grounded
    return new  # type: ignore[no-any-return]


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


public(
    "grounding_protos.citations",
    Source,
    Citation,
    Problem,
    UrlStatus,
    SearchInfo,
    Grounded,
    cited_characters,
    SharedText,  # named by the pickles of citations that share an answer's text
    WorkInfo,
    PlaceInfo,
    ReviewSnippet,
    ReviewAuthor,
    Route,
    FileInfo,
    ImageInfo,
    PassageInfo,
    LocationInfo,
)
