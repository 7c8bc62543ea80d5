"""A real ``dbus-daemon --session`` for a test, and what it activated, stopped afterwards."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

PRIVATE_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={folder}</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


def have_dbus_daemon() -> bool:
    return shutil.which("dbus-daemon") is not None


@contextmanager
def session_bus(folder: Path, *, standard_services: bool = False) -> Iterator[str]:
    """Start a session bus and yield its address.

    ``standard_services``: the distribution's session configuration, so services such as
    the real xdg-desktop-portal are started on demand; otherwise a bus where only what
    the test starts lives (the portal double can own the portal's name).
    """
    folder.mkdir(parents=True, exist_ok=True)
    if standard_services:
        config = ["--session"]
    else:
        path = folder / "bus.conf"
        path.write_text(PRIVATE_CONFIG.format(folder=folder), encoding="utf-8")
        config = [f"--config-file={path}"]
    daemon = subprocess.Popen(
        ["dbus-daemon", *config, "--nofork", "--nopidfile", "--print-address=1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        assert daemon.stdout is not None
        address = daemon.stdout.readline().strip()
        assert address, "dbus-daemon printed no address"
        yield address
    finally:
        children = _descendants(daemon.pid)
        os.killpg(daemon.pid, signal.SIGTERM)
        daemon.wait(10)
        for child in children:  # services it activated (xdg-desktop-portal) leave with it
            try:
                child.wait(5)
            except psutil.TimeoutExpired:
                child.kill()
            except psutil.NoSuchProcess:
                pass


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []
