"""Take docs/screenshots/listening-panel-*.png: the listening panel on a real X11 session
(Xvfb, openbox, trayer as the tray host) and on a headless Sway, at 1× and 2×.

    .venv/bin/python docs/screenshots/take_listening_panel.py

The sessions are take.py's. Inside each, a terminal window stands for the work the person
was doing, then the panel is shown as the listen flow shows it: listening with speech
lighting three bars, then the words heard and the tool they propose. Sway is given the
window rule docs/voice.md suggests (float, stay on every workspace, top centre).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import take  # noqa: E402  (the sessions of the other screenshots)

SWAY_RULE = (
    'for_window [title="^gibberish listening$"] '
    "floating enable, sticky enable, move position center, move up {up}\n"
)


def drive(env: dict[str, str], scale: int, out: Path, name: str, shot: str) -> None:
    env = dict(env, QT_SCALE_FACTOR=str(scale), SHOT=shot, SHOT_PREFIX=f"{name}-{scale}x")
    subprocess.run(
        [sys.executable, __file__, "--drive", str(out)], env=env, check=True, timeout=300
    )


def shots(out: Path) -> None:
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QPlainTextEdit

    from gibberish.ui.listen.panel import ListeningPanel

    app = QApplication(["gibberish"])
    work = QPlainTextEdit()  # the window the person was working in
    work.setPlainText("$ git status\nOn branch main\nnothing to commit, working tree clean\n$ ")
    work.resize(900, 420)
    work.show()
    QTest.qWait(600)
    panel = ListeningPanel(lambda: None)
    prefix = os.environ["SHOT_PREFIX"]

    def shoot(name: str) -> None:
        QTest.qWait(900)
        file = out / f"listening-panel-{prefix}-{name}.png"
        if os.environ["SHOT"]:
            subprocess.run(os.environ["SHOT"].format(file=file), shell=True, check=False)
        else:
            QGuiApplication.primaryScreen().grabWindow(0).save(str(file))
        print("saved", file, flush=True)

    panel.show_state("listening")
    panel.show_level(3)
    shoot("listening")
    panel.show_state("thinking")
    panel.show_heard("show the last five commits", "Opening Git log…", close_soon=False)
    shoot("heard")
    app.quit()


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--drive":
        shots(Path(sys.argv[2]))
        return
    take.drive = drive  # the sessions below run this script's shots
    for scale in (1, 2):
        take.x11(scale, HERE)
        sway(scale)


def sway(scale: int) -> None:
    from tests.desktop.headless_sway import HeadlessSway

    session = HeadlessSway()
    up = take.SCREEN[1] // 2 - 60 * scale
    session.config.write_text(
        f"output HEADLESS-1 resolution {take.SCREEN[0]}x{take.SCREEN[1]}\n"
        + SWAY_RULE.format(up=up),
        encoding="utf-8",
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
        drive(env, scale, HERE, "sway", shot)
    finally:
        session.stop()


if __name__ == "__main__":
    main()
