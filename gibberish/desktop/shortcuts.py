"""Which global shortcuts gibberish asks for, and the hand-made ones where no portal exists.

With the GlobalShortcuts portal, every shortcut is bound in one request: the command bar,
listen-while-held (hold to talk: the portal reports the release), listen-toggle, and one
per tool the person pinned (``pinned_tools`` in the settings). Without the portal (GNOME up
to 47, Sway, i3, X11 desktops) the person binds a key to ``gibberish`` or
``gibberish listen`` by hand; ``manual_setup`` gives the exact steps for their desktop.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from msgspec import Struct

from gibberish import paths
from gibberish.fileio import atomic_write_bytes

COMMAND_BAR = "command-bar"
LISTEN_HOLD = "listen-hold"
LISTEN_TOGGLE = "listen-toggle"
TOOL_PREFIX = "tool:"


class Shortcut(Struct, frozen=True):
    """One shortcut: its id (what the portal reports), what it does, the keys suggested."""

    id: str
    description: str
    preferred_trigger: str = ""
    """In the XDG shortcuts syntax (``CTRL+ALT+space``); the desktop may choose others."""

    @property
    def tool(self) -> str | None:
        """``skill.tool`` for a pinned tool's shortcut, else None."""
        return self.id[len(TOOL_PREFIX) :] if self.id.startswith(TOOL_PREFIX) else None


def wanted(pinned_tools: Iterable[str] = ()) -> tuple[Shortcut, ...]:
    """Every shortcut gibberish binds, the pinned tools' last (in the order pinned)."""
    fixed = (
        Shortcut(COMMAND_BAR, "Open the gibberish command bar", "CTRL+ALT+space"),
        Shortcut(LISTEN_HOLD, "Hold to talk to gibberish (release to stop)", "CTRL+ALT+v"),
        Shortcut(LISTEN_TOGGLE, "Start or stop listening (gibberish)", ""),
    )
    seen: set[str] = set()
    tools = []
    for ref in pinned_tools:
        if ref in seen:
            continue
        seen.add(ref)
        tools.append(Shortcut(TOOL_PREFIX + ref, f"Run {ref} (gibberish)"))
    return fixed + tuple(tools)


def record_path() -> Path:
    return paths.state_dir() / "portal-shortcuts.json"


class BoundRecord(Struct, frozen=True):
    """What the portal confirmed last time: the ids bound and the keys the desktop chose
    (``gibberish doctor`` shows them without opening a session of its own)."""

    ids: tuple[str, ...]
    triggers: dict[str, str]

    @classmethod
    def load(cls, path: Path | None = None) -> BoundRecord | None:
        try:
            raw = json.loads((path or record_path()).read_text(encoding="utf-8"))
            ids = tuple(str(i) for i in raw["ids"])
            triggers = {str(k): str(v) for k, v in dict(raw.get("triggers", {})).items()}
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return cls(ids, triggers)

    def save(self, path: Path | None = None) -> None:
        data = {"ids": list(self.ids), "triggers": self.triggers}
        atomic_write_bytes(path or record_path(), json.dumps(data, indent=1).encode("utf-8"))


# ------------------------------------------------------------------ hand-made shortcuts
_MANUAL = {
    "gnome": (
        "GNOME (up to 47, or without the portal): Settings → Keyboard → View and Customise "
        "Shortcuts → Custom Shortcuts → Add Shortcut: name “gibberish listen”, command "
        "“{listen}”, a key such as Ctrl+Alt+V; a second one with command “{bar}” opens the "
        "command bar."
    ),
    "kde": (
        "KDE Plasma (without the portal): System Settings → Keyboard → Shortcuts → Add New → "
        "Command or Script, command “{listen}” (and “{bar}” for the command bar)."
    ),
    "sway": (
        "Sway / i3: add to ~/.config/sway/config (i3: ~/.config/i3/config), then reload:\n"
        "bindsym Ctrl+Alt+v exec {listen}\n"
        "bindsym Ctrl+Alt+space exec {bar}"
    ),
    "hyprland": (
        "Hyprland: add to ~/.config/hypr/hyprland.conf:\n"
        "bind = CTRL ALT, V, exec, {listen}\n"
        "bind = CTRL ALT, SPACE, exec, {bar}"
    ),
    "other": (
        "Bind a key in your desktop's keyboard settings to the command “{listen}” (push to "
        "talk) and one to “{bar}” (the command bar)."
    ),
}


def manual_setup(family: str, command: Sequence[str]) -> str:
    """The steps to bind gibberish's shortcuts by hand on ``family``'s desktop.

    A hand-made shortcut delivers only the press: ``gibberish listen`` ends at the end of
    speech (or at a second press with ``activation = "toggle"``), never at the release.
    """
    base = " ".join(command)
    text = _MANUAL.get("sway" if family == "i3" else family, _MANUAL["other"])
    return text.format(listen=f"{base} listen", bar=base)
