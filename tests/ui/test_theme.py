"""Colours come from the palette; the form runs on Enter under every style."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QCheckBox, QLabel, QStyleFactory

from gibberish.engine.core import Engine
from gibberish.ui import theme
from gibberish.ui.runs.param_form import ParameterForm
from gibberish.ui.widgets import banner, status_pill
from tests.conftest import REPO_ROOT

COLOUR = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|\b(white|black)\b[;\"']")


def test_no_colour_literal_outside_the_theme() -> None:
    found = []
    for path in sorted((REPO_ROOT / "gibberish" / "ui").rglob("*.py")):
        if path.name == "theme.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if COLOUR.search(line):
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in (
        (QPalette.ColorRole.Window, "#2b2b2b"),
        (QPalette.ColorRole.WindowText, "#e6e6e6"),
        (QPalette.ColorRole.Base, "#1e1e1e"),
        (QPalette.ColorRole.AlternateBase, "#262626"),
        (QPalette.ColorRole.Text, "#e6e6e6"),
        (QPalette.ColorRole.Button, "#353535"),
        (QPalette.ColorRole.ButtonText, "#e6e6e6"),
        (QPalette.ColorRole.Mid, "#555555"),
        (QPalette.ColorRole.Highlight, "#3d7bd9"),
        (QPalette.ColorRole.HighlightedText, "#ffffff"),
        (QPalette.ColorRole.PlaceholderText, "#9a9a9a"),
    ):
        palette.setColor(role, QColor(colour))
    return palette


@pytest.fixture
def dark(qapp):
    before = QApplication.palette()
    QApplication.setPalette(dark_palette())
    yield
    QApplication.setPalette(before)


def background_of(label: QLabel) -> QColor:
    image = label.grab().toImage()
    return image.pixelColor(image.width() // 2, 3)


@pytest.mark.parametrize("kind", ["warning", "error", "info"])
def test_banners_are_dark_in_a_dark_theme_and_readable(qtbot, dark, kind: str) -> None:
    label = banner("Careful: imported from outside.", kind=kind)
    qtbot.addWidget(label)
    label.resize(300, 60)
    back = background_of(label)
    assert back.lightnessF() < 0.35, back.name()
    text = label.palette().color(QPalette.ColorRole.Text)
    assert theme.contrast(back, text) >= 4.5


@pytest.mark.parametrize("kind", ["warning", "error", "info"])
def test_banners_are_light_in_a_light_theme(qtbot, kind: str) -> None:
    label = banner("Careful.", kind=kind)
    qtbot.addWidget(label)
    label.resize(300, 60)
    assert background_of(label).lightnessF() > 0.8


def test_status_pills_are_readable_in_both_themes(qtbot, dark) -> None:
    for status in ("running", "succeeded", "failed", "timed_out", "cancelled"):
        fill, ink = theme.pill(QApplication.palette(), status)
        assert theme.contrast(fill, ink) >= 2.5, status
        qtbot.addWidget(status_pill(status))


@pytest.mark.parametrize("style", QStyleFactory.keys())
def test_enter_on_a_check_box_runs_instead_of_ticking(qtbot, engine: Engine, style: str) -> None:
    target = engine.library.find_tool("kinds.all_types")
    form = ParameterForm(
        target.skill, target.tool, lambda a: engine.runs.render(target, a), prefilled={"name": "x"}
    )
    qtbot.addWidget(form)
    form.setStyle(QStyleFactory.create(style))
    form.show()
    box = form.findChild(QCheckBox, "param-verbose")
    box.setFocus()
    with qtbot.waitSignal(form.accepted, timeout=2000):
        qtbot.keyClick(box, Qt.Key.Key_Return)
    assert not box.isChecked()


def test_required_is_not_red_before_the_person_typed(qtbot, engine: Engine) -> None:
    target = engine.library.find_tool("kinds.all_types")
    form = ParameterForm(target.skill, target.tool, lambda a: engine.runs.render(target, a))
    qtbot.addWidget(form)
    assert form.error_label.text() == "Still to fill in: A name to print."
    assert form.error_label.property("tone") == "muted"
    form.findChild(QCheckBox, "param-verbose").setChecked(True)
    assert form.error_label.property("tone") == "error"


def test_enter_with_a_missing_field_turns_the_reminder_red(qtbot, engine: Engine) -> None:
    target = engine.library.find_tool("kinds.all_types")
    form = ParameterForm(target.skill, target.tool, lambda a: engine.runs.render(target, a))
    qtbot.addWidget(form)
    form.show()
    qtbot.keyClick(form.fields["name"].editor, Qt.Key.Key_Return)
    assert form.isVisible() and form.error_label.property("tone") == "error"


def test_a_pill_keeps_readable_text_through_status_changes(qtbot) -> None:
    from gibberish.ui.widgets import set_status_pill

    pill = status_pill("pending")
    qtbot.addWidget(pill)
    pill.show()  # polished: its palette now holds the stylesheet's colours
    for status in ("running", "succeeded"):
        set_status_pill(pill, status)
        pill.ensurePolished()
    fill, ink = theme.pill(QApplication.palette(), "success")
    assert f"color: {ink.name()}" in pill.styleSheet()
    assert theme.contrast(fill, ink) >= 2.5
