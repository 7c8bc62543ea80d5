"""The one error type of the voice layer: a sentence a person can act on."""

from __future__ import annotations


class VoiceError(Exception):
    """Something about audio or recognition a person can fix; ``str()`` says what to do."""
