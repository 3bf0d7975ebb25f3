"""Google's newer grounding fields and surfaces, read into Grounded: every kind of
Gemini grounding chunk, Gemini 3 part lists, AQA attributions (and, in the sections
below them, the Interactions API, Assist, check grounding, grounded generation, Live)."""

from __future__ import annotations

import dataclasses
import itertools
import json
import pickle
from html.parser import HTMLParser
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import ArgumentValueError, validate
from grounding_protos.citations import (
    FileInfo,
    Grounded,
    ImageInfo,
    PassageInfo,
    PlaceInfo,
    ReviewAuthor,
    ReviewSnippet,
    Route,
    Source,
    WorkInfo,
    read,
    source_list,
)
from grounding_protos.cli import main
from grounding_protos.convert import to_langchain_blocks
from tests import google_cases as g

pytestmark = pytest.mark.smoke


def spans(grounded: Grounded) -> list[tuple[int | None, int | None, str | None]]:
    return [(c.char_start, c.char_end, c.text) for c in grounded.citations]


def expected_spans(pieces: range | list[int]) -> list[tuple[int, int, str]]:
    return [(*g.char_span(k), g.cited(k)) for k in pieces]


def check_bytes(grounded: Grounded) -> None:
    """Byte offsets agree with the character ones (an independent oracle)."""
    assert grounded.text is not None
    data = grounded.text.encode("utf-8")
    for c in grounded.citations:
        assert c.char_start is not None and c.char_end is not None
        assert c.start == len(grounded.text[: c.char_start].encode("utf-8"))
        assert data[c.start : c.end].decode("utf-8") == c.text


# --- Source: common fields and a record per kind -------------------------------------------


def test_source_keeps_0_1_fields_readable_and_constructible() -> None:
    place = Source(kind="maps", uri=g.URLS[0], place_id="ChIJ-x")
    assert place.details == PlaceInfo(place_id="ChIJ-x") and place.place_id == "ChIJ-x"
    work = Source(kind="citation_source", license="MIT", publication_date="2024-05")
    assert work.details == WorkInfo("MIT", "2024-05")
    assert (work.license, work.publication_date, work.place_id) == ("MIT", "2024-05", None)
    store = Source(kind="retrieved_context", file_search_store="fileSearchStores/s1")
    assert store.details == FileInfo(store="fileSearchStores/s1")
    assert store.file_search_store == "fileSearchStores/s1"
    # replace() with a 0.1 field name updates the record
    moved = dataclasses.replace(place, place_id="ChIJ-y")  # type: ignore[call-arg]
    assert moved.details == PlaceInfo(place_id="ChIJ-y") and moved.uri == g.URLS[0]
    with pytest.raises(ArgumentValueError, match="one kind of source"):
        Source(place_id="p", license="MIT")
    with pytest.raises(ArgumentValueError, match="one kind of source"):
        Source(details=ImageInfo("https://i.example/a.png"), place_id="p")


def test_sources_with_details_are_frozen_hashable_and_pickle() -> None:
    grounded = read(g.gemini_chunks_response())
    sources = grounded.declared_sources
    assert len({hash(s) for s in sources}) == len(sources)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(grounded, protocol=protocol)) == grounded
    with pytest.raises(dataclasses.FrozenInstanceError):
        sources[0].uri = "x"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        sources[0].details.place_id = "x"  # type: ignore[union-attr, misc]


def test_pickles_of_0_1_load_equal_to_objects_built_now() -> None:
    """tests/pickles_v0_1.py: pickles made by 0.1, whose Source had 16 top-level fields
    (and SearchInfo 4), read back equal to what the recipe in its docstring builds now."""
    import base64
    from pathlib import Path

    from grounding_protos.discoveryengine_v1 import Answer
    from tests.pickles_v0_1 import PICKLES

    examples = Path(__file__).parent.parent / "examples"
    gemini = json.loads((examples / "gemini_response.json").read_text("utf-8"))
    broken = json.loads((examples / "broken_answer.json").read_text("utf-8"))
    answer = Answer(answer_text="日本 🎌", citations=[Answer.Citation(start_index=1, end_index=3)])
    objects: dict[str, Any] = {
        "gemini": read(gemini), "broken": read(broken, errors="skip"), "answer": answer,
    }  # fmt: skip
    assert sorted(PICKLES) == [2, 5]
    for data in PICKLES.values():
        back = pickle.loads(base64.b64decode("".join(data)))
        assert back == objects
        assert [hash(s) for s in back["gemini"].declared_sources] == [
            hash(s) for s in objects["gemini"].declared_sources
        ]


# --- Gemini: every kind of grounding chunk ------------------------------------------------


