"""The menu's items, and the mode context they were built for.

From the Engine once it is ready (and then saved to ``menu_cache``), from the cache while
the Engine is still loading, so the tray has a usable menu at once. The context is the
mode and the focused app *when the menu opened*: taken before our own window takes the
focus, and kept for the click that follows.

The menu is asked for on every open, so what does not change between opens is kept: the
skill section is made again only when the skills or the mode changed, and then from one
``MenuItem`` per skill kept until that skill changes (``menu_view`` then keeps every
unchanged entry's ``QAction``). Only the few entries around it — the mode, problems,
recent runs — are made on each open.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gibberish.logger import logger
from gibberish.ui.menu import cache as menu_cache
from gibberish.ui.menu.context_blocks import ContextMenu
from gibberish.ui.menu.model import (
    MenuItem,
    build_menu,
    head_items,
    problem_items,
    problems_menu,
    project_item,
    recent_menu,
    separator,
    skill_entry,
    skill_section,
    tail_items,
    turned_off_items,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from gibberish.desktop.modes import ModeContext
    from gibberish.engine.core import Engine
    from gibberish.ui.engine_host import EngineHost
    from gibberish.ui.menu.microphone_recheck import MicrophoneRecheck
    from gibberish.ui.menu.model import MenuActions
    from gibberish.ui.menu.protocol import MenuSkill


log = logger("gibberish.ui")
SAVE_DELAY_S = 1.0
"""How long a change waits before ``menu_cache`` is written (off the GUI thread)."""


class MenuSource:
    def __init__(self, host: EngineHost, actions: MenuActions) -> None:
        self.host = host
        self.actions = actions
        self._context: ModeContext | menu_cache.CachedContext | None = None
        self.context_menu = ContextMenu(self.host.get, lambda: None)
        self._section_key: tuple | None = None
        self._section: list[MenuItem] = []
        self._problems: list[MenuItem] = []
        self._saves = 0  # menu_cache writes so far: the first is made at once
        self._saver = _CacheWriter()
        self._entries: dict[str, _Entry] = {}
        self.follow_project: Callable[[Path], None] | None = None
        """Set by the controller: load the skills of the project holding this folder."""
        self.mode_moved: Callable[[], None] = lambda: None
        """Set by the controller: the mode moved after the microphone answered."""
        self._microphone: MicrophoneRecheck | None = None

    def capture_at_once(self) -> ModeContext:
        """``capture`` without waiting on the microphone (the hotkey, the menu opening):
        its last answer stands in, and it is asked on a thread; when its answer moved,
        the mode is captured again and ``mode_moved`` is told."""
        context = self.capture(ask_microphone=False)
        if self._microphone is None:
            from gibberish.ui.menu.microphone_recheck import MicrophoneRecheck

            self._microphone = MicrophoneRecheck(self.host.get, self._microphone_moved)
        self._microphone.start()
        return context

    def _microphone_moved(self) -> None:
        self.capture(ask_microphone=False)
        self.mode_moved()

    def capture(self, *, ask_microphone: bool = True) -> ModeContext:
        """The mode and focused app *now*. When the focused app works in another project
        (its gibberish.toml), ``follow_project`` is told: the controller reloads on a
        worker thread with that project's skills (this query changes nothing itself)."""
        engine = self.host.get()
        self._context = context = engine.mode_context(ask_microphone=ask_microphone)
        folder = context.focus.cwd if context.focus is not None else None
        if folder is not None and self.follow_project and engine.library.would_follow(folder):
            self.follow_project(folder)
        return context

    def forget(self) -> None:
        """The mode changed: the next use captures it anew."""
        self._context = None
        self._section_key = None

    @property
    def context(self) -> ModeContext:
        if self._context is None or isinstance(self._context, menu_cache.CachedContext):
            return self.capture()
        return self._context

    def items(self) -> list[Any]:
        if self.host.is_ready:
            from gibberish.ui.skill_switch import turned_off  # the Engine is loaded by now

            engine = self.host.get()
            context = self.capture_at_once()
            waiting = engine.library.untrusted_project()
            return [
                *head_items(context, self.actions),
                *([project_item(waiting, self.actions)] if waiting else []),
                *self._skill_section(engine, context),
                separator("lists-separator"),
                self.context_menu.item(),
                problems_menu(self._problems),
                recent_menu(engine.runs.recent(), self.actions),
                *turned_off_items(turned_off(engine), self.actions),
                *tail_items(self.actions),
            ]
        cached = menu_cache.load()
        library, last = cached if cached is not None else (menu_cache.CachedLibrary(), None)
        self._context = last or menu_cache.CachedContext()
        return build_menu(library, [], self.actions, self._context, loading=True)

    def _skill_section(self, engine: Engine, context: ModeContext) -> list[MenuItem]:
        """The skills' entries (and the problems), made again only when the skills or the
        mode changed."""
        skills = engine.library.skills()
        key = (str(context.mode), context.automatic, skills)
        if key == self._section_key:
            return self._section
        self._section = self._skill_entries(skills, context)
        self._problems = problem_items(engine.library, self.actions)
        self._section_key = key
        self._save(engine, context)
        return self._section

    def _save(self, engine: Engine, context: ModeContext) -> None:
        """Write ``menu_cache``: the first time at once (the next start must find it even
        when this one quits at once), later on a worker thread — a snapshot of 1,000
        skills is tens of milliseconds the GUI thread need not wait for."""
        self._saves += 1
        if self._saves == 1:
            menu_cache.save(engine, context)
            return
        self._saver.request(engine, context)

    def _skill_entries(self, skills: Sequence[MenuSkill], context: ModeContext) -> list[MenuItem]:
        """``menu.skill_section``, from entries kept while their skill is the same object."""
        kept, self._entries = self._entries, {}
        mode = context.mode
        items = []
        for skill in skills:
            entry = kept.get(skill.name)
            if entry is None or entry.skill is not skill:
                entry = _Entry(skill, self.actions)
            self._entries[skill.name] = entry
            if entry.item is not None and (entry.modes is None or mode in entry.modes):
                items.append(entry.item)
        return items or skill_section((), context, self.actions)


