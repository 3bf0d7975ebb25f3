"""Benchmark of citations.resolve_urls; prints ratios measured in this one run.

Run: ``PYTHONPATH=src python benchmarks/redirects.py`` (about 15 s; needs httpx, the
``[resolve]`` extra). Not a test: the goals are printed next to the figures, nothing
fails. Nothing leaves the machine: the redirects are served on 127.0.0.1.

A local HTTP server (its own process, a thread per connection, HTTP/1.1 keep-alive)
answers every request after 50 ms with a 302 to a distinct page. An answer cites
1,000 distinct redirects.

- ``resolve_urls`` with the default concurrency (8) against the sequential time.
  The sequential time is ``resolve_urls(..., concurrency=1)`` (the same code asking
  one URL at a time) measured on 100 of the redirects and multiplied by 10: the
  answers' 50 ms dominate and do not change with the URL. Goal: >= 7x.
- the same answer again with the disk cache the first run filled (``cache=``),
  five times (first, median and best printed; garbage collected before each).
  Goal: no request at all, <= 50 ms.
"""

from __future__ import annotations

import gc
import http.client
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from grounding_protos.citations import Citation, Grounded, Source, resolve_urls

URLS = 1_000
DELAY = 0.050
SAMPLE = 100
REPEAT = 5  # runs from the disk cache (the machine may be busy: the best counts)
PREFIX = "/grounding-api-redirect/"


class _Slow(BaseHTTPRequestHandler):
    """HEAD: a 302 after the delay, counted; GET /hits: the count so far."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_HEAD(self) -> None:
        with self.server.lock:
            self.server.hits += 1
        time.sleep(self.server.delay)
        self.send_response(302)
        self.send_header("Location", "https://page.example/" + self.path.rsplit("/", 1)[-1])
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        body = str(self.server.hits).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256
    delay = DELAY
    hits = 0
    lock = threading.Lock()


def serve(delay: float) -> None:
    """Run the server (``redirects.py --serve DELAY``); its port goes to stdout."""
    server = _Server(("127.0.0.1", 0), _Slow)
    server.delay = delay
    print(server.server_address[1], flush=True)
    server.serve_forever(poll_interval=0.05)


@contextmanager
def serving(delay: float) -> Iterator[tuple[str, Callable[[], int]]]:
    """The server, in a process of its own (a remote server does not compete with the
    client for the GIL): its base URL, and a function giving its request count."""
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(delay)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())

        def hits() -> int:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            try:
                connection.request("GET", "/hits")
                return int(connection.getresponse().read())
            finally:
                connection.close()

        yield f"http://127.0.0.1:{port}", hits
    finally:
        process.terminate()
        process.wait(10)


def answer(base: str, count: int, tag: str) -> Grounded:
    """An answer citing ``count`` distinct redirects, one character each."""
    sources = [
        Source(uri=f"{base}{PREFIX}{tag}-{i}", title=f"site{i}.example", id=str(i), kind="web")
        for i in range(count)
    ]
    text = "x" * count
    citations = [Citation(i, i + 1, i, i + 1, "x", (s,)) for i, s in enumerate(sources)]
    return Grounded(text, citations=citations, declared_sources=sources)


def timed(grounded: Grounded, **options: object) -> tuple[float, Grounded]:
    gc.collect()
    started = time.perf_counter()
    result = resolve_urls(grounded, redirect_hosts={"127.0.0.1"}, deadline=600, **options)  # type: ignore[arg-type]
    return time.perf_counter() - started, result


def check(result: Grounded, count: int) -> None:
    if result.problems:
        raise SystemExit(f"unexpected problems: {result.problems[:3]}")
    if len({s.uri for s in result.declared_sources}) != count:
        raise SystemExit("the redirects were not all resolved to distinct pages")


def run(count: int = URLS, delay: float = DELAY, sample: int = SAMPLE) -> None:
    """Measure and print; ``count``, ``delay`` and ``sample`` shrink it for a smoke test."""
    with serving(delay) as (base, hits), tempfile.TemporaryDirectory() as scratch:
        cache = Path(scratch) / "redirects.sqlite"
        print(f"{count} distinct redirects, each answered after {delay * 1000:g} ms (127.0.0.1)")

        seq_time, seq = timed(answer(base, sample, "seq"), concurrency=1)
        check(seq, sample)
        sequential = seq_time * count / sample
        print(
            f"  sequential (concurrency 1): {seq_time:.2f} s for {sample} "
            f"-> {sequential:.2f} s for {count} (scaled)"
        )

        grounded = answer(base, count, "run")
        before = hits()
        par_time, par = timed(grounded, cache=cache)
        check(par, count)
        asked = hits() - before
        print(f"  concurrency 8 (default):    {par_time:.2f} s, {asked} requests")
        print(f"  speed-up: {sequential / par_time:.1f}x (goal >= 7x)")

        before = hits()
        times = []
        for _ in range(REPEAT):
            cached_time, cached = timed(grounded, cache=cache)
            times.append(cached_time)
            check(cached, count)
            if cached != par:
                raise SystemExit("the cached run gave another result")
        asked = hits() - before
        print(
            f"  again, from the disk cache: {times[0] * 1000:.1f} ms the first time, "
            f"median {statistics.median(times) * 1000:.1f} ms, best {min(times) * 1000:.1f} ms "
            f"of {REPEAT}; {asked} requests in all (goal: 0 requests, <= 50 ms)"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(float(sys.argv[2]))
    run(*(float(a) if "." in a else int(a) for a in sys.argv[1:]))  # type: ignore[arg-type]
