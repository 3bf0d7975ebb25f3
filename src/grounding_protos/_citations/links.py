"""``citations.resolve_urls`` and ``aresolve_urls``: grounding redirects to real pages.

Only the signatures and checks live here; the network code is in ``_net.redirects``,
imported when one of these functions is called, and it needs httpx (the
``[resolve]`` extra). See ``docs/redirects.md``.
"""

from __future__ import annotations

import os
from collections.abc import Collection

from grounding_protos._core.model import Grounded
from grounding_protos._public import public

_CONCURRENCY = 8
_TIMEOUT = 5.0
_DEADLINE = 60.0
_TTL = 7 * 24 * 3600.0


def resolve_urls(
    grounded: Grounded,
    *,
    only_redirects: bool = True,
    redirect_hosts: Collection[str] | None = None,
    concurrency: int = _CONCURRENCY,
    timeout: float = _TIMEOUT,
    deadline: float | None = _DEADLINE,
    cache: str | os.PathLike[str] | None = None,
    ttl: float = _TTL,
) -> Grounded:
    """``grounded`` with its grounding redirect URLs replaced by the pages they lead to.

    Every distinct source URI that is a grounding redirect
    (``https://vertexaisearch.cloud.google.com/grounding-api-redirect/…``; with
    ``only_redirects=False`` any http(s) URI) is asked once, without following the
    redirect: ``HEAD`` (``GET``, body unread, when ``HEAD`` is refused), then its
    ``Location``. No cookies, credentials or referrer are sent, no environment
    (proxy variables, ``.netrc``) is read. A resolved source gets ``uri`` = the page,
    ``domain`` = its host and ``redirect_uri`` = the redirect; sources that lead to the
    same page then share one number in :func:`~grounding_protos.citations.render`. A
    URL that cannot be resolved (timeout, HTTP error, no ``Location``, a target that is
    not http(s), a loop) leaves its sources as they were and adds a ``Problem``
    (``redirect-timeout``, ``redirect-http-error``, …) to ``problems``, path
    ``declared_sources[2].uri``.

    At most ``concurrency`` requests run at a time, each within ``timeout`` seconds,
    and the whole call within ``deadline`` seconds (``None``: no limit).
    ``redirect_hosts`` replaces the set of hosts whose ``/grounding-api-redirect/``
    URLs are redirects. ``cache`` is an SQLite file (created if missing; safe to
    share between processes) that keeps resolved URLs for ``ttl`` seconds, keyed by
    a hash of the redirect URL.

    Returns a new :class:`Grounded`; the input is not changed.

    Raises:
        MissingDependencyError: httpx is not installed (``pip install
            'grounding-protos[resolve]'``).
        ArgumentValueError, ArgumentTypeError: an option is out of range or of the
            wrong type.

    >>> from grounding_protos.citations import Grounded, Source, resolve_urls
    >>> page = Source(uri="https://example.com/a", kind="web")  # not a redirect: not asked
    >>> resolve_urls(Grounded("text", declared_sources=[page])).declared_sources == [page]
    True
    """
    from grounding_protos._net import redirects as _redirects

    options = _redirects.settings(
        only_redirects=only_redirects,
        redirect_hosts=redirect_hosts,
        concurrency=concurrency,
        timeout=timeout,
        deadline=deadline,
        cache=cache,
        ttl=ttl,
    )
    return _redirects.resolve(grounded, options)


async def aresolve_urls(
    grounded: Grounded,
    *,
    only_redirects: bool = True,
    redirect_hosts: Collection[str] | None = None,
    concurrency: int = _CONCURRENCY,
    timeout: float = _TIMEOUT,
    deadline: float | None = _DEADLINE,
    cache: str | os.PathLike[str] | None = None,
    ttl: float = _TTL,
) -> Grounded:
    """:func:`resolve_urls` for asyncio code: the same work, awaited on the running loop.

    >>> import asyncio
    >>> from grounding_protos.citations import Grounded, aresolve_urls
    >>> asyncio.run(aresolve_urls(Grounded("no sources"))).problems
    []
    """
    from grounding_protos._net import redirects as _redirects

    options = _redirects.settings(
        only_redirects=only_redirects,
        redirect_hosts=redirect_hosts,
        concurrency=concurrency,
        timeout=timeout,
        deadline=deadline,
        cache=cache,
        ttl=ttl,
    )
    return await _redirects.aresolve(grounded, options)


public("grounding_protos.citations", resolve_urls, aresolve_urls)
