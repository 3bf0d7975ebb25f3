"""The span policy (``errors=``) and the complete source model, on responses that
behave as the live APIs do: offsets that drift by a byte or two from some support
on while ``segment.text`` stays right, dangling chunk indices, chunks of kinds the
protos do not name, sources no support cites."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import CitationError, OffsetError, validate
from grounding_protos.citations import Grounded, number_sources, read, render, source_list

TEXT = (
    "Warren E. Buffett wurde 1930 in Omaha geboren. "
    "彼はバークシャー・ハサウェイの会長です。 "
    "Er isst gern Kirschcola 🍒 und Hamburger 👨🏽\u200d🍳. "
    "Die Hauptversammlung heißt „Woodstock für Kapitalisten“."
)
SENTENCES = [
    "Warren E. Buffett wurde 1930 in Omaha geboren.",
    "彼はバークシャー・ハサウェイの会長です。",
    "Er isst gern Kirschcola 🍒 und Hamburger 👨🏽\u200d🍳.",
    "Die Hauptversammlung heißt „Woodstock für Kapitalisten“.",
]


def b(text: str) -> int:
    return len(text.encode("utf-8"))


def support(sentence: str, chunks: list[int], shift: int = 0) -> dict[str, Any]:
    """A grounding support of one sentence of TEXT, its offsets shifted by ``shift`` bytes."""
    start = b(TEXT[: TEXT.index(sentence)])
    segment: dict[str, Any] = {
        "startIndex": start + shift,
        "endIndex": start + b(sentence) + shift,
        "text": sentence,
    }
    return {"segment": segment, "groundingChunkIndices": chunks, "confidenceScores": [0.9]}


def response(supports: list[dict[str, Any]], chunks: list[dict[str, Any]] | None = None) -> Any:
    if chunks is None:
        chunks = [
            {"web": {"uri": "https://de.example/buffett", "title": "de.example"}},
            {"web": {"uri": "https://ja.example/bh", "title": "ja.example"}},
        ]
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": TEXT}]},
                "finishReason": "STOP",
                "groundingMetadata": {"groundingChunks": chunks, "groundingSupports": supports},
            }
        ]
    }


def placed(grounded: Grounded) -> list[tuple[int, int, str | None]]:
    return [(c.char_start or 0, c.char_end or 0, c.text) for c in grounded.citations]


def expected(*sentences: str) -> list[tuple[int, int, str | None]]:
    return [(TEXT.index(s), TEXT.index(s) + len(s), s) for s in sentences]


# --- drift -----------------------------------------------------------------------------


@pytest.mark.parametrize("shift", [1, 2, -1])
def test_drift_from_mid_answer_is_repaired_and_recorded(shift: int) -> None:
    body = response(
        [support(SENTENCES[0], [0]), support(SENTENCES[1], [1])]
        + [support(s, [0], shift) for s in SENTENCES[2:]]
    )
    grounded = read(body)
    assert placed(grounded) == expected(*SENTENCES)
    assert [p.code for p in grounded.problems] == ["offset-drift", "offset-drift"]
    first = grounded.problems[0]
    start = b(TEXT[: TEXT.index(SENTENCES[2])])
    assert (
        first.path == "candidates[0].grounding_metadata.grounding_supports[2].segment.start_index"
    )
    assert f"from bytes {start + shift}..{start + b(SENTENCES[2]) + shift}" in first.message
    assert f"to {start}..{start + b(SENTENCES[2])}" in first.message
    # byte offsets of the repaired citations are the true ones
    assert [c.start for c in grounded.citations][2] == start


def test_strict_raises_on_drift_even_when_the_offsets_are_in_range() -> None:
    body = response([support(SENTENCES[0], [0], 1)])  # ASCII: no split, just the wrong text
    with pytest.raises(CitationError, match=r"segment text .* differs") as info:
        read(body, errors="strict")
    assert info.value.code == "segment-text-mismatch"
    assert info.value.path.endswith("grounding_supports[0].segment.text")


def test_strict_raises_offset_error_on_a_split_character() -> None:
    body = response([support(SENTENCES[1], [1], 1)])  # inside a 3-byte character
    with pytest.raises(OffsetError, match="splits"):
        read(body, errors="strict")
    assert placed(read(body)) == expected(SENTENCES[1])


def test_validate_reports_drift_with_its_own_code() -> None:
    body = response([support(SENTENCES[0], [0]), support(SENTENCES[3], [0], 2)])
    problems = validate(body)
    assert [p.code for p in problems] == ["offset-drift"]
    assert "repairable" in problems[0].message


def test_the_nearer_of_two_occurrences_wins() -> None:
    text = "ab Köln. cd Köln. ef"
    start = b(text[: text.index("Köln. cd")]) + 2  # 2 bytes after the first, far from the 2nd
    body = response(
        [{"segment": {"startIndex": start, "endIndex": start + b("Köln."), "text": "Köln."},
          "groundingChunkIndices": [0]}]
    )  # fmt: skip
    body["candidates"][0]["content"]["parts"] = [{"text": text}]
    (citation,) = read(body).citations
    assert (citation.char_start, citation.char_end) == (3, 8)


def test_two_equally_near_occurrences_are_not_repaired() -> None:
    text = "xx Köln. yy Köln. zz"  # "Köln." at bytes 3..9 and 13..19
    body = response(
        [
            {
                "segment": {"startIndex": 8, "endIndex": 14, "text": "Köln."},
                "groundingChunkIndices": [0],
            }
        ]
    )  # fmt: skip: 5 bytes from each occurrence, at both ends
    body["candidates"][0]["content"]["parts"] = [{"text": text}]
    with pytest.raises(CitationError, match="equally near"):
        read(body)
    skipped = read(body, errors="skip")
    assert skipped.citations == []
    assert [p.code for p in skipped.problems] == ["segment-text-mismatch"]
    assert "left out" in skipped.problems[0].message


def test_a_span_without_text_is_never_guessed() -> None:
    body = response([support(SENTENCES[0], [0], 1)])
    del body["candidates"][0]["groundingMetadata"]["groundingSupports"][0]["segment"]["text"]
    (citation,) = read(body).citations  # no text to check: the offsets are taken as they are
    assert citation.text == TEXT[1 : len(SENTENCES[0]) + 1]
    body = response([support(SENTENCES[1], [1], 1)])
    del body["candidates"][0]["groundingMetadata"]["groundingSupports"][0]["segment"]["text"]
    with pytest.raises(OffsetError):
        read(body)


def test_repair_stays_in_its_part() -> None:
    parts = ["Zürich liegt am See. ", "Zürich liegt am See."]
    body = response([])
    body["candidates"][0]["content"]["parts"] = [{"text": p} for p in parts]
    body["candidates"][0]["groundingMetadata"]["groundingSupports"] = [
        {"segment": {"partIndex": 1, "startIndex": 1, "endIndex": 1 + b(parts[1]),
                     "text": parts[1]}, "groundingChunkIndices": [0]}
    ]  # fmt: skip
    (citation,) = read(body).citations
    assert (citation.char_start, citation.char_end) == (len(parts[0]), len(parts[0]) * 2 - 1)


# --- all or nothing --------------------------------------------------------------------


def test_a_dangling_chunk_index_is_skipped_next_to_valid_supports() -> None:
    body = response([support(SENTENCES[0], [0]), support(SENTENCES[1], [7]),
                     support(SENTENCES[2], [1])])  # fmt: skip
    with pytest.raises(CitationError, match="chunk index 7 is out of range"):
        read(body)
    grounded = read(body, errors="skip")
    assert placed(grounded) == expected(SENTENCES[0], SENTENCES[2])
    (problem,) = grounded.problems
    assert problem.code == "chunk-index-out-of-range"
    assert problem.path.endswith("grounding_supports[1].grounding_chunk_indices[0]")


def test_errors_must_be_a_policy_name() -> None:
    from grounding_protos import ArgumentValueError

    with pytest.raises(ArgumentValueError, match="'strict', 'repair' or 'skip'"):
        read(response([]), errors="ignore")  # type: ignore[arg-type]


# --- sources -----------------------------------------------------------------------------


def test_every_chunk_kind_gets_a_label_and_keeps_its_fields() -> None:
    chunks: list[dict[str, Any]] = [
        {"retrievedContext": {"fileSearchStore": "fileSearchStores/handbuch-7f",
                              "text": "Öffnungszeiten: 9 bis 17 Uhr.",
                              "customMetadata": [{"key": "source_url",
                                                  "stringValue": "https://intra.example/h"},
                                                 {"key": "year", "numericValue": 2024}]}},
        {"maps": {"placeId": "ChIJ2eUgeAK6j4ARbn5u_wAGqWA", "title": ""}},
        {},
        {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC"}},
        {"web": {"uri": "https://www.example.org/page", "title": ""}},
    ]  # fmt: skip
    grounded = read(response([support(SENTENCES[0], [0, 1, 2, 3, 4])], chunks))
    sources = grounded.citations[0].sources
    assert [s.label for s in sources] == [
        "https://intra.example/h",
        "place ChIJ2eUgeAK6j4ARbn5u_wAGqWA",
        "(untitled source)",
        "(untitled web page)",
        "www.example.org",
    ]
    assert sources[0].file_search_store == "fileSearchStores/handbuch-7f"
    assert sources[0].custom_metadata == (
        ("source_url", "https://intra.example/h"), ("year", "2024"),
    )  # fmt: skip
    assert sources[1].place_id == "ChIJ2eUgeAK6j4ARbn5u_wAGqWA"
    listing = source_list(TEXT, grounded.citations, "plain")
    assert "] 0" not in listing and "] 1" not in listing  # never a bare index


def test_uncited_sources_are_listed_after_the_cited_ones() -> None:
    chunks = [{"web": {"uri": f"https://s{i}.example/", "title": f"S{i}"}} for i in range(3)]
    grounded = read(response([support(SENTENCES[0], [1])], chunks))
    assert [s.title for s in grounded.uncited_sources] == ["S0", "S2"]
    assert source_list(TEXT, grounded.citations, "plain", uncited=grounded.uncited_sources) == (
        "[1] S1 — https://s1.example/\n"
        "[2] S0 — https://s0.example/ (not cited)\n"
        "[3] S2 — https://s2.example/ (not cited)"
    )


def test_an_image_only_response_reads_to_its_sources() -> None:
    body = response([])
    body["candidates"][0]["content"]["parts"] = [
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    ]
    grounded = read(body)
    assert grounded.text == "" and grounded.citations == []
    assert [s.title for s in grounded.declared_sources] == ["de.example", "ja.example"]


def test_chunks_of_one_document_share_one_number() -> None:
    answer = {
        "answerText": "Köln liegt am Rhein. Der Dom ist gotisch.",
        "citations": [
            {"startIndex": "0", "endIndex": "21", "sources": [{"referenceId": "0"}]},
            {"startIndex": "22", "endIndex": "42", "sources": [{"referenceId": "1"}]},
        ],
        "references": [
            {"chunkInfo": {"chunk": f"d/koeln/chunks/{i}", "content": c,
                           "documentMetadata": {"document": "d/koeln", "title": "Köln"}}}
            for i, c in enumerate(["Köln liegt am Rhein.", "Der Dom ist gotisch."])
        ],
    }  # fmt: skip
    grounded = read(answer)
    assert render(grounded.text or "", grounded.citations) == (
        "Köln liegt am Rhein.[1] Der Dom ist gotisch.[1]"
    )
    assert len(number_sources(grounded.text or "", grounded.citations)) == 1
    chunks = {s.chunk for c in grounded.citations for s in c.sources}
    assert chunks == {"d/koeln/chunks/0", "d/koeln/chunks/1"}  # each still reachable


def test_search_info_is_exposed() -> None:
    body = response([support(SENTENCES[0], [0])])
    meta = body["candidates"][0]["groundingMetadata"]
    meta["webSearchQueries"] = ["Warren Buffett Geburtsort", "バークシャー 会長"]
    meta["searchEntryPoint"] = {"renderedContent": "<div class='chip'>…</div>"}
    meta["retrievalQueries"] = ["buffett omaha"]
    body["candidates"][0]["urlContextMetadata"] = {
        "urlMetadata": [{"retrievedUrl": "https://x.example",
                         "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_ERROR"}]
    }  # fmt: skip
    grounded = read(body)
    assert grounded.search.queries == ("Warren Buffett Geburtsort", "バークシャー 会長")
    assert grounded.search.rendered_content == "<div class='chip'>…</div>"
    assert grounded.search.retrieval_queries == ("buffett omaha",)
    assert [(u.url, u.status) for u in grounded.search.url_statuses] == [
        ("https://x.example", "URL_RETRIEVAL_STATUS_ERROR")
    ]
    assert (grounded.shape, grounded.finish_reason) == ("gemini_response", "STOP")


# --- properties --------------------------------------------------------------------------

WORDS = ["Köln", "東京", "naïve", "🍒", "👩🏽\u200d💻", "data", "Zürich", "über", "ok"]


@st.composite
def drifted(draw: st.DrawFn) -> tuple[dict[str, Any], list[tuple[int, int]], list[bool]]:
    """A response with unique sentences, some of whose supports drift by a few bytes."""
    count = draw(st.integers(1, 6))
    sentences = [
        f"S{i} " + " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))) + "."
        for i in range(count)
    ]  # "S{i}" makes every sentence unique
    text = " ".join(sentences)
    supports, truth, shifted = [], [], []
    for sentence in sentences:
        char = text.index(sentence)
        start, end = b(text[:char]), b(text[:char]) + b(sentence)
        shift = draw(st.sampled_from([0, 0, 1, 2, -1, -2, 3]))
        supports.append({"segment": {"startIndex": start + shift, "endIndex": end + shift,
                                     "text": sentence}, "groundingChunkIndices": [0]})  # fmt: skip
        truth.append((char, char + len(sentence)))
        shifted.append(shift != 0)
    body = response(supports)
    body["candidates"][0]["content"]["parts"] = [{"text": text}]
    return body, truth, shifted


@settings(max_examples=150, deadline=None)
@given(drifted())
def test_repair_gives_back_the_original_spans(
    case: tuple[dict[str, Any], list[tuple[int, int]], list[bool]],
) -> None:
    body, truth, shifted = case
    grounded = read(body)
    assert [(c.char_start, c.char_end) for c in grounded.citations] == truth
    drifts = [p for p in grounded.problems if p.code == "offset-drift"]
    assert len(drifts) == sum(shifted)
    if any(shifted):
        with pytest.raises((CitationError, OffsetError)):
            read(body, errors="strict")
    else:
        assert read(body, errors="strict").citations == grounded.citations


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 300) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=4),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_skip_never_raises_on_a_decodable_response(data: st.DataObject) -> None:
    body = copy.deepcopy(response([support(s, [0, 1]) for s in SENTENCES]))
    supports = body["candidates"][0]["groundingMetadata"]["groundingSupports"]
    for entry in supports:  # break some fields with arbitrary JSON values
        if data.draw(st.booleans()):
            target = data.draw(st.sampled_from(["segment", "groundingChunkIndices"]))
            if target == "segment":
                key = data.draw(st.sampled_from(["startIndex", "endIndex", "text", "partIndex"]))
                entry["segment"][key] = data.draw(JSON)
            else:
                entry[target] = data.draw(JSON)
    grounded = read(body, errors="skip")  # never raises
    # every support is either placed or recorded as left out, none silently dropped
    left_out = {p.path.split(".segment")[0].split(".grounding_chunk")[0]
                for p in grounded.problems if "left out" in p.message}  # fmt: skip
    placed_paths = {c.path for c in grounded.citations}
    assert placed_paths | left_out == {
        f"candidates[0].grounding_metadata.grounding_supports[{i}]" for i in range(len(supports))
    }
    for citation in grounded.citations:
        assert citation.text == TEXT[citation.char_start : citation.char_end]


# --- the command line --------------------------------------------------------------------


def cli(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "grounding_protos", *args], input=stdin, capture_output=True,
        check=False,
    )  # fmt: skip


def test_cli_renders_a_drifted_response_with_warnings() -> None:
    body = response([support(SENTENCES[0], [0])] + [support(s, [1], 1) for s in SENTENCES[1:]])
    run = cli("render", "-", stdin=json.dumps(body).encode())
    assert run.returncode == 0, run.stderr
    err = run.stderr.decode()
    assert err.count("warning:") == 3 and "[offset-drift]" in err
    assert run.stdout.decode().startswith(f"{SENTENCES[0]}[1] {SENTENCES[1]}[2]")


def test_cli_skip_renders_the_good_spans_and_exits_1() -> None:
    body = response([support(SENTENCES[0], [0]), support(SENTENCES[1], [9])])
    assert cli("render", "-", stdin=json.dumps(body).encode()).returncode == 1
    run = cli("render", "--errors", "skip", "-", stdin=json.dumps(body).encode())
    assert run.returncode == 1
    assert run.stdout.decode().startswith(f"{SENTENCES[0]}[1] {SENTENCES[1]}")
    assert "problem:" in run.stderr.decode() and "left out" in run.stderr.decode()


def test_cli_quotes_text_without_collapsing_whitespace() -> None:
    text = "*   **Rain**\n*   Sun"
    body = response([{"segment": {"startIndex": 0, "endIndex": 12, "text": "*   **Snow**"},
                      "groundingChunkIndices": [0]}])  # fmt: skip
    body["candidates"][0]["content"]["parts"] = [{"text": text}]
    run = cli("validate", "-", stdin=json.dumps(body).encode())
    out = run.stdout.decode()
    assert "'*   **Snow**'" in out and "'*   **Rain**'" in out


def test_cli_renders_the_sources_of_an_answer_without_text() -> None:
    body = response([])
    body["candidates"][0]["content"]["parts"] = [{"inlineData": {"mimeType": "image/png",
                                                                 "data": "AA=="}}]  # fmt: skip
    run = cli("render", "--style", "plain", "-", stdin=json.dumps(body).encode())
    assert run.returncode == 0, run.stderr
    out = run.stdout.decode()
    assert out.startswith("(the answer has no text)")
    assert "[1] de.example — https://de.example/buffett (not cited)" in out
    assert "the answer has no text" in run.stderr.decode()


def test_bad_arguments_of_the_new_entry_points_raise_typed_errors() -> None:
    from grounding_protos import ArgumentTypeError, ArgumentValueError
    from grounding_protos.batch import process_lines
    from grounding_protos.citations import SearchInfo, search_notes

    grounded = read(response([support(SENTENCES[0], [0])]))
    with pytest.raises(ArgumentTypeError, match=r"uncited\[0\] must be a Source, not str"):
        source_list(TEXT, grounded.citations, uncited=["https://x.example"])  # type: ignore[list-item]
    with pytest.raises(ArgumentTypeError, match=r"uncited\[0\]"):
        number_sources(TEXT, grounded.citations, uncited=[None])  # type: ignore[list-item]
    with pytest.raises(ArgumentValueError, match="style must be"):
        search_notes(SearchInfo(queries=("q",)), "latex")  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="errors must be 'strict'"):
        process_lines(["{}"], "render", errors="lenient")  # checked before the first line
