"""Modes (Global, Dev, Meeting, Writer): which skills are offered, chosen by hand or guessed.

docs/adr/0012-modes-and-context.md: a skill is offered when its ``modes`` contain Global or the current mode. The
current mode is the user's manual choice (kept in the integrator's config) or, when the
tray is on "Automatic", detected from the desktop:

1. **Meeting** — a meeting app is running *and* a microphone is in use (either alone is
   not a meeting: Slack runs all day, dictation uses the microphone);
2. **Dev** — the focused window belongs to a terminal or a code editor / IDE;
3. **Writer** — the focused window belongs to a notes or writing app;
4. **Global** — anything else, including "cannot tell" (no X11, no pactl).

Apps are recognised by executable name (``AppLists``), compared after normalising
(lower case; a NixOS ``.foo-wrapped`` or a ``.bin``/``.sh``/``.AppImage`` suffix removed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from msgspec import Struct
from msgspec.structs import fields

from gibberish.desktop.focus import (
    FocusInfo,
    FocusProvider,
    MicrophoneProbe,
    NoFocus,
    running_process_names,
)
from gibberish.logger import logger
from gibberish.skills.model import Mode, SkillDefinition

log = logger("gibberish.desktop.modes")

__all__ = [
    "AppLists",
    "FocusInfo",
    "ModeContext",
    "ModeDetector",
    "available",
    "normalize_app_name",
    "resolve_mode",
]


class ModeContext(Struct, frozen=True):
    """The current mode, whether it was guessed, the focused app, and why (for the tray)."""

    mode: Mode
    automatic: bool
    """True when detected (or defaulted), False when the user chose it."""
    focus: FocusInfo | None
    reason: str


def available(skill: SkillDefinition, mode: Mode) -> bool:
    """Is ``skill`` offered in ``mode``? (its modes contain Global or ``mode``)."""
    return Mode.GLOBAL in skill.modes or mode in skill.modes


_SUFFIXES = (".appimage", ".bin", ".sh", ".real", ".exe")


def normalize_app_name(name: str) -> str:
    """``Code`` -> ``code``, ``.kitty-wrapped`` -> ``kitty``, ``soffice.bin`` -> ``soffice``."""
    text = name.strip().lower()
    if text.startswith(".") and text.endswith("-wrapped"):
        text = text[1 : -len("-wrapped")]
    for suffix in _SUFFIXES:
        if text.endswith(suffix) and len(text) > len(suffix):
            text = text[: -len(suffix)]
            break
    return text


def _names(items: Iterable[str]) -> frozenset[str]:
    return frozenset(normalize_app_name(n) for n in items if n and n.strip())


# fmt: off
_TERMINALS = _names((
    "gnome-terminal-server", "gnome-terminal", "kgx", "ptyxis", "konsole", "alacritty",
    "kitty", "wezterm-gui", "wezterm", "foot", "footclient", "xterm", "uxterm", "urxvt",
    "rxvt", "tilix", "terminator", "xfce4-terminal", "lxterminal", "mate-terminal",
    "qterminal", "terminology", "st", "ghostty", "blackbox"
))
_IDES = _names((
    "code", "code-oss", "codium", "vscodium", "cursor", "zed", "zeditor", "pycharm",
    "pycharm-community", "idea", "clion", "goland", "webstorm", "rider", "phpstorm",
    "rubymine", "rustrover", "android-studio", "nvim-qt", "neovide", "gvim", "emacs",
    "sublime_text", "kate", "kdevelop", "qtcreator", "gnome-builder", "geany", "lapce"
))
_NOTES = _names((
    "obsidian", "joplin", "logseq", "notion-app", "zim", "cherrytree", "xournalpp", "typora",
    "marktext", "ghostwriter", "apostrophe", "focuswriter", "gedit", "gnome-text-editor",
    "mousepad", "soffice", "libreoffice", "lowriter", "abiword"
))
_MEETINGS = _names((
    "zoom", "teams", "teams-for-linux", "skypeforlinux", "webex", "jitsi-meet", "slack",
    "discord", "signal-desktop", "mattermost-desktop", "element-desktop"
))
# fmt: on


class AppLists(Struct, frozen=True):
    """Executable names per kind of app; the defaults cover common Linux desktops."""

    terminals: frozenset[str] = _TERMINALS
    ides: frozenset[str] = _IDES
    notes: frozenset[str] = _NOTES
    meetings: frozenset[str] = _MEETINGS

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, extend: bool = False) -> AppLists:
        """Lists from config: ``{"terminals": ["kitty", ...], ...}``.

        A key present replaces that list (or adds to the default with ``extend=True``); a
        key absent keeps the default. Unknown keys or values that are not lists of
        strings raise ``ValueError`` with a message for the user.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"Unknown app list {', '.join(map(repr, unknown))}; use {', '.join(sorted(known))}."
            )
        values: dict[str, frozenset[str]] = {}
        defaults = cls()
        for key, items in data.items():
            if isinstance(items, str) or not isinstance(items, Iterable):
                raise ValueError(f"The app list {key!r} must be a list of executable names.")
            items = list(items)
            if not all(isinstance(i, str) for i in items):
                raise ValueError(f"The app list {key!r} must contain only executable names.")
            names = _names(items)
            values[key] = (getattr(defaults, key) | names) if extend else names
        return cls(**values)

    def kind_of(self, app: str) -> str | None:
        """``"terminal"``, ``"ide"``, ``"notes"``, ``"meeting"`` or None."""
        name = normalize_app_name(app)
        for kind, names in (
            ("terminal", self.terminals),
            ("ide", self.ides),
            ("notes", self.notes),
            ("meeting", self.meetings),
        ):
            if name in names:
                return kind
        return None


