"""*Export as a plugin…*: the tray's window over ``plugin build``, with real widgets, a real
Engine, real folders, and Claude Code's own ``claude plugin validate`` reading the result."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidgetItem, QMessageBox, QPlainTextEdit

from gibberish.app import Engine, EngineOptions
from gibberish.export.ownership import record_path
from gibberish.export.plugin import RECORD_KIND
from gibberish.trust.fingerprint import PROVENANCE_FILE
from gibberish.ui.controller import Controller
from gibberish.ui.export.dialog import ExportDialog
from gibberish.ui.formatting import plain_tooltip
from tests.interop.conftest import INSTRUCTION_SKILL
from tests.interop.conftest import write_skill as write_skill_md
from tests.interop.plugin_readers import ClaudeCode, claude_code
from tests.interop.test_plugin_build import SECRET_SKILL
from tests.ui.conftest import make_controller, standard_skills
from tests.ui.test_plain_text import HOSTILE, assert_plain, hostile_engine, hostile_folder

__all__ = ["claude_code", "hostile_engine", "hostile_folder"]  # fixtures, used by name

NOTES_SKILL = """---
name: git-notes
description: Keep short notes about a repository. Use when the user wants to note something.
---

# Git notes

Write the note into NOTES.md at the top of the repository.
"""

FINDER_SKILL = """---
name: file-finder
description: Find files through a file server. Use when the user looks for a file.
dependencies:
  mcp:
    files:
      command: npx
      args: [-y, "@modelcontextprotocol/server-filesystem", "."]
---

# File finder

Ask the files server for the file.
"""


UNDERSCORE_SKILL = """---
name: under_score
description: A name other agents refuse. Use it in tests.
---

# Under score

Nothing to do.
"""


RECEIVED_SKILL = """---
name: received
description: A skill someone else wrote and the person installed. Use it in tests.
---

# Received

