"""Citations across vendor lines and back: a Gemini or Discovery Engine answer exported
to OpenAI annotations or LangChain blocks, then read back as that vendor's response,
gives the same character spans, in multi-script text where code points, UTF-16 units
and UTF-8 bytes all differ (emoji with skin tones and ZWJ sequences)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import CitationError, OffsetError
from grounding_protos.citations import Grounded, read
from grounding_protos.convert import to_langchain_blocks, to_openai_annotations
from tests import citation_cases as cases


def spans(grounded: Grounded) -> list[tuple[int | None, int | None, str | None]]:
    """(char start, char end, first source URI) of every citation with a source."""
    out = []
    for c in grounded.citations:
        for source in c.sources:
            out.append((c.char_start, c.char_end, source.uri))
    return out


def responses_api(text: str, annotations: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "object": "response",
        "output": [{"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": text, "annotations": annotations}]}],
    }  # fmt: skip


def chat_completion(text: str, annotations: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text,
                                             "annotations": annotations}}],
    }  # fmt: skip


ORIGINALS: dict[str, Callable[[], object]] = {
    "gemini": cases.gemini_response_json,
    "discovery_engine": cases.answer_message,
}


@pytest.mark.parametrize("origin", list(ORIGINALS))
@pytest.mark.parametrize("unit", ["char", "utf16"])
@pytest.mark.parametrize("api", ["responses", "chat"])
def test_openai_round_trip(origin: str, unit: Any, api: Any) -> None:
    original = read(ORIGINALS[origin]())
    assert original.text is not None
    annotations = to_openai_annotations(original, unit=unit, api=api)
    build = responses_api if api == "responses" else chat_completion
    back = read(build(original.text, annotations), unit=unit)
    assert back.text == original.text
    assert spans(back) == [s for s in spans(original) if s[2] is not None]


@pytest.mark.parametrize("origin", list(ORIGINALS))
def test_langchain_round_trip_through_openai_shape(origin: str) -> None:
    """LangChain's citations carry url and character offsets like OpenAI's: reading the
    blocks' annotations as url_citations gives the original spans back."""
    original = read(ORIGINALS[origin]())
    (block,) = to_langchain_blocks(original)
    annotations = [
        {"type": "url_citation", "url": a["url"], "title": a["title"],
         "start_index": a["start_index"], "end_index": a["end_index"]}
        for a in block["annotations"] if "url" in a
    ]  # fmt: skip
    back = read(responses_api(block["text"], annotations))
    assert spans(back) == [s for s in spans(original) if s[2] is not None]


def test_the_units_are_not_interchangeable_on_this_text() -> None:
    """Reading UTF-16 offsets as code points misplaces spans after an astral emoji:
    the round trip above would fail with the wrong unit."""
    original = read(cases.gemini_response_json())
    assert original.text is not None
    annotations = to_openai_annotations(original, unit="utf16")
    try:
        back = read(responses_api(original.text, annotations), unit="char", errors="strict")
    except (OffsetError, CitationError):
        return  # out of range: refused
    assert spans(back) != spans(original)


TEXTS = st.lists(
    st.sampled_from(["Köln ", "東京", "👩🏽\u200d💻", "👍🏽", "naïve ", "🇯🇵", "e\u0301", "ok. "]),
    min_size=1,
    max_size=12,
).map("".join)


@settings(max_examples=150, deadline=None)
@given(TEXTS, st.data())
def test_any_spans_survive_the_round_trip(text: str, data: st.DataObject) -> None:
    """Random spans of a Discovery Engine answer, exported in each unit and read back."""
    n = len(text)
    cuts = data.draw(
        st.lists(st.tuples(st.integers(0, n), st.integers(0, n)), min_size=1, max_size=5)
    )
    citations = []
    for i, (a, b) in enumerate(cuts):
        lo, hi = min(a, b), max(a, b)
        citations.append({
            "startIndex": str(len(text[:lo].encode())), "endIndex": str(len(text[:hi].encode())),
            "sources": [{"referenceId": str(i)}],
        })  # fmt: skip
    answer = {
        "answerText": text,
        "citations": citations,
        "references": [
            {"chunkInfo": {"content": "x", "documentMetadata": {"uri": f"https://d{i}.example"}}}
            for i in range(len(cuts))
        ],
    }
    original = read(answer)
    units: tuple[Literal["char"], Literal["utf16"]] = ("char", "utf16")
    for unit in units:
        annotations = to_openai_annotations(original, unit=unit)
        back = read(responses_api(text, annotations), unit=unit)
        # an empty span at 0 exports as start_index 0, end_index 0, which is how
        # OpenRouter says "no position": it reads back as a source of the whole answer
        placed = [s for s in spans(original) if s[:2] != (0, 0)]
        assert spans(back) == placed
        whole = {s.uri for s in back.declared_sources} - {uri for *_, uri in placed}
        assert whole == {uri for start, end, uri in spans(original) if (start, end) == (0, 0)}
