"""``read`` and ``extract``: citations of any supported input, on the right characters."""

from __future__ import annotations

import math
from types import ModuleType
from typing import Literal

from grounding_protos._core.model import Citation, Grounded, SpanPolicy
from grounding_protos._core.resolve import resolve
from grounding_protos._exceptions import ArgumentValueError
from grounding_protos._offsets import SpanSnap, Unit, check_span_snap
from grounding_protos._public import public
from grounding_protos._sources.markers import remove_markers
from grounding_protos._sources.registry import read_input

_POLICIES = ("strict", "repair", "skip")
_UNITS = ("byte", "char", "utf16")
# shapes that never hold the answer text (it is passed as text=): no text is unknown there
_TEXTLESS = frozenset({"grounding_metadata", "citation_metadata", "check_grounding_response"})


def read(
    obj: object,
    *,
    text: str | bytes | None = None,
    candidate: int = 0,
    errors: SpanPolicy = "repair",
    snap: SpanSnap | None = None,
    clamp: bool = False,
    unit: Unit | None = None,
    markers: Literal["keep", "remove"] = "keep",
) -> Grounded:
    """The answer text and its citations, from any supported input.

    Inputs: ``discoveryengine_v1.Answer`` (citations and grounding supports,
    ``reference_id`` -> ``references``), ``dialogflow_v2beta1.GroundingMetadata``
    (supports -> ``grounding_chunks``), ``generativelanguage_v1beta3.CitationMetadata``;
    the same messages from Google's official client libraries (proto-plus or raw);
    google-genai objects (a ``GenerateContentResponse``, a ``Candidate``, its
    ``grounding_metadata`` or ``citation_metadata``); and REST JSON dicts of all of
    these (camelCase or snake_case), including a whole Gemini ``generateContent``
    response (``candidate`` picks which) or a Discovery Engine answer response.

    The text is the input's own where it has one (``answer_text``; the text parts of
    a Gemini candidate, joined, thought parts skipped, with each segment's
    ``part_index`` honoured), else ``text=``. Offsets are strict unless ``snap``
    (``"floor"``, ``"ceil"``, ``"outward"``) or ``clamp=True`` asks for leniency.

    Also read: Vertex AI Search summaries (a ``SearchResponse``, its ``summary`` or a
    ``summaryWithMetadata``) and other vendors' responses (OpenAI Responses and Chat
    Completions, Anthropic Messages, Cohere v2 chat, Bedrock RetrieveAndGenerate).
    ``Grounded.shape`` says which of ``citations.SHAPES`` was read. ``unit``
    (``"byte"``, ``"char"``, ``"utf16"``) overrides what the shape's offsets are taken
    to count (docs/inputs.md lists each shape's default and the evidence for it).
    ``markers="remove"`` cuts the citation markers of a shape that cites by markers in
    its text (Perplexity's ``[1]``) out of the text, moving every span to match;
    by default they stay.

    >>> grounded = read({
    ...     "candidates": [{
    ...         "content": {"parts": [{"text": "Café "}, {"text": "東京"}]},
    ...         "groundingMetadata": {
    ...             "groundingChunks": [{"web": {"uri": "https://t.example", "title": "T"}}],
    ...             "groundingSupports": [{
    ...                 "segment": {"partIndex": 1, "endIndex": 6, "text": "東京"},
    ...                 "groundingChunkIndices": [0],
    ...             }],
    ...         },
    ...     }],
    ... })
    >>> grounded.text
    'Café 東京'
    >>> c = grounded.citations[0]
    >>> (c.start, c.end, c.char_start, c.char_end, c.text, c.sources[0].title)
    (6, 12, 5, 7, '東京', 'T')

    Raises:
        UnsupportedInputError: ``obj`` has none of the supported shapes; the message
            names what it saw and the shapes known.
        OffsetError: an offset is out of range, inverted or splits a character.
        CitationError: a chunk index or ``reference_id`` points nowhere, a
            ``part_index`` names no text part, or ``text=`` contradicts the input.
    """
    if errors not in _POLICIES:
        raise ArgumentValueError(f"errors must be 'strict', 'repair' or 'skip', not {errors!r}")
    if unit is not None and unit not in _UNITS:
        raise ArgumentValueError(f"unit must be 'byte', 'char' or 'utf16', not {unit!r}")
    if markers not in ("keep", "remove"):
        raise ArgumentValueError(f"markers must be 'keep' or 'remove', not {markers!r}")
    if snap is not None:
        check_span_snap(snap)
    if type(obj) is dict and _declared(text, snap, clamp, unit, markers, candidate):
        fast: Grounded | None = _fast().read_dict(obj, candidate, unit)
        if fast is not None:
            return fast
    raw = read_input(obj, candidate=candidate, unit=unit)
    if markers == "remove":
        remove_markers(raw)
    resolution = resolve(raw, text, mode=errors, snap=snap, clamp=clamp)
    answer = resolution.text
    if answer is None and not raw.spans and raw.input_shape not in _TEXTLESS:
        answer = ""  # an answer with no text (blocked, image only): empty, not unknown
    return Grounded(
        answer,
        resolution.citations,
        problems=resolution.problems,
        declared_sources=raw.declared_sources,
        shape=raw.input_shape or "",
        search=raw.search,
        finish_reason=raw.finish_reason,
        skipped_reasons=raw.skipped_reasons,
        safety=raw.safety,
        score=_score(raw.score),
    )


