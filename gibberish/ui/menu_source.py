"""The menu's items, and the mode context they were built for.

From the Engine once it is ready (and then saved to ``menu_cache``), from the cache while
the Engine is still loading, so the tray has a usable menu at once. The context is the
mode and the focused app *when the menu opened*: taken before our own window takes the
focus, and kept for the click that follows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gibberish.ui import menu_cache
from gibberish.ui.context_menu import ContextMenu
from gibberish.ui.menu import build_menu

if TYPE_CHECKING:
    from gibberish.trust.modes import ModeContext
    from gibberish.ui.engine_host import EngineHost
    from gibberish.ui.menu import MenuActions


class MenuSource:
    def __init__(self, host: EngineHost, actions: MenuActions) -> None:
        self.host = host
        self.actions = actions
        self._context: ModeContext | menu_cache.CachedContext | None = None
        self.context_menu = ContextMenu(self.host.get, lambda: None)

    def capture(self) -> ModeContext:
        """The mode and focused app *now*."""
        self._context = context = self.host.get().mode_context()
        return context

    def forget(self) -> None:
        """The mode changed: the next use captures it anew."""
        self._context = None

    @property
    def context(self) -> ModeContext:
        if self._context is None or isinstance(self._context, menu_cache.CachedContext):
            return self.capture()
        return self._context

    def items(self) -> list[Any]:
        if self.host.is_ready:
            engine = self.host.get()
            context = self.capture()
            items = build_menu(engine, self.actions, context)
            menu_cache.save(engine, context)
            at = next(i for i, item in enumerate(items) if item.name == "lists-separator")
            items.insert(at + 1, self.context_menu.item())
            return items
        cached = menu_cache.load()
        library, context = cached if cached is not None else (menu_cache.CachedLibrary(), None)
        self._context = context or menu_cache.CachedContext()
        return build_menu(library, self.actions, self._context, loading=True)  # type: ignore[arg-type]
