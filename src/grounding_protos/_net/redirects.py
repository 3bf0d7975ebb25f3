"""Grounding redirect URLs resolved to the pages they point at: the package's only network code.

The work behind ``citations.resolve_urls`` / ``aresolve_urls``; imported lazily by
those two functions and by the command line's ``--resolve-urls``, never by anything
else, and it imports httpx (the ``[resolve]`` extra) only when called.

One request per redirect, without following it: ``HEAD`` (``GET`` without reading
the body where ``HEAD`` is refused with 405 or 501), then the ``Location`` header,
resolved against the request URL, is the page. A ``Location`` that is itself a
grounding redirect is asked in turn (at most :data:`MAX_HOPS` times, a repeat is a
loop); the page itself is never contacted. Requests run on one async client,
at most ``concurrency`` at a time; the sync function runs the same coroutine with
``asyncio.run`` (on a helper thread when the calling thread already runs a loop).

Nothing raises for a URL that cannot be resolved: its sources stay as they were and
a :class:`~grounding_protos._core.model.Problem` with a ``redirect-…`` code says why.
See ``docs/redirects.md``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import math
import operator
import os
import pathlib
import re
import sqlite3
import time
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypeVar
from urllib.parse import SplitResult, urljoin, urlsplit

from grounding_protos._core.model import (
    REDIRECT_HOSTS,
    Grounded,
    Problem,
    Source,
    replace_citation,
)
from grounding_protos._exceptions import (
    ArgumentTypeError,
    ArgumentValueError,
    MissingDependencyError,
)
from grounding_protos._quote import excerpt, shown

if TYPE_CHECKING:
    import httpx

REDIRECT_PATH: Final = "/grounding-api-redirect/"
"""The path every grounding redirect URL starts with."""
DEFAULT_CONCURRENCY: Final = 8
DEFAULT_TIMEOUT: Final = 5.0  # seconds, per request
DEFAULT_DEADLINE: Final = 60.0  # seconds, for the whole call
DEFAULT_TTL: Final = 7 * 24 * 3600.0  # seconds a resolved URL is trusted from the disk cache
MAX_HOPS: Final = 5  # grounding redirects asked in a row for one URL
MAX_LOCATION: Final = 8192  # characters of a Location header
USER_AGENT: Final = "grounding-protos (resolving grounding redirects)"
_REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
_HEAD_REFUSED: Final = frozenset({405, 501})
_SQL_CHUNK: Final = 500  # keys per SELECT … IN (…): under every SQLite's variable limit
_BUSY_TIMEOUT: Final = 10.0  # seconds to wait for another process's write lock
# Whitespace or a control character anywhere in a Location: refused rather than
# guessed at (browsers strip some of them, which can change the scheme).
_BAD_LOCATION: Final = re.compile(r"[\x00-\x20\x7f]")
# Google's own redirect hosts, which answer on https at port 443 only (whatever hosts a
# caller names, or a test makes redirect hosts).
_GOOGLE_HOSTS: Final = REDIRECT_HOSTS
# A path segment that RFC 3986 dot-segment removal takes out, spelled out or
# percent-encoded (a server may decode %2e before it normalises).
_DOT_SEGMENT: Final = re.compile(r"(?:\.|%2e){1,2}", re.IGNORECASE)


# --- Options and outcomes -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Settings:
    """The options of one call, checked."""

    only_redirects: bool = True
    redirect_hosts: frozenset[str] = REDIRECT_HOSTS
    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT
    deadline: float | None = DEFAULT_DEADLINE
    cache: str | None = None
    ttl: float = DEFAULT_TTL

    def is_redirect(self, url: str) -> bool:
        """Whether ``url`` is a grounding redirect to ask: an http(s) URL on a redirect
        host, under :data:`REDIRECT_PATH` as it will be sent, that :meth:`refusal` lets
        through."""
        return self.claims(url) and self.refusal(url) is None

    def claims(self, url: str) -> bool:
        """Whether ``url`` looks like a grounding redirect (its host and raw path)."""
        parts = _split(url)
        return (
            parts is not None
            and _host(url) in self.redirect_hosts
            and parts.path.startswith(REDIRECT_PATH)
        )

    def refusal(self, url: str) -> str | None:
        """Why a URL that :meth:`claims` to be a grounding redirect is not asked, if it
        is not: a dot segment in its path (httpx removes them before sending, so
        ``/grounding-api-redirect/../../x`` would ask ``/x``), or, on Google's redirect
        host, plain ``http`` or a port other than 443. A host given in
        ``redirect_hosts=`` may use http and any port (a local server, a mirror)."""
        parts = _split(url)
        if parts is None:
            return None
        if any(_DOT_SEGMENT.fullmatch(s) for s in parts.path.split("/")):
            return "its path has a dot segment ('.' or '..'), which would change the path sent"
        if _host(url) in _GOOGLE_HOSTS:
            if parts.scheme.lower() != "https":
                return f"{parts.scheme}: on {parts.hostname}, whose redirects are https"
            if parts.port not in (None, 443):
                return f"port {parts.port} on {parts.hostname}, whose redirects use 443"
        return None

    def wanted(self, url: str) -> bool:
        """Whether ``url`` is to be asked: a grounding redirect, or with
        ``only_redirects=False`` any http(s) URL."""
        return self.is_redirect(url) or (not self.only_redirects and _split(url) is not None)


def settings(
    *,
    only_redirects: bool,
    redirect_hosts: Collection[str] | None,
    concurrency: int,
    timeout: float,
    deadline: float | None,
    cache: str | os.PathLike[str] | None,
    ttl: float,
) -> Settings:
    """The options checked: a wrong one raises :class:`ArgumentValueError` or
    :class:`ArgumentTypeError` naming it."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int):
        raise ArgumentTypeError(f"concurrency must be an int, not {type(concurrency).__name__}")
    if concurrency < 1:
        raise ArgumentValueError(f"concurrency must be 1 or more, not {concurrency}")
    for name, value in (("timeout", timeout), ("ttl", ttl), ("deadline", deadline)):
        if value is None and name == "deadline":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ArgumentTypeError(f"{name} must be a number of seconds, not {value!r}")
        if not (value > 0 and math.isfinite(value)):
            raise ArgumentValueError(f"{name} must be a positive number of seconds, not {value}")
    if redirect_hosts is None:
        hosts = REDIRECT_HOSTS
    elif isinstance(redirect_hosts, str):
        raise ArgumentTypeError("redirect_hosts must be a collection of host names, not a str")
    else:
        hosts = frozenset(h.lower() for h in redirect_hosts)
    return Settings(
        only_redirects=bool(only_redirects),
        redirect_hosts=hosts,
        concurrency=concurrency,
        timeout=float(timeout),
        deadline=None if deadline is None else float(deadline),
        cache=None if cache is None else os.fspath(cache),
        ttl=float(ttl),
    )