def test_gemini_chunks_of_every_kind() -> None:
    grounded = read(g.gemini_chunks_response())
    assert grounded.problems == [] and spans(grounded) == expected_spans(range(4))
    check_bytes(grounded)
    place, rag, image, web = (c.sources[0] for c in grounded.citations)
    assert (place.kind, place.uri, place.title, place.text) == (
        "maps",
        g.URLS[0],
        "Café Müller",
        "Konditorei",
    )
    assert place.details == PlaceInfo(
        place_id="ChIJ-mueller",
        reviews=(
            ReviewSnippet("review-0", "Bester Käsekuchen 🍰", "https://maps.google.com/review/0",
                          None, ReviewAuthor("Jürgen K.", "https://maps.google.com/contrib/0",
                                             "https://lh3.example/photo0.jpg"),
                          None, "vor 2 Monaten"),
            ReviewSnippet("review-1", "最高のコーヒー", "https://maps.google.com/review/1",
                          None, ReviewAuthor("山田 花子", "https://maps.google.com/contrib/1",
                                             "https://lh3.example/photo1.jpg"),
                          # from sourceFlaggingUris, by the review's id
                          "https://maps.google.com/flag/r1", "1 週間前"),
        ),
        flag_uri="https://maps.google.com/flag/place",
        route=Route(1234, "900s", "_p~iF~ps|U"),
    )  # fmt: skip
    assert (rag.kind, rag.document, rag.page, rag.text) == (
        "retrieved_context",
        "fileSearchStores/s1/documents/d7",
        "3-5",
        "喫茶店は七時に開く",
    )
    assert rag.details == FileInfo("fileSearchStores/s1", 3, 5, "media-7")
    assert rag.file_search_store == "fileSearchStores/s1"
    assert rag.custom_metadata == (("autor", "佐藤"), ("jahr", "2024"))
    assert (image.kind, image.uri, image.domain, image.label) == (
        "image",
        g.URLS[2],
        "athen.example",
        "Ακρόπολη",
    )
    assert image.details == ImageInfo("https://img.example/akro.jpg")
    assert (web.kind, web.domain) == ("web", "seoul.example")
    assert grounded.search.image_queries == ("Ακρόπολη ώρες",)
    assert grounded.search.retrieval_queries == ("喫茶店 開店時間",)
    assert validate(g.gemini_chunks_response()) == []


def test_gemini_chunks_from_google_genai_and_official_objects() -> None:
    genai = pytest.importorskip("google.genai.types", reason="google-genai test extra")
    response = genai.GenerateContentResponse.model_validate(g.gemini_chunks_response())
    assert read(response) == read(g.gemini_chunks_response())
    glm = pytest.importorskip("google.ai.generativelanguage_v1beta", reason="official extra")
    official = glm.GenerateContentResponse.from_json(
        json.dumps(g.gemini_chunks_response()), ignore_unknown_fields=True
    )
    grounded = read(official)
    assert spans(grounded) == expected_spans(range(4))
    place = grounded.citations[0].sources[0]
    # the official v1beta message knows review ids, Maps URIs and titles only
    assert isinstance(place.details, PlaceInfo)
    assert [r.id for r in place.details.reviews] == ["review-0", "review-1"]


def test_route_duration_from_a_message_or_a_timedelta() -> None:
    from datetime import timedelta

    from grounding_protos._sources.google.gemini.reader import place_info

    assert place_info({"route": {"duration": {"seconds": 90, "nanos": 500000000}}}) == PlaceInfo(
        route=Route(duration="90.5s"))  # fmt: skip
    genai = pytest.importorskip("google.genai.types", reason="google-genai test extra")
    maps = genai.GroundingChunkMaps(route=genai.GroundingChunkMapsRoute(duration="60s"))
    assert place_info(maps) == PlaceInfo(route=Route(duration="60s"))
    assert place_info({"route": {"duration": timedelta(minutes=2)}}) == PlaceInfo(
        route=Route(duration="120s"))  # fmt: skip


def test_vertex_citation_with_publication_date_from_google_genai() -> None:
    genai = pytest.importorskip("google.genai.types", reason="google-genai test extra")
    start, end = g.byte_span(1)
    candidate = genai.Candidate(
        content=genai.Content(parts=[genai.Part(text=g.TEXT)]),
        citation_metadata=genai.CitationMetadata(citations=[genai.Citation(
            start_index=start, end_index=end, uri=g.URLS[1], title="東京", license="CC-BY-4.0",
            publication_date=genai.GoogleTypeDate(year=2025, month=11, day=3))]),
    )  # fmt: skip
    [citation] = read(candidate).citations
    assert citation.text == g.cited(1)
    assert citation.sources[0].details == WorkInfo("CC-BY-4.0", "2025-11-03")


@pytest.mark.parametrize(
    "parts",
    [["toolCall", "toolResponse", "text"],
     ["thought", "toolCall", "toolResponse", "thought", "text"],
     ["text"]],
)  # fmt: skip
def test_gemini_3_parts_without_part_index_count_the_text_part(parts: list[str]) -> None:
    """Gemini 3 sends tool and thought parts before the answer, and segments without
    partIndex whose offsets count the text part: absent means the joined text parts
    (thought and tool parts skipped), which is that part."""
    grounded = read(g.gemini3_parts(parts))
    assert grounded.text == g.TEXT and grounded.problems == []
    assert spans(grounded) == expected_spans(range(4))
    check_bytes(grounded)
    assert validate(g.gemini3_parts(parts)) == []


def test_aqa_grounding_attributions_are_sources_of_the_whole_answer() -> None:
    grounded = read(g.aqa_response())
    assert grounded.shape == "gemini_answer_response" and grounded.text == g.TEXT
    assert grounded.citations == [] and grounded.finish_reason == "STOP"
    passage, chunk = grounded.uncited_sources
    assert (passage.kind, passage.id, passage.label, passage.text) == (
        "passage",
        "passage-köln",
        "passage passage-köln",
        "Café Müller backt Käsekuchen.",
    )
    assert passage.details == PassageInfo(1)
    assert (chunk.kind, chunk.document, chunk.chunk) == (
        "chunk",
        "corpora/cafes/documents/tokyo",
        "corpora/cafes/documents/tokyo/chunks/c1",
    )
    assert validate(g.aqa_response()) == []
    glm = pytest.importorskip("google.ai.generativelanguage_v1beta", reason="official extra")
    official = glm.GenerateAnswerResponse.from_json(json.dumps(g.aqa_response()))
    assert read(official) == grounded


