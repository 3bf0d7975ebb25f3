"""Scale-out: the JSONL batch of the command line, run as a Dask bag (docs/scale-out.md).

Dask is an optional extra (``pip install "grounding-protos[dask]"``); without it
these tests skip. The bag runs on local worker processes; its output must equal,
line for line, what ``grounding-protos … --jsonl`` writes for the same file. The
facade itself (:mod:`grounding_protos.batch`) is checked against the command line
without Dask too.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from grounding_protos import ArgumentValueError
from grounding_protos.batch import process_line, process_lines
from grounding_protos.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def example_line(name: str) -> bytes:
    document = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    return json.dumps(document, ensure_ascii=False).encode()


ANSWER_LINE = json.dumps(
    {"answerText": "Grüße aus Köln.",
     "citations": [{"startIndex": "12", "endIndex": "17", "sources": [{"referenceId": "0"}]}],
     "references": [{"structuredDocumentInfo": {"title": "<b>Köln</b>",
                                                "uri": "https://koeln.example"}}]},
    ensure_ascii=False,
).encode()  # fmt: skip
LINES = [
    example_line("gemini_response.json"),
    example_line("discoveryengine_answer.json"),
    b"",  # blank: skipped, still counted
    example_line("broken_answer.json"),
    b'{"answerText": "x",',  # broken JSON in the middle
    b"\xff\xfe not UTF-8",
    example_line("citation_metadata.json"),
    ANSWER_LINE,
    b'{"answerText": "a\rb",\r "citations": []}',  # a CR inside a line is not a line end
    ANSWER_LINE,
]
DATA = b"\n".join(LINES) + b"\n"

RUNS: list[tuple[list[str], dict[str, Any]]] = [
    (["validate", "--jsonl"], {"command": "validate"}),
    (["render", "--jsonl"], {"command": "render"}),
    (["render", "--jsonl", "--style", "html"], {"command": "render", "style": "html"}),
    (["render", "--jsonl", "--snap", "outward", "--clamp"],
     {"command": "render", "snap": "outward", "clamp": True}),
    (["render", "--jsonl", "--footnotes"], {"command": "render", "footnotes": True}),
    (["render", "--jsonl", "--style", "html", "--raw-text"],
     {"command": "render", "style": "html", "raw_text": True}),
    (["inspect", "--jsonl", "--unit", "char"], {"command": "inspect", "unit": "char"}),
    (["render", "--jsonl", "--errors", "skip"],
     {"command": "render", "errors": "skip", "failed_lines": "inline"}),
    (["inspect", "--jsonl"], {"command": "inspect"}),
    (["validate", "--jsonl", "--type", "Answer"], {"command": "validate", "type_name": "Answer"}),
    (["convert", "--type", "Answer", "--from", "jsonl", "--to", "jsonl"],
     {"command": "convert", "type_name": "Answer", "failed_lines": "skip"}),
    (["convert", "--type", "Answer", "--from", "jsonl", "--to", "text"],
     {"command": "convert", "type_name": "Answer", "target": "text", "failed_lines": "skip"}),
]  # fmt: skip
IDS = [" ".join(argv) for argv, _ in RUNS]


def cli_output(
    argv: list[str],
    path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    errors: Path | None = None,
) -> list[str]:
    extra = ["--failed-lines", str(errors)] if errors is not None else []
    main([*argv, str(path), *extra])
    return capsysbinary.readouterr().out.decode("utf-8").splitlines()


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "in" / "answers.jsonl"
    path.parent.mkdir()
    path.write_bytes(DATA)
    return path


# --- The facade, against the command line -------------------------------------------------


@pytest.mark.parametrize(("argv", "options"), RUNS, ids=IDS)
def test_process_lines_writes_what_the_cli_writes(
    argv: list[str], options: dict[str, Any], jsonl: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:  # fmt: skip
    expected = cli_output(argv, jsonl, capsysbinary)
    options = dict(options)
    command = options.pop("command")
    with jsonl.open("rb") as f:
        assert list(process_lines(f, command, **options)) == expected
    # text lines, as Dask reads them, give the same
    with jsonl.open(encoding="utf-8", errors="surrogateescape", newline="\n") as t:
        assert list(process_lines(t, command, **options)) == expected


def test_error_records_go_where_asked(
    jsonl: Path, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    errors = tmp_path / "errors.jsonl"
    argv = ["convert", "--type", "Answer", "--from", "jsonl", "--to", "base64"]
    out = cli_output(argv, jsonl, capsysbinary, errors=errors)
    lines = list(io.BytesIO(DATA))  # split at "\n" only, as the CLI does
    options: dict[str, Any] = {"type_name": "Answer", "target": "base64"}
    assert list(process_lines(lines, "convert", failed_lines="skip", **options)) == out
    kept = list(process_lines(lines, "convert", failed_lines="only", **options))
    assert kept == errors.read_text(encoding="utf-8").splitlines()
    # lines 1 and 7 (Gemini, CitationMetadata) are no Answers
    assert [json.loads(r)["line"] for r in kept] == [1, 5, 6, 7, 9]
    inline = list(process_lines(lines, "convert", **options))
    assert len(inline) == len(out) + len(kept)


def test_process_line_is_one_line_of_process_lines() -> None:
    lines = list(io.BytesIO(DATA))
    everything = list(process_lines(lines, "render", style="html"))
    one_by_one = [
        process_line(line, "render", number=n, style="html")
        for n, line in enumerate(lines, 1)
        if line.strip()
    ]
    assert one_by_one == everything


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"command": "serve"}, "command must be one of"),
        ({"command": "convert"}, "convert needs type_name"),
        ({"command": "convert", "type_name": "Answer", "target": "json"}, "target must be"),
        ({"command": "render", "source": "text"}, "source must be"),
        ({"command": "render", "source": "base64"}, "needs type_name"),
        ({"command": "render", "style": "rst"}, "style must be"),
        ({"command": "render", "snap": "round"}, "snap must be"),
        ({"command": "render", "errors": "drop"}, "errors must be"),
        ({"command": "render", "unit": "utf8"}, "unit must be"),
        ({"command": "render", "style": "html", "footnotes": True}, "footnotes=True is for"),
        ({"command": "validate", "footnotes": True}, "footnotes=True is for"),
        ({"command": "render", "raw_text": True}, "raw_text=True is for"),
        ({"command": "render", "cache": "c.sqlite"}, "cache is for resolve_urls"),
    ],
)
def test_bad_options_fail_at_once(options: dict[str, Any], message: str) -> None:
    options = dict(options)
    command = options.pop("command")
    with pytest.raises(ArgumentValueError, match=message):
        list(process_lines([b"{}"], command, **options))


def test_an_unknown_option_is_a_type_error() -> None:
    bad: dict[str, Any] = {"colour": "red"}
    with pytest.raises(
        TypeError, match=r"^process_lines\(\) got an unexpected keyword argument 'colour'"
    ):
        list(process_lines([b"{}"], "render", **bad))
    with pytest.raises(TypeError, match=r"^process_line\(\) got an unexpected .* 'colour'"):
        process_line(b"{}", "render", **bad)


def test_an_unknown_type_fails_at_once() -> None:
    from grounding_protos import UnknownTypeError

    with pytest.raises(UnknownTypeError):
        process_line(b"{}", "validate", type_name="Answr")


# --- The same conversion as a Dask bag, on local worker processes ---------------------------


def recipe_config(workers: int) -> dict[str, Any]:
    """The settings of ``dask.config.set(...)`` in the local-process recipe of
    docs/scale-out.md (its literal keywords), with ``num_workers=workers``."""
    text = (ROOT / "docs" / "scale-out.md").read_text(encoding="utf-8")
    code = next(c for c in re.findall(r"^```python\n(.*?)^```$", text, re.M | re.S)
                if "def main" in c)  # fmt: skip
    [call] = [
        node for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "dask.config.set"
    ]  # fmt: skip
    settings = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    assert settings.get("scheduler") == "processes"
    return {**settings, "num_workers": workers}


def dask_run(inputs: str, outputs: Path, command: str, **options: Any) -> list[str]:
    """The recipe of docs/scale-out.md: one partition per input file, two processes."""
    db = pytest.importorskip("dask.bag")
    import dask
    from dask.base import compute

    lines = db.read_text(inputs, linedelimiter="\n", errors="surrogateescape")
    written = lines.map_partitions(process_lines, command, **options).to_textfiles(
        str(outputs / "*.jsonl"), last_endline=True, compute=False
    )
    with dask.config.set(recipe_config(workers=2)):
        compute(*written)
    return sorted(str(p) for p in outputs.glob("*.jsonl"))


@pytest.mark.parametrize(("argv", "options"), RUNS[:2] + RUNS[-2:-1], ids=IDS[:2] + IDS[-2:-1])
def test_a_dask_bag_writes_what_the_cli_writes(
    argv: list[str], options: dict[str, Any], jsonl: Path, tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:  # fmt: skip
    pytest.importorskip("dask.bag")
    expected = cli_output(argv, jsonl, capsysbinary)
    out = tmp_path / "out"
    [written] = dask_run(str(jsonl), out, **options)
    lines = Path(written).read_text(encoding="utf-8").splitlines()
    if options["command"] == "convert":
        # The order of a Struct's keys (a protobuf map) changes from one process to
        # the next, in json_format's output as in ours: compare the JSON values.
        assert [json.loads(line) for line in lines] == [json.loads(line) for line in expected]
    else:
        assert lines == expected


def test_a_dask_bag_of_several_files_keeps_each_file_apart(
    jsonl: Path, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    pytest.importorskip("dask.bag")
    shards = [jsonl.parent / f"part-{i}.jsonl" for i in range(3)]
    for i, shard in enumerate(shards):
        shard.write_bytes(b"".join(line + b"\n" for line in LINES[i * 3 : i * 3 + 5]))
    jsonl.unlink()
    expected = [cli_output(["render", "--jsonl"], shard, capsysbinary) for shard in shards]
    written = dask_run(str(jsonl.parent / "part-*.jsonl"), tmp_path / "out", "render")
    assert [Path(w).read_text(encoding="utf-8").splitlines() for w in written] == expected


def test_the_facade_is_what_the_cli_runs(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """stdin or a file, the same lines come out (sanity check of the oracle)."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(DATA)))
    main(["validate", "--jsonl"])
    out = capsysbinary.readouterr().out.decode().splitlines()
    assert out == list(process_lines(io.BytesIO(DATA), "validate"))
    assert [json.loads(r)["line"] for r in out] == [1, 2, 4, 5, 6, 7, 8, 9, 10]


def _rendezvous(partition: list[str]) -> list[tuple[int, bool]]:
    """Say this partition started, then wait (at most 60 s) for every partition to have
    started: all of them see all the others only if they run at the same time."""
    folder, count = partition[0].split("|")
    Path(folder, f"{os.getpid()}-{id(partition)}").touch()
    deadline = time.monotonic() + 60
    while len(os.listdir(folder)) < int(count) and time.monotonic() < deadline:
        time.sleep(0.01)
    return [(os.getpid(), len(os.listdir(folder)) >= int(count))]


def test_the_recipe_runs_two_partitions_on_two_workers_at_once(tmp_path: Path) -> None:
    """The processes scheduler hands ready tasks to its workers in batches (of 6 by
    default): without the recipe's ``chunksize=1``, the two partitions of two shards
    run one after the other in one worker, and the second worker idles."""
    db = pytest.importorskip("dask.bag")
    import dask

    bag = db.from_sequence([f"{tmp_path}|2"] * 2, npartitions=2).map_partitions(_rendezvous)
    with dask.config.set(recipe_config(workers=2)):
        ran = bag.compute()
    assert len(ran) == 2 and all(together for _, together in ran)
    assert len({pid for pid, _ in ran}) == 2
