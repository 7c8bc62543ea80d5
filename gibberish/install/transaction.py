"""The installer: stage → resolve dependencies → show → move into place, all or nothing.

::

    installer = Installer(InstallTarget.user(), available={"git", "files"})
    with installer.stage("file:///srv/skills.git#main", choose=pick) as plan:
        ...show plan.skills (tools, commands), plan.mcp; ask...
        installer.commit(plan, replace={"pdf"})

Everything is fetched into a hidden staging folder *inside* the target skills folder
(same filesystem, so moving a skill into place is one ``rename``), validated by the
skills loader, given its provenance file (so it can never appear without it, and loads
``untrusted``), then renamed into place. If anything fails, the skills already moved are
taken out again, the previous versions are put back, and the state file is not written.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Collection, Iterator
from datetime import UTC, datetime
from pathlib import Path

from msgspec import Struct, field

from gibberish import paths
from gibberish.install.available import NamesInSources
from gibberish.install.dependencies import E_DEPENDENCY_CYCLE, McpServer
from gibberish.install.discover import Found, InstallError, discover, found_at
from gibberish.install.fetch import FetchError, Limits, Staged, fetch, remove_tree
from gibberish.install.lockfile import exclusive
from gibberish.install.plugin_source import offered
from gibberish.install.record import write_record
from gibberish.install.relative_deps import inside, relative_path, same_repository
from gibberish.install.sources import Source, SourceError, parse_source
from gibberish.install.state import InstallState
from gibberish.pathsafety import resolve_inside
from gibberish.skills.disabled import disabled_names, write_disabled
from gibberish.skills.projectdir import project_skills_dir

STAGING = ".gibberish-staging"
STALE_AFTER = 24 * 3600  # seconds
Chooser = Callable[[list[Found]], list[str]]


class InstallTarget(Struct, frozen=True):
    """Where skills go and where their state is kept (the user's, or a project's)."""

    skills_dir: Path
    state_file: Path
    project: Path | None = None

    @classmethod
    def user(cls) -> InstallTarget:
        return cls(paths.user_skills_dir(), paths.data_dir() / "installed.json")

    @classmethod
    def for_project(cls, project: Path) -> InstallTarget:
        project = project.resolve()
        return cls(project_skills_dir(project), project / ".gibberish" / "state.json", project)


class Planned(Struct):
    """One skill about to be installed."""

    found: Found
    staged: Staged
    required_by: str  # "user", or the skill that needs it
    existing: str = ""  # "", "installed", "user" (a skill of your own) or "bundled"

    @property
    def name(self) -> str:
        return self.found.name


class Plan(Struct):
    offered: list[Found] = field(default_factory=list)  # what the source itself holds
    skills: list[Planned] = field(default_factory=list)  # dependencies first
    satisfied: dict[str, list[str]] = field(default_factory=dict)  # present dep → needed by
    mcp: list[tuple[McpServer, str]] = field(default_factory=list)
    links: dict[str, list[str]] = field(default_factory=dict)  # skill → its skill deps
    notes: list[str] = field(default_factory=list)  # what a plugin's manifests left out
    plugin_mcp: list[tuple[McpServer, str]] = field(default_factory=list)  # kept in records

    def conflicts(self) -> list[Planned]:
        return [p for p in self.skills if p.existing]

    def only(self, names: Collection[str]) -> Plan:
        """The part of the plan that ``names`` (top-level skills) need, dependencies included."""
        keep: set[str] = set()
        pending = [n for n in names if n in {p.name for p in self.skills}]
        while pending:
            name = pending.pop()
            if name not in keep:
                keep.add(name)
                pending.extend(self.links.get(name, []))
        return Plan(
            offered=self.offered,
            skills=[p for p in self.skills if p.name in keep],
            satisfied={
                d: [n for n in by if n in keep]
                for d, by in self.satisfied.items()
                if set(by) & keep
            },
            mcp=[(server, by) for server, by in self.mcp if by in keep],
            links={n: deps for n, deps in self.links.items() if n in keep},
            notes=self.notes,
            plugin_mcp=[(server, by) for server, by in self.plugin_mcp if by in keep],
        )


class Installer:
    def __init__(
        self,
        target: InstallTarget,
        *,
        available: Collection[str] | NamesInSources = (),
        bundled: Collection[str] = (),
        limits: Limits | None = None,
        base: Path | None = None,
    ) -> None:
        self.target = target
        # names the app already has (any source); asked name by name when given so
        self.available: set[str] | NamesInSources = (
            available if isinstance(available, NamesInSources) else set(available)
        )
        self.bundled = set(bundled)
        self.limits = limits or Limits()
        self.base = base
        self.state = InstallState.load(target.state_file, target.skills_dir)
        self.plugins: tuple[str, ...] = ()
        """The plugins of a marketplace to install (``--plugin``); empty: all of them."""

    # -- staging ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def stage(self, source: str | Source, *, choose: Chooser | None = None) -> Iterator[Plan]:
        """Fetch ``source`` and every missing dependency; the plan lives inside the block."""
        with contextlib.ExitStack() as stack:
            workdir = self._workdir()
            stack.callback(_remove_if_empty, workdir)
            staged = self._fetch(stack, source, workdir)
            offer = offered(staged.root, staged.source.text, self.plugins)
            plan = Plan(offered=offer.found, notes=offer.notes)
            names = choose(plan.offered) if choose else [f.name for f in plan.offered]
            for found in (f for f in plan.offered if f.name in names):
                planned = next((p for p in plan.skills if p.name == found.name), None)
                if planned is not None:  # already pulled in as another one's dependency
                    planned.required_by = "user"
                else:
                    top = Planned(found, staged, "user", self._existing(found.name))
                    self._resolve(top, [top.name], plan, stack, workdir)
                    plan.skills.append(top)
            chosen = {p.name for p in plan.skills}
            plan.plugin_mcp = [(server, by) for server, by in offer.servers if by in chosen]
            plan.mcp.extend(plan.plugin_mcp)
            yield plan

    def _fetch(self, stack: contextlib.ExitStack, source: str | Source, workdir: Path) -> Staged:
        try:
            parsed = parse_source(source, base=self.base) if isinstance(source, str) else source
            return stack.enter_context(fetch(parsed, limits=self.limits, workdir=workdir))
        except (FetchError, SourceError) as exc:
            raise InstallError(str(exc)) from exc

    def _resolve(
        self,
        item: Planned,
        chain: list[str],
        plan: Plan,
        stack: contextlib.ExitStack,
        workdir: Path,
    ) -> None:
        deps = item.found.dependencies
        plan.mcp.extend((server, item.name) for server in deps.mcp)
        linked = plan.links.setdefault(item.name, [])
        for dep in deps.skills:
            if dep.name in chain:
                raise InstallError(f"{E_DEPENDENCY_CYCLE}: {' → '.join([*chain, dep.name])}")
            if dep.name and self._present(dep.name, plan):
                linked.append(dep.name)
                plan.satisfied.setdefault(dep.name, []).append(item.name)
                continue
            staged, found = self._dependency(stack, dep.source, dep.name, item, workdir)
            if found.name in chain:
                raise InstallError(f"{E_DEPENDENCY_CYCLE}: {' → '.join([*chain, found.name])}")
            linked.append(found.name)
            if self._present(found.name, plan):
                plan.satisfied.setdefault(found.name, []).append(item.name)
                continue
            planned = Planned(found, staged, item.name, self._existing(found.name))
            self._resolve(planned, [*chain, found.name], plan, stack, workdir)
            plan.skills.append(planned)

    def _dependency(
        self, stack: contextlib.ExitStack, text: str, name: str, item: Planned, workdir: Path
    ) -> tuple[Staged, Found]:
        """A dependency: inside the same archive or repository when its path is relative
        (gibberish.install.relative_deps), else fetched from its own source."""
        source = item.staged.source
        relative = relative_path(text) if source.kind != "folder" else None
        if relative is not None and source.kind in ("archive", "url"):  # the same files
            folder = item.staged.root / inside(item.found.path, relative, source.text)
            if not (folder / "SKILL.md").is_file():
                raise InstallError(
                    f"{source.text}: {item.name} depends on “{text}”, which holds no SKILL.md."
                )
            return item.staged, found_at(folder, item.staged.root, source.text)
        if relative is not None and source.kind == "git":  # the same repository and ref
            here = "/".join(p for p in (source.subdir, item.found.path) if p)
            sibling = same_repository(source, inside(here, relative, source.text))
            staged = self._fetch(stack, sibling, workdir)
            return staged, _pick(discover(staged.root, staged.source.text), name, text)
        staged = self._fetch(stack, self._dependency_source(text, item), workdir)
        return staged, _pick(discover(staged.root, staged.source.text), name, text)

    def _dependency_source(self, text: str, item: Planned) -> Source:
        source = item.staged.source
        try:
            if source.kind == "folder":
                folder = Path(source.location)
                folder = folder / item.found.path if folder.is_dir() else folder.parent
                return parse_source(text, base=folder)
            parsed = parse_source(text, base=Path("/nonexistent-relative-base"))
        except SourceError as exc:
            raise InstallError(f"{item.name} depends on {exc}") from exc
        return parsed

    def _present(self, name: str, plan: Plan) -> bool:
        return (
            any(p.name == name for p in plan.skills)
            or name in self.available
            or (self.target.skills_dir / name).exists()
        )

    def _existing(self, name: str) -> str:
        if (self.target.skills_dir / name).exists():
            return "installed" if name in self.state.skills else "user"
        if name in self.bundled:
            return "bundled"
        if name in self.available:
            return "user"
        return ""

    def _workdir(self) -> Path:
        """The hidden staging folder; what a killed install left there a day ago goes."""
        self.target.skills_dir.mkdir(parents=True, exist_ok=True)
        workdir = self.target.skills_dir / STAGING
        workdir.mkdir(mode=0o700, exist_ok=True)
        cutoff = time.time() - STALE_AFTER
        for entry in workdir.iterdir():
            with contextlib.suppress(OSError):
                if entry.lstat().st_mtime < cutoff:
                    remove_tree(entry)
        return workdir

    # -- committing ------------------------------------------------------------------------

    def commit(
        self,
        plan: Plan,
        *,
        replace: Collection[str] = (),
        installed_at: str | None = None,
        installed_by: str | None = None,
        source_text: str | None = None,
    ) -> list[str]:
        """Move every planned skill into place (all or nothing); return their names."""
        refused = [p.name for p in plan.conflicts() if p.name not in replace]
        if refused:
            raise InstallError(_conflict_message(plan, refused))
        with self._exclusive():
            return self._commit(plan, installed_at, installed_by, source_text)

    def exclusive(self) -> contextlib.AbstractContextManager[None]:
        """The target's lock, the state read again under it (for changes besides commit)."""
        return self._exclusive()

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[None]:
        """One installer at a time per target; the state is read again under the lock."""
        self.target.state_file.parent.mkdir(parents=True, exist_ok=True)
        with exclusive(Path(str(self.target.state_file) + ".lock"), timeout=60):
            self.state = InstallState.load(self.target.state_file, self.target.skills_dir)
            yield

    def _commit(
        self,
        plan: Plan,
        installed_at: str | None,
        installed_by: str | None,
        source_text: str | None,
    ) -> list[str]:
        stamp = installed_at or datetime.now(UTC).isoformat(timespec="seconds")
        snapshot = self.state.snapshot()
        moved: list[tuple[Path, Path | None]] = []
        backups = Path(tempfile.mkdtemp(prefix="old-", dir=self._workdir()))
        try:
            records = [
                self._record(item, stamp, installed_by, source_text, plan) for item in plan.skills
            ]
            os.sync()  # every staged file on disk before any folder is renamed into place
            for item, record in zip(plan.skills, records, strict=True):
                moved.append(self._move_into_place(item, backups))
                self._remember(item, record, plan)
            for server, needed_by in plan.mcp:
                self.state.mcp[server.name] = {**server.to_dict(), "installed_by_skill": needed_by}
            for dep, needers in plan.satisfied.items():
                self._link(dep, needers)
            self.state.save()
        except BaseException:
            self._roll_back(moved)
            self.state.restore(snapshot)
            raise
        finally:
            shutil.rmtree(backups, ignore_errors=True)
        return [p.name for p in plan.skills]

    def _record(
        self,
        item: Planned,
        stamp: str,
        installed_by: str | None,
        source_text: str | None,
        plan: Plan,
    ) -> dict:
        source = item.staged.source
        pinned = source.pinned(item.staged.resolved)
        return write_record(
            item.found.folder,
            source=(source_text if item.required_by == "user" else None) or source.text,
            kind=source.kind,
            resolved=item.staged.resolved,
            pinned=pinned,
            version=item.found.skill.version,
            installed_at=stamp,
            installed_by=installed_by or item.required_by,
            durable=False,
            mcp={s.name: s.to_dict() for s, by in plan.plugin_mcp if by == item.name},
        )

    def _move_into_place(self, item: Planned, backups: Path) -> tuple[Path, Path | None]:
        dest = resolve_inside(self.target.skills_dir, item.name)
        backup = None
        if dest.exists() or dest.is_symlink():
            backup = backups / item.name
            os.rename(dest, backup)
        try:
            os.rename(item.found.folder, dest)
        except BaseException:
            if backup is not None:
                os.rename(backup, dest)
            raise
        return dest, backup

    def _roll_back(self, moved: list[tuple[Path, Path | None]]) -> None:
        for dest, backup in reversed(moved):
            shutil.rmtree(dest, ignore_errors=True)
            if backup is not None:
                os.rename(backup, dest)

    def _remember(self, item: Planned, record: dict, plan: Plan) -> None:
        old = self.state.skills.get(item.name, {})
        self.state.skills[item.name] = {
            "source": record["source"],
            "path": item.found.path,
            "kind": record["kind"],
            "resolved": record["resolved"],
            "pinned": record["pinned"],
            "version": record["version"],
            "installed_at": record["installed_at"],
            "installed_by": "user" if old.get("installed_by") == "user" else record["installed_by"],
            "dependencies": list(plan.links.get(item.name, [])),
            "depended_by": [],
        }
        for dep in plan.links.get(item.name, []):
            self._link(dep, [item.name])
        for name, entry in self.state.skills.items():
            if item.name in entry.get("dependencies", []) and name != item.name:
                self._link(item.name, [name])

    def _link(self, dep: str, needers: list[str]) -> None:
        entry = self.state.skills.get(dep)
        if entry is None:
            return
        entry["depended_by"] = sorted(set(entry.get("depended_by", [])) | set(needers))

    # -- removing --------------------------------------------------------------------------

    def uninstall(self, name: str, *, force: bool = False, orphans: bool = False) -> list[str]:
        """Remove ``name`` (and, with ``orphans``, what only it needed); return what went."""
        with self._exclusive():
            return self._uninstall(name, force=force, orphans=orphans)

    def _uninstall(self, name: str, *, force: bool, orphans: bool) -> list[str]:
        if name not in self.state.skills:
            where = self.target.skills_dir / name
            hint = (
                f" {where} was not installed by gibberish; remove it yourself."
                if where.exists()
                else ""
            )
            raise InstallError(f"“{name}” is not an installed skill.{hint}")
        dependents = [d for d in self.state.dependents(name) if d in self.state.skills]
        if dependents and not force:
            raise InstallError(
                f"“{name}” is needed by {', '.join(dependents)}; uninstall those first, "
                "or use --force."
            )
        extra = self.state.orphans_after_removing(name) if orphans else []
        removed = []
        for victim in [name, *extra]:
            self._remove_folder(victim)
            self.state.forget(victim)
            removed.append(victim)
        off = disabled_names(self.target.skills_dir)
        if off & set(removed):
            write_disabled(self.target.skills_dir, off - set(removed))
        self.state.save()
        return removed

    def _remove_folder(self, name: str) -> None:
        folder = self.target.skills_dir / name
        if not folder.exists():
            return
        trash = Path(tempfile.mkdtemp(prefix="gone-", dir=self._workdir()))
        os.rename(folder, trash / name)  # gone from the library in one step
        shutil.rmtree(trash, ignore_errors=True)
        _remove_if_empty(self.target.skills_dir / STAGING)


def _pick(found: list[Found], name: str, source: str) -> Found:
    if name:
        for item in found:
            if item.name == name:
                return item
        raise InstallError(f"{source} holds no skill named “{name}”.")
    if len(found) != 1:
        names = ", ".join(f.name for f in found)
        raise InstallError(f"{source} holds several skills ({names}); name the one needed.")
    return found[0]


def _conflict_message(plan: Plan, refused: list[str]) -> str:
    kinds = {p.name: p.existing for p in plan.skills}
    what = {
        "installed": "is already installed",
        "user": "would overwrite a skill of your own",
        "bundled": "would hide the bundled skill of that name",
    }
    lines = [f"  {name}: {what[kinds[name]]}" for name in refused]
    return (
        "Not installed, nothing changed:\n"
        + "\n".join(lines)
        + "\nConfirm replacing them to go on."
    )


def _remove_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()