class _Entry:
    """A skill's menu entry (None: it has errors or no tools) and the modes offering it
    (None: every mode), kept while the library hands out the same skill object."""

    __slots__ = ("item", "modes", "skill")

    def __init__(self, skill: MenuSkill, actions: MenuActions) -> None:
        self.skill = skill
        self.item = skill_entry(skill, actions) if skill.ok and skill.tools else None
        self.modes = None if "Global" in skill.modes else frozenset(skill.modes)


class _CacheWriter:
    """Writes ``menu_cache`` on a thread of its own, ``SAVE_DELAY_S`` after the last
    request (so it does not compete for the interpreter with the GUI thread applying the
    same change, and a burst of changes is one write); the thread ends when nothing is
    left to write."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # The cache file is named when the save is asked for, not when it is written: a
        # save that lands a second later still goes where the asking session keeps it.
        self._request: tuple[Engine, ModeContext, float, Path] | None = None
        self._thread: threading.Thread | None = None

    def request(self, engine: Engine, context: ModeContext) -> None:
        with self._lock:
            deadline = time.monotonic() + SAVE_DELAY_S
            self._request = (engine, context, deadline, menu_cache.cache_path())
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="gibberish-menu-cache", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                request = self._request
                if request is None:
                    self._thread = None
                    return
            time.sleep(max(0.0, request[2] - time.monotonic()))
            with self._lock:
                if self._request is not request:
                    continue  # a newer request came meanwhile: wait for it instead
                self._request = None
            try:
                menu_cache.save(request[0], request[1], request[3])
            except Exception as exc:  # the cache is an optimization: never worth a crash
                log.warning("could not save the menu cache: %s", exc)
