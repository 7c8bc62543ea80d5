"""The output area of a run's window, filled as the tool prints without freezing the tray.

Streaming is throttled so a tool that prints 100 MB cannot freeze the tray: output waits
in the run's ``OutputTail`` (bounded, filled from the runner's thread) and this area
drains it at most every ``FLUSH_MS`` milliseconds, appending at most ``TICK_LIMIT``
characters per drain and keeping at most ``VIEW_LIMIT`` characters in the view (the
oldest lines are cut away, a few at a time, as new ones arrive). Each drain costs a few
milliseconds whatever the tool prints, so the GUI never stalls for long (see
``benchmarks/streaming.py``). It is its own class so the window around it only says
what happened to the run, while this one only keeps the view bounded and following.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QSizePolicy

from gibberish.ui import accessibility
from gibberish.ui.formatting import human_bytes
from gibberish.ui.runs.bridge import VIEW_LIMIT, OutputTail, TextDecoder
from gibberish.ui.widgets import mono_font

__all__ = ["FLUSH_MS", "KEEP", "LONG_LINE", "TICK_LIMIT", "VIEW_LIMIT", "StreamedOutput"]

FLUSH_MS = 30
"""How often streamed output is moved into the view."""
TICK_LIMIT = 8 * 1024
"""At most this many characters are appended per flush (about 100 lines, more than anyone
reads in ``FLUSH_MS``); older pending text is skipped. Laying out the appended text is
the cost of a flush, so this bounds it."""
LONG_LINE = 4096
"""Lines longer than this are broken for display (one huge line is slow to lay out)."""
KEEP = VIEW_LIMIT - TICK_LIMIT
"""Characters kept when the view overflows (room for one more flush)."""
_BREAKS = ("\r\n", "\r", "\u2029", "\ufdd0", "\ufdd1")
"""What Qt makes a new block of, besides a line feed: shown the same as a line feed, so
that the view's blocks are the text's lines and the oldest ones can be cut by count."""


def _display_text(text: str) -> str:
    """``text`` with every line break a line feed and no line longer than ``LONG_LINE``."""
    for other in _BREAKS:
        if other in text:
            text = text.replace(other, "\n")
    lines = text.split("\n")
    if max(map(len, lines)) <= LONG_LINE:
        return text
    out = []
    for line in lines:
        while len(line) > LONG_LINE:
            out.append(line[:LONG_LINE])
            line = line[LONG_LINE:]
        out.append(line)
    return "\n".join(out)


def _utf16_length(text: str) -> int:
    """Positions in a Qt document count UTF-16 units: two for a character past U+FFFF."""
    return len(text.encode("utf-16-le")) // 2


class StreamedOutput:
    """The read-only output view, the run's pending output, and what was skipped or cut.

    ``shown`` mirrors the view's text; ``skipped`` counts bytes never shown to keep up,
    ``trimmed`` characters cut from the top to stay under ``VIEW_LIMIT``: the window
    reads them to say whether the view misses part of the output.
    """

    def __init__(self) -> None:
        self.view = QPlainTextEdit()
        self.view.setObjectName("result-output")
        accessibility.name(self.view, "Output")
        self.view.setReadOnly(True)
        self.view.setFont(mono_font())
        self.view.setUndoRedoEnabled(False)
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.view.setPlaceholderText("No output yet.")
        self.view.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.tail: OutputTail | None = None
        self.shown = ""
        self.skipped = 0
        self.trimmed = 0
        self._decoder = TextDecoder()
        self._follow = True
        self.view.verticalScrollBar().rangeChanged.connect(self._range_changed)
        self.view.verticalScrollBar().valueChanged.connect(self._scrolled)
        self._flush_timer = QTimer(self.view)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FLUSH_MS)
        self._flush_timer.timeout.connect(self.flush)

    @property
    def streamed(self) -> int:
        """Bytes the tool printed while it ran (0 before a run or when none streamed)."""
        return self.tail.total if self.tail is not None else 0

    def arrived(self) -> None:
        """New output is waiting; drain it within ``FLUSH_MS`` (coalesces bursts)."""
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def stop(self) -> None:
        """The run is over: no drain is pending any more."""
        self._flush_timer.stop()

    def flush(self) -> None:
        """Move pending output into the view: a bounded tail, then trim the view to its limit."""
        if self.tail is None:
            return
        data, dropped = self.tail.take()
        if not data and not dropped:
            return
        gap = dropped > 0
        if len(data) > TICK_LIMIT:
            dropped += len(data) - TICK_LIMIT
            data = data[-TICK_LIMIT:]
            gap = True
        self.skipped += dropped
        text = self._decoder.decode(data, after_gap=gap)
        if gap:
            lead = "\n" if self.shown else ""
            text = f"{lead}… [{human_bytes(dropped)} of output skipped to keep up] …\n" + text
        self._append(_display_text(text))

    def _append(self, text: str) -> None:
        """Append to the view, keeping it under ``VIEW_LIMIT`` characters.

        The view's text is mirrored in ``shown``: new text is inserted at the end, and
        when the view would overflow, whole lines are cut from the top (counted in the
        mirror: one block per line) down to ``KEEP`` characters. Both are one edit, and
        each costs in proportion to the text added or cut (at most a flush's worth or
        so), never to the whole view: replacing the whole text stalled the GUI ~30 ms.
        """
        if not text:
            return
        follow = self._follow
        cursor = QTextCursor(self.view.document())
        cursor.beginEditBlock()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text)
        self.shown += text
        if len(self.shown) > VIEW_LIMIT:
            self._cut_oldest_lines(cursor)
        cursor.endEditBlock()
        self._follow = follow  # our own edits move the scroll bar; they are not the user's
        if follow:
            self._scroll_to_end()

    def _cut_oldest_lines(self, cursor: QTextCursor) -> None:
        """Remove whole lines from the top until ``KEEP`` characters are left."""
        cut = self.shown.find("\n", len(self.shown) - KEEP) + 1
        if cut <= 0:  # no line end to cut at (the last line is still being printed)
            cut = len(self.shown) - KEEP
        cursor.movePosition(QTextCursor.MoveOperation.Start)
        lines = self.shown.count("\n", 0, cut)
        cursor.movePosition(
            QTextCursor.MoveOperation.NextBlock, QTextCursor.MoveMode.KeepAnchor, lines
        )
        if cut > 0 and self.shown[cut - 1] != "\n":
            cursor.movePosition(
                QTextCursor.MoveOperation.Right,
                QTextCursor.MoveMode.KeepAnchor,
                _utf16_length(self.shown[self.shown.rfind("\n", 0, cut) + 1 : cut]),
            )
        cursor.removeSelectedText()
        self.trimmed += cut
        self.shown = self.shown[cut:]

    def show_text(self, text: str) -> None:
        """Show a finished result from its start (JSON, or the exact output)."""
        self.view.setPlainText(text)
        self.shown = text
        self._follow = False
        self.view.verticalScrollBar().setValue(0)

    def _scroll_to_end(self) -> None:
        bar = self.view.verticalScrollBar()
        bar.setValue(bar.maximum())

    # "Follow the tail", as terminals do: while the view is scrolled to the end it stays
    # there as text arrives or the window is resized; scrolling up stops following,
    # scrolling back to the end resumes.
    def _range_changed(self, _minimum: int, maximum: int) -> None:
        if self._follow:
            self.view.verticalScrollBar().setValue(maximum)

    def _scrolled(self, value: int) -> None:
        self._follow = value >= self.view.verticalScrollBar().maximum() - 4
