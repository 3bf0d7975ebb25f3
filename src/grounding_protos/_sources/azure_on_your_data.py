"""Reading Azure OpenAI "On Your Data" chat completions, which cite by ``[docN]`` markers.

With ``data_sources`` (Azure AI Search, Cosmos DB, …; API versions since
2024-02-15-preview), the assistant message of a chat completion carries a ``context``:
``citations`` (each ``content``, ``title``, ``url``, ``filepath``, ``chunk_id``; the
newer also ``rerank_score``) and ``intent`` (the search queries the service ran, as a
JSON array in a string). The answer cites with ``[doc1]`` markers: ``[docN]`` cites
``context.citations[N-1]`` (read from Azure's API reference, no recording). Each run of
markers cites the sentence or clause it ends, as Perplexity's do (``_sources.markers``):
``kind="marker"``, code never counts, and ``read(obj, markers="remove")`` works. A
streamed answer sends ``context`` in a delta; the merged message keeps it.

Recognized by what only it has: a message ``context`` with a ``citations`` list.

>>> raw = read_on_your_data({"choices": [{"message": {"role": "assistant",
...     "content": "Die Rente beginnt mit 67 [doc1].", "context": {"intent": '["Rente"]',
...     "citations": [{"content": "…", "title": "Rente.pdf", "filepath": "Rente.pdf"}]}}}]}, 0)
>>> [(raw.text[s.start : s.end], s.refs) for s in raw.spans], raw.search.retrieval_queries
([('Die Rente beginnt mit 67', [0])], ('Rente',))
"""

from __future__ import annotations

import json
import math

from grounding_protos._core.access import float_or_none, get, items, text_or_none, unwrap
from grounding_protos._core.model import SearchInfo, Source
from grounding_protos._core.raw import RawAnswer
from grounding_protos._sources.common import is_list, is_record
from grounding_protos._sources.markers import add_marker_spans, chat_answer, marker_style
from grounding_protos._sources.openai.reader import is_chat_completion

DOCS = marker_style(r"\[doc(?P<n>[0-9]{1,4})\]")
"""``[doc1]``: Azure On Your Data's markers."""


def is_on_your_data(obj: object) -> bool:
    """A chat completion whose message has a ``context`` with a ``citations`` list."""
    if not is_chat_completion(obj):
        return False
    for choice in items(obj, "choices"):
        context = get(get(unwrap(choice), "message"), "context")
        if is_record(context) and is_list(get(context, "citations")):
            return True
    return False


def read_on_your_data(obj: object, candidate: int) -> RawAnswer:
    """``choices[candidate].message``: ``[docN]`` cites ``context.citations[N-1]``;
    ``context.intent``'s queries are ``search.retrieval_queries``."""
    raw, message = chat_answer(obj, candidate)
    context = get(message, "context")
    where = f"{raw.prefix}context"
    for i, cited in enumerate(items(context, "citations")):
        raw.sources.append((f"{where}.citations[{i}]", _source(i, cited)))
    raw.search = SearchInfo(retrieval_queries=_queries(get(context, "intent")))
    add_marker_spans(raw, DOCS, f"{raw.prefix}content", lambda n, _link: n - 1)
    return raw


def _source(i: int, cited: object) -> Source:
    return Source(
        uri=text_or_none(get(cited, "url")),
        title=text_or_none(get(cited, "title")),
        id=f"doc{i + 1}",
        kind="document",
        document=text_or_none(get(cited, "filepath")),
        chunk=text_or_none(get(cited, "chunk_id")),
        text=text_or_none(get(cited, "content")),
        custom_metadata=_rerank(get(cited, "rerank_score")),
    )


def _rerank(value: object) -> tuple[tuple[str, str], ...]:
    """The semantic ranker's score (0-4, not a [0, 1] score: no ``Source.score``)."""
    score = float_or_none(value)
    return (("rerank_score", repr(score)),) if score is not None and math.isfinite(score) else ()


def _queries(intent: object) -> tuple[str, ...]:
    """``intent``'s queries: a JSON array of strings in a string (as Azure sends it), a
    list of strings, or one plain string."""
    if isinstance(intent, str):
        try:
            parsed = json.loads(intent)
        except ValueError:
            return (intent,) if intent.strip() else ()
        intent = parsed if isinstance(parsed, list) else [intent]
    if isinstance(intent, (list, tuple)):
        return tuple(q for q in intent if isinstance(q, str) and q)
    return ()
