"""Reading Discovery Engine answers: ``Answer`` and the ``AnswerQueryResponse`` that
holds one (``:answer``; the merged ``:streamAnswer`` comes here too).
"""

from __future__ import annotations

from grounding_protos._core.access import (
    float_or_none,
    get,
    items,
    not_a_list,
    text_or_none,
    titled,
    unwrap,
)
from grounding_protos._core.model import CitationKind, Source
from grounding_protos._core.raw import RawAnswer, RawSpan
from grounding_protos._sources.common import (
    enum_names,
    is_record,
    nonempty_list,
    string,
    unsupported,
)

_ANSWER_STATES = frozenset({"STATE_UNSPECIFIED", "IN_PROGRESS", "FAILED", "SUCCEEDED", "STREAMING"})
_REFERENCE_KINDS = ("chunk_info", "unstructured_document_info", "structured_document_info")


def is_answer(obj: object) -> bool:
    if not is_record(obj):
        return False
    if string(obj, "answer_text") is not None or nonempty_list(obj, "answer_skipped_reasons"):
        return True
    for name in ("citations", "grounding_supports"):
        for item in items(obj, name):
            if any(get(s, "reference_id") is not None for s in items(item, "sources")):
                return True
    for reference in items(obj, "references"):
        if any(get(reference, n) is not None for n in _REFERENCE_KINDS):
            return True
    resource = string(obj, "name")  # an AssistAnswer has a state and a name too, and replies
    return (
        string(obj, "state") in _ANSWER_STATES
        and resource is not None
        and "/assistAnswers/" not in resource
        and get(obj, "replies") is None
    )


def is_query_response(obj: object) -> bool:
    return is_answer(unwrap(get(obj, "answer")))


def read_query_response(obj: object, candidate: int) -> RawAnswer:
    answer = unwrap(get(obj, "answer"))
    if answer is None:
        raise unsupported(obj, " (an answer response without its answer)")
    return _read_answer(answer, "answer.")


def read_bare_answer(obj: object, candidate: int) -> RawAnswer:
    return _read_answer(obj, "")


# --- Discovery Engine Answer ----------------------------------------------------------


def _read_answer(answer: object, prefix: str) -> RawAnswer:
    text = get(answer, "answer_text")
    raw = RawAnswer("answer", prefix, text=text if isinstance(text, str) else None)
    raw.source_kind = "references"
    raw.skipped_reasons = enum_names(answer, "answer_skipped_reasons")
    for i, reference in enumerate(items(answer, "references")):
        raw.sources.append((f"{prefix}references[{i}]", _reference_source(reference, i)))
    kinds: tuple[tuple[str, CitationKind], ...] = (
        ("citations", "citation"), ("grounding_supports", "support"),
    )  # fmt: skip
    for name, kind in kinds:
        for i, item in enumerate(items(answer, name)):
            path = f"{prefix}{name}[{i}]"
            span = RawSpan(
                path, get(item, "start_index"), get(item, "end_index"), kind,
                refs=[get(source, "reference_id") for source in items(item, "sources")],
                ref_kind="reference_id", ref_path=".sources[{}].reference_id",
            )  # fmt: skip
            if not span.refs and not_a_list(sources := get(item, "sources")):
                span.refs_not_a_list = sources  # a value that is no list: resolve reports it
            if kind == "support":
                span.score = get(item, "grounding_score")
            raw.spans.append(span)
    return raw


def _reference_source(reference: object, index: int) -> Source:
    ident = str(index)
    chunk = get(reference, "chunk_info")
    if chunk is not None:
        meta = get(chunk, "document_metadata")
        return titled(
            meta,
            ident,
            "chunk",
            document=text_or_none(get(meta, "document")),
            chunk=text_or_none(get(chunk, "chunk")),
            page=text_or_none(get(meta, "page_identifier")),
            text=text_or_none(get(chunk, "content")),
            score=float_or_none(get(chunk, "relevance_score")),
        )
    info = get(reference, "unstructured_document_info")
    if info is not None:
        contents = items(info, "chunk_contents")
        texts = [t for t in (text_or_none(get(c, "content")) for c in contents) if t]
        pages = [p for p in (text_or_none(get(c, "page_identifier")) for c in contents) if p]
        scores = [
            s for s in (float_or_none(get(c, "relevance_score")) for c in contents) if s is not None
        ]
        return titled(
            info,
            ident,
            "unstructured_document",
            document=text_or_none(get(info, "document")),
            page=pages[0] if pages else None,
            text="\n".join(texts) if texts else None,
            score=max(scores) if scores else None,
        )
    info = get(reference, "structured_document_info")
    if info is not None:
        return titled(
            info,
            ident,
            "structured_document",
            document=text_or_none(get(info, "document")),
        )
    return Source(id=ident, kind="other")
