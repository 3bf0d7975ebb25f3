"""Citations of grounded answers: read them from any input, place them on the right
characters, render them.

>>> from grounding_protos.citations import extract
>>> gemini = {"candidates": [{"content": {"parts": [{"text": "Grüße aus Köln."}]},
...     "groundingMetadata": {
...         "groundingChunks": [{"web": {"uri": "https://koeln.example", "title": "Köln"}}],
...         "groundingSupports": [{"segment": {"startIndex": 12, "endIndex": 17},
...                                "groundingChunkIndices": [0]}]}}]}
>>> [(c.text, c.char_start, c.sources[0].title) for c in extract(gemini)]
[('Köln', 10, 'Köln')]

See ``docs/citations.md`` (and ``docs/redirects.md`` for ``resolve_urls``); streamed
responses: ``read_stream``, ``aread_stream`` and ``StreamReader``; Gemini Live sessions,
turn by turn: ``read_turns`` and ``TurnReader`` (``docs/streams.md``). ``validate`` (also
``grounding_protos.validate``) and ``validate_stream`` list an answer's problems.
"""

from grounding_protos._citations.links import aresolve_urls, resolve_urls
from grounding_protos._citations.read import extract, read, read_json
from grounding_protos._citations.validate import validate
from grounding_protos._core.model import (
    Citation,
    CitationKind,
    FileInfo,
    Grounded,
    ImageInfo,
    LocationInfo,
    PassageInfo,
    PlaceInfo,
    Problem,
    ReviewAuthor,
    ReviewSnippet,
    Route,
    SearchInfo,
    Source,
    SourceDetails,
    SourceKind,
    SpanPolicy,
    UrlStatus,
    WorkInfo,
    cited_characters,
)
from grounding_protos._core.model import SharedText as SharedText  # for pickles, not API
from grounding_protos._core.raw import SHAPES, InputShape
from grounding_protos._render.grounded import render
from grounding_protos._render.markers import (
    ListStyle,
    MarkerStyle,
    RenderStyle,
    number_sources,
    search_notes,
    source_list,
)
from grounding_protos._streams.read import (
    StreamReader,
    Update,
    aread_stream,
    read_stream,
    read_turns,
    validate_stream,
)
from grounding_protos._streams.turns import TurnReader

__all__ = [
    "SHAPES",
    "Citation",
    "CitationKind",
    "FileInfo",
    "Grounded",
    "ImageInfo",
    "InputShape",
    "ListStyle",
    "LocationInfo",
    "MarkerStyle",
    "PassageInfo",
    "PlaceInfo",
    "Problem",
    "RenderStyle",
    "ReviewAuthor",
    "ReviewSnippet",
    "Route",
    "SearchInfo",
    "Source",
    "SourceDetails",
    "SourceKind",
    "SpanPolicy",
    "StreamReader",
    "TurnReader",
    "Update",
    "UrlStatus",
    "WorkInfo",
    "aread_stream",
    "aresolve_urls",
    "cited_characters",
    "extract",
    "number_sources",
    "read",
    "read_json",
    "read_stream",
    "read_turns",
    "render",
    "resolve_urls",
    "search_notes",
    "source_list",
    "validate",
    "validate_stream",
]