Nothing to do.
"""


@pytest.fixture
def library(tmp_path: Path) -> Path:
    root = standard_skills(tmp_path / "skills")
    write_skill_md(root, "art", INSTRUCTION_SKILL)
    write_skill_md(root, "git-notes", NOTES_SKILL)
    write_skill_md(root, "file-finder", FINDER_SKILL)
    write_skill_md(root, "under_score", UNDERSCORE_SKILL)
    write_skill_md(root, "leaky", SECRET_SKILL)
    received = write_skill_md(root, "received", RECEIVED_SKILL)
    (received / PROVENANCE_FILE).write_text(json.dumps({"source": "https://example.org/x"}))
    return root


@pytest.fixture
def tray(qtbot, library: Path, opened_urls: list) -> Controller:
    engine = Engine(
        EngineOptions(extra_skills_dirs=(library,), include_user=False, include_bundled=False)
    )
    ctl = make_controller(engine, open_url=opened_urls.append)
    ctl.start()
    yield ctl
    dialog = ctl.dialogs.open.get("export")
    if isinstance(dialog, ExportDialog):
        dialog.wait()
    ctl.shutdown()
    ctl.deleteLater()


def open_export(tray: Controller) -> ExportDialog:
    tray.menu.aboutToShow.emit()
    action = tray.menu.findChild(type(tray.menu.actions()[0]), "export-plugin")
    assert action is not None and action.text() == "Export as a plugin…"
    action.trigger()
    dialog = tray.dialogs.open["export"]
    assert isinstance(dialog, ExportDialog)
    return dialog


def items(dialog: ExportDialog) -> dict[str, QListWidgetItem]:
    return {
        dialog.list.item(i).data(Qt.ItemDataRole.UserRole): dialog.list.item(i)
        for i in range(dialog.list.count())
    }


def tick_only(dialog: ExportDialog, *names: str) -> None:
    for name, item in items(dialog).items():
        item.setCheckState(Qt.CheckState.Checked if name in names else Qt.CheckState.Unchecked)


def export_and_wait(qtbot, dialog: ExportDialog, *, replace: bool = False) -> None:
    dialog.outcome = None
    assert dialog.export_button.isEnabled(), dialog.status.text()
    dialog.export(replace=replace)
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=30_000)


def test_the_window_lists_the_skills_by_title_and_searches_them(qtbot, tray: Controller) -> None:
    dialog = open_export(tray)
    found = items(dialog)
    assert set(found) == {
        "hello", "kinds", "slow", "art", "git-notes", "file-finder", "under_score", "leaky",
        "received",
    }  # fmt: skip
    refused = found["under_score"]
    assert not refused.flags() & Qt.ItemFlag.ItemIsEnabled
    assert "Other agents would refuse it" in refused.text() and "'_'" in refused.text()
    assert "E-INVALID-NAME" not in refused.text() + refused.toolTip()
    assert "under_score" not in dialog.chosen()
    notes = found["git-notes"].text()
    assert notes.startswith("Git notes\n") and "git-notes" not in notes
    assert "Keep short notes about a repository" in notes
    assert found["file-finder"].text().startswith("File finder")
    # the person's own skills start ticked; one received from elsewhere does not
    assert set(dialog.chosen()) == {"hello", "kinds", "slow", "art", "git-notes", "file-finder",
                                    "leaky"}  # fmt: skip
    assert found["received"].flags() & Qt.ItemFlag.ItemIsEnabled
    qtbot.keyClicks(dialog.search, "repository note")
    qtbot.keyClick(dialog.search, Qt.Key.Key_Return)
    assert dialog.worker is None and dialog.isVisible()  # Enter searched, nothing else
    shown = {name for name, item in found.items() if not item.isHidden()}
    assert shown == {"git-notes"}
    dialog.search.setText("")
    assert not any(item.isHidden() for item in found.values())
    assert dialog.folder.text() == "~/gibberish-plugin"
    assert dialog.destination() == Path.home() / "gibberish-plugin"
    assert dialog.name.text() == "gibberish-plugin"
    assert "the folder gibberish-plugin in your home folder" in dialog.folder_help.text()


def test_exports_a_plugin_claude_code_accepts_off_the_gui_thread(
    qtbot, tray: Controller, tmp_path: Path, opened_urls: list, claude_code: ClaudeCode
) -> None:
    dialog = open_export(tray)
    tick_only(dialog, "art", "git-notes", "hello", "file-finder")
    box = dialog.servers["files"]
    command = dialog.findChild(QPlainTextEdit, "export-mcp-command-files").toPlainText()
    assert not box.isChecked() and "npx -y @modelcontextprotocol/server-filesystem ." in command
    dialog.marketplace.setChecked(True)
    export_and_wait(qtbot, dialog)
    outcome = dialog.outcome
    assert outcome.built is not None, outcome.error
    assert outcome.thread not in (0, threading.get_ident())
    out = Path.home() / "gibberish-plugin"
    assert sorted(p.name for p in (out / "skills").iterdir()) == [
        "art",
        "file-finder",
        "git-notes",
        "hello",
    ]
    assert not (out / "mcp.json").exists()  # the server's box was not ticked
    status = dialog.status.text()
    assert str(out) in status and "Claude Code" in status and "Gemini CLI" in status
    assert "Agent Plugins" in status and "files" in status
    dialog.open_button.click()
    assert [u.toLocalFile() for u in opened_urls] == [str(out)]

    home = tmp_path / "reader-home"
    home.mkdir()
    code, report = claude_code.validate(out, home)
    assert code == 0 and report["success"], report
    assert len(report["provides"]["skills"]) == 4
    code, market = claude_code.validate(out / ".claude-plugin" / "marketplace.json", home)
    assert code == 0 and market["success"], market


def test_a_ticked_mcp_server_goes_in(qtbot, tray: Controller) -> None:
    dialog = open_export(tray)
    tick_only(dialog, "file-finder")
    dialog.servers["files"].setChecked(True)
    export_and_wait(qtbot, dialog)
    assert dialog.outcome.built is not None, dialog.outcome.error
    mcp = json.loads((Path.home() / "gibberish-plugin" / "mcp.json").read_text())
    assert mcp["mcpServers"]["files"]["command"] == "npx"
    tick_only(dialog, "art")
    assert dialog.servers == {} and dialog.server_banner.isHidden()


def test_a_server_carrying_a_secret_is_never_offered(qtbot, tray: Controller) -> None:
    dialog = open_export(tray)
    tick_only(dialog, "leaky")
    assert dialog.servers == {}  # nothing to agree to: it can never go in
    export_and_wait(qtbot, dialog)
    assert dialog.outcome.built is not None, dialog.outcome.error
    assert "SERVICE_TOKEN holds a value that looks like a secret" in dialog.status.text()
    assert "--" not in dialog.status.text()
    out = Path.home() / "gibberish-plugin"
    assert "abc123" not in "".join(p.read_text() for p in out.rglob("*.json"))


@pytest.mark.parametrize(
    "name", ["Art Kit", "../escape", "a/b", "-rf", "ART", "a--b", "", "x" * 65, "tab\tname"]
)
def test_an_invalid_name_is_refused_in_words(qtbot, tray: Controller, name: str) -> None:
    dialog = open_export(tray)
    dialog.name.setText(name)
    assert not dialog.export_button.isEnabled()
    words = dialog.name_help.text()
    assert words.startswith("The plugin name") and words.endswith(".")
    assert "such as “my-skill" in words
    dialog.export()
    assert dialog.worker is None and not (Path.home() / "gibberish-plugin").exists()
    dialog.name.setText("my-kit")
    assert dialog.export_button.isEnabled() and "Gemini CLI wants the folder" in (
        dialog.name_help.text()
    )


def test_the_name_follows_the_folder_until_typed(qtbot, tray: Controller, tmp_path: Path) -> None:
    dialog = open_export(tray)
    dialog.folder.setText(str(tmp_path / "My Kit"))
    assert dialog.name.text() == "my-kit"
    qtbot.keyClicks(dialog.name, "s")
    dialog.folder.setText(str(tmp_path / "other"))
    assert dialog.name.text() == "my-kits"


def _own_plugin(qtbot, dialog: ExportDialog) -> Path:
    tick_only(dialog, "art")
    export_and_wait(qtbot, dialog)
    assert dialog.outcome.built is not None, dialog.outcome.error
    return Path.home() / "gibberish-plugin"


def _spoil(out: Path, how: str) -> None:
    if how == "a file of the person's":
        (out / "mine.txt").write_text("keep me")
    elif how == "an edited file":
        (out / "README.md").write_text("my own words")
    elif how == "a link":
        os.symlink("/etc", out / "skills" / "elsewhere")
    elif how == "its record gone":
        record_path(RECORD_KIND, Path(os.path.realpath(out))).unlink()
    elif how == "its record broken":
        record_path(RECORD_KIND, Path(os.path.realpath(out))).write_text("{not json")
    elif how == "a folder gibberish never wrote":
        out.mkdir(exist_ok=True)
        (out / "notes.txt").write_text("keep me")


@pytest.mark.parametrize(
    "how",
    [
        "a folder gibberish never wrote",
        "a file of the person's",
        "an edited file",
        "a link",
        "its record gone",
        "its record broken",
    ],
)
def test_a_folder_holding_what_gibberish_did_not_write_is_never_replaced(
    qtbot, tray: Controller, how: str
) -> None:
    dialog = open_export(tray)
    out = Path.home() / "gibberish-plugin"
    if how != "a folder gibberish never wrote":
        _own_plugin(qtbot, dialog)
    _spoil(out, how)
    before = sorted((p.relative_to(out), p.is_symlink()) for p in out.rglob("*"))
    tick_only(dialog, "git-notes")
    export_and_wait(qtbot, dialog)
    assert dialog.outcome.built is None and dialog.question is None
    assert "gibberish did not write" in dialog.status.text()
    assert "never replaces them" in dialog.status.text()
    dialog.export(replace=True)  # even asked to replace its own, it proves ownership first
    qtbot.waitUntil(lambda: dialog.worker is None, timeout=30_000)
    assert dialog.outcome.built is None
    assert sorted((p.relative_to(out), p.is_symlink()) for p in out.rglob("*")) == before
    assert not (out / "skills" / "git-notes").exists()


def test_its_own_plugin_is_replaced_only_after_asking(qtbot, tray: Controller) -> None:
    dialog = open_export(tray)
    out = _own_plugin(qtbot, dialog)
    tick_only(dialog, "git-notes")
    export_and_wait(qtbot, dialog)
    question = dialog.question
    assert question is not None and question.isVisible()
    assert "gibberish exported" in question.text() and str(out) in question.text()
    question.button(QMessageBox.StandardButton.No).click()
    assert (out / "skills" / "art").is_dir() and not (out / "skills" / "git-notes").exists()

    export_and_wait(qtbot, dialog)
    dialog.outcome = None
    dialog.question.button(QMessageBox.StandardButton.Yes).click()
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=30_000)
    assert dialog.outcome.built is not None, dialog.outcome.error
    assert sorted(p.name for p in (out / "skills").iterdir()) == ["git-notes"]
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(".gibberish-plugin")] == []


def test_a_file_in_the_way_is_refused(qtbot, tray: Controller) -> None:
    dialog = open_export(tray)
    (Path.home() / "gibberish-plugin").write_text("a file")
    export_and_wait(qtbot, dialog)
    assert dialog.outcome.built is None and "not a folder" in dialog.status.text()
    assert "--" not in dialog.status.text()


def test_the_window_fits_a_small_screen_at_twice_the_scale(qtbot, tray: Controller) -> None:
    """1366×768 at 2× is 683×384 logical pixels: the window must fit, scrolling inside."""
    dialog = open_export(tray)
    hint = dialog.minimumSizeHint()
    assert hint.width() <= 683 * 0.9 and hint.height() <= 384 * 0.9, hint
    dialog.resize(614, 345)
    qtbot.waitExposed(dialog)
    for button in (dialog.export_button, dialog.open_button.parentWidget()):
        corner = button.mapTo(dialog, button.rect().bottomRight())
        assert dialog.rect().contains(corner)


def test_descriptions_and_folder_names_are_shown_as_text(
    qtbot, hostile_engine: Engine, hostile_folder: Path
) -> None:
    from gibberish.export.plugin import choices

    dialog = ExportDialog(choices(hostile_engine.library.skills()))
    qtbot.addWidget(dialog)
    (item,) = items(dialog).values()
    assert item.toolTip() == plain_tooltip(f"Looks safe. {HOSTILE}")
    dialog.folder.setText(str(hostile_folder / "kit"))
    (hostile_folder / "kit").mkdir()
    (hostile_folder / "kit" / "mine.txt").write_text("keep me")
    dialog.name.setText("kit")
    dialog.show()
    export_and_wait(qtbot, dialog)
    assert "gibberish did not write" in dialog.status.text()
    assert_plain(dialog, expected=2)  # the folder's help and the refusal


def test_closing_the_window_while_it_exports_loses_nothing(qtbot, tray: Controller) -> None:
    dialog = open_export(tray)
    tick_only(dialog, "art", "git-notes")
    dialog.export()
    worker = dialog.worker
    assert worker is not None
    dialog.close()
    worker.join(30)
    qtbot.wait(50)  # the worker's message to the closed window is dropped, not a crash
    out = Path.home() / "gibberish-plugin"
    assert sorted(p.name for p in (out / "skills").iterdir()) == ["art", "git-notes"]
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(".gibberish-plugin")] == []
