"""After *Install skill…* the tray offers the CLI's sync: yes copies, *Not now* writes
nothing, and an MCP server is written only when its box (naming its full command) is
ticked."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QCheckBox, QLabel

from gibberish.engine.core import Engine, EngineOptions
from gibberish.export import agents
from gibberish.export.sync_offer import SyncOffer, offer_for
from gibberish.ui.install.sync_offer_dialog import SyncOfferDialog

NEEDS_MCP = (
    "---\nname: needs-files\ndescription: Needs an MCP server.\ndependencies:\n  mcp:\n"
    "    files:\n      command: files-server\n      args: [--root, /]\n---\n\nUse it.\n"
)


@pytest.fixture
def home() -> Path:
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir()
    return home


@pytest.fixture
def offer(tmp_path: Path, home: Path) -> SyncOffer:
    skills = tmp_path / "installed"
    (skills / "needs-files").mkdir(parents=True)
    (skills / "needs-files" / "SKILL.md").write_text(NEEDS_MCP)
    return SyncOffer(skills, ["needs-files"], [agents.target("claude-code")], home)


def _copied(home: Path) -> bool:
    return (home / ".claude" / "skills" / "needs-files" / "SKILL.md").is_file()


def _mcp(home: Path) -> dict:
    config = home / ".claude.json"
    return json.loads(config.read_text()).get("mcpServers", {}) if config.exists() else {}


def _open(qtbot, offer: SyncOffer) -> SyncOfferDialog:
    dialog = SyncOfferDialog(offer)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_not_now_writes_nothing(qtbot, offer, home) -> None:
    dialog = _open(qtbot, offer)
    assert "claude-code" in dialog.findChild(QLabel, "sync-offer-question").text()
    assert "needs-files" in dialog.details.toPlainText()
    dialog.no_button.click()
    assert not _copied(home) and _mcp(home) == {}
    assert not (home / ".claude" / "skills").exists()


def test_yes_copies_but_an_mcp_server_not_agreed_is_not_written(qtbot, offer, home) -> None:
    dialog = _open(qtbot, offer)
    box = dialog.findChild(QCheckBox, "sync-offer-mcp-files")
    assert "run files-server --root /" in box.text()  # the full command, before anything
    assert not box.isChecked()
    dialog.copy_button.click()
    assert _copied(home)
    assert "files" not in _mcp(home)
    assert dialog.result() == SyncOfferDialog.DialogCode.Accepted


def test_a_ticked_mcp_server_is_written(qtbot, offer, home) -> None:
    dialog = _open(qtbot, offer)
    dialog.findChild(QCheckBox, "sync-offer-mcp-files").setChecked(True)
    dialog.copy_button.click()
    assert _copied(home)
    assert _mcp(home)["files"] == {
        "type": "stdio",
        "command": "files-server",
        "args": ["--root", "/"],
    }


def test_the_engine_offers_the_configured_targets_for_the_user_folder(home) -> None:
    from gibberish import paths

    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text('[sync]\ntargets = ["gemini-cli"]\n')
    engine = Engine(EngineOptions(include_bundled=False))
    offer = offer_for(engine.settings, ["needs-files"])
    assert [t.name for t in offer.targets] == ["gemini-cli"]  # configured, not detected
    assert offer.skills_dir == paths.user_skills_dir()
    assert offer.command == "gibberish sync --skill needs-files"


def test_the_tray_offers_the_sync_after_an_install(qtbot, home, engine, monkeypatch) -> None:
    from tests.ui.conftest import make_controller

    controller = make_controller(engine)
    opened: list[SyncOffer] = []
    monkeypatch.setattr(controller.dialogs, "open_sync_offer", opened.append)
    controller.installing._skills_installed(["needs-files"])
    assert [o.names for o in opened] == [["needs-files"]]
    assert [t.name for t in opened[0].targets] == ["claude-code"]  # found in the home
