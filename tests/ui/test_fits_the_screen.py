"""Every step of the one window (the popup bar and the launcher window that embeds it) fits the screen at 1×, 1.5× and 2× on 1366×768 and
1600×1000: the window inside the available area, and every button of the step either
on screen or reachable by scrolling its step (never cut off for good). The popup's
search with an empty query (pinned tools, recent runs, suggestions) fits too: each row,
chosen with the arrow keys, is shown inside the window.

Each size runs in a process of its own: Qt's offscreen platform takes the screen's size
from a configuration file and the scale from ``QT_SCALE_FACTOR`` at start-up only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

CHECK = r"""
import os, sys, tempfile
from pathlib import Path
from PySide6.QtWidgets import QApplication, QAbstractButton, QScrollArea
app = QApplication([])
from gibberish.engine.core import Engine, EngineOptions
from gibberish.engine.run_flow import FolderOffer
from gibberish.ui.command_bar.bar import CommandBar
from gibberish.ui.approval.dialog import ApprovalDialog
from gibberish.ui.runs.param_form import ParameterForm
from gibberish.ui.runs.result_window import ResultWindow
from gibberish.ui.problem_dialog import ProblemDialog

engine = Engine(EngineOptions(include_user=False))
area = app.primaryScreen().availableGeometry()
bar = CommandBar()
bar.set_tools(engine.library.tools())
bad = []

# The empty query: pinned tools, recent runs and suggestions, as many rows as it lists.
from gibberish.engine.run_history import PastRun
bar.pinned = ["system.disk_usage", "git.git_status", "files.find_files"]
bar.past_runs = [PastRun("git.git_log", {"count": n}, str(Path.home())) for n in range(1, 6)]
bar.popup()
app.processEvents()
rows = bar.model.rowCount()
if rows < 10:
    bad.append(f"search: only {rows} rows listed with an empty query")
if not area.contains(bar.frameGeometry()):
    bad.append(f"search: window {bar.frameGeometry()} outside {area}")
for row in range(rows):
    bar.results.move_by(1 if row else -rows)  # every row, chosen by the keys, is seen
    app.processEvents()
    seen = bar.results.visualRect(bar.model.index(row, 0))
    inside = bar.results.viewport().rect().contains(seen)
    top_left = bar.results.viewport().mapTo(bar, seen.topLeft())
    if not inside or not area.contains(bar.mapToGlobal(top_left)):
        bad.append(f"search: row {row} at {seen} of {bar.results.viewport().size()}")
        break
bar.pinned, bar.past_runs = (), ()
bar.popup()

def check(step, name):
    bar.steps._push(step, tall=isinstance(step, ResultWindow))
    app.processEvents()
    if not area.contains(bar.frameGeometry()):
        bad.append(f"{name}: window {bar.frameGeometry()} outside {area}")
    page = bar.steps.stack.currentWidget()
    for button in step.findChildren(QAbstractButton):
        if not button.isVisibleTo(step) or not button.text():
            continue
        if isinstance(page, QScrollArea):
            page.ensureWidgetVisible(button)
            app.processEvents()
        top_left = button.mapTo(bar, button.rect().topLeft())
        bottom_right = button.mapTo(bar, button.rect().bottomRight())
        if not (bar.rect().contains(top_left) and bar.rect().contains(bottom_right)):
            bad.append(f"{name}: {button.text()!r} at {top_left}-{bottom_right} of {bar.size()}")
    bar.steps.remove(step)

target = engine.library.find_tool("git.git_log")
check(ParameterForm(target.skill, target.tool, lambda a: engine.runs.render(target, a),
                    folder=FolderOffer(Path.home(), "your home folder")), "form")
prepared = engine.runs.prepare("files.find_files", {"pattern": "x"})
check(ApprovalDialog(prepared), "approval")
window = ResultWindow("git.git_log", ["git", "log"], tool=target.tool)
window.in_window(run_again=lambda: None, detach=lambda: None)
check(window, "output")

from gibberish.ui.menu.launcher import LauncherWindow
launcher = LauncherWindow("No tray on this desktop: this window is the menu.")
launcher.bar.set_tools(engine.library.tools())
launcher.show()
app.processEvents()
bar = launcher.bar
if not area.contains(launcher.frameGeometry()) or launcher.minimumHeight() > area.height():
    bad.append(f"launcher search: window {launcher.frameGeometry()}, at least "
               f"{launcher.minimumSize()}, in {area}")

def check(step, name):
    bar.steps._push(step, tall=isinstance(step, ResultWindow))
    for _ in range(3):
        app.processEvents()
    if not area.contains(launcher.frameGeometry()):
        bad.append(f"launcher {name}: window {launcher.frameGeometry()} outside {area}")
    page = bar.steps.stack.currentWidget()
    for button in step.findChildren(QAbstractButton):
        if not button.isVisibleTo(step) or not button.text():
            continue
        if isinstance(page, QScrollArea):
            page.ensureWidgetVisible(button)
            app.processEvents()
        top_left = button.mapTo(launcher, button.rect().topLeft())
        bottom_right = button.mapTo(launcher, button.rect().bottomRight())
        inside = launcher.rect().contains(top_left) and launcher.rect().contains(bottom_right)
        if not inside or not area.contains(button.mapToGlobal(button.rect().bottomRight())):
            bad.append(f"launcher {name}: {button.text()!r} at {top_left}-{bottom_right} "
                       f"of {launcher.size()}")
    bar.steps.remove(step)

check(ParameterForm(target.skill, target.tool, lambda a: engine.runs.render(target, a),
                    folder=FolderOffer(Path.home(), "your home folder")), "form")
check(ApprovalDialog(engine.runs.prepare("files.find_files", {"pattern": "x"})), "approval")
window = ResultWindow("git.git_log", ["git", "log"], tool=target.tool)
window.in_window(run_again=lambda: None, detach=lambda: None)
check(window, "output")
print("\n".join(bad) or "fits")
"""


@pytest.mark.parametrize("scale", ["1", "1.5", "2"])
@pytest.mark.parametrize("size", [(1366, 768), (1600, 1000)])
def test_every_step_fits(tmp_path: Path, size: tuple[int, int], scale: str) -> None:
    config = tmp_path / "screen.json"
    screen = {"name": "s", "x": 0, "y": 0, "width": size[0], "height": size[1]}
    config.write_text(json.dumps({"screens": [screen]}))
    env = dict(
        os.environ,
        QT_QPA_PLATFORM=f"offscreen:configfile={config}",
        QT_SCALE_FACTOR=scale,
        PYTHONPATH=str(REPO_ROOT),
    )
    result = subprocess.run(
        [sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "fits", result.stdout


def test_a_list_gone_before_its_deferred_relayout_is_no_error(qtbot) -> None:
    """A width change defers the rows' layout by one turn of the event loop; a list
    deleted before that turn (the window closed with it) is simply not laid out."""
    import shiboken6
    from PySide6.QtCore import QSize
    from PySide6.QtGui import QResizeEvent
    from PySide6.QtWidgets import QFrame, QListView, QVBoxLayout

    from gibberish.ui.command_bar.screen_fit import ListFit

    window = QFrame()
    qtbot.addWidget(window)
    outer = QVBoxLayout(window)
    results = QListView()
    outer.addWidget(results)
    fit = ListFit(window, results, (), outer, outer)
    fit.eventFilter(results.viewport(), QResizeEvent(QSize(300, 200), QSize(200, 200)))
    shiboken6.delete(results)  # gone before the timer's turn
    qtbot.wait(20)  # the timer's turn: nothing left to lay out, and no error
