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
import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import tomli_w

from gibberish import paths
from gibberish.fileio import atomic_write_bytes
from gibberish.skills.model import Mode

DEFAULT_GRACE_PERIOD = 5.0
DEFAULT_MODEL_ENDPOINT = "http://127.0.0.1:11434"
DEFAULT_MODEL_NAME = "functiongemma"
MODEL_APIS = ("ollama-generate", "ollama-chat", "openai")
MAX_SETTINGS_BYTES = 1024 * 1024


class _Unreadable(Exception):
    """The settings path holds something that must not be read; ``str()`` says what."""


@dataclass(frozen=True)
class ModelSettings:
    """Where the local function-calling model lives. ``enabled`` False means no model routing."""

    enabled: bool = False
    endpoint: str = DEFAULT_MODEL_ENDPOINT
    model: str = DEFAULT_MODEL_NAME
    api: str = "ollama-generate"
    timeout: float = 30.0
    budget: int = 2048
    stream: bool = True
    temperature: float = 0.0
    max_tokens: int = 256
    """The API key of an OpenAI-compatible server is not a setting: it lives in the keyring
    (``gibberish model-key set``), never in this file."""


VOICE_BACKENDS = ("pocketsphinx", "whisper")
VOICE_ACTIVATIONS = ("push_to_talk", "toggle")


@dataclass(frozen=True)
class VoiceSettings:
    """The ``[voice]`` table: how gibberish listens (docs: README, *Voice*)."""

    backend: str = "pocketsphinx"
    microphone: str = ""
    """A device name or index from ``gibberish voice devices``; empty is the default."""
    model_folder: str = ""
    """A CTranslate2 Whisper model folder, for the whisper backend (never downloaded)."""
    activation: str = "push_to_talk"
    """``push_to_talk``: one utterance per press; ``toggle``: a second press stops."""
    spoken_feedback: bool = False
    listen_in_meeting: bool = False
    second_opinion: bool = True
    """With PocketSphinx and a ``model_folder``: ask Whisper when the phrases do not fit."""


def _coerce_voice(raw: Any, notices: list[str], where: str) -> VoiceSettings:
    default = VoiceSettings()
    if not isinstance(raw, dict):
        notices.append(f"{where}: [voice] must be a table; using the defaults.")
        return default
    allowed = {"backend": VOICE_BACKENDS, "activation": VOICE_ACTIVATIONS}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        known = {f.name: f for f in fields(VoiceSettings)}.get(key)
        if known is None:
            notices.append(f"{where}: unknown setting voice.{key} ignored.")
            continue
        expected = bool if isinstance(getattr(default, key), bool) else str
        ok = isinstance(value, expected) and (key not in allowed or value in allowed[key])
        if ok:
            values[key] = value
        else:
            choices = " or ".join(allowed.get(key, ())) or expected.__name__
            notices.append(
                f"{where}: voice.{key} = {value!r} is not valid ({choices}); using the default."
            )
    return replace(default, **values)


@dataclass(frozen=True)
class Settings:
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
        data["sync"] = {"targets": list(data.pop("sync_targets"))}
        return data


@dataclass(frozen=True)
class LoadedSettings:
    settings: Settings
    notices: tuple[str, ...] = ()


def _check(value: Any, expected: type | tuple[type, ...]) -> bool:
    if expected in (float, (float,)):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(value, bool) and expected is not bool:
        return False
    return isinstance(value, expected)


def _coerce_model(raw: Any, notices: list[str], where: str) -> ModelSettings:
    default = ModelSettings()
    if not isinstance(raw, dict):
        notices.append(f"{where}: [model] must be a table; using the defaults.")
        return default
    values: dict[str, Any] = {}
    names = {f.name for f in fields(ModelSettings)}
    for key in raw:
        if key == "api_key":
            notices.append(
                f"{where}: model.api_key is not read from the settings file (any program can "
                "read it there); store the key in the keyring with `gibberish model-key set`."
            )
        elif key not in names:
            notices.append(f"{where}: unknown setting model.{key} ignored.")
    for f in fields(ModelSettings):
        if f.name not in raw:
            continue
        value = raw[f.name]
        expected = {
            "enabled": bool,
            "endpoint": str,
            "model": str,
            "api": str,
            "stream": bool,
        }.get(f.name, float)
        if f.name in ("budget", "max_tokens"):
            ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
        elif f.name == "temperature":
            ok = _check(value, float) and 0 <= value <= 2
        elif f.name == "api":
            ok = value in MODEL_APIS
        else:
            ok = _check(value, expected)
        if ok:
            values[f.name] = float(value) if f.name in ("timeout", "temperature") else value
        else:
            notices.append(f"{where}: model.{f.name} = {value!r} is not valid; using the default.")
    return replace(default, **values)


def is_tool_ref(value: Any) -> bool:
    """A ``skill.tool`` name: two non-empty parts of letters, digits, ``-`` and ``_``."""
    if not isinstance(value, str) or value.count(".") != 1 or len(value) > 200:
        return False
    return all(part and all(c.isalnum() or c in "-_" for c in part) for part in value.split("."))


def _from_dict(raw: dict[str, Any], where: str) -> LoadedSettings:
    notices: list[str] = []
    defaults = Settings()
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "extra_skills_dirs":
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                values[key] = tuple(value)
            else:
                notices.append(f"{where}: extra_skills_dirs must be a list of folders; ignored.")
        elif key == "pinned_tools":
            if isinstance(value, list) and all(is_tool_ref(v) for v in value):
                values[key] = tuple(value)
            else:
                notices.append(
                    f'{where}: pinned_tools must be a list of "skill.tool" names; ignored.'
                )
        elif key in ("auto_mode", "start_at_login"):
            if isinstance(value, bool):
                values[key] = value
            else:
                notices.append(f"{where}: {key} must be true or false; using the default.")
        elif key == "mode":
            if value in {m.value for m in Mode}:
                values[key] = value
            else:
                notices.append(
                    f"{where}: mode = {value!r} is not one of Global, Dev, Meeting, Writer; "
                    "using Global."
                )
        elif key == "grace_period":
            if _check(value, float) and 0 <= value <= 60:
                values[key] = float(value)
            else:
                notices.append(f"{where}: grace_period must be 0–60 seconds; using 5.")
        elif key == "model":
            values[key] = _coerce_model(value, notices, where)
        elif key == "voice":
            values[key] = _coerce_voice(value, notices, where)
        elif key == "apps":
            if isinstance(value, dict) and all(
                isinstance(v, list) and all(isinstance(i, str) for i in v) for v in value.values()
            ):
                values[key] = {k: tuple(v) for k, v in value.items()}
            else:
                notices.append(f"{where}: [apps] must map names to lists of programs; ignored.")
        elif key == "mcp_servers":
            if isinstance(value, dict) and all(isinstance(v, dict) for v in value.values()):
                values[key] = value
            else:
                notices.append(f"{where}: [mcp_servers] must map names to tables; ignored.")
        elif key == "sync":
            targets = value.get("targets") if isinstance(value, dict) else None
            if isinstance(targets, list) and all(isinstance(t, str) for t in targets):
                values["sync_targets"] = tuple(targets)
            else:
                notices.append(f"{where}: [sync] targets must be a list of agent names; ignored.")
        else:
            notices.append(f"{where}: unknown setting {key!r} ignored.")
    return LoadedSettings(replace(defaults, **values), tuple(notices))


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
