"""Voice: audio in, end of speech, offline recognition, heard words → a proposed call.

Qt-free; the tray only shows state. The embedded recognizer is PocketSphinx decoding
against a grammar generated from the loaded tools; Whisper (``faster-whisper``) is an
optional free-form backend. What was heard becomes a *proposal*, exactly like a model's
call: the Engine puts it through the same checks, form and approval as a click.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gibberish.lazy import lazy_exports

if TYPE_CHECKING:
    from gibberish.assistant.heard import Heard
    from gibberish.assistant.proposal import Proposal, ProposalStatus
    from gibberish.voice.audio import MicrophoneSource, WavSource, input_devices, read_wav
    from gibberish.voice.errors import VoiceError
    from gibberish.voice.grammar import Grammar, grammar_for_tools
    from gibberish.voice.service import BACKENDS, VoiceConfig, VoiceService

_HOME = {
    "MicrophoneSource": "gibberish.voice.audio",
    "WavSource": "gibberish.voice.audio",
    "input_devices": "gibberish.voice.audio",
    "read_wav": "gibberish.voice.audio",
    "VoiceError": "gibberish.voice.errors",
    "Grammar": "gibberish.voice.grammar",
    "grammar_for_tools": "gibberish.voice.grammar",
    "Heard": "gibberish.assistant.heard",
    "Proposal": "gibberish.assistant.proposal",
    "ProposalStatus": "gibberish.assistant.proposal",
    "BACKENDS": "gibberish.voice.service",
    "VoiceConfig": "gibberish.voice.service",
    "VoiceService": "gibberish.voice.service",
}
"""Where each public name lives: imported on first use, so that reading the voice
settings (``gibberish.voice.settings``, at every start) loads no recognizer."""

__all__ = [
    "BACKENDS",
    "Grammar",
    "Heard",
    "MicrophoneSource",
    "Proposal",
    "ProposalStatus",
    "VoiceConfig",
    "VoiceError",
    "VoiceService",
    "WavSource",
    "grammar_for_tools",
    "input_devices",
    "read_wav",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOME)
