"""Garbage collection around the load: held while the Engine loads, the result frozen after."""

from __future__ import annotations

import gc
import threading

from gibberish.engine.core import Engine, EngineOptions
from gibberish.ui import gui_gc
from gibberish.ui.controller import Controller
from gibberish.ui.gui_gc import GuiGarbageCollector


def blocked_factory(skills_dir, gate: threading.Event):
    def factory() -> Engine:
        gate.wait(10)
        return Engine(
            EngineOptions(
                extra_skills_dirs=(skills_dir,), include_user=False, include_bundled=False
            )
        )

    return factory


def test_no_collection_while_the_engine_loads_then_collections_resume(qtbot, skills_dir) -> None:
    collector = GuiGarbageCollector(interval_ms=10_000_000)  # checked by hand below
    gate = threading.Event()
    ctl = Controller(blocked_factory(skills_dir, gate), tray_available=True)
    try:
        ctl.start()
        qtbot.waitUntil(lambda: ctl.host.loading and ctl.host._thread is not None)
        young = [{} for _ in range(5 * collector.threshold[0])]  # due for a collection
        assert collector.check() is None  # held
        gate.set()
        qtbot.waitUntil(lambda: ctl.host.is_ready and not ctl.lifecycle.gc_held, timeout=10_000)
        young += [{} for _ in range(5 * collector.threshold[0])]
        assert collector.check() is not None
    finally:
        gate.set()
        ctl.shutdown()
        collector.stop()
    assert not gui_gc._held  # nothing left on hold for whatever runs next
    del young


def test_the_loaded_skills_are_frozen_after_the_load(qtbot, skills_dir) -> None:
    gate = threading.Event()
    gate.set()
    ctl = Controller(blocked_factory(skills_dir, gate), tray_available=True)
    seen: list[bool] = []

    def right_after_the_load() -> None:  # runs after the controller's slot, before idle turns
        tools = ctl.engine.library.skills()[0].tools
        assert gc.is_tracked(tools)
        seen.append(any(o is tools for o in gc.get_objects()))  # frozen: out of sight

    ctl.host.ready.connect(right_after_the_load)
    try:
        ctl.start()
        qtbot.waitUntil(lambda: bool(seen), timeout=10_000)
        assert seen == [False]
    finally:
        ctl.shutdown()


def test_a_controller_shut_down_while_loading_releases_the_hold(qtbot, skills_dir) -> None:
    gate = threading.Event()
    ctl = Controller(blocked_factory(skills_dir, gate), tray_available=True)
    ctl.start()
    assert gui_gc._held == 1
    ctl.shutdown()
    assert gui_gc._held == 0
    gate.set()
