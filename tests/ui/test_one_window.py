"""The everyday loop in one window, by keyboard: search → form → (approval) → output.

Real widgets and real runs: the form and the approval are the in-window prompts
(``command_bar.in_window``), not fakes; keys are real key events; the focused window's
folder comes from an injected focus provider (a terminal in a git project).
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from gibberish.desktop.focus import FocusInfo
from gibberish.desktop.modes import ModeDetector
from gibberish.engine import run_history
from gibberish.engine.core import Engine, EngineOptions
from gibberish.paths import home_short
from gibberish.ui.approval.dialog import ApprovalDialog
from gibberish.ui.runs.param_form import ParameterForm
from gibberish.ui.runs.result_window import ResultWindow
from tests.ui.conftest import make_controller, tool_block, write_skill


class Terminal:
    """A focused terminal whose working folder is ``cwd``."""

    def __init__(self, cwd: Path | None) -> None:
        self.cwd = cwd

    def focused(self) -> FocusInfo | None:
        return FocusInfo(pid=1, app="foot", cwd=self.cwd) if self.cwd else None


class Quiet:
    def in_use(self) -> bool:
        return False


def git_project(root: Path, commits: int = 7) -> Path:
    project = root / "code" / "app"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    for n in range(commits):
        (project / f"file{n}").write_text(str(n))
        subprocess.run(["git", "-C", str(project), "add", "."], check=True)
        who = ["-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(
            ["git", "-C", str(project), *who, "commit", "-qm", f"change number {n}"], check=True
        )
    return project


@pytest.fixture
def terminal() -> Terminal:
    return Terminal(None)


@pytest.fixture
def ctl(qtbot, tmp_path: Path, terminal: Terminal, skills_dir: Path):
    detector = ModeDetector(focus=terminal, microphone=Quiet(), process_names=set)
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills_dir,), include_user=False), detector=detector
    )
    controller = make_controller(engine)  # the real in-window form and approval
    controller.start()
    qtbot.waitUntil(lambda: controller.host.is_ready, timeout=20_000)
    yield controller
    controller.shutdown()


class Keys:
    """Real key presses, counted; sent to whatever has the focus in the bar's window."""

    def __init__(self, qtbot, bar) -> None:
        self.qtbot = qtbot
        self.bar = bar
        self.count = 0

    def target(self) -> QWidget:
        focus = QApplication.focusWidget()
        if focus is not None and focus.window() is self.bar.window():
            return focus
        step = self.bar.steps.current()
        if step is not None:
            return step.focusWidget() or step
        return self.bar.input

    def type(self, text: str) -> None:
        for ch in text:
            self.qtbot.keyClick(self.target(), ch)
            self.count += 1

    def press(self, key: Qt.Key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
        self.qtbot.keyClick(self.target(), key, modifier)
        self.count += 1


def when(condition: Callable[[], bool], then: Callable[[], None]) -> QTimer:
    """Run ``then`` once ``condition`` holds (a step waited for inside a nested loop)."""
    timer = QTimer()
    timer.setInterval(20)

    def poll() -> None:
        if condition():
            timer.stop()
            then()

    timer.timeout.connect(poll)
    timer.start()
    return timer


OTHERS: set[int] = set()
"""Windows other tests left on screen (not this test's to count)."""


def shown_windows() -> list[QWidget]:
    shown = [w for w in QApplication.topLevelWidgets() if w.isVisible() and w.isWindow()]
    return [w for w in shown if id(w) not in OTHERS]


@pytest.fixture(autouse=True)
def _others() -> None:
    OTHERS.clear()
    OTHERS.update(id(w) for w in QApplication.topLevelWidgets() if w.isVisible())


def test_git_log_five_commits_in_my_project_in_seven_keys_in_one_window(
    qtbot, ctl, terminal: Terminal, tmp_path: Path
) -> None:
    project = git_project(tmp_path)
    terminal.cwd = project
    ctl.open_command_bar()  # the hotkey: key 1
    bar = ctl.text.command_bar
    keys = Keys(qtbot, bar)
    keys.count = 1
    keys.type("log")
    assert bar.current_ref() == "git.git_log"
    seen: dict[str, object] = {}

    def in_the_form() -> None:
        form = bar.steps.current()
        seen["form"] = form
        seen["windows"] = shown_windows()
        seen["folder"] = form.findChild(QWidget, "form-folder-text").text()
        keys.type("5")
        keys.press(Qt.Key.Key_Return)

    timer = when(lambda: isinstance(bar.steps.current(), ParameterForm), in_the_form)
    keys.press(Qt.Key.Key_Return)
    timer.stop()
    qtbot.waitUntil(lambda: isinstance(bar.steps.current(), ResultWindow), timeout=10_000)
    window = bar.steps.current()
    qtbot.waitUntil(lambda: window.result is not None, timeout=20_000)
    assert keys.count == 7  # hotkey, l o g, Enter, 5, Enter
    assert seen["windows"] == [bar]  # the form is in the bar's window: no other window
    assert seen["folder"] == f"Runs in {home_short(project)} — the folder of the focused window"
    lines = window.output_text().strip().splitlines()
    assert window.argv[-1] == "5", (window.argv, keys.target())
    assert len(lines) == 5 and "change number 6" in lines[0]
    assert window.window() is bar and shown_windows() == [bar]


def test_run_again_back_esc_and_own_window(qtbot, ctl, terminal: Terminal, tmp_path) -> None:
    terminal.cwd = git_project(tmp_path, commits=3)
    ctl.menus.capture()  # what the menu and the hotkey do: the focused window now
    session = ctl.launch("git.git_status")
    bar = ctl.text.command_bar
    qtbot.waitUntil(lambda: session.result is not None, timeout=20_000)
    keys = Keys(qtbot, bar)
    before = set(ctl.runs.sessions)
    keys.press(Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)  # Run again: no form
    qtbot.waitUntil(lambda: bool(set(ctl.runs.sessions) - before), timeout=10_000)
    again = ctl.runs.sessions[max(ctl.runs.sessions)]
    assert again.prepared.cwd == session.prepared.cwd and bar.steps.current() is again.window
    qtbot.waitUntil(lambda: again.result is not None, timeout=20_000)
    keys.press(Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)  # its own window, on request
    assert again.window.isWindow() and again.window.isVisible()
    assert not bar.steps.active and bar.search_page.isVisible()
    again.window.close()
    ctl.launch("git.git_status")
    qtbot.waitUntil(lambda: isinstance(bar.steps.current(), ResultWindow), timeout=10_000)
    keys.press(Qt.Key.Key_Escape)  # Esc steps back: the search
    assert not bar.steps.active and bar.isVisible()
    keys.press(Qt.Key.Key_Escape)  # and again: the window goes
    assert not bar.isVisible()


def test_the_approval_is_a_step_of_the_same_window(qtbot, ctl, skills_dir: Path) -> None:
    write_skill(skills_dir, "mine", [tool_block("hello_there", "Say hello.", "echo hi there")])
    ctl.engine.library.reload()
    ctl.text.refresh()
    seen: dict[str, object] = {}

    def asked() -> None:
        dialog = bar.steps.current()
        seen["windows"] = shown_windows()
        seen["argv"] = dialog.findChild(QWidget, "approval-argv").toPlainText()
        Keys(qtbot, bar).press(Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    ctl.open_command_bar()
    bar = ctl.text.command_bar
    keys = Keys(qtbot, bar)
    keys.type("hello there")
    timer = when(lambda: isinstance(bar.steps.current(), ApprovalDialog), asked)
    keys.press(Qt.Key.Key_Return)
    timer.stop()
    assert seen["windows"] == [bar]  # the approval, in the one window
    assert "echo" in str(seen["argv"])  # the exact command, as the dialog showed it
    qtbot.waitUntil(lambda: isinstance(bar.steps.current(), ResultWindow), timeout=10_000)
    qtbot.waitUntil(lambda: bar.steps.current().result is not None, timeout=10_000)
    assert bar.steps.current().output_text().strip() == "hi there"


def test_recent_runs_come_back_after_a_restart_by_title_and_arguments(
    qtbot, ctl, terminal: Terminal, tmp_path: Path, skills_dir
) -> None:
    project = git_project(tmp_path, commits=2)
    terminal.cwd = project
    ctl.menus.capture()
    session = ctl.launch("git.git_log", {"count": 2}, ask_arguments=False)
    qtbot.waitUntil(lambda: session.result is not None, timeout=20_000)
    qtbot.waitUntil(lambda: bool(run_history.runs()), timeout=5_000)  # written on a thread
    assert run_history.runs()[0].arguments == {"count": 2}
    ctl.shutdown()

    terminal.cwd = None  # after the restart, no terminal has the focus
    detector = ModeDetector(focus=terminal, microphone=Quiet(), process_names=set)
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills_dir,), include_user=False), detector=detector
    )
    second = make_controller(engine)
    second.start()
    try:
        qtbot.waitUntil(lambda: second.host.is_ready, timeout=20_000)
        second.open_command_bar()
        bar = second.text.command_bar
        rows = [bar.model.index(r, 0) for r in range(bar.model.rowCount())]
        recent = [i for i in rows if bar.model.past_run(i.row()) is not None]
        assert recent and recent[0].data() == "Git log · Recent"
        from gibberish.ui.command_bar.bar import DESCRIPTION_ROLE

        said = f"Number of commits to show: 2 · in {home_short(project)}"
        assert recent[0].data(DESCRIPTION_ROLE) == said
        seen: dict[str, object] = {}

        def in_the_form() -> None:
            form = bar.steps.current()
            seen["count"] = form.fields["count"].value()
            seen["folder"] = form.chosen_folder()
            form.reject()

        bar.results.setCurrentIndex(recent[0])
        timer = when(lambda: isinstance(bar.steps.current(), ParameterForm), in_the_form)
        Keys(qtbot, bar).press(Qt.Key.Key_Return)
        timer.stop()
        assert seen == {"count": 2, "folder": project}
    finally:
        second.shutdown()


