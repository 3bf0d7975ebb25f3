"""Reading OpenAI responses: the Responses API and Chat Completions.

Responses API: ``output`` items of type ``message`` hold ``output_text`` parts with
``annotations``: ``url_citation`` (``start_index``/``end_index``, ``url``,
``title``), ``container_file_citation`` (a span and a file), ``file_citation`` and
``file_path`` (only a point ``index``: read as an empty span there). The text is
the ``output_text`` parts joined; each annotation counts within its own part.
Chat Completions: ``choices[candidate].message.content`` with
``message.annotations`` of ``{"type": "url_citation", "url_citation": {...}}``.

Offsets count characters of the text ("the index of the first character", OpenAI's
API reference), never bytes; whether code points or UTF-16 units is not documented,
so the default is code points (``"char"``) and ``read(obj, unit="utf16")`` takes the
other reading. Recorded ``url_citation`` spans cover the inline ``([site](url))``
link the model wrote, not the claim before it.

>>> raw = read_chat_completion({"choices": [{"message": {"role": "assistant",
...     "content": "Köln ([k.example](https://k.example))", "annotations": [
...     {"type": "url_citation", "url_citation": {"start_index": 5, "end_index": 37,
...      "url": "https://k.example", "title": "Köln"}}]}}]}, 0)
>>> raw.text[raw.spans[0].start : raw.spans[0].end], raw.sources[0][1].uri
('([k.example](https://k.example))', 'https://k.example')
"""

from __future__ import annotations

from grounding_protos._core.access import get, items, text_or_none
from grounding_protos._core.model import SearchInfo, Source
from grounding_protos._core.raw import RawAnswer, RawPart, RawSpan
from grounding_protos._exceptions import UnsupportedInputError
from grounding_protos._sources.common import (
    SourceTable,
    chat_choice,
    is_list,
    is_record,
    string,
    wrong_type,
)

# --- Responses API ---------------------------------------------------------------------


def is_response(obj: object) -> bool:
    """A Responses API ``Response``: ``output`` a list, with ``object: "response"`` or a
    ``message`` item whose ``content`` is a list."""
    output = get(obj, "output")
    if not is_list(output):
        return False
    if string(obj, "object") == "response":
        return True
    return any(
        string(item, "type") == "message" and is_list(get(item, "content")) for item in output
    )


def read_response(obj: object, candidate: int) -> RawAnswer:
    """Every ``output_text`` part of every ``message`` output item, joined; a
    commentary message (``phase: "commentary"``) is not the answer and is left out; a
    ``web_search_call``'s queries and sources are the answer's search and sources."""
    raw = RawAnswer("none", "", unit="char")
    table = SourceTable(raw)
    parts: list[RawPart] = []
    queries: list[str] = []
    for i, item in enumerate(items(obj, "output")):
        kind = string(item, "type")
        if kind == "web_search_call":
            _web_search(item, f"output[{i}]", raw, queries)
            continue
        if kind != "message" or string(item, "phase") == "commentary":
            continue
        for j, content in enumerate(items(item, "content")):
            if string(content, "type") != "output_text":
                continue
            text = string(content, "text") or ""
            part = len(parts)
            parts.append(RawPart(part, text, False))
            for k, annotation in enumerate(items(content, "annotations")):
                path = f"output[{i}].content[{j}].annotations[{k}]"
                span = _annotation(annotation, path, table, raw)
                if span is not None:
                    span.part, span.part_relative = part, True
                    raw.spans.append(span)
    raw.parts = parts
    raw.text = "".join(p.text or "" for p in parts) if parts else None
    raw.finish_reason = string(obj, "status")
    if queries:
        raw.search = SearchInfo(queries=tuple(dict.fromkeys(queries)))
    return raw


