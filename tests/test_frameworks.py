"""LangChain, LiteLLM, pydantic-ai and Google ADK: the objects each makes of a grounded
Gemini answer, through its own conversion code, read to exactly the spans ``read``
finds in the raw response; their streams; the write-back to a LangChain ``AIMessage``.

The frameworks are the extra ``frameworks-test`` (not in ``test``: google-adk and
pydantic-ai[google] require google-genai<3); without them these tests skip.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import CitationError
from grounding_protos.citations import Grounded, read, read_stream
from grounding_protos.convert import to_ai_message
from tests import framework_cases as fc

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch at litellm import

Span = tuple[int, int, int | None, int | None, str | None, tuple[Any, ...], tuple[float, ...]]


def spans(grounded: Grounded) -> list[Span]:
    """What a citation places, whatever input it came from (not its path in the input)."""
    return [
        (c.start, c.end, c.char_start, c.char_end, c.text, c.sources, c.source_scores)
        for c in grounded.citations
    ]


@pytest.mark.parametrize(("parts", "part_index"), fc.CASES, ids=fc.CASE_IDS)
@pytest.mark.parametrize("form", fc.FORMS)
def test_framework_objects_read_to_the_spans_of_the_raw_response(
    form: str, parts: int, part_index: bool
) -> None:
    want = read(fc.raw_response(parts, part_index))
    assert len(want.citations) == 3 and not want.problems
    got = read(fc.framework_objects(parts, part_index)[form]())
    assert got.text == want.text
    assert spans(got) == spans(want)
    if not form.startswith("pydantic-ai"):  # pydantic-ai moves them into a tool call part
        assert got.search.queries == want.search.queries
    if form.startswith("litellm") and part_index:
        # LiteLLM joined the parts: the part-1 supports are placed by their text, recorded
        assert [p.code for p in got.problems] == ["placed-by-text", "placed-by-text"]
    else:
        assert got.problems == []


def test_shapes_are_named_for_the_framework() -> None:
    shapes = {}
    for form, build in fc.framework_objects(2, True).items():
        shapes[form.split("-")[0]] = read(build()).shape
    assert shapes == {
        "langchain": "langchain_message",
        "litellm": "litellm_response",
        "pydantic": "pydantic_ai_response",
        "adk": "gemini_candidate",  # ADK's Event and LlmResponse are Gemini candidates
    }


DUMPS: dict[str, Callable[[], Any]] = {
    "langchain-json": lambda: fc.framework_objects(2, True)["langchain-json"](),
    "litellm-model-dump": lambda: json.loads(fc.litellm_response(fc.raw_response(2, True))
                                             .model_dump_json()),
    "pydantic-ai-history-json": lambda: fc.pydantic_ai_history_json(fc.raw_response(2, True)),
    "adk-event-json": lambda: fc.adk_json(fc.adk_event(fc.raw_response(2, True))),
    "langchain-chunks-json": lambda: [c.model_dump() for c in fc.langchain_chunks(2)],
    "adk-run-json": lambda: [fc.adk_json(e) for e in fc.adk_events(2)],
}  # fmt: skip


@pytest.mark.parametrize("dump", list(DUMPS))
def test_the_cli_renders_the_json_dumps_as_the_raw_response(
    dump: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from grounding_protos.cli import main

    streamed = dump in ("langchain-chunks-json", "adk-run-json")  # offsets of the joined parts
    raw = fc.raw_response(2, not streamed)
    (tmp_path / "raw.json").write_text(json.dumps(raw), encoding="utf-8")
    (tmp_path / "dump.json").write_text(json.dumps(DUMPS[dump]()), encoding="utf-8")
    assert main(["render", str(tmp_path / "raw.json")]) == 0
    want = capsys.readouterr().out
    # LiteLLM's part-1 supports are placed by their text: recorded problems, exit status 1
    assert main(["render", str(tmp_path / "dump.json")]) == (dump.startswith("litellm"))
    got = capsys.readouterr().out
    if dump.startswith("pydantic-ai"):  # its search queries are in a tool call part
        want = want.split("\nSearch queries:")[0]
        got = got.split("\nSearch queries:")[0]
    assert got == want and "[1]" in got


# --- Streams --------------------------------------------------------------------------


STREAMS: dict[str, Callable[[int], Any]] = {
    "langchain-chunks": fc.langchain_chunks,
    "langchain-chunk-dumps": lambda parts: [c.model_dump() for c in fc.langchain_chunks(parts)],
    "litellm-chunks": fc.litellm_chunks,
    "adk-events": fc.adk_events,
    "adk-event-json": lambda parts: [fc.adk_json(e) for e in fc.adk_events(parts)],
}


@pytest.mark.parametrize("parts", [1, 2], ids=["one-part", "two-parts"])
@pytest.mark.parametrize("stream", list(STREAMS))
def test_framework_streams_read_to_the_spans_of_the_raw_stream(stream: str, parts: int) -> None:
    want = read_stream(fc.raw_stream(parts))
    assert spans(want) == spans(read(fc.raw_response(parts, False)))
    got = read_stream(STREAMS[stream](parts))
    assert got.text == want.text
    assert spans(got) == spans(want)
    assert got.problems == []


def test_an_adk_run_read_as_it_runs_with_aread_stream() -> None:
    """ADK's runner is async (``runner.run_async``): ``aread_stream`` takes its events."""
    import asyncio

    from grounding_protos.citations import aread_stream

    events = fc.adk_events(2)

    async def run() -> Any:
        for event in events:
            yield event

    got = asyncio.run(aread_stream(run()))
    assert spans(got) == spans(read(fc.raw_response(2, False))) and got.problems == []


