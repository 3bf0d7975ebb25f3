"""Limits: nesting beyond ``max_recursion_depth``, integers beyond their field's range,
and a 100 MB JSONL batch in bounded memory.

The oracle is ``google.protobuf.json_format`` (and protobuf's own wire parser): where
it refuses an input, ours refuses it too, with :class:`JSONParseError` (a
``json_format.ParseError``) or :class:`WireFormatError` (a ``DecodeError``), and
never lets a ``RecursionError`` out, even where json_format itself does.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message

from grounding_protos import JSONParseError, WireFormatError, codec, from_bytes, validate
from grounding_protos.cli import main
from grounding_protos.dialogflow_v2beta1 import GroundingMetadata, Segment
from grounding_protos.discoveryengine_v1 import Answer
from grounding_protos.generativelanguage_v1beta3 import CitationMetadata
from grounding_protos.well_known import Struct

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DEEP = 10_000  # far beyond max_recursion_depth (100) and Python's stack (1000 frames)
KINDS = ["struct", "list"]


def outcome(call: Callable[[], object]) -> type[BaseException] | None:
    """The exception class ``call`` raises, or ``None``."""
    try:
        call()
    except BaseException as error:  # RecursionError is what we look for
        return type(error)
    return None


# --- Deep Struct / ListValue nesting in JSON ---------------------------------------------


def nested_value(depth: int, kind: str) -> Any:
    """``depth`` levels of ``{"a": …}`` (Struct in Value) or ``[…]`` (ListValue), built
    without recursion."""
    value: Any = 1
    for _ in range(depth):
        value = {"a": value} if kind == "struct" else [value]
    return value


def deep_answer(depth: int, kind: str) -> dict[str, Any]:
    """An Answer whose ``structData`` (a ``google.protobuf.Struct``) nests ``depth`` levels."""
    struct_data = {"a": nested_value(depth, kind)}
    return {"references": [{"chunkInfo": {"documentMetadata": {"structData": struct_data}}}]}


def deep_answer_text(depth: int, kind: str) -> str:
    open_, close = ('{"a":', "}") if kind == "struct" else ("[", "]")
    inner = open_ * depth + "1" + close * depth
    return (
        '{"references": [{"chunkInfo": {"documentMetadata": '
        f'{{"structData": {{"a": {inner}}}}}}}}}]}}'
    )


def test_deep_answer_text_is_the_deep_dict() -> None:
    assert json.loads(deep_answer_text(50, "struct")) == deep_answer(50, "struct")
    assert json.loads(deep_answer_text(50, "list")) == deep_answer(50, "list")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("depth", [120, 500, DEEP])
def test_deep_json_text_is_a_parse_error(kind: str, depth: int) -> None:
    text = deep_answer_text(depth, kind)
    theirs = outcome(lambda: json_format.Parse(text, Answer()))
    if theirs is None:  # protobuf < 7 counts only Struct fields toward the limit
        assert codec.from_json(Answer, text) == json_format.Parse(text, Answer())
        return
    # json_format refuses: with ParseError, or (old runtimes, deep input) RecursionError.
    assert theirs in (json_format.ParseError, RecursionError)
    with pytest.raises(JSONParseError) as caught:
        codec.from_json(Answer, text)
    assert isinstance(caught.value, json_format.ParseError)
    assert "google.cloud.discoveryengine.v1.Answer" in str(caught.value)
    assert outcome(lambda: codec.from_json(Answer, text.encode())) is JSONParseError
    assert outcome(lambda: codec.Codec(Answer).from_json(text)) is JSONParseError


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("depth", [99, 120, 500, DEEP])
def test_deep_dict_is_a_parse_error_naming_the_path(kind: str, depth: int) -> None:
    data = deep_answer(depth, kind)
    theirs = outcome(lambda: json_format.ParseDict(data, Answer()))
    if theirs is None:  # protobuf < 7 counts only Struct fields toward the limit
        assert codec.from_dict(Answer, data) == json_format.ParseDict(data, Answer())
        return
    assert theirs in (json_format.ParseError, RecursionError)
    with pytest.raises(JSONParseError) as caught:
        codec.from_dict(Answer, data)
    assert caught.value.path.startswith("references[0].chunkInfo.documentMetadata.structData")
    if theirs is json_format.ParseError:
        assert "max_recursion_depth is 100" in str(caught.value)
    assert outcome(lambda: codec.from_dict(Answer, data, ignore_unknown_fields=True)) is (
        JSONParseError
    )


@pytest.mark.parametrize("kind", KINDS)
def test_shallow_nesting_is_accepted_as_json_format_does(kind: str) -> None:
    data = deep_answer(40, kind)
    assert codec.from_dict(Answer, data) == json_format.ParseDict(data, Answer())
    assert codec.from_json(Answer, json.dumps(data)) == json_format.ParseDict(data, Answer())


@pytest.mark.parametrize("kind", KINDS)
def test_a_raised_depth_limit_still_never_gives_recursion_error(kind: str) -> None:
    """Past Python's own stack, json_format lets RecursionError out; we do not."""
    data = deep_answer(DEEP, kind)
    limit = 10**6
    theirs = outcome(lambda: json_format.ParseDict(data, Answer(), max_recursion_depth=limit))
    assert theirs in (RecursionError, json_format.ParseError)
    with pytest.raises(JSONParseError):
        codec.from_dict(Answer, data, max_recursion_depth=limit)


