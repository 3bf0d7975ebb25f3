"""Conversions between the schemas, and to/from Google's official client types.

A target that cannot hold something of the source says so: schema conversions
return a :class:`Converted` whose ``losses`` list every value left behind (as
:class:`Problem` records with code ``"not-representable"``), never dropping it
silently.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, get_args

from google.protobuf.message import Message

from grounding_protos._citations.read import read
from grounding_protos._core.access import get, items, unwrap
from grounding_protos._core.model import Citation, Problem, Source, SourceKind, WorkInfo
from grounding_protos._exceptions import (
    ArgumentTypeError,
    CitationError,
    MissingDependencyError,
)
from grounding_protos._proto.registry import message_class
from grounding_protos._public import public
from grounding_protos._quote import shown
from grounding_protos.google.ai.generativelanguage.v1beta3.citation_pb2 import (
    CitationMetadata,
    CitationSource,
)
from grounding_protos.google.cloud.dialogflow.v2beta1.grounding_pb2 import (
    GroundingChunk,
    GroundingMetadata,
    GroundingSupport,
    SearchEntryPoint,
    Segment,
)
from grounding_protos.google.cloud.discoveryengine.v1beta.grounding_pb2 import (
    FactChunk,
    GroundingFact,
)

T = TypeVar("T", bound=Message)
_KINDS = frozenset(get_args(SourceKind))
_INT32_MAX = 2**31 - 1
# Source fields, in the order they are reported and stored in metadata maps.
_SOURCE_FIELDS = (
    "uri", "title", "id", "kind", "domain", "license", "document", "chunk", "page", "text",
    "score", "publication_date",
)  # fmt: skip
# Package of our messages -> (official module, the distribution that provides it).
_OFFICIAL = {
    "google.cloud.discoveryengine.v1": (
        "google.cloud.discoveryengine_v1", "google-cloud-discoveryengine"),
    "google.cloud.discoveryengine.v1beta": (
        "google.cloud.discoveryengine_v1beta", "google-cloud-discoveryengine"),
    "google.cloud.dialogflow.v2beta1": (
        "google.cloud.dialogflow_v2beta1", "google-cloud-dialogflow"),
    "google.ai.generativelanguage.v1beta3": (
        "google.ai.generativelanguage_v1beta3", "google-ai-generativelanguage"),
}  # fmt: skip


@dataclass(frozen=True)
class Converted(Generic[T]):
    """A converted message and what it could not hold; unpacks as ``(message, losses)``.

    >>> from grounding_protos.discoveryengine_v1 import Answer
    >>> meta, losses = to_grounding_metadata(Answer(answer_text="ok"))
    >>> (len(meta.grounding_supports), losses)
    (0, [])
    """

    message: T
    losses: list[Problem]

    def __iter__(self) -> Iterator[Any]:
        return iter((self.message, self.losses))


def _lost(path: str, what: str, value: object, target: str) -> Problem:
    return Problem("not-representable", f"{what} {shown(value, 60)} has no place in {target}", path)


def _int32(value: int, path: str) -> int:
    if not -(2**31) <= value <= _INT32_MAX:
        raise CitationError(
            f"{path}: offset {shown(value)} does not fit the int32 field of the target",
            path=path,
            code="offset-out-of-range",
        )
    return value


def _score_losses(citation: Citation, target: str) -> list[Problem]:
    """The support's grounding score and per-source confidence scores, which no
    target schema here can hold."""
    losses = []
    if citation.score is not None:
        losses.append(_lost(citation.path, "grounding score", citation.score, target))
    if citation.source_scores:
        scores = list(citation.source_scores)
        losses.append(_lost(citation.path, "confidence scores", scores, target))
    return losses


def _source_paths(citations: list[Citation]) -> dict[Source, str]:
    """Where each distinct source is first used, for loss reports."""
    paths: dict[Source, str] = {}
    for citation in citations:
        for j, source in enumerate(citation.sources):
            paths.setdefault(source, f"{citation.path}.sources[{j}]")
    return paths


# --- Any input -> GroundingMetadata ------------------------------------------------------


def to_grounding_metadata(
    obj: object, *, text: str | bytes | None = None, candidate: int = 0
) -> Converted[GroundingMetadata]:
    """Any input :func:`~grounding_protos.citations.extract` accepts, as a Dialogflow
    ``GroundingMetadata``: one ``GroundingChunk`` per distinct source (``web`` for web
    sources, ``retrieved_context`` otherwise), one ``GroundingSupport`` per citation,
    offsets into the whole answer text.

    Scores, document and chunk names, pages and licenses have no place there: they
    are listed in ``losses``.
    """
    grounded = read(obj, text=text, candidate=candidate)
    losses: list[Problem] = []
    meta = GroundingMetadata()
    _copy_search_fields(obj, candidate, meta)
    chunk_of: dict[Source, int] = {}
    paths = _source_paths(grounded.citations)
    for source in grounded.sources:
        chunk_of[source] = len(meta.grounding_chunks)
        meta.grounding_chunks.append(_chunk(source, paths[source], losses))
    for citation in grounded.citations:
        support = GroundingSupport(
            segment=Segment(
                start_index=_int32(citation.start, f"{citation.path}.start_index"),
                end_index=_int32(citation.end, f"{citation.path}.end_index"),
                text=citation.text or "",
            ),
            grounding_chunk_indices=[chunk_of[s] for s in citation.sources],
        )
        losses.extend(_score_losses(citation, "GroundingSupport"))
        meta.grounding_supports.append(support)
    return Converted(meta, losses)


def _chunk(source: Source, path: str, losses: list[Problem]) -> GroundingChunk:
    uri, title = source.uri or "", source.title or ""
    if source.kind == "web":
        kept = {"uri", "title", "domain", "kind", "id"}
        web = GroundingChunk.Web(uri=uri, title=title, domain=source.domain or "")
        chunk, target = GroundingChunk(web=web), "GroundingChunk.Web"
    else:
        kept = {"uri", "title", "text", "kind", "id"}
        context = GroundingChunk.RetrievedContext(uri=uri, title=title, text=source.text or "")
        chunk, target = GroundingChunk(retrieved_context=context), "GroundingChunk.RetrievedContext"
    losses.extend(_unkept(source, kept, path, target))
    return chunk


def _unkept(source: Source, kept: set[str], path: str, target: str) -> list[Problem]:
    losses = [
        _lost(f"{path}.{name}", name.replace("_", " "), value, target)
        for name in _SOURCE_FIELDS
        if name not in kept and (value := getattr(source, name)) is not None
    ]
    # what a kind of source carries besides (a place's id, reviews and report links, a
    # file's store and pages, ...), and the fields of several kinds no target here holds
    extra: tuple[tuple[str, object], ...] = (
        ("custom_metadata", dict(source.custom_metadata) or None),
        ("redirect_uri", source.redirect_uri),
        # a WorkInfo's license and date are in _SOURCE_FIELDS already
        ("details", None if isinstance(source.details, WorkInfo) else source.details),
    )
    for name, value in extra:
        if value is not None and name not in kept:
            losses.append(_lost(f"{path}.{name}", name.replace("_", " "), value, target))
    return losses


def _copy_search_fields(obj: object, candidate: int, meta: GroundingMetadata) -> None:
    """Carry ``web_search_queries`` and the search entry point over from Gemini inputs."""
    source = unwrap(obj)
    if get(source, "candidates") is not None:
        source = unwrap(items(source, "candidates")[candidate])
    inner = get(source, "grounding_metadata")
    if inner is not None:
        source = unwrap(inner)
    meta.web_search_queries.extend(q for q in items(source, "web_search_queries")
                                   if isinstance(q, str))  # fmt: skip
    rendered = get(get(source, "search_entry_point"), "rendered_content")
    if isinstance(rendered, str) and rendered:
        meta.search_entry_point.CopyFrom(SearchEntryPoint(rendered_content=rendered))


# --- Any input -> CitationMetadata ------------------------------------------------------


def to_citation_metadata(
    obj: object, *, text: str | bytes | None = None, candidate: int = 0
) -> Converted[CitationMetadata]:
    """Any input :func:`~grounding_protos.citations.extract` accepts, as a v1beta3
    ``CitationMetadata``: one ``CitationSource`` (span, URI, license) per source of
    each citation. Everything else about a source (title, text, scores, …) is listed
    in ``losses``.
    """
    grounded = read(obj, text=text, candidate=candidate)
    losses: list[Problem] = []
    meta = CitationMetadata()
    for citation in grounded.citations:
        start = _int32(citation.start, f"{citation.path}.start_index")
        end = _int32(citation.end, f"{citation.path}.end_index")
        for j, source in enumerate(citation.sources):
            entry = CitationSource(start_index=start, end_index=end)
            if source.uri is not None:
                entry.uri = source.uri
            if source.license is not None:
                entry.license = source.license
            meta.citation_sources.append(entry)
            losses.extend(_unkept(source, {"uri", "license", "kind", "id"},
                                  f"{citation.path}.sources[{j}]", "CitationSource"))  # fmt: skip
        losses.extend(_score_losses(citation, "CitationSource"))
    return Converted(meta, losses)


# --- Source <-> FactChunk / GroundingFact -------------------------------------------------


def _metadata(source: Source) -> dict[str, str]:
    return {
        name: str(value)
        for name in _SOURCE_FIELDS
        if name != "text" and (value := getattr(source, name)) is not None
    }


def _from_metadata(metadata: Mapping[str, str], text: str) -> Source:
    values: dict[str, object] = {
        name: metadata[name] for name in _SOURCE_FIELDS if name in metadata and name != "score"
    }
    if "score" in metadata:
        try:
            values["score"] = float(metadata["score"])
        except ValueError:
            raise CitationError(
                f"source metadata 'score' is not a number: {shown(metadata['score'])}",
                path="score", code="score-not-a-number",
            ) from None  # fmt: skip
    if values.get("kind") not in _KINDS:
        values.pop("kind", None)
    return Source(text=text or None, **values)  # type: ignore[arg-type]


def source_to_fact_chunk(source: Source) -> FactChunk:
    """A :class:`Source` as a v1beta ``FactChunk``: ``text`` -> ``chunk_text``, ``id`` ->
    ``source``, every other field (as a string) in ``source_metadata``. Nothing is lost.

    >>> from grounding_protos.citations import Source
    >>> chunk = source_to_fact_chunk(Source(uri="https://a.example", title="A", id="0",
    ...                                     text="Alpha", score=0.5))
    >>> chunk.chunk_text, chunk.source, chunk.source_metadata["score"]
    ('Alpha', '0', '0.5')
    >>> fact_chunk_to_source(chunk) == Source(uri="https://a.example", title="A", id="0",
    ...                                       text="Alpha", score=0.5)
    True
    """
    metadata = _metadata(source)
    metadata.pop("id", None)
    return FactChunk(chunk_text=source.text or "", source=source.id or "",
                     source_metadata=metadata)  # fmt: skip


def fact_chunk_to_source(chunk: FactChunk) -> Source:
    """A v1beta ``FactChunk`` as a :class:`Source` (the inverse of :func:`source_to_fact_chunk`)."""
    metadata = dict(chunk.source_metadata)
    if chunk.source:
        metadata["id"] = chunk.source
    return _from_metadata(metadata, chunk.chunk_text)


def source_to_grounding_fact(source: Source) -> GroundingFact:
    """A :class:`Source` as a v1beta ``GroundingFact``: ``text`` -> ``fact_text``, every
    other field (as a string) in ``attributes``. Nothing is lost."""
    return GroundingFact(fact_text=source.text or "", attributes=_metadata(source))


def grounding_fact_to_source(fact: GroundingFact) -> Source:
    """A v1beta ``GroundingFact`` as a :class:`Source` (the inverse of
    :func:`source_to_grounding_fact`). Attributes a Source has no field for (such as
    ``author``) are not carried over: :func:`grounding_fact_losses` lists them."""
    return _from_metadata(dict(fact.attributes), fact.fact_text)


def grounding_fact_losses(fact: GroundingFact) -> list[Problem]:
    """The ``attributes`` of a ``GroundingFact`` that a :class:`Source` cannot hold."""
    return [
        _lost(f"attributes[{key!r}]", "attribute", value, "Source")
        for key, value in sorted(fact.attributes.items())
        if key not in _SOURCE_FIELDS
    ]


# --- Official client types ----------------------------------------------------------


def _official_module(full_name: str) -> tuple[object, str, str]:
    package = next((p for p in _OFFICIAL if full_name.startswith(p + ".")), None)
    if package is None:
        raise ArgumentTypeError(f"{full_name} has no official client type")
    module_name, distribution = _OFFICIAL[package]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise MissingDependencyError(
            f"converting {full_name} needs Google's official client library: "
            f"pip install {distribution} (or grounding-protos[official])"
        ) from exc
    return module, full_name[len(package) + 1 :], distribution


def to_official(message: Message, *, raw: bool = False) -> object:
    """Our message as the official client library's object (proto-plus; ``raw=True``:
    its underlying protobuf message), through the wire format: nothing is lost.

    Raises:
        MissingDependencyError: the official library is not installed.
    """
    if not isinstance(message, Message):
        raise ArgumentTypeError(f"to_official() takes a message, not {type(message).__name__}")
    full_name = message.DESCRIPTOR.full_name
    module, relative, distribution = _official_module(full_name)
    cls: object = module
    try:
        for part in relative.split("."):
            cls = getattr(cls, part)
    except AttributeError:
        raise MissingDependencyError(
            f"the installed {distribution} {_version(distribution)} has no {full_name} "
            f"(a later release added it): pip install -U {distribution}"
        ) from None
    obj = cls.deserialize(message.SerializeToString())  # type: ignore[attr-defined]
    return type(obj).pb(obj) if raw else obj


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "(unknown version)"


def from_official(obj: object) -> Message:
    """An official client object (proto-plus or raw protobuf) as our message, through
    the wire format: fields our schema lacks are kept as unknown fields."""
    raw = unwrap(obj)
    if not isinstance(raw, Message):
        raise ArgumentTypeError(
            f"from_official() takes an official client object, not {type(obj).__name__}"
        )
    cls = message_class(raw.DESCRIPTOR.full_name)
    return cls.FromString(raw.SerializeToString())


public(
    "grounding_protos.convert",
    Converted,
    to_grounding_metadata,
    to_citation_metadata,
    source_to_fact_chunk,
    fact_chunk_to_source,
    source_to_grounding_fact,
    grounding_fact_to_source,
    grounding_fact_losses,
    to_official,
    from_official,
)
