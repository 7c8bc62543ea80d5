"""Counted nouns in people's words: "1 skill", "2 skills", never "2 skill(s)".

It sits below every front end (the CLI, the tray, export's manifests, the assistant's
advice) so that each says a count the same way; it imports nothing.
"""

from __future__ import annotations


def plural(count: int, one: str, many: str | None = None) -> str:
    """ "1 skill", "2 skills", "0 skills" (``many`` when the plural is not ``one`` + s:
    ``plural(2, "match", "matches")``)."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


__all__ = ["plural"]
