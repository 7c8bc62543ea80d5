"""The KDE Plasma (Wayland) backend: a KWin script reports the active window's pid.

KWin has no call that answers "which window has the focus", but it runs scripts given
over D-Bus (``org.kde.kwin.Scripting.loadScript`` on ``/Scripting``, then ``run`` on the
script's object), and a script may call any D-Bus method (``callDBus``). So, per
question: write a three-line script that calls back this process's ``Report(pid)`` with
``workspace.activeWindow`` (Plasma 6; ``activeClient`` on Plasma 5), load it, run it,
wait for the call, unload it. This is the documented scripting interface, the same one
Kando's KDE backend uses.
"""

from __future__ import annotations

import os
import queue
import secrets
import tempfile
import time
from pathlib import Path

from jeepney import DBusAddress, MatchRule, new_error, new_method_call, new_method_return
from jeepney.io.threading import DBusRouter
from jeepney.low_level import HeaderFields

from gibberish.desktop import bus
from gibberish.desktop.focus import FocusInfo, describe_process
from gibberish.logger import logger

log = logger("gibberish.desktop.kde")

KWIN = "org.kde.KWin"
SCRIPTING = DBusAddress("/Scripting", KWIN, "org.kde.kwin.Scripting")
CALLBACK_PATH = "/io/github/gibberish/Focus"
CALLBACK_INTERFACE = "io.github.gibberish.Focus"

_SCRIPT = """\
const w = workspace.activeWindow || workspace.activeClient;
callDBus("{name}", "{path}", "{interface}", "Report", w ? w.pid : 0);
"""


class KWinFocusProvider:
    """The focused KWin window's process, through a KWin script run per question."""

    name = "kde"

    def __init__(self, *, address: str | None = None, timeout: float = 1.0) -> None:
        self._address = address
        self._timeout = timeout

    def focused(self) -> FocusInfo | None:
        try:
            pid = self.active_pid()
        except bus.BusError as exc:
            log.debug("no focused window: %s", exc)
            return None
        return describe_process(pid) if pid else None

    def problem(self) -> str | None:
        try:
            router = bus.open_router(self._address)
        except bus.BusError as exc:
            return str(exc)
        try:
            if bus.name_owner(router, KWIN) is None:
                return "KWin is not on the session bus: is this a Plasma session?"
        finally:
            router.close()
            router.conn.close()
        return None

    def active_pid(self) -> int:
        """Run the script once and return the pid it reported (0: no window)."""
        router = bus.open_router(self._address)
        plugin = "gibberish_focus_" + secrets.token_hex(4)
        try:
            kwin = bus.name_owner(router, KWIN)
            if kwin is None:
                raise bus.BusError("KWin is not on the session bus: is this a Plasma session?")
            calls: queue.Queue = queue.Queue()
            rule = MatchRule(type="method_call", interface=CALLBACK_INTERFACE, member="Report")
            with router.filter(rule, queue=calls):
                script = self._write_script(router.unique_name, plugin)
                try:
                    self._run(router, script, plugin)
                    return self._wait(router, calls, kwin)
                finally:
                    script.unlink(missing_ok=True)
                    self._unload(router, plugin)
        finally:
            router.close()
            router.conn.close()

    @staticmethod
    def _write_script(unique_name: str, plugin: str) -> Path:
        text = _SCRIPT.format(name=unique_name, path=CALLBACK_PATH, interface=CALLBACK_INTERFACE)
        base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
        fd, name = tempfile.mkstemp(prefix=plugin, suffix=".js", dir=base)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        return Path(name)

    @staticmethod
    def _run(router: DBusRouter, script: Path, plugin: str) -> None:
        (script_id,) = bus.call(
            router, new_method_call(SCRIPTING, "loadScript", "ss", (str(script), plugin))
        )
        if script_id < 0:
            raise bus.BusError(f"KWin refused the script {script} (id {script_id}).")
        target = DBusAddress(f"/Scripting/Script{script_id}", KWIN, "org.kde.kwin.Script")
        bus.call(router, new_method_call(target, "run"))

    def _wait(self, router: DBusRouter, calls: queue.Queue, kwin: str) -> int:
        """The pid KWin's script reported; a ``Report`` from anyone else is refused."""
        deadline = time.monotonic() + self._timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                msg = calls.get(timeout=left)
            except queue.Empty:
                break
            if msg.header.fields.get(HeaderFields.sender) != kwin:
                router.send(new_error(msg, "org.freedesktop.DBus.Error.AccessDenied"))
                continue
            router.send(new_method_return(msg))
            pid = msg.body[0] if msg.body else 0
            return int(pid) if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 else 0
        raise bus.BusError(f"KWin's script did not report within {self._timeout:g} s.")

    @staticmethod
    def _unload(router: DBusRouter, plugin: str) -> None:
        try:
            bus.call(router, new_method_call(SCRIPTING, "unloadScript", "s", (plugin,)))
        except bus.BusError as exc:
            log.debug("unloading the KWin script %s: %s", plugin, exc)