@pytest.mark.parametrize("kind", KINDS)
def test_validate_reports_deep_nesting_and_never_raises(kind: str) -> None:
    data = deep_answer(DEEP, kind)
    problems = validate(data)
    assert problems, "a document json_format refuses has problems"
    assert any(p.code == "invalid-json-value" for p in problems)
    message = Answer()
    message.references.add().chunk_info.document_metadata.struct_data.update({"a": 1})
    assert validate(message) == []


def test_validate_survives_deep_values_in_any_shape() -> None:
    deep = nested_value(DEEP, "struct")
    deep_list = nested_value(DEEP, "list")
    documents: list[Any] = [
        {"candidates": [{"content": {"parts": [{"text": "x", "functionCall": deep}]}}]},
        {"candidates": [{"groundingMetadata": {"groundingSupports": deep_list}}]},
        {"answerText": "x", "citations": [{"sources": deep_list}]},
        {"citationSources": [deep]},
        {"groundingSupports": [{"segment": deep}]},
    ]
    for document in documents:
        assert outcome(partial(validate, document)) is None


# --- Deep nesting in wire bytes ----------------------------------------------------------


def _delimited(number: int, payload: bytes) -> bytes:
    """A length-delimited field: tag, varint length, payload."""
    size, length = len(payload), bytearray()
    while True:
        byte, size = size & 0x7F, size >> 7
        length.append(byte | (0x80 if size else 0))
        if not size:
            break
    return bytes([number << 3 | 2]) + bytes(length) + payload


def deep_struct_bytes(depth: int, kind: str) -> bytes:
    """Wire bytes of a Struct nesting ``depth`` Struct-in-Value or ListValue levels."""
    value = b"\x11" + bytes(8)  # Value.number_value (field 2, a double) = 0.0
    for _ in range(depth):
        if kind == "struct":  # Value.struct_value (5) = Struct{fields: {"a": value}}
            value = _delimited(5, _delimited(1, _delimited(1, b"a") + _delimited(2, value)))
        else:  # Value.list_value (6) = ListValue{values: [value]}
            value = _delimited(6, _delimited(1, value))
    return _delimited(1, _delimited(1, b"a") + _delimited(2, value))


def in_answer(struct_bytes: bytes) -> bytes:
    """``struct_bytes`` as the structData of ``references[0].chunkInfo.documentMetadata``."""
    fields = Answer.DESCRIPTOR.fields_by_name
    reference = Answer.Reference.DESCRIPTOR.fields_by_name
    chunk = Answer.Reference.ChunkInfo.DESCRIPTOR.fields_by_name
    metadata = Answer.Reference.ChunkInfo.DocumentMetadata.DESCRIPTOR.fields_by_name
    inner = _delimited(metadata["struct_data"].number, struct_bytes)
    inner = _delimited(chunk["document_metadata"].number, inner)
    inner = _delimited(reference["chunk_info"].number, inner)
    return _delimited(fields["references"].number, inner)


def test_shallow_wire_nesting_parses_as_protobuf_does() -> None:
    for kind in KINDS:
        data = in_answer(deep_struct_bytes(10, kind))
        assert from_bytes(Answer, data) == Answer.FromString(data)
        assert codec.to_dict(from_bytes(Answer, data)) == json_format.MessageToDict(
            Answer.FromString(data)
        )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("depth", [200, DEEP])
def test_deep_wire_bytes_are_a_wire_format_error(kind: str, depth: int) -> None:
    struct_bytes = deep_struct_bytes(depth, kind)
    for cls, data in ((Struct, struct_bytes), (Answer, in_answer(struct_bytes))):
        assert outcome(partial(cls.FromString, data)) is not None
        with pytest.raises(WireFormatError) as caught:
            from_bytes(cls, data)
        assert isinstance(caught.value, DecodeError)
        assert cls.DESCRIPTOR.full_name in str(caught.value)


