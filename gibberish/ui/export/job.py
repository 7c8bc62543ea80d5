"""One plugin build on a worker thread, its outcome delivered on the GUI thread.

The export window must stay responsive while skills are copied and hashed, so the build
runs on a thread of its own; what it did (the plugin, or why not) comes back through a
relay that lives in the GUI thread, as the reloader's result does.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct
from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from gibberish.export.plugin import BuiltPlugin, FolderInUse
    from gibberish.export.plugin_manifests import PluginInfo
    from gibberish.skills.model import SkillDefinition


class ExportOutcome(Struct):
    """What the worker did: the plugin built, or why not (``in_use``: the folder's
    problem, which the window asks about or refuses in its own words)."""

    built: BuiltPlugin | None = None
    error: str = ""
    in_use: FolderInUse | None = None
    thread: int = 0
    """The thread that built (tests check it was not the GUI's)."""


class ExportRequest(Struct, frozen=True):
    skills: Sequence[SkillDefinition]
    out: Path
    info: PluginInfo
    agreed: frozenset[str]
    """The MCP servers the person ticked; no other goes in unless a bundled skill's."""
    marketplace: bool
    replace_own: bool


class ExportJob(QObject):
    finished = Signal(object)  # ExportOutcome, on the GUI thread

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.worker: threading.Thread | None = None
        self._relay = _Relay(self)
        self._relay.finished.connect(self._finished)

    @property
    def busy(self) -> bool:
        return self.worker is not None

    def start(self, request: ExportRequest) -> None:
        self.worker = threading.Thread(
            target=self._work, args=(request,), name="plugin-export", daemon=True
        )
        self.worker.start()

    def _work(self, request: ExportRequest) -> None:
        outcome = build(request)
        # RuntimeError: the window (and this relay) was deleted while the build ran.
        with contextlib.suppress(RuntimeError):
            self._relay.finished.emit(outcome)

    def _finished(self, outcome: ExportOutcome) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.join()
        self.finished.emit(outcome)

    def wait(self, timeout: float = 30.0) -> None:
        """Wait for a running build's thread (on close and in tests)."""
        worker = self.worker
        if worker is not None:
            worker.join(timeout)


def build(request: ExportRequest) -> ExportOutcome:
    """Build the plugin ``request`` asks for; every failure becomes a sentence."""
    from gibberish.export.plugin import FolderInUse, PluginBuildError, build_plugin

    outcome = ExportOutcome(thread=threading.get_ident())
    try:
        outcome.built = build_plugin(
            request.skills,
            request.out,
            request.info,
            marketplace=request.marketplace,
            consent=lambda server: server.name in request.agreed,
            replace_own=request.replace_own,
        )
    except FolderInUse as exc:
        outcome.in_use = exc
    except PluginBuildError as exc:
        text = str(exc)
        outcome.error = text[0].upper() + text[1:]
    except OSError as exc:
        outcome.error = (
            f"The plugin could not be written to {request.out} ({exc.strerror or exc}); "
            "nothing changed."
        )
    except Exception as exc:  # shown in the window, never a traceback
        outcome.error = f"Unexpected problem: {type(exc).__name__}: {exc}"
    return outcome


class _Relay(QObject):
    """Lives in the GUI thread; the worker emits through it (queued across threads)."""

    finished = Signal(object)
