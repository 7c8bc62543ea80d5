"""HMAC-signed JSON files: the approvals file and the trusted-projects list (ADR 0043).

One helper for both, so they are signed the same way, with the same key
(:class:`gibberish.trust.keys.KeyProvider`): ``signature`` is HMAC-SHA256 over the
canonical JSON of every other field (sorted keys, no whitespace, ASCII). A file that
fails the check is set aside as ``NAME.bad-<UTC time>``, never deleted.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


class InvalidSignedFile(Exception):
    """The file is not a validly signed document; the message says what is wrong (a clause)."""


def _canonical(payload: Mapping[str, Any]) -> bytes:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def sign(payload: Mapping[str, Any], key: bytes) -> str:
    """The hex HMAC-SHA256 of ``payload``'s canonical JSON."""
    return hmac.new(key, _canonical(payload), hashlib.sha256).hexdigest()


def dump_signed(payload: Mapping[str, Any], key: bytes) -> bytes:
    """``payload`` plus its ``signature``, as the bytes of a readable JSON file."""
    document = {**payload, "signature": sign(payload, key)}
    return (json.dumps(document, sort_keys=True, indent=2, ensure_ascii=True) + "\n").encode()


def load_signed(raw: bytes, key: bytes, *, max_bytes: int) -> dict[str, Any]:
    """The payload of a signed file (every field but ``signature``), or
    :class:`InvalidSignedFile` saying why it cannot be trusted."""
    if len(raw) > max_bytes:
        raise InvalidSignedFile(f"it is larger than {max_bytes // (1 << 20)} MiB")
    try:
        document = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise InvalidSignedFile("it is not valid JSON, perhaps cut short") from None
    if not isinstance(document, dict) or not isinstance(document.get("signature"), str):
        raise InvalidSignedFile("it has no signature")
    payload = {k: v for k, v in document.items() if k != "signature"}
    if not hmac.compare_digest(sign(payload, key), document["signature"]):
        raise InvalidSignedFile("it was changed outside gibberish or signed with another key")
    return payload


def set_aside(path: Path) -> str:
    """Move a bad file to ``NAME.bad-<UTC time>``; a clause saying where it went (or why not)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.bad-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.bad-{stamp}-{n}")
    try:
        os.replace(path, target)
    except OSError as exc:
        return f"it could not be moved aside ({exc.strerror or type(exc).__name__})"
    return f"it was kept as {target}"
