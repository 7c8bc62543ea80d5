"""Spoken feedback: a short sentence said aloud through ``spd-say`` or ``espeak-ng``.

Off by default (``[voice] spoken_feedback``). The speaker is started as a detached
process (argv, no shell) and never waited for, so a slow or missing speech daemon never
holds up the tray.
"""

from __future__ import annotations

import shutil
import subprocess

SPEAKERS = (("spd-say", ["spd-say", "--wait", "--"]), ("espeak-ng", ["espeak-ng", "--"]))
MAX_CHARS = 200


def speaker() -> list[str] | None:
    """The argv prefix of the first speech program installed, or None."""
    for program, argv in SPEAKERS:
        if shutil.which(program):
            return argv
    return None


def speak(text: str) -> subprocess.Popen[bytes] | None:
    """Say ``text`` (shortened); None when no speech program is installed."""
    argv = speaker()
    text = " ".join(text.split())[:MAX_CHARS]
    if argv is None or not text:
        return None
    return subprocess.Popen(
        [*argv, text],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