@dataclass(frozen=True, slots=True)
class Outcome:
    """What asking one URL gave: the page (``target``), or why not (``code``, ``message``).

    ``target`` is ``None`` with an empty ``code`` when the URL is already the page
    (an ``only_redirects=False`` URL that answered without redirecting).
    """

    target: str | None
    code: str = ""
    message: str = ""


def _failed(code: str, message: str) -> Outcome:
    return Outcome(None, code, message)


# --- The public functions' work ---------------------------------------------------------------


def resolve(grounded: Grounded, options: Settings) -> Grounded:
    """``resolve_urls``: :func:`aresolve` run to completion from synchronous code."""
    require_httpx()
    # The main task returns nothing: asyncio.run's SIGINT handling (CPython 3.11) can
    # repr() the main task, and with it its result, the whole answer, twice per call.
    box: list[Grounded] = []

    async def main() -> None:
        box.append(await aresolve(grounded, options))

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(main())
        return box[0]
    # Called from inside a running event loop (a notebook, an async app calling sync
    # code): that loop cannot be blocked on, so the work gets a loop of its own.
    with ThreadPoolExecutor(1, thread_name_prefix="grounding-protos-redirects") as pool:
        pool.submit(lambda: asyncio.run(main())).result()
    return box[0]


async def aresolve(grounded: Grounded, options: Settings) -> Grounded:
    """``aresolve_urls``: every wanted URL asked once, the sources rebuilt."""
    if not isinstance(grounded, Grounded):
        raise ArgumentTypeError(
            f"resolve_urls() takes a Grounded (from citations.read), not {type(grounded).__name__}"
        )
    require_httpx()
    places = _source_places(grounded)
    urls = list(dict.fromkeys(s.uri for s in places if s.uri and options.wanted(s.uri)))
    outcomes: dict[str, Outcome] = {}
    for source in places:  # looks like a redirect, but is not sent as it is written
        reason = source.uri and options.claims(source.uri) and options.refusal(source.uri)
        if source.uri and reason:
            outcomes[source.uri] = _failed("redirect-refused", f"not asked: {reason}")
    for url in urls:
        if _has_userinfo(url):
            outcomes[url] = _failed(
                "redirect-credentials", "has a user name or password in it; not sent anywhere"
            )
    asked = [u for u in urls if u not in outcomes]
    trouble: list[Problem] = []
    if options.cache is not None and asked:
        try:
            cached = await asyncio.to_thread(read_cache, options.cache, asked, options.ttl)
        except (sqlite3.Error, OSError) as exc:
            trouble.append(_cache_problem(options.cache, "read", exc))
        else:
            outcomes.update((url, Outcome(target)) for url, target in cached.items())
            asked = [u for u in asked if u not in outcomes]
    if asked:
        fetched = await fetch_all(asked, options)
        outcomes.update(fetched)
        found = {u: o.target for u, o in fetched.items() if o.target is not None}
        if options.cache is not None and found and not trouble:
            try:
                await asyncio.to_thread(write_cache, options.cache, found, options.ttl)
            except (sqlite3.Error, OSError) as exc:
                trouble.append(_cache_problem(options.cache, "written", exc))
    resolved = rebuild(grounded, places, outcomes)
    resolved.problems.extend(trouble)
    return resolved


