"""Plugins and marketplaces as install sources: which skills a staged folder offers.

A fetched folder (a folder, an archive or a git repository: :mod:`gibberish.install.
fetch` already made it a private copy) may be a plugin or a marketplace of plugins
rather than a plain folder of skills. Its manifests say where the skills are:

* ``.claude-plugin/marketplace.json`` — a marketplace: ``plugins`` entries, each with a
  ``name`` and a ``source`` folder inside the same repository (``metadata.pluginRoot``
  in front of a bare name). Every plugin is offered, or only those ``--plugin`` names.
  A plugin kept in another repository is named with the command that installs it.
* ``plugin.json`` (Agent Plugins 1.0), ``.claude-plugin/plugin.json``,
  ``.codex-plugin/plugin.json``, ``gemini-extension.json`` — one plugin: the skills in
  ``skills/<name>/`` and whatever folders the manifest's ``skills`` lists.

Every path from a manifest is untrusted: it must be relative, hold no ``..``, and stay
inside the plugin folder with links followed; anything else stops the install with the
manifest and the path named. The MCP servers a plugin declares (``mcp.json``,
``.mcp.json``, a manifest's ``mcpServers``) become the plan's servers: shown with their
full command, recorded, never started — writing them into an agent's configuration stays
sync's job, with the person's consent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from gibberish.install.dependencies import McpServer
from gibberish.install.discover import Found, InstallError, discover, found_at
from gibberish.skills.fields import SKILL_FILE_NAME

MARKETPLACE = ".claude-plugin/marketplace.json"
PLUGIN_MANIFESTS = (
    "plugin.json",
    ".claude-plugin/plugin.json",
    ".codex-plugin/plugin.json",
    "gemini-extension.json",
)
MCP_FILES = ("mcp.json", ".mcp.json")
ROOT_PLACEHOLDERS = ("${PLUGIN_ROOT}", "${CLAUDE_PLUGIN_ROOT}", "${extensionPath}")
MAX_MANIFEST_BYTES = 1 << 20


class Offered(Struct):
    """What a staged folder offers: its skills, and MCP servers with the skill they go with."""

    found: list[Found]
    servers: list[tuple[McpServer, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    plugins: list[str] = field(default_factory=list)


def is_plugin_folder(root: Path) -> bool:
    return any((root / rel).is_file() for rel in (MARKETPLACE, *PLUGIN_MANIFESTS))


def offered(root: Path, origin: str, plugins: Sequence[str] = ()) -> Offered:
    """The skills under ``root``: by its manifests when it is a plugin or a marketplace,
    else every SKILL.md found (:func:`gibberish.install.discover.discover`)."""
    base = _manifest_folder(root)
    if base is not None and (base / MARKETPLACE).is_file():
        return _marketplace(base, root, origin, plugins)
    if plugins:
        raise InstallError(
            f"{origin}: --plugin picks plugins of a marketplace, and this source holds no "
            f"{MARKETPLACE}."
        )
    if base is not None:
        return _unique(_plugin(base, root, origin), origin)
    return Offered(discover(root, origin))


def _manifest_folder(root: Path) -> Path | None:
    """Where the manifests are: ``root``, or its only folder (an archive of one folder,
    as a repository host packs one); None when neither is a plugin (or is a skill)."""
    candidates = [root]
    try:
        entries = [e for e in root.iterdir() if not e.name.startswith(".")]
    except OSError:
        entries = []
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        candidates.append(entries[0])
    for folder in candidates:
        if (folder / SKILL_FILE_NAME).is_file():
            return None
        if (folder / MARKETPLACE).is_file() or is_plugin_folder(folder):
            return folder
    return None


def _read_json(path: Path, shown: str) -> dict[str, Any]:
    try:
        if path.stat().st_size > MAX_MANIFEST_BYTES:
            raise InstallError(
                f"{shown}: larger than a manifest can be ({MAX_MANIFEST_BYTES:,} bytes)."
            )
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"{shown}: cannot be read ({exc}).") from None
    except json.JSONDecodeError as exc:
        raise InstallError(
            f"{shown}:{exc.lineno}: not valid JSON ({exc.msg}); the plugin's author must fix it."
        ) from None
    if not isinstance(data, dict):
        raise InstallError(f"{shown}: the top level must be a JSON object.")
    return data


def inside(base: Path, relative: Any, shown: str, what: str) -> Path:
    """``base/relative`` for a path written in a manifest, refused unless it stays inside."""
    if not isinstance(relative, str) or not relative.strip():
        raise InstallError(f"{shown}: {what} must be a relative path such as “./skills”.")
    text = relative.strip()
    parts = [p for p in text.replace("\\", "/").split("/") if p not in ("", ".")]
    if text.startswith(("/", "\\", "~")) or ".." in parts or "\x00" in text or ":" in text:
        raise InstallError(
            f"{shown}: {what} {relative!r} leaves the plugin folder; only paths inside it count."
        )
    target = base.joinpath(*parts)
    real_base = Path(os.path.realpath(base))
    if not Path(os.path.realpath(target)).is_relative_to(real_base):
        raise InstallError(f"{shown}: {what} {relative!r} leads outside the plugin through a link.")
    return target


def _marketplace(base: Path, root: Path, origin: str, wanted: Sequence[str]) -> Offered:
    shown = f"{origin}/{MARKETPLACE}"
    data = _read_json(base / MARKETPLACE, shown)
    entries = data.get("plugins")
    if not isinstance(entries, list) or not entries:
        raise InstallError(f"{shown}: lists no plugins (“plugins” must be a non-empty list).")
    metadata = data.get("metadata")
    plugin_root = metadata.get("pluginRoot", "") if isinstance(metadata, Mapping) else ""
    by_name: dict[str, Any] = {}
    for index, entry in enumerate(entries):
        name = entry.get("name") if isinstance(entry, Mapping) else None
        if not isinstance(name, str) or not name:
            raise InstallError(f"{shown}: plugins[{index}] has no name.")
        by_name.setdefault(name, entry)
    missing = [n for n in wanted if n not in by_name]
    if missing:
        raise InstallError(
            f"{shown}: no plugin named {', '.join(missing)} (it lists {', '.join(by_name)})."
        )
    chosen = list(wanted) or list(by_name)
    result = Offered([], plugins=chosen)
    for name in chosen:
        folder = _plugin_folder(base, by_name[name], plugin_root, shown, name, origin)
        listed = {MARKETPLACE: by_name[name]}  # an entry may list its skills itself
        one = _plugin(folder, root, f"{origin} (plugin {name})", listed)
        result.found += one.found
        result.servers += one.servers
        result.notes += one.notes
    return _unique(result, origin)


def _plugin_folder(
    base: Path, entry: Mapping[str, Any], plugin_root: Any, shown: str, name: str, origin: str
) -> Path:
    source = entry.get("source")
    if isinstance(source, Mapping):
        kind = source.get("source", "another place")
        repo = source.get("repo") or source.get("url") or ""
        hint = (
            f" install it from there: `gibberish install {_source_hint(kind, repo)}`"
            if repo
            else ""
        )
        raise InstallError(
            f"{shown}: plugin {name} is kept in {kind} {repo}, not in {origin};{hint} "
            "or pick the others with --plugin."
        )
    if isinstance(source, str) and not source.startswith((".", "/")) and plugin_root:
        prefix = inside(base, plugin_root, shown, "metadata.pluginRoot").relative_to(base)
        source = f"{prefix.as_posix()}/{source}"
    folder = inside(base, source, shown, f"the source of plugin {name}")
    if not folder.is_dir():
        raise InstallError(f"{shown}: plugin {name}'s folder {source!r} is not in {origin}.")
    return folder


def _source_hint(kind: Any, repo: Any) -> str:
    if kind == "github" and isinstance(repo, str):
        return f"github:{repo}"
    return str(repo)


def _plugin(
    folder: Path, root: Path, origin: str, entry: Mapping[str, Any] | None = None
) -> Offered:
    """One plugin's skills: ``skills/<name>/`` and the folders its manifests (and its
    marketplace ``entry``, whose paths are the plugin's own) list."""
    manifests = {
        rel: _read_json(folder / rel, f"{origin}/{rel}")
        for rel in PLUGIN_MANIFESTS
        if (folder / rel).is_file()
    }
    skill_lists = {**manifests, **(entry or {})}
    candidates: list[Path] = []
    default = folder / "skills"
    if default.is_dir() and not default.is_symlink():
        candidates += _skill_dirs(default)
    for rel, manifest in skill_lists.items():
        listed = manifest.get("skills")
        for path in [listed] if isinstance(listed, str) else listed or []:
            target = inside(folder, path, f"{origin}/{rel}", "a skills path")
            candidates += [target] if (target / SKILL_FILE_NAME).is_file() else _skill_dirs(target)
    seen: set[Path] = set()
    folders = [c for c in candidates if not (c in seen or seen.add(c))]  # type: ignore[func-returns-value]
    if not folders:
        raise InstallError(
            f"{origin}: the plugin holds no skills (no skills/<name>/{SKILL_FILE_NAME})."
        )
    found = [found_at(f, root, origin) for f in folders]
    servers, notes = _servers(folder, manifests, origin)
    first = found[0].name
    return Offered(found, [(s, first) for s in servers], notes)


