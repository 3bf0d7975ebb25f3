"""Reading an Amazon Bedrock Agents ``InvokeAgent`` answer: its ``chunk`` event.

``{"chunk": {"bytes": b"...", "attribution": {"citations": [...]}}}`` (boto3's dict of
the event). By default ``InvokeAgent`` sends the whole answer in one chunk; a stream of
several chunks (``streamFinalResponse``) is merged into one (``invoke_agent_stream``).
``bytes`` is the answer's UTF-8 text; each citation is a ``RetrieveAndGenerate``
citation record (``generatedResponsePart.textResponsePart`` ``{text, span}``,
``retrievedReferences`` with ``content.text``, ``location`` and ``metadata``), its
``span.end`` inclusive and counting code points of the whole answer (as
``RetrieveAndGenerate``'s: ``read(obj, unit="utf16")`` for the other reading), checked
against the part's ``text``.

>>> raw = read_chunk({"chunk": {"bytes": "Köln 🏙 liegt am Rhein.".encode(),
...     "attribution": {"citations": [{"generatedResponsePart": {"textResponsePart": {
...         "text": "Rhein", "span": {"start": 16, "end": 20}}},
...     "retrievedReferences": [{"content": {"text": "Der Rhein"},
...         "location": {"type": "WEB", "webLocation": {"url": "https://r.example"}}}]}]}}}, 0)
>>> raw.text, raw.spans[0].end, raw.sources[0][1].uri
('Köln 🏙 liegt am Rhein.', 21, 'https://r.example')
"""

from __future__ import annotations

from grounding_protos._core.access import get, items
from grounding_protos._core.raw import RawAnswer
from grounding_protos._exceptions import TextEncodingError
from grounding_protos._sources.bedrock.retrieve_and_generate import read_citations
from grounding_protos._sources.common import is_record, lists_or_absent

_BYTES = (bytes, bytearray, memoryview)


def is_chunk(obj: object) -> bool:
    """An ``InvokeAgent`` ``chunk`` event: ``chunk`` a record whose ``bytes`` are bytes,
    its ``attribution`` absent or a record whose ``citations`` are absent or a list (a
    near miss is refused, never read as an answer without citations)."""
    chunk = get(obj, "chunk")
    if not is_record(chunk) or not isinstance(get(chunk, "bytes"), _BYTES):
        return False
    attribution = get(chunk, "attribution")
    return attribution is None or (
        is_record(attribution) and lists_or_absent(attribution, "citations")
    )


def read_chunk(obj: object, candidate: int) -> RawAnswer:
    """The chunk's text and one span per citation of its ``attribution``.

    Raises:
        TextEncodingError: ``chunk.bytes`` are not UTF-8.
    """
    chunk = get(obj, "chunk")
    data = bytes(get(chunk, "bytes"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextEncodingError(
            f"chunk.bytes is not UTF-8 at byte {exc.start}: InvokeAgent sends UTF-8 text"
        ) from exc
    raw = RawAnswer("none", "", text=text, unit="char")
    citations = items(get(chunk, "attribution"), "citations")
    read_citations(raw, citations, "chunk.attribution.citations")
    return raw
