"""Whether a URL points at the public internet (the web page's guard against SSRF).

The compile page fetches what a person pastes. A page in their browser could paste for
them, so a URL whose host resolves to this computer or its private network (loopback,
RFC 1918 and other private ranges, link-local, multicast, reserved, unspecified) is
refused unless ``gibberish web --allow-private-urls`` was given. Every address the name
resolves to must be public: a name that also resolves to 127.0.0.1 is refused.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from gibberish.install.limits import FetchError

_SCP_LIKE_HOST = ("git@",)


def is_public_address(text: str) -> bool:
    """True only for a global unicast address (IPv4-mapped IPv6 judged as its IPv4)."""
    import ipaddress  # a folder install checks no address

    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )


def host_of(url: str) -> tuple[str, int]:
    """The host and port a URL (http, https, git, ssh, or scp-like ``user@host:path``)
    connects to; FetchError when there is none."""
    text = url[4:] if url.startswith("git+") else url
    if "://" not in text and "@" in text.split(":", 1)[0] + ":":
        text = "ssh://" + text.replace(":", "/", 1)
    parts = urlsplit(text)
    if not parts.hostname:
        raise FetchError(f"{url}: no host to fetch from.")
    default = {"https": 443, "http": 80, "ssh": 22, "git": 9418}.get(parts.scheme, 443)
    try:
        port = parts.port or default
    except ValueError:
        raise FetchError(f"{url}: the port is not a number.") from None
    return parts.hostname, port


def require_public(url: str) -> None:
    """FetchError unless every address ``url``'s host resolves to is public."""
    resolve_checked(*host_of(url), public_only=True)


def resolve_checked(host: str, port: int, *, public_only: bool) -> list[str]:
    """Resolve ``host`` once and return its addresses, the only ones a caller may then
    connect to (so a name that answers differently the next time is never asked again);
    with ``public_only``, FetchError unless every one of them is public."""
    import socket  # a folder install resolves no name

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise FetchError(f"{host}: the name does not resolve ({exc}).") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    private = sorted(a for a in addresses if not is_public_address(a))
    if public_only and (private or not addresses):
        raise FetchError(
            f"{host} resolves to {', '.join(private) or 'nothing'}, an address on this "
            "computer or its private network; the page fetches only from the internet "
            "(start it with `gibberish web --allow-private-urls` to allow this)."
        )
    if not addresses:
        raise FetchError(f"{host}: the name resolves to no address.")
    return addresses
