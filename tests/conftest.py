"""Hermetic test environment.

Before anything is imported, every XDG folder and HOME point into one temporary folder
for the whole session, the keyring is a plaintext file backend inside it, Qt renders
offscreen, and fontconfig sees only the fonts shipped in tests/fonts/. An autouse fixture then gives every test fresh folders of its own, so no test
can see another's approvals, settings or skills, and none touches the real home folder.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.fonts import fontconfig_file

settings.register_profile(
    "any-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("any-machine")
"""Hypothesis checks what a property holds, never how fast this machine draws examples: on
a loaded two-core machine a draw can stall for seconds, which its deadline and its
too-slow health check would report as a failure of the code."""

_SESSION_ROOT = Path(tempfile.mkdtemp(prefix="gibberish-tests-"))


def _point_environment_at(root: Path, env) -> None:
    for var, sub in (
        ("HOME", "home"),
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
        ("XDG_RUNTIME_DIR", "runtime"),
    ):
        path = root / sub
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        env[var] = str(path)


_point_environment_at(_SESSION_ROOT, os.environ)
os.environ["PYTHON_KEYRING_BACKEND"] = "keyrings.alt.file.PlaintextKeyring"
os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ.pop("DBUS_SESSION_BUS_ADDRESS", None)
os.environ.pop("DISPLAY", None)
os.environ.pop("WAYLAND_DISPLAY", None)
for _desktop_var in (  # the desktop backend is chosen from these (gibberish.desktop.detect)
    "SWAYSOCK",
    "I3SOCK",
    "HYPRLAND_INSTANCE_SIGNATURE",
    "XDG_CURRENT_DESKTOP",
    "XDG_SESSION_TYPE",
):
    os.environ.pop(_desktop_var, None)
os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
# Only the fonts in tests/fonts/, whatever the machine has installed (Qt, Chromium).
os.environ["FONTCONFIG_FILE"] = str(fontconfig_file(_SESSION_ROOT / "fonts"))


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Fresh HOME and XDG folders for every test."""
    root = tmp_path_factory.mktemp("env")
    env: dict[str, str] = {}
    _point_environment_at(root, env)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    # ``gibberish.cli.main()`` called in a test lets a later ``finish`` end the whole test
    # process with ``os._exit`` (quick exit is for the real program only): undone here.
    from gibberish.cli import quick_exit

    monkeypatch.setattr(quick_exit, "_enabled", False)
    yield root


REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_SKILLS = REPO_ROOT / "skills"


@pytest.fixture
def model_server():
    """A loopback model server speaking the Ollama and OpenAI APIs (tests/assistant/fakeserver.py)."""
    from tests.assistant.fakeserver import FakeModelServer

    server = FakeModelServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty skills folder; a test module may override it with one already filled."""
    path = tmp_path / "skills"
    path.mkdir()
    return path


@pytest.fixture
def engine(root: Path):
    """An Engine over ``root`` only: no user or bundled skills."""
    from gibberish.engine.core import Engine, EngineOptions

    return Engine(
        EngineOptions(extra_skills_dirs=(root,), include_user=False, include_bundled=False)
    )


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch):
    """This process without the sandbox, as on a machine without bubblewrap."""
    from gibberish.runner import sandbox

    monkeypatch.setenv(sandbox.SWITCH_VAR, "off")
    sandbox.reset()
    yield
    monkeypatch.delenv(sandbox.SWITCH_VAR)
    sandbox.reset()


SLOW_TEST_TIMEOUT = 900
"""Seconds a ``slow`` test may take before pytest-timeout calls it hung. The suite's
default (120 s, pyproject.toml) guards against hangs; a test marked slow does minutes of
real decoding on a loaded two-core machine (every length of a recording, every real
person's recording), which is work, not a hang."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TEST_TIMEOUT))
