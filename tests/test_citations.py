"""extract/read: every input kind, multi-script text, offsets checked independently."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import CitationError, GroundingProtosError, OffsetError, UnsupportedInputError
from grounding_protos.citations import Citation, extract, read
from grounding_protos.discoveryengine_v1 import Answer
from tests import citation_cases as cases
from tests.strategies import JSON

pytestmark = pytest.mark.smoke

EXPECTED = cases.expected()
TEXT = cases.joined()


def _summary(citations: list[Citation]) -> list[tuple[Any, ...]]:
    return [
        (c.start, c.end, c.char_start, c.char_end, c.text, tuple(s.title for s in c.sources))
        for c in citations
    ]


def _check_against_text(citations: list[Citation], text: str) -> None:
    data = text.encode()
    for c in citations:
        assert c.char_start is not None and c.char_end is not None
        assert len(data[: c.start].decode()) == c.char_start
        assert len(data[: c.end].decode()) == c.char_end
        assert c.text == data[c.start : c.end].decode() == text[c.char_start : c.char_end]


# --- Gemini (REST JSON, snake_case JSON, google-genai objects) ------------------------


@pytest.mark.parametrize("thought", [True, False])
@pytest.mark.parametrize("spelling", ["camel", "snake"])
def test_gemini_response_dict_with_parts(spelling: str, thought: bool) -> None:
    response = cases.gemini_response_json(thought)
    if spelling == "snake":
        response = cases.snake(response)
    grounded = read(response)
    assert grounded.text == TEXT  # thought part skipped, text parts joined
    assert _summary(grounded.citations) == EXPECTED
    _check_against_text(grounded.citations, TEXT)
    first = grounded.citations[0]
    assert first.kind == "support" and first.source_scores == (0.9,)
    assert first.path == "candidates[0].grounding_metadata.grounding_supports[0]"
    assert first.sources[0].kind == "web" and first.sources[0].domain == "example.com"
    first_part = int(thought)
    parts = [span.part + first_part or None for span in cases.SPANS]
    assert [c.part for c in grounded.citations] == parts


def test_gemini_candidate_and_grounding_metadata_dicts() -> None:
    candidate = cases.gemini_response_json()["candidates"][0]
    assert _summary(extract(candidate)) == EXPECTED
    joined_meta = cases.grounding_metadata_json(parts_relative=False)
    assert _summary(extract(joined_meta, text=TEXT)) == EXPECTED


def test_google_genai_objects() -> None:
    genai = pytest.importorskip("google.genai.types", reason="google-genai is a test extra")
    response = genai.GenerateContentResponse.model_validate(cases.gemini_response_json())
    assert response.candidates[0].grounding_metadata.grounding_supports[2].segment.part_index == 2
    assert _summary(extract(response)) == EXPECTED
    assert _summary(extract(response.candidates[0])) == EXPECTED
    meta = genai.GroundingMetadata.model_validate(cases.grounding_metadata_json(False))
    assert _summary(extract(meta, text=TEXT)) == EXPECTED
    cited = genai.CitationMetadata(
        citations=[genai.Citation(start_index=s, end_index=e, uri="https://c.example",
                                  title="C", license="MIT") for s, e, *_ in EXPECTED]
    )  # fmt: skip
    got = extract(cited, text=TEXT)
    assert [(c.start, c.end, c.text) for c in got] == [(s, e, t) for s, e, _, _, t, _ in EXPECTED]
    assert got[0].sources[0].license == "MIT" and got[0].kind == "citation"


def test_gemini_citation_metadata_with_the_candidate_text() -> None:
    response = cases.gemini_response_json()
    candidate = response["candidates"][0]
    del candidate["groundingMetadata"]
    candidate["citationMetadata"] = {
        "citations": [
            {"startIndex": s, "endIndex": e, "uri": "https://c.example",
             "publicationDate": {"year": 2024, "month": 5}}
            for s, e, *_ in EXPECTED if s
        ]
    }  # fmt: skip
    got = extract(response)
    assert [(c.char_start, c.char_end) for c in got] == [
        (cs, ce) for s, _, cs, ce, *_ in EXPECTED if s
    ]
    assert got[0].sources[0].publication_date == "2024-05"


# --- Discovery Engine Answer ---------------------------------------------------------


def test_answer_message_citations_and_supports() -> None:
    answer = cases.answer_message()
    citations = extract(answer)
    assert [c.kind for c in citations] == ["citation"] * 6 + ["support"] * 6
    assert _summary(citations[:6]) == EXPECTED == _summary(citations[6:])
    assert citations[6].score == 0.75 and citations[0].score is None
    source = citations[0].sources[0]
    assert (source.kind, source.id, source.page, source.text, source.score) == (
        "chunk", "0", "1", "chunk 0", 0.5,
    )  # fmt: skip
    assert source.chunk and source.chunk.endswith("/chunks/c0")
    _check_against_text(citations, TEXT)


@pytest.mark.parametrize("names", [False, True])
def test_answer_json_and_answer_response(names: bool) -> None:
    body = json_format.MessageToDict(cases.answer_message(), preserving_proto_field_name=names)
    assert isinstance(body["citations"][1]["start_index" if names else "startIndex"], str)
    assert _summary(extract(body)) == _summary(extract(cases.answer_message()))
    response = {"answer": body, "session": {"name": "s"}, "answerQueryToken": "t"}
    got = extract(response)
    assert got[0].path == "answer.citations[0]"
    assert _summary(got) == _summary(extract(body))


def test_official_client_objects() -> None:
    de = pytest.importorskip("google.cloud.discoveryengine_v1", reason="official libs")
    df = pytest.importorskip("google.cloud.dialogflow_v2beta1", reason="official libs")
    gl = pytest.importorskip("google.ai.generativelanguage_v1beta3", reason="official libs")
    if not hasattr(df, "GroundingMetadata"):
        pytest.skip("this google-cloud-dialogflow release has no v2beta1 GroundingMetadata")
    data = cases.answer_message().SerializeToString()
    proto_plus = de.Answer.deserialize(data)
    raw = de.Answer.pb(proto_plus)
    expected = _summary(extract(cases.answer_message()))
    assert _summary(extract(proto_plus)) == expected
    assert _summary(extract(raw)) == expected
    meta = df.GroundingMetadata.deserialize(cases.grounding_metadata_message().SerializeToString())
    assert _summary(extract(meta, text=TEXT)) == EXPECTED
    cited = gl.CitationMetadata.deserialize(cases.citation_metadata_message().SerializeToString())
    got = extract(cited, text=TEXT)
    assert [(c.start, c.end) for c in got] == [(s, e) for s, e, *_ in EXPECTED]
    assert got[0].sources[0].license == "CC-BY-4.0"  # proto-plus names it license_


def test_our_grounding_and_citation_metadata_messages() -> None:
    assert _summary(extract(cases.grounding_metadata_message(), text=TEXT)) == EXPECTED
    got = extract(cases.citation_metadata_message(), text=TEXT.encode())
    assert [c.text for c in got] == [t for *_, t, _ in EXPECTED]


# --- Without text, and errors -----------------------------------------------------------


def test_without_text_char_fields_are_none() -> None:
    got = read(cases.grounding_metadata_message())
    assert got.text is None
    c = got.citations[2]
    assert (c.char_start, c.char_end) == (None, None)
    assert c.text == EXPECTED[2][4]  # Segment.text, as the API gave it
    assert (c.start, c.end) == EXPECTED[2][:2]


def test_split_character_names_the_path() -> None:
    answer = cases.answer_message()
    answer.citations[1].start_index += 1
    with pytest.raises(
        OffsetError, match=r"^citations\[1\]\.start_index: byte offset \d+ splits '人'"
    ):
        extract(answer)
    assert extract(answer, snap="outward")[1].char_start == EXPECTED[1][2]
    assert extract(answer, snap="ceil")[1].char_start == EXPECTED[1][2] + 1


@pytest.mark.parametrize(
    "edit, error, match",
    [
        (lambda a: setattr(a.citations[0], "end_index", 10_000), OffsetError,
         r"citations\[0\]\.end_index: byte offset 10000 is out of range: the text has \d+ bytes"),
        (lambda a: setattr(a.citations[0], "start_index", 30), OffsetError,
         r"citations\[0\]\.end_index: start_index 30 is after end_index 27"),
        (lambda a: setattr(a.citations[2].sources[0], "reference_id", "7"), CitationError,
         r"citations\[2\]\.sources\[0\]\.reference_id: reference_id 7 is out of range: "
         r"references has 3 entries"),
        (lambda a: setattr(a.grounding_supports[0].sources[0], "reference_id", "doc-1"),
         CitationError, r"reference_id 'doc-1' is not a number"),
    ],
)  # fmt: skip
def test_answer_errors(edit: Any, error: type[Exception], match: str) -> None:
    answer = cases.answer_message()
    edit(answer)
    with pytest.raises(error, match=match):
        extract(answer)


def test_part_index_errors() -> None:
    response = cases.gemini_response_json()
    segment = response["candidates"][0]["groundingMetadata"]["groundingSupports"][2]["segment"]
    segment["partIndex"] = 0  # the thought part
    with pytest.raises(CitationError, match=r"part_index 0 names no text part .*a thought part"):
        extract(response)
    segment["partIndex"] = 9
    with pytest.raises(CitationError) as info:
        extract(response)
    assert info.value.code == "part-index-out-of-range"
    assert info.value.path.endswith("grounding_supports[2].segment.part_index")


def test_chunk_index_out_of_range() -> None:
    meta = cases.grounding_metadata_json(parts_relative=False)
    meta["groundingSupports"][1]["groundingChunkIndices"] = [0, 3]
    with pytest.raises(CitationError, match=r"grounding_chunk_indices\[1\]: chunk index 3 is out"):
        extract(meta, text=TEXT)


def test_text_argument_conflicting_with_the_input() -> None:
    with pytest.raises(CitationError, match="text= differs"):
        extract(cases.answer_message(), text="something else")
    assert extract(cases.answer_message(), text=TEXT)  # the same text is fine


@pytest.mark.parametrize("obj", [{}, {"foo": 1}, 42, "text", [1, 2], object()])
def test_unsupported_inputs(obj: object) -> None:
    with pytest.raises(UnsupportedInputError, match="cannot read citations from"):
        extract(obj)


def test_candidate_out_of_range() -> None:
    with pytest.raises(UnsupportedInputError, match="candidate=3 is out of range"):
        extract(cases.gemini_response_json(), candidate=3)


def test_input_is_not_modified() -> None:
    response = cases.gemini_response_json()
    before = copy.deepcopy(response)
    extract(response)
    assert response == before


def test_grounded_sources_in_order_of_first_use() -> None:
    grounded = read(cases.answer_message())
    assert [s.title for s in grounded.sources] == [t for _, t in cases.SOURCES]


def test_answer_message_must_be_ours_or_official() -> None:
    with pytest.raises(UnsupportedInputError):
        extract(Answer.Reference())


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["answerText", "citations", "candidates",
                                        "groundingSupports", "citationSources", "answer"]),
                       JSON, min_size=1, max_size=4),
       st.one_of(st.none(), st.text(max_size=20)))  # fmt: skip
def test_extract_raises_only_its_own_errors(body: dict[str, Any], text: str | None) -> None:
    try:
        citations = extract(body, text=text)
    except GroundingProtosError:
        return
    for c in citations:
        assert c.start <= c.end


# --- Spans placed in bulk agree with spans placed one by one -------------------------------

_BULK_TEXT = st.text(st.sampled_from(list("ab é東京👍🏽\u0301")), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(_BULK_TEXT, st.data(), st.sampled_from(["byte", "char", "utf16"]), st.booleans())
def test_bulk_placement_agrees_with_one_by_one(
    text: str, data: st.DataObject, unit: str, as_strings: bool
) -> None:
    """read places in-range whole-text offsets in bulk; snap= (a no-op on boundaries)
    sends every span through the one-by-one path: both must give the same citations,
    in every unit, for int and JSON-int64-string offsets, with and without partIndex."""
    sizes = {
        "byte": len(text.encode()),
        "char": len(text),
        "utf16": len(text.encode("utf-16-le")) // 2,
    }
    bounds = sorted(
        {
            {"byte": len(text[:i].encode()), "char": i,
             "utf16": len(text[:i].encode("utf-16-le")) // 2}[unit]
            for i in range(len(text) + 1)
        }
    )  # fmt: skip
    assert bounds[-1] == sizes[unit]
    supports = []
    for _ in range(data.draw(st.integers(1, 4))):
        a, b = sorted(data.draw(st.lists(st.sampled_from(bounds), min_size=2, max_size=2)))
        segment: dict[str, Any] = {"startIndex": str(a) if as_strings else a,
                                   "endIndex": str(b) if as_strings else b}  # fmt: skip
        if data.draw(st.booleans()):
            segment["partIndex"] = 0
        supports.append({"segment": segment, "groundingChunkIndices": [0]})
    response = {
        "candidates": [{
            "content": {"parts": [{"text": text}]},
            "groundingMetadata": {
                "groundingChunks": [{"web": {"uri": "https://s.example"}}],
                "groundingSupports": supports,
            },
        }]
    }  # fmt: skip
    bulk = read(response, unit=unit)  # type: ignore[arg-type]
    one_by_one = read(response, unit=unit, snap="floor")  # type: ignore[arg-type]
    assert bulk.citations == one_by_one.citations
    for c in bulk.citations:
        assert c.char_start is not None and c.char_end is not None
        assert c.text == text[c.char_start : c.char_end]
        assert (c.start, c.end) == (
            len(text[: c.char_start].encode()), len(text[: c.char_end].encode())
        )  # fmt: skip
