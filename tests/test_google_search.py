"""Vertex AI Search summaries: SearchResponse, its summary, a bare summaryWithMetadata."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from grounding_protos import CitationError, OffsetError, validate
from grounding_protos.citations import read, render

pytestmark = pytest.mark.smoke

SENTENCES = ["東京は日本の首都です。", "Zürich liegt am See. ", "Ça coûte 3 € 👍🏽."]
TEXT = "".join(SENTENCES)


def _span(k: int) -> tuple[int, int]:
    """Byte offsets of sentence ``k``, computed from the pieces (the oracle)."""
    start = len("".join(SENTENCES[:k]).encode("utf-8"))
    return start, start + len(SENTENCES[k].encode("utf-8"))


def summary_with_metadata() -> dict[str, Any]:
    citations = []
    for k, sources in enumerate([[{}], [{"referenceIndex": "1"}, {}], [{"referenceIndex": "2"}]]):
        start, end = _span(k)
        citation: dict[str, Any] = {"endIndex": str(end), "sources": sources}
        if start:
            citation["startIndex"] = str(start)
        citations.append(citation)
    return {
        "summary": TEXT,
        "citationMetadata": {"citations": citations},
        "references": [
            {"title": "東京都の概要", "document": "projects/p/locations/global/documents/tokyo",
             "uri": "gs://b/tokyo.pdf",
             "chunkContents": [{"content": "東京都は日本の首都。", "pageIdentifier": "2"}]},
            {"title": "Zürichsee: Übersicht", "document": "projects/p/documents/zh"},
            {"title": "Prix à Paris", "document": "projects/p/documents/fr",
             "chunkContents": [{"content": "3 €"}, {"content": "👍🏽", "pageIdentifier": "9"}]},
        ],
    }  # fmt: skip


def search_response() -> dict[str, Any]:
    return {
        "results": [{"id": "tokyo", "document": {"name": "projects/p/documents/tokyo"}}],
        "totalSize": 3,
        "attributionToken": "token",
        "summary": {
            "summaryText": "東京は日本の首都です [1]。…",
            "summaryWithMetadata": summary_with_metadata(),
            "safetyAttributes": {"categories": ["Finance", "Legal"], "scores": [0.1, 0.05]},
        },
    }


def _check(grounded: Any) -> None:
    assert grounded.text == TEXT
    got = [(c.start, c.end, c.text, [s.title for s in c.sources]) for c in grounded.citations]
    titles = ["東京都の概要", "Zürichsee: Übersicht", "Prix à Paris"]
    assert got == [
        (*_span(0), SENTENCES[0], [titles[0]]),
        (*_span(1), SENTENCES[1], [titles[1], titles[0]]),
        (*_span(2), SENTENCES[2], [titles[2]]),
    ]
    for c in grounded.citations:
        assert TEXT[c.char_start : c.char_end] == c.text


@pytest.mark.parametrize("where", ["response", "summary", "with_metadata"])
def test_each_level_reads_the_same_citations(where: str) -> None:
    response = search_response()
    obj = {"response": response, "summary": response["summary"],
           "with_metadata": response["summary"]["summaryWithMetadata"]}[where]  # fmt: skip
    grounded = read(obj)
    _check(grounded)
    assert grounded.shape == {"response": "search_response", "summary": "search_summary",
                              "with_metadata": "summary_with_metadata"}[where]  # fmt: skip
    assert validate(obj) == []


def test_sources_carry_document_page_and_chunk_text() -> None:
    sources = read(search_response()).declared_sources
    assert [s.document for s in sources] == [
        "projects/p/locations/global/documents/tokyo", "projects/p/documents/zh",
        "projects/p/documents/fr",
    ]  # fmt: skip
    assert (sources[0].uri, sources[0].page, sources[0].text) == (
        "gs://b/tokyo.pdf", "2", "東京都は日本の首都。",
    )  # fmt: skip
    assert (sources[2].page, sources[2].text) == ("9", "3 €\n👍🏽")
    assert {s.kind for s in sources} == {"unstructured_document"}


def test_safety_attributes_and_skipped_reasons() -> None:
    assert read(search_response()).safety == (("Finance", 0.1), ("Legal", 0.05))
    skipped = {"summary": {"summaryText": "A summary could not be generated for your search query.",
                           "summarySkippedReasons": ["OUT_OF_DOMAIN_QUERY_IGNORED",
                                                     "NO_RELEVANT_CONTENT"]},
               "results": []}  # fmt: skip
    grounded = read(skipped)
    assert grounded.citations == [] and grounded.shape == "search_response"
    assert grounded.skipped_reasons == ("OUT_OF_DOMAIN_QUERY_IGNORED", "NO_RELEVANT_CONTENT")
    assert grounded.text is not None and grounded.text.startswith("A summary")


def test_out_of_range_reference_index() -> None:
    response = search_response()
    citations = response["summary"]["summaryWithMetadata"]["citationMetadata"]["citations"]
    citations[1]["sources"][0]["referenceIndex"] = "7"
    with pytest.raises(CitationError) as info:
        read(response)
    assert info.value.code == "reference-id-out-of-range"
    path = "summary.summary_with_metadata.citation_metadata.citations[1].sources[0].reference_index"
    assert info.value.path == path
    assert [p.path for p in validate(response)] == [path]
    skipped = read(response, errors="skip")
    assert [c.text for c in skipped.citations] == [SENTENCES[0], SENTENCES[2]]
    assert [p.code for p in skipped.problems] == ["reference-id-out-of-range"]


def test_unit_defaults_to_bytes_and_can_be_characters() -> None:
    response = search_response()
    chars = copy.deepcopy(response)
    for k, citation in enumerate(
        chars["summary"]["summaryWithMetadata"]["citationMetadata"]["citations"]
    ):
        start = len("".join(SENTENCES[:k]))
        citation["startIndex"], citation["endIndex"] = start, start + len(SENTENCES[k])
    _check(read(chars, unit="char"))
    # Character offsets read as bytes land inside a character: validate says so.
    with pytest.raises(OffsetError):
        read(chars)
    assert "offset-splits-character" in {p.code for p in validate(chars)}
    assert validate(chars, unit="char") == []


def test_official_search_response_object() -> None:
    de = pytest.importorskip("google.cloud.discoveryengine_v1", reason="official extra")
    response = de.SearchResponse.from_json(
        __import__("json").dumps(search_response()), ignore_unknown_fields=True
    )
    _check(read(response))
    _check(read(response.summary))
    _check(read(response.summary.summary_with_metadata))
    assert read(response).shape == "search_response"
    safety = read(response).safety
    assert [c for c, _ in safety] == ["Finance", "Legal"]
    assert [s for _, s in safety] == [pytest.approx(0.1), pytest.approx(0.05)]
    reason = de.SearchResponse.Summary.SummarySkippedReason.OUT_OF_DOMAIN_QUERY_IGNORED
    skipped = de.SearchResponse.Summary(summary_text="skipped", summary_skipped_reasons=[reason])
    assert read(skipped).skipped_reasons == ("OUT_OF_DOMAIN_QUERY_IGNORED",)


def test_render_places_markers_after_multibyte_text() -> None:
    grounded = read(search_response())
    out = render(TEXT, grounded.citations, "markdown")
    assert out.startswith("東京は日本の首都です。[")
