"""Other vendors' responses read into Grounded: OpenAI, Anthropic, Cohere, Bedrock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grounding_protos import ArgumentValueError, OffsetError, validate
from grounding_protos.citations import Grounded, LocationInfo, read, render
from grounding_protos.cli import main
from tests import vendor_cases as v

pytestmark = pytest.mark.smoke


def _spans(grounded: Grounded) -> list[tuple[int | None, int | None, str | None]]:
    return [(c.char_start, c.char_end, c.text) for c in grounded.citations]


def _check_bytes(grounded: Grounded) -> None:
    """Byte offsets agree with the character ones (independent oracle)."""
    assert grounded.text is not None
    data = grounded.text.encode("utf-8")
    for c in grounded.citations:
        assert c.char_start is not None and c.char_end is not None
        assert c.start == len(grounded.text[: c.char_start].encode("utf-8"))
        assert data[c.start : c.end].decode("utf-8") == c.text


# --- OpenAI ---------------------------------------------------------------------------


def test_openai_response() -> None:
    grounded = read(v.openai_response())
    assert grounded.shape == "openai_response" and grounded.text == v.TEXT
    end_of_claim = v.char_span(2)[1]
    assert _spans(grounded) == [
        (*v.char_span(1), v.CITED[0]), (*v.char_span(3), v.CITED[1]),
        (end_of_claim, end_of_claim, ""),  # file_citation: a point
    ]  # fmt: skip
    sources = [c.sources[0] for c in grounded.citations]
    assert [(s.kind, s.uri, s.title) for s in sources[:2]] == [
        ("web", v.URLS[0], "Köln: Sommer"), ("web", v.URLS[1], "東京の天気"),
    ]  # fmt: skip
    assert (sources[2].kind, sources[2].document, sources[2].title) == (
        "document", "file-abc", "bericht_köln.pdf",
    )  # fmt: skip
    _check_bytes(grounded)
    assert validate(v.openai_response()) == []


def test_openai_utf16_offsets_with_unit() -> None:
    utf16 = v.openai_response("utf16")
    assert utf16 != v.openai_response()  # the emoji before the citations makes them differ
    assert _spans(read(utf16, unit="utf16")) == _spans(read(v.openai_response()))


def test_openai_sdk_objects() -> None:
    responses = pytest.importorskip("openai.types.responses", reason="vendors test extra")
    chat = pytest.importorskip("openai.types.chat", reason="vendors test extra")
    response = responses.Response.model_validate(v.openai_response())
    assert _spans(read(response)) == _spans(read(v.openai_response()))
    completion = chat.ChatCompletion.model_validate(v.openai_chat_completion())
    assert _spans(read(completion)) == _spans(read(v.openai_chat_completion()))


def test_openai_chat_completion() -> None:
    grounded = read(v.openai_chat_completion())
    assert grounded.shape == "openai_chat_completion" and grounded.finish_reason == "stop"
    assert _spans(grounded) == [(*v.char_span(1), v.CITED[0]), (*v.char_span(3), v.CITED[1])]
    path = grounded.citations[1].path
    assert path == "choices[0].message.annotations[1].url_citation"


def test_openai_out_of_range_offset_names_the_path() -> None:
    response = v.openai_response()
    response["output"][1]["content"][0]["annotations"][1]["end_index"] = 10_000
    with pytest.raises(OffsetError, match=r"output\[1\]\.content\[0\]\.annotations\[1\]"):
        read(response)
    assert [p.code for p in validate(response)] == ["offset-out-of-range"]


# --- Anthropic ------------------------------------------------------------------------


def test_anthropic_message_cites_whole_blocks() -> None:
    grounded = read(v.anthropic_message())
    assert grounded.shape == "anthropic_message" and grounded.text == v.TEXT
    assert _spans(grounded) == [(*v.char_span(1), v.CITED[0]), (*v.char_span(3), v.CITED[1])]
    first, second = (c.sources for c in grounded.citations)
    assert [(s.kind, s.title, s.text) for s in first] == [
        ("document", "Bericht Köln", "Köln ist heiß."),  # cited_text is source text
        ("web", "Köln: Sommer", "Hitze in Köln"),
    ]  # fmt: skip
    assert (second[0].page, second[0].title) == ("3-4", "東京ガイド")  # end page exclusive
    _check_bytes(grounded)
    assert validate(v.anthropic_message()) == []
    with pytest.raises(ArgumentValueError, match="unit='utf16' does not apply"):
        read(v.anthropic_message(), unit="utf16")


def test_anthropic_sdk_object() -> None:
    types = pytest.importorskip("anthropic.types", reason="vendors test extra")
    message = types.Message.model_validate(v.anthropic_message())
    assert _spans(read(message)) == _spans(read(v.anthropic_message()))


# --- Cohere ---------------------------------------------------------------------------


def test_cohere_chat() -> None:
    grounded = read(v.cohere_chat())
    assert grounded.shape == "cohere_chat" and grounded.text == v.TEXT
    assert _spans(grounded) == [(*v.char_span(1), v.CITED[0]), (*v.char_span(3), v.CITED[1])]
    assert [c.sources[0].title for c in grounded.citations] == ["Köln: Sommer", "東京の天気"]
    assert grounded.problems == []  # the PLAN citation cites the plan, not the answer
    _check_bytes(grounded)


def test_cohere_drifted_span_is_reanchored_on_its_text() -> None:
    drifted = v.cohere_chat(drift=2)
    grounded = read(drifted)
    assert _spans(grounded) == _spans(read(v.cohere_chat()))
    assert [p.code for p in grounded.problems] == ["offset-drift"]
    assert grounded.problems[0].path == "message.citations[1].start"
    with pytest.raises(OffsetError, match=r"message\.citations\[1\]\.end\b"):
        read(drifted, errors="strict")  # strict: the drifted end is past the text


def test_cohere_tool_call_response_reads_empty() -> None:
    response = {"id": "c-2", "finish_reason": "TOOL_CALL", "message": {
        "role": "assistant", "tool_plan": "Ich suche.", "tool_calls": [
            {"id": "t1", "type": "function",
             "function": {"name": "search", "arguments": "{}"}}]}}  # fmt: skip
    grounded = read(response)
    assert (grounded.shape, grounded.text, grounded.citations) == ("cohere_chat", "", [])


def test_cohere_sdk_object() -> None:
    cohere = pytest.importorskip("cohere", reason="vendors test extra")
    response = cohere.V2ChatResponse.model_validate(v.cohere_chat())
    assert _spans(read(response)) == _spans(read(v.cohere_chat()))


# --- Bedrock --------------------------------------------------------------------------


def test_bedrock_inclusive_end() -> None:
    grounded = read(v.bedrock_response())
    assert grounded.shape == "bedrock_retrieve_and_generate" and grounded.text == v.TEXT
    assert _spans(grounded) == [(*v.char_span(1), v.CITED[0]), (*v.char_span(3), v.CITED[1])]
    first, second = (c.sources[0] for c in grounded.citations)
    assert (first.kind, first.uri, first.text) == ("document", "s3://kb/doc0.pdf", v.CITED[0])
    assert (second.kind, second.uri) == ("web", v.URLS[1])
    assert ("x-amz-bedrock-kb-chunk-id", "chunk-0") in first.custom_metadata
    assert validate(v.bedrock_response()) == []


def test_bedrock_drift_and_skip() -> None:
    grounded = read(v.bedrock_response(drift=-1))
    assert _spans(grounded) == _spans(read(v.bedrock_response()))
    assert [p.code for p in grounded.problems] == ["offset-drift"]
    broken = v.bedrock_response()
    broken["citations"][0]["generatedResponsePart"]["textResponsePart"]["span"]["end"] = "x"
    skipped = read(broken, errors="skip")
    assert [c.text for c in skipped.citations] == [v.CITED[1]]
    assert [p.code for p in skipped.problems] == ["not-an-integer"]


def test_bedrock_converse_cites_the_wrapped_text() -> None:
    grounded = read(v.bedrock_converse())
    assert grounded.shape == "bedrock_converse" and grounded.text == v.TEXT
    assert _spans(grounded) == [(*v.char_span(1), v.CITED[0]), (*v.char_span(3), v.CITED[1])]
    first, (web, page) = grounded.citations[0].sources, grounded.citations[1].sources
    assert (first[0].document, first[0].text, first[0].details) == (
        "koeln.pdf", "Köln im Sommer", LocationInfo("char", 0, 3, 17))  # fmt: skip
    assert (web.kind, web.uri, web.domain, web.details) == ("web", v.URLS[1], "tokyo.example", None)
    assert page.details == LocationInfo("page", 1, 2, 3)
    assert validate(v.bedrock_converse()) == []
    with pytest.raises(ArgumentValueError, match="whole text blocks"):
        read(v.bedrock_converse(), unit="utf16")


# --- The CLI works on every vendor unchanged ------------------------------------------


def _search_response() -> dict[str, Any]:
    from tests.test_google_search import search_response

    return search_response()


VENDORS: dict[str, Any] = {
    "search": _search_response,
    "openai": v.openai_response, "chat": v.openai_chat_completion,
    "anthropic": v.anthropic_message, "cohere": v.cohere_chat, "bedrock": v.bedrock_response,
    "converse": v.bedrock_converse,
}  # fmt: skip


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_cli_render_validate_inspect_html(
    vendor: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{vendor}.json"
    path.write_text(json.dumps(VENDORS[vendor](), ensure_ascii=False), encoding="utf-8")
    grounded = read(VENDORS[vendor]())
    assert main(["render", str(path)]) == 0
    rendered = capsys.readouterr().out
    assert grounded.text is not None
    assert rendered.startswith(render(grounded.text, grounded.citations, "markdown"))
    assert main(["validate", str(path)]) == 0
    capsys.readouterr()
    assert main(["inspect", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary
    assert main(["render", "--style", "html", str(path)]) == 0
    html = capsys.readouterr().out
    assert "<html" in html.lower() and "東京" in html
    from grounding_protos._cli.commands import _SHAPE_WORDS

    assert summary["input"] == _SHAPE_WORDS[grounded.shape]


def test_a_unit_that_is_no_unit_is_an_argument_error() -> None:
    with pytest.raises(ArgumentValueError, match="unit must be"):
        read(v.openai_response(), unit="codepoints")  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="unit must be"):
        validate(v.openai_response(), unit="bytes")  # type: ignore[arg-type]


def test_cli_unit_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "openai16.json"
    path.write_text(json.dumps(v.openai_response("utf16"), ensure_ascii=False), encoding="utf-8")
    assert main(["inspect", "--json", "--unit", "utf16", str(path)]) == 0
    spans = json.loads(capsys.readouterr().out)["spans"]
    assert [s["chars"] for s in spans] == [list(v.char_span(1)), [v.char_span(2)[1]] * 2,
                                           list(v.char_span(3))]  # fmt: skip
    assert main(["validate", "--unit", "utf16", str(path)]) == 0
    capsys.readouterr()
    anthropic = tmp_path / "anthropic.json"
    anthropic.write_text(json.dumps(v.anthropic_message()), encoding="utf-8")
    assert main(["render", "--unit", "char", str(anthropic)]) == 2
    assert "does not apply to anthropic_message" in capsys.readouterr().err


# --- Sources cited again ----------------------------------------------------------------


def _cohere_sources(r: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [c["sources"] for c in r["message"]["citations"][:2]]


def _anthropic_sources(r: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [r["content"][2]["citations"], r["content"][4]["citations"]]


def _bedrock_sources(r: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [c["retrievedReferences"] for c in r["citations"]]


@pytest.mark.parametrize(
    ("make", "sources", "field"),
    [
        (v.cohere_chat, _cohere_sources, ("document", "title")),
        (v.anthropic_message, _anthropic_sources, ("document_title",)),
        (v.bedrock_response, _bedrock_sources, ("content", "text")),
    ],
    ids=["cohere", "anthropic", "bedrock"],
)
def test_a_source_cited_again_is_one_source_and_a_changed_one_is_another(
    make: Any, sources: Any, field: tuple[str, ...]
) -> None:
    """The same source in two citations (separate JSON objects) is one source; a copy that
    differs in one field is a source of its own, with that field."""
    response = make()
    first, second = sources(response)
    original = read(make())
    again = json.loads(json.dumps(first[0]))
    changed = json.loads(json.dumps(first[0]))
    target = changed
    for key in field[:-1]:
        target = target[key]
    target[field[-1]] = "Ein anderer Titel"
    second.extend([again, changed])
    grounded = read(response)
    cited = grounded.citations[-1].sources
    assert cited[:-2] == original.citations[-1].sources
    assert cited[-2] is grounded.citations[0].sources[0]  # one source, one number
    assert cited[-1] != cited[-2]
    assert len(grounded.sources) == len(original.sources) + 1
    assert "Ein anderer Titel" in (cited[-1].title, cited[-1].text)
