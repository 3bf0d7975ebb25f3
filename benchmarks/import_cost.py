"""Import cost of grounding-protos against Google's official client libraries.

Each measurement runs in a fresh interpreter: the time to import the modules and
build one message of each API version (median of several runs), and the peak RSS
of that child minus the peak RSS of a child that only imports ``google.protobuf``.

Linux keeps ``ru_maxrss`` across ``fork`` + ``exec``: a child started straight from
this script would report at least *this* process's RSS. So children start through
``/bin/sh``, whose own fork gives them a fresh high-water mark.
Goal from the issue: ours at least 10x faster to import, and at most half the memory.

Run: ``python benchmarks/import_cost.py [--repeat N]``
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
    args = parser.parse_args()

    from google.protobuf import __version__ as protobuf_version
    from google.protobuf.internal import api_implementation

    print(
        f"Python {platform.python_version()}, protobuf {protobuf_version} "
        f"({api_implementation.Type()} implementation), median of {args.repeat} runs"
    )
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
