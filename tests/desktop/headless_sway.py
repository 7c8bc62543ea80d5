"""A real Sway compositor without a screen (``WLR_BACKENDS=headless``), and foot windows in it.

Sway refuses to run as root, so as root the compositor and its clients run as the
unprivileged user ``nobody`` (through ``setpriv``); as anyone else they run as that user.
Everything lives in a world-traversable temporary folder (pytest's own is private to its
user), removed afterwards with every process stopped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gibberish.desktop import sway

NOBODY = 65534


def unavailable() -> str | None:
    """Why a headless Sway cannot run here (for a skip), or None."""
    for program in ("sway", "foot"):
        if shutil.which(program) is None:
            return f"needs {program} (Debian package {program})"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "Sway refuses root and setpriv (util-linux) is missing to drop to nobody"
    return None


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class HeadlessSway:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="gibberish-sway-"))
        self.root.chmod(0o755)
        self.runtime = self.root / "runtime"
        self.home = self.root / "home"
        for folder in (self.runtime, self.home):
            folder.mkdir(mode=0o700)
            if os.geteuid() == 0:
                os.chown(folder, NOBODY, NOBODY)
        self.config = self.root / "config"
        self.config.write_text("output HEADLESS-1 resolution 1024x768\n", encoding="utf-8")
        self.config.chmod(0o644)
        self.processes: list[subprocess.Popen] = []
        self.socket = ""
        self.wayland_display = ""

    def _env(self) -> dict[str, str]:
        env = {
            # The system folders last: as nobody, a PATH folder only root may read (CI's
            # PATH with bwrap hidden) is skipped and the programs are found there.
            "PATH": f"{os.environ.get('PATH', '')}:/usr/bin:/bin".lstrip(":"),
            "HOME": str(self.home),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "WLR_BACKENDS": "headless",
            "WLR_RENDERER": "pixman",
            "WLR_LIBINPUT_NO_DEVICES": "1",
            "SHELL": "/bin/sh",
        }
        if self.wayland_display:
            env["WAYLAND_DISPLAY"] = self.wayland_display
        return env

    def _spawn(self, argv: list[str], *, cwd: Path | None = None) -> subprocess.Popen:
        argv = [shutil.which(argv[0]) or argv[0], *argv[1:]]  # found as the test's own user
        if os.geteuid() == 0:
            argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]
        proc = subprocess.Popen(
            argv,
            cwd=cwd or self.root,
            env=self._env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.processes.append(proc)
        return proc

    def start(self) -> None:
        compositor = self._spawn(["sway", "-c", str(self.config)])
        sockets = lambda: sorted(self.runtime.glob("sway-ipc.*.sock"))  # noqa: E731
        found = wait_for(lambda: sockets() or compositor.poll() is not None, "Sway's IPC socket")
        if compositor.poll() is not None:
            raise AssertionError(f"sway exited with {compositor.returncode}")
        self.socket = str(found[0])
        display = wait_for(lambda: sorted(self.runtime.glob("wayland-[0-9]")), "a Wayland socket")
        self.wayland_display = display[0].name
        wait_for(lambda: self._answers(), "Sway to answer on its socket")

    def _answers(self) -> bool:
        try:
            sway.ask(self.socket, sway.GET_VERSION)
        except sway.IpcError:
            return False
        return True

    def terminal(self, cwd: Path) -> subprocess.Popen:
        """A foot window running a shell in ``cwd``; returns once Sway has focused it."""
        proc = self._spawn(["foot", "sh"], cwd=cwd)
        wait_for(lambda: self.focused_pid() == proc.pid, f"foot in {cwd} to have the focus")
        return proc

    def focused_pid(self) -> int | None:
        return sway.focused_pid(sway.ask(self.socket, sway.GET_TREE))

    def focus(self, pid: int) -> None:
        sway.ask(self.socket, 0, f"[pid={pid}] focus".encode())  # RUN_COMMAND
        wait_for(lambda: self.focused_pid() == pid, f"window of {pid} to have the focus")

    def stop(self) -> None:
        for proc in reversed(self.processes):
            if proc.poll() is None:
                proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        shutil.rmtree(self.root, ignore_errors=True)
