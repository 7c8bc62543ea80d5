"""Take the screenshots of docs/screenshots/: each journey of the everyday loop, on a real
X11 session (Xvfb, openbox, trayer as the tray host) and on a headless Sway, at 1× and 2×.

    .venv/bin/python docs/screenshots/take.py            # every session and scale
    .venv/bin/python docs/screenshots/take.py x11 1      # one of them

Needs Xvfb, openbox and trayer (X11), sway, foot and grim (Sway). Each run starts the display, then this same script with ``--drive`` inside
it: a real ``Controller`` over a real ``Engine`` (bundled skills, a user skill, an
installed skill, a broken one, a git project) in temporary folders, driven by real key
presses, and a screenshot of the whole screen after each step (the X root window
read by Qt, or ``grim``). Files land as ``<session>-<scale>x-<journey>.png``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCREEN = (1366, 768)


# ---------------------------------------------------------------------- sessions
def x11(scale: int, out: Path) -> None:
    display = ":57"
    procs = [subprocess.Popen(["Xvfb", display, "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24"])]
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb")
    try:
        time.sleep(1.5)
        procs.append(subprocess.Popen(["openbox"], env=env, stderr=subprocess.DEVNULL))
        time.sleep(0.8)
        procs.append(
            subprocess.Popen(
                [
                    *("trayer", "--edge", "top", "--align", "right", "--widthtype", "request"),
                    *("--height", "24", "--SetDockType", "true", "--transparent", "false"),
                ],
                env=env,
                stderr=subprocess.DEVNULL,
            )
        )
        time.sleep(0.8)
        drive(env, scale, out, "x11", "")  # the X server's root window, read by Qt
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(10)


def sway(scale: int, out: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.desktop.headless_sway import HeadlessSway

    session = HeadlessSway()
    session.config.write_text(
        f"output HEADLESS-1 resolution {SCREEN[0]}x{SCREEN[1]}\n", encoding="utf-8"
    )
    try:
        session.start()
        runtime = str(session.runtime)
        display = str(session.runtime / session.wayland_display)
        env = dict(
            os.environ,
            WAYLAND_DISPLAY=display,
            XDG_RUNTIME_DIR=runtime,
            SWAYSOCK=session.socket,
            QT_QPA_PLATFORM="wayland",
        )
        env.pop("DISPLAY", None)
        shot = f"WAYLAND_DISPLAY={display} XDG_RUNTIME_DIR={runtime} grim {{file}}"
        drive(env, scale, out, "sway", shot)
    finally:
        session.stop()


def drive(env: dict[str, str], scale: int, out: Path, name: str, shot: str) -> None:
    env = dict(env, QT_SCALE_FACTOR=str(scale), SHOT=shot, SHOT_PREFIX=f"{name}-{scale}x")
    subprocess.run(
        [sys.executable, __file__, "--drive", str(out)], env=env, check=True, timeout=600
    )


# ---------------------------------------------------------------------- the journeys
def journeys(out: Path) -> None:
    """Inside the session: every journey, a screenshot after each."""
    root = Path(tempfile.mkdtemp(prefix="gibberish-shots-"))
    home = root / "home"
    for var, folder in (
        ("HOME", home),
        ("XDG_CONFIG_HOME", home / ".config"),
        ("XDG_DATA_HOME", home / ".local/share"),
        ("XDG_STATE_HOME", home / ".local/state"),
        ("XDG_CACHE_HOME", home / ".cache"),
    ):
        folder.mkdir(parents=True, exist_ok=True)
        os.environ[var] = str(folder)
    os.environ["PYTHON_KEYRING_BACKEND"] = "keyrings.alt.file.PlaintextKeyring"
    project = home / "code" / "app"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    for n, message in enumerate(
        ["First sketch", "Add the parser", "Fix a typo", "Tests", "Faster start", "Docs"]
    ):
        (project / f"f{n}").write_text(str(n))
        subprocess.run(["git", "-C", str(project), "add", "."], check=True)
        who = ["-c", "user.name=Ada", "-c", "user.email=ada@example.org"]
        subprocess.run(["git", "-C", str(project), *who, "commit", "-qm", message], check=True)
    skills = home / ".config" / "gibberish" / "skills"
    write(skills / "weather" / "SKILL.md", WEATHER)
    write(skills / "broken" / "SKILL.md", BROKEN)
    source = root / "downloads" / "word-count"
    write(source / "SKILL.md", WORD_COUNT)
    from gibberish.engine.core import Engine

    subprocess.run(  # the same install a person runs
        [sys.executable, "-m", "gibberish", "install", str(source), "--yes", "--no-sync"],
        check=False,
        capture_output=True,
    )
    prefix = os.environ["SHOT_PREFIX"]
    Driver(Engine(), project, out, prefix).run()
    shutil.rmtree(root, ignore_errors=True)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


class Driver:
    def __init__(self, engine, project: Path, out: Path, prefix: str) -> None:
        from PySide6.QtWidgets import QApplication

        from gibberish.desktop.focus import FocusInfo
        from gibberish.desktop.modes import ModeDetector

        class Terminal:
            def focused(self) -> FocusInfo:
                return FocusInfo(pid=1, app="foot", cwd=project)

        class Quiet:
            def in_use(self) -> bool:
                return False

        self.app = QApplication.instance() or QApplication(["gibberish"])
        engine._detector = ModeDetector(focus=Terminal(), microphone=Quiet(), process_names=set)
        self.engine = engine
        self.out = out
        self.prefix = prefix

    def shoot(self, name: str) -> None:
        from PySide6.QtTest import QTest

        QTest.qWait(700)
        file = self.out / f"{self.prefix}-{name}.png"
        if os.environ["SHOT"]:
            subprocess.run(os.environ["SHOT"].format(file=file), shell=True, check=False)
        else:
            from PySide6.QtGui import QGuiApplication

            QGuiApplication.primaryScreen().grabWindow(0).save(str(file))
        print("saved", file, flush=True)

    def wait(self, condition, timeout: float = 15.0) -> None:
        from PySide6.QtTest import QTest

        deadline = time.monotonic() + timeout
        while not condition() and time.monotonic() < deadline:
            QTest.qWait(30)

    def key(self, bar, key, modifier=None) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QApplication

        target = QApplication.focusWidget()
        step = bar.steps.current()
        if step is not None and (target is None or target.window() is not bar.window()):
            target = step.focusWidget() or step
        QTest.keyClick(target or bar.input, key, modifier or Qt.KeyboardModifier.NoModifier)

    def type(self, text: str) -> None:
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QApplication

        for ch in text:
            QTest.keyClick(QApplication.focusWidget(), ch)
            QTest.qWait(15)

    def later(self, condition, then) -> None:
        from PySide6.QtCore import QTimer

        timer = QTimer(self.app)
        timer.setInterval(40)

        def poll() -> None:
            if condition():
                timer.stop()
                then()

        timer.timeout.connect(poll)
        timer.start()

    def answer_steps(self, bar, name: str) -> None:
        """Enter on a form; on the approval, a screenshot and Ctrl+Enter (Run once)."""
        from PySide6.QtCore import Qt, QTimer

        from gibberish.ui.approval.dialog import ApprovalDialog
        from gibberish.ui.runs.param_form import ParameterForm
        from gibberish.ui.runs.result_window import ResultWindow

        timer = QTimer(self.app)
        timer.setInterval(60)
        seen: list[object] = []

        def poll() -> None:
            step = bar.steps.current()
            if isinstance(step, ParameterForm) and step not in seen:
                seen.append(step)
                self.key(bar, Qt.Key.Key_Return)
            elif isinstance(step, ResultWindow):
                timer.stop()  # it ran without asking
            elif isinstance(step, ApprovalDialog):
                timer.stop()
                self.shoot(name)
                self.key(bar, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

        timer.timeout.connect(poll)
        timer.start()
        QTimer.singleShot(20_000, timer.stop)

    def run(self) -> None:
        from PySide6.QtCore import Qt

        from gibberish.ui.controller import Controller
        from gibberish.ui.runs.param_form import ParameterForm
        from gibberish.ui.runs.result_window import ResultWindow

        ctl = Controller(self.engine)
        ctl.start()
        self.wait(lambda: ctl.host.is_ready)
        ctl.welcome_once()
        bar = ctl.text.command_bar
        self.shoot("1-first-start")
        self.key(bar, Qt.Key.Key_Return)

        ctl.open_command_bar()
        self.type("log")
        self.shoot("2a-search")

        def form() -> None:
            self.shoot("2b-tool-with-parameters")
            self.type("5")
            self.key(bar, Qt.Key.Key_Return)

        self.later(lambda: isinstance(bar.steps.current(), ParameterForm), form)
        self.key(bar, Qt.Key.Key_Return)
        self.wait(lambda: isinstance(bar.steps.current(), ResultWindow))
        self.wait(lambda: bar.steps.current().result is not None)
        self.key(bar, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
        self.wait(lambda: bar.steps.current().result is not None)
        self.shoot("3-run-again")
        self.key(bar, Qt.Key.Key_Escape)

        for query, name in (("weather", "4-needs-approval"), ("count words", "5-installed")):
            ctl.open_command_bar()
            self.type(query)
            self.answer_steps(bar, name)
            self.key(bar, Qt.Key.Key_Return)
            self.wait(lambda: isinstance(bar.steps.current(), ResultWindow), 5)
            if bar.steps.active:
                self.key(bar, Qt.Key.Key_Escape)
            self.key(bar, Qt.Key.Key_Escape)

        ctl.show_problem("broken")
        self.shoot("6-problems")
        ctl.dialogs.close_all()
        ctl.open_settings()
        self.shoot("7-settings")
        ctl.dialogs.close_all()
        ctl.shutdown()

        launcher = Controller(self.engine, tray_available=False)
        launcher.start()
        self.wait(lambda: launcher.host.is_ready)
        launcher.refresh_views()
        from PySide6.QtTest import QTest

        window = launcher.surface.launcher
        window.activateWindow()
        QTest.keyClicks(window.bar.input, "disk")
        self.shoot("8-launcher-no-tray")
        launcher.shutdown()


WEATHER = """---
name: weather
version: 1.0.0
description: The weather where you are, from wttr.in.
network: true
---