def test_a_langchain_stream_cut_short_is_incomplete() -> None:
    chunks = fc.langchain_chunks(1)[:-1]  # no chunk_position="last"
    got = read_stream(chunks)
    assert [p.code for p in got.problems] == ["stream-incomplete"]
    assert spans(got) == spans(read(fc.raw_response(1, False)))


def test_an_adk_run_that_ends_in_partial_events_is_incomplete() -> None:
    events = fc.adk_events(1)[:-1]  # the whole answer never came
    got = read_stream(events)
    assert got.text == fc.PART_A + fc.PART_B
    assert spans(got) == spans(read(fc.raw_response(1, False)))
    assert [p.code for p in got.problems] == ["stream-incomplete"]


def test_an_adk_run_reads_as_its_last_answer() -> None:
    first = fc.raw_response(1, False)
    first["candidates"][0]["content"]["parts"] = [{"text": "Einen Moment, ich suche 🔎."}]
    del first["candidates"][0]["groundingMetadata"]
    call = fc.raw_response(1, False)
    call["candidates"][0]["content"]["parts"] = [
        {"functionCall": {"name": "google_search", "args": {"q": "Kölner Dom"}}}
    ]
    events = [fc.adk_event(first), fc.adk_event(call), *fc.adk_events(2)]
    got = read_stream(events)
    assert spans(got) == spans(read(fc.raw_response(2, False)))
    assert got.problems == []


def test_a_run_without_an_answer_says_so() -> None:
    call = fc.raw_response(1, False)
    call["candidates"][0]["content"]["parts"] = [{"functionCall": {"name": "f", "args": {}}}]
    got = read_stream([fc.adk_event(call)])
    assert got.citations == [] and [p.code for p in got.problems] == ["no-answer"]


def test_adk_session_state_grounding_reads_with_the_answer_text() -> None:
    state = pytest.importorskip("google.adk.sessions", reason=fc.FRAMEWORKS_EXTRA)
    raw = fc.raw_response(1, False)
    meta = fc.genai_response(raw).candidates[0].grounding_metadata
    session = state.Session(
        id="s-1", app_name="stadt", user_id="u-1", state={"temp:_adk_grounding_metadata": meta}
    )
    want = read(raw)
    for obj in (session, session.state, {"temp:_adk_grounding_metadata": meta.model_dump()}):
        got = read(obj, text=want.text)
        assert got.shape == "adk_session_state"
        assert spans(got) == spans(want)