def test_a_git_tool_outside_a_repository_says_so_before_running(
    qtbot, ctl, terminal: Terminal, tmp_path: Path
) -> None:
    project = git_project(tmp_path, commits=1)
    run_history.add("git.git_status", {}, project)
    terminal.cwd = tmp_path  # not a repository
    ctl.menus.capture()
    seen: dict[str, object] = {}

    def in_the_form() -> None:
        form = bar.steps.current()
        seen["problem"] = form.findChild(QWidget, "form-folder-problem").text()
        seen["run"] = form.ok_button.isEnabled()
        fits = [b.text().replace("&", "") for b in form.findChildren(QWidget, "form-folder-fit")]
        seen["fits"] = fits
        form.findChildren(QWidget, "form-folder-fit")[0].click()
        seen["run after"] = form.ok_button.isEnabled()
        form.reject()

    bar = ctl.text.bar()
    timer = when(lambda: isinstance(bar.steps.current(), ParameterForm), in_the_form)
    assert ctl.launch("git.git_status") is None
    timer.stop()
    assert "Git status needs a git repository" in str(seen["problem"])
    assert seen["run"] is False and seen["run after"] is True
    assert seen["fits"] == [home_short(project)]
    assert not ctl.runs.sessions  # nothing ran: no raw "fatal: not a git repository"


