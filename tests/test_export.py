"""Export to OpenAI annotations and LangChain v1 content blocks.

Offsets are checked against naive conversions computed here from the character
positions the test put in (``len(text[:c].encode("utf-16-le")) // 2`` and the like),
and the records against the vendors' own SDK types where those are installed.
"""

from __future__ import annotations

import typing
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import CitationError, GroundingProtosError
from grounding_protos._core.model import Problem, Source
from grounding_protos._exceptions import ArgumentValueError
from grounding_protos.citations import Citation, Grounded, read
from grounding_protos.convert import to_langchain_blocks, to_openai_annotations
from grounding_protos.offsets import OffsetError, Unit
from tests import citation_cases as cases

UNITS: tuple[Unit, ...] = ("char", "utf16", "byte")
URL_OF = {title: uri for uri, title in cases.SOURCES}


def oracle(text: str, char: int, unit: Unit) -> int:
    """Where character ``char`` of ``text`` is, in ``unit``, the slow and obvious way."""
    if unit == "char":
        return char
    if unit == "utf16":
        return len(text[:char].encode("utf-16-le")) // 2
    return len(text[:char].encode("utf-8"))


def sliced(text: str, start: int, end: int, unit: Unit) -> str:
    """What a consumer indexing by ``unit`` gets for [start, end)."""
    if unit == "char":
        return text[start:end]
    if unit == "utf16":
        return text.encode("utf-16-le")[2 * start : 2 * end].decode("utf-16-le")
    return text.encode("utf-8")[start:end].decode("utf-8")


def expected_pairs(unit: Unit) -> list[tuple[str, str, int, int]]:
    """(url, title, start, end) for every (span, source) pair of the shared cases."""
    text = cases.joined()
    return [
        (URL_OF[title], title, oracle(text, cs, unit), oracle(text, ce, unit))
        for _bs, _be, cs, ce, _t, titles in cases.expected()
        for title in titles
    ]


# --- OpenAI ----------------------------------------------------------------------------


@pytest.mark.parametrize("unit", UNITS)
def test_openai_responses_shape_in_each_unit(unit: Unit) -> None:
    annotations = to_openai_annotations(cases.gemini_response_json(), unit=unit)
    assert all(set(a) == {"type", "url", "title", "start_index", "end_index"} for a in annotations)
    assert all(a["type"] == "url_citation" for a in annotations)
    got = [(a["url"], a["title"], a["start_index"], a["end_index"]) for a in annotations]
    assert got == expected_pairs(unit)
    text = cases.joined()
    for a, (_bs, _be, cs, ce, cited, _titles) in zip(annotations, _per_pair(), strict=True):
        assert sliced(text, a["start_index"], a["end_index"], unit) == cited == text[cs:ce]


def _per_pair() -> list[tuple[int, int, int, int, str, tuple[str, ...]]]:
    return [row for row in cases.expected() for _ in row[5]]


def test_units_really_differ_on_this_text() -> None:
    pairs = {unit: expected_pairs(unit) for unit in UNITS}
    assert pairs["char"] != pairs["utf16"] != pairs["byte"] != pairs["char"]


@pytest.mark.parametrize("unit", UNITS)
def test_openai_chat_shape(unit: Unit) -> None:
    annotations = to_openai_annotations(
        cases.gemini_response_json(),
        unit=unit,
        api="chat",
    )
    assert all(set(a) == {"type", "url_citation"} for a in annotations)
    assert all(a["type"] == "url_citation" for a in annotations)
    got = [
        (b["url"], b["title"], b["start_index"], b["end_index"])
        for b in (a["url_citation"] for a in annotations)
    ]
    assert got == expected_pairs(unit)


def test_one_record_per_span_and_source() -> None:
    spans_with_two = [s for s in cases.SPANS if len(s.sources) > 1]
    assert spans_with_two  # the case has spans with several sources
    annotations = to_openai_annotations(cases.gemini_response_json())
    assert len(annotations) == sum(len(s.sources) for s in cases.SPANS)


