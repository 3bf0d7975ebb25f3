"""The benchmark scripts still run, and their floors do the whole work they stand for.

The floors of ``benchmarks/_floors.py`` bound what any Python codec can reach; a floor
that skipped part of its half would make that bound a lie, so each is checked
against json_format here. Nothing is timed for a verdict: the benchmarks print ratios.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from google.protobuf import json_format

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def script(name: str) -> ModuleType:
    """The benchmark script ``benchmarks/<name>.py``, imported as its own directory would."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.fixture(scope="module")
def scripts() -> Iterator[tuple[ModuleType, ModuleType]]:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        # Scripts found through sys.path, not a package: imported by name.
        yield importlib.import_module("_floors"), importlib.import_module("codec")
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_floors_do_the_whole_of_their_half(scripts: tuple[ModuleType, ModuleType]) -> None:
    floors, bench = scripts
    answer = bench.standard_answer()
    floors.check(answer)  # asserts against json_format's dict and the message itself


def test_floors_notice_missing_work(scripts: tuple[ModuleType, ModuleType]) -> None:
    floors, bench = scripts
    answer = bench.standard_answer()
    data = json_format.MessageToDict(answer)
    full = floors.walk_json(data)
    data["citations"][3]["sources"].pop()
    assert floors.walk_json(data) == floors.count_keys(data) == full - 1
    raw = floors.raw_values(answer)
    raw["citations"].pop()
    assert floors.build_dict(raw) != json_format.MessageToDict(answer)


