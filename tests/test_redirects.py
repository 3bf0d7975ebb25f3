"""citations.resolve_urls / aresolve_urls against a real HTTP server on 127.0.0.1.

Nothing here reaches the internet: every URL asked is the local server's (a guard
refuses to look up any other host), and the pages redirected to (``page.example``)
are never contacted.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import (
    ArgumentTypeError,
    ArgumentValueError,
    MissingDependencyError,
)
from grounding_protos._net import redirects as _redirects
from grounding_protos.citations import (
    Citation,
    Grounded,
    Source,
    aresolve_urls,
    number_sources,
    render,
    resolve_urls,
    source_list,
)
from tests.redirect_server import PAGE, PREFIX, Stats, serve

LOCAL = frozenset({"127.0.0.1"})
FAST: dict[str, Any] = {"redirect_hosts": LOCAL, "timeout": 2.0, "deadline": 20.0}
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def local_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse to look up any host but the local server's."""
    real = socket.getaddrinfo

    def guarded(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in ("127.0.0.1", "localhost", b"127.0.0.1"):
            raise OSError(f"test guard: no lookup of {host!r}")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", guarded)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Stats]]:
    with serve() as running:
        yield running


@pytest.fixture
def base(server: tuple[str, Stats]) -> str:
    server[1].reset()
    server[1].delay = 0.0
    return server[0]


@pytest.fixture
def stats(server: tuple[str, Stats]) -> Stats:
    return server[1]


def web(uri: str, ident: str = "0", title: str | None = None) -> Source:
    return Source(uri=uri, title=title, id=ident, kind="web")


def grounded_of(*sources: Source) -> Grounded:
    """An answer ``"ab…"`` with one character cited by each source, all declared."""
    text = "".join(chr(ord("a") + i) for i in range(len(sources))) or "x"
    citations = [
        Citation(i, i + 1, i, i + 1, text[i], (s,), path=f"citations[{i}]")
        for i, s in enumerate(sources)
    ]
    return Grounded(text, citations=citations, declared_sources=list(sources))


def one(base: str, path: str, **options: Any) -> tuple[Source, Grounded]:
    """Resolve a single source at ``base + PREFIX + path``: its new form and the answer."""
    source = web(base + PREFIX + path)
    result = resolve_urls(grounded_of(source), **{**FAST, **options})
    assert result.citations[0].sources[0] == result.declared_sources[0]
    return result.declared_sources[0], result


def codes(grounded: Grounded) -> list[str]:
    return [p.code for p in grounded.problems]


# --- Redirects that resolve ---------------------------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_every_redirect_status_gives_the_page(base: str, stats: Stats, status: int) -> None:
    redirect = f"{base}{PREFIX}to/{status}/article-{status}?q=1"
    source, result = one(base, f"to/{status}/article-{status}?q=1")
    assert source.uri == f"{PAGE}article-{status}?q=1"
    assert source.domain == "page.example"
    assert source.redirect_uri == redirect
    assert (source.id, source.kind, source.title) == ("0", "web", None)
    assert result.problems == []
    assert [m for m, _, _ in stats.requests] == ["HEAD"]


@pytest.mark.parametrize("refusal", ["head405", "head501"])
def test_a_refused_head_is_asked_again_with_get(base: str, stats: Stats, refusal: str) -> None:
    source, result = one(base, f"{refusal}/story")
    assert source.uri == PAGE + "story" and result.problems == []
    assert [m for m, _, _ in stats.requests] == ["HEAD", "GET"]


def test_get_does_not_read_the_body(base: str) -> None:
    # The body never ends: reading it would run into the timeout.
    source, result = one(base, "endless-get/big", timeout=1.0)
    assert source.uri == PAGE + "big" and result.problems == []


def test_a_relative_location_is_resolved_against_the_request(base: str) -> None:
    for location, expected in [
        ("/elsewhere/page?x=1", f"{base}/elsewhere/page?x=1"),
        ("../up?x=2", f"{base}/up?x=2"),
        ("//other.example/p", "http://other.example/p"),
        ("HTTPS://Upper.Example/P", "HTTPS://Upper.Example/P"),
    ]:
        source, result = one(base, "location?l=" + quote(location, safe=""))
        assert (source.uri, result.problems) == (expected, []), location
        assert source.domain == urlsplit(expected).hostname


def test_a_redirect_to_a_redirect_is_followed_to_the_page(base: str, stats: Stats) -> None:
    source, result = one(base, "chain/3")
    assert source.uri == PAGE + "end-of-chain" and result.problems == []
    assert stats.total() == 4  # chain/3, 2, 1, 0; the page itself is never asked
    assert source.redirect_uri == f"{base}{PREFIX}chain/3"


def test_too_long_a_chain_is_reported(base: str) -> None:
    source, result = one(base, "chain/9")
    assert source.uri == f"{base}{PREFIX}chain/9"
    assert codes(result) == ["redirect-too-many"]


def test_a_source_resolved_before_keeps_its_first_redirect(base: str) -> None:
    earlier = Source(uri=f"{base}{PREFIX}to/302/x", redirect_uri="https://first.example/r")
    result = resolve_urls(grounded_of(earlier), **FAST)
    assert result.declared_sources[0].uri == PAGE + "x"
    assert result.declared_sources[0].redirect_uri == "https://first.example/r"


def test_nothing_resolved_still_gives_lists_of_its_own(base: str) -> None:
    answer = grounded_of(web("https://plain.example/"))
    result = resolve_urls(answer, **FAST)
    assert result == answer
    assert result.citations is not answer.citations
    assert result.declared_sources is not answer.declared_sources
    assert result.problems is not answer.problems


# --- Failures: the source stays, a problem says why -------------------------------------------


@pytest.mark.parametrize(
    ("path", "code", "said"),
    [
        ("status/404", "redirect-http-error", "HTTP 404"),
        ("status/500", "redirect-http-error", "HTTP 500"),
        ("status/200", "redirect-no-location", "HTTP 200"),
        ("status/302", "redirect-no-location", "without a Location"),
        ("location?l=" + quote("javascript:alert(1)"), "redirect-unsafe-scheme", "javascript"),
        ("location?l=" + quote("file:///etc/passwd"), "redirect-unsafe-scheme", "file"),
        ("location?l=" + quote("data:text/html,hi"), "redirect-unsafe-scheme", "data"),
        ("location?l=" + quote("http:///no-host"), "redirect-bad-location", "no host"),
        ("location?l=" + quote("http://[::1"), "redirect-bad-location", "Location"),
        ("location?l=" + quote(" javascript:alert(1)"), "redirect-unsafe-scheme", "javascript"),
        ("location?l=" + quote("java\tscript:alert(1)"), "redirect-bad-location", "whitespace"),
        ("loop/a", "redirect-loop", "back to"),
    ],
)
def test_failures_leave_the_source_and_add_a_problem(
    base: str, path: str, code: str, said: str
) -> None:
    before = web(base + PREFIX + path)
    other = web("https://kept.example/", ident="1")
    result = resolve_urls(grounded_of(other, before), **FAST)
    assert result.declared_sources == [other, before]
    assert result.citations[1].sources == (before,)
    [problem] = result.problems
    assert problem.code == code
    assert problem.path == "declared_sources[1].uri"
    assert said in problem.message and before.uri in problem.message  # type: ignore[operator]


def test_a_slow_answer_times_out(base: str) -> None:
    started = time.monotonic()
    source, result = one(base, "slow/3000/late", timeout=0.15)
    assert source.uri == f"{base}{PREFIX}slow/3000/late"
    assert codes(result) == ["redirect-timeout"]
    assert time.monotonic() - started < 2.0  # gave up long before the answer


def test_the_deadline_bounds_the_whole_call(base: str) -> None:
    sources = [web(f"{base}{PREFIX}slow/3000/d{i}", str(i)) for i in range(4)]
    fast = web(f"{base}{PREFIX}to/302/quick", "9")
    started = time.monotonic()
    result = resolve_urls(
        grounded_of(fast, *sources), redirect_hosts=LOCAL, timeout=5.0, deadline=0.25
    )
    assert time.monotonic() - started < 2.0  # gave up long before the answers
    assert result.declared_sources[0].uri == PAGE + "quick"
    assert result.declared_sources[1:] == sources
    assert codes(result) == ["redirect-deadline"] * 4


def test_a_refused_connection_is_a_network_error() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    _source, result = one(f"http://127.0.0.1:{port}", "to/302/x")
    assert codes(result) == ["redirect-network-error"]


def test_credentials_in_a_url_are_never_sent(base: str, stats: Stats) -> None:
    with_user = base.replace("http://", "http://user:pw@") + PREFIX + "to/302/x"
    result = resolve_urls(grounded_of(web(with_user)), **FAST)
    assert codes(result) == ["redirect-credentials"]
    assert stats.total() == 0


# --- What is asked, and what is sent -------------------------------------------------------------


def test_only_grounding_redirects_are_asked_by_default(base: str, stats: Stats) -> None:
    not_a_redirect = web(f"{base}/to/302/x")  # right host, wrong path
    other_host = web("https://example.com" + PREFIX + "x")  # right path, other host
    odd = [web("javascript:alert(1)"), web("not a url"), Source(kind="web"), web("")]
    sources = [not_a_redirect, other_host, *odd]
    result = resolve_urls(grounded_of(*sources), **FAST)
    assert result.declared_sources == sources and result.problems == []
    assert stats.total() == 0


def test_the_default_hosts_are_googles() -> None:
    # With the default hosts, a local URL is not a redirect: nothing is asked.
    source = web("http://127.0.0.1:9" + PREFIX + "to/302/x")
    assert resolve_urls(grounded_of(source)).declared_sources == [source]


def test_only_redirects_false_asks_any_http_url(base: str, stats: Stats) -> None:
    short = web(f"{base}/to/301/long-name")  # not under the redirect path
    page = web(f"{base}/status/200")  # answers without redirecting: already the page
    result = resolve_urls(grounded_of(short, page), only_redirects=False, timeout=2.0)
    assert stats.total() == 2  # asked, though outside PREFIX (where this server has 404s)
    assert codes(result) == ["redirect-http-error", "redirect-http-error"]
    stats.reset()
    short = web(f"{base}{PREFIX}to/301/long-name")
    page = web(f"{base}{PREFIX}status/200")
    result = resolve_urls(grounded_of(short, page), only_redirects=False, timeout=2.0)
    assert result.declared_sources[0].uri == PAGE + "long-name"
    assert result.declared_sources[1] == page and result.problems == []


def test_no_cookie_referrer_or_credentials_are_sent(base: str, stats: Stats) -> None:
    sources = [web(f"{base}{PREFIX}cookie/c{i}", str(i)) for i in range(3)]
    result = resolve_urls(grounded_of(*sources), **{**FAST, "concurrency": 1})
    assert [s.uri for s in result.declared_sources] == [PAGE + f"c{i}" for i in range(3)]
    for _, _, headers in stats.requests:
        names = {n.lower() for n in headers}
        assert not names & {"cookie", "referer", "authorization", "proxy-authorization"}
        assert headers["User-Agent"].startswith("grounding-protos")


def test_each_distinct_url_is_asked_once(base: str, stats: Stats) -> None:
    uri = f"{base}{PREFIX}to/302/shared"
    twins = [web(uri, ident=str(i), title=f"t{i}") for i in range(5)]
    result = resolve_urls(grounded_of(*twins, twins[0]), **FAST)
    assert stats.hits[f"{PREFIX}to/302/shared"] == 1
    assert {s.uri for s in result.declared_sources} == {PAGE + "shared"}
    assert [s.id for s in result.declared_sources] == ["0", "1", "2", "3", "4", "0"]


@pytest.mark.parametrize("limit", [8, 3])
def test_concurrency_is_bounded(base: str, stats: Stats, limit: int) -> None:
    stats.delay = 0.01
    sources = [web(f"{base}{PREFIX}to/302/p{i}", str(i)) for i in range(300)]
    options = {**FAST, "concurrency": limit} if limit != 8 else FAST  # 8 is the default
    result = resolve_urls(grounded_of(*sources), **options)
    assert [s.uri for s in result.declared_sources] == [PAGE + f"p{i}" for i in range(300)]
    assert stats.total() == 300
    assert 2 <= stats.max_active <= limit


def test_async_and_sync_agree(base: str) -> None:
    sources = [web(f"{base}{PREFIX}to/307/s{i}", str(i)) for i in range(20)]
    sources.append(web(f"{base}{PREFIX}status/404", "x"))
    answer = grounded_of(*sources)
    assert asyncio.run(aresolve_urls(answer, **FAST)) == resolve_urls(answer, **FAST)


def test_the_sync_function_works_inside_a_running_loop(base: str) -> None:
    async def caller() -> Grounded:
        return resolve_urls(grounded_of(web(f"{base}{PREFIX}to/302/in-loop")), **FAST)

    assert asyncio.run(caller()).declared_sources[0].uri == PAGE + "in-loop"


def test_the_input_is_not_changed(base: str) -> None:
    answer = grounded_of(web(f"{base}{PREFIX}to/302/x"), web(f"{base}{PREFIX}status/500"))
    snapshot = (list(answer.citations), list(answer.declared_sources), list(answer.problems))
    result = resolve_urls(answer, **FAST)
    assert (answer.citations, answer.declared_sources, answer.problems) == snapshot
    assert result is not answer and len(result.problems) == 1


# --- One page, one number ------------------------------------------------------------------------


def test_sources_of_one_page_share_a_number(base: str) -> None:
    # Three grounding chunks, two of which redirect to the same page; titles differ.
    a = web(f"{base}{PREFIX}to/302/same", "0", "example.org")
    b = web(f"{base}{PREFIX}to/301/other", "1", "other.org")
    c = web(f"{base}{PREFIX}to/308/same", "2", "Example article")
    answer = grounded_of(a, b, c)
    text = answer.text
    assert text is not None
    assert render(text, answer.citations) == "a[1]b[2]c[3]"  # redirects: all distinct
    result = resolve_urls(answer, **FAST)
    assert render(text, result.citations) == "a[1]b[2]c[1]"
    numbered = number_sources(text, result.citations)
    assert [(n, s.id, s.uri) for n, s in numbered] == [
        (1, "0", PAGE + "same"),
        (2, "1", PAGE + "other"),
    ]
    assert source_list(text, result.citations, "plain") == (
        f"[1] example.org — {PAGE}same\n[2] other.org — {PAGE}other"
    )
    assert [s.id for s in result.uncited_sources] == []


def test_the_exports_carry_the_pages(base: str) -> None:
    from grounding_protos.convert import to_langchain_blocks, to_openai_annotations

    a = web(f"{base}{PREFIX}to/302/same", "0", "example.org")
    b = web(f"{base}{PREFIX}to/307/same", "1", "example.org")
    result = resolve_urls(grounded_of(a, b), **FAST)
    assert [x["url"] for x in to_openai_annotations(result)] == [PAGE + "same"] * 2
    [block] = to_langchain_blocks(result)
    assert [x["url"] for x in block["annotations"]] == [PAGE + "same"] * 2


# --- The disk cache ----------------------------------------------------------------------------


def test_the_disk_cache_saves_requests(base: str, stats: Stats, tmp_path: Path) -> None:
    cache = tmp_path / "redirects.sqlite"
    sources = [web(f"{base}{PREFIX}to/302/k{i}", str(i)) for i in range(30)]
    failing = web(f"{base}{PREFIX}status/500", "f")
    answer = grounded_of(*sources, failing)
    first = resolve_urls(answer, cache=cache, **FAST)
    assert stats.total() == 31
    second = resolve_urls(answer, cache=str(cache), **FAST)
    assert second == first
    assert stats.total() == 32  # only the failure is asked again: failures are not kept
    # The file keeps hashes of the redirect URLs, never the URLs themselves.
    assert b"grounding-api-redirect" not in cache.read_bytes()


def test_cache_entries_expire(base: str, stats: Stats, tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    answer = grounded_of(web(f"{base}{PREFIX}to/302/e"))
    resolve_urls(answer, cache=cache, ttl=3600, **FAST)
    resolve_urls(answer, cache=cache, ttl=3600, **FAST)
    assert stats.total() == 1
    time.sleep(0.05)
    again = resolve_urls(answer, cache=cache, ttl=0.01, **FAST)
    assert stats.total() == 2 and again.declared_sources[0].uri == PAGE + "e"


def test_an_unusable_cache_is_a_problem_not_an_error(base: str, tmp_path: Path) -> None:
    bad = tmp_path / "not-a-db"
    bad.write_bytes(b"this is not an SQLite database" * 100)
    source, result = one(base, "to/302/x", cache=bad)
    assert source.uri == PAGE + "x"
    assert codes(result) == ["redirect-cache-error"]


_CHILD = textwrap.dedent(
    """
    import sys
    from grounding_protos.citations import Grounded, Source, resolve_urls

    base, cache, first, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    sources = [Source(uri=f"{base}/grounding-api-redirect/to/302/x{i}", id=str(i))
               for i in range(first, first + count)]
    result = resolve_urls(Grounded("t", declared_sources=sources),
                          redirect_hosts={"127.0.0.1"}, cache=cache, timeout=5.0)
    assert not result.problems, result.problems
    assert [s.uri for s in result.declared_sources] == [
        f"http://page.example/x{i}" for i in range(first, first + count)]
    """
)


def test_the_disk_cache_is_shared_by_processes(base: str, stats: Stats, tmp_path: Path) -> None:
    cache = str(tmp_path / "shared.sqlite")

    def child(first: int, count: int) -> subprocess.Popen[bytes]:
        args = [sys.executable, "-c", _CHILD, base, cache, str(first), str(count)]
        return subprocess.Popen(args, cwd=ROOT, stderr=subprocess.PIPE)

    # Two processes write the same file at once, with overlapping URLs.
    children = [child(0, 60), child(40, 60)]
    for process in children:
        _, err = process.communicate(timeout=60)
        assert process.returncode == 0, err.decode()
    assert 100 <= stats.total() <= 120
    asked = stats.total()
    # A third process finds all of them on disk and asks nothing.
    third = child(0, 100)
    _, err = third.communicate(timeout=60)
    assert third.returncode == 0, err.decode()
    assert stats.total() == asked


# --- Options and the optional dependency ---------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"concurrency": 0}, ArgumentValueError),
        ({"concurrency": 2.5}, ArgumentTypeError),
        ({"timeout": 0}, ArgumentValueError),
        ({"timeout": float("inf")}, ArgumentValueError),
        ({"deadline": -1}, ArgumentValueError),
        ({"ttl": "1d"}, ArgumentTypeError),
        ({"redirect_hosts": "127.0.0.1"}, ArgumentTypeError),
    ],
)
def test_bad_options_raise(options: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error, match=next(iter(options))):
        resolve_urls(grounded_of(), **options)


