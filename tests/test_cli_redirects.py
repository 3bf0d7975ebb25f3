"""``--resolve-urls`` and ``--cache`` of ``render``, ``inspect`` and JSONL batches, against
a real HTTP server on 127.0.0.1 (made a grounding redirect host for these tests)."""

from __future__ import annotations

import json
import socket
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grounding_protos._net import redirects as _redirects
from grounding_protos.cli import main
from tests.redirect_server import PAGE, PREFIX, Stats, serve


@pytest.fixture(autouse=True)
def local_redirects(monkeypatch: pytest.MonkeyPatch) -> None:
    """The local server counts as a redirect host; no other host is ever looked up."""
    monkeypatch.setattr(_redirects, "REDIRECT_HOSTS", frozenset({"127.0.0.1"}))
    real = socket.getaddrinfo

    def guarded(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in ("127.0.0.1", b"127.0.0.1"):
            raise OSError(f"test guard: no lookup of {host!r}")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", guarded)


@pytest.fixture
def server() -> Iterator[tuple[str, Stats]]:
    with serve() as running:
        yield running


def gemini(base: str, *paths: str) -> dict[str, Any]:
    """A Gemini response citing one word per grounding chunk; chunk i redirects via
    ``paths[i]``; titles are bare domains, as the API gives them."""
    words = [f"w{i}" for i in range(len(paths))]
    text = " ".join(words) + "."
    supports, at = [], 0
    for i, word in enumerate(words):
        supports.append(
            {
                "segment": {"startIndex": at, "endIndex": at + len(word), "text": word},
                "groundingChunkIndices": [i],
            }
        )
        at += len(word) + 1
    chunks = [
        {"web": {"uri": base + PREFIX + p, "title": f"site{i}.example"}}
        for i, p in enumerate(paths)
    ]
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "groundingMetadata": {"groundingChunks": chunks, "groundingSupports": supports},
            }
        ]
    }


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_render_shows_the_pages(
    server: tuple[str, Stats], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, stats = server
    doc = tmp_path / "answer.json"
    doc.write_text(json.dumps(gemini(base, "to/302/same", "to/301/other", "to/308/same")))
    code, out, err = run(["render", str(doc), "--style", "plain"], capsys)
    assert (code, stats.total()) == (0, 0)  # without the flag: no request
    assert "w0[1] w1[2] w2[3]." in out
    code, out, err = run(["render", str(doc), "--style", "plain", "--resolve-urls"], capsys)
    assert (code, err) == (0, "")
    assert stats.total() == 3
    # Chunks 0 and 2 lead to one page: one number, listed once, with the page's URL.
    assert out == (
        f"w0[1] w1[2] w2[1].\n\n[1] site0.example — {PAGE}same\n[2] site1.example — {PAGE}other\n"
    )


def test_render_warns_about_what_it_could_not_resolve(
    server: tuple[str, Stats], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, _ = server
    doc = tmp_path / "answer.json"
    doc.write_text(json.dumps(gemini(base, "status/404", "to/302/fine")))
    code, out, err = run(["render", str(doc), "--resolve-urls"], capsys)
    assert code == 0
    assert f"({PAGE}fine)" in out or f"<{PAGE}fine>" in out
    assert base + PREFIX + "status/404" in out  # left as it was
    assert f"warning: {doc}: declared_sources[0].uri: " in err  # the path names the source
    assert err.count("\n") == 1 and err.rstrip().endswith("HTTP 404 [redirect-http-error]")


def test_inspect_lists_unresolved_urls_as_problems(
    server: tuple[str, Stats], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, _ = server
    doc = tmp_path / "answer.json"
    doc.write_text(json.dumps(gemini(base, "to/302/a", "location?l=javascript:x")))
    code, out, _ = run(["inspect", str(doc), "--json", "--resolve-urls"], capsys)
    summary = json.loads(out)
    assert code == 1
    assert [s["uri"] for s in summary["sources"]] == [
        PAGE + "a",
        base + PREFIX + "location?l=javascript:x",
    ]
    assert [p["code"] for p in summary["problems"]] == ["redirect-unsafe-scheme"]


def test_a_batch_asks_each_url_once_and_the_cache_file_serves_the_next_run(
    server: tuple[str, Stats], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, stats = server
    lines = [
        json.dumps(gemini(base, "to/302/p1", "to/302/p2")),
        json.dumps(gemini(base, "to/302/p2", "to/302/p3")),
        json.dumps(gemini(base, "to/302/p1", "status/500")),
    ]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(lines) + "\n")
    cache = tmp_path / "cache.sqlite"
    argv = ["inspect", str(batch), "--jsonl", "--resolve-urls", "--cache", str(cache)]
    code, out, _ = run(argv, capsys)
    assert code == 1  # the 500 is a problem of line 3
    records = [json.loads(line) for line in out.splitlines()]
    assert [[s["uri"] for s in r["summary"]["sources"]] for r in records] == [
        [PAGE + "p1", PAGE + "p2"],
        [PAGE + "p2", PAGE + "p3"],
        [PAGE + "p1", base + PREFIX + "status/500"],
    ]
    assert stats.total() == 4  # p1, p2, p3 once each, and the 500
    run(argv, capsys)
    assert stats.total() == 5  # only the failure again


def test_a_batch_without_cache_file_shares_one_for_the_run(
    server: tuple[str, Stats],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, stats = server
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "scratch"))
    (tmp_path / "scratch").mkdir()
    line = json.dumps(gemini(base, "to/302/r"))
    batch = tmp_path / "batch.jsonl"
    batch.write_text((line + "\n") * 5)
    code, out, _ = run(["render", str(batch), "--jsonl", "--resolve-urls"], capsys)
    assert code == 0
    assert all(PAGE + "r" in json.loads(x)["output"] for x in out.splitlines())
    assert stats.total() == 1
    assert list((tmp_path / "scratch").iterdir()) == []  # the run's cache is gone


def test_a_batch_keeps_unresolved_urls_in_its_records(
    server: tuple[str, Stats], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, _ = server
    batch = tmp_path / "batch.jsonl"
    batch.write_text(json.dumps(gemini(base, "loop/x")) + "\n")
    code, out, _ = run(["render", str(batch), "--jsonl", "--resolve-urls"], capsys)
    [record] = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and record["ok"]
    assert [p["code"] for p in record["problems"]] == ["redirect-loop"]


def test_the_batch_facade_resolves_as_the_command_line_does(
    server: tuple[str, Stats], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from grounding_protos.batch import process_lines

    base, stats = server
    lines = [json.dumps(gemini(base, "to/302/p1", "to/302/p2")), json.dumps(gemini(base, "loop/x"))]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(lines) + "\n")
    cache = tmp_path / "cache.sqlite"
    _, out, _ = run(
        ["render", str(batch), "--jsonl", "--resolve-urls", "--cache", str(cache)], capsys
    )
    asked = stats.total()
    got = list(process_lines(lines, "render", resolve_urls=True, cache=str(cache)))
    assert got == out.splitlines()
    assert PAGE + "p1" in json.loads(got[0])["output"]
    assert stats.total() == asked + 1  # the cache file answers all but the loop again


def test_the_batch_facade_without_httpx_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from grounding_protos import MissingDependencyError
    from grounding_protos.batch import process_lines

    monkeypatch.setitem(sys.modules, "httpx", None)
    with pytest.raises(MissingDependencyError, match=r"grounding-protos\[resolve\]"):
        list(process_lines(["{}"], "render", resolve_urls=True))


def test_cache_needs_resolve_urls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["render", "--cache", str(tmp_path / "c"), "x.json"], capsys)
    assert code == 2 and "--cache is for --resolve-urls" in err
    assert not (tmp_path / "c").exists()


def test_without_httpx_the_flag_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "httpx", None)
    code, _, err = run(["inspect", "--resolve-urls", "missing.json"], capsys)
    assert code == 2 and "grounding-protos[resolve]" in err


def test_a_batch_on_a_terminal_shows_its_progress_bar(
    server: tuple[str, Stats],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from grounding_protos._cli import batch as _cli_batch

    base, stats = server
    monkeypatch.setattr(_cli_batch, "stderr_is_terminal", lambda: True)
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps(gemini(base, f"to/302/b{i}")) + "\n" for i in range(4)))
    code, out, err = run(["inspect", str(batch), "--jsonl", "--resolve-urls"], capsys)
    assert code == 0 and len(out.splitlines()) == 4 and stats.total() == 4
    assert "grounding-protos inspect" in err and "100%" in err and "4 lines" in err