def test_grounded_input_gives_the_same_as_the_response() -> None:
    response = cases.gemini_response_json()
    for unit in UNITS:
        assert to_openai_annotations(read(response), unit=unit) == to_openai_annotations(
            response,
            unit=unit,
        )
        assert to_langchain_blocks(read(response), unit=unit) == to_langchain_blocks(
            response,
            unit=unit,
        )


@pytest.mark.parametrize("unit", UNITS)
def test_discovery_engine_answer(unit: Unit) -> None:
    answer = cases.answer_message()  # citations and grounding supports, chunk references
    annotations = to_openai_annotations(answer, unit=unit)
    got = [(a["url"], a["title"], a["start_index"], a["end_index"]) for a in annotations]
    assert got == expected_pairs(unit) * 2  # the citations, then the grounding supports


def test_google_genai_response_object_and_candidate_choice() -> None:
    genai = pytest.importorskip("google.genai.types", reason="google-genai is a test extra")
    response = genai.GenerateContentResponse.model_validate(cases.gemini_response_json())
    annotations = to_openai_annotations(response, unit="utf16")
    got = [(a["url"], a["title"], a["start_index"], a["end_index"]) for a in annotations]
    assert got == expected_pairs("utf16")
    # A second candidate with another text: candidate= picks it.
    two = cases.gemini_response_json()
    other = "👩🏽\u200d💻 Zürich"
    two["candidates"].append(
        {
            "content": {"parts": [{"text": other}]},
            "groundingMetadata": {
                "groundingChunks": [{"web": {"uri": "https://z.example", "title": "Z"}}],
                "groundingSupports": [
                    {
                        "segment": {"startIndex": len("👩🏽\u200d💻 ".encode()), "endIndex": 23},
                        "groundingChunkIndices": [0],
                    }
                ],
            },
        }
    )
    [record] = to_openai_annotations(two, candidate=1, unit="utf16")
    assert (record["url"], record["start_index"], record["end_index"]) == (
        "https://z.example",
        8,
        14,
    )
    assert other.encode("utf-16-le")[16:28].decode("utf-16-le") == "Zürich"


def _mixed_sources() -> Grounded:
    text = "Café 👍🏽 at 東京駅; 👩🏽\u200d💻 works."
    web = Source(uri="https://cafe.example", title="Café", kind="web", domain="cafe.example")
    place = Source(
        uri="https://maps.google.com/?cid=7", title="東京駅", kind="maps", place_id="ChIJ7", id="1"
    )
    store = Source(
        title="Handbook",
        kind="retrieved_context",
        text="Opening hours: 9 to 5.",
        file_search_store="fileSearchStores/s1",
        custom_metadata=(("author", "Ana"),),
        id="2",
    )
    document = Source(kind="chunk", document="projects/p/documents/9", chunk="c1", page="3")
    index_chars = [(0, 4), (11, 14), (16, 20), (0, 0)]  # Café, 東京駅, the ZWJ sequence, ''
    citations = []
    for i, ((cs, ce), sources) in enumerate(
        zip(index_chars, [(web, place), (place, store), (document,), ()], strict=True)
    ):
        citations.append(
            Citation(
                start=oracle(text, cs, "byte"),
                end=oracle(text, ce, "byte"),
                char_start=cs,
                char_end=ce,
                text=text[cs:ce],
                sources=sources,
                kind="support",
                score=0.5 if i == 1 else None,
                source_scores=(0.9, 0.8) if i == 0 else (),
                path=f"supports[{i}]",
            )
        )
    return Grounded(text, citations)


