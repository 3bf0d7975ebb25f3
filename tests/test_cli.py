"""The ``grounding-protos`` command line: every command and format, stdin and files,
every exit status, and batches.

Most tests call ``main(argv)`` in-process (fast); a few run ``python -m
grounding_protos`` to check what a user sees end to end (exit status, stderr without
a traceback, stdin). Expected outputs come from the library functions the commands
stand on (``json_format``, ``citations.read``/``render``, ``validate``), never from
the CLI itself.
"""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format, text_format

from grounding_protos import message_class, message_types, validate
from grounding_protos.citations import ListStyle, read, render, search_notes, source_list
from grounding_protos.cli import main
from grounding_protos.discoveryengine_v1 import Answer

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ANSWER = EXAMPLES / "discoveryengine_answer.json"
GEMINI = EXAMPLES / "gemini_response.json"
CITATION = EXAMPLES / "citation_metadata.json"
BROKEN = EXAMPLES / "broken_answer.json"
GOOD = [ANSWER, GEMINI, CITATION]

HOSTILE = {
    "answerText": "Köln <b>bold</b> & more.",
    "citations": [
        {"endIndex": "5", "sources": [{"referenceId": "0"}, {"referenceId": "1"}]},
    ],
    "references": [
        {"structuredDocumentInfo": {"title": "<script>alert(1)</script>",
                                    "uri": "javascript:alert(1)"}},
        {"structuredDocumentInfo": {"title": "\" onmouseover=\"alert(2)",
                                    "uri": "https://ok.example/?a=1&b=<2>"}},
    ],
}  # fmt: skip


@dataclass
class Run:
    code: int
    out: bytes
    err: str

    @property
    def text(self) -> str:
        return self.out.decode("utf-8")