_FAST: list[ModuleType] = []


def _fast() -> ModuleType:
    """The fast paths (``_citations.fast``), imported on first use: msgspec is not
    imported with ``grounding_protos.citations``."""
    if not _FAST:
        from grounding_protos._citations import fast

        _FAST.append(fast)
    return _FAST[0]


def _declared(
    text: object, snap: object, clamp: bool, unit: object, markers: str, candidate: object
) -> bool:
    """Whether ``read``'s options leave the input as it is, so that its declared shape
    may read it (the options that change text, offsets or markers take the general road)."""
    return (
        text is None
        and snap is None
        and not clamp
        and unit in (None, "byte")
        and markers == "keep"
        and type(candidate) is int
    )


def _score(value: object) -> float | None:
    """A finite number as a float (validate reports the others)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        return None
    return number if math.isfinite(number) else None


def extract(
    obj: object,
    *,
    text: str | bytes | None = None,
    candidate: int = 0,
    errors: SpanPolicy = "repair",
    snap: SpanSnap | None = None,
    clamp: bool = False,
    unit: Unit | None = None,
) -> list[Citation]:
    """The citations of any supported input (see :func:`read`, which also gives the text).

    >>> from grounding_protos.discoveryengine_v1 import Answer
    >>> answer = Answer(
    ...     answer_text="Zürich is in Switzerland.",
    ...     citations=[Answer.Citation(start_index=0, end_index=7,
    ...                                sources=[Answer.CitationSource(reference_id="0")])],
    ...     references=[Answer.Reference(structured_document_info=
    ...         Answer.Reference.StructuredDocumentInfo(title="Zürich", uri="https://z.example"))],
    ... )
    >>> [(c.char_start, c.char_end, c.text, c.sources[0].title) for c in extract(answer)]
    [(0, 6, 'Zürich', 'Zürich')]
    """
    return read(
        obj, text=text, candidate=candidate, errors=errors, snap=snap, clamp=clamp, unit=unit
    ).citations


def read_json(
    data: str | bytes,
    *,
    text: str | bytes | None = None,
    candidate: int = 0,
    errors: SpanPolicy = "repair",
    snap: SpanSnap | None = None,
    clamp: bool = False,
    unit: Unit | None = None,
    markers: Literal["keep", "remove"] = "keep",
) -> Grounded:
    """The answer text and its citations, from the JSON text (``str`` or ``bytes``) of
    one response: exactly what ``read(json.loads(data), ...)`` gives, for every shape
    :func:`read` takes, and faster. A Gemini response is decoded straight into its
    declared shape where that holds all of it; any other JSON is parsed, then read.

    >>> import json
    >>> response = {"candidates": [{
    ...     "content": {"parts": [{"text": "Straße in Köln."}]},
    ...     "groundingMetadata": {
    ...         "groundingChunks": [{"web": {"uri": "https://k.example", "title": "K"}}],
    ...         "groundingSupports": [{"segment": {"endIndex": 7, "text": "Straße"},
    ...                                "groundingChunkIndices": [0]}],
    ...     },
    ... }]}
    >>> grounded = read_json(json.dumps(response))
    >>> grounded == read(response)
    True
    >>> [(c.start, c.end, c.text, c.sources[0].title) for c in grounded.citations]
    [(0, 7, 'Straße', 'K')]

    Raises:
        ArgumentTypeError: ``data`` is neither ``str`` nor ``bytes``.
        ArgumentValueError: ``data`` is not JSON.
        UnsupportedInputError, OffsetError, CitationError: as :func:`read`.
    """
    if (
        isinstance(data, (str, bytes))
        and errors in _POLICIES
        and _declared(text, snap, clamp, unit, markers, candidate)
    ):
        fast: Grounded | None = _fast().read_text(data, candidate)
        if fast is not None:
            return fast
    obj = _fast().loads(data)
    return read(
        obj, text=text, candidate=candidate, errors=errors, snap=snap, clamp=clamp, unit=unit,
        markers=markers,
    )  # fmt: skip


public("grounding_protos.citations", read, extract, read_json)
