"""What the compile page does, without HTTP: a source → a skill → files to download.

A source is an uploaded archive, a remote URL (an archive or a git repository) or an
installed skill. Archives and URLs go through :func:`gibberish.install.fetch.fetch`, so
uploads get the same path, link, size and entry rules as ``gibberish install``; local
paths and ``file://`` are refused here because the page must only ever read what the
person sent or the skills gibberish already has.

Two targets: ``gemini-toml`` (one self-contained Gemini CLI command) and
``agent-skills`` (the skill folder, checked against the Agent Skills rules, laid out for
one agent's skills folder). Both give a list of ``OutputFile`` and a README, which the
page previews and the API zips.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from msgspec import Struct

from gibberish.export import agents
from gibberish.export.compile import CompileError, command_name, compile_skill, readme
from gibberish.export.stub import StubTargetError, build_stub
from gibberish.export.sync import agentskills_problem, skill_files
from gibberish.install.fetch import (
    FetchError,
    Limits,
    Source,
    SourceError,
    fetch,
    parse_source,
)
from gibberish.pathsafety import PathComponent, UnsafeNameError
from gibberish.skills.disclosure import DisclosureError, refuse_unloaded
from gibberish.skills.model import SkillDefinition, Trust
from gibberish.skills.parser import parse_skill_file

TARGETS = ("gemini-toml", "agent-skills", "skillc-stub")
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
_FRONT_NAME = re.compile(
    r"^---\s*\n(?:.*\n)*?name:\s*['\"]?([a-z0-9][a-z0-9-]{0,63})['\"]?\s*$", re.M
)
_REMOTE_SCHEMES = ("https://", "http://", "ssh://", "git://")


_SERVER_PATH = re.compile(r"(?<![\w:/.~-])/(?:[^\s/'\"“”()<>]+/)+")


def without_paths(text: str) -> str:
    """``text`` with the folders of every absolute path dropped (``/tmp/x/upload.zip``
    → ``upload.zip``): the page never tells a visitor where things live on the server."""
    return _SERVER_PATH.sub("", text)


class ServiceError(Exception):
    """A request the page cannot serve: ``message`` says what, ``hint`` what to do."""

    def __init__(self, message: str, hint: str = "", status: int = 400) -> None:
        super().__init__(message)
        self.message, self.hint, self.status = message, hint, status


class OutputFile(Struct, frozen=True):
    path: str
    data: bytes
    executable: bool = False

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


class Result(Struct, frozen=True):
    name: str
    target: str
    files: tuple[OutputFile, ...]
    notes: tuple[str, ...] = ()

    @property
    def zip_name(self) -> str:
        suffix = {"gemini-toml": "gemini-command", "skillc-stub": "stub"}.get(self.target, "skill")
        return f"{self.name}-{suffix}.zip"

    def zip_bytes(self) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for f in self.files:
                info = zipfile.ZipInfo(f.path, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = (0o755 if f.executable else 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, f.data)
        return buffer.getvalue()


def _skill_files_in(root: Path) -> list[Path]:
    found = []
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        found += [Path(current) / f for f in files if f.lower() == "skill.md"]
    return sorted(found, key=lambda p: (len(p.parts), str(p)))


def _load(path: Path, workdir: Path) -> SkillDefinition:
    """Parse a fetched SKILL.md; a folder named unlike the skill (``repo-main/``) is
    looked at through a link carrying the skill's own name."""
    match = _FRONT_NAME.search(path.read_text(encoding="utf-8", errors="replace")[:4096])
    if match and match.group(1) != path.parent.name:
        alias = workdir / "named" / match.group(1)
        alias.parent.mkdir(exist_ok=True)
        alias.symlink_to(path.parent, target_is_directory=True)
        path = alias / path.name
    return parse_skill_file(path, trust=Trust.UNTRUSTED)


def _pick(candidates: list[Path], root: Path, wanted: str) -> Path:
    if not candidates:
        raise ServiceError(
            "No SKILL.md found in what you sent.",
            "Upload a .zip of one skill folder (with SKILL.md inside) or a repository holding one.",
        )
    if wanted:
        chosen = [p for p in candidates if p.parent.name == wanted]
        if chosen:
            return chosen[0]
    if len(candidates) == 1 or (not wanted and len(candidates[0].parts) < len(candidates[1].parts)):
        return candidates[0]
    names = ", ".join(p.parent.relative_to(root).as_posix() or "." for p in candidates[:10])
    raise ServiceError(
        f"This holds several skills ({names}).", "Type the one you want in “Skill in the archive”."
    )


def _remote_source(url: str) -> Source:
    """A remote source, or an error — checked before parsing, so a local path is never
    looked at (not even whether it exists)."""
    url = url.strip()
    remote = url.startswith((*_REMOTE_SCHEMES, "github:")) or url.startswith(
        tuple("git+" + s for s in _REMOTE_SCHEMES)
    )
    if remote:
        try:
            source = parse_source(url)
        except SourceError as exc:
            raise ServiceError(
                str(exc), "Paste an https:// link to a .zip or a git repository."
            ) from None
        if source.kind in ("url", "git") and source.location.startswith(_REMOTE_SCHEMES):
            return source
    raise ServiceError(
        f"“{url}” is not a remote URL.",
        "Paste an https:// link; to use a skill on this computer, pick it from the list.",
    )


