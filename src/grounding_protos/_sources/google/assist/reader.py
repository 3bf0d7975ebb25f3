"""Reading Discovery Engine assistant answers (Gemini Enterprise ``assist`` and
``streamAssist``): an ``AssistAnswer``, and the ``StreamAssistResponse`` (or
``AssistResponse``) holding one.

An ``AssistAnswer`` has ``replies``, each a ``groundedContent``: its ``content`` (text,
or media, code, a thought) and its ``textGroundingMetadata`` — ``segments``
``{startIndex, endIndex, referenceIndices, groundingScore, text}``, offsets in bytes of
the UTF-8 text (``assist_answer.proto``), and the ``references``
``{content, documentMetadata{document, uri, title, pageIdentifier, domain}}`` its
``referenceIndices`` point into. The answer is the text of the replies joined,
thought replies skipped. Each reply is one part: a segment of a reply that has text
counts in that reply's text, with that reply's references; a reply that carries
only grounding metadata (as streamed replies may) counts in the whole answer's text
(the replies so far joined), and its references are its own. Every segment carries
its ``text``, so a wrong reading of these rules shows up as drift or a mismatch,
never as a silent misplacement.

>>> raw = read_assist_answer({"replies": [
...     {"groundedContent": {"content": {"text": "Köln liegt am Rhein.", "role": "model"},
...      "textGroundingMetadata": {
...          "segments": [{"endIndex": "5", "referenceIndices": [0], "text": "Köln"}],
...          "references": [{"content": "Köln am Rhein", "documentMetadata": {
...              "title": "Köln", "uri": "https://k.example", "domain": "k.example"}}]}}}]}, 0)
>>> raw.text, raw.spans[0].refs, raw.sources[0][1].title, raw.spans[0].ref_window[:2]
('Köln liegt am Rhein.', [0], 'Köln', (0, 1))
"""

from __future__ import annotations

from grounding_protos._core.access import float_or_none, get, items, text_or_none, unwrap
from grounding_protos._core.model import Source
from grounding_protos._core.raw import RawAnswer, RawPart, RawSpan
from grounding_protos._sources.common import (
    enum_names,
    is_list,
    is_record,
    nonempty_list,
    string,
    unsupported,
)

_STATES = frozenset({"STATE_UNSPECIFIED", "IN_PROGRESS", "FAILED", "SUCCEEDED", "SKIPPED"})


def is_assist_answer(obj: object) -> bool:
    """An ``AssistAnswer``: ``replies`` holding a ``groundedContent``, skipped reasons, or
    a state with the name of an assist answer."""
    if not is_record(obj):
        return False
    replies = get(obj, "replies")
    if is_list(replies) and any(is_record(get(r, "grounded_content")) for r in replies):
        return True
    if nonempty_list(obj, "assist_skipped_reasons"):
        return True
    name = string(obj, "name")
    return string(obj, "state") in _STATES and name is not None and "/assistAnswers/" in name


def is_assist_response(obj: object) -> bool:
    """A ``StreamAssistResponse`` or ``AssistResponse``: an ``answer`` that is an
    ``AssistAnswer``, or (a streamed response that adds no reply) an ``assistToken``
    beside ``sessionInfo``, without an ``answer``."""
    answer = unwrap(get(obj, "answer"))
    if answer is not None:
        return is_assist_answer(answer)
    return string(obj, "assist_token") is not None and is_record(get(obj, "session_info"))


def read_assist_response(obj: object, candidate: int) -> RawAnswer:
    answer = unwrap(get(obj, "answer"))
    if answer is None:
        return RawAnswer("none", "answer.")  # a streamed response that adds nothing
    return _read(answer, "answer.")


def read_assist_answer(obj: object, candidate: int) -> RawAnswer:
    return _read(obj, "")


def _read(answer: object, prefix: str) -> RawAnswer:
    if not is_record(answer):
        raise unsupported(answer, " (the answer of an assist response)")
    raw = RawAnswer("none", prefix)
    raw.source_kind = "chunks"
    raw.skipped_reasons = enum_names(answer, "assist_skipped_reasons")
    parts: list[RawPart] = []
    pending: list[tuple[RawSpan, int | None]] = []
    for i, reply in enumerate(items(answer, "replies")):
        grounded = get(reply, "grounded_content")
        content = get(grounded, "content")
        text = get(content, "text")
        has_text = isinstance(text, str) and bool(text)
        parts.append(RawPart(i, text if isinstance(text, str) else None,
                             get(content, "thought") is True))  # fmt: skip
        meta = get(grounded, "text_grounding_metadata")
        if meta is None:
            continue
        where = f"{prefix}replies[{i}].grounded_content.text_grounding_metadata"
        base = len(raw.sources)
        references = items(meta, "references")
        for j, reference in enumerate(references):
            raw.sources.append((f"{where}.references[{j}]", _reference_source(reference, j)))
        window = (base, len(references), f"{where}.references")
        for j, segment in enumerate(items(meta, "segments")):
            span = RawSpan(
                f"{where}.segments[{j}]", get(segment, "start_index"), get(segment, "end_index"),
                "support", segment_text=get(segment, "text"),
                refs=list(items(segment, "reference_indices")),
                ref_path=".reference_indices[{}]",
            )  # fmt: skip
            span.ref_window = window
            span.score = get(segment, "grounding_score")
            pending.append((span, i if has_text else None))
    raw.parts = parts
    texts = [p.text for p in parts if p.text is not None and not p.thought]
    raw.text = "".join(texts) if texts else None
    for span, part in pending:
        if part is not None:
            span.part, span.part_relative = part, True
        raw.spans.append(span)
    return raw


def _reference_source(reference: object, index: int) -> Source:
    meta = get(reference, "document_metadata")
    return Source(
        uri=text_or_none(get(meta, "uri")),
        title=text_or_none(get(meta, "title")),
        id=str(index),
        kind="chunk",
        domain=text_or_none(get(meta, "domain")),
        document=text_or_none(get(meta, "document")),
        page=text_or_none(get(meta, "page_identifier")),
        text=text_or_none(get(reference, "content")),
        score=float_or_none(get(reference, "relevance_score")),
    )