def test_a_candidate_answer_without_aqa_fields_is_not_an_aqa_response() -> None:
    from grounding_protos._sources.registry import classify

    assert classify({"answer": {"content": {"parts": [{"text": "Köln"}]}}}) is None


# --- Shown where a user looks for them ------------------------------------------------------


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str | None, str]] = []  # (href, text)
        self._href: str | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href, self._text = dict(attrs).get("href"), ""

    def handle_data(self, data: str) -> None:
        self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self.links.append((self._href, self._text))


def test_source_lists_attribute_maps_and_show_reviews_and_report_links() -> None:
    """Google's Maps grounding terms: the sources follow the answer, attributed to Google
    Maps, each review with its author, and the links to report a place or review."""
    grounded = read(g.gemini_chunks_response())
    assert grounded.text is not None
    md = source_list(grounded.text, grounded.citations)
    lines = md.splitlines()
    assert lines[0] == (
        f"- [1] [Café Müller](<{g.URLS[0]}>) · Google Maps · "
        "[Report](<https://maps.google.com/flag/place>)"
    )
    assert lines[1] == (
        "  - Review by [Jürgen K.](<https://maps.google.com/contrib/0>), vor 2 Monaten: "
        "[“Bester Käsekuchen 🍰”](<https://maps.google.com/review/0>)"
    )
    assert lines[2].endswith("[Report](<https://maps.google.com/flag/r1>)")
    assert lines[3] == "  - Route: 1.2 km, 15 min"
    assert "· pp. 3-5" in lines[4] and "[image](<https://img.example/akro.jpg>)" in lines[5]
    plain = source_list(grounded.text, grounded.citations, "plain")
    assert "Café Müller — https://maps.google.com/?cid=1001 · Google Maps · report: " in plain
    assert "    Review by 山田 花子 (https://maps.google.com/contrib/1), 1 週間前" in plain
    parser = _Links()
    parser.feed(source_list(grounded.text, grounded.citations, "html"))
    assert ("https://maps.google.com/flag/place", "Report") in parser.links
    assert ("https://maps.google.com/flag/r1", "Report") in parser.links
    assert ("https://maps.google.com/contrib/1", "山田 花子") in parser.links
    assert ("https://maps.google.com/review/0", "“Bester Käsekuchen 🍰”") in parser.links


def test_report_links_that_are_not_http_stay_text() -> None:
    review = ReviewSnippet(title="<b>", flag_uri="javascript:alert(1)",
                           author=ReviewAuthor("Eve", "data:text/html,x"))  # fmt: skip
    source = Source(uri="https://maps.example/p", title="P", kind="maps",
                    details=PlaceInfo(reviews=(review,)))  # fmt: skip
    grounded = Grounded("Köln", declared_sources=[source])
    html = source_list("Köln", [], "html", uncited=grounded.uncited_sources)
    assert "javascript:" not in "".join(h or "" for h, _ in _links(html))
    assert "&lt;b&gt;" in html and "Report (javascript:alert(1))" in html


def _links(html: str) -> list[tuple[str | None, str]]:
    parser = _Links()
    parser.feed(html)
    return parser.links