class _FakeTTY(io.TextIOWrapper):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def cli(
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    """``cli(*argv, stdin=b"...")`` runs ``main`` in-process and returns a :class:`Run`."""

    def run(*argv: str | Path, stdin: bytes | None = None) -> Run:
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        code = main([str(a) for a in argv])
        captured = capsysbinary.readouterr()
        return Run(code, captured.out, captured.err.decode("utf-8"))

    yield run


def one_error_line(run: Run) -> str:
    """The run's stderr: exactly one line, our prefix, no traceback."""
    lines = run.err.splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("grounding-protos"), run.err
    assert "Traceback" not in run.err
    return lines[0]


def answer_message() -> Answer:
    return json_format.Parse(ANSWER.read_text(encoding="utf-8"), Answer())


def jsonl(*docs: object) -> bytes:
    return b"".join(
        (d if isinstance(d, bytes) else json.dumps(d, ensure_ascii=False).encode()) + b"\n"
        for d in docs
    )


def records(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


def start_tags(html: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    """Every start tag of ``html`` with its attributes, as a browser's parser reads them."""
    from html.parser import HTMLParser

    tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            tags.append((tag, attrs))

    Collect().feed(html)
    return tags


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


# --- types ------------------------------------------------------------------------------


def test_types_lists_every_type_with_a_short_name_that_resolves_to_it(cli: Any) -> None:
    run = cli("types")
    assert run.code == 0 and run.err == ""
    rows = [line.split() for line in run.text.splitlines()]
    assert [full for _, full in rows] == list(message_types())
    for short, full in rows:
        assert message_class(short).DESCRIPTOR.full_name == full
        assert len(short) <= len(full)
    shorts = dict((full, short) for short, full in rows)
    assert shorts["google.cloud.discoveryengine.v1.Answer"] == "Answer"
    # Answer.CitationSource exists too, so the short name needs its package
    assert shorts["google.ai.generativelanguage.v1beta3.CitationSource"] == "v1beta3.CitationSource"


def test_types_json(cli: Any) -> None:
    run = cli("types", "--json")
    entries = json.loads(run.out)
    assert [e["name"] for e in entries] == list(message_types())
    assert all(message_class(e["short"]).DESCRIPTOR.full_name == e["name"] for e in entries)


# --- decode / encode ----------------------------------------------------------------------


def test_encode_then_decode_round_trips_through_files(cli: Any, tmp_path: Path) -> None:
    wire = tmp_path / "answer.bin"
    run = cli("encode", "--type", "Answer", ANSWER, "-o", wire)
    assert (run.code, run.out, run.err) == (0, b"", "")
    assert wire.read_bytes() == answer_message().SerializeToString(deterministic=True)
    run = cli("decode", "--type", "google.cloud.discoveryengine.v1.Answer", wire)
    assert run.code == 0
    assert json.loads(run.out) == json_format.MessageToDict(answer_message())
    assert "東京" in run.text  # non-ASCII kept as it is, not \u escapes


def test_decode_reads_stdin_and_base64(cli: Any) -> None:
    data = answer_message().SerializeToString()
    expected = json_format.MessageToDict(answer_message())
    assert json.loads(cli("decode", "--type", "Answer", stdin=data).out) == expected
    assert json.loads(cli("decode", "--type", "Answer", "-", stdin=data).out) == expected
    b64 = base64.b64encode(data)
    run = cli("decode", "--type", "Answer", "--from", "base64", stdin=b64[:50] + b"\n" + b64[50:])
    assert json.loads(run.out) == expected


def test_decode_options(cli: Any) -> None:
    data = answer_message().SerializeToString()
    run = cli("decode", "--type", "Answer", "--compact", "--proto-names", stdin=data)
    assert run.out.count(b"\n") == 1
    assert json.loads(run.out) == json_format.MessageToDict(
        answer_message(), preserving_proto_field_name=True
    )


def test_decode_junk_bytes_is_one_clear_line(cli: Any) -> None:
    run = cli("decode", "--type", "Answer", stdin=b"\x1a\x09hi")
    assert run.code == 2 and run.out == b""
    line = one_error_line(run)
    assert "<stdin>: cannot parse 4 bytes as google.cloud.discoveryengine.v1.Answer" in line
    assert "Answer.answer_text at byte 2" in line
    run = cli("decode", "--type", "Answer", stdin=b"\xff\xfe\x00junk\x07")
    assert run.code == 2
    assert "cannot parse 8 bytes" in one_error_line(run)


def test_wrong_type_names_suggest_and_list(cli: Any) -> None:
    run = cli("decode", "--type", "Answr", stdin=b"")
    assert run.code == 2
    line = one_error_line(run)
    assert "unknown message type 'Answr'" in line
    assert "did you mean google.cloud.discoveryengine.v1.Answer" in line
    run = cli("render", "--type", "ChunkInfo", ANSWER)
    assert run.code == 2
    assert "ambiguous" in one_error_line(run)


def test_wrong_type_for_the_data(cli: Any) -> None:
    # A JSON Answer read as a Segment: fields it does not have.
    run = cli("convert", "--type", "Segment", "--from", "json", "--to", "binary", ANSWER)
    assert run.code == 2
    assert "google.cloud.dialogflow.v2beta1.Segment" in one_error_line(run)


def test_binary_output_is_refused_on_a_terminal(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", _FakeTTY(io.BytesIO()))
    run = cli("encode", "--type", "Answer", ANSWER)
    assert run.code == 2
    assert "refusing to write binary data to a terminal" in one_error_line(run)
    run = cli("encode", "--type", "Answer", "--to", "base64", ANSWER)
    assert run.code == 0


# --- convert ------------------------------------------------------------------------------

SINGLE = ["json", "binary", "text", "base64", "jsonl"]


def as_format(message: Answer, fmt: str) -> bytes:
    if fmt == "json":
        return json_format.MessageToJson(message).encode()
    if fmt == "jsonl":
        return json.dumps(json_format.MessageToDict(message)).encode() + b"\n"
    if fmt == "binary":
        return message.SerializeToString()
    if fmt == "base64":
        return base64.b64encode(message.SerializeToString())
    return text_format.MessageToString(message, as_utf8=True).encode()


def parse_format(data: bytes, fmt: str) -> Answer:
    if fmt in ("json", "jsonl"):
        assert fmt == "json" or data.count(b"\n") == 1
        return json_format.Parse(data, Answer())
    if fmt == "binary":
        return Answer.FromString(data)
    if fmt == "base64":
        return Answer.FromString(base64.b64decode(data))
    return text_format.Parse(data.decode(), Answer())


def test_convert_jsonl_gives_one_line_per_message(cli: Any) -> None:
    message = answer_message()
    data = as_format(message, "jsonl") * 3
    for target in ("jsonl", "base64", "text"):
        run = cli("convert", "--type", "Answer", "--from", "jsonl", "--to", target, stdin=data)
        lines = run.out.splitlines(keepends=True)
        assert run.code == 0 and len(lines) == 3
        assert all(parse_format(line, target) == message for line in lines)


# --from jsonl is a batch: one line out per line in, so only line-based targets.
PAIRS = [(s, t) for s in SINGLE for t in SINGLE if s != "jsonl" or t in ("jsonl", "base64", "text")]


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_convert_between_every_pair_of_formats(
    cli: Any, tmp_path: Path, source: str, target: str
) -> None:
    message = answer_message()
    path = tmp_path / f"in.{source}"
    path.write_bytes(as_format(message, source))
    run = cli("convert", "--type", "Answer", "--from", source, "--to", target, path)
    assert run.code == 0, run.err
    assert parse_format(run.out, target) == message


def test_convert_text_format_errors(cli: Any) -> None:
    run = cli("convert", "--type", "Answer", "--from", "text", "--to", "json",
              stdin=b"answer_text: 'x'\nno_such_field: 1\n")  # fmt: skip
    assert run.code == 2
    assert "invalid text format for google.cloud.discoveryengine.v1.Answer" in one_error_line(run)


def test_convert_bad_base64(cli: Any) -> None:
    run = cli("convert", "--type", "Answer", "--from", "base64", "--to", "json", stdin=b"@@@@")
    assert run.code == 2
    assert "invalid base64" in one_error_line(run)


def test_convert_jsonl_needs_a_line_based_target(cli: Any) -> None:
    run = cli("convert", "--type", "Answer", "--from", "jsonl", "--to", "binary", stdin=b"{}\n")
    assert run.code == 2
    assert "--to jsonl, base64 or text" in one_error_line(run)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_convert_jsonl_batch_with_a_bad_line(cli: Any, tmp_path: Path, workers: str) -> None:
    good = [Answer(answer_text=f"Grüße {i}") for i in range(7)]
    lines = [json.dumps(json_format.MessageToDict(m)).encode() for m in good]
    lines.insert(3, b'{"answerText": 5}')  # line 4: a number for a string
    lines.insert(5, b"")  # a blank line: skipped, still counted
    errors = tmp_path / "errors.jsonl"
    argv = ["convert", "--type", "Answer", "--from", "jsonl", "--to", "base64"]
    run = cli(*argv, "--workers", workers, "--failed-lines", errors,
              stdin=b"\n".join(lines) + b"\n")  # fmt: skip
    assert run.code == 1
    assert [Answer.FromString(base64.b64decode(x)) for x in run.out.splitlines()] == good
    assert run.err.splitlines()[0].startswith("line 4: invalid JSON for ")
    assert run.err.splitlines()[-1] == "grounding-protos: 1 of 8 lines failed"
    [record] = records(errors.read_bytes())
    assert record["line"] == 4 and record["ok"] is False
    assert record["input"] == '{"answerText": 5}'
    assert "answerText" in record["error"]


# --- render -------------------------------------------------------------------------------


def expected_render(path: Path, style: ListStyle = "markdown") -> str:
    grounded = read(load(path))
    assert grounded.text is not None
    body = render(grounded.text, grounded.citations, style)
    sources = source_list(
        grounded.text,
        grounded.citations,
        style,
        uncited=grounded.uncited_sources,
    )
    notes = search_notes(grounded.search, style)
    # one blank line between the text, the list and the queries; the text kept as it is
    out = body + ("" if body.endswith("\n") else "\n") + "\n" + sources + "\n"
    return out + (f"\n{notes}\n" if notes else "")


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_render_markdown_by_default(cli: Any, path: Path) -> None:
    run = cli("render", path)
    assert (run.code, run.err) == (0, "")
    assert run.text == expected_render(path)


def test_render_stdin_equals_file_and_plain_style(cli: Any) -> None:
    from_stdin = cli("render", stdin=GEMINI.read_bytes())
    assert from_stdin.text == cli("render", GEMINI).text
    assert cli("render", "--style", "plain", "-", stdin=GEMINI.read_bytes()).text == (
        expected_render(GEMINI, "plain")
    )


def test_render_gemini_places_markers_on_the_second_part(cli: Any) -> None:
    out = cli("render", GEMINI).text
    assert "が担当しました。[3] Η αίθουσα" in out  # noqa: RUF001 - Greek Eta
    assert "κόσμου 🎻.[2][3] Der Bau kostete rund 866 Mio. €.[2][4]" in out


def test_render_html_is_one_self_contained_page(cli: Any, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    run = cli("render", GEMINI, "--style", "html", "-o", page, "--title", "Elbphilharmonie")
    assert (run.code, run.out, run.err) == (0, b"", "")
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert '<meta charset="utf-8">' in html
    assert "default-src 'none'" in html
    assert "<title>Elbphilharmonie</title>" in html
    assert "<script" not in html and "src=" not in html and "@import" not in html
    assert html.count('<sup class="gp-cite">') == 5
    assert html.count("<mark ") == 5
    assert '<li id="gp-source-4">' in html


def test_render_escapes_hostile_input(cli: Any) -> None:
    data = json.dumps(HOSTILE).encode()
    html = cli("render", "--style", "html", "--title", "<i>t</i>", stdin=data).text
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<title>&lt;i&gt;t&lt;/i&gt;</title>" in html
    assert 'href="javascript:' not in html
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; more." in html
    assert 'title="&quot; onmouseover=&quot;alert(2)"' in html
    assert "onmouseover" not in {name for tag in start_tags(html) for name, _ in tag[1]}
    markdown = cli("render", stdin=data).text
    assert "](<javascript:" not in markdown


def test_render_broken_answer_fails_naming_the_path(cli: Any) -> None:
    run = cli("render", BROKEN)
    assert run.code == 1 and run.out == b""
    line = one_error_line(run)
    assert "broken_answer.json: citations[0].end_index: byte offset 34 splits 'Ü'" in line
    assert "grounding-protos validate" in line


def test_render_snap_and_clamp(cli: Any) -> None:
    doc = {"answerText": "Köln", "citations": [
        {"endIndex": "2", "sources": [{"referenceId": "0"}]},
        {"startIndex": "1", "endIndex": "99", "sources": [{"referenceId": "0"}]},
    ], "references": [{"structuredDocumentInfo": {"title": "K"}}]}  # fmt: skip
    data = json.dumps(doc).encode()
    assert cli("render", stdin=data).code == 1
    assert cli("render", "--snap", "outward", stdin=data).code == 1  # 99 is still out of range
    run = cli("render", "--snap", "outward", "--clamp", stdin=data)
    assert run.text.splitlines()[0] == "Kö[1]ln[1]"


def test_render_grounding_metadata_needs_text(cli: Any, tmp_path: Path) -> None:
    meta = load(GEMINI)["candidates"][0]["groundingMetadata"]
    meta["groundingSupports"] = meta["groundingSupports"][:2]  # the part-0 ones
    data = json.dumps(meta).encode()
    run = cli("render", stdin=data)
    assert run.code == 2
    assert "--text FILE" in one_error_line(run)
    text = tmp_path / "text.txt"
    text.write_text(load(GEMINI)["candidates"][0]["content"]["parts"][0]["text"], "utf-8")
    run = cli("render", "--text", text, stdin=data)
    assert run.code == 0, run.err
    assert run.text.startswith(
        "Die Elbphilharmonie in Hamburg wurde am 11. Januar 2017 eröffnet.[1][2]"
    )


def test_text_and_input_cannot_both_be_stdin(cli: Any) -> None:
    run = cli("render", "--text", "-", stdin=b"{}")
    assert run.code == 2
    assert "cannot both be stdin" in one_error_line(run)


def test_render_candidate_option(cli: Any) -> None:
    doc = load(GEMINI)
    doc["candidates"].append({"content": {"parts": [{"text": "zweiter"}]}})
    data = json.dumps(doc).encode()
    assert cli("render", "--candidate", "1", stdin=data).text == "zweiter\n"
    run = cli("render", "--candidate", "2", stdin=data)
    assert run.code == 2
    assert "out of range" in one_error_line(run)


def test_render_forced_type_from_json_binary_text(cli: Any, tmp_path: Path) -> None:
    expected = expected_render(ANSWER)
    assert cli("render", "--type", "Answer", ANSWER).text == expected
    wire = answer_message().SerializeToString()
    assert cli("render", "--type", "Answer", "--from", "binary", stdin=wire).text == expected
    b64 = base64.b64encode(wire)
    assert cli("render", "--type", "Answer", "--from", "base64", stdin=b64).text == expected
    text = text_format.MessageToString(answer_message(), as_utf8=True).encode()
    assert cli("render", "--type", "Answer", "--from", "text", stdin=text).text == expected
    run = cli("render", "--from", "binary", stdin=wire)
    assert run.code == 2
    assert "--from binary needs --type" in one_error_line(run)


def test_render_type_that_holds_no_citations(cli: Any) -> None:
    run = cli("render", "--type", "Segment", stdin=b'{"text": "x"}')
    assert run.code == 2
    assert "cannot read citations from a google.cloud.dialogflow.v2beta1.Segment" in (
        one_error_line(run)
    )


def test_output_file_is_written_and_never_the_input(cli: Any, tmp_path: Path) -> None:
    copy = tmp_path / "answer.json"
    copy.write_bytes(ANSWER.read_bytes())
    out = tmp_path / "out.md"
    out.write_text("old contents")
    assert cli("render", copy, "-o", out).code == 0
    assert out.read_text(encoding="utf-8") == expected_render(ANSWER)
    run = cli("render", copy, "-o", copy)
    assert run.code == 2
    assert "is also an input" in one_error_line(run)
    assert copy.read_bytes() == ANSWER.read_bytes()
    run = cli("render", copy, "-o", tmp_path / "no" / "such" / "dir.md")
    assert run.code == 2
    assert "cannot write" in one_error_line(run)


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["render", "validate", "inspect"])
def test_broken_json_and_bad_files(cli: Any, command: str, tmp_path: Path) -> None:
    run = cli(command, stdin=b'{"answerText": "x",\n  "citations": [}\n')
    assert run.code == 2
    assert one_error_line(run) == (
        "grounding-protos: error: <stdin>: invalid JSON: Expecting value at line 2 column 17"
    )
    run = cli(command, stdin=b"[1, 2]")  # a JSON array is a recorded stream of responses
    assert "event 1: expected a JSON object (a generateContent response), got a number" in (
        one_error_line(run)
    )
    run = cli(command, stdin=b'{"answerText": "\xff"}')
    assert run.code == 2
    assert "not UTF-8 text: invalid start byte at byte 16 (0xFF)" in one_error_line(run)
    run = cli(command, tmp_path / "missing.json")
    assert run.code == 2
    assert "cannot read" in one_error_line(run) and "No such file" in run.err
    run = cli(command, tmp_path)
    assert run.code == 2
    assert "cannot read" in one_error_line(run)


def test_json_with_a_byte_order_mark(cli: Any) -> None:
    assert cli("render", stdin=b"\xef\xbb\xbf" + ANSWER.read_bytes()).text == (
        expected_render(ANSWER)
    )


@pytest.mark.parametrize(
    "argv",
    [[], ["nope"], ["render", "--style", "fancy"], ["decode"], ["render", "--workers", "x"],
     ["convert", "--type", "Answer", "--from", "json"], ["render", "a", "b"]],
)  # fmt: skip
def test_usage_errors_are_one_line_with_status_2(cli: Any, argv: list[str]) -> None:
    run = cli(*argv)
    assert run.code == 2 and run.out == b""
    line = one_error_line(run)
    assert "error:" in line and "--help" in line


def test_help_and_version(cli: Any) -> None:
    run = cli("--help")
    assert run.code == 0
    for command in ["types", "decode", "encode", "convert", "render", "validate", "inspect"]:
        assert command in run.text
    assert cli("render", "--help").code == 0
    run = cli("--version")
    assert run.code == 0 and run.text.startswith("grounding-protos ")


def test_the_help_has_runnable_examples_and_no_repository_path(cli: Any) -> None:
    """An installed package has no docs/: the help's examples are its own, and each
    one parses as written."""
    import shlex

    from grounding_protos._cli.main import EXAMPLES, build_parser

    commands = {line.split()[1] for line, _ in EXAMPLES}
    assert commands == {"types", "decode", "encode", "convert", "render", "validate", "inspect"}
    text = cli("--help").text
    assert all(line in text for line, _ in EXAMPLES)  # the top level: every example
    for command in commands:  # a command: its own examples, not the others'
        text = cli(command, "--help").text
        assert "docs/" not in text and ".md" not in text
        for line, _ in EXAMPLES:
            assert (line in text) == (line.split()[1] == command), (command, line)
    for line, _ in EXAMPLES:
        words = shlex.split(line)
        assert words[0] == "grounding-protos"
        build_parser().parse_args(words[1:])  # a usage error exits


def test_failed_lines_option_needs_a_batch(cli: Any, tmp_path: Path) -> None:
    run = cli("validate", ANSWER, "--failed-lines", tmp_path / "e.jsonl")
    assert run.code == 2
    assert "--failed-lines is for batches" in one_error_line(run)


def test_debug_raises_instead(cli: Any) -> None:
    with pytest.raises(Exception, match="cannot parse 4 bytes"):
        cli("--debug", "decode", "--type", "Answer", stdin=b"\x1a\x09hi")
    with pytest.raises(Exception, match="cannot parse 4 bytes"):
        cli("decode", "--debug", "--type", "Answer", stdin=b"\x1a\x09hi")


# --- validate ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_validate_clean_examples(cli: Any, path: Path) -> None:
    run = cli("validate", path)
    assert (run.code, run.out, run.err) == (0, b"", "")
    assert json.loads(cli("validate", "--json", path).out) == []


def test_validate_reports_every_problem_of_the_broken_example(cli: Any) -> None:
    run = cli("validate", BROKEN)
    assert run.code == 1 and run.err == ""
    lines = run.text.splitlines()
    expected = validate(load(BROKEN))
    assert lines == [str(p) for p in expected]
    by_code = {p.code: p.path for p in expected}
    assert by_code == {
        "offset-splits-character": "citations[0].end_index",
        "reference-id-out-of-range": "citations[1].sources[0].reference_id",
        "score-out-of-range": "grounding_supports[0].grounding_score",
        "offset-inverted": "grounding_supports[1].end_index",
    }
    for line, problem in zip(lines, expected, strict=True):
        assert line.startswith(problem.path + ": ")
    as_json = json.loads(cli("validate", "--json", BROKEN).out)
    assert as_json == [{"code": p.code, "message": p.message, "path": p.path} for p in expected]


def test_validate_unrecognized_json_is_a_problem(cli: Any) -> None:
    run = cli("validate", stdin=b'{"hello": "world"}')
    assert run.code == 1
    assert "[unrecognized-input]" in run.text


def test_validate_with_type_and_text(cli: Any, tmp_path: Path) -> None:
    meta = load(GEMINI)["candidates"][0]["groundingMetadata"]
    del meta["groundingSupports"][2:]
    del meta["retrievalMetadata"]  # Gemini's, not in the Dialogflow schema
    for support in meta["groundingSupports"]:
        support.pop("confidenceScores")  # not in the Dialogflow schema
    data = json.dumps(meta).encode()
    run = cli("validate", "--type", "GroundingMetadata", stdin=data)
    assert run.code == 1
    assert "[text-missing]" in run.text
    text = tmp_path / "t.txt"
    text.write_text(load(GEMINI)["candidates"][0]["content"]["parts"][0]["text"], "utf-8")
    run = cli("validate", "--type", "GroundingMetadata", "--text", text, stdin=data)
    assert (run.code, run.text) == (0, "")


# --- inspect --------------------------------------------------------------------------------


def test_inspect_summary(cli: Any) -> None:
    run = cli("inspect", GEMINI)
    assert run.code == 0, run.err
    out = run.text
    assert "input:      Gemini generateContent response" in out
    assert "citations:  5 grounding supports on 5 distinct spans" in out
    assert "problems:   none" in out
    assert "[2][3]" in out and "Η αίθουσα θεωρείται" in out  # noqa: RUF001 - Greek Eta
    summary = json.loads(cli("inspect", "--json", GEMINI).out)
    grounded = read(load(GEMINI))
    assert grounded.text is not None
    assert summary["text"] == {
        "characters": len(grounded.text),
        "bytes": len(grounded.text.encode()),
        "utf16_units": len(grounded.text.encode("utf-16-le")) // 2,
    }
    covered: set[int] = set()
    for c in grounded.citations:
        assert c.char_start is not None and c.char_end is not None
        covered.update(range(c.char_start, c.char_end))
    assert summary["cited"]["characters"] == len(covered)
    assert [s["label"] for s in summary["sources"]] == [
        "elbphilharmonie.de", "wikipedia.org", "nagata.co.jp", "ndr.de",
    ]  # fmt: skip
    assert [s["sources"] for s in summary["spans"]] == [[1, 2], [2], [3], [2, 3], [2, 4]]
    assert summary["problems"] == []


def test_inspect_merges_citations_and_supports_on_one_span(cli: Any) -> None:
    summary = json.loads(cli("inspect", "--json", ANSWER).out)
    assert summary["citations"] == {
        "total": 6,
        "citation": 3,
        "support": 3,
        "marker": 0,
        "spans": 3,
    }
    assert summary["spans"][2]["sources"] == [2, 3]


def test_inspect_broken_answer_still_summarizes(cli: Any) -> None:
    run = cli("inspect", BROKEN)
    assert run.code == 1
    assert "citations:  not readable: citations[0].end_index" in run.text
    assert "problems:   4" in run.text
    assert "grounding_supports[1].end_index: start_index 81 is after end_index 60" in run.text


# --- batches ---------------------------------------------------------------------------------


def batch_input() -> bytes:
    return jsonl(
        load(GEMINI),
        load(ANSWER),
        b'{"answerText": "truncated',  # line 3: broken JSON
        b"",  # line 4: blank, skipped
        load(BROKEN),  # line 5: readable, but render cannot place its citations
        load(CITATION),
        b"[]",  # line 7: a recorded stream with no response
        load(ANSWER),
    )


@pytest.mark.parametrize("workers", ["1", "2"])
def test_render_batch_keeps_order_and_failed_lines(cli: Any, workers: str) -> None:
    run = cli("render", "--jsonl", "--workers", workers, stdin=batch_input())
    assert run.code == 1
    out = records(run.out)
    assert [r["line"] for r in out] == [1, 2, 3, 5, 6, 7, 8]
    assert [r["ok"] for r in out] == [True, True, False, False, True, False, True]
    assert out[0]["output"] == expected_render(GEMINI)
    assert out[1]["output"] == out[6]["output"] == expected_render(ANSWER)
    assert out[2] == {
        "line": 3, "ok": False, "input": '{"answerText": "truncated',
        "error": "invalid JSON: Unterminated string starting at column 16",
    }  # fmt: skip
    assert out[3]["error"].startswith("citations[0].end_index: byte offset 34 splits")
    assert out[3]["input"] == json.dumps(load(BROKEN), ensure_ascii=False)
    assert out[5]["error"] == "the stream holds no response: 0 events"
    err = run.err.splitlines()
    assert err[0] == "line 3: invalid JSON: Unterminated string starting at column 16"
    assert err[1].startswith("line 5: citations[0].end_index")
    assert err[2] == "line 7: the stream holds no response: 0 events"
    assert err[3] == "grounding-protos: 3 of 7 lines failed"


def test_render_batch_html_fragments_have_ids_per_line(cli: Any) -> None:
    run = cli("render", "--jsonl", "--style", "html", stdin=jsonl(load(GEMINI), load(ANSWER)))
    assert run.code == 0
    first, second = (r["output"] for r in records(run.out))
    assert '<li id="gp-l1-source-1">' in first and 'href="#gp-l1-source-1"' in first
    assert '<li id="gp-l2-source-1">' in second and "<!DOCTYPE" not in second


@pytest.mark.parametrize("workers", ["1", "2"])
def test_validate_batch_with_errors_file(cli: Any, tmp_path: Path, workers: str) -> None:
    errors = tmp_path / "errors.jsonl"
    out = tmp_path / "out.jsonl"
    run = cli("validate", "--jsonl", "--workers", workers, "--failed-lines", errors, "-o", out,
              stdin=batch_input())  # fmt: skip
    assert run.code == 1 and run.out == b""
    kept = records(out.read_bytes())
    assert [r["line"] for r in kept] == [1, 2, 5, 6, 8]
    assert all(r["ok"] for r in kept)
    assert [r["problems"] for r in kept if r["line"] != 5] == [[], [], [], []]
    assert len(kept[2]["problems"]) == 4
    failed = records(errors.read_bytes())
    assert [(r["line"], r["ok"]) for r in failed] == [(3, False), (7, False)]
    assert run.err.splitlines()[-1] == "grounding-protos: 2 of 7 lines failed"


def test_validate_batch_exit_status(cli: Any) -> None:
    assert cli("validate", "--jsonl", stdin=jsonl(load(GEMINI), load(ANSWER))).code == 0
    assert cli("validate", "--jsonl", stdin=jsonl(load(GEMINI), load(BROKEN))).code == 1


def test_inspect_batch(cli: Any) -> None:
    run = cli("inspect", "--jsonl", "--workers", "2", stdin=jsonl(load(GEMINI), load(BROKEN)))
    assert run.code == 1
    first, second = records(run.out)
    assert first["summary"]["citations"]["total"] == 5
    assert "error" in second["summary"] and len(second["summary"]["problems"]) == 4


def test_batch_of_wire_messages_in_base64(cli: Any) -> None:
    wire = base64.b64encode(answer_message().SerializeToString())
    run = cli("render", "--jsonl", "--type", "Answer", "--from", "base64",
              stdin=wire + b"\n!!!\n" + wire + b"\n")  # fmt: skip
    assert run.code == 1
    out = records(run.out)
    assert [r["ok"] for r in out] == [True, False, True]
    assert out[0]["output"] == expected_render(ANSWER)
    run = cli("render", "--jsonl", "--type", "Answer", "--from", "binary", stdin=wire)
    assert run.code == 2
    assert "cannot be split into lines" in one_error_line(run)
    run = cli("render", "--jsonl", "--from", "base64", stdin=wire)
    assert run.code == 2 and run.out == b""
    assert "--from base64 needs --type" in one_error_line(run)


def test_many_failures_are_reported_briefly_but_all_kept(cli: Any) -> None:
    run = cli("validate", "--jsonl", stdin=b"x\n" * 50)
    assert run.code == 1
    assert len(records(run.out)) == 50
    err = run.err.splitlines()
    assert len(err) == 22 and err[20].startswith("more lines failed")
    assert err[-1] == "grounding-protos: 50 of 50 lines failed"


def test_progress_bar_only_on_a_terminal(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(batch_input())
    run = cli("validate", "--jsonl", path)
    assert "\r" not in run.err and "lines/s" not in run.err
    tty = _FakeTTY(io.BytesIO(), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stderr", tty)
    code = main(["validate", "--jsonl", str(path)])
    assert code == 1
    shown = tty.buffer.getvalue().decode()  # type: ignore[attr-defined]
    assert "grounding-protos validate  [" in shown and "100%" in shown and "\r\x1b[K" in shown
    assert "line 3: invalid JSON" in shown and "2 failed" in shown


# --- End to end, in a real process -----------------------------------------------------------


def gp(*argv: str | Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "grounding_protos", *map(str, argv)],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=60,
    )


def test_end_to_end_exit_statuses_and_stdin() -> None:
    ok = gp("render", stdin=GEMINI.read_bytes())
    assert ok.returncode == 0 and ok.stderr == b""
    assert ok.stdout.decode() == expected_render(GEMINI)
    problems = gp("validate", BROKEN)
    assert problems.returncode == 1
    assert len(problems.stdout.decode().splitlines()) == 4
    bad = gp("decode", "--type", "Answer", stdin=b"\x1a\x09hi\xff")
    assert bad.returncode == 2 and bad.stdout == b""
    assert bad.stderr.decode().count("\n") == 1
    assert bad.stderr.startswith(b"grounding-protos: error: <stdin>: cannot parse 5 bytes")
    debug = gp("--debug", "decode", "--type", "Answer", stdin=b"\x1a\x09hi")
    assert debug.returncode == 1 and b"Traceback" in debug.stderr


def test_end_to_end_batch_with_workers(tmp_path: Path) -> None:
    path = tmp_path / "batch.jsonl"
    path.write_bytes(batch_input())
    run = gp("inspect", "--jsonl", "--workers", "2", path)
    assert run.returncode == 1
    assert [r["line"] for r in records(run.stdout)] == [1, 2, 3, 5, 6, 7, 8]
    assert b"\r" not in run.stderr  # no progress bar: stderr is not a terminal
    assert run.stderr.decode().splitlines() == [
        "line 3: invalid JSON: Unterminated string starting at column 16",
        "line 7: the stream holds no response: 0 events",
        "grounding-protos: 2 of 7 lines failed",
    ]


def test_readme_main_job_command() -> None:
    """The README's main-job command: render a shipped example."""
    run = subprocess.run(
        [sys.executable, "-m", "grounding_protos", "render", "examples/gemini_response.json"],
        cwd=EXAMPLES.parent, capture_output=True, timeout=60, check=True,
    )  # fmt: skip
    out = run.stdout.decode()
    assert out.startswith("Die Elbphilharmonie in Hamburg wurde am 11. Januar 2017 eröffnet.[1][2]")
    assert "- [4] [ndr.de](<https://vertexaisearch.cloud.google.com/" in out


# --- The shipped examples ----------------------------------------------------------------------


def test_examples_are_what_they_claim() -> None:
    gemini = load(GEMINI)
    candidate = gemini["candidates"][0]
    parts = [p["text"] for p in candidate["content"]["parts"]]
    assert len(parts) == 2 and all(any(ord(ch) > 0x7F for ch in p) for p in parts)
    meta = candidate["groundingMetadata"]
    assert meta["webSearchQueries"] and meta["searchEntryPoint"]["renderedContent"]
    assert all("web" in chunk for chunk in meta["groundingChunks"])
    assert any(s["segment"].get("partIndex") == 1 for s in meta["groundingSupports"])
    assert all(s["confidenceScores"] for s in meta["groundingSupports"])
    # every segment's text is what its byte offsets cut from its part
    for support in meta["groundingSupports"]:
        segment = support["segment"]
        data = parts[segment.get("partIndex", 0)].encode()
        start, end = segment.get("startIndex", 0), segment["endIndex"]
        assert data[start:end].decode() == segment["text"]
    cited = load(CITATION)
    assert cited["citationMetadata"]["citationSources"] and cited["content"]["parts"]
    for path in GOOD:
        assert validate(load(path)) == []
    assert len({p.code for p in validate(load(BROKEN))}) == 4


def test_inspect_shows_uncited_sources_search_info_and_kind_fields(cli: Any) -> None:
    body = json.loads(GEMINI.read_text(encoding="utf-8"))
    meta = body["candidates"][0]["groundingMetadata"]
    meta["groundingChunks"].append(
        {"maps": {"placeId": "ChIJ-elbe", "title": "", "uri": "https://maps.example/e"}}
    )
    meta["retrievalQueries"] = ["Elbphilharmonie Akustik"]
    body["candidates"][0]["urlContextMetadata"] = {"urlMetadata": [
        {"retrievedUrl": "https://x.example", "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_ERROR"}
    ]}  # fmt: skip
    run = cli("inspect", "--json", stdin=json.dumps(body).encode())
    summary = json.loads(run.text)
    *cited, uncited = summary["sources"]
    assert all("cited" not in s for s in cited)
    assert uncited == {"number": 5, "label": "place ChIJ-elbe", "kind": "maps", "cited": False,
                       "uri": "https://maps.example/e", "place_id": "ChIJ-elbe"}  # fmt: skip
    assert summary["search"] == {
        "queries": ["Elbphilharmonie Eröffnung", "Elbphilharmonie Akustik 豊田泰久"],
        "retrieval_queries": ["Elbphilharmonie Akustik"],
        "search_suggestions": True,
        "url_statuses": [{"url": "https://x.example", "status": "URL_RETRIEVAL_STATUS_ERROR"}],
    }
    text = cli("inspect", stdin=json.dumps(body).encode()).text
    assert "[5] place ChIJ-elbe — https://maps.example/e (maps, not cited)" in text
    assert "Search Suggestions: present" in text and "URL_RETRIEVAL_STATUS_ERROR" in text