# --- What the frameworks get wrong, read right ------------------------------------------


def test_langchain_gemini_3_blocks_with_a_thought_part() -> None:
    """Gemini 3: LangChain's content is a list of blocks (a thinking block, text blocks
    with a thought signature in ``extras``); the part indices count the thought part."""
    raw = fc.raw_response(2, True)
    raw["modelVersion"] = "gemini-3-pro-preview"
    candidate = raw["candidates"][0]
    candidate["content"]["parts"].insert(0, {"text": "Ich überlege 🤔 …", "thought": True})
    candidate["content"]["parts"][2]["thoughtSignature"] = "c2lnbmF0dXI="
    for support in candidate["groundingMetadata"]["groundingSupports"]:
        support["segment"]["partIndex"] = support["segment"].get("partIndex", 0) + 1
    message = fc.langchain_message(raw)
    assert [b["type"] for b in message.content] == ["thinking", "text", "text"]
    want = read(raw)
    assert len(want.citations) == 3 and not want.problems
    got = read(message)
    assert spans(got) == spans(want) and got.problems == []
    written = to_ai_message(message)
    assert [b["type"] for b in written.content] == ["thinking", "text", "text"]
    assert written.content[2]["extras"] == message.content[2]["extras"]  # the signature
    assert [(b, t) for b, t, _ in _citations_of(written)] == [
        (1, fc.CLAIMS[0][1]), (2, fc.CLAIMS[1][1]), (2, fc.CLAIMS[1][1]), (2, fc.CLAIMS[2][1])
    ]  # fmt: skip


def test_langchains_own_blocks_are_wrong_and_not_read() -> None:
    """langchain-google-genai's v1 annotations: byte offsets as string indices, all on
    block 0, one per chunk index; read takes Gemini's metadata instead."""
    message = fc.langchain_message(fc.raw_response(2, True))
    text_blocks = [b for b in message.content_blocks if b["type"] == "text"]
    theirs = text_blocks[0].get("annotations", [])
    tokyo = next(a for a in theirs if a.get("cited_text") == "東京は日本の首都です")
    assert tokyo.get("start_index", 0) == 0  # relative to part 1, but put on block 0
    assert not text_blocks[1].get("annotations")
    got = read(message)
    assert [(c.char_start, c.char_end) for c in got.citations] == [
        (t.index(claim), t.index(claim) + len(claim))
        for t in [fc.PART_A + fc.PART_B]
        for _, claim in fc.CLAIMS
    ]


def test_litellms_copied_annotations_are_byte_offsets_and_not_read() -> None:
    response = fc.litellm_response(fc.raw_response(1, False))
    message = response.choices[0].message
    first = message.annotations[0]["url_citation"]
    claim = fc.CLAIMS[0][1]
    assert message.content[first["start_index"] : first["end_index"]] != claim  # bytes
    got = read(response)
    assert got.citations[0].text == claim


def test_litellm_candidates_each_read_with_their_metadata() -> None:
    """``n=2``: LiteLLM keeps one metadata entry per candidate, in order; a candidate
    without grounding leaves the entries unassignable, which is said, not guessed."""
    raw = fc.raw_response(1, False)
    second = copy.deepcopy(raw["candidates"][0])
    second["index"] = 1
    second["content"]["parts"] = [{"text": fc.PART_B}]
    for support in second["groundingMetadata"]["groundingSupports"][1:]:
        support["segment"]["startIndex"] -= len(fc.PART_A.encode())
        support["segment"]["endIndex"] -= len(fc.PART_A.encode())
    second["groundingMetadata"]["groundingSupports"] = second["groundingMetadata"][
        "groundingSupports"
    ][1:]
    raw["candidates"].append(second)
    response = fc.litellm_response(raw)
    for candidate in (0, 1):
        want = read(raw, candidate=candidate)
        got = read(response, candidate=candidate)
        assert spans(got) == spans(want) and got.problems == [] and got.citations
    del raw["candidates"][1]["groundingMetadata"]
    got = read(fc.litellm_response(raw), candidate=1)
    assert got.citations == [] and [p.code for p in got.problems] == ["grounding-unassigned"]


