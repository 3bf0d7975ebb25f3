"""Run every atheris harness of ``fuzz/`` for a bounded time; fail on any crash.

    python fuzz/run.py                  # each harness 35 s (FUZZ_TIME overrides)
    python fuzz/run.py --time 300 wire  # one harness, 5 minutes

Each harness starts from a seed corpus made from ``examples/`` and runs under
libFuzzer with ``-max_total_time``, ``-rss_limit_mb=2048`` and ``-timeout=10`` (one
input running longer than 10 s counts as a hang). The script prints, per harness,
the executions, coverage and speed libFuzzer reports, and exits with status 1 if
any harness crashed, hung or ran out of memory, naming the saved input
(reproduce with ``python fuzz/fuzz_NAME.py CRASH_FILE``). Run it with the
interpreter that has atheris (``pip install -e ".[fuzz]"``).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
HARNESSES = ("wire", "json", "citations", "offsets", "cli", "hostile", "streams")
DONE = re.compile(r"^#(\d+)\s+DONE\s+(?:cov: (\d+)\s+)?(?:ft: (\d+)\s+)?.*?exec/s: (\d+)", re.M)
PROGRESS = re.compile(r"^#(\d+)\s+\w+\s+(?:cov: (\d+)\s+)?(?:ft: (\d+)\s+)?.*?exec/s: (\d+)", re.M)
EXECUTED = re.compile(r"stat::number_of_executed_units: (\d+)")


def seeds(name: str) -> list[bytes]:
    """Starting inputs for one harness, in its input layout (see each harness)."""
    from grounding_protos import codec, message_class, message_types

    names = message_types()
    documents = {  # one response per file (a JSON array is a recorded stream)
        path.name: path.read_bytes()
        for path in sorted(EXAMPLES.glob("*.json"))
        if path.read_bytes().lstrip().startswith(b"{")
    }
    typed = {
        "discoveryengine_answer.json": "google.cloud.discoveryengine.v1.Answer",
        "broken_answer.json": "google.cloud.discoveryengine.v1.Answer",
    }
    messages = [
        (names.index(full), codec.from_json(message_class(full), documents[file]))
        for file, full in typed.items()
        if file in documents
    ]
    if name == "wire":
        return [bytes([i, k]) + m.SerializeToString() for i, m in messages for k in (0, 2)]
    if name == "json":
        return [bytes([i, flags]) + documents[f] for f, full in typed.items() if f in documents
                for i in [names.index(full)] for flags in (0, 1)]  # fmt: skip
    if name == "citations":
        return [bytes([flags]) + doc for doc in documents.values() for flags in (0, 2, 64)]
    if name == "offsets":
        text = "Grüße, 東京 😀".encode()
        numbers = bytes([0, 3, 0, 9, 1, 17, 0, 0, 255, 2, 7, 0, 0, 0])
        return [bytes([flags, len(text)]) + text + numbers for flags in (0, 5, 16, 64, 128)]
    if name == "cli":
        wire = [base64.b64encode(m.SerializeToString()) for _, m in messages]
        jsonl = b"\n".join(json.dumps(json.loads(d)).encode() for d in documents.values())
        return [bytes([k]) + d for k in range(17) for d in (*documents.values(), *wire, jsonl)]
    if name == "hostile":  # shape, size (2 bytes), which value; then the document
        return [bytes([kind, 1, k, k * 5]) + doc for doc in documents.values()
                for kind in range(8) for k in (3, 40)]  # fmt: skip
    if name == "streams":  # every vendor merger's real-shaped stream, and the recordings
        sys.path[:0] = [str(HERE), str(HERE.parent)]
        import streams

        from tests.hostile_streams import STREAMS

        return streams.seeds({name: build() for name, build in STREAMS.items()})
    raise ValueError(f"no harness {name!r}")


@dataclass
class Result:
    name: str
    ok: bool
    runs: int
    exec_s: str
    cov: str
    ft: str
    corpus: int
    crashes: list[str]
    log: Path

    def verdict(self) -> str:
        if self.ok:
            return "ok"
        if self.crashes:
            return "CRASH: " + " ".join(self.crashes)
        return f"FAILED: see {self.log}"


def run(name: str, seconds: int, python: str, work: Path) -> Result:
    """One harness for ``seconds``; its libFuzzer statistics and crash files."""
    corpus = work / f"corpus-{name}"
    artifacts = work / f"artifacts-{name}"
    corpus.mkdir(parents=True, exist_ok=True)
    artifacts.mkdir(parents=True, exist_ok=True)
    for i, seed in enumerate(seeds(name)):
        (corpus / f"seed-{i}").write_bytes(seed)
    command = [
        python, str(HERE / f"fuzz_{name}.py"), str(corpus),
        f"-max_total_time={seconds}", "-rss_limit_mb=2048", "-timeout=10",
        "-print_final_stats=1", f"-artifact_prefix={artifacts}/",
    ]  # fmt: skip
    log = work / f"{name}.log"
    with open(log, "wb") as out:
        status = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False)
    text = log.read_text("utf-8", "replace")
    done = DONE.search(text)
    progress = PROGRESS.findall(text)
    last = done.groups() if done else (progress[-1] if progress else ("0", "", "", "0"))
    executed = EXECUTED.search(text)
    return Result(
        name=name,
        ok=status.returncode == 0,
        runs=int(executed.group(1)) if executed else int(last[0]),
        exec_s=last[3],
        cov=last[1] or "-",
        ft=last[2] or "-",
        corpus=len(list(corpus.iterdir())),
        crashes=sorted(str(p) for p in artifacts.iterdir()),
        log=log,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "names", nargs="*", metavar="NAME",
        help=f"harnesses to run (default all: {', '.join(HARNESSES)})",
    )  # fmt: skip
    parser.add_argument(
        "--time", type=int, default=int(os.environ.get("FUZZ_TIME", "35")),
        help="seconds per harness (default 35, or $FUZZ_TIME)",
    )  # fmt: skip
    parser.add_argument("--python", default=sys.executable, help="the interpreter with atheris")
    parser.add_argument("--work", help="keep corpora, logs and crashes here (default: temporary)")
    args = parser.parse_args(argv)
    names = args.names or list(HARNESSES)
    unknown = sorted(set(names) - set(HARNESSES))
    if unknown:
        parser.error(f"no harness {', '.join(unknown)}; choose from {', '.join(HARNESSES)}")
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="gp-fuzz-"))
    work.mkdir(parents=True, exist_ok=True)
    results = []
    for name in names:
        print(f"== fuzz_{name}: {args.time} s", flush=True)
        result = run(name, args.time, args.python, work)
        results.append(result)
        if not result.ok:
            print("\n".join(result.log.read_text("utf-8", "replace").splitlines()[-40:]))
    head = f"{'harness':<10} {'runs':>10} {'exec/s':>7} {'cov':>6} {'ft':>6} {'corpus':>6}"
    print(f"\n{head}  result")
    for r in results:
        print(f"{r.name:<10} {r.runs:>10} {r.exec_s:>7} {r.cov:>6} {r.ft:>6} {r.corpus:>6}  "
              f"{r.verdict()}")  # fmt: skip
    print(f"total runs: {sum(r.runs for r in results)}; corpora, logs, crashes: {work}")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
