"""OpenAI's Responses API ``Response`` as declared shapes (``msgspec.Struct``), and the
fast reader of what they hold exactly.

The Structs follow the Responses API's JSON (snake_case, every field optional, ``null``
as absent). They declare what ``reader.read_response`` reads and let every other field
through, except in an annotation, which refuses any field it does not declare: the
tolerant reader takes ``startIndex`` for an absent ``start_index``, the declared one
would not see it. (Every other field the reader reads is one word, the same in both
spellings.) A wrong JSON type anywhere in what they declare fails the conversion.

:func:`grounded` reads what the common case holds (``message`` items with
``output_text`` parts, their ``url_citation`` annotations with in-range character
offsets, ``web_search_call`` items with their queries and sources) into the very
``Grounded`` the tolerant reader and ``_core.resolve`` give, and says ``None`` for
anything else: a file citation, an offset out of range, inverted or given alone, a
text without a UTF-8 form, a string subclass where the reader reads a kind or a
text, a search source of another shape. The caller then reads the input the tolerant
way, so every problem and error stays where it is.
"""

from __future__ import annotations

from typing import Any

import msgspec

from grounding_protos._core.fast import Codec, Span, place_chars
from grounding_protos._core.model import Grounded, SearchInfo, Source, new_grounded, new_source
from grounding_protos._offsets import Unit

UNIT: Unit = "char"
"""What the offsets count: with another ``unit=``, ``read`` takes the tolerant way."""


class _Shape(msgspec.Struct, omit_defaults=True, gc=False):
    """A declared Responses API JSON object: snake_case, every field optional, other
    fields let through; never in a reference cycle (``gc=False``)."""


class Annotation(_Shape, forbid_unknown_fields=True):
    """An ``output_text`` part's annotation, of any of the four documented kinds."""

    type: str | None = None
    start_index: int | None = None
    end_index: int | None = None
    url: str | None = None
    title: str | None = None
    # file citations: read by the tolerant reader only
    file_id: Any = None
    filename: Any = None
    container_id: Any = None
    index: Any = None


class Content(_Shape):
    """A part of a message item's ``content`` (``output_text``, ``refusal``, ...)."""

    type: str | None = None
    text: str | None = None
    annotations: list[Annotation] | None = None


class Found(_Shape):
    """A source in a web search call's ``action.sources``."""

    type: str | None = None
    url: str | None = None
    name: Any = None


class Action(_Shape):
    query: str | None = None
    queries: list[str] | None = None
    sources: list[Found] | None = None


class Item(_Shape):
    """An ``output`` item (``message``, ``web_search_call``, ``reasoning``, ...)."""

    type: str | None = None
    phase: str | None = None
    content: list[Content] | None = None
    action: Action | None = None  # a web search call's


class Response(_Shape):
    """A ``Response``: ``output`` and ``status`` are all of it the reader reads."""

    output: list[Item] | None = None
    status: str | None = None


_codec = Codec(Response)
decode = _codec.decode
"""The declared response in JSON text, or ``None`` when the text is not one."""
convert = _codec.convert
"""The declared response a JSON dict is, or ``None``."""


def grounded(response: Response, candidate: int) -> Grounded | None:
    """What ``read`` gives for ``response`` (with the default options; a response holds
    one answer, whatever ``candidate``), when the declared fields hold all of it;
    ``None`` otherwise."""
    status = response.status
    if status is not None and type(status) is not str:
        return None  # a str enum: the reader takes its value
    texts: list[str] = []
    spans: list[Span] = []
    table: list[Source] = []  # the cited sources, each once, in order of first sight
    cited: dict[tuple[str | None, str | None], tuple[Source]] = {}
    whole: list[Source] = []  # sources of the whole answer
    queries: list[str] = []
    base = 0  # characters of the parts before
    for i, item in enumerate(response.output or ()):
        kind = item.type
        if type(kind) is not str:
            if kind is None:
                continue
            return None
        if kind == "web_search_call":
            if not _web_search(item.action, queries, whole):
                return None
            continue
        if kind != "message":
            continue
        phase = item.phase
        if phase is not None and type(phase) is not str:
            return None
        if phase == "commentary":
            continue  # not the answer
        for j, content in enumerate(item.content or ()):
            content_type = content.type
            if type(content_type) is not str:
                if content_type is None:
                    continue
                return None
            if content_type != "output_text":
                continue
            text = content.text
            if text is None:
                text = ""
            elif type(text) is not str:
                return None
            part = len(texts)
            texts.append(text)
            size = len(text)
            prefix = f"output[{i}].content[{j}].annotations["
            for k, note in enumerate(content.annotations or ()):
                note_type = note.type
                if type(note_type) is not str:
                    if note_type is None:
                        continue  # not a citation
                    return None
                if note_type != "url_citation":
                    if note_type in _FILES:
                        return None  # a file citation: read the tolerant way
                    continue  # not a citation
                start, end = note.start_index, note.end_index
                if start is None or end is None or start == end == 0:
                    if (start is None) != (end is None):
                        return None  # one offset alone: the tolerant reader reports it
                    # no position (none, or OpenRouter's 0/0): a source of the whole answer
                    whole.append(new_source(note.url or None, note.title or None, None, "web"))
                    continue
                if not 0 <= start <= end <= size:
                    return None
                key = (note.url or None, note.title or None)
                sources = cited.get(key)
                if sources is None:
                    source = new_source(key[0], key[1], None, "web")
                    table.append(source)
                    sources = cited[key] = (source,)
                spans.append((base + start, base + end, None, sources, (), part, f"{prefix}{k}]"))
            base += size
    text = "".join(texts) if texts else ""
    citations = place_chars(text, spans, "citation")
    if citations is None:
        return None
    search = SearchInfo(queries=tuple(dict.fromkeys(queries))) if queries else SearchInfo()
    return new_grounded(text, citations, table + whole, "openai_response", search, status)


_FILES = frozenset({"file_citation", "file_path", "container_file_citation"})


def _web_search(action: Action | None, queries: list[str], whole: list[Source]) -> bool:
    """A web search call's queries and sources (``reader._web_search``), or ``False``
    when it holds something the tolerant reader reports."""
    if action is None:
        return True
    query = action.query
    if query:
        queries.append(query)
    queries.extend(q for q in action.queries or () if q)
    for found in action.sources or ():
        url, kind = found.url, found.type
        if url is None and kind is not None and kind != "url":
            named = found.name if isinstance(found.name, str) and found.name else None
            whole.append(Source(title=named, id=named, custom_metadata=(("type", kind),)))
        elif url is not None:
            whole.append(Source(uri=url or None, kind="web"))
        else:
            return False  # no URL: a wrong-type problem
    return True