def test_a_litellm_passthrough_of_openai_reads_as_openai() -> None:
    utils = pytest.importorskip(
        "litellm.litellm_core_utils.llm_response_utils.convert_dict_to_response",
        reason=fc.FRAMEWORKS_EXTRA,
    )
    types_utils = pytest.importorskip("litellm.types.utils", reason=fc.FRAMEWORKS_EXTRA)
    text = "Köln 🌉 hat einen Dom ([koeln.de](https://koeln.de))."
    start = text.index("(")
    chat = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": text, "annotations": [{"type": "url_citation",
            "url_citation": {"start_index": start, "end_index": len(text) - 1,
                             "url": "https://koeln.de", "title": "koeln.de"}}]}}],
    }  # fmt: skip
    converted = utils.convert_to_model_response_object(
        response_object=copy.deepcopy(chat), model_response_object=types_utils.ModelResponse()
    )
    got = read(converted)
    assert got.shape == "openai_chat_completion"
    assert spans(got) == spans(read(chat))


def test_pydantic_ai_checked_against_gemini() -> None:
    response = fc.pydantic_ai_response(fc.raw_response(2, True))
    citation = response.parts[1].citations[1]
    citation.anchor.start += 1  # pydantic-ai's anchor moves, Gemini's support stays
    got = read(response)
    assert [p.code for p in got.problems] == ["framework-disagreement"]
    assert "parts[1].citations[1].anchor" in got.problems[0].path
    assert spans(got) == spans(read(fc.raw_response(2, True)))  # Gemini's support is read
    with pytest.raises(CitationError, match="pydantic-ai places this citation"):
        read(response, errors="strict")


@pytest.mark.parametrize(("parts", "part_index"), fc.CASES, ids=fc.CASE_IDS)
def test_pydantic_ais_own_citations_without_gemini_details(parts: int, part_index: bool) -> None:
    response = fc.pydantic_ai_response(fc.raw_response(parts, part_index))
    for part in response.parts:
        if getattr(part, "provider_details", None):
            part.provider_details = None
    got = read(response)
    want = read(fc.raw_response(parts, part_index))
    place = [(c.start, c.end, c.char_start, c.char_end, c.text) for c in got.citations]
    assert place == [(c.start, c.end, c.char_start, c.char_end, c.text) for c in want.citations]
    assert [[s.uri for s in c.sources] for c in got.citations] == [
        [s.uri for s in c.sources] for c in want.citations
    ]
    assert got.problems == []


def test_langchain_openai_and_anthropic_messages_read_as_their_vendor() -> None:
    lc_openai = pytest.importorskip("langchain_openai.chat_models.base", reason=fc.FRAMEWORKS_EXTRA)
    lc_anthropic = pytest.importorskip("langchain_anthropic", reason=fc.FRAMEWORKS_EXTRA)
    responses = pytest.importorskip("openai.types.responses", reason=fc.FRAMEWORKS_EXTRA)
    anthropic_types = pytest.importorskip("anthropic.types", reason=fc.FRAMEWORKS_EXTRA)
    text = "Der Kölner Dom 🌉 ist 157 m hoch ([koeln.de](https://koeln.de))."
    start = text.index("([")
    openai_raw = {
        "id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-4o",
        "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": [
                        {"type": "url_citation", "start_index": start, "end_index": len(text) - 1,
                         "url": "https://koeln.de", "title": "koeln.de"},
                        {"type": "file_citation", "index": len(text), "file_id": "file-7",
                         "filename": "dombau.pdf"}]}]}],
    }  # fmt: skip
    result = lc_openai._construct_lc_result_from_responses_api(
        responses.Response.model_validate(openai_raw)
    )
    message = result.generations[0].message
    assert "file_index" in message.content[0]["annotations"][1]  # LangChain's renaming
    got = read(message)
    assert got.shape == "langchain_message" and spans(got) == spans(read(openai_raw))
    assert len(got.citations) == 2
    anthropic_raw = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "stop_reason": "end_turn", "usage": {"input_tokens": 5, "output_tokens": 9},
        "content": [{"type": "text", "text": "Laut Bericht 📄 "},
                    {"type": "text", "text": "wächst Köln.", "citations": [{
                        "type": "char_location", "cited_text": "Köln wächst.",
                        "document_index": 0, "document_title": "Bericht",
                        "start_char_index": 0, "end_char_index": 12}]}],
    }  # fmt: skip
    model = lc_anthropic.ChatAnthropic(model="claude-sonnet-4-5", api_key="offline")
    chat = model._format_output(anthropic_types.Message.model_validate(anthropic_raw))
    got = read(chat.generations[0].message)
    assert got.shape == "langchain_message" and spans(got) == spans(read(anthropic_raw))


