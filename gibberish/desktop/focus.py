"""What the user is doing right now, from the desktop: the focused app and the microphone.

These probes feed mode detection (``modes.py``) and give the Engine the focused app's
working folder (runs start in its git root, docs/adr/0008-running-a-tool.md). Each one is small, has no
dependency beyond psutil and an optional command-line tool, and answers ``None`` when it
cannot tell — no exception, no output — so a desktop without a focus backend or PulseAudio
simply falls back to Global / manual mode. Which window has the focus is asked of the
desktop by ``gibberish.desktop`` (one backend per desktop family, docs/adr/0038-desktop-backends.md);
its answer, a pid, becomes a ``FocusInfo`` here (``describe_process``).

Every external command runs as an argv list (never through a shell), with stdin closed
and a short timeout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

import psutil
from msgspec import Struct

from gibberish.logger import logger

log = logger("gibberish.desktop.focus")
"""Why a probe found nothing (debug) or failed (warning); detection itself stays silent."""

Runner = Callable[[list[str]], str | None]
"""Runs an argv and returns its stdout, or None when the tool is missing or failed."""

SHELLS = frozenset(
    {"bash", "zsh", "fish", "sh", "dash", "ksh", "mksh", "tcsh", "csh", "nu", "xonsh", "elvish"}
)


class FocusInfo(Struct, frozen=True):
    """The focused window's process: pid, executable name, and its working folder."""

    pid: int | None
    app: str | None
    cwd: Path | None


class FocusProvider(Protocol):
    def focused(self) -> FocusInfo | None: ...


def run_quiet(
    argv: list[str], *, timeout: float, env: Mapping[str, str] | None = None
) -> str | None:
    """Run ``argv`` (program looked up on PATH) and return stdout; None on any failure."""
    program = shutil.which(argv[0], path=(env or os.environ).get("PATH"))
    if program is None:
        return None
    try:
        done = subprocess.run(
            [program, *argv[1:]],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
            env=dict(env) if env is not None else None,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.debug("%s could not run: %s", program, exc)
        return None
    if done.returncode != 0:
        log.debug("%s exited with %s: %s", program, done.returncode, done.stderr.strip()[:200])
        return None
    return done.stdout


class NoFocus:
    """The provider where the desktop offers no way to ask for the focused window.

    The desktop backends (``gibberish.desktop``) sit above this layer and are handed to
    ``ModeDetector`` by the Engine; without one, detection falls back to Global.
    """

    def focused(self) -> FocusInfo | None:
        return None


def describe_process(pid: int) -> FocusInfo:
    """Name and working folder of ``pid``.

    The working folder is that of the most recently started shell below the process
    (the shell in a terminal's tab or an IDE's terminal: that is where the user is
    working), else the process's own.
    """
    try:
        proc = psutil.Process(pid)
        name = proc.name()
    except (psutil.Error, OSError) as exc:
        log.debug("focused process %s cannot be read: %s", pid, exc)
        return FocusInfo(pid=pid, app=None, cwd=None)
    return FocusInfo(pid=pid, app=name or None, cwd=_shell_cwd(proc) or _cwd(proc))


def _shell_cwd(proc: psutil.Process) -> Path | None:
    try:
        children = proc.children(recursive=True)
    except (psutil.Error, OSError):
        return None
    shells = []
    for child in children:
        try:
            if child.name() in SHELLS:
                shells.append((child.create_time(), child))
        except (psutil.Error, OSError):
            continue
    for _, shell in sorted(shells, key=lambda item: item[0], reverse=True):
        cwd = _cwd(shell)
        if cwd is not None:
            return cwd
    return None


def _cwd(proc: psutil.Process) -> Path | None:
    try:
        cwd = proc.cwd()
    except (psutil.Error, OSError):
        return None
    return Path(cwd) if cwd else None


class MicrophoneProbe:
    """Is any program recording from a microphone? Asked of PulseAudio / PipeWire via pactl.

    ``pactl list source-outputs short`` prints one line per open recording stream, so a
    stream of a program (one with a client) means "in use". None when pactl is missing or no sound server
    answers. A level meter (pavucontrol) or gibberish's own voice input counts too; the
    Meeting rule also needs a meeting app, which keeps that from mattering much.
    """

    def __init__(self, *, run: Runner | None = None, timeout: float = 1.0) -> None:
        self._run = run or (lambda argv: run_quiet(argv, timeout=timeout))

    def in_use(self) -> bool | None:
        try:
            output = self._run(["pactl", "list", "source-outputs", "short"])
        except Exception as exc:
            log.warning("asking pactl about the microphone failed: %s", exc, exc_info=True)
            return None
        if output is None:
            log.debug("microphone unknown: pactl is missing or no sound server answered")
            return None
        return any(_a_program_records(line) for line in output.splitlines())


def _a_program_records(line: str) -> bool:
    """One line of ``pactl list source-outputs short`` (index, source, client, driver,
    format): a recording by a program. The sound server's own modules — a virtual source
    remapped from another, echo cancelling, a loopback — record too, with no client ("-"),
    and are there whether or not anybody talks."""
    fields = line.split("\t")
    return len(fields) > 2 and fields[2].strip() not in ("", "-")


def running_process_names() -> set[str]:
    """Executable names of every process this user can see (empty on failure)."""
    names: set[str] = set()
    try:
        for proc in psutil.process_iter(["name"]):
            name = proc.info.get("name")
            if name:
                names.add(name)
    except (psutil.Error, OSError) as exc:
        log.warning("listing running processes failed: %s", exc)
    return names
