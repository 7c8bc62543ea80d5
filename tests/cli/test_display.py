"""The tray's pre-flight check: a sentence instead of Qt's core dump."""

from __future__ import annotations

import subprocess
import sys

from gibberish.cli.display import display_problem

FOUND = lambda soname: True  # noqa: E731
MISSING = lambda soname: False  # noqa: E731


def test_no_display_is_explained() -> None:
    problem = display_problem({}, platform="linux", loadable=FOUND)
    assert problem and "no graphical session" in problem and "gibberish skills list" in problem


def test_x11_without_xcb_libraries_names_the_packages() -> None:
    def loadable(soname: str) -> bool:
        return soname not in {"libxcb-cursor.so.0", "libxcb-icccm.so.4"}

    problem = display_problem({"DISPLAY": ":0"}, platform="linux", loadable=loadable)
    assert problem and "libxcb-cursor.so.0, libxcb-icccm.so.4" in problem
    assert "sudo apt install libxcb-cursor0 libxcb-icccm4`" in problem


def test_sessions_that_can_start() -> None:
    assert display_problem({"DISPLAY": ":0"}, platform="linux", loadable=FOUND) is None
    assert (
        display_problem({"WAYLAND_DISPLAY": "wayland-0"}, platform="linux", loadable=MISSING)
        is None
    )
    assert (
        display_problem({"QT_QPA_PLATFORM": "offscreen"}, platform="linux", loadable=MISSING)
        is None
    )
    assert display_problem({}, platform="darwin", loadable=MISSING) is None


def test_the_tray_command_exits_with_the_message_not_a_core_dump(tmp_path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "gibberish", "--no-user-skills"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "no graphical session" in done.stderr and "Traceback" not in done.stderr