def _web_search(item: object, path: str, raw: RawAnswer, queries: list[str]) -> None:
    """A ``web_search_call``'s ``action``: its ``query`` and ``queries`` go to
    ``queries``, its ``sources`` (``{"type": "url", "url": ...}``) are sources of the
    whole answer (they cite no span); a field of another JSON type is a ``wrong-type``
    problem."""
    action = get(item, "action")
    if action is None:
        return
    path += ".action"
    if not is_record(action):
        wrong_type(raw, path, action, "an object")
        return
    query = get(action, "query")
    if isinstance(query, str):
        if query:
            queries.append(query)
    elif query is not None:
        wrong_type(raw, f"{path}.query", query, "a string")
    for name in ("queries", "sources"):
        value = get(action, name)
        if value is not None and not is_list(value):
            wrong_type(raw, f"{path}.{name}", value, "a list")
    for k, value in enumerate(items(action, "queries")):
        if isinstance(value, str):
            if value:
                queries.append(value)
        else:
            wrong_type(raw, f"{path}.queries[{k}]", value, "a string")
    for k, found in enumerate(items(action, "sources")):
        where = f"{path}.sources[{k}]"
        if not is_record(found):
            wrong_type(raw, where, found, "an object")
            continue
        url, kind, name = get(found, "url"), get(found, "type"), get(found, "name")
        if url is None and isinstance(kind, str) and kind != "url":  # {"type": "api", ...}
            named = text_or_none(name)
            source = Source(title=named, id=named, custom_metadata=(("type", kind),))
        elif isinstance(url, str):
            source = Source(uri=url or None, kind="web")
        else:
            wrong_type(raw, f"{where}.url", url, "a URL string")
            continue
        raw.answer_sources.append((where, source))


def _annotation(
    annotation: object, path: str, table: SourceTable, raw: RawAnswer
) -> RawSpan | None:
    """The span of a citation annotation; ``None`` for another annotation, and for a
    citation without a position, whose source goes to ``raw.answer_sources``."""
    kind = string(annotation, "type")
    if kind == "url_citation":
        source = Source(
            uri=text_or_none(get(annotation, "url")),
            title=text_or_none(get(annotation, "title")),
            kind="web",
        )
        start, end = get(annotation, "start_index"), get(annotation, "end_index")
    elif kind == "container_file_citation":
        source = _file(annotation, ("container_id", string(annotation, "container_id")))
        start, end = get(annotation, "start_index"), get(annotation, "end_index")
    elif kind in ("file_citation", "file_path"):
        source = _file(annotation)
        start = end = get(annotation, "index")  # a point: only where the file is cited
    else:
        return None  # not a citation
    if kind in _RANGED and positionless(start, end):
        raw.answer_sources.append((path, source))  # a source of the whole answer
        return None
    span = RawSpan(path, start, end, "citation")
    span.refs.append(table.ref(source, path))
    return span


_RANGED = frozenset({"url_citation", "container_file_citation"})


def positionless(start: object, end: object) -> bool:
    """Whether a citation says no position: no ``start_index`` and no ``end_index``
    (xAI), or both 0 (OpenRouter's "no position"; an empty span at 0 cites nothing).

    >>> positionless(None, None), positionless(0, 0), positionless(0, 5), positionless(3, 3)
    (True, True, False, False)
    """
    if start is None and end is None:
        return True
    zero = (0, "0")
    return start in zero and end in zero and not isinstance(start, bool)


def _file(annotation: object, *extra: tuple[str, str | None]) -> Source:
    file_id = text_or_none(get(annotation, "file_id"))
    return Source(
        title=text_or_none(get(annotation, "filename")),
        id=file_id,
        document=file_id,
        kind="document",
        custom_metadata=tuple((k, v) for k, v in extra if v),
    )


# --- Chat Completions ------------------------------------------------------------------


def is_chat_completion(obj: object) -> bool:
    """A ``ChatCompletion``: ``choices`` a list of records with an assistant ``message``."""
    choices = get(obj, "choices")
    if not is_list(choices) or not choices:
        return False
    return all(
        is_record(c) and is_record(get(c, "message")) and _is_chat_message(get(c, "message"))
        for c in choices
    )


def _is_chat_message(message: object) -> bool:
    content = get(message, "content")
    annotations = get(message, "annotations")
    return (
        string(message, "role") == "assistant"
        and (content is None or isinstance(content, str))
        and (annotations is None or is_list(annotations))
    )


def read_chat_completion(obj: object, candidate: int) -> RawAnswer:
    """``choices[candidate].message``: its ``content`` and ``annotations``."""
    choice = chat_choice(obj, candidate)
    message = get(choice, "message")
    prefix = f"choices[{candidate}].message."
    raw = RawAnswer("none", prefix, text=string(message, "content"), unit="char")
    table = SourceTable(raw)
    for k, annotation in enumerate(items(message, "annotations")):
        path = f"{prefix}annotations[{k}]"
        if string(annotation, "type") != "url_citation":
            continue
        inner = get(annotation, "url_citation")
        span = _annotation({"type": "url_citation", **_fields(inner)}, f"{path}.url_citation",
                           table, raw)  # fmt: skip
        if span is not None:
            raw.spans.append(span)
    raw.finish_reason = string(choice, "finish_reason")
    return raw


def _fields(obj: object) -> dict[str, object]:
    names = ("start_index", "end_index", "url", "title")
    return {n: get(obj, n) for n in names}


# --- Assistants: thread messages and message lists -------------------------------------


def is_thread_message(obj: object) -> bool:
    """An Assistants ``thread.message``: ``object: "thread.message"``, or a ``role`` and
    ``content`` parts one of which is ``{"type": "text", "text": {"value": ...}}``."""
    content = get(obj, "content")
    if not is_list(content):
        return False
    if string(obj, "object") == "thread.message":
        return True
    return string(obj, "role") in ("assistant", "user") and any(
        string(part, "type") == "text" and is_record(get(part, "text"))
        and isinstance(get(get(part, "text"), "value"), str)
        for part in content
        # a JSON part whose text is a string (an Anthropic text block) is none: passed
        # over without a call (a message of 800 blocks cost 0.4 ms to dispatch)
        if type(part) is not dict or type(part.get("text")) is not str
    )  # fmt: skip


def read_thread_message(obj: object, candidate: int, prefix: str = "") -> RawAnswer:
    """The ``text`` parts' ``value``\\ s joined; ``file_citation`` and ``file_path``
    annotations span their marker (``【4:0†file】``), which they carry as ``text``, in
    characters of their own part; so do the ``url_citation``\\ s (``url_citation.url``,
    ``title``) of Azure AI Foundry's agents (on ``【3:0†source】``)."""
    raw = RawAnswer("none", prefix, unit="char")
    table = SourceTable(raw)
    parts: list[RawPart] = []
    for j, content in enumerate(items(obj, "content")):
        if string(content, "type") != "text":
            continue
        body = get(content, "text")
        part = len(parts)
        parts.append(RawPart(part, string(body, "value") or "", False))
        for k, annotation in enumerate(items(body, "annotations")):
            kind = string(annotation, "type")
            if kind not in _THREAD_CITATIONS:
                continue
            path = f"{prefix}content[{j}].text.annotations[{k}]"
            source = _thread_source(kind, get(annotation, kind))
            start, end = get(annotation, "start_index"), get(annotation, "end_index")
            if positionless(start, end):
                raw.answer_sources.append((path, source))
                continue
            span = RawSpan(path, start, end, "citation", part=part, part_relative=True,
                           segment_text=get(annotation, "text"))  # fmt: skip
            span.refs.append(table.ref(source, path))
            raw.spans.append(span)
    raw.parts = parts
    raw.text = "".join(p.text or "" for p in parts) if parts else None
    raw.finish_reason = string(obj, "status")
    return raw


_THREAD_CITATIONS = frozenset({"file_citation", "file_path", "url_citation"})


def _thread_source(kind: str | None, inner: object) -> Source:
    """The source of an Assistants annotation: a file, or (Azure AI Foundry's agents,
    grounded with Bing) a web page."""
    if kind == "url_citation":
        url, title = text_or_none(get(inner, "url")), text_or_none(get(inner, "title"))
        return Source(uri=url, title=title, kind="web")
    file_id = text_or_none(get(inner, "file_id"))
    quote = text_or_none(get(inner, "quote"))
    return Source(id=file_id, document=file_id, kind="document", text=quote,
                  custom_metadata=(("annotation", kind or ""),))  # fmt: skip


def is_message_list(obj: object) -> bool:
    """A thread's message list: ``object: "list"`` and ``data`` of thread messages."""
    data = get(obj, "data")
    return (
        string(obj, "object") == "list"
        and is_list(data)
        and bool(data)
        and all(is_thread_message(m) for m in data)
    )


def read_message_list(obj: object, candidate: int) -> RawAnswer:
    """Assistant message ``candidate`` of the list, counted in the list's order (the
    API's default order is newest first, so 0 is the latest answer)."""
    answers = [(i, m) for i, m in enumerate(items(obj, "data")) if string(m, "role") != "user"]
    if not 0 <= candidate < len(answers):
        raise UnsupportedInputError(
            f"the message list has {len(answers)} assistant messages; candidate={candidate} "
            "is out of range"
        )
    i, message = answers[candidate]
    return read_thread_message(message, 0, f"data[{i}].")
