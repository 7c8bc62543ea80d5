"""Microphones as people have them, on a private PulseAudio server with virtual sources.

Each test starts its own PulseAudio (no kernel module, no sound card) in a temporary
runtime folder; a "USB headset" is a remapped source over a null sink's monitor, so a
recording played into the sink with ``paplay`` is what the headset hears. Nothing
stands in for the microphone: ``MicrophoneSource`` opens ALSA's ``pulse`` device through
PortAudio as on a desktop, and the sentences come from asking the server with ``pactl``.
Skips, saying why, without pulseaudio, pactl, paplay or the ALSA pulse plugin.
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

from gibberish.voice import MicrophoneSource, VoiceError, microphones
from tests.voice.corpus import IN_GRAMMAR, fixture

SINK = "gibberish_speakers"
HEADSET = "usb_headset"
SPEECH = fixture(IN_GRAMMAR[2], "slt")


def _missing() -> str:
    for program in ("pulseaudio", "paplay", "pactl"):
        if shutil.which(program) is None:
            return f"{program} is not installed (Debian: pulseaudio pulseaudio-utils)"
    if not Path("/usr/share/alsa/alsa.conf.d/pulse.conf").exists():
        return "the ALSA pulse plugin is not installed (Debian: libasound2-plugins)"
    return ""


class Pulse:
    """A private PulseAudio server, started and stopped by the test."""

    def __init__(self, root: Path) -> None:
        self.runtime = root / "run"
        self.runtime.mkdir(mode=0o700)
        self.script = root / "default.pa"
        self.script.write_text("load-module module-native-protocol-unix\n")
        self.env = {
            "PULSE_RUNTIME_PATH": str(self.runtime),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "PULSE_SERVER": f"unix:{self.runtime}/native",
        }
        self.server: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.server = subprocess.Popen(
            ["pulseaudio", "--daemonize=no", "-n", "-F", str(self.script),
             "--exit-idle-time=-1", "--use-pid-file=no", "--disallow-exit"],
            env={**os.environ, **self.env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 15
        while self.pactl("info").returncode != 0:
            if self.server.poll() is not None or time.monotonic() > deadline:
                pytest.skip("PulseAudio could not start here")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.server is not None:
            os.killpg(self.server.pid, signal.SIGTERM)
            self.server.wait(10)
            self.server = None

    def pactl(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["pactl", *args], capture_output=True, text=True, env={**os.environ, **self.env}
        )

    def plug_in_headset(self) -> None:
        """A speaker sink and a "USB headset" source hearing what the sink plays."""
        for args in (
            ("module-null-sink", f"sink_name={SINK}", "rate=16000", "channels=1"),
            ("module-remap-source", f"source_name={HEADSET}", f"master={SINK}.monitor",
             "channels=1", "source_properties=\"device.description='USB headset'\""),
        ):  # fmt: skip
            loaded = self.pactl("load-module", *args)
            assert loaded.returncode == 0, loaded.stderr
        assert self.pactl("set-default-source", HEADSET).returncode == 0

    def play_when_open(self, source: MicrophoneSource) -> threading.Thread:
        def play() -> None:
            source.opened.wait(15)
            subprocess.run(["paplay", "--device", SINK, str(SPEECH)],
                           env={**os.environ, **self.env}, check=True, timeout=30)  # fmt: skip

        thread = threading.Thread(target=play, daemon=True)
        thread.start()
        return thread


@pytest.fixture
def pulse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pulse]:
    """A PulseAudio server not yet started; its variables set for this process, where
    PortAudio's ALSA pulse plugin and ``pactl`` read them."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    server = Pulse(tmp_path)
    for key, value in server.env.items():
        monkeypatch.setenv(key, value)
    try:
        yield server
    finally:
        server.stop()


def _record(source: MicrophoneSource, pulse: Pulse) -> float:
    """Records while the speech plays; the loudest level heard."""
    player = pulse.play_when_open(source)
    for _ in source.frames(3200):
        if source.peak_level > 0.01:
            source.stop()
    player.join(30)
    return source.peak_level


def _sentence(device: str = "pulse") -> str:
    with pytest.raises(VoiceError) as raised:
        next(iter(MicrophoneSource(device, max_seconds=1).frames(3200)))
    return str(raised.value)


def test_a_sound_server_that_starts_later_is_picked_up_without_a_restart(pulse: Pulse) -> None:
    said = _sentence()
    assert said == microphones.NOT_RUNNING
    assert "-1" not in said and "querying" not in said
    pulse.start()
    pulse.plug_in_headset()
    assert _record(MicrophoneSource("pulse", max_seconds=10), pulse) > 0.01


