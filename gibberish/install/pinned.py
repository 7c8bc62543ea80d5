"""An HTTP transport that connects only to addresses it has just checked (DNS rebinding).

Checking a name and then letting the HTTP library resolve it again leaves a window: a
name can answer with a public address for the check and with 127.0.0.1 a moment later,
and the request is then sent to this computer before any answer could be refused. The
network backend here resolves the name itself, once per connection, refuses it unless
every address is public (when ``public_only``), and connects to one of exactly those
addresses. The request still names the host (``Host`` header) and TLS still sends the
name (SNI) and checks the certificate against it: only the address lookup is pinned.

Git is pinned by :func:`git_pinned`, for every scheme a public-only fetch may use:
over http(s) by ``http.curloptResolve`` (git 2.37 and later), over ``git://`` by
handing git the checked address itself in place of the name. ssh (``ssh://``,
``git+ssh://``, scp-style ``user@host:path``) cannot be pinned — ssh looks the name up
again through the person's ssh settings (``HostName``, ``ProxyCommand``,
``CanonicalizeHostname``) and offers their keys to whatever answers — so a public-only
fetch refuses it, as it refuses every other transport (``ext::``, ``file://``, remote
helpers): ADR 0060.
"""

from __future__ import annotations

import typing
from urllib.parse import urlsplit, urlunsplit

import httpcore
import httpx

from gibberish.install.limits import FetchError
from gibberish.install.netcheck import host_of, resolve_checked


class PinnedBackend(httpcore.SyncBackend):
    """``connect_tcp`` to an address of the host that passed the check, never another."""

    def __init__(self, *, public_only: bool) -> None:
        self.public_only = public_only

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.NetworkStream:
        addresses = resolve_checked(host, port, public_only=self.public_only)
        failure: Exception | None = None
        for address in addresses:
            try:
                return super().connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None  # resolve_checked never returns an empty list
        raise failure


def pinned_transport(*, public_only: bool) -> httpx.HTTPTransport:
    """An httpx transport whose connections go through :class:`PinnedBackend`.

    It ignores proxy settings from the environment: a proxy would do its own lookup,
    out of reach of the check.
    """
    transport = httpx.HTTPTransport()
    transport._pool = httpcore.ConnectionPool(  # httpx has no backend option
        ssl_context=httpx.create_ssl_context(),
        network_backend=PinnedBackend(public_only=public_only),
    )
    return transport


def git_resolve_option(url: str, *, public_only: bool) -> list[str]:
    """``-c http.curloptResolve=HOST:PORT:ADDR`` for an http(s) git URL whose host passed
    the check, so git's own lookup cannot answer differently; [] for other schemes (ssh,
    git://) and for a host that is already an address."""
    if not url.lower().startswith(("http://", "https://")):
        return []
    host, port = host_of(url)
    addresses = resolve_checked(host, port, public_only=public_only)
    if host in addresses:
        return []
    pinned = ",".join(f"[{a}]" if ":" in a else a for a in addresses)
    return ["-c", f"http.curloptResolve={host}:{port}:{pinned}"]


PINNED_GIT_SCHEMES = ("https", "http", "git")
"""The transports a public-only git fetch may use: the ones whose address can be pinned."""

NOT_PINNABLE = (
    "{url}: the page fetches git repositories from the internet only over https:// (or "
    "git://). An ssh address would use this computer's ssh settings and keys, and ssh "
    "looks the name up again itself; use the repository's https:// address."
)


def git_pinned(url: str) -> tuple[str, list[str]]:
    """What to hand git for a public-only fetch of ``url``: the URL (a ``git://`` name
    replaced by the address just checked) and the options that pin an http(s) one.

    FetchError for a private answer and for every scheme that cannot be pinned.
    """
    scheme = urlsplit(url).scheme.lower() if "://" in url else ""
    if scheme in ("http", "https"):
        return url, git_resolve_option(url, public_only=True)
    if scheme == "git":
        host, port = host_of(url)
        address = resolve_checked(host, port, public_only=True)[0]
        return _with_address(url, address, port), []
    raise FetchError(NOT_PINNABLE.format(url=url))


def _with_address(url: str, address: str, port: int) -> str:
    parts = urlsplit(url)
    shown = f"[{address}]" if ":" in address else address
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit((parts.scheme, f"{user}{shown}:{port}", parts.path, parts.query, ""))
