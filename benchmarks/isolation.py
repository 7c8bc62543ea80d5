"""Point this benchmark process at temporary folders, so it never touches a real home.

Shared by the benchmarks that build Qt windows in-process: HOME and the XDG folders go
under ``root/env``, Qt renders offscreen, and the keyring is a plaintext file there.
"""

from __future__ import annotations

import os
from pathlib import Path

FOLDERS = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")


def isolate(root: Path) -> None:
    for var in FOLDERS:
        path = root / "env" / var.lower()
        path.mkdir(parents=True, exist_ok=True)
        os.environ[var] = str(path)
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["PYTHON_KEYRING_BACKEND"] = "keyrings.alt.file.PlaintextKeyring"
