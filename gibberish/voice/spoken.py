"""A spoken request, through the Engine: may gibberish listen now, and what was asked.

Voice's side of the Engine (it sits above it, docs/adr/0001-layers.md): the grammar comes
from the tools the Engine offers in a mode, the settings from its ``[voice]`` table, and a
free-form Whisper transcript that no spoken form covers goes to the Engine's model
router. What comes out is only a proposal: the caller still goes through ``prepare`` and
the decision table, as for a click.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from msgspec.structs import replace

from gibberish.desktop.focus import MicrophoneProbe
from gibberish.engine.values import EngineError
from gibberish.skills.model import Mode
from gibberish.voice.settings import Activation, VoiceBackend

if TYPE_CHECKING:
    from gibberish.assistant.heard import Heard
    from gibberish.assistant.proposal import Proposal
    from gibberish.engine.core import Engine
    from gibberish.voice.audio import AudioSource
    from gibberish.voice.grammar import Grammar
    from gibberish.voice.service import VoiceService

HELD_CUT_OFF = 2.0
"""Seconds of silence that end a recording whose key is held (its release may be lost)."""

_SERVICES: weakref.WeakKeyDictionary[Engine, VoiceService] = weakref.WeakKeyDictionary()
"""One voice pipeline per Engine (the tray has one; tests make many)."""


def voice_service(engine: Engine) -> VoiceService:
    """The engine's voice pipeline (recognizers are cached in it, rebuilt when the tools
    change); one per Engine."""
    service = _SERVICES.get(engine)
    if service is None:
        from gibberish.voice.service import VoiceService

        service = _SERVICES[engine] = VoiceService()
    return service


def voice_grammar(engine: Engine, mode: Mode | None = None) -> Grammar:
    """The grammar built from the tools offered in ``mode`` (default: the current one)."""
    if mode is None:
        mode = engine.mode_context().mode
    return voice_service(engine).grammar(engine.feed.catalog(mode))


def may_listen(
    engine: Engine,
    mode: Mode,
    *,
    asked: bool = False,
    microphone: bool = False,
    probe: MicrophoneProbe | None = None,
) -> str | None:
    """Why listening is not allowed now, or None. In Meeting mode gibberish listens only
    when the person asked (``asked``) or allowed it in the settings, and never from the
    microphone while another program records from it (a call)."""
    if mode is not Mode.MEETING:
        return None
    if not (asked or engine.settings.voice.listen_in_meeting):
        return (
            "Not listening in Meeting mode; allow it with voice.listen_in_meeting in the "
            "settings, or choose Listen from the menu."
        )
    if microphone and (probe or MicrophoneProbe()).in_use():
        return "Another program is recording from the microphone (a call?); not listening."
    return None


def listen(
    engine: Engine,
    source: AudioSource,
    *,
    mode: Mode | None = None,
    backend: str | None = None,
    held: bool = False,
) -> Proposal[Heard]:
    """One utterance from ``source`` → a proposed call. ``held``: a key held down ends it
    when released, pauses included (docs/adr/0039-portal-shortcuts.md)."""
    from gibberish.assistant.proposal import ProposalStatus
    from gibberish.voice.errors import VoiceError
    from gibberish.voice.service import VoiceConfig

    if mode is None:
        mode = engine.mode_context().mode
    stored = engine.settings.voice
    config = VoiceConfig(
        str(backend or stored.backend),
        stored.model_folder,
        until_stopped=held or stored.activation is Activation.TOGGLE,
        second_opinion=stored.second_opinion,
        cut_off=HELD_CUT_OFF if held else None,
    )
    catalog = engine.feed.catalog(mode)
    try:
        proposal = voice_service(engine).listen(source, catalog, config)
    except VoiceError as exc:
        raise EngineError(str(exc)) from None
    if (
        proposal.status is ProposalStatus.NO_MATCH
        and config.backend == VoiceBackend.WHISPER
        and proposal.heard.text
        and engine.settings.model.enabled
    ):
        return _route_heard(engine, proposal, mode)
    return proposal


def _route_heard(engine: Engine, proposal: Proposal[Heard], mode: Mode) -> Proposal[Heard]:
    """A free-form transcript no spoken form covers goes to the model router; its first
    proposed call (if any) becomes what was heard."""
    from gibberish.assistant import ModelError

    try:
        route = engine.feed.route(proposal.heard.text, mode=mode)
    except ModelError as exc:
        return replace(proposal, message=f"{proposal.message} The model failed: {exc}")
    if not route.proposes:
        return replace(proposal, candidates=route.candidates or proposal.candidates)
    return replace(proposal, status=route.status, calls=route.calls[:1], message=route.message)
