"""Reading LangChain chat messages: ``AIMessage``, ``AIMessageChunk``, their
``model_dump()`` and JSON, and LangChain's serialized form (``dumpd``: ``{"lc": 1,
"type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}``).

LangChain is not imported: a message is recognized by its ``type`` (``"ai"``,
``"AIMessageChunk"``), a ``response_metadata`` mapping and a ``content`` string or list.
What is read, first match wins:

- ``response_metadata["grounding_metadata"]`` (langchain-google-genai's
  ``GroundingMetadata.model_dump()``, langchain-google-vertexai's ``to_dict``): Gemini's
  own metadata, in UTF-8 bytes, over the message's text parts (``content`` a string is
  one part; a list holds one item per part: strings, or ``{"type": "text"}`` blocks;
  ``thinking``/``reasoning`` blocks are thought parts). LangChain's translated
  annotations of the same answer are ignored: they copy the byte offsets as string
  indices, put every citation on text block 0 and make one per chunk index.
- text blocks with Anthropic ``citations`` (langchain-anthropic): read as an Anthropic
  message.
- text blocks with LangChain's standard ``citation`` annotations (``output_version="v1"``,
  and what ``convert.to_ai_message`` writes): ``start_index``/``end_index`` are
  Python string indices into their own text block; ``cited_text`` is, by LangChain's
  ``Citation`` type, an excerpt of the *source*: kept as the source's ``text`` (beside
  ``extras["source_text"]``, which wins), never matched against the answer.
- text blocks with OpenAI annotations (langchain-openai, Responses API): read as an
  OpenAI response, in OpenAI's character offsets (``file_index`` is LangChain's name of
  a ``file_citation``'s ``index``).

>>> raw = read_message({"type": "ai", "content": ["Grüße ", "aus Köln."],
...     "response_metadata": {"grounding_metadata": {
...         "grounding_chunks": [{"web": {"uri": "https://k.example", "title": "Köln"}}],
...         "grounding_supports": [{"segment": {"start_index": 12, "end_index": 17},
...             "grounding_chunk_indices": [0]}]}}}, 0)
>>> raw.text, raw.unit, raw.spans[0].start
('Grüße aus Köln.', 'byte', 12)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, get_args

from grounding_protos._core.access import get, items, text_or_none, unwrap
from grounding_protos._core.model import Source, SourceKind
from grounding_protos._core.raw import RawAnswer, RawPart, RawSpan
from grounding_protos._sources.anthropic import reader as anthropic
from grounding_protos._sources.common import SourceTable, enum_name, is_list, is_record, string
from grounding_protos._sources.google.gemini import reader as gemini
from grounding_protos._sources.openai import reader as openai

MESSAGE_TYPES = frozenset({"ai", "AIMessageChunk"})
_SERIALIZED = frozenset({"AIMessage", "AIMessageChunk"})
_THOUGHTS = frozenset({"thinking", "reasoning"})
_KINDS: frozenset[str] = frozenset(get_args(SourceKind))


def message_of(obj: object) -> object:
    """A message given in LangChain's serialized form as its fields; anything else as is."""
    if isinstance(obj, Mapping) and obj.get("lc") == 1 and obj.get("type") == "constructor":
        ident = obj.get("id")
        if is_list(ident) and ident and ident[-1] in _SERIALIZED:
            kwargs = obj.get("kwargs")
            if isinstance(kwargs, Mapping):
                return {"type": "ai", **kwargs}
    return obj


def is_message(obj: object) -> bool:
    """A LangChain AI message: ``type`` ``"ai"`` or ``"AIMessageChunk"``, a
    ``response_metadata`` mapping, and a ``content`` string or list."""
    obj = message_of(obj)
    if string(obj, "type") not in MESSAGE_TYPES:
        return False
    content = get(obj, "content")
    return isinstance(get(obj, "response_metadata"), Mapping) and (
        isinstance(content, str) or is_list(content)
    )


