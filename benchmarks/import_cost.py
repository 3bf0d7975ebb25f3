"""Import cost of grounding-protos against Google's official client libraries.

Each measurement runs in a fresh interpreter: the time to import the modules and
build one message of each API version (median of several runs), and the peak RSS
of that child minus the peak RSS of a child that only imports ``google.protobuf``.

Linux keeps ``ru_maxrss`` across ``fork`` + ``exec``: a child started straight from
this script would report at least *this* process's RSS. So children start through
``/bin/sh``, whose own fork gives them a fresh high-water mark.
Goal from the issue: ours at least 10x faster to import, and at most half the memory.

``--html`` measures instead what the HTML view's Markdown costs (issue 22, point 4:
is markdown-it-py light enough to be a runtime dependency?): the first
``render(..., "html")`` of a Markdown answer with markdown-it-py against the same
render as raw text (no markdown-it-py), after ``import grounding_protos.citations``;
and the installed size of markdown-it-py (with mdurl) beside that of the runtime
dependencies.

Run: ``python benchmarks/import_cost.py [--repeat N] [--html]``
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# The child times only the statements of a case; its harness imports are the same
# for every case, and the baseline subtracts them (and protobuf's package) from RSS.
CHILD = """
import json, resource, time
t0 = time.perf_counter()
{code}
seconds = time.perf_counter() - t0
print(json.dumps({{"seconds": seconds,
                   "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}}))
"""

BASELINE = "import google.protobuf"
# What any protobuf user pays first (context only: ours includes it).
RUNTIME = "from google.protobuf import descriptor_pb2, descriptor_pool, message_factory"

OURS = """
import grounding_protos.dialogflow_v2beta1 as df
import grounding_protos.discoveryengine_v1 as de1
import grounding_protos.discoveryengine_v1beta as de1b
import grounding_protos.generativelanguage_v1beta3 as gl
df.GroundingMetadata(); de1.Answer(); de1b.GroundingFact(); gl.CitationMetadata()
"""

OFFICIAL = """
from google.cloud.dialogflow_v2beta1.types import grounding as df
from google.cloud.discoveryengine_v1.types import answer as de1
from google.cloud.discoveryengine_v1beta.types import grounding as de1b
from google.ai.generativelanguage_v1beta3.types import citation as gl
df.GroundingMetadata(); de1.Answer(); de1b.GroundingFact(); gl.CitationMetadata()
"""

OFFICIAL_PACKAGES = (
    "google.cloud.dialogflow_v2beta1",
    "google.cloud.discoveryengine_v1",
    "google.cloud.discoveryengine_v1beta",
    "google.ai.generativelanguage_v1beta3",
)


CITATIONS = "import grounding_protos.citations as c"
# the first HTML view of a Markdown answer: imports markdown-it-py (raw: does not)
HTML_VIEW = """
import grounding_protos.citations as c
dom = c.Source(uri="https://dom.example", title="Dom")
c.render("## Köln\\n\\n**Der Dom** ist 157 m hoch. 🏰", [c.Citation(0, 20, sources=(dom,))],
         "html"{raw})
"""
RUNTIME_PACKAGES = ("protobuf", "googleapis-common-protos")
HTML_PACKAGES = ("markdown-it-py", "mdurl")


def installed_size(distribution: str) -> tuple[int, int]:
    """The bytes and files a distribution installed (its RECORD), bytecode caches left out."""
    from importlib.metadata import PackageNotFoundError, files

    try:
        paths = files(distribution) or []
    except PackageNotFoundError:
        return 0, 0
    total = count = 0
    for path in paths:
        if "__pycache__" in path.parts:
            continue
        located = Path(str(path.locate()))
        if located.is_file():
            total += located.stat().st_size
            count += 1
    return total, count


def html_cost(repeat: int) -> None:
    """What markdown-it-py adds: time and memory of the first HTML view, and disk."""
    if importlib.util.find_spec("markdown_it") is None:
        print("markdown-it-py is not installed: pip install 'grounding-protos[html]'")
        return
    cases = {
        "import grounding_protos.citations": CITATIONS,
        "+ first HTML view, raw text": HTML_VIEW.format(raw=", raw_text=True"),
        "+ first HTML view, Markdown (markdown-it-py)": HTML_VIEW.format(raw=""),
    }
    # interleaved, fastest of the runs: the machine's load hits every case alike
    for code in cases.values():
        run_once(code)  # warm-up: bytecode caches, disk cache
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, code in cases.items():
            runs[name].append(run_once(code))
    best = {
        name: Result(min(r["seconds"] for r in rs), min(r["rss_kb"] for r in rs))
        for name, rs in runs.items()
    }
    print()
    print(
        f"{'case (fastest of ' + str(repeat) + ' interleaved runs)':<46} {'time':>10} {'RSS':>10}"
    )
    for name, r in best.items():
        print(f"{name:<46} {r.seconds * 1000:>7.1f} ms {r.rss_kb / 1024:>6.1f} MiB")
    raw, md = (
        best["+ first HTML view, raw text"],
        best["+ first HTML view, Markdown (markdown-it-py)"],
    )
    print(f"markdown-it-py's share of the first HTML view: {md.seconds / raw.seconds:.2f}x the "
          f"time (+{(md.seconds - raw.seconds) * 1000:.1f} ms), "
          f"+{(md.rss_kb - raw.rss_kb) / 1024:.1f} MiB")  # fmt: skip
    print("import grounding_protos.citations is unchanged by it: it imports no markdown-it-py")
    runtime = [installed_size(d) for d in RUNTIME_PACKAGES]
    html = [installed_size(d) for d in HTML_PACKAGES]
    runtime_bytes, html_bytes = sum(b for b, _ in runtime), sum(b for b, _ in html)
    share = html_bytes / max(runtime_bytes, 1)
    print(f"installed: runtime dependencies ({', '.join(RUNTIME_PACKAGES)}) "
          f"{runtime_bytes / 1e6:.2f} MB; markdown-it-py + mdurl {html_bytes / 1e6:.2f} MB "
          f"({share:.2f}x, {len(HTML_PACKAGES)} packages)")  # fmt: skip


@dataclass
class Result:
    """Median import time (s) and peak RSS (KiB) of one case over its runs."""

    seconds: float
    rss_kb: float


def run_once(code: str) -> dict[str, float]:
    """Run ``code`` in a fresh interpreter and return what the child measured."""
    command = [sys.executable, "-c", CHILD.format(code=code.strip())]
    proc = subprocess.run(
        ["/bin/sh", "-c", '"$@"; exit $?', "sh", *command],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{proc.stderr}")
    data: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    if sys.platform == "darwin":  # bytes there, KiB on Linux
        data["rss_kb"] /= 1024
    return data


def measure(code: str, repeat: int) -> Result:
    """Median over ``repeat`` runs, after one warm-up run (bytecode caches, disk cache)."""
    run_once(code)
    runs = [run_once(code) for _ in range(repeat)]
    return Result(
        seconds=statistics.median(r["seconds"] for r in runs),
        rss_kb=statistics.median(r["rss_kb"] for r in runs),
    )


def official_missing() -> list[str]:
    """The official packages that are not installed."""
    missing = []
    for name in OFFICIAL_PACKAGES:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            missing.append(name)
    return missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per case (default 5)")
    parser.add_argument("--html", action="store_true", help="what markdown-it-py costs instead")
    args = parser.parse_args()

    from google.protobuf import __version__ as protobuf_version
    from google.protobuf.internal import api_implementation

    print(
        f"Python {platform.python_version()}, protobuf {protobuf_version} "
        f"({api_implementation.Type()} implementation), median of {args.repeat} runs"
    )
    if args.html:
        html_cost(args.repeat)
        return
    baseline = measure(BASELINE, args.repeat)
    runtime = measure(RUNTIME, args.repeat)
    cases = {"grounding-protos": measure(OURS, args.repeat)}
    missing = official_missing()
    if missing:
        print(f"note: official libraries not installed ({', '.join(missing)}); "
              "install grounding-protos[official] to compare")  # fmt: skip
    else:
        cases["official clients"] = measure(OFFICIAL, args.repeat)

    print()
    print(f"{'case':<18} {'import time':>12} {'memory over protobuf':>22}")
    print(f"{'baseline':<18} {baseline.seconds * 1000:>9.1f} ms {'(import google.protobuf)':>22}")
    runtime_mib = (runtime.rss_kb - baseline.rss_kb) / 1024
    print(f"{'protobuf runtime':<18} {runtime.seconds * 1000:>9.1f} ms {runtime_mib:>19.1f} MiB")
    extra: dict[str, float] = {}
    for name, result in cases.items():
        extra[name] = max(result.rss_kb - baseline.rss_kb, 1.0)
        print(f"{name:<18} {result.seconds * 1000:>9.1f} ms {extra[name] / 1024:>19.1f} MiB")

    if "official clients" in cases:
        ours, theirs = cases["grounding-protos"], cases["official clients"]
        time_ratio = theirs.seconds / ours.seconds
        memory_ratio = extra["official clients"] / extra["grounding-protos"]
        print()
        print(f"official/ours time:   {time_ratio:6.1f}x  (goal >= 10x)")
        print(f"official/ours memory: {memory_ratio:6.1f}x  (goal >= 2x, i.e. ours <= half)")


if __name__ == "__main__":
    main()