def test_inspect_shows_details_and_langchain_export_keeps_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    path = tmp_path / "maps.json"
    path.write_text(json.dumps(g.gemini_chunks_response(), ensure_ascii=False), "utf-8")
    assert main(["inspect", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    place = summary["sources"][0]
    assert place["place_id"] == "ChIJ-mueller"
    assert place["details"]["flag_uri"] == "https://maps.google.com/flag/place"
    assert place["details"]["reviews"][1]["author"]["name"] == "山田 花子"
    assert summary["search"]["image_queries"] == ["Ακρόπολη ώρες"]
    assert main(["inspect", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Google Maps · report: https://maps.google.com/flag/place" in text
    assert "review by 山田 花子: “最高のコーヒー”" in text and "first page: 3" in text
    [block] = to_langchain_blocks(g.gemini_chunks_response())
    first, second = block["annotations"][:2]
    assert first["extras"]["details"]["route"] == {
        "distance_meters": 1234,
        "duration": "900s",
        "encoded_polyline": "_p~iF~ps|U",
    }
    assert second["extras"]["details"] == {"first_page": 3, "last_page": 5,
                                           "media_id": "media-7"}  # fmt: skip
    first["extras"]["details"]["reviews"].clear()  # records own their dicts
    [again] = to_langchain_blocks(g.gemini_chunks_response())
    assert again["annotations"][0]["extras"]["details"]["reviews"]


# --- Gemini Interactions API -----------------------------------------------------------------


def test_interaction_reads_model_output_steps_and_annotations() -> None:
    grounded = read(g.interaction())
    assert grounded.shape == "interaction" and grounded.text == g.TEXT
    assert grounded.finish_reason == "completed" and grounded.problems == []
    assert spans(grounded) == expected_spans(range(4))
    check_bytes(grounded)
    assert [c.path for c in grounded.citations] == [
        "steps[5].content[0].annotations[0]",
        "steps[5].content[0].annotations[1]",
        "steps[11].content[0].annotations[0]",
        "steps[11].content[0].annotations[1]",
    ]  # fmt: skip  (speech_metadata is not a citation)
    place, rag, other, web = (c.sources[0] for c in grounded.citations)
    assert (place.kind, place.uri, place.title) == ("maps", g.URLS[0], "Café Müller")
    assert place.details == PlaceInfo("ChIJ-mueller", (ReviewSnippet(
        "review-0", "Bester Käsekuchen 🍰", "https://maps.google.com/review/0"),))  # fmt: skip
    assert (rag.kind, rag.uri, rag.title, rag.page) == (
        "retrieved_context",
        "fileSearchStores/s1/documents/d7",
        "kissaten.pdf",
        "4",
    )
    assert rag.details == FileInfo(media_id="media-7")
    assert rag.custom_metadata == (("source", "fileSearchStores/s1"), ("autor", "佐藤"),
                                   ("jahr", "2024"))  # fmt: skip
    # an annotation type the SDK does not know is kept as such
    assert (other.kind, other.custom_metadata) == (
        "other",
        (("type", "future_citation"), ("label", "Ακρόπολη"), ("confidence", "0.7")),
    )
    assert (web.kind, web.uri, web.title) == ("web", g.URLS[3], "서울 카페")
    search = grounded.search
    assert search.queries == ("서울 카페 영업시간", "Ακρόπολη ώρες")
    assert search.rendered_content == g.SUGGESTIONS
    assert search.retrieval_queries == ("喫茶店 開店時間",)
    assert [(u.url, u.status) for u in search.url_statuses] == [
        (g.URLS[2], "success"), (g.URLS[1], "paywall")]  # fmt: skip
    # the places the Maps tool returned are declared; the cited one is listed once
    assert [s.title for s in grounded.uncited_sources] == ["Café Reichard"]
    assert validate(g.interaction()) == []


def _interactions_sdk() -> Any:
    """google-genai's Interactions types, on a release whose types take these fixtures:
    2.x (which the frameworks-test extra resolves: google-adk needs google-genai<3)
    rejects the annotation kind the fixtures add to show an unknown kind is kept."""
    interactions = pytest.importorskip("google.genai.interactions", reason="google-genai")
    from google.genai import version

    if int(version.__version__.split(".")[0]) < 3:
        pytest.skip(f"google-genai {version.__version__}: its Interactions types reject "
                    "unknown annotation kinds (google-genai 3 keeps them)")  # fmt: skip
    return interactions


def test_interaction_from_google_genai_objects() -> None:
    interactions = _interactions_sdk()
    sdk = interactions.Interaction.model_validate(g.interaction())
    assert read(sdk) == read(g.interaction())


def test_interaction_unit_is_bytes_and_unit_overrides_it() -> None:
    """The SDK documents the annotation offsets as bytes; with character offsets a
    recording would read with unit="char" (and, in bytes, split a character)."""
    document = g.interaction()
    for step in document["steps"]:
        for content in step.get("content", ()):
            for annotation in content.get("annotations", ()):
                text = content["text"]
                data = text.encode("utf-8")
                for key in ("start_index", "end_index"):
                    annotation[key] = len(data[: annotation[key]].decode("utf-8"))
    assert spans(read(document, unit="char")) == expected_spans(range(4))
    codes = {p.code for p in validate(document)}
    assert codes & {"offset-splits-character", "offset-out-of-range"}


def test_interaction_recognition_is_by_its_structure() -> None:
    from grounding_protos._sources.registry import classify

    assert classify({"object": "interaction", "status": "in_progress", "steps": []}) == (
        "interaction")  # fmt: skip
    assert classify({"steps": [{"type": "model_output", "content": []}]}) == "interaction"
    assert classify({"steps": [{"state": "SUCCEEDED", "description": "x"}]}) is None
    assert classify({"steps": "model_output"}) is None
    empty = read({"object": "interaction", "status": "in_progress", "steps": []})
    assert (empty.text, empty.citations) == ("", [])


def _interaction_events() -> list[dict[str, Any]]:
    return g.interaction_events()


def test_interaction_stream_reads_as_the_whole_interaction() -> None:
    from grounding_protos.citations import read_stream

    whole = read(g.interaction())
    assert read_stream(g.interaction_events()) == whole
    assert read_stream(g.sse(g.interaction_events())) == whole  # SSE with event: names
    assert read_stream(g.sse(g.interaction_events()).encode()) == whole
    assert read_stream(g.interaction_events(cuts=7, annotations_early=True)) == whole
    lines = g.sse(g.interaction_events()).splitlines(keepends=True)
    assert read_stream(iter(lines)) == whole  # httpx's iter_lines()
    assert read_stream([json.dumps(e) for e in g.interaction_events()]) == whole


def test_interaction_stream_of_sdk_events_and_async() -> None:
    import asyncio

    from grounding_protos.citations import aread_stream

    interactions = _interactions_sdk()
    from pydantic import TypeAdapter

    adapter = TypeAdapter(interactions.InteractionSSEEvent)
    events = [adapter.validate_python(e) for e in g.interaction_events()]
    whole = read(g.interaction())

    async def arriving() -> Any:
        for event in events:
            yield event

    assert asyncio.run(aread_stream(arriving())) == whole


def test_interaction_stream_interrupted_truncated_or_failing() -> None:
    from grounding_protos import StreamError
    from grounding_protos.citations import read_stream

    events = g.interaction_events()
    cut = read_stream(events[:-1])
    assert cut.text == g.TEXT and [p.code for p in cut.problems] == ["stream-incomplete"]
    assert "without interaction.completed" in cut.problems[0].message
    text = g.sse(events)
    truncated = read_stream(text[: text.rindex("event: interaction.completed") + 60])
    assert [p.code for p in truncated.problems] == ["stream-truncated", "stream-incomplete"]
    failing = g.sse(events[:5]) + (
        'event: error\ndata: {"event_type": "error", '
        '"error": {"code": "resource_exhausted", "message": "Kontingent erschöpft"}}\n\n'
    )
    with pytest.raises(StreamError, match="resource_exhausted: Kontingent erschöpft") as info:
        read_stream(failing)
    assert info.value.event == 6
    with pytest.raises(StreamError, match="not an event of an Interactions stream"):
        read_stream([events[0], {"event_type": "response.created"}])
    with pytest.raises(StreamError, match=r"event type 'step\.delta' is not part"):
        read_stream('event: step.delta\ndata: {"candidates": []}\n\n')


def test_interaction_stream_on_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    path = tmp_path / "interaction.sse"
    path.write_text(g.sse(g.interaction_events()), "utf-8")
    assert main(["inspect", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["input"] == "Gemini Interactions API interaction"
    assert summary["citations"]["total"] == 4 and summary["problems"] == []
    assert main(["render", str(path)]) == 0
    out = capsys.readouterr().out
    assert "backt den besten Käsekuchen.[1]" in out and "Google Maps" in out
    whole = tmp_path / "interaction.json"
    whole.write_text(json.dumps(g.interaction(), ensure_ascii=False), "utf-8")
    assert main(["validate", str(whole)]) == 0


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_cut_of_an_interaction_streams_back_to_it(data: st.DataObject) -> None:
    """Each model_output step's text cut anywhere into text deltas, its annotations
    split into two annotation deltas placed anywhere among them (in order): read_stream
    gives read of the whole interaction."""
    from grounding_protos.citations import read_stream

    events: list[dict[str, Any]] = []
    for event in g.interaction_events(cuts=1):
        delta = event.get("delta", {})
        if delta.get("type") == "text":
            text = delta["text"]
            cuts = sorted(data.draw(st.sets(st.integers(1, len(text) - 1), max_size=6)))
            bounds = [0, *cuts, len(text)]
            pieces: list[dict[str, Any]] = [
                {**event, "delta": {"type": "text", "text": text[a:b]}}
                for a, b in itertools.pairwise(bounds)
            ]
            annotations = next(s["content"][0]["annotations"] for i, s in
                               enumerate(g.interaction_steps()) if i == event["index"])  # fmt: skip
            split = data.draw(st.integers(0, len(annotations)))
            first, second = sorted(data.draw(st.lists(st.integers(0, len(pieces)), min_size=2,
                                                      max_size=2)))  # fmt: skip
            for place, chunk in ((second, annotations[split:]), (first, annotations[:split])):
                pieces.insert(place, {**event, "delta": {"type": "text_annotation_delta",
                                                         "annotations": chunk}})  # fmt: skip
            events += pieces
        elif delta.get("type") != "text_annotation_delta":
            events.append(event)
    assert read_stream(events) == read(g.interaction())


# --- Discovery Engine: assist and streamAssist ------------------------------------------------


def test_assist_answer_reads_each_reply_with_its_references() -> None:
    grounded = read(g.assist_answer())
    assert grounded.shape == "assist_answer" and grounded.text == g.TEXT  # the thought skipped
    assert grounded.problems == [] and spans(grounded) == expected_spans(range(4))
    check_bytes(grounded)
    titles = [c.sources[0].title for c in grounded.citations]
    assert titles == g.TITLES  # each reply's referenceIndices index its own references
    first = grounded.citations[0]
    assert first.kind == "support" and first.score == pytest.approx(0.8)
    source = first.sources[0]
    assert (source.kind, source.uri, source.domain, source.page, source.text) == (
        "chunk",
        g.URLS[0],
        "maps.google.com",
        "1",
        g.cited(0) + " (Quelle)",
    )
    assert first.path == "replies[1].grounded_content.text_grounding_metadata.segments[0]"
    assert validate(g.assist_answer()) == []
    response = read({"answer": g.assist_answer(), "assistToken": "t"})
    assert response.shape == "assist_response" and response.citations[0].path == (
        "answer." + first.path)  # fmt: skip


def test_assist_reference_out_of_its_reply_s_table_is_a_problem() -> None:
    document = g.assist_answer()
    segment = document["replies"][1]["groundedContent"]["textGroundingMetadata"]["segments"][0]
    segment["referenceIndices"] = [2]  # reply 1 has 2 references (reply 2's would be in range)
    [problem] = [p for p in validate(document) if p.code == "chunk-index-out-of-range"]
    assert problem.path.endswith("segments[0].reference_indices[0]")
    assert "replies[1].grounded_content.text_grounding_metadata.references has 2" in (
        problem.message)  # fmt: skip


def test_assist_from_official_messages() -> None:
    de = pytest.importorskip("google.cloud.discoveryengine_v1", reason="official test extra")
    message = de.AssistAnswer.from_json(json.dumps(g.assist_answer()))
    got, want = read(message), read(g.assist_answer())
    assert spans(got) == spans(want) and got.declared_sources == want.declared_sources
    assert [c.sources for c in got.citations] == [c.sources for c in want.citations]
    assert [c.score for c in got.citations] == pytest.approx([0.8] * 4)  # a float32
    response = de.StreamAssistResponse.from_json(json.dumps({"answer": g.assist_answer()}))
    assert spans(read(response)) == spans(want) and read(response).shape == "assist_response"


def test_stream_assist_appends_replies_and_reads_the_merged_answer() -> None:
    from grounding_protos.citations import read_stream

    grounded = read_stream(g.assist_stream())
    assert grounded.shape == "assist_response" and grounded.text == g.TEXT
    assert grounded.problems == [] and spans(grounded) == expected_spans(range(4))
    assert [c.sources[0].title for c in grounded.citations] == g.TITLES
    assert read_stream(json.dumps(g.assist_stream(), ensure_ascii=False)) == grounded
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in g.assist_stream())
    assert read_stream(sse) == grounded
    cut = read_stream(g.assist_stream()[:-1])
    assert cut.text == g.TEXT and cut.citations == []
    assert [p.code for p in cut.problems] == ["stream-incomplete"]
    de = pytest.importorskip("google.cloud.discoveryengine_v1", reason="official test extra")
    messages = [de.StreamAssistResponse.from_json(json.dumps(c)) for c in g.assist_stream()]
    assert spans(read_stream(messages)) == spans(grounded)


def test_stream_assist_on_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    path = tmp_path / "assist.json"
    path.write_text(json.dumps(g.assist_stream(), ensure_ascii=False), "utf-8")
    assert main(["inspect", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["input"] == "Discovery Engine assist response"
    assert summary["citations"]["support"] == 4 and summary["problems"] == []
    whole = tmp_path / "answer.json"
    whole.write_text(json.dumps(g.assist_answer(), ensure_ascii=False), "utf-8")
    assert main(["render", "--style", "plain", str(whole)]) == 0
    assert "서울의 카페는 밤늦게까지 엽니다 ☕.[4]" in capsys.readouterr().out


# --- Discovery Engine: check grounding and grounded generation -----------------------------


def test_check_grounding_claims_are_spans_of_the_answer_sent_as_text() -> None:
    response = g.check_grounding_response()
    grounded = read(response, text=g.TEXT)
    assert grounded.shape == "check_grounding_response" and grounded.problems == []
    assert spans(grounded) == expected_spans(range(4))
    check_bytes(grounded)
    assert grounded.score == 0.75
    assert [len(c.sources) for c in grounded.citations] == [1, 2, 0, 1]  # piece 2: unsupported
    first = grounded.citations[0].sources[0]
    assert (first.kind, first.uri, first.title, first.text) == (
        "fact_chunk",
        g.URLS[0],
        g.TITLES[0],
        g.cited(0) + " — laut Quelle",
    )
    assert first.custom_metadata == (("source", "0"), ("title", g.TITLES[0]),
                                     ("uri", g.URLS[0]), ("jahr", "2025"))  # fmt: skip
    assert validate(response, text=g.TEXT) == []
    # without the answer: the claims' own text, no characters, and validate says why
    bare = read(response)
    assert [c.text for c in bare.citations] == [g.cited(k) for k in range(4)]
    assert bare.citations[0].char_start is None
    assert [p.code for p in validate(response)] == ["text-missing"]


def test_check_grounding_drift_and_bad_indices_are_reported_with_paths() -> None:
    response = g.check_grounding_response()
    response["claims"][3]["startPos"] += 1  # a recorder's rewrite: one byte off
    response["claims"][3]["endPos"] += 1
    grounded = read(response, text=g.TEXT)
    assert spans(grounded) == expected_spans(range(4))
    assert [(p.code, p.path) for p in grounded.problems] == [
        ("offset-drift", "claims[3].start_pos")
    ]
    response["claims"][1]["citationIndices"] = [7]
    problems = validate(response, text=g.TEXT)
    assert ("chunk-index-out-of-range", "claims[1].citation_indices[0]") in [
        (p.code, p.path) for p in problems]  # fmt: skip
    response["supportScore"] = 1.5
    assert ("score-out-of-range", "support_score") in [
        (p.code, p.path) for p in validate(response, text=g.TEXT)]  # fmt: skip


def test_check_grounding_from_official_message_and_cited_facts() -> None:
    de = pytest.importorskip("google.cloud.discoveryengine_v1", reason="official test extra")
    message = de.CheckGroundingResponse.from_json(json.dumps(g.check_grounding_response()))
    assert spans(read(message, text=g.TEXT)) == expected_spans(range(4))
    facts = g.check_grounding_response()
    facts["citedFacts"] = [{"chunkText": c["chunkText"]} for c in facts.pop("citedChunks")]
    grounded = read(facts, text=g.TEXT)
    assert grounded.citations[0].sources[0].text == g.cited(0) + " — laut Quelle"


def test_our_v1beta_fact_chunk_reads_as_a_cited_chunk() -> None:
    from grounding_protos import codec
    from grounding_protos.discoveryengine_v1beta import FactChunk

    chunk = FactChunk(chunk_text="東京の喫茶店", source="1", source_metadata={"title": "東京"})
    response = {"claims": [{"startPos": 0, "endPos": 9, "claimText": "東京の",
                            "citationIndices": [0]}],
                "citedChunks": [codec.to_dict(chunk)]}  # fmt: skip
    [citation] = read(response, text="東京の喫茶店").citations
    assert (citation.text, citation.sources[0].title) == ("東京の", "東京")


def test_grounded_generation_places_each_claim_by_its_text() -> None:
    grounded = read(g.grounded_generation_response())
    assert grounded.shape == "grounded_generation_response" and grounded.text == g.TEXT
    assert spans(grounded) == expected_spans(range(4))
    check_bytes(grounded)
    assert grounded.score == pytest.approx(0.82)
    assert [c.sources[0].title for c in grounded.citations] == g.TITLES
    [missing] = grounded.problems
    assert missing.code == "claim-not-found"
    assert missing.path == "candidates[0].grounding_metadata.grounding_support[4].claim_text"
    assert grounded.search.queries == ("Käsekuchen Köln",)
    assert grounded.search.rendered_content == "<div>Käsekuchen Köln</div>"
    [image] = [s for s in grounded.uncited_sources if s.kind == "image"]
    assert image.details == ImageInfo("https://img.example/akro.jpg",
                                      "https://img.example/akro-t.jpg", 800, 600)  # fmt: skip
    from grounding_protos import CitationError

    with pytest.raises(CitationError, match="not in the answer text"):
        read(g.grounded_generation_response(), errors="strict")
    with pytest.raises(ArgumentValueError, match="unit="):
        read(g.grounded_generation_response(), unit="char")


def test_grounded_generation_never_guesses_an_ambiguous_claim() -> None:
    grounded = read(g.grounded_generation_response(repeat_claim=True))
    assert [c.text for c in grounded.citations] == [g.cited(k) for k in range(3)]
    codes = [(p.code, p.path.split(".")[-2]) for p in grounded.problems]
    assert codes == [("claim-ambiguous", "grounding_support[3]"),
                     ("claim-not-found", "grounding_support[4]")]  # fmt: skip
    assert "occurs at characters" in grounded.problems[0].message
    problems = validate(g.grounded_generation_response(repeat_claim=True))
    assert [p.code for p in problems] == ["claim-ambiguous", "claim-not-found"]


def test_grounded_generation_from_official_message_stream_and_cli(
    capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    from grounding_protos.citations import read_stream

    de = pytest.importorskip("google.cloud.discoveryengine_v1", reason="official test extra")
    message = de.GenerateGroundedContentResponse.from_json(
        json.dumps(g.grounded_generation_response()))  # fmt: skip
    assert spans(read(message)) == expected_spans(range(4))
    # a stream: the text in pieces, the metadata in the last message
    whole = g.grounded_generation_response()
    candidate = whole["candidates"][0]
    chunks = [{"candidates": [{"index": 0, "groundingScore": 0.1,
                               "content": {"parts": [{"text": piece}]}}]}
              for piece in g.PIECES]  # fmt: skip
    chunks.append(
        {
            "candidates": [
                {
                    "index": 0,
                    "groundingScore": candidate["groundingScore"],
                    "groundingMetadata": candidate["groundingMetadata"],
                }
            ]
        }
    )
    streamed = read_stream(chunks)
    assert streamed == read(whole)
    path = tmp_path / "grounded.json"
    path.write_text(json.dumps(chunks, ensure_ascii=False), "utf-8")
    assert main(["inspect", "--json", str(path)]) == 1  # the claim not found: a problem
    summary = json.loads(capsys.readouterr().out)
    assert summary["score"] == pytest.approx(0.82) and summary["citations"]["total"] == 4
    check = tmp_path / "check.json"
    check.write_text(json.dumps(g.check_grounding_response(), ensure_ascii=False), "utf-8")
    answer = tmp_path / "answer.txt"
    answer.write_text(g.TEXT, "utf-8")
    assert main(["render", "--text", str(answer), str(check)]) == 0
    assert "Η Ακρόπολη 🏛️ είναι ανοιχτή ως τις οκτώ. 서울" in capsys.readouterr().out  # noqa: RUF001


_ALPHABET = st.sampled_from(list("ab Kö東京👍🏽\u0301"))


@settings(max_examples=300, deadline=None)
@given(st.text(_ALPHABET, max_size=40), st.lists(st.text(_ALPHABET, max_size=5), max_size=6),
       st.booleans())  # fmt: skip
def test_claim_occurrences_match_a_naive_search(
    text: str, wanted: list[str], one_pass: bool
) -> None:
    """Where claims occur (first two positions), by str.find or by the one pass over the
    text that many claims take: both agree with a naive search of every position."""
    from grounding_protos._core import resolve

    budget = resolve._FIND_BUDGET
    resolve._FIND_BUDGET = -1 if one_pass else budget
    try:
        got = resolve.occurrences(text, wanted)
    finally:
        resolve._FIND_BUDGET = budget
    for w in wanted:
        if w:
            naive = [i for i in range(len(text)) if text.startswith(w, i)]
            assert got[w] == tuple(naive[:2])


# --- Gemini Live API ---------------------------------------------------------------------


def test_one_live_turn_reads_as_its_answer() -> None:
    from grounding_protos.citations import read_stream

    grounded = read_stream(g.live_turn())
    assert grounded.shape == "live_server_message" and grounded.text == g.TEXT
    assert grounded.problems == [] and grounded.finish_reason == "STOP"
    assert spans(grounded) == expected_spans(range(4))
    check_bytes(grounded)
    assert [c.sources[0].title for c in grounded.citations] == g.TITLES
    assert grounded.search.queries == ("Café Köln Öffnungszeiten",)
    assert [u.url for u in grounded.search.url_statuses] == [g.URLS[1]]
    assert grounded.citations[0].path == (
        "server_content.grounding_metadata.grounding_supports[0]")  # fmt: skip
    assert read_stream(json.dumps(g.live_turn(), ensure_ascii=False)) == grounded
    genai = pytest.importorskip("google.genai.types", reason="google-genai test extra")
    messages = [genai.LiveServerMessage.model_validate(m) for m in g.live_turn()]
    assert read_stream(messages) == grounded


def test_a_live_session_is_read_turn_by_turn() -> None:
    from grounding_protos import StreamError
    from grounding_protos.citations import TurnReader, read_stream, read_turns

    first, second = read_turns(g.live_session())
    assert first == read_stream(g.live_turn())
    assert second.text == "In Köln regnet es 🌧" and second.finish_reason == "INTERRUPTED"
    assert second.citations == [] and second.problems == []
    with pytest.raises(StreamError, match="second turn starts after the turnComplete"):
        read_stream(g.live_session())
    # as the session runs: a turn each time one completes
    reader = TurnReader()
    turns = [t for t in map(reader.feed, g.live_session()) if t is not None]
    assert turns == [first, second] and reader.finish() is None
    # a session that ends inside a turn
    cut = g.live_session()[:-3]
    *_, last = read_turns(cut)
    assert last.text == "In Köln regnet es 🌧"
    assert [p.code for p in last.problems] == ["stream-incomplete"]
    genai = pytest.importorskip("google.genai.types", reason="google-genai test extra")
    reader = TurnReader()
    objects = [genai.LiveServerMessage.model_validate(m) for m in g.live_session()]
    assert [t for t in map(reader.feed, objects) if t is not None] == [first, second]


def test_live_messages_of_another_kind_are_refused() -> None:
    from grounding_protos import StreamError
    from grounding_protos.citations import TurnReader

    with pytest.raises(StreamError, match="not a Live server message"):
        TurnReader().feed({"candidates": []})
    from grounding_protos._sources.registry import classify

    assert classify({"serverContent": {"turnComplete": True}}) == "live_server_message"
    assert classify({"setupComplete": {}}) is None


def test_live_audio_turn_reads_its_transcript() -> None:
    from grounding_protos.citations import read_stream

    text = "Ça va 🌞 à Köln."
    end = len(text.encode())
    grounded = read_stream([
        {"serverContent": {"modelTurn": {"parts": [{"inlineData": {"mimeType": "audio/pcm",
                                                                     "data": "AAAA"}}]},
                           "outputTranscription": {"text": text[:6]}}},
        {"serverContent": {"outputTranscription": {"text": text[6:]}, "groundingMetadata": {
            "groundingChunks": [{"web": {"uri": g.URLS[0], "title": "Köln"}}],
            "groundingSupports": [{"segment": {"startIndex": end - 6, "endIndex": end - 1},
                                   "groundingChunkIndices": [0]}]}}},
        {"serverContent": {"turnComplete": True}},
    ])  # fmt: skip
    assert grounded.text == text and [c.text for c in grounded.citations] == ["Köln"]


def test_a_live_turn_on_the_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    path = tmp_path / "turn.json"
    path.write_text(json.dumps(g.live_turn(), ensure_ascii=False), "utf-8")
    assert main(["inspect", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["input"] == "Gemini Live server message (one turn)"
    assert summary["citations"]["total"] == 4
    session = tmp_path / "session.json"
    session.write_text(json.dumps(g.live_session(), ensure_ascii=False), "utf-8")
    # a session of several turns: each turn its own answer (issue 33; it was exit 2)
    assert main(["inspect", "--json", str(session)]) in (0, 1)
    assert len(json.loads(capsys.readouterr().out)) == 2  # its two turns


def test_converting_to_a_schema_without_room_for_details_lists_them_as_losses() -> None:
    from grounding_protos.convert import to_grounding_metadata

    meta, losses = to_grounding_metadata(g.gemini_chunks_response())
    assert len(meta.grounding_chunks) == 4
    lost = {p.path.rsplit(".", 1)[1] for p in losses if p.path.startswith(
        "candidates[0].grounding_metadata.grounding_supports[0].sources[0]")}  # fmt: skip
    assert lost == {"details"}  # the place's id, reviews, report links and route
    assert all(p.code == "not-representable" for p in losses)


def test_the_shipped_examples_of_the_new_surfaces() -> None:
    from pathlib import Path

    from grounding_protos.citations import read_stream, read_turns

    examples = Path(__file__).resolve().parents[1] / "examples"
    whole = json.loads((examples / "gemini_interaction.json").read_text("utf-8"))
    assert whole == g.interaction() and read(whole) == read(g.interaction())
    with (examples / "gemini_interaction.sse").open("rb") as stream:  # read as it arrives
        assert read_stream(stream) == read(g.interaction())
    session = json.loads((examples / "gemini_live_session.json").read_text("utf-8"))
    assert read_turns(session) == read_turns(g.live_session())
