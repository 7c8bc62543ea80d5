"""Spoken requests in the tray: listen, show what was heard, launch it as for a click.

The controller's voice side: *Listen* in the menu (or ``gibberish listen`` handed over by
a second process) records one utterance on a worker (``listening``); what was heard is
shown in the command bar with the proposed tool, then the parameter form opens with the
heard values and the run goes through the same decision as a click. Runs started by
voice are followed so that, when the settings ask for it, their end is spoken.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec.structs import replace
from PySide6.QtCore import QObject, QTimer, Signal, SignalInstance

from gibberish.ui.errors import guard
from gibberish.ui.listen.level_meter import LevelMeter
from gibberish.ui.listen.listening import IDLE, LISTENING, Listening
from gibberish.ui.listen.panel import ListeningPanel

if TYPE_CHECKING:
    from gibberish.assistant.heard import Heard
    from gibberish.assistant.proposal import Proposal
    from gibberish.engine.core import Engine
    from gibberish.engine.run_flow import Notice
    from gibberish.skills.model import Mode
    from gibberish.ui.command_bar.text_requests import TextRequests
    from gibberish.ui.runs.views import RunSession
    from gibberish.ui.seams import Seams
    from gibberish.ui.surface import Surface


class VoiceRequests(QObject):
    microphone_ready = Signal()
    """A microphone that was missing (or a sound server not running) appeared."""

    """Given what it acts on: the Engine, the surface and the command bar that show what
    is heard, the seams (a microphone, a voice), and the tray's launch and notice; it
    follows ``runs_changed`` (the run windows' signal) to speak a run's end.
    While listening it shows the listening panel, unless the surface is the launcher
    window, whose own row shows the same."""

    def __init__(
        self,
        engine: Callable[[], Engine],
        surface: Surface,
        text: TextRequests,
        seams: Seams,
        *,
        capture: Callable[[], object],
        mode: Callable[[], Mode],
        open_proposal: Callable[[Proposal[Heard]], list[RunSession]],
        notify: Callable[[Notice], None],
        show_runs: Callable[[], None],
        runs_changed: SignalInstance,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._engine = engine
        self._surface = surface
        self._text = text
        self._seams = seams
        self._capture = capture
        self._mode = mode
        self._open_proposal = open_proposal
        self._notify = notify
        self._show_runs = show_runs
        self.panel: ListeningPanel | None = None
        self._watching: tuple[threading.Thread, threading.Event] | None = None
        self.microphone_ready.connect(self._microphone_ready)
        self.listening = Listening(self)
        self.listening.state.connect(self._voice_state)
        self.listening.heard.connect(self._heard)
        self.listening.failed.connect(self._listen_failed)
        self.meter = LevelMeter(self)
        self.meter.changed.connect(surface.show_level)
        self.meter.changed.connect(self._panel_level)
        self._voice_runs: list[RunSession] = []
        runs_changed.connect(self._speak_finished)

    @guard
    def listen(self, *, asked: bool = True, held: bool = False) -> None:
        """Listen for one request. A second press while listening cancels it (nothing is
        proposed), except in toggle mode, where the second press ends the recording.
        ``asked``: chosen in the menu, which also allows listening in Meeting mode.
        ``held``: a portal shortcut held down; its release ends the recording."""
        from gibberish.voice.settings import Activation
        from gibberish.voice.spoken import may_listen

        if self.listening.busy:
            if self._engine().settings.voice.activation is Activation.TOGGLE:
                self.listening.stop()
            else:
                self.cancel()
            return
        self._capture()
        engine = self._engine()
        mode = self._mode()
        reason = may_listen(engine, mode, asked=asked, microphone=self._seams.audio is None)
        if reason:
            self._say_notice("Not listening", reason)
            return
        if self._seams.audio is not None:
            source = self._seams.audio()
        else:
            from gibberish.voice import MicrophoneSource

            device = engine.settings.voice.microphone
            source = MicrophoneSource(int(device) if device.isdigit() else device or None)
        self.listening.start(engine, mode, source, held=held)
        self._offer_whisper()

    def cancel(self) -> None:
        """Stop listening and propose nothing (Esc on the panel, or the key again)."""
        self.listening.cancel()
        if self.panel is not None:
            self.panel.finish()

    def _panel_for(self, state: str) -> ListeningPanel | None:
        """The listening panel, made on the first listen when there is a tray."""
        if self.panel is None and state == LISTENING and self._surface.launcher is None:
            self.panel = ListeningPanel(self.cancel)
        return self.panel

    def _panel_level(self, bars: int) -> None:
        if self.panel is not None:
            self.panel.show_level(bars)

    def _offer_whisper(self) -> None:
        """Once, on the first Listen without Whisper: say that the better recognizer is
        one click away in Settings → Voice (the offer is remembered in the settings)."""
        from gibberish.voice.whisper_setup import whisper_setup

        engine = self._engine()
        voice = engine.settings.voice
        if voice.whisper_offered or voice.model_folder or whisper_setup().model:
            return
        offered = replace(voice, whisper_offered=True)
        engine.update_settings(replace(engine.settings, voice=offered))
        self._say_notice(
            "A better recognizer is one click away",
            "Whisper hears requests more reliably. To set it up (a download of about "
            "100 MB), open Settings, Voice, and press Set up Whisper.",
        )

    def _voice_state(self, state: str) -> None:
        """The tray's icon for ``state``; while listening, with the level meter in it."""
        self.meter.stop()
        panel = self._panel_for(state)
        if panel is not None:
            if state == IDLE and self.listening.cancelled:
                panel.finish()
            elif state != IDLE:
                panel.show_state(state)
        shown = self._surface.show_voice(state)
        if state == LISTENING:
            self._surface.show_level(0)
            self.meter.follow(lambda: self.listening.level)
        if not shown:
            self._show_runs()

    @guard
    def _heard(self, proposal: Proposal[Heard]) -> None:
        """What was heard: the command bar shows the transcript and the proposed tool, then
        the parameter form opens with the heard values, as for a click."""
        from gibberish.skills.model import tool_ref
        from gibberish.ui.formatting import title_of_ref

        if self.listening.cancelled:  # cancelled as the words arrived
            return
        text = proposal.heard.text
        call = proposal.call
        if not proposal.proposes or call is None:
            refs = [tool_ref(m.item.skill.name, m.item.tool.name) for m in proposal.candidates]
            if self.panel is not None:
                self.panel.show_heard(text, proposal.message, close_soon=True)
            if not text and not refs:
                self._say_notice("Nothing recognized", proposal.message, failed=True)
                return
            self._text.show_heard(text, proposal.message, refs, failed=True)
            return
        ref = tool_ref(call.skill or "", call.tool or "")
        if self.panel is not None:
            self.panel.show_heard(text, f"Opening {title_of_ref(ref)}…", close_soon=False)
        self._text.show_heard(text, f"Heard {proposal.heard.quoted()}", [ref], failed=False)
        QTimer.singleShot(0, lambda: self._launch_heard(proposal))

    def _launch_heard(self, proposal: Proposal[Heard]) -> None:
        """What was heard is a proposal, as a model's call is: the one path to a run."""
        if self.panel is not None:
            self.panel.finish()  # the form opens now: it shows the same words
        bar = self._text.command_bar
        if bar is not None:
            bar.hide()
        self._voice_runs.extend(self._open_proposal(proposal))

    def _listen_failed(self, message: str) -> None:
        from gibberish.voice.microphones import NO_MICROPHONE, NOT_RUNNING

        if self.panel is not None:
            self.panel.finish()  # the notice says why
        self._say_notice("Not listening", message, failed=True)
        if message in (NO_MICROPHONE, NOT_RUNNING):
            self.watch_for_microphone()

    def watch_for_microphone(self) -> None:
        """Looks for the microphone on a thread (``microphones.wait_until_ready``: every
        2 s, for 5 minutes at most) and says when it is there."""
        from gibberish.voice.microphones import wait_until_ready

        if self._watching is not None and self._watching[0].is_alive():
            return
        stop = threading.Event()
        thread = threading.Thread(
            target=wait_until_ready,
            args=(stop, self.microphone_ready.emit),
            name="microphone-watch",
            daemon=True,
        )
        self._watching = (thread, stop)
        thread.start()

    def stop_watching(self) -> None:
        if self._watching is not None:
            thread, stop = self._watching
            stop.set()
            thread.join(5)
            self._watching = None

    def _microphone_ready(self) -> None:
        self._say_notice("Microphone ready", "The microphone is there now: listen again.")

    def _say_notice(self, title: str, body: str, *, failed: bool = False) -> None:
        from gibberish.engine.run_flow import Notice

        self._notify(Notice(title, body, failed=failed))

    def _speak_finished(self) -> None:
        """Spoken feedback for runs started by voice, when the settings ask for it."""
        done = [s for s in self._voice_runs if s.result is not None]
        if not done:
            return
        self._voice_runs = [s for s in self._voice_runs if s.result is None]
        if not self._engine().settings.voice.spoken_feedback:
            return
        from gibberish.voice.feedback import speak

        say = self._seams.speak or speak
        for session in done:
            ok = session.result is not None and session.result.success
            say(f"{session.prepared.tool.name.replace('_', ' ')} {'done' if ok else 'failed'}")
