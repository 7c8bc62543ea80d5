"""The tray's *Context* submenu: load and unload instruction skills for the model.

Each context block is a checkable entry with its token estimate. Clicking an unchecked
block loads it for this session (``engine.feed.session_context``); clicking a checked one
unloads it — or unpins it, when it is pinned (pinned blocks are on in every session).
*Pin loaded blocks* keeps the session's blocks for the next sessions too. What is loaded
goes in front of every request the command bar sends to the model
(``engine.feed.context_feed``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from gibberish.ui.menu.model import Kind, MenuItem, elide, separator

if TYPE_CHECKING:
    from gibberish.engine.core import Engine


class ContextMenu:
    def __init__(self, engine: Callable[[], Engine], changed: Callable[[], None]) -> None:
        self._engine = engine
        self._changed = changed

    def item(self) -> MenuItem:
        return MenuItem("context", "Context", kind=Kind.MENU, children=self.children)

    def children(self) -> list[MenuItem]:
        engine = self._engine()
        pinned = set(engine.feed.pinned())
        loaded = engine.feed.session_context
        items = []
        for block in engine.feed.context_blocks():
            where = " · pinned" if block.name in pinned else ""
            items.append(
                MenuItem(
                    f"context:{block.name}",
                    elide(f"{block.name}  (~{block.tokens} tokens{where})"),
                    tooltip=f"{block.description}\n{block.trust}, from {block.source}",
                    checkable=True,
                    checked=block.name in pinned or block.name in loaded,
                    trigger=partial(self.toggle, block.name),
                )
            )
        if not items:
            return [
                MenuItem(
                    "context:none",
                    "No instruction skills",
                    enabled=False,
                    tooltip="Skills made only of instructions show here; "
                    "“gibberish context scan” lists them",
                )
            ]
        items.append(separator("context-separator"))
        items.append(
            MenuItem(
                "context:pin-loaded",
                "Pin loaded blocks",
                enabled=bool(loaded),
                tooltip="Keep the blocks loaded now in every session",
                trigger=self.pin_loaded,
            )
        )
        return items

    def toggle(self, name: str) -> None:
        self._engine().feed.toggle_block(name)
        self._changed()

    def pin_loaded(self) -> None:
        self._engine().feed.pin_session()
        self._changed()