def test_deep_lines_of_a_batch_become_error_records(
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    good = json.dumps({"answerText": "Hi", "citations": [{"endIndex": "2"}]})
    lines = [good, deep_answer_text(DEEP, "struct"), '{"a": ' + "[" * DEEP + "]" * DEEP + "}", good]
    data = ("\n".join(lines) + "\n").encode()
    for argv in (
        ["validate", "--jsonl"],
        ["render", "--jsonl"],
        ["validate", "--jsonl", "--type", "Answer"],
    ):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        code = main(argv)
        captured = capsysbinary.readouterr()
        records = [json.loads(line) for line in captured.out.splitlines()]
        assert code == 1, argv
        assert [(r["line"], r["ok"]) for r in records] == [
            (1, True),
            (2, False),
            (3, False),
            (4, True),
        ], argv
        assert b"Traceback" not in captured.err and b"RecursionError" not in captured.err


# --- Offsets beyond their integer type ---------------------------------------------------

INT32_OUT = [2**31, -(2**31) - 1, str(2**31), 1e10, 2**63, str(2**64)]
INT64_OUT = [2**63, -(2**63) - 1, str(2**63), str(2**64), 1e20]

RANGE_CASES = [
    *[(Segment, {"startIndex": v}, "startIndex") for v in INT32_OUT],
    *[(Segment, {"endIndex": v}, "endIndex") for v in INT32_OUT],
    (GroundingMetadata, {"groundingSupports": [{"segment": {"endIndex": 2**31}}]},
     "groundingSupports[0].segment.endIndex"),
    (GroundingMetadata, {"groundingSupports": [{"groundingChunkIndices": [0, 2**31]}]},
     "groundingSupports[0].groundingChunkIndices[1]"),
    (CitationMetadata, {"citationSources": [{"startIndex": -(2**31) - 1}]},
     "citationSources[0].startIndex"),
    *[(Answer, {"citations": [{"endIndex": v}]}, "citations[0].endIndex") for v in INT64_OUT],
    (Answer, {"groundingSupports": [{"startIndex": str(2**63)}]},
     "groundingSupports[0].startIndex"),
]  # fmt: skip


@pytest.mark.parametrize(("cls", "data", "path"), RANGE_CASES)
def test_offsets_beyond_their_range_are_refused_as_json_format_does(
    cls: type[Message], data: dict[str, Any], path: str
) -> None:
    with pytest.raises(json_format.ParseError) as theirs:
        json_format.ParseDict(data, cls())
    parsers: list[Callable[[], Message]] = [
        lambda: codec.from_dict(cls, data),
        lambda: codec.from_json(cls, json.dumps(data)),
    ]
    for parse in parsers:
        with pytest.raises(JSONParseError) as ours:
            parse()
        assert ours.value.path == path
        assert f" at {path}: Value out of range" in str(ours.value)
        # the same complaint as json_format's, which names the value
        problem = str(ours.value).rpartition(": ")[2]
        assert problem in str(theirs.value)


@pytest.mark.parametrize(
    ("cls", "field", "top"),
    [(Segment, "startIndex", 2**31 - 1), (Segment, "endIndex", -(2**31)),
     (Answer.Citation, "endIndex", 2**63 - 1), (Answer.Citation, "startIndex", -(2**63))],
)  # fmt: skip
def test_the_range_limits_themselves_are_accepted(cls: type[Message], field: str, top: int) -> None:
    for value in (top, str(top)):
        data = {field: value}
        assert codec.from_dict(cls, data) == json_format.ParseDict(data, cls())


def test_validate_and_the_cli_report_offsets_beyond_int32(
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    response = {
        "candidates": [{
            "content": {"parts": [{"text": "hello"}]},
            "groundingMetadata": {
                "groundingChunks": [{"web": {"uri": "https://a.example"}}],
                "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 2**31},
                                       "groundingChunkIndices": [0]}],
            },
        }]
    }  # fmt: skip
    problems = validate(response)
    assert {p.code for p in problems} >= {"invalid-json-value"}
    assert any(
        p.path == "candidates[0].grounding_metadata.grounding_supports[0].segment.end_index"
        for p in problems
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"startIndex": 2147483648}')))
    code = main(["convert", "--type", "Segment", "--from", "json", "--to", "text"])
    err = capsysbinary.readouterr().err.decode()
    assert code == 2
    assert err.strip() == (
        "grounding-protos: error: <stdin>: invalid JSON for google.cloud.dialogflow.v2beta1."
        "Segment at startIndex: Value out of range: 2147483648"
    )