def _cache_problem(path: str, verb: str, exc: BaseException) -> Problem:
    return Problem(
        "redirect-cache-error",
        f"the redirect cache {path} could not be {verb} ({type(exc).__name__}: {exc}); "
        "resolved without it",
        "",
    )


def require_httpx() -> None:
    try:
        import httpx  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(
            "resolving redirect URLs needs httpx: pip install 'grounding-protos[resolve]'"
        ) from exc


# --- Sources in, sources out --------------------------------------------------------------------


def _source_places(grounded: Grounded) -> dict[Source, str]:
    """Every distinct source, with the first place it is met (``declared_sources[2]``,
    else ``citations[4].sources[0]``): the path its problems name."""
    places: dict[Source, str] = {}
    for i, source in enumerate(grounded.declared_sources):
        places.setdefault(source, f"declared_sources[{i}]")
    for i, citation in enumerate(grounded.citations):
        for j, source in enumerate(citation.sources):
            places.setdefault(source, f"citations[{i}].sources[{j}]")
    return places


def rebuild(
    grounded: Grounded, places: dict[Source, str], outcomes: dict[str, Outcome]
) -> Grounded:
    """A new :class:`Grounded` whose resolved sources point at their pages, with one
    problem per source that could not be resolved."""
    new: dict[Source, Source] = {}
    problems = list(grounded.problems)
    for source, place in places.items():
        outcome = outcomes.get(source.uri) if source.uri else None
        if outcome is None:
            continue
        if outcome.target is not None:
            new[source] = _replace(
                source,
                uri=outcome.target,
                domain=_host(outcome.target),
                redirect_uri=source.redirect_uri or source.uri,  # the first redirect stays
            )
        elif outcome.code:
            problems.append(
                Problem(
                    outcome.code, f"{excerpt(source.uri or '')}: {outcome.message}", f"{place}.uri"
                )
            )
    if not new:
        return dataclasses.replace(
            grounded,
            citations=list(grounded.citations),
            declared_sources=list(grounded.declared_sources),
            problems=problems,
        )

    def swap(sources: Iterable[Source]) -> tuple[Source, ...]:
        return tuple(new.get(s, s) for s in sources)

    citations = [  # replace_citation keeps each citation's text shared with the answer
        replace_citation(c, sources=swap(c.sources)) if any(s in new for s in c.sources) else c
        for c in grounded.citations
    ]
    return dataclasses.replace(
        grounded,
        citations=citations,
        declared_sources=list(swap(grounded.declared_sources)),
        problems=problems,
    )


