"""The launcher and the tray start twice over every kind of skill: once writing the menu
cache, once drawing their first menu from it.

The menu is built from two sources at a start — the cached stand-ins while the Engine
loads, the Engine's skills after — and both must satisfy ``ui/menu/protocol.py``. Each
start is a real ``python -m gibberish`` (Qt offscreen, files under the test's XDG
folders) over bundled skills, a user skill, an installed one (``gibberish install``:
untrusted, its tooltip reads where it came from), an instruction skill, a broken one,
and a project's skill (followed because the focused window, answered by a Hyprland
socket double, is a process working in the project). It records its first menu at
``shown`` — before the Engine is built, so drawn from the cache on the second start —
then waits for ``loaded`` and ends on SIGTERM, as a session ending would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gibberish import paths
from gibberish.desktop.hyprland import socket_path
from gibberish.ui.menu import cache as menu_cache
from gibberish.ui.menu.protocol import offered_in
from tests.conftest import REPO_ROOT
from tests.desktop.test_hyprland_kde import RECORDED_ACTIVE_WINDOW, HyprSocket
from tests.interop.builders import skill_text, write_skill

CHILD = """
import json, sys
from PySide6.QtWidgets import QApplication
import gibberish.ui.application as application

announce = application.announce
record_path = sys.argv[1]

def entries():
    shown = {w.objectName(): w for w in QApplication.allWidgets()}
    if "--no-tray" not in sys.argv:
        return {a.objectName(): a.toolTip() for a in shown["tray-menu"].actions()}
    window, found = shown["launcher-window"], {}
    for name in window.names():
        item = window.find_item(name)
        found[name] = item.toolTip(0) if item is not None else ""
    return found

def spy(stage):
    if stage == "shown":
        with open(record_path, "w") as stream:
            json.dump(entries(), stream)
    announce(stage)

application.announce = spy
sys.argv = ["gibberish", *sys.argv[2:]]
from gibberish.cli import main
main()
"""

INSTRUCTIONS = """---
name: house-style
version: 1.0.0
description: How we write commit messages, for a model to read.
---

Write the subject in the imperative, at most 50 characters.
"""

BROKEN = "---\nname: [broken\ndescription: the frontmatter never closes its list\n"


@pytest.fixture
def every_kind(tmp_path: Path) -> Iterator[dict[str, str]]:
    """User, installed, instruction, broken and project skills (the bundled ones ship),
    and a focused window working in the project. The environment the starts get."""
    user = paths.user_skills_dir()
    write_skill(user, "mine")
    (user / "house-style").mkdir(parents=True)
    (user / "house-style" / "SKILL.md").write_text(INSTRUCTIONS, encoding="utf-8")
    (user / "broken").mkdir()
    (user / "broken" / "SKILL.md").write_text(BROKEN, encoding="utf-8")
    source = write_skill(tmp_path / "download", "greet")
    installed = subprocess.run(
        [sys.executable, "-m", "gibberish", "install", str(source), "--yes", "--no-sync"],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    project = tmp_path / "project"
    (project / ".gibberish" / "skills" / "helper").mkdir(parents=True)
    (project / ".gibberish" / "skills" / "helper" / "SKILL.md").write_text(
        skill_text("helper"), encoding="utf-8"
    )
    (project / "gibberish.toml").write_text("", encoding="utf-8")
    env = {
        **os.environ,
        "HYPRLAND_INSTANCE_SIGNATURE": "v0.45_1700000000_abcdef",
        "WAYLAND_DISPLAY": "wayland-1",
        "PYTHONPATH": str(REPO_ROOT),
    }
    focused = subprocess.Popen(["sleep", "300"], cwd=project)
    path = socket_path(env)
    assert path is not None
    window = RECORDED_ACTIVE_WINDOW.replace("PID", str(focused.pid)).encode()
    hyprland = HyprSocket(path, window)
    try:
        yield env
    finally:
        hyprland.close()
        focused.kill()
        focused.wait()


def start(tmp_path: Path, env: dict[str, str], args: list[str], *, until: str) -> dict:
    """One start until it has loaded and the menu cache holds ``until``; its first menu
    (entry name → tooltip)."""
    ready = tmp_path / "ready"
    ready.unlink(missing_ok=True)
    record = tmp_path / "at-shown.json"
    record.unlink(missing_ok=True)
    env = {**env, "GIBBERISH_READY_FILE": str(ready)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(record), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90
        while not (_loaded(ready) and until in _cached_names()):
            if child.poll() is not None:
                pytest.fail(f"gibberish stopped ({child.returncode}): {child.stderr.read()}")
            assert time.monotonic() < deadline, "the skills never loaded into the menu cache"
            time.sleep(0.05)
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=30)
        assert child.returncode == 0, err
        assert "Traceback" not in err and "internal error" not in err, err
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    log = paths.state_dir() / "gibberish.log"
    text = log.read_text(encoding="utf-8") if log.is_file() else ""
    assert "Traceback" not in text, text
    return json.loads(record.read_text())


def _loaded(ready: Path) -> bool:
    return ready.is_file() and "loaded" in ready.read_text().split()


def _cached_names() -> list[str]:
    cached = menu_cache.load()
    return [s.name for s in cached[0].skills()] if cached is not None else []


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("surface", "args", "force_tray"),
    [("launcher", ["tray", "--no-tray"], ""), ("tray", ["tray"], "1")],
)
def test_starts_twice_writing_then_reading_the_menu_cache(
    tmp_path: Path, every_kind: dict[str, str], surface: str, args: list[str], force_tray: str
) -> None:
    env = {**every_kind, "GIBBERISH_FORCE_TRAY": force_tray}
    first = start(tmp_path, env, args, until="helper")
    assert "no-skills" in first  # no cache yet: "Loading skills…"

    cached = menu_cache.load()
    assert cached is not None
    library, context = cached
    by_name = {skill.name: skill for skill in library.skills()}
    assert {"mine", "greet", "helper"} <= set(by_name)
    assert by_name["greet"].trust == "untrusted" and by_name["mine"].trust == "user"
    assert any(skill.trust == "bundled" for skill in by_name.values())
    assert not {"house-style", "broken"} & set(by_name)  # no tools, or none that work

    second = start(tmp_path, env, args, until="helper")
    expected = {f"skill:{s.name}" for s in library.skills() if offered_in(s, context.mode)}
    assert {"skill:mine", "skill:greet", "skill:helper"} <= expected
    assert expected <= set(second), f"the {surface} drew {sorted(second)} from the cache"
    assert f"Source: {every_kind_source(tmp_path)}" in second["skill:greet"]
    assert by_name["greet"].directory == paths.user_skills_dir() / "greet"


def every_kind_source(tmp_path: Path) -> Path:
    """Where ``every_kind`` installed ``greet`` from (its provenance, shown in the tooltip)."""
    return tmp_path / "download" / "greet"