# --- Writing back a LangChain AIMessage --------------------------------------------------


def _citations_of(message: Any) -> list[tuple[int, str, str]]:
    """(block, the block's text at the citation's indices, its url) of every citation."""
    out = []
    for b, block in enumerate(message.content):
        for a in block.get("annotations", []) if block["type"] == "text" else []:
            out.append((b, block["text"][a["start_index"] : a["end_index"]], a.get("url")))
    return out


@pytest.mark.parametrize(("parts", "part_index"), fc.CASES, ids=fc.CASE_IDS)
def test_to_ai_message_from_langchains_own_message(parts: int, part_index: bool) -> None:
    message = fc.langchain_message(fc.raw_response(parts, part_index))
    before = copy.deepcopy(message.model_dump())
    written = to_ai_message(message)
    assert message.model_dump() == before  # never mutates its input
    texts = [fc.PART_A + fc.PART_B] if parts == 1 else [fc.PART_A, fc.PART_B]
    assert [b["text"] for b in written.content] == texts
    redirect = fc.REDIRECT
    claims = [(0 if parts == 1 else p, claim) for p, claim in fc.CLAIMS]
    assert _citations_of(written) == [
        (claims[0][0], claims[0][1], redirect + "AbC1"),
        (claims[1][0], claims[1][1], redirect + "XyZ2"),  # one per (span, source)
        (claims[1][0], claims[1][1], redirect + "AbC1"),
        (claims[2][0], claims[2][1], redirect + "QrS3"),
    ]
    assert written.response_metadata["output_version"] == "v1"
    assert (
        written.response_metadata["grounding_metadata"]
        == message.response_metadata["grounding_metadata"]
    )
    # LangChain takes the blocks as its own v1 content, and they read back to the spans
    assert [b["type"] for b in written.content_blocks] == ["text"] * parts
    want = read(fc.raw_response(parts, part_index))
    stripped = written.model_copy(update={"response_metadata": {"output_version": "v1"}})
    back = read(stripped)
    assert [(c.char_start, c.char_end, c.text) for c in back.citations] == [
        (c.char_start, c.char_end, c.text) for c in want.citations for _ in c.sources
    ]


@pytest.mark.parametrize(
    "form", ["litellm-modelresponse", "pydantic-ai-modelresponse", "adk-event"]
)
def test_to_ai_message_from_other_frameworks(form: str) -> None:
    obj = fc.framework_objects(2, True)[form]()
    written = to_ai_message(obj)
    want = read(fc.raw_response(2, True))
    found = [(text, url) for _, text, url in _citations_of(written)]
    assert found == [(c.text, s.uri) for c in want.citations for s in c.sources]


def test_to_ai_message_from_a_raw_response_needs_no_framework_but_langchain_core() -> None:
    pytest.importorskip("langchain_core", reason="test extra")
    raw = fc.raw_response(2, True)
    written = to_ai_message(raw)
    assert [b["text"] for b in written.content] == [fc.PART_A, fc.PART_B]
    assert [(b, t) for b, t, _ in _citations_of(written)] == [
        (0, fc.CLAIMS[0][1]), (1, fc.CLAIMS[1][1]), (1, fc.CLAIMS[1][1]), (1, fc.CLAIMS[2][1])
    ]  # fmt: skip
    assert read(raw) == read(raw)  # the input is read, not changed
    assert json.dumps(raw) == json.dumps(fc.raw_response(2, True))


