"""Typing in the command bar lists, letter by letter, exactly what a fresh search lists.

Between letters the bar keeps a great deal: the index's scores of the words typed so far
(and, after a library change, those of the tools that did not change), each tool's words
for the word filter, each row's laid-out lines and icon, and the rows themselves, changed
in place when a list keeps its length. Each test types a sequence of queries with
backspaces and a library change in the middle, and compares every step with a ranker and
a list made from nothing for that query alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QVBoxLayout, QWidget

from gibberish.engine.core import Engine, EngineOptions, ToolRef
from gibberish.ui.command_bar.bar import CommandBar
from gibberish.ui.command_bar.ranking import ToolRanker
from gibberish.ui.command_bar.results_list import ResultsList
from tests.ui.conftest import tool_block, write_skill

FULL = "Show how full each disk is."
MEMORY = "Show how much memory is used."


def storage(root: Path, fullness: str, memory: str) -> None:
    """A skill whose own description speaks of disks (a weak match for every tool) and
    two tools whose descriptions the library change swaps."""
    write_skill(
        root,
        "storage",
        [
            tool_block("fullness", fullness, "echo full"),
            tool_block("memory", memory, "echo memory"),
            tool_block("usage", "Show disk usage per folder.", "echo usage"),
        ],
        description="Tools for disks and storage.",
    )


@pytest.fixture
def library(tmp_path: Path) -> tuple[Path, Engine]:
    root = tmp_path / "skills"
    storage(root, FULL, MEMORY)
    write_skill(
        root,
        "net",
        [
            tool_block("open_ports", "List the ports something listens on.", "echo ports"),
            tool_block("ping_host", "Ping a host until it answers.", "echo ping"),
            tool_block("disconnect", "Drop the network connection.", "echo off"),
        ],
        description="Network tools.",
    )
    write_skill(
        root,
        "git",
        [
            tool_block("git_log", "Show the recent commits.", "echo log"),
            tool_block("git_diff", "Show what changed since the last commit.", "echo diff"),
            tool_block("git_status", "Show which files changed.", "echo status"),
        ],
        description="Git tools for the current repository.",
    )
    engine = Engine(
        EngineOptions(extra_skills_dirs=(root,), include_user=False, include_bundled=False)
    )
    return root, engine


def fresh_tools(tools: list[ToolRef], text: str) -> list[ToolRef]:
    """What a ranker made for this query alone lists (no word scores, no words kept)."""
    ranker = ToolRanker()
    ranker.offer(tools)
    return ranker.ranked(text, ())


def fresh(tools: list[ToolRef], text: str) -> list[str]:
    return [ref.ref for ref in fresh_tools(tools, text)]


def typed(start: str, steps: str) -> list[str]:
    """The texts typing ``steps`` after ``start`` goes through ("<" is a backspace)."""
    texts, text = [], start
    for key in steps:
        text = text[:-1] if key == "<" else text + key
        texts.append(text)
    return texts


BEFORE = "disk u<<<<<<sho<<<git l<<<<<dis"
AFTER = "k<<<<show d<<<<<<disk usa"
"""Typed before and after the library change: words, backspaces over them, new words."""


def change(root: Path, engine: Engine) -> None:
    """Swap the two descriptions: "disk" now starts a word of ``memory``, not of
    ``fullness`` (whose tool objects are new; the other skills' stay the same)."""
    storage(root, MEMORY, FULL)
    engine.library.reload()


def test_each_letter_ranks_as_a_fresh_search_across_backspaces_and_a_library_change(
    library: tuple[Path, Engine],
) -> None:
    root, engine = library
    ranker = ToolRanker()
    ranker.offer(engine.library.tools())
    for text in typed("", BEFORE):
        assert [r.ref for r in ranker.ranked(text, ())] == fresh(ranker.tools, text), text
    assert [r.ref for r in ranker.ranked("disk", ())] == [
        "storage.fullness",
        "storage.usage",
    ]  # a word of the description first; "memory" (only its skill speaks of disks) drops out
    change(root, engine)
    ranker.offer(engine.library.tools())
    for text in typed("dis", AFTER):
        assert [r.ref for r in ranker.ranked(text, ())] == fresh(ranker.tools, text), text
    assert [r.ref for r in ranker.ranked("disk", ())] == ["storage.memory", "storage.usage"]


def on_screen(widget: QWidget) -> QImage:
    """What the screen shows of ``widget`` now (the window's backing store: a row the
    view was not told to repaint still shows its old tool here)."""
    window = widget.window()
    at = widget.mapTo(window, widget.rect().topLeft())
    grabbed = window.screen().grabWindow(
        window.winId(), at.x(), at.y(), widget.width(), widget.height()
    )
    return grabbed.toImage().convertToFormat(QImage.Format.Format_RGB32)


def rendered(widget: QWidget) -> QImage:
    """``widget`` painted afresh, whole."""
    return widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)


def test_each_letter_shows_the_rows_a_fresh_list_shows(qtbot, library: tuple[Path, Engine]) -> None:
    """The rows on screen are the rows a list made for this query alone paints: none
    left over from the last letter, no title or description laid out for a tool
    before the library changed."""
    root, engine = library
    window = QWidget()
    qtbot.addWidget(window)
    layout = QVBoxLayout(window)
    bar = CommandBar(embedded=True)
    layout.addWidget(bar)
    window.resize(640, 700)
    bar.set_tools(engine.library.tools())
    window.show()
    qtbot.waitExposed(window)

    def check(text: str) -> None:
        qtbot.wait(20)  # the letter's repaint reaches the screen
        assert bar.input.text() == text
        assert bar.refs() == fresh(bar.ranking.tools, text), text
        if bar.results.isHidden():  # nothing matches: no rows to compare
            return
        shown = on_screen(bar.results)
        assert shown == rendered(bar.results), f"a row was not repainted at {text!r}"
        made = ResultsList(window)  # new rows, new delegate: nothing kept
        made.setFixedSize(bar.results.size())
        made.fill(fresh_tools(bar.ranking.tools, text))
        made.move(0, 0)
        made.show()
        assert rendered(made) == shown, f"the rows differ from a fresh list at {text!r}"
        made.deleteLater()

    for key in BEFORE:
        qtbot.keyClick(bar.input, Qt.Key.Key_Backspace if key == "<" else key)
        check(bar.input.text())
    change(root, engine)
    bar.set_tools(engine.library.tools())
    check(bar.input.text())
    for key in AFTER:
        qtbot.keyClick(bar.input, Qt.Key.Key_Backspace if key == "<" else key)
        check(bar.input.text())
