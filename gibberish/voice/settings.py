"""The voice settings: the ``[voice]`` table of config.toml, owned by voice/.

Importing this module loads no recognizer (the settings file is read at every start).
"""

from __future__ import annotations

from enum import StrEnum

from msgspec import Struct
from msgspec.structs import force_setattr

from gibberish.schema import Table, boolean, choice, text


class VoiceBackend(StrEnum):
    POCKETSPHINX = "pocketsphinx"
    """Embedded, offline, decoding against a grammar built from the loaded tools."""
    WHISPER = "whisper"
    """Free-form (faster-whisper), from a model folder the person provides."""


class Activation(StrEnum):
    PUSH_TO_TALK = "push_to_talk"
    """One utterance per press."""
    TOGGLE = "toggle"
    """A second press stops."""


VOICE_BACKENDS = tuple(b.value for b in VoiceBackend)


class VoiceSettings(Struct, frozen=True):
    """How gibberish listens (docs: README, *Voice*)."""

    backend: VoiceBackend = VoiceBackend.POCKETSPHINX
    microphone: str = ""
    """A device name or index from ``gibberish voice devices``; empty is the default."""
    model_folder: str = ""
    """A CTranslate2 Whisper model folder, for the whisper backend (never downloaded)."""
    activation: Activation = Activation.PUSH_TO_TALK
    spoken_feedback: bool = False
    listen_in_meeting: bool = False
    second_opinion: bool = True
    """With PocketSphinx and a ``model_folder``: ask Whisper when the phrases do not fit."""
    whisper_offered: bool = False
    """The first Listen offered to set Whisper up; it is offered once."""

    def __post_init__(self) -> None:
        force_setattr(self, "backend", VoiceBackend(self.backend))
        force_setattr(self, "activation", Activation(self.activation))


VOICE_TABLE = Table(
    "voice",
    (
        choice("backend", VoiceBackend),
        text("microphone", "a device name or index from `gibberish voice devices`, in quotes"),
        text("model_folder", "a folder in quotes"),
        choice("activation", Activation),
        boolean("spoken_feedback"),
        boolean("listen_in_meeting"),
        boolean("second_opinion"),
        boolean("whisper_offered"),
    ),
)
