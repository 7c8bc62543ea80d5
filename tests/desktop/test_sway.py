"""Under a real headless Sway, the mode follows the focused window and runs start in its
repository; ``gibberish doctor`` names the Sway backend; a compositor that went away is a
sentence, not an error."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.desktop import detect
from gibberish.desktop.sway import SwayFocusProvider
from gibberish.engine.core import Engine, EngineOptions
from gibberish.skills.model import Mode
from tests.desktop.headless_sway import HeadlessSway, unavailable

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))


def _repo(folder: Path, untracked: str) -> Path:
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    (folder / untracked).write_text("new\n", encoding="utf-8")
    return folder


@pytest.fixture
def sway_session(monkeypatch) -> Iterator[HeadlessSway]:
    compositor = HeadlessSway()
    try:
        compositor.start()
        monkeypatch.setenv("SWAYSOCK", compositor.socket)
        monkeypatch.setenv("WAYLAND_DISPLAY", compositor.wayland_display)
        monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
        yield compositor
    finally:
        compositor.stop()


def test_the_mode_follows_the_focused_window_and_git_status_runs_in_its_repo(
    sway_session: HeadlessSway,
) -> None:
    first = _repo(sway_session.root / "alpha", "alpha-only.txt")
    second = _repo(sway_session.root / "beta", "beta-only.txt")
    alpha = sway_session.terminal(first)
    sway_session.terminal(second)
    engine = Engine(EngineOptions(include_user=False))  # the backend comes from the session

    context = engine.mode_context()
    assert context.mode is Mode.DEV and context.focus.app == "foot"
    assert context.focus.cwd == second  # the shell inside the focused foot
    run = engine.runs.run(engine.runs.prepare("git.git_status", context_dir=context.focus.cwd))
    assert run.cwd == second and "beta-only.txt" in run.envelope.output
    assert "alpha-only.txt" not in run.envelope.output

    sway_session.focus(alpha.pid)
    context = engine.mode_context()
    assert context.focus.cwd == first and context.mode is Mode.DEV
    run = engine.runs.run(engine.runs.prepare("git.git_status", context_dir=context.focus.cwd))
    assert run.cwd == first and "alpha-only.txt" in run.envelope.output


def _doctor() -> dict[str, dict]:
    result = CliRunner().invoke(cli, ["doctor", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {c["check"]: c for c in json.loads(result.output)}


def test_doctor_names_the_sway_backend(sway_session: HeadlessSway) -> None:
    checks = _doctor()
    assert checks["desktop"]["detail"].startswith("Sway/i3 (Wayland); backend: sway")
    assert checks["focused app"]["ok"] is True
    assert checks["global shortcuts"]["ok"] is False  # no portal on this session
    assert "Sway / i3: add to ~/.config/sway/config" in checks["global shortcuts"]["detail"]


def test_a_compositor_that_went_away_is_a_sentence(sway_session: HeadlessSway) -> None:
    provider = detect.focus_backend()
    assert isinstance(provider, SwayFocusProvider)
    sway_session.terminal(sway_session.root)
    assert provider.focused() is not None
    sway_session.stop()
    assert provider.focused() is None
    problem = provider.problem()
    assert problem is not None and "cannot be reached" in problem and "Sway" in problem
    checks = _doctor()
    assert checks["focused app"]["ok"] is False
    assert "Is Sway still running?" in checks["focused app"]["detail"]
