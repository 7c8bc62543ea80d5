"""Downloading one http(s) URL to a file, within a size cap and a deadline.

Redirects are followed by hand so that each hop is checked: a hop to anything other
than http or https (``file:``, ``ftp:``, ``data:`` …) is refused. The body is streamed
and counted as it arrives, so a server that sends forever, or trickles bytes to dodge
the read timeout, is cut off by the size cap or the overall deadline. A connection
that closes before the announced length is an interrupted download, never a file.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from urllib.parse import urljoin

import httpx
from msgspec import Struct

from gibberish import __version__
from gibberish.install.limits import FetchError, Limits
from gibberish.install.netcheck import is_public_address, require_public
from gibberish.install.pinned import pinned_transport
from gibberish.install.source_auth import header_for


class Downloaded(Struct, frozen=True):
    url: str  # after redirects
    sha256: str
    size: int
    content_type: str


def download(url: str, dest: Path, limits: Limits) -> Downloaded:
    """Save ``url``'s body to ``dest`` (created, mode 0600); FetchError says why not."""
    timeout = httpx.Timeout(limits.read_timeout, connect=limits.connect_timeout)
    headers = {"User-Agent": f"gibberish/{__version__}"}
    deadline = time.monotonic() + limits.total_timeout
    try:
        # public_only: connect only to the addresses just checked (gibberish/install/pinned.py)
        transport = pinned_transport(public_only=True) if limits.public_only else None
        with httpx.Client(
            timeout=timeout, follow_redirects=False, headers=headers, transport=transport
        ) as client:
            for _ in range(limits.max_redirects + 1):
                _check_scheme(url, url)
                if limits.public_only:
                    require_public(url)
                with client.stream("GET", url, headers=header_for(url)) as response:
                    if limits.public_only:
                        _require_public_peer(url, response)
                    if response.is_redirect:
                        url = _next_hop(url, response)
                        continue
                    if response.status_code != 200:
                        raise FetchError(f"{url}: the server answered {response.status_code}.")
                    return _save(url, response, dest, limits, deadline)
    except httpx.InvalidURL as exc:  # raised while httpx reads a malformed Location
        raise FetchError(
            f"{url}: redirects to a URL that is not http or https, or not valid; refused."
        ) from exc
    except httpx.TimeoutException as exc:
        raise FetchError(f"{url}: the server did not answer in time ({exc}).") from exc
    except httpx.HTTPError as exc:
        raise FetchError(f"{url}: the download failed or was interrupted ({exc}).") from exc
    raise FetchError(f"{url}: more than {limits.max_redirects} redirects.")


def _require_public_peer(url: str, response: httpx.Response) -> None:
    """The address actually connected to, checked again (a name may resolve differently
    the second time): nothing from a private address is read."""
    stream = response.extensions.get("network_stream")
    peer = stream.get_extra_info("server_addr") if stream is not None else None
    if peer and not is_public_address(str(peer[0])):
        raise FetchError(f"{url}: connected to {peer[0]}, a private address; refused.")


def _check_scheme(url: str, original: str) -> None:
    if not url.lower().startswith(("http://", "https://")):
        raise FetchError(f"{original}: redirects to {url!r}, which is not http or https; refused.")


def _next_hop(url: str, response: httpx.Response) -> str:
    location = response.headers.get("location", "")
    if not location:
        raise FetchError(f"{url}: a redirect without a Location.")
    target = urljoin(url, location)
    _check_scheme(target, url)
    return target


def _save(
    url: str, response: httpx.Response, dest: Path, limits: Limits, deadline: float
) -> Downloaded:
    cap = limits.max_download_bytes
    announced = response.headers.get("content-length")
    if announced and announced.isdigit() and int(announced) > cap:
        raise FetchError(
            f"{url}: {int(announced):,} bytes is more than the {cap // 2**20} MiB allowed."
        )
    digest = hashlib.sha256()
    size = 0
    with open(dest, "xb") as out:
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > cap:
                raise FetchError(f"{url}: sends more than {cap // 2**20} MiB; stopped.")
            if time.monotonic() > deadline:
                raise FetchError(f"{url}: took longer than {limits.total_timeout:.0f} s; stopped.")
            digest.update(chunk)
            out.write(chunk)
    encoded = response.headers.get("content-encoding", "identity") != "identity"
    if announced and announced.isdigit() and not encoded and size != int(announced):
        raise FetchError(f"{url}: the download was interrupted ({size} of {announced} bytes).")
    return Downloaded(url, digest.hexdigest(), size, response.headers.get("content-type", ""))
