"""The tray's *Listen* on a real audio device: PortAudio recording from a PulseAudio null
sink's monitor while a recording is played into that sink.

Nothing stands in for the microphone: ``MicrophoneSource`` opens the ALSA ``pulse``
device through PortAudio (``sounddevice``), exactly as on a desktop; the test starts its
own PulseAudio server (no kernel module, no sound card) in a temporary runtime folder and
plays the WAV with ``paplay``. Skips, saying why, without ``pulseaudio``, ``paplay`` or the
ALSA pulse plugin (Debian: pulseaudio pulseaudio-utils libasound2-plugins).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gibberish.engine.core import Engine, EngineOptions
from gibberish.ui.icons import TrayState
from tests.ui.conftest import FakeForms, make_controller
from tests.voice.corpus import IN_GRAMMAR, fixture

SINK = "gibberish_test_mic"
FIVE_COMMITS = fixture(IN_GRAMMAR[2], "slt")


def _missing() -> str:
    for program in ("pulseaudio", "paplay", "pactl"):
        if shutil.which(program) is None:
            return f"{program} is not installed (Debian: pulseaudio pulseaudio-utils)"
    if not Path("/usr/share/alsa/alsa.conf.d/pulse.conf").exists():
        return "the ALSA pulse plugin is not installed (Debian: libasound2-plugins)"
    return ""


def _wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _restart_portaudio() -> None:
    """PortAudio lists devices once, when it starts; a test that imported ``sounddevice``
    earlier left it started with no PulseAudio server to find."""
    import sounddevice

    sounddevice._terminate()
    sounddevice._initialize()


@pytest.fixture(scope="module")
def pulse(tmp_path_factory) -> Iterator[dict[str, str]]:
    """A private PulseAudio server whose default source is a null sink's monitor."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("pulse")
    runtime = root / "run"
    runtime.mkdir(mode=0o700)
    script = root / "default.pa"
    script.write_text(
        "load-module module-native-protocol-unix\n"
        f"load-module module-null-sink sink_name={SINK} rate=16000 channels=1\n"
        f"set-default-sink {SINK}\n"
        f"set-default-source {SINK}.monitor\n"
    )
    env = {
        "PULSE_RUNTIME_PATH": str(runtime),
        "XDG_RUNTIME_DIR": str(runtime),
        "PULSE_SERVER": f"unix:{runtime}/native",
    }
    server = subprocess.Popen(
        ["pulseaudio", "--daemonize=no", "-n", "-F", str(script), "--exit-idle-time=-1",
         "--use-pid-file=no", "--disallow-exit", "--log-target=stderr"],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # PortAudio's ALSA pulse plugin reads them when a stream opens
    try:
        _wait_for(lambda: subprocess.run(["pactl", "info"], capture_output=True).returncode == 0
                  or server.poll() is not None, 15, "PulseAudio to start")  # fmt: skip
        if server.poll() is not None:
            pytest.skip("PulseAudio could not start here")
        # Only now: PortAudio lists the ``pulse`` device only if the server answers when
        # it starts, and a loaded machine may take a while to start PulseAudio.
        _restart_portaudio()
        yield env
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(10)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        _restart_portaudio()


def _play_when_open(source, wav: Path, env: dict[str, str]) -> threading.Thread:
    """Plays ``wav`` into the sink once ``source`` is recording (a person starts talking
    after pressing the key)."""

    def play() -> None:
        source.opened.wait(15)
        subprocess.run(["paplay", "--device", SINK, str(wav)], env={**os.environ, **env},
                       check=True, timeout=30)  # fmt: skip

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    return thread


def test_listen_on_a_live_device_opens_the_form_with_the_heard_values(qtbot, pulse) -> None:
    from gibberish.voice import MicrophoneSource

    sources: list[MicrophoneSource] = []

    def microphone() -> MicrophoneSource:
        sources.append(MicrophoneSource("pulse", max_seconds=15))
        return sources[-1]

    forms = FakeForms(cancel=True)
    engine = Engine(EngineOptions(include_user=False))
    ctl = make_controller(engine, forms=forms, audio=microphone)
    ctl.start()
    states: list[str] = []
    ctl.voice.listening.state.connect(states.append)
    drawn: list[int] = []  # the level bars the tray icon showed
    ctl.voice.meter.changed.connect(drawn.append)
    try:
        ctl.listen()  # the key pressed: the tray shows it listens
        assert ctl.surface.tray.state == TrayState.LISTENING
        assert ctl.voice.meter.following
        player = _play_when_open(sources[0], FIVE_COMMITS, pulse)
        # No key release: the endpointer hears the end of speech by itself.
        qtbot.waitUntil(lambda: bool(forms.calls), timeout=60_000)
        player.join(30)
        assert forms.calls == [("git.git_log", {"count": 5})]
        assert forms.extras[0]["note"] == "Heard “show the last five commits”"
        assert sources[0].peak_level > 0.01  # speech arrived through the device
        assert max(drawn) >= 2  # and the tray's level meter showed it
        assert not ctl.voice.meter.following and ctl.voice.meter.bars == 0
        qtbot.waitUntil(lambda: states[-1:] == ["idle"], timeout=10_000)
        assert states == ["listening", "thinking", "idle"]
    finally:
        ctl.voice.listening.wait()
        ctl.shutdown()


def test_a_second_press_ends_the_recording_on_a_live_device(qtbot, pulse) -> None:
    """Toggle mode: listening continues across pauses until the key is pressed again."""
    from msgspec.structs import replace

    from gibberish.voice import MicrophoneSource

    sources: list[MicrophoneSource] = []

    def microphone() -> MicrophoneSource:
        sources.append(MicrophoneSource("pulse", max_seconds=30))
        return sources[-1]

    forms = FakeForms(cancel=True)
    engine = Engine(EngineOptions(include_user=False))
    settings = engine.settings
    engine.update_settings(replace(settings, voice=replace(settings.voice, activation="toggle")))
    ctl = make_controller(engine, forms=forms, audio=microphone)
    ctl.start()
    meter = ctl.voice.meter
    try:
        ctl.listen()
        player = _play_when_open(sources[0], FIVE_COMMITS, pulse)
        qtbot.waitUntil(lambda: meter.bars >= 2, timeout=30_000)  # the meter moves with speech
        player.join(30)
        # The recording is over, the tray still listens: silence brings the meter to quiet.
        qtbot.waitUntil(lambda: meter.bars == 0, timeout=10_000)
        assert ctl.surface.tray.state == TrayState.LISTENING
        assert "(quiet)" in ctl.surface.tray.icon.toolTip()
        assert not forms.calls  # still listening: the person has not pressed again
        ctl.listen()  # second press
        qtbot.waitUntil(lambda: bool(forms.calls), timeout=60_000)
        assert forms.calls == [("git.git_log", {"count": 5})]
    finally:
        ctl.voice.listening.wait()
        ctl.shutdown()
