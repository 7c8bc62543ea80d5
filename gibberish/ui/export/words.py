"""What the export window says about the folder and the name, in words.

Pure functions (no widgets), so the rules read in one place: the default folder, a plugin
name suggested from a folder's name, and the builder's own name rule as a sentence.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_FOLDER = "gibberish-plugin"
READERS = (
    "Claude Code, Gemini CLI, and the agents that read Agent Plugins "
    "(GitHub Copilot CLI, VS Code, Codex, Cursor)"
)


def default_folder() -> Path:
    """``~/gibberish-plugin``: a new folder in the home folder, named as the plugin."""
    return Path.home() / DEFAULT_FOLDER


def name_problem(name: str) -> str | None:
    """Why the builder would refuse ``name`` as a plugin name, as a sentence; or None."""
    from gibberish.export.plugin_manifests import ManifestError, plugin_name

    try:
        plugin_name(name)
    except ManifestError as exc:
        text = str(exc)
        return text[0].upper() + text[1:] + "."
    return None


def suggested_name(folder: Path) -> str:
    """The folder's name made into a plugin name (``My Kit`` → ``my-kit``)."""
    words = "".join(ch if ch.isalnum() and ch.isascii() else " " for ch in folder.name.lower())
    return "-".join(words.split())[:64].strip("-") or DEFAULT_FOLDER


def folder_words(typed: str, folder: Path) -> str:
    """What the folder field means, in words (the default one as a new folder at home)."""
    if not typed:
        return "Choose the folder to write the plugin into."
    where = (
        f"the folder {folder.name} in your home folder"
        if folder == default_folder()
        else str(folder)
    )
    return (
        f"The plugin is written to {where}. It must be new or empty, or a plugin gibberish "
        "exported there before (you are asked before it is replaced)."
    )
