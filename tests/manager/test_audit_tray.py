"""The tray's install dialog shows the audit, and a high-risk finding needs its own
checkbox before *Install* is enabled. Rendered offscreen."""

from __future__ import annotations

from pathlib import Path

from gibberish import paths
from gibberish.app import Engine, EngineOptions
from gibberish.install.installer import installer_for
from gibberish.ui.install.dialog import InstallDialog

HOSTILE = Path(__file__).with_name("hostile")


def _open(qtbot, source: str) -> InstallDialog:
    engine = Engine(EngineOptions(include_bundled=False))
    dialog = InstallDialog(lambda project=None: installer_for(engine, project), source)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.list.count() > 0, timeout=10_000)
    return dialog


def test_high_finding_needs_the_accept_checkbox(qtbot) -> None:
    dialog = _open(qtbot, str(HOSTILE / "exfil-curl-data"))
    details = dialog.details.toPlainText()
    assert "asks to send secrets or files somewhere" in details
    assert "runs: curl" in details and "evil.example" in details
    assert dialog.accept_risks.isVisible()
    assert not dialog.install_button.isEnabled()
    dialog.accept_risks.setChecked(True)
    assert dialog.install_button.isEnabled()
    dialog.install_button.click()
    assert (paths.user_skills_dir() / "exfil-curl-data" / "SKILL.md").is_file()


def test_warnings_are_shown_without_a_checkbox(qtbot) -> None:
    dialog = _open(qtbot, str(HOSTILE / "hidden-div"))
    assert "text marked hidden" in dialog.details.toPlainText()
    assert not dialog.accept_risks.isVisible()
    assert dialog.install_button.isEnabled()