@functools.lru_cache(maxsize=4096)
def _split(url: str) -> SplitResult | None:
    """``urlsplit(url)`` for an http(s) URL with a host, else ``None`` (memoized: each URL
    is looked at a few times)."""
    try:
        parts = urlsplit(url)
        if parts.scheme.lower() in ("http", "https") and parts.hostname:
            parts.port  # noqa: B018 - raises ValueError for a bad port
            return parts
    except ValueError:
        pass
    return None


@functools.lru_cache(maxsize=4096)
def _host(url: str) -> str | None:
    """The host of an http(s) URL (lower case, no port), else ``None``."""
    parts = _split(url)
    return parts.hostname if parts is not None else None


_Record = TypeVar("_Record", bound=Source)


_set = object.__setattr__
_Layout = tuple[Callable[[Any], tuple[Any, ...]], dict[str, int]]
_LAYOUTS: dict[type, _Layout] = {}


def _layout(cls: type) -> _Layout:
    """A dataclass's fields getter (all values at once) and each field's position."""
    layout = _LAYOUTS.get(cls)
    if layout is None:
        names = [f.name for f in dataclasses.fields(cls)]
        getter = operator.attrgetter(*names)
        layout = _LAYOUTS[cls] = (getter, {name: i for i, name in enumerate(names)})
    return layout


def _replace(record: _Record, **changes: Any) -> _Record:
    """``dataclasses.replace`` for a Source or a Citation (``changes`` name fields),
    faster (an answer can have thousands of sources). The fields are set
    directly (both classes are frozen, and check nothing in ``__init__``)."""
    get, index = _layout(type(record))
    new = object.__new__(type(record))
    for name, value in zip(index, get(record), strict=True):
        _set(new, name, changes.get(name, value))
    return new


def _has_userinfo(url: str) -> bool:
    parts = _split(url)
    return parts is not None and "@" in parts.netloc


# --- Asking -------------------------------------------------------------------------------------


async def fetch_all(urls: Sequence[str], options: Settings) -> dict[str, Outcome]:
    """Every URL asked, at most ``options.concurrency`` requests at a time; what is not
    done by the deadline is a ``redirect-deadline`` failure."""
    limit = asyncio.Semaphore(options.concurrency)
    async with _client(options) as client:

        def ask(url: str) -> Awaitable[Outcome]:
            return _ask(client, url, options, limit)

        async def one(url: str) -> Outcome:
            return await _follow(url, options, ask)

        tasks = {url: asyncio.ensure_future(one(url)) for url in urls}
        done, pending = await asyncio.wait(tasks.values(), timeout=options.deadline)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)
    out: dict[str, Outcome] = {}
    for url, task in tasks.items():
        if task in done and not task.cancelled() and task.exception() is None:
            out[url] = task.result()
        elif task in done and not task.cancelled():
            error = task.exception()
            out[url] = _failed("redirect-error", f"{type(error).__name__}: {error}")
        else:
            out[url] = _failed(
                "redirect-deadline", f"not resolved within the deadline of {options.deadline:g} s"
            )
    return out


