"""Merge the MCP servers skills need into other agents' configuration files.

Servers come from two places: ``[mcp_servers]`` in gibberish's settings, and a skill's
``dependencies: {mcp: …}`` frontmatter (read from the skill's ``extra`` mapping, either
a mapping of name → server or a list of servers with a ``name``). A server is a local
program (``command``, ``args``, ``env``) or a remote endpoint (``url``).

Only entries gibberish added are ever changed or removed, and only while they still
hold what gibberish wrote (the ownership record keeps a digest of each entry). Every
other key of the file stays as it was: TOML goes through tomlkit, which keeps comments
and layout; JSON is re-written with the file's own indentation and key order (JSON has
no comments to keep; a file that does not parse as JSON — VS Code allows comments — is
reported and left untouched). The first change to a file copies it to
``<file>.gibberish-backup`` beforehand.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
from msgspec import Struct, field

from gibberish.export.agents import McpFile
from gibberish.export.ownership import OwnershipRecord, sha256_value
from gibberish.export.sync import Action
from gibberish.fileio import atomic_write_bytes
from gibberish.skills.model import SkillDefinition, Trust

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _visible(text: str) -> str:
    """Control and invisible characters spelled out (``\\x1b``), so a terminal shows
    every character of the command instead of obeying it."""
    return "".join(
        ch if ch.isprintable() and ch not in "\u200b\u200e\u200f" else ascii(ch)[1:-1]
        for ch in text
    )


class McpServer(Struct, frozen=True):
    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    url: str | None = None
    origin: str = ""
    trusted: bool = False
    """From a bundled skill or the person's own settings: written without asking. Any
    other server is written only after the person saw :meth:`describe` and agreed."""

    def describe(self) -> str:
        """The full command (or URL) an agent would start, as the person must see it."""
        if self.url:
            return f"connect to {_visible(self.url)}"
        words = " ".join(_visible(shlex.quote(w)) for w in (self.command or "", *self.args))
        env = " ".join(f"{_visible(k)}={_visible(shlex.quote(v))}" for k, v in self.env)
        return f"run {words}" + (f" with {env}" if env else "")

    def entry(self, spec: McpFile) -> dict[str, Any]:
        """The server as ``spec``'s file format spells it."""
        if self.url:
            out: dict[str, Any] = {"type": "http"} if spec.typed else {}
            out[spec.url_key] = self.url
            return out
        out = {"type": "stdio"} if spec.typed else {}
        out["command"] = self.command
        if self.args:
            out["args"] = list(self.args)
        if self.env:
            out["env"] = dict(self.env)
        return out


class McpStep(Struct, frozen=True):
    action: Action
    file: Path
    name: str
    reason: str = ""


class McpPlan(Struct):
    file: Path
    spec: McpFile
    targets: tuple[str, ...]
    steps: list[McpStep] = field(default_factory=list)
    problem: str | None = None
    servers: dict[str, McpServer] = field(default_factory=dict)

    @property
    def changes(self) -> list[McpStep]:
        return [s for s in self.steps if s.action.writes]


def _server(
    name: str, raw: Any, origin: str, trusted: bool = False
) -> tuple[McpServer | None, str | None]:
    where = f"{origin}: MCP server {name!r}"
    if not isinstance(name, str) or not _NAME.match(name):
        return None, f"{origin}: MCP server name {name!r} must be letters, digits, . _ -"
    if not isinstance(raw, Mapping):
        return None, f"{where} must be a table with command or url"
    url, command = raw.get("url"), raw.get("command")
    args, env = raw.get("args", []), raw.get("env", {})
    if url is not None:
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            return None, f"{where}: url must start with https:// or http://"
        return McpServer(name, url=url, origin=origin, trusted=trusted), None
    if not isinstance(command, str) or not command.strip():
        return None, f"{where} needs a command (a program) or a url"
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return None, f"{where}: args must be a list of strings"
    if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
        return None, f"{where}: env must map names to strings"
    pairs = tuple(sorted((str(k), v) for k, v in env.items()))
    return McpServer(name, command, tuple(args), pairs, origin=origin, trusted=trusted), None


def _entries(raw: Any) -> list[tuple[Any, Any]]:
    if isinstance(raw, Mapping):
        return list(raw.items())
    if isinstance(raw, list):
        return [(item.get("name") if isinstance(item, Mapping) else None, item) for item in raw]
    return [(None, raw)]


