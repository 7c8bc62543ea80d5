"""Listen in the tray with a WAV source: listening icon → thinking → form with heard values."""

from __future__ import annotations

from msgspec.structs import replace

from gibberish.engine.core import Engine, EngineOptions
from gibberish.ui.icons import TrayState
from gibberish.voice import WavSource
from tests.ui.conftest import FakeForms, make_controller
from tests.voice.corpus import IN_GRAMMAR, OUT_OF_GRAMMAR, fixture

FIVE_COMMITS = fixture(IN_GRAMMAR[2], "slt")


def _controller(wav, forms, **seams):
    engine = Engine(EngineOptions(include_user=False))
    return make_controller(engine, forms=forms, audio=lambda: WavSource(wav), **seams)


def test_listen_opens_the_form_with_the_heard_values(qtbot) -> None:
    forms = FakeForms(cancel=True)  # stop at the form: nothing runs
    ctl = _controller(FIVE_COMMITS, forms)
    ctl.start()
    states: list[str] = []
    icons: list[str] = []
    ctl.voice.listening.state.connect(states.append)
    ctl.voice.listening.state.connect(lambda _s: icons.append(ctl.surface.tray.state))
    try:
        ctl.listen()
        assert ctl.surface.tray.state == TrayState.LISTENING
        qtbot.waitUntil(lambda: bool(forms.calls), timeout=60_000)
        assert forms.calls == [("git.git_log", {"count": 5})]
        assert forms.extras[0]["note"] == "Heard “show the last five commits”"
        assert ctl.text.command_bar.input.text() == "show the last five commits"
        qtbot.waitUntil(lambda: states[-1:] == ["idle"], timeout=10_000)
        assert states == ["listening", "thinking", "idle"]
        assert icons[:2] == [TrayState.LISTENING, TrayState.THINKING]
        assert ctl.surface.tray.state == TrayState.NORMAL
    finally:
        ctl.voice.listening.wait()
        ctl.shutdown()


def test_the_form_names_the_phrase_the_recognizer_was_torn_between(qtbot) -> None:
    """A number the two passes heard differently: the form opens with the second pass's
    value and its note names the other, so the person checks it before the run."""
    forms = FakeForms(cancel=True)
    fifteen = next(p for p in IN_GRAMMAR if p.text == "show the top fifteen processes")
    ctl = _controller(fixture(fifteen, "kal16"), forms)
    ctl.start()
    try:
        ctl.listen()
        qtbot.waitUntil(lambda: bool(forms.calls), timeout=60_000)
        assert forms.calls == [("system.top_processes", {"count": 15})]
        assert forms.extras[0]["note"] == (
            "Heard “show the top fifteen processes”, or perhaps “show the top fifty processes”"
        )
    finally:
        ctl.voice.listening.wait()
        ctl.shutdown()


def test_out_of_grammar_speech_opens_the_bar_without_a_form(qtbot) -> None:
    forms = FakeForms(cancel=True)
    ctl = _controller(fixture(OUT_OF_GRAMMAR[0], "slt"), forms)
    ctl.start()
    said: list[tuple[str, str, bool]] = []
    ctl.notified.connect(lambda *a: said.append(a))
    try:
        ctl.listen()
        qtbot.waitUntil(lambda: not ctl.voice.listening.busy, timeout=60_000)
        bar = lambda: ctl.text.command_bar  # noqa: E731 (made ahead of use: shown is what counts)
        qtbot.waitUntil(
            lambda: bool(said) or (bar() is not None and bar().isVisible()), timeout=10_000
        )
        assert forms.calls == []
        assert said or ctl.text.command_bar.isVisible()
    finally:
        ctl.voice.listening.wait()
        ctl.shutdown()


def test_no_listening_in_meeting_mode_unless_asked(qtbot) -> None:
    forms = FakeForms(cancel=True)
    ctl = _controller(FIVE_COMMITS, forms)
    engine = ctl.engine
    engine.update_settings(replace(engine.settings, auto_mode=False, mode="Meeting"))
    ctl.start()
    said: list[tuple[str, str, bool]] = []
    ctl.notified.connect(lambda *a: said.append(a))
    try:
        ctl.handle_message("listen")  # a desktop shortcut: not an explicit ask
        assert not ctl.voice.listening.busy
        assert said and said[-1][0] == "Not listening" and "Meeting" in said[-1][1]
        ctl.listen(asked=True)  # chosen in the menu: allowed
        qtbot.waitUntil(lambda: bool(forms.calls), timeout=60_000)
    finally:
        ctl.voice.listening.wait()
        ctl.shutdown()


def test_gibberish_listen_is_handed_to_the_running_tray(qtbot) -> None:
    import subprocess
    import sys

    from gibberish.ui.single_instance import SingleInstance

    first = SingleInstance()
    assert first.acquire() is True
    received: list[str] = []
    first.message_received.connect(received.append)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gibberish", "listen"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        qtbot.waitUntil(lambda: proc.poll() is not None, timeout=30_000)
        assert proc.returncode == 0, proc.stderr.read()
        assert "Listening in the running gibberish" in proc.stderr.read()
        qtbot.waitUntil(lambda: received == ["listen"])
    finally:
        first.close()


def test_the_form_says_to_check_a_weakly_heard_number(qtbot, tmp_path) -> None:
    """A card rank without a range, heard as 400 from "four queen of clubs" (a real
    person): the form opens, and its note says to check the number before it runs."""
    from tests.voice.people.corpus import OUT_OF_GRAMMAR, SKILLS

    skills = tmp_path / "skills"
    (skills / "cards").mkdir(parents=True)
    text = (SKILLS / "cards" / "SKILL.md").read_text()
    (skills / "cards" / "SKILL.md").write_text(text.replace("integer 1..13", "integer"))
    recording = next(r for r in OUT_OF_GRAMMAR if r.name == "cards-four_queen_of_clubs")
    forms = FakeForms(cancel=True)
    engine = Engine(EngineOptions(include_user=False, extra_skills_dirs=(skills,)))
    ctl = make_controller(engine, forms=forms, audio=lambda: WavSource(recording.path))
    ctl.start()
    try:
        ctl.listen()
        qtbot.waitUntil(lambda: bool(forms.calls), timeout=60_000)
        assert forms.calls == [("cards.pick", {"rank": 400, "suit": "clubs"})]
        assert forms.extras[0]["note"] == (
            "Heard “four hundred of clubs”. Check rank=400 (the recognizer is unsure of “hundred”)"
        )
    finally:
        ctl.voice.listening.wait()
        ctl.shutdown()


def test_the_first_listen_offers_whisper_once(qtbot, monkeypatch) -> None:
    from gibberish.voice import whisper_setup

    monkeypatch.setattr(
        whisper_setup, "whisper_setup", lambda: whisper_setup.WhisperSetup(False, "", "")
    )
    forms = FakeForms(cancel=True)
    ctl = _controller(FIVE_COMMITS, forms)
    ctl.start()
    said: list[tuple[str, str, bool]] = []
    ctl.notified.connect(lambda *notice: said.append(notice))
    try:
        for _ in range(2):
            ctl.listen()
            qtbot.waitUntil(lambda: not ctl.voice.listening.busy, timeout=60_000)
            ctl.voice.listening.wait()
        offers = [n for n in said if n[0] == "A better recognizer is one click away"]
        assert len(offers) == 1 and "Set up Whisper" in offers[0][1]
        assert ctl.engine.settings.voice.whisper_offered
    finally:
        ctl.voice.listening.wait()
        ctl.shutdown()
