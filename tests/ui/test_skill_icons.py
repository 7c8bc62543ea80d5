"""A skill's icon: its own when the folder ships a good one, else a letter icon."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor, QImage

from gibberish.ui.skill_icons import (
    SIZE,
    icon_folders_ahead,
    icon_pixmap,
    letter_icon,
    shipped,
    skill_icon,
)


def colour_at_centre(icon) -> QColor:
    image = icon.pixmap(SIZE, SIZE).toImage()
    return image.pixelColor(6, SIZE // 2)


def test_a_shipped_icon_is_used(qtbot, tmp_path: Path) -> None:
    folder = tmp_path / "red"
    folder.mkdir()
    image = QImage(SIZE, SIZE, QImage.Format.Format_ARGB32)
    image.fill(QColor("red"))
    image.save(str(folder / "icon.png"))
    assert shipped(folder) == folder / "icon.png"
    assert colour_at_centre(skill_icon("red", folder)) == QColor("red")


def test_a_bad_or_hostile_icon_falls_back_to_the_letter(qtbot, tmp_path: Path) -> None:
    outside = tmp_path / "secret.png"
    image = QImage(SIZE, SIZE, QImage.Format.Format_ARGB32)
    image.fill(QColor("blue"))
    image.save(str(outside))
    cases = {
        "link": lambda f: (f / "icon.png").symlink_to(outside),  # a link out of the folder
        "huge": lambda f: (f / "icon.png").write_bytes(b"\0" * (300 * 1024)),
        "junk": lambda f: (f / "icon.png").write_bytes(b"not an image"),
        "dir": lambda f: (f / "icon.png").mkdir(),
    }
    for name, make in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        make(folder)
        got = colour_at_centre(skill_icon(name, folder))
        assert got == colour_at_centre(letter_icon(name)), name
        assert got != QColor("blue")


def test_letter_icons_differ_by_name(qtbot) -> None:
    assert colour_at_centre(letter_icon("git")) != colour_at_centre(letter_icon("notes"))


def test_a_row_icon_is_drawn_at_its_size_in_the_skills_colour(qtbot, tmp_path: Path) -> None:
    """A list row's icon is the letter drawn at the row's size (on a 2× screen, twice
    the pixels), the colour of the large one; skills sharing a letter and a colour
    share one pixmap, and a shipped icon still wins."""
    folder = tmp_path / "git"
    folder.mkdir()
    row = icon_pixmap("git", folder, 28, 2.0)
    assert (row.width(), row.height(), row.devicePixelRatio()) == (56, 56, 2.0)
    large = letter_icon("git").pixmap(SIZE, SIZE).toImage().pixelColor(6, SIZE // 2)
    assert row.toImage().pixelColor(6, 28) == large
    assert icon_pixmap("git", tmp_path / "elsewhere", 28, 2.0) is row
    red = tmp_path / "red"
    red.mkdir()
    image = QImage(SIZE, SIZE, QImage.Format.Format_ARGB32)
    image.fill(QColor("red"))
    image.save(str(red / "icon.png"))
    icon_folders_ahead([red])  # as the thread that makes the bar's index does
    assert icon_pixmap("git", red, 28).toImage().pixelColor(14, 14) == QColor("red")