def test_to_ai_message_splits_a_span_across_blocks() -> None:
    pytest.importorskip("langchain_core", reason="test extra")
    raw = fc.raw_response(2, False)
    whole = fc.PART_A + fc.PART_B
    claim = "157 m hoch. 東京"
    start = len(whole[: whole.index(claim)].encode())
    raw["candidates"][0]["groundingMetadata"]["groundingSupports"] = [
        {"segment": {"startIndex": start, "endIndex": start + len(claim.encode()), "text": claim},
         "groundingChunkIndices": [0]}
    ]  # fmt: skip
    written = to_ai_message(raw)
    assert [(b, t) for b, t, _ in _citations_of(written)] == [(0, "157 m hoch. "), (1, "東京")]


def test_to_ai_message_keeps_every_source_kind() -> None:
    pytest.importorskip("langchain_core", reason="test extra")
    raw = fc.raw_response(1, False)
    meta = raw["candidates"][0]["groundingMetadata"]
    meta["groundingChunks"] = [
        {"retrievedContext": {"uri": "gs://akten/dom.pdf", "title": "Dombauhütte",
                              "text": "157,18 m", "ragChunk": {"pageSpan": {"firstPage": 3}}}},
        {"maps": {"uri": "https://maps.example/place", "title": "東京駅", "placeId": "ChIJ7"}},
        {"image": {"sourceUri": "https://bilder.example/spree", "imageUri": "https://i.example/1"}},
    ]  # fmt: skip
    written = to_ai_message(raw)
    annotations = written.content[0]["annotations"]
    kinds = [a["extras"]["source_kind"] for a in annotations]
    assert kinds == ["retrieved_context", "maps", "retrieved_context", "image"]
    assert annotations[0]["extras"]["page"] == "3" and annotations[1]["extras"]["place_id"]
    back = read(written.model_copy(update={"response_metadata": {"output_version": "v1"}}))
    assert [s.kind for c in back.citations for s in c.sources] == kinds


# --- Imports ------------------------------------------------------------------------------


def test_importing_citations_imports_no_framework() -> None:
    code = (
        "import sys, grounding_protos.citations, grounding_protos.convert; "
        "names = ('langchain', 'litellm', 'pydantic_ai', 'google.adk', 'langchain_core'); "
        "print(sorted(m for m in sys.modules if m.startswith(names)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- Properties ---------------------------------------------------------------------------

_TEXT = st.text(
    st.sampled_from(list("aßüé 東京한국😀🌉\u0301.,\u200d👩🏽💻")), min_size=1, max_size=12
)


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(_TEXT, min_size=1, max_size=4), data=st.data())
def test_to_ai_message_puts_each_span_on_its_blocks_at_string_indices(
    parts: list[str], data: st.DataObject
) -> None:
    """Any spans over any parts: each citation's block text at its indices is the cited
    text of that block's piece, and the pieces of a span join to the whole span."""
    pytest.importorskip("langchain_core", reason="test extra")
    whole = "".join(parts)
    spans_drawn = data.draw(
        st.lists(st.tuples(st.integers(0, len(whole)), st.integers(0, len(whole))), max_size=5)
    )
    supports = []
    for a, b in spans_drawn:
        a, b = min(a, b), max(a, b)
        start, end = len(whole[:a].encode()), len(whole[:b].encode())
        supports.append({"segment": {"startIndex": start, "endIndex": end},
                         "groundingChunkIndices": [0]})  # fmt: skip
    raw = {"candidates": [{"content": {"parts": [{"text": p} for p in parts]},
                           "groundingMetadata": {"groundingChunks": [{"web": {"uri": "https://x"}}],
                                                 "groundingSupports": supports}}]}  # fmt: skip
    grounded = read(raw)
    written = to_ai_message(raw)
    assert [b["text"] for b in written.content] == parts
    pieces: list[str] = []
    for block in written.content:
        for annotation in block["annotations"]:
            piece = block["text"][annotation["start_index"] : annotation["end_index"]]
            assert piece == annotation["cited_text"]
            pieces.append(piece)
    # one citation per piece of each span on each block it covers, nothing else
    assert sorted(pieces) == sorted(p for c in grounded.citations for p in _split(c, parts))


