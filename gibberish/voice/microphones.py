"""The microphone as the sound server sees it: running or not, a source or none, muted.

PortAudio (through ALSA's ``pulse`` device, on PulseAudio and on PipeWire's PulseAudio
service alike) reports these as "Error querying device -1", "No input device matching
'pulse'" or an input/output error, and lists devices only once, when it starts: a sound
server that starts later, or a USB headset plugged in while gibberish runs, stays unseen
until PortAudio is started again. So before each recording ``check`` asks the sound
server (``pactl``, which both servers answer) what it has, turns trouble into a sentence
in people's words, and restarts PortAudio's device list when the server's sources
changed since it was made. ``wait_until_ready`` re-probes, bounded in time, so the tray
can say when a microphone that was missing appears, without a restart.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

from msgspec import Struct

PROBE_TIMEOUT = 2.0
"""Seconds ``pactl`` may take to answer (a sound server that hangs is "not running")."""
REPROBE_EVERY = 2.0
REPROBE_FOR = 300.0
"""``wait_until_ready`` looks every 2 s for at most 5 minutes."""

NOT_RUNNING = (
    "The sound system is not running yet (neither PulseAudio nor PipeWire answered), so "
    "there is no microphone to listen to. gibberish uses it as soon as it starts; there "
    "is no need to restart gibberish."
)
NO_MICROPHONE = (
    "No microphone found: plug one in (a USB headset works). gibberish uses it as soon "
    "as it appears; there is no need to restart gibberish."
)
IN_USE = (
    "The microphone is in use by another program that keeps it to itself (a call or a "
    "recorder, perhaps). Close that program, then listen again."
)


def muted(description: str) -> str:
    return (
        f"The microphone “{description}” is muted, so nothing can be heard. Unmute it (in "
        "the sound settings, or with the microphone key), then listen again."
    )


class Source(Struct, frozen=True):
    name: str
    description: str
    muted: bool
    monitor: bool
    """A sink's monitor (what the speakers play), not a microphone."""


class SoundServer(Struct, frozen=True):
    running: bool
    sources: tuple[Source, ...] = ()
    default: str = ""

    @property
    def default_source(self) -> Source | None:
        return next((s for s in self.sources if s.name == self.default), None)

    def trouble(self) -> str:
        """What keeps the default microphone from hearing anything, or ""."""
        if not self.running:
            return NOT_RUNNING
        if not self.sources:
            return NO_MICROPHONE
        source = self.default_source
        if source is not None and source.muted:
            return muted(source.description or source.name)
        return ""

    @property
    def fingerprint(self) -> tuple[object, ...]:
        return (self.running, self.default, tuple(s.name for s in self.sources))


def _pactl(*args: str) -> subprocess.CompletedProcess[str] | None:
    program = shutil.which("pactl")
    if program is None:
        return None
    try:
        return subprocess.run(
            [program, *args],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return subprocess.CompletedProcess([program, *args], 1, "", "")


def sound_server() -> SoundServer | None:
    """What the sound server has; None when it cannot be asked (no ``pactl``)."""
    default = _pactl("get-default-source")
    if default is None:
        return None
    if default.returncode != 0:
        return SoundServer(running=False)
    listed = _pactl("-f", "json", "list", "sources")
    try:
        found = json.loads(listed.stdout) if listed is not None and listed.returncode == 0 else []
    except ValueError:
        found = []
    sources = tuple(_source(item) for item in found if isinstance(item, dict))
    name = default.stdout.strip()
    return SoundServer(True, sources, "" if name == "(null)" else name)


def _source(item: dict[str, Any]) -> Source:
    properties = item.get("properties") or {}
    monitor = bool(item.get("monitor_source")) or properties.get("device.class") == "monitor"
    return Source(
        str(item.get("name", "")),
        str(item.get("description", "")),
        bool(item.get("mute", False)),
        monitor,
    )


class _PortAudioList:
    """When PortAudio's device list was last made, as the sound server was then."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: tuple[object, ...] | None = None

    def refresh(self, sd: Any, server: SoundServer | None, *, force: bool = False) -> bool:
        """Restarts PortAudio's device list when the server changed (or ``force``); True
        when it did."""
        with self.lock:
            now = server.fingerprint if server is not None else None
            if not force and (self.seen is None or now == self.seen):
                self.seen = now
                return False
            try:
                sd._terminate()
                sd._initialize()
            except Exception:  # the old list stays; opening says what went wrong
                return False
            self.seen = now
            return True


PORTAUDIO = _PortAudioList()


def check(sd: Any) -> SoundServer | None:
    """Before a recording: a sentence (``VoiceError``) for trouble the sound server
    reports, and PortAudio's device list made again if the server's sources changed."""
    from gibberish.voice.errors import VoiceError

    server = sound_server()
    if server is not None:
        trouble = server.trouble()
        if trouble:
            PORTAUDIO.seen = PORTAUDIO.seen if PORTAUDIO.seen is not None else server.fingerprint
            raise VoiceError(trouble)
    PORTAUDIO.refresh(sd, server)
    return server


def open_error(text: str, server: SoundServer | None) -> str:
    """PortAudio's words for a microphone that did not open, in people's words."""
    lowered = text.lower()
    if server is not None and server.trouble():
        return server.trouble()
    if "-9985" in text or "unavailable" in lowered or "busy" in lowered:
        return IN_USE
    if (
        "querying device" in lowered
        or "no input device" in lowered
        or "invalid number of channels" in lowered
        or "no default input" in lowered
        or "-9996" in text
        or "-9999" in text
    ):
        return NO_MICROPHONE if server is None or server.running else NOT_RUNNING
    return ""


def wait_until_ready(
    stop: threading.Event,
    ready: Callable[[], None],
    *,
    every: float = REPROBE_EVERY,
    limit: float = REPROBE_FOR,
) -> None:
    """Looks at the sound server every ``every`` seconds for at most ``limit``; calls
    ``ready`` once it has a microphone that is not muted. Returns at once without
    ``pactl`` (nothing to look at)."""
    deadline = time.monotonic() + limit
    while not stop.is_set() and time.monotonic() < deadline:
        server = sound_server()
        if server is None:
            return
        if not server.trouble():
            ready()
            return
        stop.wait(every)
