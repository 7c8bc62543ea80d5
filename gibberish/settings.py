"""Settings shared by the tray and the CLI, kept in ``config.toml`` in the config folder.

A settings file a person edited by hand can be wrong. Loading never fails: a file that
is not valid TOML — or nested too deeply for the parser, which would otherwise fail
every command with a ``RecursionError`` — is moved aside
(``config.toml.broken-<timestamp>``) and defaults are used, with a notice saying so; a
single bad value falls back to its default with a notice naming the key. Something at
that path that is not a regular file (a FIFO would hang every command on open, a device
would never end) is never read: defaults are used and the notice says what to remove. A
file over :data:`MAX_SETTINGS_BYTES` is not read either. Writing is atomic (temp file + ``os.replace``), so a crash
mid-save never leaves half a file behind.
"""

from __future__ import annotations

import os
import stat
import time
from enum import StrEnum
from pathlib import Path
from typing import Any

import tomli_w
from msgspec import Struct, field
from msgspec.structs import asdict, replace

from gibberish import paths
from gibberish.assistant.settings import (
    DEFAULT_ENDPOINT,
    DEFAULT_MODEL,
    MODEL_APIS,
    MODEL_TABLE,
    ModelSettings,
)
from gibberish.fileio import atomic_write_bytes
from gibberish.schema import Invalid, Table, boolean, custom, number, section, text_list
from gibberish.skills.model import Mode
from gibberish.voice.settings import VOICE_BACKENDS, VOICE_TABLE, Activation, VoiceSettings

DEFAULT_GRACE_PERIOD = 5.0
DEFAULT_MODEL_ENDPOINT = DEFAULT_ENDPOINT
DEFAULT_MODEL_NAME = DEFAULT_MODEL
VOICE_ACTIVATIONS = tuple(a.value for a in Activation)
MAX_SETTINGS_BYTES = 1024 * 1024
APP_LISTS = ("terminals", "ides", "notes", "meetings")
"""The lists of ``[apps]`` (``desktop.modes.AppLists``' fields; a test keeps them equal)."""

__all__ = [
    "MODEL_APIS",
    "VOICE_BACKENDS",
    "LoadedSettings",
    "ModelSettings",
    "Settings",
    "VoiceSettings",
    "load_settings",
    "save_settings",
]


class _Unreadable(Exception):
    """The settings path holds something that must not be read; ``str()`` says what."""


class Settings(Struct, frozen=True):
    extra_skills_dirs: tuple[str, ...] = ()
    auto_mode: bool = True
    mode: str = Mode.GLOBAL.value
    """The manual mode, used when ``auto_mode`` is off."""
    grace_period: float = DEFAULT_GRACE_PERIOD
    start_at_login: bool = False
    model: ModelSettings = field(default_factory=ModelSettings)
    apps: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Overrides of the app lists used by mode detection: terminals, ides, notes, meetings."""
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    """MCP servers ``gibberish sync`` adds to each agent's configuration (name → command,
    args, env or url)."""
    voice: VoiceSettings = field(default_factory=VoiceSettings)
    sync_targets: tuple[str, ...] = ()
    """``[sync] targets``: the agents ``gibberish sync`` writes to when none are named
    (empty: the agents detected as installed)."""
    pinned_tools: tuple[str, ...] = ()
    """``skill.tool`` names that get a global shortcut each (through the desktop portal)."""

    @property
    def manual_mode(self) -> Mode:
        return Mode(self.mode)

    @property
    def extra_skill_paths(self) -> tuple[Path, ...]:
        return tuple(Path(p).expanduser() for p in self.extra_skills_dirs)

    def to_toml_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["extra_skills_dirs"] = list(self.extra_skills_dirs)
        data["pinned_tools"] = list(self.pinned_tools)
        data["apps"] = {k: list(v) for k, v in self.apps.items()}
        data["model"] = self.model.to_dict()
        data["voice"] = {
            k: str(v) if isinstance(v, StrEnum) else v for k, v in asdict(self.voice).items()
        }
        data["sync"] = {"targets": list(data.pop("sync_targets"))}
        return data


class LoadedSettings(Struct, frozen=True):
    settings: Settings
    notices: tuple[str, ...] = ()


def _mcp_servers(value: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise Invalid
    return value


def is_tool_ref(value: Any) -> bool:
    """A ``skill.tool`` name: two non-empty parts of letters, digits, ``-`` and ``_``."""
    if not isinstance(value, str) or value.count(".") != 1 or len(value) > 200:
        return False
    return all(part and all(c.isalnum() or c in "-_" for c in part) for part in value.split("."))


def _pinned_tools(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(is_tool_ref(v) for v in value):
        raise Invalid
    return tuple(value)


def _mode(value: Any) -> str:
    if not isinstance(value, str):  # ``mode = ["Dev"]`` must not reach Mode() unhashable
        raise Invalid
    return Mode(value).value


SYNC_TABLE = Table("sync", (text_list("targets", "a list of agent names in quotes"),))


def _sync_targets(targets: tuple[str, ...] = ()) -> tuple[str, ...]:
    return targets


APPS_TABLE = Table(
    "apps", tuple(text_list(name, "a list of program names in quotes") for name in APP_LISTS)
)

SETTINGS_TABLE = Table(
    "",
    (
        text_list("extra_skills_dirs", "a list of folders in quotes"),
        boolean("auto_mode"),
        custom("mode", "one of " + ", ".join(repr(m.value) for m in Mode), _mode),
        number("grace_period", 0, 60, "seconds"),
        boolean("start_at_login"),
        custom("pinned_tools", 'a list of "skill.tool" names in quotes', _pinned_tools),
        section(MODEL_TABLE, ModelSettings),
        section(APPS_TABLE, dict),
        custom("mcp_servers", "tables named [mcp_servers.NAME]", _mcp_servers),
        section(VOICE_TABLE, VoiceSettings),
        section(SYNC_TABLE, _sync_targets),
    ),
)
"""Every key of config.toml: the top-level ones, then each feature's own table."""


def _from_dict(raw: dict[str, Any], where: str) -> LoadedSettings:
    notices: list[str] = []
    values = SETTINGS_TABLE.read(raw, where, notices)
    if "sync" in values:  # ``[sync] targets`` is kept as ``sync_targets``
        values["sync_targets"] = values.pop("sync")
    return LoadedSettings(replace(Settings(), **values), tuple(notices))


def _read_text(path: Path) -> str:
    """The file's text; ``_Unreadable`` for anything but a regular file of sane size.

    Opened non-blocking, so a FIFO returns at once instead of waiting for a writer.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise _Unreadable(
            f"Settings file {path} is not a regular file ({_kind(info.st_mode)}); using "
            "defaults. Remove it: the next change of settings writes a new file there."
        )
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_SETTINGS_BYTES + 1)
    if len(data) > MAX_SETTINGS_BYTES:
        raise _Unreadable(
            f"Settings file {path} is larger than {MAX_SETTINGS_BYTES // 1024} KiB, too big "
            "for a settings file; using defaults. Remove it or shorten it."
        )
    return data.decode("utf-8")


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def load_settings(path: Path | None = None) -> LoadedSettings:
    """Read the settings file; never raises for content a person could have written."""
    path = path or paths.config_file()
    try:
        text = _read_text(path)
    except FileNotFoundError:
        return LoadedSettings(Settings())
    except _Unreadable as exc:
        return LoadedSettings(Settings(), (str(exc),))
    except (OSError, UnicodeDecodeError) as exc:
        kept = _keep_aside(path)
        return LoadedSettings(
            Settings(),
            (f"Could not read settings file {path} ({exc}); using defaults.{kept}",),
        )
    import tomllib  # no settings file (the common case) reads no TOML

    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        kept = _keep_aside(path)
        return LoadedSettings(
            Settings(),
            (f"Settings file {path} is not valid TOML ({exc}); using defaults.{kept}",),
        )
    except RecursionError:
        kept = _keep_aside(path)
        return LoadedSettings(
            Settings(),
            (
                f"Settings file {path} nests arrays or tables too deeply to read; "
                f"using defaults.{kept}",
            ),
        )
    return _from_dict(raw, str(path))


def _keep_aside(path: Path) -> str:
    """Move a broken settings file out of the way so the next save does not destroy it."""
    target = path.with_name(f"{path.name}.broken-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        os.replace(path, target)
    except OSError:
        return ""
    return f" The broken file was kept as {target}."


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write atomically, so a crash mid-save never leaves half a settings file."""
    path = path or paths.config_file()
    atomic_write_bytes(path, tomli_w.dumps(settings.to_toml_dict()).encode("utf-8"), mode=0o644)
    return path