# --- A 100 MB JSONL batch in bounded memory ------------------------------------------------

MB = 2**20
PEAK_LIMIT = 300 * MB
PEAKS_FILE = Path(tempfile.gettempdir()) / "grounding-protos-peak-memory.json"


def big_answer_line() -> bytes:
    """A Discovery Engine answer of ~160 kB (multi-script text, 50 citations)."""
    sentence = "Köln liegt am Rhein. 東京は日本の首都です。 Η αίθουσα 🎻. "  # noqa: RUF001
    step = len(sentence.encode())
    answer = {
        "answerText": sentence * 2000,
        "citations": [
            {"startIndex": str(i * step), "endIndex": str((i + 1) * step),
             "sources": [{"referenceId": "0"}]}
            for i in range(0, 2000, 40)
        ],
        "references": [{"structuredDocumentInfo": {"title": "Köln", "uri": "https://k.example"}}],
    }  # fmt: skip
    return json.dumps(answer, ensure_ascii=False).encode() + b"\n"


def write_jsonl(path: Path, size: int) -> int:
    """A JSONL file of at least ``size`` bytes: the shipped examples, a broken line, a
    blank line and a big answer, over and over; returns the number of lines."""
    lines = [
        json.dumps(json.loads((EXAMPLES / name).read_text("utf-8")), ensure_ascii=False).encode()
        + b"\n"
        for name in ("gemini_response.json", "discoveryengine_answer.json",
                     "broken_answer.json", "citation_metadata.json")
    ]  # fmt: skip
    block = b"".join(lines) + b'{"answerText": "x",\n' + b"\n" + big_answer_line()
    repeats = -(-size // len(block))
    with path.open("wb") as f:
        for _ in range(repeats):
            f.write(block)
    return repeats * 7


# Measured from a small parent process: a child forked from pytest itself would count
# pytest's memory (its RSS before exec) in its peak.
_MEASURE = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:]).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(code)
"""


def peak_rss(argv: list[str], cwd: Path) -> tuple[int, int, float]:
    """Run the CLI in a child process; its exit status, the peak RSS (bytes) of it or of
    any process it waited for (its workers), and the seconds it took."""
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-c", _MEASURE, sys.executable, "-m", "grounding_protos", *argv],
        cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    factor = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is in kB on Linux
    peak = int(run.stdout.decode().split()[-1]) * factor
    return run.returncode, peak, time.monotonic() - started


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs resource.getrusage")
def test_a_100_mb_batch_runs_in_bounded_memory(
    tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    small, big = tmp_path / "25mb.jsonl", tmp_path / "100mb.jsonl"
    small_lines = write_jsonl(small, 25 * MB)
    big_lines = write_jsonl(big, 100 * MB)
    out = tmp_path / "out.jsonl"
    runs = {
        "validate 25 MB": ["validate", "--jsonl", str(small), "-o", str(out)],
        "validate 100 MB": ["validate", "--jsonl", str(big), "-o", str(out)],
        "render 100 MB, 2 workers": [
            "render",
            "--jsonl",
            "--workers",
            "2",
            str(big),
            "-o",
            str(out),
        ],
    }
    peaks: dict[str, dict[str, float]] = {}
    for name, argv in runs.items():
        code, peak, seconds = peak_rss(argv, tmp_path)
        assert code == 1, name  # the broken lines fail; nothing else does
        lines = small_lines if "25 MB" in name else big_lines
        with out.open("rb") as f:
            assert sum(1 for _ in f) == lines * 6 // 7, name  # every non-blank line
        peaks[name] = {"peak_rss_mb": round(peak / MB, 1), "seconds": round(seconds, 1)}
        record_property(f"peak_rss_mb[{name}]", peaks[name]["peak_rss_mb"])
        out.unlink()
    small.unlink()
    big.unlink()
    PEAKS_FILE.write_text(json.dumps(peaks, indent=2) + "\n", encoding="utf-8")
    for name, result in peaks.items():
        assert result["peak_rss_mb"] * MB < PEAK_LIMIT, (name, peaks)
    # Not growing with the input: four times the input, (nearly) the same peak.
    growth = peaks["validate 100 MB"]["peak_rss_mb"] - peaks["validate 25 MB"]["peak_rss_mb"]
    assert growth < 20, peaks
