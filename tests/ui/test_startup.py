"""Lazy start-up: the menu from the cache first, the Engine built on a worker thread."""

from __future__ import annotations

import threading

from gibberish.engine.core import Engine, EngineOptions
from gibberish.ui.controller import Controller
from gibberish.ui.engine_host import EngineHost
from gibberish.ui.menu import cache as menu_cache
from gibberish.ui.seams import Seams


def skill_names(controller: Controller) -> list[str]:
    return [
        a.objectName() for a in controller.menu.actions() if a.objectName().startswith("skill:")
    ]


def factory_for(skills_dir, seen_threads: list[str] | None = None):
    def factory() -> Engine:
        if seen_threads is not None:
            seen_threads.append(threading.current_thread().name)
        return Engine(
            EngineOptions(
                extra_skills_dirs=(skills_dir,), include_user=False, include_bundled=False
            )
        )

    return factory


def test_first_start_shows_loading_then_the_real_menu(qtbot, skills_dir) -> None:
    threads: list[str] = []
    ctl = Controller(factory_for(skills_dir, threads), tray_available=True)
    ctl.start()
    try:
        assert not ctl.host.is_ready
        names = [a.objectName() for a in ctl.menu.actions()]
        assert "no-skills" in names and "quit" in names  # usable while loading
        assert ctl.menu.findChild(object, "no-skills").text() == "Loading skills…"
        with qtbot.waitSignal(ctl.host.ready, timeout=10_000):
            pass
        assert threads == ["gibberish-engine"]  # built off the GUI thread
        assert skill_names(ctl) == ["skill:hello", "skill:kinds", "skill:slow"]
        assert menu_cache.cache_path().is_file()
    finally:
        ctl.shutdown()


def test_next_start_draws_the_cached_menu_at_once(qtbot, skills_dir, engine) -> None:
    menu_cache.save(engine, engine.mode_context())
    ctl = Controller(factory_for(skills_dir), tray_available=True, seams=Seams(approvals=_Yes()))
    ctl.start()
    try:
        assert not ctl.host.is_ready
        assert skill_names(ctl) == ["skill:hello", "skill:kinds", "skill:slow"]
        # A click before the Engine is ready waits for it instead of failing.
        session = ctl.launch("hello.say_hello")
        assert session is not None
        qtbot.waitUntil(lambda: session.result is not None, timeout=10_000)
        assert session.window.output_text().strip() == "hello from gibberish"
    finally:
        ctl.shutdown()


class _Yes:
    def ask(self, prepared, parent=None):
        from gibberish.engine.run_flow import Answer

        return Answer.ONCE


def test_cache_round_trip_and_bad_files(tmp_path, engine) -> None:
    path = tmp_path / "menu.cache"
    assert menu_cache.load(path) is None
    assert menu_cache.save(engine, engine.mode_context(), path) is True
    assert menu_cache.save(engine, engine.mode_context(), path) is False  # unchanged
    library, context = menu_cache.load(path)
    hello = next(s for s in library.skills() if s.name == "hello")
    assert [t.name for t in hello.tools] == ["say_hello", "echo_text"]
    assert hello.trust == "user" and context.mode == "Global"
    path.write_bytes(b"not marshal data")
    assert menu_cache.load(path) is None


def test_engine_host_with_an_engine_is_ready_at_once(engine) -> None:
    host = EngineHost(engine)
    assert host.is_ready and host.get() is engine


def test_engine_host_reports_a_failing_factory(qtbot) -> None:
    def broken() -> Engine:
        raise RuntimeError("no skills for you")

    host = EngineHost(broken)
    with qtbot.waitSignal(host.failed, timeout=5000) as failed:
        host.start()
    assert "no skills for you" in str(failed.args[0])


def test_a_delayed_menu_cache_save_goes_where_it_was_asked_for(
    qtbot, skills_dir, engine, tmp_path, monkeypatch
) -> None:
    """The writer waits before saving; the cache folder in force when the save was asked
    for is the one written, even if the environment changed meanwhile."""
    from gibberish.ui.menu import source as menu_source

    asked_in = menu_cache.cache_path()
    writer = menu_source._CacheWriter()
    writer.request(engine, engine.mode_context())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "elsewhere"))
    qtbot.waitUntil(asked_in.is_file, timeout=10_000)
    assert not menu_cache.cache_path().exists()
