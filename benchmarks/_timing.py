"""The timing helper the benchmark scripts share."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def best(
    fn: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Best time of ``fn`` over ``repeat`` runs, in seconds (GC off while timing): wall
    time, or with ``clock=time.process_time`` CPU time (less moved by other processes)."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            t0 = clock()
            fn()
            times.append(clock() - t0)
        finally:
            gc.enable()
    return min(times)