def test_openai_refuses_sources_without_url_unless_asked_to_list_them() -> None:
    grounded = _mixed_sources()
    with pytest.raises(CitationError, match=r"supports\[1\]\.sources\[1\].*Handbook.*no URL") as e:
        to_openai_annotations(grounded)
    assert e.value.code == "not-representable" and e.value.path == "supports[1].sources[1]"

    problems: list[Problem] = []
    annotations = to_openai_annotations(grounded, unit="utf16", problems=problems)
    assert [(a["url"], a["start_index"], a["end_index"]) for a in annotations] == [
        ("https://cafe.example", 0, 4),
        ("https://maps.google.com/?cid=7", 0, 4),
        ("https://maps.google.com/?cid=7", 13, 16),  # 👍🏽 is 2 characters, 4 UTF-16 units
    ]
    assert [(p.code, p.path) for p in problems] == [
        ("not-representable", "supports[1].sources[1]"),
        ("not-representable", "supports[2].sources[0]"),
        ("no-source", "supports[3]"),
    ]
    assert "projects/p/documents/9" in problems[1].message


def test_langchain_keeps_every_source_with_what_identifies_it() -> None:
    grounded = _mixed_sources()
    [block] = to_langchain_blocks(grounded, unit="utf16")
    assert block["type"] == "text" and block["text"] == grounded.text
    annotations = block["annotations"]
    assert len(annotations) == 2 + 2 + 1 + 1  # every pair, and the sourceless span
    web, place, place2, store, document, bare = annotations
    assert web["url"] == "https://cafe.example" and web["title"] == "Café"
    assert web["extras"] == {
        "source_kind": "web",
        "domain": "cafe.example",
        "confidence_score": 0.9,
    }
    assert place["extras"]["place_id"] == "ChIJ7" and place["extras"]["confidence_score"] == 0.8
    assert place2["extras"]["grounding_score"] == 0.5
    assert "url" not in store and store["title"] == "Handbook"
    assert store["extras"] == {
        "source_id": "2",
        "source_kind": "retrieved_context",
        "file_search_store": "fileSearchStores/s1",
        "custom_metadata": {"author": "Ana"},
        "source_text": "Opening hours: 9 to 5.",
        "grounding_score": 0.5,
    }
    assert document["title"] == "projects/p/documents/9"  # Source.label
    assert document["extras"]["chunk"] == "c1" and document["extras"]["page"] == "3"
    assert bare == {"type": "citation", "start_index": 0, "end_index": 0, "cited_text": ""}
    text = grounded.text
    assert text is not None
    for record, c in zip(
        annotations, [grounded.citations[i] for i in (0, 0, 1, 1, 2, 3)], strict=True
    ):
        assert c.char_start is not None and c.char_end is not None
        assert record["start_index"] == oracle(text, c.char_start, "utf16")
        assert record["end_index"] == oracle(text, c.char_end, "utf16")
        assert record["cited_text"] == c.text


def test_langchain_records_of_one_source_share_no_dict() -> None:
    handbook = Source(
        title="Handbook", kind="retrieved_context", custom_metadata=(("author", "Ana"),)
    )
    grounded = Grounded(
        "ab",
        [Citation(0, 1, 0, 1, "a", (handbook,)), Citation(1, 2, 1, 2, "b", (handbook,))],
    )
    first, second = to_langchain_blocks(grounded)[0]["annotations"]
    assert first["extras"] == second["extras"]
    first["extras"]["custom_metadata"]["author"] = "Bo"
    first["extras"]["note"] = "changed"
    assert second["extras"] == {
        "source_kind": "retrieved_context",
        "custom_metadata": {"author": "Ana"},
    }
    assert (first["start_index"], second["start_index"]) == (0, 1)


@pytest.mark.parametrize("unit", UNITS)
def test_langchain_blocks_of_a_gemini_response(unit: Unit) -> None:
    blocks = to_langchain_blocks(cases.gemini_response_json(), unit=unit)
    [block] = blocks
    assert set(block) == {"type", "text", "annotations"}
    assert block["text"] == cases.joined()
    got = [(a["url"], a["title"], a["start_index"], a["end_index"]) for a in block["annotations"]]
    assert got == expected_pairs(unit)
    assert [a["cited_text"] for a in block["annotations"]] == [r[4] for r in _per_pair()]
    assert all(a["extras"]["source_kind"] == "web" for a in block["annotations"])