def read_message(obj: object, candidate: int) -> RawAnswer:
    """The message's grounding: Gemini's metadata, else the vendor's own citations."""
    message = message_of(obj)
    meta: Mapping[str, Any] = get(message, "response_metadata")
    content = get(message, "content")
    blocks = content if is_list(content) else [content]
    grounding = unwrap(meta.get("grounding_metadata"))
    if is_record(grounding):
        raw = RawAnswer("candidate", "")
        raw.parts = list(_parts(blocks))
        texts = [p.text for p in raw.parts if p.text is not None and not p.thought]
        raw.text = "".join(texts) if texts else None
        gemini.read_grounding_metadata(grounding, "response_metadata.grounding_metadata.", raw)
        raw.finish_reason = enum_name(meta, "finish_reason")
    elif any(_text_block(b) and items(b, "citations") for b in blocks):
        raw = anthropic.read_message({"type": "message", "content": list(blocks)}, 0)
    elif any(string(a, "type") == "citation" for a in _annotations(blocks)):
        raw = _read_standard(blocks)
    elif any(True for _ in _annotations(blocks)):
        raw = openai.read_response(_as_openai_response(blocks), 0)
    else:
        raw = RawAnswer("none", "", unit="char")
        texts = [t for t in map(_block_text, blocks) if t is not None]
        raw.text = "".join(texts) if texts else None
    raw.input_shape = "langchain_message"
    return raw


def _parts(blocks: list[Any]) -> Iterator[RawPart]:
    for i, block in enumerate(blocks):
        if isinstance(block, str):
            yield RawPart(i, block, False)
        elif string(block, "type") in _THOUGHTS:
            yield RawPart(i, _thought_text(block), True)
        else:
            yield RawPart(i, _block_text(block), False)


def _thought_text(block: object) -> str:
    for name in ("thinking", "reasoning", "text"):
        text = string(block, name)
        if text is not None:
            return text
    return ""


def _text_block(block: object) -> bool:
    return isinstance(block, Mapping) and block.get("type") == "text"


def _block_text(block: object) -> str | None:
    if isinstance(block, str):
        return block
    if _text_block(block):
        return string(block, "text") or ""
    return None


def _annotations(blocks: list[Any]) -> Iterator[object]:
    for block in blocks:
        if _text_block(block):
            yield from items(block, "annotations")


def _as_openai_response(blocks: list[Any]) -> dict[str, Any]:
    """langchain-openai's text blocks as the Responses API ``message`` they came from."""
    content = []
    for block in blocks:
        if not _text_block(block):
            continue
        annotations = []
        for annotation in items(block, "annotations"):
            if isinstance(annotation, Mapping) and "file_index" in annotation:
                annotation = dict(annotation)
                annotation["index"] = annotation.pop("file_index")
            annotations.append(annotation)
        content.append(
            {"type": "output_text", "text": string(block, "text") or "", "annotations": annotations}
        )
    return {"object": "response", "output": [{"type": "message", "content": content}]}


def _read_standard(blocks: list[Any]) -> RawAnswer:
    """LangChain's standard ``citation`` annotations: string indices into their block."""
    raw = RawAnswer("none", "", unit="char")
    table = SourceTable(raw)
    texts: list[str] = []
    at = 0
    for i, block in enumerate(blocks):
        text = _block_text(block)
        if text is None:
            continue
        texts.append(text)
        for j, annotation in enumerate(items(block, "annotations")):
            if string(annotation, "type") != "citation":
                continue
            path = f"content[{i}].annotations[{j}]"
            source = _standard_source(annotation)  # cited_text: an excerpt of the source
            start, end = get(annotation, "start_index"), get(annotation, "end_index")
            if start is None and end is None:  # no position: a source of the whole answer
                raw.answer_sources.append((path, source))
                continue
            span = RawSpan(path, _shifted(start, at), _shifted(end, at), "citation")
            span.refs = [table.ref(source, path)]
            span.names = ("start_index", "end_index", "part_index")
            raw.spans.append(span)
        at += len(text)
    raw.text = "".join(texts) if texts else None
    return raw


def _shifted(value: object, by: int) -> object:
    """A block-relative string index in the joined text (absent: 0, LangChain leaves a
    0 start out); a value that is not an int as it is, for resolve to report."""
    if value is None:
        return by
    if isinstance(value, int) and not isinstance(value, bool):
        return value + by
    return value


def _standard_source(annotation: object) -> Source:
    extras = get(annotation, "extras")
    extras = extras if isinstance(extras, Mapping) else {}
    url = text_or_none(get(annotation, "url"))
    kind: Any = text_or_none(extras.get("source_kind"))
    if kind not in _KINDS:
        kind = "web" if url else "other"
    return Source(
        uri=url,
        title=text_or_none(get(annotation, "title")),
        id=text_or_none(extras.get("source_id")),
        kind=kind,
        domain=text_or_none(extras.get("domain")),
        document=text_or_none(extras.get("document")),
        page=text_or_none(extras.get("page")),
        text=text_or_none(extras.get("source_text")) or text_or_none(get(annotation, "cited_text")),
    )
