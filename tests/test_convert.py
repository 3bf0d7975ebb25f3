"""convert: between the schemas (losses reported), Source <-> FactChunk, official types."""

from __future__ import annotations

import importlib

import pytest
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import CitationError, MissingDependencyError, message_class, message_types
from grounding_protos.citations import Citation, Source, extract
from grounding_protos.convert import (
    fact_chunk_to_source,
    from_official,
    grounding_fact_losses,
    grounding_fact_to_source,
    source_to_fact_chunk,
    source_to_grounding_fact,
    to_citation_metadata,
    to_grounding_metadata,
    to_official,
)
from grounding_protos.discoveryengine_v1beta import GroundingFact
from tests import citation_cases as cases
from tests.descriptors import descriptor_of
from tests.strategies import messages

pytestmark = pytest.mark.smoke

TEXT = cases.joined()


def _spans(citations: list[Citation]) -> list[tuple[int, int, str | None, tuple[str | None, ...]]]:
    return [(c.start, c.end, c.text, tuple(s.title for s in c.sources)) for c in citations]


def test_gemini_response_to_grounding_metadata() -> None:
    response = cases.gemini_response_json()
    meta, losses = to_grounding_metadata(response)
    assert list(meta.web_search_queries) == ["tokyo population", "zürich cafés"]
    assert [c.web.title for c in meta.grounding_chunks] == [t for _, t in cases.SOURCES]
    # The oracle: reading the converted message gives the same citations.
    assert _spans(extract(meta, text=TEXT)) == _spans(extract(response))
    assert [loss.code for loss in losses] == ["not-representable"] * len(cases.SPANS)
    assert "confidence scores [0.9]" in losses[0].message
    assert losses[0].path == "candidates[0].grounding_metadata.grounding_supports[0]"


def test_answer_to_grounding_metadata_reports_what_it_leaves() -> None:
    answer = cases.answer_message()
    meta, losses = to_grounding_metadata(answer)
    assert len(meta.grounding_supports) == 12 and len(meta.grounding_chunks) == 3
    assert meta.grounding_chunks[0].retrieved_context.text == "chunk 0"
    assert _spans(extract(meta, text=TEXT)) == _spans(extract(answer))
    lost = {(loss.path, loss.message.split(" ")[0]) for loss in losses}
    assert ("citations[0].sources[0].chunk", "chunk") in lost
    assert ("citations[0].sources[0].page", "page") in lost
    assert ("citations[0].sources[0].score", "score") in lost
    assert ("grounding_supports[0]", "grounding") in lost
    assert all(loss.code == "not-representable" for loss in losses)


def test_to_citation_metadata() -> None:
    answer = cases.answer_message()
    meta, losses = to_citation_metadata(answer)
    per_source = [(s, e) for s, e, *_rest, titles in cases.expected() for _ in titles]
    assert [(c.start_index, c.end_index) for c in meta.citation_sources] == per_source * 2
    assert meta.citation_sources[0].uri == cases.SOURCES[0][0]
    assert not meta.citation_sources[0].HasField("license")
    back = extract(meta, text=TEXT)
    assert [(c.start, c.end, c.text) for c in back] == [
        (s, e, t) for s, e, _, _, t, titles in cases.expected() for _ in titles
    ] * 2
    assert any(loss.path == "citations[0].sources[0].title" for loss in losses)


def test_offsets_beyond_int32_are_refused() -> None:
    body = {"citations": [{"startIndex": "0", "endIndex": str(2**31),
                           "sources": [{"referenceId": "0"}]}],
            "references": [{"chunkInfo": {"content": "x"}}]}  # fmt: skip
    with pytest.raises(CitationError, match="does not fit the int32 field"):
        to_grounding_metadata(body)


SOURCES = st.builds(
    Source,
    uri=st.none() | st.text(max_size=10),
    title=st.none() | st.text(max_size=10),
    id=st.none() | st.text(min_size=1, max_size=5),
    kind=st.sampled_from(["web", "chunk", "citation_source", "other"]),
    domain=st.none() | st.text(max_size=5),
    license=st.none() | st.text(max_size=5),
    page=st.none() | st.text(max_size=3),
    text=st.none() | st.text(min_size=1, max_size=20),
    score=st.none() | st.floats(allow_nan=False, allow_infinity=False),
)


@settings(max_examples=200, deadline=None)
@given(SOURCES)
def test_source_fact_chunk_and_grounding_fact_round_trip(source: Source) -> None:
    assert fact_chunk_to_source(source_to_fact_chunk(source)) == source
    assert grounding_fact_to_source(source_to_grounding_fact(source)) == source


def test_grounding_fact_attributes_a_source_cannot_hold() -> None:
    fact = GroundingFact(fact_text="t", attributes={"author": "Ann", "uri": "https://a.example"})
    assert grounding_fact_to_source(fact).uri == "https://a.example"
    assert [loss.path for loss in grounding_fact_losses(fact)] == ["attributes['author']"]


def test_bad_score_in_metadata() -> None:
    chunk = source_to_fact_chunk(Source(score=0.5))
    chunk.source_metadata["score"] = "high"
    with pytest.raises(CitationError, match="'score' is not a number"):
        fact_chunk_to_source(chunk)


OFFICIAL = message_types()


@pytest.mark.parametrize("name", OFFICIAL)
def test_official_round_trip(name: str) -> None:
    pytest.importorskip("google.cloud.discoveryengine_v1", reason="official libs")

    try:
        to_official(message_class(name)())
    except MissingDependencyError as exc:  # an older official release lacks the type
        pytest.skip(str(exc))

    @settings(max_examples=5, deadline=None)
    @given(messages(descriptor_of(message_class(name))))
    def check(message: Message) -> None:
        theirs = to_official(message)
        assert type(theirs).__module__.startswith(("google.cloud.", "google.ai."))
        raw = to_official(message, raw=True)
        assert isinstance(raw, Message) and raw.DESCRIPTOR.full_name == name
        for obj in (theirs, raw):
            back = from_official(obj)
            assert type(back) is type(message)
            assert back.SerializeToString(deterministic=True) == message.SerializeToString(
                deterministic=True
            )

    check()


def test_missing_official_library(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def fake(name: str, package: str | None = None) -> object:
        if name.startswith("google.cloud.dialogflow"):
            raise ImportError(f"No module named {name!r}")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", fake)
    from grounding_protos.dialogflow_v2beta1 import Segment

    with pytest.raises(MissingDependencyError, match="pip install google-cloud-dialogflow"):
        to_official(Segment())


def test_wrong_arguments() -> None:
    with pytest.raises(TypeError, match="takes a message"):
        to_official({"a": 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes an official client object"):
        from_official(3)


def test_official_release_without_the_type(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("google.cloud.dialogflow_v2beta1", reason="official libs")
    import google.cloud.dialogflow_v2beta1 as df

    monkeypatch.delattr(df, "Segment", raising=False)
    from grounding_protos.dialogflow_v2beta1 import Segment

    with pytest.raises(MissingDependencyError, match=r"has no google\.cloud\.dialogflow\.v2beta1"
                       r"\.Segment \(a later release added it\): pip install -U "
                       r"google-cloud-dialogflow"):  # fmt: skip
        to_official(Segment())
