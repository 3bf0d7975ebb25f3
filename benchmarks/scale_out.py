"""Benchmark of the JSONL batch scaled out over processes: lines per second on 1 and 2
processes, interleaved, and where a Dask bag's overhead goes; prints ratios.

Run: ``PYTHONPATH=src python benchmarks/scale_out.py`` (about 2-3 minutes; ``python
benchmarks/scale_out.py SECONDS ROUNDS`` to change the size of the input, 12 s of the
bare loop by default, and the rounds, 2; ``30 1`` takes about 3.5 minutes and shows
the Dask recipe past 0.85 end to end, start-up included). Not a test: the goals are
printed next to the figures, nothing fails. Run it on a quiet machine with at least 2
cores: the scaling ratios are wall-clock figures, and anything else running lowers
them (the load average is printed before and after).

The input is one JSONL file of Gemini ``generateContent`` responses (REST JSON, 40
grounding supports each, mixed-script text: German, Japanese, Arabic, emoji and astral
characters before the spans; the builder of ``benchmarks/read.py``), sized so that the
bare loop takes ``SECONDS``, and the same lines split into 8 shards of equal size, as
``split -n l/8`` splits them. Each way of running ``render`` on it, once per round, the rounds
interleaved:

- ``bare loop``: ``batch.process_lines(file, "render")`` in this one process, over
  the file (bytes), the records written to a file: the per-line work every way does,
  without any scale-out: the baseline;
- ``process_lines``: the same in a pool of 2 processes, each shard a task;
- ``CLI``: ``grounding-protos render --jsonl FILE --workers 1|2`` (a new interpreter);
- ``Dask (0.1 recipe)``: the bag of the 0.1 docs, one partition per shard, the
  ``processes`` scheduler with its default batching, as a script (a new interpreter);
- ``Dask (recipe)``: the recipe of docs/scale-out.md today: the same with
  ``chunksize=1``.

For each: the best and the median throughput (lines/s) over the rounds; at 1 worker
its time against the bare loop's (the per-line overhead) and its CPU time (all its
processes) against the bare loop's, which moves less with the machine's load; at 2
workers the scaling ratio: throughput / (2 x the bare loop's best throughput), and
against 2 x its own 1-worker throughput. Goal: >= 0.85. Each way also runs, every
round, on an input of 8 lines (one per shard): its fixed start-up (a new interpreter, imports,
starting the workers), paid once per run whatever the size of the input; the second
line of each way gives its figures with that start-up taken out (the throughput a
long run tends to), and the number of lines from which it reaches the goal end to end.

Then where a Dask bag's overhead goes, each part measured on its own (CPU time per
line): the bare loop, and in it reading and rendering alone (``read_json`` +
``render`` + ``source_list``; the rest is the command's records), lines as text
(``read_text`` decodes them, ``process_lines`` encodes them back), writing through
``to_textfiles`` (an fsspec text file) instead of a plain file, the start of the
worker processes (a bag of nothing on 2 spawned workers), and the scheduler's
batching: how many of 2 partitions each worker ran, with the default ``chunksize`` (6:
up to 6 ready tasks go to one worker as one batch) and with ``chunksize=1``.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from read import gemini_response  # benchmarks/ is the script directory

from grounding_protos.batch import process_lines
from grounding_protos.citations import read_json, render, source_list

SHARDS = 8  # 4 per worker: a worker slowed down (a busy core) takes fewer
GOAL = 0.85  # of linear: 2 workers against 2 bare loops
DISTINCT = 400  # distinct responses, cycled through the file

# The Dask runs are scripts, as a user runs them: the workers are spawned and import
# the script (never this benchmark and its builders). argv: shards glob, out dir, workers.
DASK_SCRIPT = """\
import sys

import dask
import dask.bag as db

from grounding_protos.batch import process_lines


