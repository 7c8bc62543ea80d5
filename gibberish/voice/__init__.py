"""Voice: audio in, end of speech, offline recognition, heard words → a proposed call.

Qt-free; the tray only shows state. The embedded recognizer is PocketSphinx decoding
against a grammar generated from the loaded tools; Whisper (``faster-whisper``) is an
optional free-form backend. What was heard becomes a *proposal*, exactly like a model's
call: the Engine puts it through the same checks, form and approval as a click.
"""

from gibberish.voice.audio import MicrophoneSource, WavSource, input_devices, read_wav
from gibberish.voice.errors import VoiceError
from gibberish.voice.grammar import Grammar, grammar_for_tools
from gibberish.voice.heard import Heard
from gibberish.voice.interpret import Proposal, ProposalStatus
from gibberish.voice.service import BACKENDS, VoiceConfig, VoiceService

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
