"""What a recognizer heard: the text, how sure it is, and what it cost.

It lives beside the proposal it travels with (``proposal.py``): a spoken request is a
proposal like any other, and every front end reads what was heard from it.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field


class Heard(Struct, frozen=True):
    text: str
    """The words recognized; empty when nothing usable was heard."""
    confidence: float
    """0..1. For the grammar recognizer: agreement of the grammar's words with a free
    phone-loop pass over the same audio (see docs/adr/0015-voice-grammar-and-rejection.md)."""
    alternatives: tuple[str, ...] = ()
    """Other phrases the recognizer accepted for the same speech, most likely first (the
    grammar recognizer's streaming answer when its second pass changed it)."""
    backend: str = "pocketsphinx"
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds: ``audio`` (speech length), ``decode`` (recognizer work), ``finish``
    (end of speech → text), and later ``interpret`` and ``total``."""
    rejected: str = ""
    """Why the recognizer itself refused the utterance (empty when it did not)."""
    details: dict[str, Any] = field(default_factory=dict)

    def quoted(self) -> str:
        """The phrase in quotes, with the form a free-form transcript was taken as and
        the runner-up when there was one: the form and the CLI show them, so a person
        checks what the recognizer was unsure of before it runs."""
        said = f"“{self.text}”"
        if "taken_as" in self.details:
            said += f" (taken as “{self.details['taken_as']}”)"
        if self.alternatives:
            said += f", or perhaps “{self.alternatives[0]}”"
        return said

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "confidence": round(self.confidence, 3),
            "alternatives": list(self.alternatives),
            "backend": self.backend,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "rejected": self.rejected,
            "details": self.details,
        }
