"""Caps that bound what one fetch may write, download or take time for.

They are checked *while* data flows (each chunk written, each entry created), never
afterwards: a zip bomb is stopped at the cap, not after it has filled the disk.
"""

from __future__ import annotations

from msgspec import Struct

MIB = 1024 * 1024


class FetchError(Exception):
    """A source could not be fetched safely; the message says what and what to do."""


class Limits(Struct, frozen=True):
    """Defaults fit skills (text and small scripts) with a wide margin."""

    max_total_bytes: int = 100 * MIB  # everything written into the staging folder
    max_file_bytes: int = 50 * MIB  # one file
    max_entries: int = 20_000  # files, folders and links (the fingerprint's own cap)
    max_ratio: int = 200  # bytes written per byte of archive
    ratio_floor: int = 4 * MIB  # the ratio is only checked beyond this many bytes
    max_download_bytes: int = 50 * MIB
    connect_timeout: float = 15.0
    read_timeout: float = 30.0  # silence between two chunks
    total_timeout: float = 300.0  # a whole download or clone
    max_redirects: int = 5
    max_link_target: int = 4096
    public_only: bool = False
    """Refuse hosts that resolve to this computer or a private network (the web page)."""
