"""A private source's token, kept in the keyring instead of in the source string.

``gibberish secrets source HOST`` stores a token under service ``gibberish``, username
``source@HOST``. Downloads to that host (https, or plain http to this computer's
loopback) send it as ``Authorization: Bearer <token>``; a redirect to another host does
not carry it. Nothing else is sent anywhere, and the source string people keep in
``gibberish.toml`` and the lock stays free of secrets. Git sources use git's own
credential helper instead (``git config --global credential.helper …``), which the
fetch inherits.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

SERVICE = "gibberish"


def _username(host: str) -> str:
    return f"source@{host.strip().lower()}"


def _keyring():  # type: ignore[no-untyped-def]
    import keyring

    return keyring


def store(host: str, token: str) -> None:
    _keyring().set_password(SERVICE, _username(host), token)


def forget(host: str) -> bool:
    import keyring.errors

    try:
        _keyring().delete_password(SERVICE, _username(host))
    except keyring.errors.PasswordDeleteError:
        return False
    return True


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def header_for(url: str) -> dict[str, str]:
    """``{"Authorization": "Bearer …"}`` when a token is stored for ``url``'s host and the
    connection is encrypted (or stays on this computer); ``{}`` otherwise."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host or not (parts.scheme == "https" or (parts.scheme == "http" and _loopback(host))):
        return {}
    try:
        token = _keyring().get_password(SERVICE, _username(host))
    except Exception:  # a locked or missing keyring: fetch without, the server says 401
        return {}
    return {"Authorization": f"Bearer {token}"} if token else {}