# Weather

### forecast

Today's forecast for a town, in one line.

#### Parameters

| Name | Type | Required | Description |
|---|---|---|---|
| town | string | no | Town to look up (default: Lisbon) |

#### Command

```bash
echo Forecast for {{town:Lisbon}}: sunny, 21 degrees
```
"""

WORD_COUNT = """---
name: word-count
version: 0.3.0
description: Count the words of a text file.
---

# Word count

### count_words

Count the lines, words and characters of a file.

#### Parameters

| Name | Type | Required | Description |
|---|---|---|---|
| file | string | no | File to count (default: README.md) |

#### Command

```bash
wc {{file:README.md}}
```
"""

BROKEN = """---
name: broken
version: 1.0.0
description: A skill with mistakes in it.
modes: [Dev, Global
---

# Broken

### do_thing

Does a thing.

#### Command

```bash
echo {{missing}}
```
"""


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--drive":
        import faulthandler

        faulthandler.dump_traceback_later(240, exit=True)  # a stuck step says where
        journeys(Path(sys.argv[2]))
        return
    out = HERE
    sessions = {"x11": x11, "sway": sway}
    chosen = [sys.argv[1]] if len(sys.argv) > 1 else list(sessions)
    scales = [int(sys.argv[2])] if len(sys.argv) > 2 else [1, 2]
    for name in chosen:
        for scale in scales:
            sessions[name](scale, out)


if __name__ == "__main__":
    main()