def test_no_microphone_then_a_usb_headset_plugged_in_while_running(pulse: Pulse) -> None:
    pulse.start()
    assert _sentence() == microphones.NO_MICROPHONE
    ready = threading.Event()
    stop = threading.Event()
    watcher = threading.Thread(
        target=microphones.wait_until_ready, args=(stop, ready.set), kwargs={"every": 0.2}
    )
    watcher.start()
    try:
        time.sleep(0.5)
        assert not ready.is_set()
        pulse.plug_in_headset()
        assert ready.wait(10), "the headset was not noticed"
    finally:
        stop.set()
        watcher.join(5)
    server = microphones.sound_server()
    assert server is not None and server.default == HEADSET
    assert _record(MicrophoneSource("pulse", max_seconds=10), pulse) > 0.01


def test_a_muted_microphone_is_said_by_its_name(pulse: Pulse) -> None:
    pulse.start()
    pulse.plug_in_headset()
    assert pulse.pactl("set-source-mute", HEADSET, "1").returncode == 0
    said = _sentence()
    assert said == microphones.muted("USB headset")
    assert "“USB headset” is muted" in said
    pulse.pactl("set-source-mute", HEADSET, "0")
    assert _record(MicrophoneSource("pulse", max_seconds=10), pulse) > 0.01


def test_the_microphone_list_follows_the_sound_server(pulse: Pulse) -> None:
    from gibberish.voice import input_devices

    assert "pulse" not in [d.name for d in input_devices()]
    pulse.start()
    pulse.plug_in_headset()
    assert "pulse" in [d.name for d in input_devices()]


def test_a_microphone_another_program_records_from_still_hears_you(pulse: Pulse) -> None:
    """On a sound server a source is shared: while a meeting app records from the
    headset, the mode detection sees the microphone in use and listening still works."""
    from gibberish.desktop.focus import MicrophoneProbe

    pulse.start()
    pulse.plug_in_headset()
    assert MicrophoneProbe().in_use() is False
    other = subprocess.Popen(
        ["parec", f"--device={HEADSET}"], env={**os.environ, **pulse.env},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while not pulse.pactl("list", "source-outputs", "short").stdout.strip():
            assert other.poll() is None and time.monotonic() < deadline, "parec did not record"
            time.sleep(0.05)
        assert MicrophoneProbe().in_use() is True
        assert _record(MicrophoneSource("pulse", max_seconds=10), pulse) > 0.01
    finally:
        other.terminate()
        other.wait(10)


def test_a_microphone_in_use_is_said_in_words() -> None:
    """PulseAudio and PipeWire share a source among programs, so "in use" comes from a
    device opened directly; PortAudio's own error texts for it become the sentence."""
    for text in (
        "Error opening RawInputStream: Device unavailable [PaErrorCode -9985]",
        "Error opening InputStream: Unanticipated host error [PaErrorCode -9999]: "
        "'Device or resource busy' [ALSA error -16]",
    ):
        server = microphones.SoundServer(True, (microphones.Source("mic", "Mic", False, False),))
        assert microphones.open_error(text, server) == microphones.IN_USE
    assert microphones.IN_USE.startswith("The microphone is in use by another program")


def test_the_tray_says_no_microphone_then_that_the_headset_is_ready(qtbot, pulse: Pulse) -> None:
    from gibberish.engine.core import Engine, EngineOptions
    from tests.ui.conftest import FakeForms, make_controller

    pulse.start()
    sources: list[MicrophoneSource] = []

    def microphone() -> MicrophoneSource:
        sources.append(MicrophoneSource("pulse", max_seconds=15))
        return sources[-1]

    forms = FakeForms(cancel=True)
    ctl = make_controller(Engine(EngineOptions(include_user=False)), forms=forms, audio=microphone)
    ctl.start()
    said: list[tuple[str, str]] = []
    ctl.notified.connect(lambda title, body, _failed: said.append((title, body)))
    try:
        ctl.listen()
        qtbot.waitUntil(
            lambda: ("Not listening", microphones.NO_MICROPHONE) in said, timeout=20_000
        )
        ctl.voice.listening.wait()
        pulse.plug_in_headset()
        qtbot.waitUntil(lambda: any(t == "Microphone ready" for t, _ in said), timeout=20_000)
        ctl.listen()
        pulse.play_when_open(sources[-1])
        qtbot.waitUntil(lambda: bool(forms.calls), timeout=60_000)
        assert forms.calls == [("git.git_log", {"count": 5})]
    finally:
        ctl.voice.listening.wait()
        ctl.shutdown()
