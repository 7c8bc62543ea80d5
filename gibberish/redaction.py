"""Credentials in source strings: used to fetch, never kept or shown.

People install from private repositories with ``https://user:TOKEN@host/repo.git`` or
``https://host/skill.zip?token=…``. The fetch may use what they typed, but the token must
never reach a lock file, a provenance file, a log, the tray or an error message. So every
source string is kept and shown through :func:`without_credentials`, and every message
that may quote one goes through :func:`scrub`.

Removed: the whole ``user:password@`` part of an ``http(s)`` URL (a token often stands in
the user's place: ``https://TOKEN@github.com/…``); the password of any other URL
(``ssh://git@host`` keeps ``git@``); and query parameters whose names look like
credentials (``token``, ``access_token``, ``key``, ``sig``, ``X-Amz-Signature``, …).
The way to authenticate instead is git's own credential helper, or a token kept in the
keyring (docs/trust.md, "Private sources").
"""

from __future__ import annotations

import logging
import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_SECRET_PARAM = re.compile(
    r"(token|key|secret|pass|pwd|auth|sig|signature|credential|session|code|jwt|bearer)",
    re.IGNORECASE,
)
_URL = re.compile(r"(?:git\+)?[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"“”<>()]+")


def _clean_netloc(scheme: str, netloc: str) -> str:
    if "@" not in netloc:
        return netloc
    userinfo, _, host = netloc.rpartition("@")
    if scheme.lower() in ("http", "https", "git+http", "git+https"):
        return host
    user = userinfo.split(":", 1)[0]
    return f"{user}@{host}" if user else host


def _clean_query(query: str) -> str:
    if not query:
        return query
    pairs = parse_qsl(query, keep_blank_values=True)
    kept = [(k, v) for k, v in pairs if not _SECRET_PARAM.search(k)]
    return urlencode(kept) if len(kept) != len(pairs) else query


def without_credentials(text: str) -> str:
    """``text`` (one source string) with credentials removed; other text unchanged."""
    prefix = "git+" if text.startswith("git+") else ""
    body = text[len(prefix) :]
    if "://" not in body:
        return text
    try:
        parts = urlsplit(body)
    except ValueError:
        return re.sub(r"//[^/@\s]*@", "//", text)
    netloc = _clean_netloc(prefix + parts.scheme, parts.netloc)
    query = _clean_query(parts.query)
    if netloc == parts.netloc and query == parts.query:
        return text
    return prefix + urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def scrub(message: str) -> str:
    """Every URL in ``message`` with its credentials removed (for errors and logs)."""
    return _URL.sub(lambda m: without_credentials(m.group(0)), message)


def has_credentials(text: str) -> bool:
    return without_credentials(text) != text


class ScrubbingFormatter(logging.Formatter):
    """Log lines and tracebacks with every URL's credentials removed (a source typed as
    ``https://user:TOKEN@host/…`` may appear in an exception's message)."""

    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(record))