def test_codec_benchmark_prints_floors_and_ceilings(
    scripts: tuple[ModuleType, ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    _, bench = scripts
    bench.print_floors(bench.standard_answer(), 0.01)
    out = capsys.readouterr().out
    assert "to_dict: at most" in out and "from_dict: at most" in out
    assert out.count(" µs") >= 4


def test_repair_benchmark_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    repair = script("repair")
    results = repair.main(scale=0.01, repeat=1)  # checks that repair gives back every span
    assert set(results) == {"strict_s", "repair_clean_ratio", "repair_drifted_ratio"}
    assert "goal <= 3x" in capsys.readouterr().out


def test_export_benchmark_prints_a_ratio_per_export_and_unit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    export_benchmark = script("export")
    export_benchmark.run(0.01, repeat=1)
    out = capsys.readouterr().out
    assert "100 citations" in out and "read (baseline)" in out
    assert out.count("x read)") == 9  # 3 exports x 3 units


def test_read_benchmark_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    read_benchmark = script("read")
    results = read_benchmark.main(repeat=1, number=2, lines=3)
    declared = {
        f"{what}_vs_json_loads_{count}"
        for what in ("read_json", "read", "tolerant")
        for count in (40, 400)
    }
    assert set(results) == declared | {
        "read_gemini_vs_json_loads", "read_answer_vs_fromstring", "validate_vs_read_gemini",
        "validate_vs_read_answer", "batch_vs_per_line",
    }  # fmt: skip
    assert capsys.readouterr().out.count("goal <=") == 5 + 3


def test_read_benchmark_of_an_anthropic_message_runs_small(
    capsys: pytest.CaptureFixture[str],
) -> None:
    read_benchmark = script("read")
    results = read_benchmark.anthropic(repeat=1, number=1, count=40)  # asserts both agree
    assert set(results) == {
        "anthropic_read_vs_json_loads_40",
        "anthropic_tolerant_vs_json_loads_40",
    }
    assert "Anthropic message, 40 cited blocks" in capsys.readouterr().out


def test_scale_benchmark_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    scale = script("scale")
    results = scale.main(text_kb=4, supports=10, parts=20)  # asserts its cases are sound
    assert set(results) == {
        "read_memory_4x_vs_1x", "read_memory_vs_text", "validate_memory_4x_vs_1x",
        "validate_memory_vs_text", "render_memory_4x_vs_1x", "render_memory_vs_text",
        "parts_time_4x_vs_1x",
    }  # fmt: skip
    out = capsys.readouterr().out
    assert out.count(" peak ") == 4 and "Many parts" in out


def test_scale_out_benchmark_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    scale_out = script("scale_out")
    results = scale_out.main(seconds=0.0, rounds=1, kinds=3)  # asserts the recipes agree
    out = capsys.readouterr().out
    ways = ["process_lines", "CLI", "Dask (recipe)"]
    assert {f"{way} 2 scaling" for way in [*ways, "Dask (0.1 recipe)"]} <= set(results)
    assert {f"{way} 1 overhead" for way in ways[1:]} <= set(results)
    # (which worker ran which shard depends on how fast the workers start: printed,
    # not asserted; tests/test_scale_out.py checks the recipe's two workers with a
    # rendezvous instead)
    assert out.count("after its start-up") == 6 and "12 lines" in out
    assert "chunksize=1 [" in out


def test_readers_benchmark_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    readers = script("readers")
    readers.main(count=20, repeat=1)  # checks every shape reads the same spans
    out = capsys.readouterr().out
    shapes = len(readers.make_shapes(2))
    assert out.count("x   (goal <= 1.5x)") == shapes >= 7 and "dispatch share" in out


def test_stream_benchmark_runs_and_prints_its_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    stream_benchmark = script("stream")
    chunks, merged = stream_benchmark.make_case(20_000, 200, 50)
    assert len(chunks) == 200
    assert len(merged["candidates"][0]["groundingMetadata"]["groundingSupports"]) == 50
    stream_benchmark.main(20_000, 200, 50, repeat=1)  # asserts both reads agree
    out = capsys.readouterr().out
    assert "ratio read_stream / read" in out and "ratio end / start" in out
    vendors = ("anthropic", "cohere", "bedrock", "bedrock_nova", "bedrock_retrieve_and_generate",
               "bedrock_invoke_agent", "mistral chat", "mistral conversation",
               "perplexity")  # fmt: skip
    for vendor in vendors:  # each vendor's stream, checked equal
        assert f"  {vendor} (" in out
    assert out.count("ratio read_stream / read") == 1 + len(vendors)


def test_stream_benchmark_of_the_openai_family_runs_small(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stream_benchmark = script("stream")
    for vendor in stream_benchmark.VENDORS:
        events, final = stream_benchmark.vendor_case(vendor, 20_000, 200, 40)
        assert len(events) >= 200 and final
    stream_benchmark.main_vendors(20_000, 200, 40, repeat=1)  # asserts both reads agree
    out = capsys.readouterr().out
    assert out.count("end/start") == len(stream_benchmark.VENDORS)


def test_stream_growth_benchmark_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    growth = script("stream_growth")
    ratios = growth.main(scale=0.02, file_events=200, repeat=1)  # asserts each merge is right
    out = capsys.readouterr().out
    assert set(ratios) == set(growth.CASES) and out.count(" s   4n: ") == len(growth.CASES)


def test_markdown_view_benchmark_runs_at_a_tiny_size(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("markdown_it")
    render_markdown = script("render_markdown")
    times = render_markdown.main(scale=0.01, repeat=1)
    out = capsys.readouterr().out
    assert "ratio html / markdown-it" in out and "goal: <= 2x" in out
    assert set(times) == {"base", "html", "highlight", "raw"}
    text, citations = render_markdown.make_case(0.01)
    assert len(citations) == 100 and "**" in text and "|:--|" in text


def test_staggered_spans_row_runs_at_a_tiny_size(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("markdown_it")
    render_benchmark = script("render")
    found = render_benchmark.staggered((0.05, 0.2))
    out = capsys.readouterr().out
    assert "staggered spans" in out and "4x / 1x" in out
    assert set(found) == {0.05, 0.2} and all(size > 0 for _, _, size in found.values())


def test_import_cost_of_the_html_view_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    """``import_cost.py --html``: the first HTML view with markdown-it-py against raw
    text, and the installed sizes (the README's reason for the runtime dependency)."""
    import_cost = script("import_cost")
    import_cost.html_cost(1)
    out = capsys.readouterr().out
    assert "markdown-it-py's share of the first HTML view" in out
    assert "markdown-it-py + mdurl" in out
    size, files = import_cost.installed_size("markdown-it-py")
    assert size > 0 and files > 0


def test_markers_benchmark_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    """``markers.py``: the code scan of the marker readers against the same answer
    without code, and markdown-it-py's one-off import."""
    pytest.importorskip("markdown_it")
    markers = script("markers")
    markers.main(count=20, repeat=1)  # checks the code's markers are not read
    out = capsys.readouterr().out
    assert "code scan: " in out and "markdown-it-py's import" in out


PEER_MODULES = ("pydantic_ai", "langchain_google_genai", "langchain_openai",
                "langchain_anthropic", "litellm")  # fmt: skip


def test_peers_verdict_counts_citations_against_the_oracle() -> None:
    peers = script("peers")
    oracle = [[(0, 4, "u1")], [(5, 9, "u1"), (5, 9, "u2")]]
    assert peers.verdict(oracle, [(0, 4, "u1"), (5, 9, "u2"), (5, 9, "u1")]) == "right 2/2"
    assert peers.verdict(oracle, [(0, 4, "u1"), (5, 9, "u1")]) == "wrong 1/2"  # a source lost
    assert peers.verdict(oracle, [(0, 5, "u1"), (6, 10, "u1"), (6, 10, "u2")]) == "wrong 2/2"
    assert peers.verdict(oracle, []) == "lost 2/2"
    extra = peers.verdict(oracle, [(0, 4, "u1"), (5, 9, "u1"), (5, 9, "u2"), (1, 2, "u3")])
    assert extra == "wrong 0/2 (+1 spans not in the input)"


def test_peers_inputs_have_multi_byte_text_before_every_span() -> None:
    peers = script("peers")
    a = peers.answer(30, seed=3)
    spans = peers.byte_spans(a)
    data = a.text.encode()
    for (s, e), (b0, b1), oracle in zip(a.claims, spans, peers.byte_oracle(a, spans), strict=True):
        before = a.text[:s]
        assert len(before.encode()) > len(before) and b0 > s  # bytes and characters differ
        assert data[b0:b1].decode() == a.text[s:e] and oracle[0][:2] == (s, e)
    linked = peers.answer(5, seed=3, link=True)
    assert all(linked.text[s:e].startswith("([quelle-") for s, e in linked.claims)


def test_peers_benchmark_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    """Every case with every peer at a tiny size: this package right on each, a ratio or
    a "—" with its reason in every cell (the peers' own verdicts are what they are)."""
    for module in PEER_MODULES:
        pytest.importorskip(
            module, reason="frameworks-test extra (LangChain, LiteLLM, pydantic-ai)"
        )
    peers = script("peers")
    table = peers.main(supports=(6,), chunks=30, stream_citations=4, rounds=1, runs=1)
    out = capsys.readouterr().out
    assert len(table) == 5 and "| case | ours | pydantic-ai |" in out
    for name, row in table.items():
        n = 4 if "stream" in name else 6
        assert row["ours"] == f"right {n}/{n}", name
        for peer in peers.PEERS:
            cell = row[peer]
            assert cell == "—" or re.match(r"(\d+\.\dx slower|\d+\.\dx faster|as fast), ", cell)
            assert cell == "—" or re.search(rf"(right|wrong|lost) \d+/{n}", cell), (name, peer)
    anthropic = next(row for name, row in table.items() if name.startswith("Anthropic"))
    assert anthropic["LiteLLM"] == "—" and "— (no spans" in out  # the reason is printed