def _client(options: Settings) -> httpx.AsyncHTTPTransport:
    """A bare connection pool. Requests go to it directly, not through an
    ``httpx.AsyncClient``: nothing follows or even parses a redirect, no cookie jar,
    no authentication (``.netrc``, user info), no proxy variables, and no header but
    ``Host``, ``User-Agent`` and ``Accept``."""
    import httpx

    return httpx.AsyncHTTPTransport(
        limits=httpx.Limits(
            max_connections=options.concurrency, max_keepalive_connections=options.concurrency
        ),
        retries=0,
    )


async def _follow(url: str, options: Settings, ask: Callable[[str], Awaitable[Outcome]]) -> Outcome:
    """The page ``url`` leads to, asking again while the answer is a grounding redirect."""
    seen = {url}
    current = url
    for _ in range(MAX_HOPS):
        outcome = await ask(current)
        target = outcome.target
        if target is None:
            return outcome
        if target in seen:
            return _failed(
                "redirect-loop",
                f"redirects back to {excerpt(target)}"
                if target == url
                else f"loops at {excerpt(target)}",
            )
        if _has_userinfo(target):  # never Google's: a redirect to follow, or a page
            # dressed as another host ("https://trusted.example@evil.example/")
            return _failed(
                "redirect-credentials", f"redirects to {excerpt(target)} with a user name"
            )
        if options.claims(target) and (reason := options.refusal(target)):
            return _failed("redirect-refused", f"redirects to {excerpt(target)}: {reason}")
        if not options.is_redirect(target):
            return outcome
        seen.add(target)
        current = target
    return _failed("redirect-too-many", f"still a redirect after {MAX_HOPS} requests")


async def _ask(
    client: httpx.AsyncHTTPTransport, url: str, options: Settings, limit: asyncio.Semaphore
) -> Outcome:
    """One URL's answer: HEAD, else GET without reading the body; never raises."""
    import httpx

    async with limit:
        try:
            status, location = await asyncio.wait_for(
                _request(client, "HEAD", url, options.timeout), options.timeout
            )
            if status in _HEAD_REFUSED:
                status, location = await asyncio.wait_for(
                    _request(client, "GET", url, options.timeout), options.timeout
                )
        except (TimeoutError, httpx.TimeoutException):
            return _failed("redirect-timeout", f"no answer within {options.timeout:g} s")
        except httpx.InvalidURL as exc:
            return _failed("redirect-invalid-url", f"not a valid URL: {exc}")
        except httpx.HTTPError as exc:
            return _failed("redirect-network-error", f"{type(exc).__name__}: {exc}")
    return _read_answer(url, status, location, options)


async def _request(
    client: httpx.AsyncHTTPTransport, method: str, url: str, timeout: float
) -> tuple[int, str | None]:
    """The status and ``Location`` of one request; the body is never read."""
    import httpx

    request = httpx.Request(
        method,
        url,
        headers={"User-Agent": USER_AGENT, "Accept": "*/*"},
        extensions={"timeout": httpx.Timeout(timeout).as_dict()},
    )
    response = await client.handle_async_request(request)
    try:
        return response.status_code, response.headers.get("location")
    finally:
        await response.aclose()


def _read_answer(url: str, status: int, location: str | None, options: Settings) -> Outcome:
    if status in _REDIRECT_STATUSES:
        if not location or not location.strip():
            return _failed("redirect-no-location", f"HTTP {status} without a Location header")
        location = location.strip()
        if len(location) > MAX_LOCATION:
            return _failed(
                "redirect-bad-location",
                f"Location of {len(location)} characters (at most {MAX_LOCATION})",
            )
        if _BAD_LOCATION.search(location):
            return _failed(
                "redirect-bad-location", f"Location {shown(location)} holds whitespace or controls"
            )
        # An absolute Location stands alone (urljoin would take "http:///x" for a
        # path on the request's host); a relative one is read against the request.
        try:
            absolute = bool(urlsplit(location).scheme)
            target = location if absolute else urljoin(url, location)
            scheme = urlsplit(target).scheme.lower() or "(none)"
        except ValueError as exc:
            return _failed("redirect-bad-location", f"Location {_excerpt(location)!r}: {exc}")
        if scheme in ("http", "https") and _split(target) is None:
            return _failed("redirect-bad-location", f"Location {_excerpt(target)!r} has no host")
        if _split(target) is None:
            return _failed(
                "redirect-unsafe-scheme",
                f"redirects to {_excerpt(target)!r}, scheme {scheme}: only http and https "
                "are accepted",
            )
        return Outcome(target)
    if 200 <= status < 300 and not options.is_redirect(url):
        return Outcome(None)  # already the page (only_redirects=False)
    if status >= 400:
        return _failed("redirect-http-error", f"HTTP {status}")
    return _failed("redirect-no-location", f"HTTP {status}, not a redirect")


