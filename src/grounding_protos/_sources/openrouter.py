"""Reading Perplexity's answers through OpenRouter, which cite by ``[n]`` markers whose
sources are position-less ``url_citation`` annotations.

OpenRouter passes a Perplexity model's answer on as a plain chat completion: the
``[n]`` markers stay in ``message.content``, there is no top-level ``citations``, and
``message.annotations`` holds one ``url_citation`` per source at ``start_index: 0,
end_index: 0`` (OpenRouter's "no position"); marker ``[n]`` names ``annotations[n-1]``
(recorded). Each run of markers cites the sentence or clause it ends, as Perplexity's
do (``_sources.markers``): ``kind="marker"``, code never counts, and
``read(obj, markers="remove")`` works.

Recognized by what only it has: a chat completion whose message has annotations, all
``url_citation``\\ s without a position, and a ``[n]`` marker outside code. Without a
marker, the annotations are the answer's sources, as OpenRouter's ``0/0`` citations
are everywhere (``openai_chat_completion``).

>>> raw = read_openrouter({"choices": [{"message": {"role": "assistant",
...     "content": "Köln liegt am Rhein[1].", "annotations": [{"type": "url_citation",
...     "url_citation": {"url": "https://k.example", "start_index": 0, "end_index": 0}}]}}]}, 0)
>>> [(raw.text[s.start : s.end], s.refs) for s in raw.spans], raw.sources[0][1].uri
([('Köln liegt am Rhein', [0])], 'https://k.example')
"""

from __future__ import annotations

from grounding_protos._core.access import get, items, text_or_none, unwrap
from grounding_protos._core.model import Source
from grounding_protos._core.raw import RawAnswer
from grounding_protos._sources.common import is_list, string
from grounding_protos._sources.markers import BRACKETS, add_marker_spans, chat_answer, marker_spans
from grounding_protos._sources.openai.reader import is_chat_completion, positionless


def is_openrouter(obj: object) -> bool:
    """A chat completion without a top-level ``citations`` whose message cites by
    ``[n]`` markers (outside code) and only position-less ``url_citation``\\ s."""
    if get(obj, "citations") is not None or not is_chat_completion(obj):
        return False
    return any(_cites_by_markers(get(unwrap(c), "message")) for c in items(obj, "choices"))


def _cites_by_markers(message: object) -> bool:
    notes = get(message, "annotations")
    if not is_list(notes) or not notes:
        return False
    for note in notes:
        inner = get(note, "url_citation")
        if string(note, "type") != "url_citation" or inner is None:
            return False
        if not positionless(get(inner, "start_index"), get(inner, "end_index")):
            return False
    text = string(message, "content")
    return text is not None and "[" in text and bool(marker_spans(text, BRACKETS))


def read_openrouter(obj: object, candidate: int) -> RawAnswer:
    """``choices[candidate].message``: marker ``[n]`` cites ``annotations[n-1]``."""
    raw, message = chat_answer(obj, candidate)
    for k, note in enumerate(items(message, "annotations")):
        inner = get(note, "url_citation")
        source = Source(
            uri=text_or_none(get(inner, "url")),
            title=text_or_none(get(inner, "title")),
            id=str(k + 1),
            kind="web",
            text=text_or_none(get(inner, "content")),
        )
        raw.sources.append((f"{raw.prefix}annotations[{k}].url_citation", source))
    add_marker_spans(raw, BRACKETS, f"{raw.prefix}content", lambda n, _link: n - 1)
    return raw