def wanted_servers(
    settings_servers: Mapping[str, Any], skills: Sequence[SkillDefinition]
) -> tuple[dict[str, McpServer], list[str]]:
    """Every server to sync, and one message per entry that was not usable."""
    servers: dict[str, McpServer] = {}
    problems: list[str] = []
    sources: list[tuple[str, Any, bool]] = [("settings [mcp_servers]", settings_servers, True)]
    for skill in skills:
        deps = skill.extra.get("dependencies")
        if isinstance(deps, Mapping) and deps.get("mcp") is not None:
            bundled = skill.trust is Trust.BUNDLED
            sources.append((f"{skill.source_path} dependencies.mcp", deps["mcp"], bundled))
        plugin = _plugin_servers(skill)
        if plugin is not None:
            sources.append(plugin)
    for origin, raw, trusted in sources:
        for name, entry in _entries(raw):
            server, problem = _server(name, entry, origin, trusted)
            if problem:
                problems.append(problem)
            elif server is not None and server.name not in servers:
                servers[server.name] = server
    return servers, problems


def _plugin_servers(skill: SkillDefinition) -> tuple[str, Any, bool] | None:
    """The MCP servers of the plugin an installed skill came in, kept in its provenance
    record (gibberish/install/plugin_source.py): never trusted, so always asked about."""
    from gibberish.install.record import read_record

    record = read_record(skill.directory) if skill.trust is not Trust.BUNDLED else None
    servers = record.get("mcp") if record else None
    if record is None or not isinstance(servers, Mapping) or not servers:
        return None
    return (f"the plugin {skill.name} came in ({record.get('source', '')})", servers, False)


def _indent_of(text: str) -> str | int:
    match = re.search(r"^[{\[][^\n]*\n([ \t]+)\S", text, re.MULTILINE)
    if match is None:
        return 2
    found = match.group(1)
    return found if "\t" in found else len(found)


class _ConfigFile:
    """A JSON or TOML configuration, read once and written back with its own style."""

    def __init__(self, path: Path, spec: McpFile) -> None:
        self.path, self.spec = path, spec
        self.exists = path.exists()
        self.text = path.read_text(encoding="utf-8") if self.exists else ""
        if spec.fmt == "toml":
            self.doc: Any = tomlkit.parse(self.text)
        else:
            self.doc = json.loads(self.text) if self.text.strip() else {}
            if not isinstance(self.doc, dict):
                raise ValueError("the top level is not an object")

    def table(self, create: bool) -> Any:
        table = self.doc.get(self.spec.key)
        if table is None and create:
            table = tomlkit.table() if self.spec.fmt == "toml" else {}
            self.doc[self.spec.key] = table
        if table is not None and not isinstance(table, dict):
            raise ValueError(f"{self.spec.key!r} is not a table of servers")
        return table

    @staticmethod
    def plain(value: Any) -> Any:
        return value.unwrap() if hasattr(value, "unwrap") else value

    def set(self, name: str, entry: dict[str, Any]) -> None:
        table = self.table(create=True)
        if self.spec.fmt == "toml":
            item = tomlkit.table()
            for key, value in entry.items():
                item[key] = tomlkit.inline_table() if isinstance(value, dict) else value
                if isinstance(value, dict):
                    item[key].update(value)
            table[name] = item
        else:
            table[name] = entry

    def dumps(self) -> str:
        if self.spec.fmt == "toml":
            return tomlkit.dumps(self.doc)
        text = json.dumps(self.doc, indent=_indent_of(self.text), ensure_ascii=False)
        return text + ("\n" if not self.text or self.text.endswith("\n") else "")


def _read(path: Path, spec: McpFile) -> tuple[_ConfigFile | None, str | None]:
    try:
        config = _ConfigFile(path, spec)
        config.table(create=False)
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{path}: cannot be read ({exc}); left untouched"
    except json.JSONDecodeError as exc:
        where = f"{path}:{exc.lineno}"
        return None, f"{where}: not plain JSON ({exc.msg}); left untouched — fix it or add by hand"
    except (tomlkit.exceptions.ParseError, ValueError) as exc:
        return None, f"{path}: {exc}; left untouched — fix the file and sync again"
    return config, None


Consent = Callable[[McpServer], bool]
"""Whether the person agreed to a server (they were shown :meth:`McpServer.describe`)."""


def _gated(step: McpStep, server: McpServer, consent: Consent | None) -> McpStep:
    """A write of a server that is not the person's own or bundled goes ahead only with
    their agreement; otherwise it becomes a ``skip-unapproved`` step that says how."""
    writes = step.action in (Action.CREATE, Action.UPDATE) and step.reason != "already identical"
    if not writes or server.trusted or (consent is not None and consent(server)):
        return step
    reason = (
        f"not written: {server.origin} wants the agent to {server.describe()}; "
        f"read it, then agree (`gibberish sync --allow-mcp {server.name}`)"
    )
    return McpStep(Action.SKIP_UNAPPROVED, step.file, step.name, reason)