def test_not_a_grounded_raises() -> None:
    with pytest.raises(ArgumentTypeError, match="Grounded"):
        resolve_urls({"candidates": []})  # type: ignore[arg-type]


def test_without_httpx_the_feature_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "httpx", None)  # import httpx now fails
    with pytest.raises(MissingDependencyError, match=r"grounding-protos\[resolve\]"):
        resolve_urls(grounded_of())
    with pytest.raises(ImportError):  # also an ImportError
        asyncio.run(aresolve_urls(grounded_of()))


def test_nothing_imports_the_network_module_unasked() -> None:
    code = (
        "import sys, grounding_protos, grounding_protos.citations, grounding_protos.convert, "
        "grounding_protos.cli\n"
        "from grounding_protos.cli import main\n"
        "main(['render', 'examples/gemini_response.json'])\n"
        "print(sorted(m for m in sys.modules if m == 'httpx' or m.endswith('_redirects')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"


# --- The benchmark still runs ---------------------------------------------------------------------


def test_the_benchmark_runs_at_a_tiny_size(capsys: pytest.CaptureFixture[str]) -> None:
    path = ROOT / "benchmarks" / "redirects.py"
    spec = importlib.util.spec_from_file_location("redirects_benchmark", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.run(count=24, delay=0.002, sample=6)
    out = capsys.readouterr().out
    assert "24 distinct redirects" in out and "-> " in out and "speed-up: " in out
    assert "0 requests in all" in out and "24 requests" in out


# --- Rebuilding the answer: a property against a naive oracle ----------------------------------

_URIS = [f"https://vertexaisearch.cloud.google.com{PREFIX}r{i}" for i in range(4)] + [
    "https://plain.example/p",
    None,
]


def web_source(uri: str | None, ident: str) -> Source:
    return Source(uri=uri, id=ident, kind="web")


_OUTCOMES = st.one_of(
    st.builds(lambda n: _redirects.Outcome(f"https://site{n}.example/page"), st.integers(0, 2)),
    st.sampled_from(
        [_redirects.Outcome(None, "redirect-timeout", "slow"), _redirects.Outcome(None)]
    ),
)


@given(
    pool=st.lists(
        st.builds(web_source, st.sampled_from(_URIS), st.sampled_from(["0", "1"])),
        min_size=1,
        max_size=6,
    ),
    picks=st.lists(st.lists(st.integers(0, 5), max_size=3), max_size=5),
    declared=st.lists(st.integers(0, 5), max_size=6),
    outcomes=st.dictionaries(st.sampled_from(_URIS[:5]), _OUTCOMES),
)
@settings(max_examples=300, deadline=None)
def test_rebuild_replaces_exactly_the_resolved_sources(
    pool: list[Source],
    picks: list[list[int]],
    declared: list[int],
    outcomes: dict[str, _redirects.Outcome],
) -> None:
    citations = [
        Citation(
            k, k + 1, k, None, f"t{k}", tuple(pool[i % len(pool)] for i in pick),
            kind="support", score=k / 10, source_scores=(0.5,) * len(pick), part=k, path=f"p{k}",
        )
        for k, pick in enumerate(picks)
    ]  # fmt: skip
    answer = Grounded(
        "", citations=citations, declared_sources=[pool[i % len(pool)] for i in declared]
    )
    places = _redirects._source_places(answer)
    result = _redirects.rebuild(answer, places, outcomes)

    def naive(source: Source) -> Source:
        outcome = outcomes.get(source.uri) if source.uri else None
        if outcome is None or outcome.target is None:
            return source
        host = outcome.target.split("/")[2]
        return Source(
            uri=outcome.target, id=source.id, kind="web", domain=host, redirect_uri=source.uri
        )

    assert [c.sources for c in result.citations] == [
        tuple(naive(s) for s in c.sources) for c in answer.citations
    ]
    assert result.declared_sources == [naive(s) for s in answer.declared_sources]
    # Nothing else of a citation changes.
    assert [dataclasses.replace(c, sources=()) for c in result.citations] == [
        dataclasses.replace(c, sources=()) for c in answer.citations
    ]
    every = {s for c in answer.citations for s in c.sources} | set(answer.declared_sources)
    failing = {s for s in every if s.uri and s.uri in outcomes and outcomes[s.uri].code}
    assert len(result.problems) == len(failing)
    assert all(p.code == "redirect-timeout" and p.path.endswith(".uri") for p in result.problems)


_URL_PIECES = st.sampled_from(
    ["https://", "HTTP://", "//", "", "user:pw@", "VertexAISearch.Cloud.Google.com",
     "vertexaisearch.cloud.google.com", ":443", "/grounding-api-redirect/x", "köln.example",
     "?q=vertexaisearch.cloud.google.com", "#f", "%41", "[::1]", "\u212a", "İ"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_URL_PIECES, max_size=7).map("".join) | st.text())
def test_a_redirect_is_told_by_its_parsed_host(uri: str) -> None:
    """The quick look for a redirect host in the lowercased URL never disagrees with
    the host ``urlsplit`` parses (the oracle)."""
    from grounding_protos._core.model import REDIRECT_HOSTS, _is_redirect

    try:
        host = urlsplit(uri).hostname
    except ValueError:
        host = None
    assert _is_redirect(uri) == (host in REDIRECT_HOSTS)