def _excerpt(value: str, limit: int = 80) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


# --- The disk cache ---------------------------------------------------------------------------


def _key(url: str) -> str:
    """What the cache stores for a URL: its SHA-256, so redirect tokens stay off disk."""
    return hashlib.sha256(url.encode("utf-8", "surrogatepass")).hexdigest()


def _connect(path: str) -> sqlite3.Connection:
    """A connection to the cache file, which is set up (WAL mode, the table) if new.

    Two processes setting up one new file at once can get "database is locked" without
    SQLite's busy handler being asked (switching to WAL needs the file to itself): the
    setup is retried until the busy timeout has passed.
    """
    db = sqlite3.connect(path, timeout=_BUSY_TIMEOUT, isolation_level=None)
    try:
        db.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT * 1000)}")
        give_up = time.monotonic() + _BUSY_TIMEOUT
        pause = 0.005
        while True:
            try:
                if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    db.execute("PRAGMA journal_mode = WAL")
                db.execute(
                    "CREATE TABLE IF NOT EXISTS redirects ("
                    " key TEXT PRIMARY KEY, target TEXT NOT NULL, stored REAL NOT NULL)"
                )
                db.execute("CREATE INDEX IF NOT EXISTS redirects_stored ON redirects (stored)")
                return db
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > give_up:
                    raise
                time.sleep(pause)
                pause = min(pause * 2, 0.1)
    except BaseException:
        db.close()
        raise


def _connect_to_read(path: str) -> sqlite3.Connection:
    """A connection for reading: as :func:`_connect`, or, for a cache that cannot be
    written (a read-only file or folder: WAL mode needs its ``-shm`` file), the file
    opened read-only as it is (``immutable``: nothing can change it meanwhile)."""
    try:
        return _connect(path)
    except sqlite3.OperationalError:
        if not os.path.isfile(path):
            raise
    uri = pathlib.Path(path).resolve().as_uri() + "?mode=ro&immutable=1"
    return sqlite3.connect(uri, uri=True, timeout=_BUSY_TIMEOUT, isolation_level=None)


def read_cache(path: str, urls: Sequence[str], ttl: float) -> dict[str, str]:
    """The targets stored for ``urls`` less than ``ttl`` seconds ago."""
    by_key = {_key(u): u for u in urls}
    keys = list(by_key)
    oldest = time.time() - ttl
    found: dict[str, str] = {}
    db = _connect_to_read(path)
    try:
        for i in range(0, len(keys), _SQL_CHUNK):
            chunk = keys[i : i + _SQL_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = db.execute(
                f"SELECT key, target FROM redirects WHERE stored > ? AND key IN ({marks})",
                [oldest, *chunk],
            )
            for key, target in rows:
                if isinstance(target, str) and _split(target) is not None:
                    found[by_key[key]] = target
    finally:
        db.close()
    return found


def write_cache(path: str, targets: dict[str, str], ttl: float) -> None:
    """Store the resolved URLs (one transaction); drop the entries older than ``ttl``."""
    now = time.time()
    db = _connect(path)
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(
                "INSERT OR REPLACE INTO redirects (key, target, stored) VALUES (?, ?, ?)",
                [(_key(u), t, now) for u, t in targets.items()],
            )
            db.execute("DELETE FROM redirects WHERE stored < ?", (now - ttl,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    finally:
        db.close()