@contextlib.contextmanager
def fetched_skill(
    *, upload: Path | None = None, url: str = "", pick: str = "", limits: Limits | None = None
) -> Iterator[SkillDefinition]:
    """The skill inside an uploaded archive or at a remote URL; temp files go at exit."""
    source = parse_source(str(upload)) if upload is not None else _remote_source(url)
    with tempfile.TemporaryDirectory(prefix="gibberish-web-") as work:
        try:
            with fetch(source, limits=limits, workdir=Path(work)) as staged:
                path = _pick(_skill_files_in(staged.root), staged.root, pick.strip())
                yield _load(path, Path(work))
        except (FetchError, SourceError) as exc:
            raise ServiceError(str(exc), "Check the archive or link and try again.") from None


def installed_skill(name: str, skills: Callable[[], Sequence[SkillDefinition]]) -> SkillDefinition:
    for skill in skills():
        if skill.name == name:
            try:
                refuse_unloaded(skill.name, skill.errors)
            except DisclosureError as exc:
                raise ServiceError(exc.message, "Fix the skill and reload.", 404) from None
            return skill
    raise ServiceError(f"No installed skill named “{name}”.", "Pick one from the list.", 404)


def _gemini(skill: SkillDefinition, name: str) -> Result:
    command = compile_skill(skill, name or None)
    files = (
        OutputFile(command.toml_name, command.toml().encode("utf-8")),
        OutputFile("README.md", readme(command).encode("utf-8")),
    )
    return Result(command.name, "gemini-toml", files)


def _agent_readme(name: str, agent: agents.AgentTarget) -> str:
    user = f"~/{agent.user_dir}" if agent.user_dir else None
    project = agent.project_dir
    lines = [f"# Skill {name} for {agent.title}", "", "## Install", ""]
    if user:
        lines += [
            "For you, in every project:",
            "",
            "```sh",
            f"mkdir -p {user}",
            f"cp -r {name} {user}/",
            "```",
            "",
        ]
    if project:
        lines += [
            "For one project, from the project's folder:",
            "",
            "```sh",
            f"mkdir -p {project}",
            f"cp -r {name} {project}/",
            "```",
            "",
        ]
    lines += ["Or let gibberish keep it in sync: `gibberish sync " + agent.name + "`.", ""]
    return "\n".join(lines)


def _agent_skill(skill: SkillDefinition, agent_name: str) -> Result:
    try:
        agent = agents.target(agent_name)
    except KeyError as exc:
        raise ServiceError(str(exc.args[0]), "Choose an agent from the list.") from None
    problem = agentskills_problem(skill)
    if problem:
        raise ServiceError(
            f"Other agents would reject this skill: {problem}", "Fix SKILL.md and try again."
        )
    files = [
        OutputFile(f"{skill.name}/{rel}", source.data, source.executable)
        for rel, source in skill_files(skill.directory).items()
    ]
    files.append(OutputFile("README.md", _agent_readme(skill.name, agent).encode("utf-8")))
    return Result(skill.name, "agent-skills", tuple(files))


_STUB_README = """# Stub of the skill {name}

A skillc stub: a small SKILL.md that tells an agent to read the skill section by section
through the gibberish gateway (the `gibberish mcp` server, or `gibberish outline|show|open|
sources|search`) instead of loading every file. `.skillc/manifest.json` records the hash
of the sources it was built from.

## Install

The full skill must be where gibberish finds it (for example
`gibberish install` it). Then put the stub where your agent reads skills, e.g.

```sh
mkdir -p ~/.claude/skills
cp -r {name} ~/.claude/skills/
```
"""


def _stub(skill: SkillDefinition) -> Result:
    with tempfile.TemporaryDirectory(prefix="gibberish-stub-") as out:
        try:
            built = build_stub(skill.directory, Path(out))
        except (DisclosureError, StubTargetError) as exc:
            raise ServiceError(str(exc), "Fix SKILL.md and try again.") from None
        files = [
            OutputFile(
                f"{built.skill}/{path.relative_to(built.folder).as_posix()}", path.read_bytes()
            )
            for path in sorted(built.folder.rglob("*"))
            if path.is_file()
        ]
    files.append(OutputFile("README.md", _STUB_README.format(name=built.skill).encode("utf-8")))
    return Result(built.skill, "skillc-stub", tuple(files))


def build(
    skill: SkillDefinition, target: str, *, name: str = "", agent: str = "claude-code"
) -> Result:
    """The files for ``target``; every failure is a ServiceError with a hint."""
    try:
        PathComponent(skill.name, "skill name")  # it names the folders inside the zip
    except UnsafeNameError as exc:
        raise ServiceError(f"{exc}.", "Fix the name: in SKILL.md and try again.") from None
    try:
        if target == "gemini-toml":
            return _gemini(skill, name)
        if target == "agent-skills":
            if name:
                command_name(name)  # same rule, so a bad name is reported either way
            return _agent_skill(skill, agent)
        if target == "skillc-stub":
            return _stub(skill)
    except CompileError as exc:
        raise ServiceError(str(exc), "Fix the skill (or the name) and try again.") from None
    raise ServiceError(f"Unknown target “{target}”.", f"Use one of: {', '.join(TARGETS)}.")
