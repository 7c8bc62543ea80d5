"""The installed PySide6 must keep Python's reference counts right.

PySide6 6.12.0 under Python 3.11 drops a reference to ``None`` on every void call and to
``True`` on every signal emit; a tray running all day then aborts with "Fatal Python
error: none_dealloc". pyproject.toml keeps that build off Python 3.11; this test says so
plainly if an environment ends up with it anyway.
"""

from __future__ import annotations

import sys

import PySide6
from PySide6.QtCore import QObject, Signal

ADVICE = (
    f"PySide6 {PySide6.__version__} on Python {sys.version.split()[0]} loses references to "
    "built-in singletons and will crash the tray; install PySide6-Essentials<6.12 or use "
    "Python 3.12 or newer."
)


class _Emitter(QObject):
    fired = Signal(int)


def test_void_calls_keep_none_alive() -> None:
    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(500):
        probe.setObjectName("probe")
    assert before - sys.getrefcount(None) < 50, ADVICE


def test_signal_emits_keep_true_alive(qapp) -> None:
    emitter = _Emitter()
    emitter.fired.connect(lambda value: None)
    before = sys.getrefcount(True)
    for i in range(500):
        emitter.fired.emit(i)
    assert before - sys.getrefcount(True) < 50, ADVICE