def test_disk_offers_disk_usage_only(qtbot, ctl) -> None:
    ctl.open_command_bar()
    bar = ctl.text.command_bar
    Keys(qtbot, bar).type("disk")
    assert bar.refs() == ["system.disk_usage"]


def test_each_run_shows_in_a_fresh_page_made_ahead_and_a_detached_one_keeps_its_own(
    qtbot, ctl, terminal: Terminal, tmp_path: Path
) -> None:
    project = git_project(tmp_path, commits=2)
    subprocess.run(["git", "-C", str(project), "branch", "feature-two"], check=True)
    terminal.cwd = project
    ctl.menus.capture()
    ctl.open_command_bar()
    bar = ctl.text.command_bar
    keys = Keys(qtbot, bar)
    qtbot.waitUntil(lambda: bar.steps.ahead is not None, timeout=10_000)  # made on idle

    def run(ref: str, arguments: dict[str, object]) -> object:
        made = bar.steps.ahead
        session = ctl.launch(ref, arguments, ask_arguments=False)
        qtbot.waitUntil(lambda: session.result is not None, timeout=20_000)
        assert session.window is made  # the page made ahead, filled in for this run
        assert bar.steps.current() is session.window
        qtbot.waitUntil(lambda: bar.steps.ahead not in (None, made), timeout=10_000)
        return session

    def shows(window: ResultWindow, title: str, words: str) -> None:
        assert words in window.output_text()
        assert window.findChild(QWidget, "result-title").text() == title
        assert window.windowTitle().startswith(title)
        assert "git" in window.findChild(QWidget, "result-command").text()

    first = run("git.git_log", {"count": 2})
    shows(first.window, "Git log", "change number 1")
    keys.press(Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)  # its own window
    assert first.window.isWindow() and first.window.isVisible()
    first_output = first.window.output_text()
    second = run("git.git_branches", {})  # the next run: a fresh page, not the detached one
    assert second.window is not first.window
    shows(second.window, "Git branches", "feature-two")
    shows(first.window, "Git log", "change number 1")  # the detached one unchanged
    assert first.window.output_text() == first_output
    before = set(ctl.runs.sessions)
    keys.press(Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)  # Run again
    qtbot.waitUntil(lambda: bool(set(ctl.runs.sessions) - before), timeout=10_000)
    again = ctl.runs.sessions[max(ctl.runs.sessions)]
    qtbot.waitUntil(lambda: again.result is not None, timeout=20_000)
    assert again.window not in (first.window, second.window)
    shows(again.window, "Git branches", "feature-two")
    first.window.close()


