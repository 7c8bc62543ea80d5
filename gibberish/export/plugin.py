"""``gibberish plugin build``: skills as one plugin folder every agent's reader accepts.

The folder holds ``skills/<name>/`` (each skill copied byte for byte, gibberish's own
provenance file left out), the manifests of :mod:`gibberish.export.plugin_manifests`
and a ``README.md`` naming the skills. A tool skill goes as it is: to another agent it
is an Agent Skill whose tool sections are instructions.

The MCP servers the skills ask for follow sync's consent rule: one from a bundled skill
goes in; any other only when the person agreed after seeing its full command
(``consent``), and never one whose ``env`` would carry a secret to everyone who
installs the plugin. A server left out is reported with the reason.

The plugin is built in a hidden folder next to ``out`` and renamed into place, so a
failed build leaves nothing half written; an ``out`` that exists and is not empty is
replaced only with ``force`` (the CLI's ``--force``) or, with ``replace_own``, only when
every file in it is one gibberish wrote there and nobody changed since: each build keeps
the digest of every file it wrote in an ownership record (:mod:`gibberish.export.ownership`),
so the tray can offer to replace its own plugin and never someone else's folder
(docs/adr/0087-tray-plugin-export.md).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct, field
from msgspec.structs import asdict

from gibberish.export.mcp_config import Consent, McpServer, wanted_servers
from gibberish.export.ownership import OwnershipRecord, sha256_bytes
from gibberish.export.plugin_manifests import (
    ManifestError,
    PluginInfo,
    manifests,
    plugin_name,
    plugin_version,
    server_problem,
)
from gibberish.export.sync import UnreadableSkill, agentskills_problem, exportable, skill_files
from gibberish.fileio import atomic_write_bytes
from gibberish.pathsafety import PathComponent, UnsafeNameError
from gibberish.skills.model import SkillDefinition
from gibberish.trust.fingerprint import PROVENANCE_FILE
from gibberish.words import plural

SKILLS_DIR = "skills"
LEFT_OUT = frozenset({PROVENANCE_FILE})
"""gibberish's own record of where an installed skill came from: not part of the skill."""


RECORD_KIND = "plugin"
"""The ownership record's kind for a plugin folder (one record per folder)."""


class PluginBuildError(ValueError):
    """A plugin that cannot be built as asked; the message says what and what to do."""


class FolderInUse(PluginBuildError):
    """``out`` cannot take the plugin as it stands: ``why`` is ``"not-folder"``,
    ``"not-empty"`` (``ours``: every file in it is one gibberish wrote, unchanged, so it
    may be replaced once the person agrees; ``foreign``: some of the files that are not)."""

    def __init__(
        self, message: str, out: Path, why: str, *, ours: bool = False, foreign: Sequence[str] = ()
    ) -> None:
        super().__init__(message)
        self.out, self.why, self.ours, self.foreign = out, why, ours, list(foreign)


class BuiltPlugin(Struct):
    folder: Path
    info: PluginInfo
    skills: list[str] = field(default_factory=list)
    servers: list[str] = field(default_factory=list)
    refused_servers: list[str] = field(default_factory=list)
    """One sentence per server that cannot go into any plugin: its name and why."""
    unagreed: list[McpServer] = field(default_factory=list)
    """Servers left out because nobody agreed to them."""
    files: list[str] = field(default_factory=list)

    @property
    def skipped_servers(self) -> list[str]:
        """One sentence per server left out: its name and why (as the CLI says it)."""
        return self.refused_servers + [
            f"{s.name}: left out, nobody agreed that everyone who installs the "
            f"plugin may {s.describe()} (agree with --allow-mcp {s.name})"
            for s in self.unagreed
        ]


class Choice(Struct, frozen=True):
    """A skill as a plugin candidate: ``problem`` says why it cannot go in, else None."""

    skill: SkillDefinition
    problem: str | None


def choices(skills: Sequence[SkillDefinition]) -> list[Choice]:
    """Which of ``skills`` (the Engine's library) can go into a plugin, and why not the
    others: the one rule both the CLI's default and the tray's list follow."""
    out = []
    for skill in skills:
        problem = None if exportable(skill) else "it could not be read whole"
        out.append(Choice(skill, problem or agentskills_problem(skill)))
    return out