_KIND_WORDS = {
    "terminal": "a terminal",
    "ide": "a code editor",
    "notes": "a notes or writing app",
}


class ModeDetector:
    """Guesses the mode from the focused app, running apps and the microphone.

    Every source is injectable (tests pass fakes) and every failure degrades to "unknown";
    ``detect`` never raises.
    """

    def __init__(
        self,
        *,
        apps: AppLists | None = None,
        focus: FocusProvider | None = None,
        microphone: MicrophoneProbe | None = None,
        process_names: Callable[[], set[str]] | None = None,
    ) -> None:
        self.apps = apps or AppLists()
        self._focus = focus if focus is not None else NoFocus()
        self._microphone = microphone if microphone is not None else MicrophoneProbe()
        self._process_names = process_names or running_process_names
        self.microphone_known: bool | None = None
        """The microphone's last answer (None: none yet, or it cannot tell)."""

    def focused(self) -> FocusInfo | None:
        """The focused app (also wanted in manual mode: runs start in its folder)."""
        try:
            return self._focus.focused()
        except Exception as exc:
            log.warning("focused-app detection failed: %s", exc, exc_info=True)
            return None

    def detect(self, *, ask_microphone: bool = True) -> ModeContext:
        """The mode now. ``ask_microphone=False`` takes the microphone's last answer
        instead of asking the sound server (a process the caller would wait on)."""
        focus = self.focused()
        mic = self._mic_in_use() if ask_microphone else self.microphone_known
        meeting_apps = self._running_meeting_apps() if mic else []
        if mic and meeting_apps:
            return ModeContext(
                Mode.MEETING,
                True,
                focus,
                f"{meeting_apps[0]} is running and a microphone is in use.",
            )
        app = focus.app if focus is not None else None
        kind = self.apps.kind_of(app) if app else None
        if kind in ("terminal", "ide"):
            return ModeContext(
                Mode.DEV, True, focus, f"The focused window is {app}, {_KIND_WORDS[kind]}."
            )
        if kind == "notes":
            return ModeContext(
                Mode.WRITER, True, focus, f"The focused window is {app}, {_KIND_WORDS[kind]}."
            )
        return ModeContext(Mode.GLOBAL, True, focus, self._global_reason(app, focus, mic))

    def microphone_moved(self) -> bool:
        """Ask the microphone now: True when its answer differs from the last one."""
        before = self.microphone_known
        return self._mic_in_use() != before

    def _mic_in_use(self) -> bool | None:
        try:
            answer = self._microphone.in_use()
        except Exception as exc:
            log.warning("microphone detection failed: %s", exc, exc_info=True)
            answer = None
        self.microphone_known = answer
        return answer

    def _running_meeting_apps(self) -> list[str]:
        try:
            running = self._process_names()
        except Exception as exc:
            log.warning("listing meeting apps failed: %s", exc, exc_info=True)
            return []
        return sorted({n for n in running if normalize_app_name(n) in self.apps.meetings})

    @staticmethod
    def _global_reason(app: str | None, focus: FocusInfo | None, mic: bool | None) -> str:
        if focus is None and mic is None:
            return (
                "Neither the focused window nor the microphone can be checked here, "
                "so the mode is Global."
            )
        if focus is None or app is None:
            return "The focused window could not be identified, so the mode is Global."
        return (
            f"The focused window is {app}, not a terminal, code editor or notes app, "
            "and no meeting is going on, so the mode is Global."
        )


def resolve_mode(
    manual: Mode | None, detector: ModeDetector | None, *, ask_microphone: bool = True
) -> ModeContext:
    """The mode to use: the user's choice when there is one, else the detector's guess."""
    if manual is not None:
        focus = detector.focused() if detector is not None else None
        return ModeContext(Mode(manual), False, focus, f"You chose {Mode(manual).value} mode.")
    if detector is None:
        return ModeContext(
            Mode.GLOBAL,
            True,
            None,
            "Automatic mode detection is not available, so the mode is Global.",
        )
    try:
        return detector.detect(ask_microphone=ask_microphone)
    except Exception as exc:
        log.warning("mode detection failed: %s", exc, exc_info=True)
        return ModeContext(Mode.GLOBAL, True, None, "Mode detection failed, so the mode is Global.")