def _skill_dirs(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return [
        child
        for child in sorted(folder.iterdir())
        if child.is_dir() and not child.is_symlink() and (child / SKILL_FILE_NAME).is_file()
    ]


def _servers(
    folder: Path, manifests: Mapping[str, dict[str, Any]], origin: str
) -> tuple[list[McpServer], list[str]]:
    tables: list[tuple[str, Any]] = []
    for rel in MCP_FILES:
        if (folder / rel).is_file():
            tables.append((rel, _read_json(folder / rel, f"{origin}/{rel}").get("mcpServers")))
    for rel, manifest in manifests.items():
        value = manifest.get("mcpServers")
        if isinstance(value, str):
            path = inside(folder, value, f"{origin}/{rel}", "mcpServers")
            if path.is_file():
                tables.append((value, _read_json(path, f"{origin}/{value}").get("mcpServers")))
        elif value is not None:
            tables.append((rel, value))
    servers: dict[str, McpServer] = {}
    notes: list[str] = []
    for rel, table in tables:
        for name, raw in (table or {}).items() if isinstance(table, Mapping) else ():
            server, note = _server(name, raw, f"{origin}/{rel}")
            if note:
                notes.append(note)
            elif server is not None and server.name not in servers:
                servers[server.name] = server
    return list(servers.values()), notes


def _server(name: Any, raw: Any, where: str) -> tuple[McpServer | None, str | None]:
    if not isinstance(raw, Mapping) or not isinstance(name, str):
        return None, f"{where}: MCP server {name!r} is not a table; left out"
    command, args, env = raw.get("command"), raw.get("args", []), raw.get("env", {})
    problem = _server_problem(raw, command, args, env)
    if problem or not isinstance(command, str):
        return None, f"{where}: MCP server {name}{problem}; left out"
    return McpServer(name, command, tuple(args), {str(k): v for k, v in env.items()}), None


def _server_problem(raw: Mapping[str, Any], command: Any, args: Any, env: Any) -> str | None:
    """Why a plugin's MCP server cannot be offered, as the end of a sentence; None when
    it can."""
    if raw.get("url") or raw.get("httpUrl"):
        return " is remote (add it to your agents)"
    if not isinstance(command, str) or not command.strip():
        return " has no command"
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return ": args must be a list of text"
    if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
        return ": env must map names to text"
    words: Iterable[str] = [command, *args, *env.values(), str(raw.get("cwd", ""))]
    if any(p in w for w in words for p in ROOT_PLACEHOLDERS):
        return (
            " runs files of the plugin itself, which gibberish does not keep (it installs "
            "the skills)"
        )
    return None


def _unique(result: Offered, origin: str) -> Offered:
    seen: dict[str, Found] = {}
    for item in result.found:
        if item.name in seen:
            raise InstallError(
                f"{origin}: two plugins hold a skill named “{item.name}” ({seen[item.name].path} "
                f"and {item.path}); install them one at a time with --plugin."
            )
        seen[item.name] = item
    return result