def servers_to_agree(skills: Sequence[SkillDefinition]) -> list[McpServer]:
    """The MCP servers ``skills`` ask for that go in only once the person agrees to each."""
    wanted, _problems = wanted_servers({}, skills)
    return [s for s in wanted.values() if not s.trusted and server_problem(s) is None]


def default_name(out: Path) -> str:
    """The folder's own name: Gemini CLI wants the extension named as its folder."""
    return out.resolve().name


def build_plugin(
    skills: Sequence[SkillDefinition],
    out: Path,
    info: PluginInfo,
    *,
    marketplace: bool = False,
    consent: Consent | None = None,
    force: bool = False,
    replace_own: bool = False,
) -> BuiltPlugin:
    """Write the plugin for ``skills`` into ``out``; PluginBuildError says why not.

    ``force`` replaces whatever a non-empty ``out`` holds; ``replace_own`` only a plugin
    gibberish wrote there, every file unchanged since (FolderInUse otherwise)."""
    try:
        info = PluginInfo(
            **{
                **asdict(info),
                "name": plugin_name(info.name),
                "version": plugin_version(info.version),
                "skills": tuple(s.name for s in skills),
            }
        )
    except ManifestError as exc:
        raise PluginBuildError(f"{exc}.") from None
    if not skills:
        raise PluginBuildError("no skills to put in the plugin: name at least one.")
    copies = {_checked_name(s): _files(s) for s in skills}
    servers, refused, unagreed = _servers(skills, consent)
    _check_apart(out, skills)
    _check_out(out, force, replace_own)
    built = BuiltPlugin(out, info, list(copies), [s.name for s in servers], refused, unagreed)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        for name, files in copies.items():
            for rel, (data, executable) in files.items():
                target = staging / SKILLS_DIR / name / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(target, data, mode=0o755 if executable else 0o644)
                built.files.append(f"{SKILLS_DIR}/{name}/{rel}")
        for rel, content in manifests(info, servers, marketplace=marketplace).items():
            _write_json(staging / rel, content)
            built.files.append(rel)
        (staging / "README.md").write_text(_readme(info, skills), encoding="utf-8")
        built.files.append("README.md")
        os.chmod(staging, 0o755)
        written = _digests(staging)
        _swap_into_place(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    record = OwnershipRecord(_record_key(out), RECORD_KIND, files=written)
    record.save()
    return built


def _checked_name(skill: SkillDefinition) -> str:
    try:
        return PathComponent(skill.name, "skill name")
    except UnsafeNameError as exc:
        raise PluginBuildError(f"{skill.source_path}: {exc}.") from None


def _files(skill: SkillDefinition) -> dict[str, tuple[bytes, bool]]:
    """The skill's files as another agent would read them; refused when that agent
    would reject the skill, or the folder cannot be read whole."""
    if not exportable(skill):
        first = skill.errors[0]
        raise PluginBuildError(f"{skill.name}: not exported ({first.format()}).")
    problem = agentskills_problem(skill)
    if problem:
        raise PluginBuildError(
            f"{skill.name}: other agents would reject it ({problem}); fix it, or leave it out."
        )
    try:
        found = skill_files(skill.directory)
    except UnreadableSkill as exc:
        raise PluginBuildError(f"{skill.name}: {exc}.") from None
    return {
        rel: (f.data, f.executable)
        for rel, f in found.items()
        if rel not in LEFT_OUT and ".git" not in rel.split("/")
    }


def _servers(
    skills: Sequence[SkillDefinition], consent: Consent | None
) -> tuple[list[McpServer], list[str], list[McpServer]]:
    wanted, problems = wanted_servers({}, skills)
    kept: list[McpServer] = []
    refused = list(problems)
    unagreed: list[McpServer] = []
    for server in wanted.values():
        problem = server_problem(server)
        if problem:
            refused.append(f"{server.name}: left out, {problem}")
        elif server.trusted or (consent is not None and consent(server)):
            kept.append(server)
        else:
            unagreed.append(server)
    return kept, refused, unagreed


def _check_out(out: Path, force: bool, replace_own: bool = False) -> None:
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise FolderInUse(
            f"{out}: exists and is not a folder; choose another --out.", out, "not-folder"
        )
    if not out.is_dir() or not any(out.iterdir()) or force:
        return
    foreign = not_written_by_gibberish(out)
    if replace_own and not foreign:
        return
    why = (
        "it holds files gibberish did not write (or that changed since), which are never "
        "replaced; choose an empty or new folder"
        if foreign
        else "choose an empty or new folder, or replace the plugin gibberish wrote there "
        "with --force"
    )
    raise FolderInUse(
        f"{out}: the folder is not empty; {why}.",
        out,
        "not-empty",
        ours=not foreign,
        foreign=foreign,
    )


def _record_key(out: Path) -> Path:
    return Path(os.path.realpath(out))


def _digests(folder: Path) -> dict[str, str]:
    """Every regular file under ``folder`` (relative path → SHA-256); links are not followed."""
    found: dict[str, str] = {}
    for root, dirs, files in os.walk(folder):
        for name in files:
            path = Path(root, name)
            if not path.is_symlink():
                found[path.relative_to(folder).as_posix()] = sha256_bytes(path.read_bytes())
        dirs.sort()
    return found


def not_written_by_gibberish(out: Path, limit: int = 5) -> list[str]:
    """Up to ``limit`` things in ``out`` that gibberish's last plugin build there did not
    write, or that changed since (relative paths); empty when all of it is gibberish's.

    A link, a special file, or an unreadable record counts against: nothing is replaced
    that cannot be proven ours."""
    record = OwnershipRecord.load(RECORD_KIND, _record_key(out))
    if record.problem or not record.files:
        return sorted(p.name for p in out.iterdir())[:limit] or [out.name]
    foreign: list[str] = []
    for root, dirs, files in os.walk(out):
        for name in sorted(dirs) + sorted(files):
            path = Path(root, name)
            rel = path.relative_to(out).as_posix()
            if path.is_symlink() or (name in files and not path.is_file()):
                foreign.append(rel)
            elif name in files:
                try:
                    same = record.files.get(rel) == sha256_bytes(path.read_bytes())
                except OSError:
                    same = False
                if not same:
                    foreign.append(rel)
        dirs[:] = sorted(d for d in dirs if not Path(root, d).is_symlink())
        if len(foreign) >= limit:
            break
    return foreign[:limit]


def _check_apart(out: Path, skills: Sequence[SkillDefinition]) -> None:
    """``out`` is replaced whole, so it may neither hold nor sit inside a skill it copies."""
    target = Path(os.path.realpath(out))
    for skill in skills:
        folder = Path(os.path.realpath(skill.directory))
        if target == folder or folder.is_relative_to(target) or target.is_relative_to(folder):
            raise PluginBuildError(
                f"{out}: holds or is inside the skill {skill.name} ({skill.directory}); "
                "build the plugin into a folder of its own."
            )


def _swap_into_place(staging: Path, out: Path) -> None:
    """``staging`` becomes ``out`` in one rename; what ``out`` held goes only after."""
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}-old-", dir=out.parent))
        os.rename(out, old / "previous")
    try:
        os.rename(staging, out)
    except BaseException:
        if old is not None:
            os.rename(old / "previous", out)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def _write_json(path: Path, content: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(content, indent=2, ensure_ascii=False) + "\n"
    atomic_write_bytes(path, text.encode("utf-8"), mode=0o644)


def _readme(info: PluginInfo, skills: Sequence[SkillDefinition]) -> str:
    lines = [f"# {info.name}", ""]
    lines.append(
        info.description
        or f"Agent skills packaged as one plugin: {plural(len(skills), 'skill')} for coding agents."
    )
    lines += [
        "",
        "This folder is a plugin for coding agents. Claude Code reads .claude-plugin, Gemini "
        "CLI reads gemini-extension.json, and agents that follow Agent Plugins read plugin.json. "
        "Every agent finds the same skills in the skills folder:",
        "",
    ]
    lines += [f"- **{s.name}**: {' '.join(s.description.split())}" for s in skills]
    lines.append("")
    return "\n".join(lines)