# --- bad input ----------------------------------------------------------------------------


def test_unknown_unit_and_api() -> None:
    response = cases.gemini_response_json()
    with pytest.raises(ArgumentValueError, match="unit must be one of 'char', 'utf16', 'byte'"):
        to_openai_annotations(response, unit="chars")  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="'utf-16'"):
        to_langchain_blocks(response, unit="utf-16")  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="api must be one of 'responses', 'chat'"):
        to_openai_annotations(response, api="completions")  # type: ignore[arg-type]


def test_no_text_is_an_error_unless_bytes_are_asked_for() -> None:
    metadata = cases.grounding_metadata_message()  # offsets, no text
    for unit in UNITS[:2]:
        with pytest.raises(CitationError, match=f"'{unit}' offsets.*pass text=") as e:
            to_openai_annotations(metadata, unit=unit)
        assert e.value.code == "text-missing"
    annotations = to_openai_annotations(metadata, unit="byte")
    assert [(a["start_index"], a["end_index"]) for a in annotations] == expected_pairs_bytes()
    with pytest.raises(CitationError, match="to_langchain_blocks needs the answer text"):
        to_langchain_blocks(metadata, unit="byte")
    # With text=, the same input exports in characters.
    with_text = to_openai_annotations(metadata, text=cases.joined(), unit="utf16")
    got = [(a["url"], a["title"], a["start_index"], a["end_index"]) for a in with_text]
    assert got == expected_pairs("utf16")


def expected_pairs_bytes() -> list[tuple[int, int]]:
    return [(s, e) for _u, _t, s, e in expected_pairs("byte")]


def test_text_argument_with_a_grounded() -> None:
    with pytest.raises(ArgumentValueError, match="text= cannot be combined with a Grounded"):
        to_openai_annotations(read(cases.gemini_response_json()), text="x")


@pytest.mark.parametrize(
    ("start", "end", "match"),
    [
        (0, 99, r"supports\[0\]\.end_index: byte offset 99 is past the end"),
        (4, 9, r"supports\[0\]\.start_index: byte offset 4 splits 'é'"),
        (6, 2, r"supports\[0\]: span start 6 is after its end 2"),
    ],
)
def test_offsets_that_do_not_fit_the_text(start: int, end: int, match: str) -> None:
    source = (Source(uri="https://x.example"),)
    grounded = Grounded(
        "Café ok", [Citation(start, end, None, None, None, source, path="supports[0]")]
    )
    for unit in UNITS[:2]:
        with pytest.raises(OffsetError, match=match):
            to_openai_annotations(grounded, unit=unit)
        with pytest.raises(OffsetError, match=match):
            to_langchain_blocks(grounded, unit=unit)


def test_unsupported_input_raises_a_package_error() -> None:
    with pytest.raises(GroundingProtosError):
        to_openai_annotations(object())


# --- property: any text, any spans ----------------------------------------------------

# Accented Latin, CJK, emoji with skin tones and ZWJ sequences, and ASCII.
PIECES = [
    "a",
    " ",
    "é",
    "ß",
    "東",
    "語",
    "👍🏽",
    "👩🏽\u200d💻",
    "🇯🇵",
    "e\u0301",
    "\U0001d518",
    "\n",
]


@st.composite
def answers(draw: st.DrawFn) -> tuple[str, list[tuple[int, int, list[int]]]]:
    text = "".join(draw(st.lists(st.sampled_from(PIECES), max_size=40)))
    positions = st.integers(0, len(text))
    spans = draw(
        st.lists(
            st.tuples(positions, positions, st.lists(st.integers(0, 2), max_size=3)),
            max_size=8,
        )
    )
    return text, [(min(a, b), max(a, b), chunks) for a, b, chunks in spans]