def _split(citation: Any, parts: list[str]) -> list[str]:
    out, at = [], 0
    for part in parts:
        lo, hi = max(citation.char_start, at), min(citation.char_end, at + len(part))
        empty = citation.char_start == citation.char_end
        if (lo < hi and not empty) or (empty and at <= citation.char_start < at + len(part)):
            out.append(part[lo - at : hi - at])
        at += len(part)
    if citation.char_start == citation.char_end == at:
        out.append("")
    return out


@settings(max_examples=40, deadline=None)
@given(pieces=st.lists(_TEXT, min_size=1, max_size=6), as_list=st.booleans())
def test_the_chunk_merge_is_langchains_own_addition(pieces: list[str], as_list: bool) -> None:
    """The merged content of a chunk stream is what langchain-core's ``+`` makes."""
    messages = pytest.importorskip("langchain_core.messages", reason="test extra")
    from grounding_protos._sources.frameworks.langchain.merger import merge_chunks

    if as_list:  # Gemini 3's blocks, streamed with an index
        chunks = [messages.AIMessageChunk(content=[{"type": "text", "text": p, "index": 0}])
                  for p in pieces]  # fmt: skip
    else:
        chunks = [messages.AIMessageChunk(content=p) for p in pieces]
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    merged, _ = merge_chunks(enumerate(chunks, 1))
    assert merged["content"] == total.content


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 200) | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


def _templates(value: Any) -> list[Any]:
    """Each framework shape with ``value`` where a field of it should be."""
    segment = {"start_index": value, "end_index": 5, "part_index": value, "text": value}
    support = {"segment": segment, "grounding_chunk_indices": value, "grounding_chunks": value}
    return [
        {"type": "ai", "content": value, "response_metadata": {"grounding_metadata": value}},
        {"type": "ai", "content": ["Köln 🌉", value], "response_metadata": {
            "grounding_metadata": {"grounding_supports": [support], "grounding_chunks": value}}},
        {"type": "ai", "content": [{"type": "text", "text": "Köln", "annotations": [value]}],
         "response_metadata": {}},
        {"type": "AIMessageChunk", "content": [{"type": "text", "text": value, "annotations": [
            {"type": "citation", "start_index": value, "end_index": 2, "extras": value}]}],
         "response_metadata": {}},
        {"lc": 1, "type": "constructor", "id": ["x", "AIMessage"], "kwargs": value},
        {"choices": [{"message": {"content": value}}], "vertex_ai_grounding_metadata": [value]},
        {"choices": [{"message": {"content": "Köln"}}, value],
         "vertex_ai_grounding_metadata": [{"groundingSupports": [support]}]},
        {"kind": "response", "parts": [{"part_kind": "text", "content": "東京 🗼", "citations": [
            {"sources": value, "anchor": {"start": value, "end": 3}}],
            "provider_details": {"citations": [value, support]}}]},
        [{"kind": "request", "parts": []}, {"kind": "response", "parts": [
            {"part_kind": value, "content": value}]}],
        {"temp:_adk_grounding_metadata": {"grounding_supports": [support], "x": value}},
    ]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(value=_JSON)
def test_hostile_framework_shapes_give_typed_errors_or_problems(value: Any) -> None:
    """A framework shape with any JSON value in one of its fields reads, or raises one of
    the package's errors; never another exception."""
    from grounding_protos import GroundingProtosError

    for template in _templates(value):
        with contextlib.suppress(GroundingProtosError):
            read(template)
        with contextlib.suppress(GroundingProtosError):
            read_stream([template])