def test_a_page_made_ahead_is_not_used_once_the_colours_changed(
    qtbot, ctl, terminal: Terminal, tmp_path: Path
) -> None:
    terminal.cwd = git_project(tmp_path, commits=1)
    ctl.menus.capture()
    ctl.open_command_bar()
    bar = ctl.text.command_bar
    qtbot.waitUntil(lambda: bar.steps.ahead is not None, timeout=10_000)
    made = bar.steps.ahead
    app = QApplication.instance()
    light = QPalette(app.palette())
    app.setPalette(QPalette(QColor("#202020")))  # dark mode switched on
    try:
        session = ctl.launch("git.git_log", {"count": 1}, ask_arguments=False)
        qtbot.waitUntil(lambda: session.result is not None, timeout=20_000)
        assert session.window is not made  # built afresh, in the colours of now
        window_colour = session.window.palette().color(QPalette.ColorRole.Window)
        assert window_colour == QColor("#202020")
    finally:
        app.setPalette(light)


class MeetingMicrophone:
    """A microphone in use, and the threads it was asked on."""

    def __init__(self) -> None:
        self.asked_on: list[str] = []
        self.recording = False
        self.answers = threading.Event()
        """Cleared: the sound server is slow to answer, until it is set."""
        self.answers.set()

    def in_use(self) -> bool:
        self.asked_on.append(threading.current_thread().name)
        self.answers.wait(20)
        return self.recording


def test_the_hotkey_never_waits_on_the_microphone_and_a_meeting_is_picked_up_after(
    qtbot, skills_dir: Path
) -> None:
    write_skill(
        skills_dir, "minutes", [tool_block("take_minutes", "Take minutes.", "echo minutes")],
        extra="modes: [Meeting]",
    )  # fmt: skip
    microphone = MeetingMicrophone()
    detector = ModeDetector(
        focus=Terminal(None), microphone=microphone, process_names=lambda: {"zoom"}
    )
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills_dir,), include_user=False), detector=detector
    )
    controller = make_controller(engine)
    controller.start()

    def in_the_menu() -> bool:
        controller.menu.aboutToShow.emit()  # the tray menu opening
        return "skill:minutes" in [a.objectName() for a in controller.menu.actions()]

    try:
        qtbot.waitUntil(lambda: controller.host.is_ready, timeout=20_000)
        controller.open_command_bar()
        bar = controller.text.command_bar
        qtbot.waitUntil(lambda: bool(microphone.asked_on), timeout=10_000)
        assert "minutes.take_minutes" not in bar.refs()  # no meeting
        assert not in_the_menu()
        qtbot.keyClick(bar.input, Qt.Key.Key_Escape)
        microphone.recording = True  # a meeting starts: zoom runs, the microphone records
        microphone.answers.clear()  # and the sound server takes its time
        controller.open_command_bar()
        assert bar.isVisible()  # shown at once, in the mode of the last answer
        Keys(qtbot, bar).type("minutes")
        assert "minutes.take_minutes" not in bar.refs()
        assert not in_the_menu()  # the menu too opens at once, as it was
        microphone.answers.set()
        qtbot.waitUntil(lambda: "minutes.take_minutes" in bar.refs(), timeout=10_000)
        assert controller.menus.context.mode.value == "Meeting"
        assert in_the_menu()
        assert threading.main_thread().name not in microphone.asked_on  # never waited on
    finally:
        microphone.answers.set()
        controller.shutdown()
