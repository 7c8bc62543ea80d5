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
keyring (docs/security.md, "Private sources").
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from gibberish.lazy import lazy_pattern

_SECRET_PARAM = lazy_pattern(
    r"(token|key|secret|pass|pwd|auth|sig|signature|credential|session|code|jwt|bearer)",
    re.IGNORECASE,
)
_URL = lazy_pattern(r"(?:git\+)?[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"“”<>()]+")


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


# -- what a run printed, before it goes back to a model --------------------------------

_PRIVATE_KEY = lazy_pattern(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)",
    re.DOTALL,
)
_URL_USERINFO = lazy_pattern(r"\b([A-Za-z][A-Za-z0-9+.-]*://)([^\s/@'\"<>()\[\]]+)@")
_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, lazy_pattern(pattern))
    for kind, pattern in (
        ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
        ("GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
        ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
        ("AWS access key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
        ("Anthropic key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
        ("OpenAI key", r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}"),
        ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
        ("Stripe key", r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}"),
        ("npm token", r"\bnpm_[A-Za-z0-9]{36}"),
        ("PyPI token", r"\bpypi-AgE[A-Za-z0-9_-]{20,}"),
        ("Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}"),
        ("JSON web token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    )
)
REDACTED = "[redacted]"


def _userinfo(match: re.Match[str], counts: dict[str, int]) -> str:
    scheme, userinfo = match.group(1), match.group(2)
    if ":" not in userinfo and not scheme.lower().startswith(("http", "git+http")):
        return match.group(0)  # ssh://git@host: a user name, no secret
    counts["address password"] = counts.get("address password", 0) + 1
    return f"{scheme}{REDACTED}@"


def redact_output(text: str) -> tuple[str, dict[str, int]]:
    """``text`` with private-key blocks, the user-info of addresses and well-known token
    formats replaced by ``[redacted: kind]``, and how many of each kind were removed.

    For what a run printed before it goes back to a model: a tool that prints a remote's
    address with its token, a key file or an API key must not hand them on.
    """
    counts: dict[str, int] = {}

    def key(match: re.Match[str]) -> str:
        counts["private key"] = counts.get("private key", 0) + 1
        return "[redacted: private key]"

    text = _PRIVATE_KEY.sub(key, text)
    text = _URL_USERINFO.sub(lambda m: _userinfo(m, counts), text)
    for kind, pattern in _TOKENS:

        def one(match: re.Match[str], kind: str = kind) -> str:
            counts[kind] = counts.get(kind, 0) + 1
            return f"[redacted: {kind}]"

        text = pattern.sub(one, text)
    return text, counts


def redact_value(
    value: object, counts: dict[str, int] | None = None
) -> tuple[object, dict[str, int]]:
    """:func:`redact_output` over every string in a JSON-like value (dicts, lists)."""
    counts = {} if counts is None else counts
    if isinstance(value, str):
        text, found = redact_output(value)
        for kind, n in found.items():
            counts[kind] = counts.get(kind, 0) + n
        return text, counts
    if isinstance(value, dict):
        return {k: redact_value(v, counts)[0] for k, v in value.items()}, counts
    if isinstance(value, list):
        return [redact_value(v, counts)[0] for v in value], counts
    return value, counts


def describe_redactions(counts: dict[str, int]) -> str:
    """``2 GitHub tokens, 1 private key`` — for the person's run log."""
    parts = []
    for kind, n in sorted(counts.items()):
        parts.append(f"{n} {kind}" if n == 1 else f"{n} {kind}s")
    return ", ".join(parts)