def _gemini(text: str, spans: list[tuple[int, int, list[int]]]) -> dict[str, Any]:
    def byte(c: int) -> int:
        return len(text[:c].encode("utf-8"))

    return {
        "candidates": [
            {
                "content": {"parts": [{"text": text}]},
                "groundingMetadata": {
                    "groundingChunks": [
                        {"web": {"uri": f"https://s{i}.example", "title": f"S{i}"}}
                        for i in range(3)
                    ],
                    "groundingSupports": [
                        {
                            "segment": {"startIndex": byte(s), "endIndex": byte(e)},
                            "groundingChunkIndices": chunks,
                        }
                        for s, e, chunks in spans
                    ],
                },
            }
        ]
    }


@settings(max_examples=150, deadline=None)
@given(answers(), st.sampled_from(UNITS))
def test_offsets_match_the_naive_oracle(
    case: tuple[str, list[tuple[int, int, list[int]]]], unit: Unit
) -> None:
    text, spans = case
    response = _gemini(text, spans)
    want = [
        (f"https://s{i}.example", oracle(text, s, unit), oracle(text, e, unit))
        for s, e, chunks in spans
        for i in chunks
    ]
    problems: list[Problem] = []
    annotations = to_openai_annotations(response, unit=unit, problems=problems)
    assert [(a["url"], a["start_index"], a["end_index"]) for a in annotations] == want
    assert len(problems) == sum(1 for _s, _e, chunks in spans if not chunks)
    for a, (s, e) in zip(annotations, [(s, e) for s, e, cs in spans for _ in cs], strict=True):
        assert sliced(text, a["start_index"], a["end_index"], unit) == text[s:e]
    [block] = to_langchain_blocks(response, unit=unit)
    assert len(block["annotations"]) == sum(max(1, len(chunks)) for _s, _e, chunks in spans)
    assert [
        (a.get("url"), a["start_index"], a["end_index"]) for a in block["annotations"] if "url" in a
    ] == want


# --- the vendors' own types -----------------------------------------------------------


@pytest.mark.parametrize("unit", UNITS)
def test_openai_sdk_types_accept_the_records(unit: Unit) -> None:
    pytest.importorskip("openai")
    from openai.types.chat import ChatCompletionMessage
    from openai.types.responses import ResponseOutputText
    from openai.types.responses.response_output_text import AnnotationURLCitation

    response = cases.gemini_response_json()
    text = cases.joined()
    annotations = to_openai_annotations(response, unit=unit)
    part = ResponseOutputText.model_validate(
        {"type": "output_text", "text": text, "annotations": annotations}
    )
    assert all(isinstance(a, AnnotationURLCitation) for a in part.annotations)
    assert [a.model_dump() for a in part.annotations] == annotations  # nothing extra or lost
    chat = to_openai_annotations(response, unit=unit, api="chat")
    message = ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": text, "annotations": chat}
    )
    assert message.annotations is not None
    assert [a.model_dump() for a in message.annotations] == chat


def test_langchain_content_block_types_accept_the_records() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.messages import content as lc
    from pydantic import TypeAdapter

    [block] = to_langchain_blocks(_mixed_sources(), unit="utf16")
    assert TypeAdapter(lc.TextContentBlock).validate_python(block, strict=True) == block
    allowed_block = set(typing.get_type_hints(lc.TextContentBlock))
    allowed_citation = set(typing.get_type_hints(lc.Citation))
    assert set(block) <= allowed_block
    for annotation in block["annotations"]:
        assert set(annotation) <= allowed_citation
        assert TypeAdapter(lc.Citation).validate_python(annotation, strict=True) == annotation


def test_langchain_messages_keep_the_blocks_as_they_are() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage

    blocks = to_langchain_blocks(cases.gemini_response_json(), unit="utf16")
    message = AIMessage(content_blocks=blocks)  # type: ignore[arg-type]
    assert message.content_blocks == blocks
    assert message.text == cases.joined()
