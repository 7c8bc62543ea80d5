"""Can the tray start here? Checked before Qt is imported.

Qt answers a missing display, or an X11 session that lacks one of the libraries its xcb
plugin links (several are not installed on a stock system; ``libxcb-cursor`` is needed
since Qt 6.5), by aborting the whole process with a core dump. A person deserves a
sentence that says what is missing and how to install it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping

#: What Qt 6's xcb platform plugin links (``ldd libQt6XcbQpa.so.6``), with the Debian
#: and Ubuntu package that ships each.
XCB_LIBRARIES: dict[str, str] = {
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
}


def _loadable(soname: str) -> bool:
    import ctypes  # only where a display is checked: not on the tray's usual start path

    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing_xcb_libraries(loadable: Callable[[str], bool] = _loadable) -> list[str]:
    return [soname for soname in XCB_LIBRARIES if not loadable(soname)]


def display_problem(
    env: Mapping[str, str] | None = None,
    *,
    platform: str = sys.platform,
    loadable: Callable[[str], bool] = _loadable,
) -> str | None:
    """Why the tray cannot start in this session, or None when it can (as far as we know)."""
    env = os.environ if env is None else env
    if not platform.startswith("linux") or env.get("QT_QPA_PLATFORM"):
        return None
    wayland = bool(env.get("WAYLAND_DISPLAY"))
    x11 = bool(env.get("DISPLAY"))
    if not wayland and not x11:
        return (
            "There is no graphical session here (neither DISPLAY nor WAYLAND_DISPLAY is set), "
            "so the tray cannot start. The command line works without one: "
            "`gibberish skills list`, `gibberish run SKILL.TOOL`, `gibberish --help`."
        )
    if x11 and not wayland:
        missing = missing_xcb_libraries(loadable)
        if missing:
            packages = " ".join(XCB_LIBRARIES[m] for m in missing)
            return (
                f"Qt cannot open windows on X11 without {', '.join(missing)}. Install "
                f"{'it' if len(missing) == 1 else 'them'} (Debian, Ubuntu: `sudo apt install "
                f"{packages}`; Fedora and Arch ship them in the xcb-util packages) and start "
                "gibberish again."
            )
    return None
