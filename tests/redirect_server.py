"""A real HTTP server on 127.0.0.1 that behaves like grounding redirects, good and bad.

Every path starts with ``/grounding-api-redirect/`` (so that ``redirect_hosts=
{"127.0.0.1"}`` makes them grounding redirects); the next segment says what to do:

- ``to/<status>/<name>``: answer ``status`` with ``Location: http://page.example/<name>``
- ``head405/<name>``, ``head501/<name>``: refuse HEAD with that status; GET redirects
- ``endless-get/<name>``: refuse HEAD; GET redirects, then sends a body that never ends
- ``slow/<ms>/<name>``: wait, then redirect
- ``status/<code>``: answer ``code`` without a ``Location``
- ``location?l=<value>``: redirect to exactly ``value`` (relative, ``javascript:``, …)
- ``loop/<name>``: redirect to itself; ``chain/<n>``: to ``chain/<n-1>``, ``chain/0``
  to a page
- ``cookie/<name>``: set a cookie and redirect

The server counts requests per path, the most requests handled at once, and keeps
each request's method and headers.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PREFIX = "/grounding-api-redirect/"
PAGE = "http://page.example/"


@dataclass
class Stats:
    """What the server saw."""

    hits: Counter[str] = field(default_factory=Counter)
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    active: int = 0
    max_active: int = 0
    delay: float = 0.0  # seconds every answer waits (for the concurrency tests)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def total(self) -> int:
        with self.lock:
            return sum(self.hits.values())

    def reset(self) -> None:
        with self.lock:
            self.hits.clear()
            self.requests.clear()
            self.max_active = 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_HEAD(self) -> None:
        self._answer(head=True)

    def do_GET(self) -> None:
        self._answer(head=False)

    def _answer(self, *, head: bool) -> None:
        stats = self.server.stats
        with stats.lock:
            stats.hits[self.path] += 1
            stats.requests.append((self.command, self.path, dict(self.headers.items())))
            stats.active += 1
            stats.max_active = max(stats.max_active, stats.active)
        # Counted from arrival to just before the answer, a time the client's slot is
        # surely held (after the answer is sent, the client may already send the next).
        try:
            if stats.delay:
                time.sleep(stats.delay)
        finally:
            with stats.lock:
                stats.active -= 1
        self._route(head)

    def _send(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _route(self, head: bool) -> None:
        parts = urlsplit(self.path)
        if not parts.path.startswith(PREFIX):
            self._send(404)
            return
        what, _, rest = parts.path[len(PREFIX) :].partition("/")
        if what == "to":
            status, _, name = rest.partition("/")
            query = f"?{parts.query}" if parts.query else ""
            self._send(int(status), {"Location": PAGE + name + query})
        elif what in ("head405", "head501"):
            if head:
                self._send(int(what[4:]))
            else:
                self._send(302, {"Location": PAGE + rest})
        elif what == "endless-get":
            if head:
                self._send(405)
                return
            self.send_response(302)
            self.send_header("Location", PAGE + rest)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            deadline = time.monotonic() + 10
            try:
                while time.monotonic() < deadline:
                    chunk = b"x" * 4096
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                    time.sleep(0.01)
            except OSError:
                pass
            self.close_connection = True
        elif what == "slow":
            ms, _, name = rest.partition("/")
            time.sleep(int(ms) / 1000)
            with suppress(OSError):
                self._send(302, {"Location": PAGE + name})
        elif what == "status":
            self._send(int(rest))
        elif what == "location":
            self._send(302, {"Location": parse_qs(parts.query)["l"][0]})
        elif what == "loop":
            self._send(302, {"Location": self.path})
        elif what == "chain":
            n = int(rest)
            target = PAGE + "end-of-chain" if n == 0 else f"{PREFIX}chain/{n - 1}"
            self._send(302, {"Location": target})
        elif what == "cookie":
            self._send(302, {"Location": PAGE + rest, "Set-Cookie": "session=secret; Path=/"})
        else:
            self._send(404)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 512
    stats: Stats


@contextmanager
def serve() -> Iterator[tuple[str, Stats]]:
    """A running server: its base URL (``http://127.0.0.1:PORT``) and its stats."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.stats = Stats()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.stats
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