def plan_mcp(
    path: Path,
    spec: McpFile,
    targets: Sequence[str],
    servers: Mapping[str, McpServer],
    consent: Consent | None = None,
) -> McpPlan:
    """What merging ``servers`` into ``path`` would do. Reads only.

    Every new or changed entry names its full command; one from anything but a bundled
    skill or the person's settings is skipped unless ``consent`` says yes.
    """
    plan = McpPlan(path, spec, tuple(targets), servers=dict(servers))
    record = OwnershipRecord.load("mcp", path)
    config, problem = _read(path, spec)
    if config is None:
        plan.problem = problem
        return plan
    table = config.table(create=False) or {}
    for name, server in servers.items():
        wanted = server.entry(spec)
        current = config.plain(table[name]) if name in table else None
        owned = record.files.get(name)
        if current is None:
            step = McpStep(Action.CREATE, path, name, server.describe())
            plan.steps.append(_gated(step, server, consent))
        elif current == wanted:
            if owned != sha256_value(wanted):
                plan.steps.append(McpStep(Action.UPDATE, path, name, "already identical"))
        elif owned is not None and sha256_value(current) == owned:
            step = McpStep(Action.UPDATE, path, name, server.describe())
            plan.steps.append(_gated(step, server, consent))
        elif owned is not None:
            plan.steps.append(McpStep(Action.SKIP_EDITED, path, name, "edited by hand"))
        else:
            plan.steps.append(McpStep(Action.SKIP_FOREIGN, path, name, "not added by gibberish"))
    for name, owned in sorted(record.files.items()):
        if name in servers or name not in table:
            continue
        if sha256_value(config.plain(table[name])) == owned:
            plan.steps.append(McpStep(Action.REMOVE, path, name, "no longer needed"))
        else:
            plan.steps.append(McpStep(Action.SKIP_EDITED, path, name, "edited; kept"))
    return plan


def _backup(path: Path) -> str:
    target = path.with_name(path.name + ".gibberish-backup")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.gibberish-backup.{n}")
    shutil.copy2(path, target)
    return str(target)


def apply_mcp(plan: McpPlan) -> list[str]:
    """Write the planned entries; back the file up before gibberish first changes it.
    An entry someone changed since the plan is left alone and reported."""
    record = OwnershipRecord.load("mcp", plan.file)
    config, problem = _read(plan.file, plan.spec)
    if config is None:
        raise OSError(problem)
    table = config.table(create=True)
    problems: list[str] = []
    rewrite = False
    for step in plan.changes:
        current = config.plain(table[step.name]) if step.name in table else None
        wanted = None if step.action is Action.REMOVE else plan.servers[step.name].entry(plan.spec)
        ours = current is None or current == wanted
        if not ours and sha256_value(current) != record.files.get(step.name):
            problems.append(f"{plan.file}: {step.name} changed while syncing; left alone")
            continue
        if wanted is None:
            if current is not None:
                del table[step.name]
                rewrite = True
            record.files.pop(step.name, None)
            continue
        if current != wanted:
            config.set(step.name, wanted)
            rewrite = True
        record.files[step.name] = sha256_value(wanted)
    if rewrite:
        if config.exists and record.backup is None:
            record.backup = _backup(plan.file)
        mode = plan.file.stat().st_mode & 0o777 if config.exists else 0o644
        atomic_write_bytes(plan.file, config.dumps().encode("utf-8"), mode=mode)
    record.save()
    return problems


def plan_mcp_removal(
    path: Path, spec: McpFile, targets: Sequence[str], names: Collection[str]
) -> McpPlan:
    """Taking the servers ``names`` out of ``path`` (after an uninstall). Reads only.

    Only an entry gibberish's record says it wrote, and unchanged since, is removed; an
    edited entry, or one gibberish never wrote, is kept and reported.
    """
    plan = McpPlan(path, spec, tuple(targets))
    record = OwnershipRecord.load("mcp", path)
    if not path.exists():
        return plan
    config, problem = _read(path, spec)
    if config is None:
        plan.problem = problem
        return plan
    table = config.table(create=False) or {}
    for name in sorted(n for n in names if n in table):
        owned = record.files.get(name)
        if owned is None:
            step = McpStep(Action.SKIP_FOREIGN, path, name, "not added by gibberish; kept")
        elif sha256_value(config.plain(table[name])) == owned:
            step = McpStep(Action.REMOVE, path, name, "its skill was uninstalled")
        else:
            step = McpStep(Action.SKIP_EDITED, path, name, "edited since gibberish wrote it; kept")
        plan.steps.append(step)
    return plan
