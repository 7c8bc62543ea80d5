"""Whether two screenshots show the same layout, whatever the rasteriser did to the glyphs.

Two checks, chosen in docs/adr/0026-tests-on-any-machine.md:

* **Size.** Both pictures are drawn with the same shipped fonts, so a window's size is
  its layout's: width and height may differ by :data:`SIZE_SLACK` pixels (a rounded font
  metric), no more. A row added, a label that wraps, more spacing: the size changes.
* **Where things are.** Each picture is cut into :data:`BLOCK`-pixel squares, and a
  square "holds something" when its grey levels vary (standard deviation over
  :data:`CONTENT_SPREAD`: text, an edge, an icon) and is "empty" when it is flat. Other
  anti-aliasing or hinting redraws the glyphs but leaves them in the same squares, give
  or take a square at the end of a line, so the squares that differ are few and
  scattered. A widget that moved empties the squares where it was and fills the ones
  where it is now: a clump of neighbouring squares that differ. The picture fails when
  the largest clump (squares sharing an edge) has more than
  :data:`LARGEST_CLUMP` squares.

Measured on the committed pictures (the ADR has the table): anti-aliasing turned off
gives clumps of at most 21 squares (the dense build log; 4 elsewhere); the approval
dialog's "Open folder" button moved next to "Cancel" gives 33 to 47. Full hinting with
sub-pixel colour changes glyph advances, so lines get longer or shorter: that is a
different layout (up to 42), and the shipped fontconfig file rules it out.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

SIZE_SLACK = 4
BLOCK = 8
CONTENT_SPREAD = 7.5
LARGEST_CLUMP = 25


@dataclass(frozen=True)
class Comparison:
    """How far a fresh picture is from the committed one."""

    size_ok: bool
    clump: int
    """Squares in the largest clump of neighbouring squares that differ."""
    differing: float
    """The share of squares that differ (for messages)."""

    @property
    def alike(self) -> bool:
        return self.size_ok and self.clump <= LARGEST_CLUMP


def content_map(image: QImage, width: int, height: int) -> list[list[bool]]:
    """Which BLOCK-pixel squares of ``image`` (scaled to ``width`` x ``height``) hold something."""
    grey = image.convertToFormat(QImage.Format.Format_Grayscale8)
    if (grey.width(), grey.height()) != (width, height):
        grey = grey.scaled(
            width,
            height,
            Qt.AspectRatioMode.IgnoreAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
    stride, data = grey.bytesPerLine(), bytes(grey.constBits())
    limit = CONTENT_SPREAD**2 * BLOCK * BLOCK
    squares = []
    for top in range(0, height - BLOCK + 1, BLOCK):
        rows = [data[(top + dy) * stride : (top + dy) * stride + width] for dy in range(BLOCK)]
        row = []
        for left in range(0, width - BLOCK + 1, BLOCK):
            values = [v for r in rows for v in r[left : left + BLOCK]]
            total = sum(values)
            spread = sum(v * v for v in values) - total * total / len(values)
            row.append(spread > limit)
        squares.append(row)
    return squares


def largest_clump(cells: list[list[bool]]) -> int:
    """The size of the largest group of True cells that share an edge."""
    seen: set[tuple[int, int]] = set()
    best = 0
    for y, row in enumerate(cells):
        for x, on in enumerate(row):
            if not on or (y, x) in seen:
                continue
            seen.add((y, x))
            stack, size = [(y, x)], 0
            while stack:
                cy, cx = stack.pop()
                size += 1
                for ny, nx in ((cy - 1, cx), (cy + 1, cx), (cy, cx - 1), (cy, cx + 1)):
                    inside = 0 <= ny < len(cells) and 0 <= nx < len(cells[ny])
                    if inside and cells[ny][nx] and (ny, nx) not in seen:
                        seen.add((ny, nx))
                        stack.append((ny, nx))
            best = max(best, size)
    return best


def compare(fresh: QImage, committed: QImage) -> Comparison:
    """Compare ``fresh`` with ``committed`` at the committed picture's size."""
    size_ok = (
        abs(fresh.width() - committed.width()) <= SIZE_SLACK
        and abs(fresh.height() - committed.height()) <= SIZE_SLACK
    )
    width, height = committed.width(), committed.height()
    a, b = content_map(fresh, width, height), content_map(committed, width, height)
    differs = [[x != y for x, y in zip(ra, rb, strict=True)] for ra, rb in zip(a, b, strict=True)]
    cells = sum(len(row) for row in differs)
    share = sum(map(sum, differs)) / cells if cells else 0.0
    return Comparison(size_ok, largest_clump(differs), share)