def main() -> None:
    inputs, out, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    lines = db.read_text(inputs, linedelimiter="\\n", errors="surrogateescape")
    records = lines.map_partitions(process_lines, "render")
    with dask.config.set(scheduler="processes", num_workers=workers{chunksize}):
        records.to_textfiles(out + "/*.jsonl", last_endline=True)


if __name__ == "__main__":
    main()
"""
DASK_RECIPES = {"Dask (0.1 recipe)": "", "Dask (recipe)": ", chunksize=1"}

# A bag of nothing, for the start of the workers and the scheduler's batching.
PROBE_SCRIPT = '''\
import os
import sys
import time
from collections import Counter

import dask
import dask.bag as db


def hold(part):
    """Import what a task of the recipe imports (timed), then stay busy long enough
    for a second worker to start and take a task."""
    started = time.perf_counter()
    import grounding_protos.batch
    import grounding_protos.citations

    imports = time.perf_counter() - started
    started = time.process_time()
    while time.process_time() - started < float(sys.argv[1]):
        pass
    return [(os.getpid(), imports)]


def main() -> None:
    chunksize = int(sys.argv[2])
    bag = db.from_sequence(range(2), npartitions=2).map_partitions(hold)
    options = {"chunksize": chunksize} if chunksize else {}
    started = time.perf_counter()
    with dask.config.set(scheduler="processes", num_workers=2, **options):
        ran = bag.compute()
    took = time.perf_counter() - started
    per_worker = sorted(Counter(pid for pid, _ in ran).values(), reverse=True)
    print(took, max(imports for _, imports in ran), per_worker)


if __name__ == "__main__":
    main()
'''


def read_and_render(path: Path) -> None:
    """The reading and rendering alone, per line: the response read, rendered with its
    sources (no output record, nothing written)."""
    with path.open("rb") as lines:
        for line in lines:
            if line.strip():
                grounded = read_json(line)
                text = grounded.text or ""
                render(text, grounded.citations) + source_list(text, grounded.citations)


def _render_file(source: str, target: str) -> None:
    with open(source, "rb") as lines, open(target, "w", encoding="utf-8") as out:
        for record in process_lines(lines, "render"):
            out.write(record + "\n")


def bare_loop(path: Path) -> None:
    """What every way does to the file, in a plain loop in this process: the output
    records of ``render --jsonl`` (``batch.process_lines``), written to a file."""
    _render_file(str(path), str(path.with_suffix(".out")))


def process_lines_pool(shards: list[Path], out: Path, workers: int) -> None:
    with ProcessPoolExecutor(workers) as pool:
        done = [pool.submit(_render_file, str(s), str(out / s.name)) for s in shards]
        for future in done:
            future.result()


def command(argv: list[str]) -> None:
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=os.environ.copy())


def _all_cpu() -> float:
    """CPU time of this process and of its children that have ended (their workers too)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _wall(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall time and CPU time (every process of the run) of one run."""
    gc.collect()
    cpu = _all_cpu()
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started, _all_cpu() - cpu


def _cpu(fn: Callable[[], object]) -> float:
    gc.collect()
    started = time.process_time()
    fn()
    return time.process_time() - started


def _write(folder: Path, lines: list[str]) -> tuple[Path, list[Path]]:
    """``lines`` as one file, and cut into :data:`SHARDS` shards of (nearly) equal size."""
    folder.mkdir()
    path = folder / "answers.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    (folder / "shards").mkdir()
    shards = [folder / "shards" / f"part-{k}.jsonl" for k in range(SHARDS)]
    for k, shard in enumerate(shards):
        part = lines[k * len(lines) // SHARDS : (k + 1) * len(lines) // SHARDS]
        shard.write_text("".join(part), encoding="utf-8")
    return path, shards


def build(
    folder: Path, seconds: float, kinds: int
) -> tuple[tuple[Path, list[Path]], int, Path, float]:
    """The input (a file sized for ``seconds`` of the bare loop, at least ``4 * kinds``
    lines, and its shards), its lines, a sample of its ``kinds`` distinct lines, and the
    bare loop's lines per second."""
    distinct = [json.dumps(gemini_response(seed), ensure_ascii=False) for seed in range(kinds)]
    sample = folder / "sample.jsonl"
    sample.write_text("".join(line + "\n" for line in distinct), encoding="utf-8")
    bare_loop(sample)  # warm up the imports
    rate = kinds / min(_wall(lambda: bare_loop(sample))[0] for _ in range(2))
    count = max(int(rate * seconds), 4 * kinds)
    lines = [distinct[i % kinds] + "\n" for i in range(count)]
    return _write(folder / "input", lines), count, sample, rate


def _line(
    name: str,
    workers: int,
    runs: list[tuple[float, float]],
    started: tuple[float, float],
    count: int,
    base: dict[str, float],
) -> dict[str, float]:
    """One way's figures: best and median throughput, end to end and after its start-up
    (``started``: its best wall and CPU time on the 8-line input); at 1 worker its time and CPU time
    against the bare loop's, at 2 workers the scaling against 2 bare loops and against
    its own 1 worker."""
    rates = sorted(count / wall for wall, _ in runs)
    start, start_cpu = started
    steady = max(count / max(wall - start, 1e-9) for wall, _ in runs)
    best, median = rates[-1], statistics.median(rates)
    cpu = min(cpu for _, cpu in runs)
    if name == "bare loop":
        base["cpu"] = cpu
    text = f"  {name:<18} {workers} worker{'s' if workers > 1 else ' '}  {best:5.0f} lines/s"
    text += f" (median {median:5.0f})"
    after = f"  {'':<18} after its start-up ({start:4.2f} s, CPU {start_cpu:4.2f} s):"
    after += f" {steady:5.0f} lines/s"
    if workers == 1:
        base[name], base[f"{name} steady"] = best, steady
        overhead = base["bare loop"] / best
        text += f"  {overhead:4.2f}x the bare loop's time; CPU {cpu / base['cpu']:4.2f}x"
        after += f"  {base['bare loop'] / steady:4.2f}x"
        print(text)
        if name != "bare loop":
            print(after)
        return {"overhead": overhead, "steady_overhead": base["bare loop"] / steady,
                "cpu": cpu / base["cpu"], "start": start, "start_cpu": start_cpu}  # fmt: skip
    bare, own = best / (2 * base["bare loop"]), best / (2 * base[name])
    text += f"  scaling {bare:4.2f} of 2 bare loops (median "
    text += f"{median / (2 * base['bare loop']):4.2f}), {own:4.2f} of its own 1 worker x 2"
    steady_bare, steady_own = (
        steady / (2 * base["bare loop"]),
        steady / (2 * base[f"{name} steady"]),
    )
    after += f"  scaling {steady_bare:4.2f} of 2 bare loops, {steady_own:4.2f} of its own x 2"
    # the input from which the end-to-end scaling reaches the goal, start-up paid once
    slack = 1 / (GOAL * 2 * base["bare loop"]) - 1 / steady
    after += f"; >= {GOAL} from {start / slack:,.0f} lines" if slack > 0 else f"; never {GOAL}"
    print(text + f"; CPU {cpu / base['cpu']:4.2f}x")
    print(after)
    return {
        "scaling": bare,
        "self_scaling": own,
        "steady_scaling": steady_bare,
        "steady_self_scaling": steady_own,
        "cpu": cpu / base["cpu"],
        "start": start,
        "start_cpu": start_cpu,
    }


def _runs(
    inputs: tuple[Path, list[Path]], scripts: dict[str, Path], out: Path
) -> dict[tuple[str, int], Callable[[], object]]:
    """Each way of running ``render`` on the input, by (name, workers)."""
    path, shards = inputs
    python = sys.executable
    cli = [python, "-m", "grounding_protos", "render", "--jsonl", str(path), "--workers"]
    glob = str(shards[0].parent / "*.jsonl")
    dask = {name: [python, str(script), glob, str(out)] for name, script in scripts.items()}
    return {
        ("bare loop", 1): lambda: bare_loop(path),
        ("process_lines", 2): lambda: process_lines_pool(shards, out, 2),
        ("CLI", 1): lambda: command([*cli, "1"]),
        ("CLI", 2): lambda: command([*cli, "2"]),
        # with one worker, the scheduler's batching changes nothing: one run for both
        ("Dask (recipe)", 1): lambda: command([*dask["Dask (recipe)"], "1"]),
        ("Dask (0.1 recipe)", 2): lambda: command([*dask["Dask (0.1 recipe)"], "2"]),
        ("Dask (recipe)", 2): lambda: command([*dask["Dask (recipe)"], "2"]),
    }


def _check(runs: dict[tuple[str, int], Callable[[], object]], out: Path) -> None:
    """Each Dask recipe writes, shard for shard, what ``process_lines`` writes."""
    outputs = []
    for key in [("process_lines", 2), ("Dask (0.1 recipe)", 2), ("Dask (recipe)", 2)]:
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        runs[key]()
        outputs.append([p.read_text(encoding="utf-8") for p in sorted(out.iterdir())])
    assert outputs[0] == outputs[1] == outputs[2], "the ways wrote different outputs"
    assert len(outputs[0]) == SHARDS and all(outputs[0]), "a shard's output is missing"


def throughput(
    inputs: tuple[Path, list[Path]], count: int, folder: Path, rounds: int
) -> dict[str, float]:
    """Every way of running the batch, on the input and on its first 8 lines (the way's
    start-up), once per round, the rounds interleaved."""
    scripts: dict[str, Path] = {}
    for name, chunksize in DASK_RECIPES.items():
        script = folder / f"recipe_{len(scripts)}.py"
        script.write_text(DASK_SCRIPT.format(chunksize=chunksize), encoding="utf-8")
        scripts[name] = script
    out = folder / "out"
    first = inputs[0].open(encoding="utf-8")
    with first:  # a line per shard (Dask writes an empty shard's output as one "\n")
        tiny = _write(folder / "tiny", [next(first) for _ in range(SHARDS)])
    runs, starts = _runs(inputs, scripts, out), _runs(tiny, scripts, out)
    _check(starts, out)
    walls: dict[tuple[str, int], list[tuple[float, float]]] = {key: [] for key in runs}
    start: dict[tuple[str, int], tuple[float, float]] = dict.fromkeys(runs, (float("inf"), 0.0))
    for _ in range(rounds):
        for key, fn in runs.items():
            for timings, run in ((walls[key], fn), (None, starts[key])):
                shutil.rmtree(out, ignore_errors=True)
                out.mkdir()
                wall = _wall(run)
                if timings is None:
                    start[key] = min(start[key], wall)
                else:
                    timings.append(wall)
    print(f"Wall clock, {rounds} interleaved rounds of {count:,} lines (best, and median):")
    base: dict[str, float] = {}
    results: dict[str, float] = {}
    for (name, workers), times in walls.items():
        figures = _line(name, workers, times, start[(name, workers)], count, base)
        # the runs with one worker that stand for others: the bare loop is process_lines
        # in one process; the 0.1 recipe with one worker is the recipe's run
        for alias, one in (("process_lines", "bare loop"), ("Dask (0.1 recipe)", "Dask (recipe)")):
            if name == one:
                base[alias], base[f"{alias} steady"] = base[name], base[f"{name} steady"]
        results |= {f"{name} {workers} {key}": value for key, value in figures.items()}
    print("  (goal: the Dask recipe on 2 workers >= 0.85 of linear)")
    return results


def overhead_split(
    path: Path, count: int, rate: float, folder: Path, rounds: int
) -> dict[str, float]:
    """The parts of a Dask bag's overhead, each measured on its own (CPU time, on the
    ``count`` lines of ``path``); ``rate`` is the bare loop's lines per second."""
    import fsspec  # type: ignore[import-untyped]  # dask's dependency

    def as_text(opener: Callable[..., Any]) -> None:
        with (
            path.open(encoding="utf-8", errors="surrogateescape", newline="\n") as lines,
            opener(str(path.with_suffix(".text")), "wt", encoding="utf-8") as out,
        ):
            for record in process_lines(lines, "render"):
                out.write(record + "\n")

    runs = {
        "alone": lambda: read_and_render(path),
        "bare": lambda: bare_loop(path),
        "text": lambda: as_text(open),
        "fsspec": lambda: as_text(fsspec.open),
    }
    cpu: dict[str, float] = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, fn in runs.items():
            cpu[name] = min(cpu[name], _cpu(fn))
    probe = folder / "probe.py"
    probe.write_text(PROBE_SCRIPT, encoding="utf-8")
    starts, imports, batching = [], [], {}
    for chunksize in (0, 1):
        out = subprocess.run([sys.executable, str(probe), "0.5", str(chunksize)], check=True,
                             capture_output=True, text=True).stdout.split(maxsplit=2)  # fmt: skip
        batching[chunksize] = out[2].strip()
    for _ in range(max(2, rounds // 2)):
        out = subprocess.run([sys.executable, str(probe), "0", "1"], check=True,
                             capture_output=True, text=True).stdout.split(maxsplit=2)  # fmt: skip
        starts.append(float(out[0]))
        imports.append(float(out[1]))
    per_line = {name: t / count * 1e6 for name, t in cpu.items()}
    start = min(starts)
    print(f"Where a Dask bag's time goes (CPU time per line, best of {rounds}; {count:,} lines):")
    base = per_line["bare"]
    print(f"  the bare loop (process_lines, bytes, written)      {base:7.0f} us")
    print(
        f"    of which read_json + render + source_list        {per_line['alone']:7.0f} us"
        f"  ({per_line['alone'] / base:.0%}; the rest: the command's records)"
    )
    print(
        f"  + lines as text (read_text decodes, encoded back)  {per_line['text'] - base:+7.0f} us"
        f"  ({(per_line['text'] - base) / base:+6.1%})"
    )
    print(
        f"  + written as to_textfiles writes (fsspec)          "
        f"{per_line['fsspec'] - per_line['text']:+7.0f} us"
        f"  ({(per_line['fsspec'] - per_line['text']) / base:+6.1%})"
    )
    print(
        f"  starting 2 spawned workers (a bag of nothing)  {start:7.2f} s per compute "
        f"(= {start * rate * 2:,.0f} lines of 2 bare loops), of which "
        f"importing grounding_protos in a worker {min(imports):.2f} s"
    )
    print(
        "  partitions run per worker, 2 partitions on 2 workers: "
        f"default chunksize {batching[0]}, chunksize=1 {batching[1]}"
    )
    return {
        "alone_vs_bare": cpu["alone"] / cpu["bare"],
        "text_vs_bare": cpu["text"] / cpu["bare"],
        "fsspec_vs_text": cpu["fsspec"] / cpu["text"],
        "worker_start_seconds": start,
        "worker_import_seconds": min(imports),
    }


def main(seconds: float = 12.0, rounds: int = 2, kinds: int = DISTINCT) -> dict[str, float]:
    load = os.getloadavg()
    print(f"{os.cpu_count()} CPUs; load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        inputs, count, sample, rate = build(folder, seconds, kinds)
        size = inputs[0].stat().st_size
        print(f"Input: {count:,} Gemini responses (40 supports each), {size / 1e6:.1f} MB of JSONL")
        results = throughput(inputs, count, folder, rounds)
        results |= overhead_split(sample, kinds, rate, folder, rounds)
    load = os.getloadavg()
    print(f"Load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return results


if __name__ == "__main__":
    arguments = sys.argv[1:]
    main(float(arguments[0]) if arguments else 12.0, *(int(a) for a in arguments[1:]))
