"""``gibberish install``, ``uninstall``, ``update`` and ``installed``.

Thin: ``gibberish.install.installer`` sets up the installer; this module shows what
will be added (skills, tools, the exact commands, MCP servers) and asks before anything
is moved into place. ``--yes`` answers the install question; replacing a skill that is
already there is asked separately (``--replace`` answers it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from gibberish import paths
from gibberish.cli import quick_exit
from gibberish.cli.audit_view import ACCEPT_RISKS, accept_findings, show_audit
from gibberish.cli.common import CliState, fail, pass_state, printable, table
from gibberish.cli.restore import save_lock, sync_as_locked
from gibberish.install.audit import Audit, audit_folder
from gibberish.install.discover import Found, InstallError, show_warnings
from gibberish.install.project import (
    Wanted,
    install_locked,
    pending,
    read_lock,
    read_manifest,
    record_in_manifest,
    user_lock_path,
)
from gibberish.install.sources import Source, parse_source
from gibberish.install.transaction import Installer, Plan
from gibberish.skills.projectdir import find_project
from gibberish.words import plural

if TYPE_CHECKING:  # imported where used: installing one folder needs none of them
    from gibberish.install.update import UpdatePlan
    from gibberish.skills.model import SkillDefinition

INSTRUCTIONS_NOTE = (
    "instructions for a model, no tools: used as a context block, an MCP prompt, "
    "and by `gibberish sync` / `gibberish stub`; not a tray tool"
)
_REFUSED = {
    "installed": "is already installed",
    "user": "would overwrite a skill of your own",
    "bundled": "would hide the bundled skill of that name",
}
_EXISTING = {
    "installed": "is already installed; replace it",
    "user": "would overwrite a skill of your own; replace it",
    "bundled": "would hide the bundled skill of that name; install anyway",
}


def _project_option(func):  # type: ignore[no-untyped-def]
    return click.option(
        "--project",
        type=click.Path(path_type=Path, file_okay=False),
        help="Work on DIR/.gibberish/skills and DIR/gibberish.toml instead of your own skills.",
    )(func)


def _installer(state: CliState, project: Path | None) -> Installer:
    from gibberish.install.installer import installer_for

    return installer_for(state.engine(), project)


def _source_installer(state: CliState, project: Path | None) -> Installer:
    """The installer for ``install SOURCE``. Into the user's own folder, outside any
    project, no Engine is built: the names the source brings are looked up in the
    library's folders (the same ones, from the same settings) instead of every skill
    being read, and the notices an Engine would print first are printed the same way.
    A project (given, or found from here) takes the Engine, as every other command."""
    if project is not None or find_project(Path.cwd()) is not None:
        return _installer(state, project)
    from gibberish.install.installer import user_installer
    from gibberish.runner.sandbox_status import take_notice
    from gibberish.skills.library import SkillLibrary

    extra_dirs, notices = _settings_for_install()
    for notice in [*notices, *filter(None, [take_notice()])]:
        click.secho(f"note: {printable(notice)}", err=True, fg="yellow")
    sources = SkillLibrary.default_sources(
        extra_dirs=state.extra_skills_dirs + extra_dirs,
        include_user=state.include_user,
        include_bundled=state.include_bundled,
    )
    return user_installer(sources)


def _settings_for_install() -> tuple[tuple[Path, ...], tuple[str, ...]]:
    """The settings file's extra skill folders and its notices. With no settings file
    (the usual case) there are neither — :func:`gibberish.settings.load_settings` gives
    the defaults and says nothing — so the settings module, which builds the model's and
    the voice's tables when imported, is not imported at all (docs/adr/0099)."""
    if not os.path.lexists(paths.config_file()):
        return (), ()
    from gibberish.settings import load_settings

    loaded = load_settings()
    return loaded.settings.extra_skill_paths, loaded.notices


@click.command("install")
@click.argument("source", required=False)
@click.option("--name", "names", multiple=True, help="Install only the skill named N (repeatable).")
@click.option(
    "--plugin",
    "plugins",
    multiple=True,
    metavar="NAME",
    help="From a marketplace: install only plugin NAME's skills (repeatable; default: all).",
)
@_project_option
@click.option("--yes", "-y", is_flag=True, help="Do not ask before installing.")
@click.option("--replace", is_flag=True, help="Replace skills of the same name without asking.")
@ACCEPT_RISKS
@click.option(
    "--sync/--no-sync",
    "sync",
    default=None,
    help="Copy what was installed to your agents (default: ask on a terminal).",
)
@click.option(
    "--allow-mcp",
    "allow_mcp",
    multiple=True,
    metavar="NAME",
    help="With the sync after install: agree to write MCP server NAME (its command is shown).",
)
@click.option(
    "--allow-outside",
    is_flag=True,
    help="Let a project's lock or manifest copy from folders outside the project.",
)
@click.option(
    "--lock",
    "lock_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Restore everything this lock lists (default with no SOURCE: the project's "
    "gibberish.lock, else your own skills.lock).",
)
@pass_state
def install_command(
    state: CliState,
    source: str | None,
    names: tuple[str, ...],
    plugins: tuple[str, ...],
    project: Path | None,
    yes: bool,
    replace: bool,
    sync: bool | None,
    allow_mcp: tuple[str, ...],
    allow_outside: bool,
    accept_risks: bool,
    lock_file: Path | None,
) -> None:
    """Install skills from a folder, an archive, a URL or a git repository.

    A plugin (plugin.json, .claude-plugin/, .codex-plugin/, gemini-extension.json) gives
    its skills; a marketplace (.claude-plugin/marketplace.json) all its plugins' skills,
    or those of --plugin NAME.

    With no SOURCE inside a project (a folder with gibberish.toml), installs everything
    gibberish.lock pins, then whatever gibberish.toml lists that the lock does not;
    elsewhere, everything your own skills.lock lists (in the config folder). A restore
    syncs each skill to the agents the lock names, as it names (copy or link).
    """
    try:
        if source is None:
            found = project or find_project(Path.cwd())
            if lock_file is None and found is not None:
                _install_project(
                    state, found, yes=yes, replace=replace, outside=allow_outside,
                    accept=accept_risks, allow_mcp=allow_mcp,
                )  # fmt: skip
            else:
                _restore(
                    state, project, lock_file, yes=yes, accept=accept_risks, allow_mcp=allow_mcp
                )
            return
        installer = _source_installer(state, project)
        installer.plugins = plugins
        installed = _install_one(
            installer, source, names, yes=yes, replace=replace, accept=accept_risks
        )
        if installer.target.project and installed:
            _record_project(installer, installed)
        target = installer.target
        if sync is not False:
            from gibberish.cli.sync_offer import offer_sync

            offer_sync(state, target.skills_dir, installed, target.project, sync, allow_mcp)
        if installed:
            save_lock(installer)
    except InstallError as exc:
        fail(str(exc), 1)
    except OSError as exc:
        fail(f"the install failed and was rolled back; nothing changed ({exc}).", 1)
    quick_exit.finish(0)  # every file is written and closed: no teardown to wait for


def _install_one(
    installer: Installer,
    source: str | Source,
    names: tuple[str, ...],
    *,
    yes: bool,
    replace: bool,
    accept: bool = False,
) -> list[str]:
    with installer.stage(source, choose=_chooser(names, yes)) as plan:
        for notice in installer.state.notices:
            click.secho(f"note: {notice}", err=True, fg="yellow")
        if not plan.skills:
            click.echo("Nothing chosen; nothing installed.")
            return []
        audits = _show_plan(plan)
        if not accept_findings(audits, yes=yes, accept=accept, interactive=_interactive()):
            click.echo("Nothing installed.")
            return []
        replacing = _confirm_replacements(plan, replace, ask=_interactive())
        if not yes and not _interactive():
            raise InstallError(
                "Nothing installed: there is no terminal to ask. Read what would be installed "
                "(above), then run again with --yes."
            )
        if not yes and not click.confirm(
            f"Install {plural(len(plan.skills), 'skill')}? They load as untrusted: every run asks first.",
            default=False,
        ):
            click.echo("Nothing installed.")
            return []
        done = installer.commit(plan, replace=replacing)
    click.echo(f"Installed {', '.join(done)} into {installer.target.skills_dir}.")
    if any(p.found.kind == "tools" for p in plan.skills):
        click.echo("They are untrusted: each run shows where the skill came from and asks first.")
    return done


def _chooser(names: tuple[str, ...], yes: bool):  # type: ignore[no-untyped-def]
    def choose(found: list[Found]) -> list[str]:
        if names:
            missing = set(names) - {f.name for f in found}
            if missing:
                known = ", ".join(f.name for f in found)
                raise InstallError(
                    f"No skill named {', '.join(sorted(missing))} here (found: {known})."
                )
            return list(names)
        if len(found) == 1 or yes:
            return [f.name for f in found]
        if not _interactive():
            listed = ", ".join(f.name for f in found)
            raise InstallError(
                f"This source holds {len(found)} skills ({listed}) and there is no terminal to "
                "choose: name them with --name NAME (repeatable), or give --yes for all."
            )
        return _checklist(found)

    return choose


def _checklist(found: list[Found]) -> list[str]:
    click.echo(f"This source holds {len(found)} skills:")
    for index, item in enumerate(found, 1):
        tools = ", ".join(t.name for t in item.skill.tools) or "instructions only"
        click.echo(
            f"  {index:>3}. {item.name:<24} ~{item.tokens} tokens  "
            f"{printable(item.skill.description)}\n        tools: {tools}"
        )
    answer = click.prompt(
        "Install which? (numbers or names, comma-separated; `all`)", default="all"
    )
    if answer.strip().lower() == "all":
        return [f.name for f in found]
    chosen = []
    for word in (w.strip() for w in answer.split(",") if w.strip()):
        if word.isdigit() and 1 <= int(word) <= len(found):
            chosen.append(found[int(word) - 1].name)
        elif word in {f.name for f in found}:
            chosen.append(word)
        else:
            raise InstallError(f"“{word}” is not one of the skills listed.")
    return chosen


def _show_plan(plan: Plan) -> list[Audit]:
    """The preview: each skill, its tools and commands, warnings, and its audit."""
    audits = []
    for item in plan.skills:
        skill = item.found.skill
        why = "" if item.required_by == "user" else f"  (needed by {item.required_by})"
        click.secho(f"+ {item.name} {skill.version}{why}", bold=True)
        click.echo(f"    from {printable(item.staged.source.text)} {item.staged.resolved[:19]}")
        for tool in skill.tools:
            command = tool.command.source if tool.command else "(no command)"
            click.echo(f"    {tool.name}: {printable(command)}")
        if item.found.kind == "instructions":
            click.echo(f"    {INSTRUCTIONS_NOTE}")
        for line in show_warnings(item.found, item.staged.source.text):
            click.secho(f"    {printable(line)}", fg="yellow")
        for skipped in item.staged.skipped:
            click.echo(f"    left out: {printable(skipped)}")
        audits.append(audit_folder(item.found.folder, skill, item.name))
        show_audit(audits[-1])
    for name, needers in sorted(plan.satisfied.items()):
        click.echo(f"= {name} (already available; needed by {', '.join(sorted(set(needers)))})")
    for note in plan.notes:
        click.secho(f"note: {printable(note)}", err=True, fg="yellow")
    for server, needer in plan.mcp:
        words = " ".join([server.command, *server.args])
        click.echo(
            f"MCP server {server.name} for {needer}: {printable(words)} (recorded, not started)"
        )
    return audits


def _confirm_replacements(plan: Plan, replace: bool, *, ask: bool) -> list[str]:
    """The skills to replace: all with --replace; asked one by one at a terminal (--yes
    does not answer this); without one none, and the refusal says how (--replace)."""
    conflicts = plan.conflicts()
    if replace:
        return [item.name for item in conflicts]
    if conflicts and not ask:
        lines = "\n".join(f"  {p.name}: {_REFUSED[p.existing]}" for p in conflicts)
        raise InstallError(
            f"Not installed, nothing changed:\n{lines}\nThere is no terminal to ask; to "
            "replace them, run again with --replace (--yes does not replace anything)."
        )
    return [
        item.name
        for item in conflicts
        if click.confirm(f"“{item.name}” {_EXISTING[item.existing]}?", default=False)
    ]


def _record_project(installer: Installer, installed: list[str]) -> None:
    project = installer.target.project
    assert project is not None
    entries = {
        name: {
            "source": installer.state.skills[name]["source"],
            "path": installer.state.skills[name].get("path", ""),
        }
        for name in installed
        if installer.state.skills[name].get("installed_by") == "user"
    }
    record_in_manifest(project, entries)


def _agree_to_project(wanted: list[Wanted], *, yes: bool, outside: bool) -> bool:
    """Show every source the project would fetch; True when the person agreed (or gave
    --yes); sources outside the project need --allow-outside or their own yes."""
    click.echo(f"This project's gibberish.lock / gibberish.toml would install {len(wanted)}:")
    for item in wanted:
        pin = f" at {item.resolved[:19]}" if item.resolved else ""
        click.echo(f"  {printable(item.name):<24} from {printable(item.source)}{pin}")
        if item.outside:
            click.secho(
                f"    outside the project: copies {printable(item.outside)} from this computer",
                fg="yellow",
            )
    click.echo("They install as untrusted: every run of their tools asks first.")
    far = [w.name for w in wanted if w.outside]
    if far and not outside:
        if not _interactive():
            raise InstallError(
                f"{', '.join(far)}: from outside the project; refused without a terminal to "
                "ask (read the list, then run again with --allow-outside)."
            )
        if not click.confirm("Copy files from outside the project into it?", default=False):
            return False
    if yes:
        return True
    if not _interactive():
        raise InstallError(
            "A project's skills are installed only after you agreed, and there is no terminal "
            "to ask: read the list above, then run again with --yes."
        )
    return True  # asked once each is fetched and its commands are shown (_confirm_staged)


def _confirm_staged(plans: list[Plan], *, yes: bool = False, accept: bool = False) -> bool:
    """The locked skills, fetched and checked: their tools, commands and audit, then the
    question (with ``yes``: none, but a high finding still needs ``accept``)."""
    audits = [a for plan in plans for a in _show_plan(plan)]
    if not accept_findings(audits, yes=yes, accept=accept, interactive=_interactive()):
        return False
    if yes:
        return True
    if not _interactive():
        raise InstallError(
            "Nothing installed: there is no terminal to ask. Read what the lock would "
            "install (above), then run again with --yes."
        )
    return click.confirm(
        f"Install {plural(sum(len(p.skills) for p in plans), 'skill')} from the lock? They load as "
        "untrusted: every run asks first.",
        default=False,
    )


def _interactive() -> bool:
    return sys.stdin.isatty()


def _install_project(
    state: CliState,
    project: Path | None,
    *,
    yes: bool,
    replace: bool,
    outside: bool = False,
    accept: bool = False,
    allow_mcp: tuple[str, ...] = (),
) -> None:
    project = project or find_project(Path.cwd())
    if project is None:
        raise InstallError(
            "Give a SOURCE to install, or run this inside a project with a gibberish.toml."
        )
    installer = _installer(state, project)
    wanted = pending(installer, project.resolve())
    if wanted and not _agree_to_project(wanted, yes=yes, outside=outside):
        click.echo("Nothing installed.")
        return
    agreed = outside or any(w.outside for w in wanted)
    done = install_locked(
        installer,
        project.resolve(),
        say=click.echo,
        allow_outside=agreed,
        confirm=lambda plans: _confirm_staged(plans, yes=yes, accept=accept),
    )
    for name, entry in read_manifest(project).items():
        if name not in installer.state.skills:
            source = parse_source(entry["source"], base=project)  # relative to the project
            done += _install_one(
                installer, source, (name,), yes=yes, replace=replace, accept=accept
            )
    failed = sync_as_locked(state, installer, read_lock(project.resolve()), allow_mcp)
    save_lock(installer)
    click.echo(
        "Up to date with gibberish.lock."
        if not done
        else f"Project skills ready: {', '.join(done)}."
    )
    if failed:
        raise SystemExit(1)


def _restore(
    state: CliState,
    project: Path | None,
    lock_file: Path | None,
    *,
    yes: bool,
    accept: bool,
    allow_mcp: tuple[str, ...],
) -> None:
    """Everything a lock lists (the user's own skills.lock by default), fetched, checked
    against the lock, installed, and synced where the lock says."""
    path = (lock_file or user_lock_path()).resolve()
    if not path.is_file():
        raise InstallError(
            "Give a SOURCE to install, run this inside a project with a gibberish.toml, or "
            f"restore a lock with --lock FILE (your own would be {path})."
        )
    installer = _installer(state, project)
    base = path.parent  # a relative source in a lock is relative to the lock
    wanted = pending(installer, base, path)
    if wanted:
        click.echo(f"{path} would install {len(wanted)}:")
        for item in wanted:
            pin = f" at {item.resolved[:19]}" if item.resolved else ""
            click.echo(f"  {printable(item.name):<24} from {printable(item.source)}{pin}")
    done = install_locked(
        installer,
        base,
        say=click.echo,
        allow_outside=True,  # the person's own lock: their own folders are theirs
        confirm=lambda plans: _confirm_staged(plans, yes=yes, accept=accept),
        lock_path=path,
    )
    failed = sync_as_locked(state, installer, read_lock(base, path), allow_mcp)
    save_lock(installer)
    click.echo(f"Restored {', '.join(done)}." if done else f"Up to date with {path}.")
    if failed:
        raise SystemExit(1)


def _installed_skills(installer: Installer) -> list[SkillDefinition]:
    """Every installed skill, read before an uninstall takes any away."""
    from gibberish.export.sync_offer import load_skills

    folder = installer.target.skills_dir
    return load_skills(folder, [n for n in installer.state.skills if (folder / n).is_dir()])


def _servers_gone(state: CliState, before: list[SkillDefinition], removed: list[str]) -> set[str]:
    """The MCP servers the removed skills asked for that no remaining skill needs."""
    from gibberish.export.sync_offer import unneeded_servers

    engine = state.engine()
    gone = [s for s in before if s.name in removed]
    remaining = [*before, *engine.library.skills()]
    return unneeded_servers(gone, remaining, engine.settings.mcp_servers)


@click.command("uninstall")
@click.argument("name")
@_project_option
@click.option("--force", is_flag=True, help="Remove it even though other skills need it.")
@click.option("--yes", "-y", is_flag=True, help="Also remove dependencies nothing else needs.")
@pass_state
def uninstall_command(
    state: CliState, name: str, project: Path | None, force: bool, yes: bool
) -> None:
    """Remove a skill gibberish installed (never one of your own)."""
    try:
        installer = _installer(state, project)
        orphans = (
            installer.state.orphans_after_removing(name) if name in installer.state.skills else []
        )
        take_orphans = bool(orphans) and (
            yes
            or (
                _interactive()
                and click.confirm(
                    f"{', '.join(orphans)} were installed only for {name}; remove them too?",
                    default=True,
                )
            )
        )
        before = _installed_skills(installer)
        leaving = [name, *orphans] if take_orphans else [name]
        servers = _servers_gone(state, before, leaving)  # read while their files are there
        removed = installer.uninstall(name, force=force, orphans=take_orphans)
        if installer.target.project:
            record_in_manifest(installer.target.project, {}, removed)
    except (InstallError, OSError) as exc:
        fail(str(exc), 1)
    click.echo(f"Removed {', '.join(removed)}.")
    from gibberish.cli.sync_offer import remove_synced

    errors = remove_synced(removed, installer.target.project, servers)
    save_lock(installer)
    if errors:
        raise SystemExit(1)
    left = [o for o in orphans if o not in removed]
    if left:
        click.echo(
            f"Kept {', '.join(left)} (installed only for {name}); "
            f"`gibberish uninstall {name} --yes` would have removed them too."
        )


@click.command("update")
@click.argument("name", required=False)
@_project_option
@click.option("--yes", "-y", is_flag=True, help="Do not ask before applying changes.")
@ACCEPT_RISKS
@pass_state
def update_command(
    state: CliState, name: str | None, project: Path | None, yes: bool, accept_risks: bool
) -> None:
    """Fetch installed skills again and apply what changed (changed skills ask again)."""
    try:
        installer = _installer(state, project)
        names = (
            [name]
            if name
            else sorted(
                n for n, e in installer.state.skills.items() if e.get("installed_by") == "user"
            )
        )
        if not names:
            click.echo("No installed skills to update.")
        for each in names:
            _update_one(installer, each, yes=yes, accept=accept_risks)
        save_lock(installer)
    except InstallError as exc:
        fail(str(exc), 1)
    except OSError as exc:
        fail(f"the update failed and was rolled back ({exc}).", 1)


def _update_one(installer: Installer, name: str, *, yes: bool, accept: bool = False) -> None:
    from gibberish.install.update import repin, stage_update

    with stage_update(installer, name) as update:
        if update.repin:
            repin(installer, update)
            click.echo(f"{name}: up to date (same files); pinned to {update.new_resolved[:19]}.")
            return
        if not update.changed:
            click.echo(f"{name}: up to date ({update.new_resolved[:19] or 'same content'}).")
            return
        click.secho(
            f"{name}: {update.old_resolved[:19] or '?'} → {update.new_resolved[:19] or '?'}",
            bold=True,
        )
        for line in update.files:
            click.echo(f"    {printable(line)}")
        for line in update.commands:
            click.echo(f"    command {printable(line)}")
        if not _audit_update(installer, name, update, yes=yes, accept=accept):
            click.echo(f"{name}: not updated.")
            return
        if not yes and not _interactive():
            raise InstallError(
                f"{name}: not updated: there is no terminal to ask. Read the changes above, "
                "then run again with --yes."
            )
        if not yes and not click.confirm(
            f"Update {name}? It will ask for approval again.", default=False
        ):
            click.echo(f"{name}: not updated.")
            return
        installer.commit(update.plan, replace=[name])
    click.echo(f"{name}: updated; its next run asks for approval again.")


def _installed_rows(installer: Installer, check: bool) -> list[dict]:
    """One entry per installed skill: its state, on or off, and (with ``check``) whether
    an update is available and what it changes."""
    from gibberish.install.enabled import disabled_names
    from gibberish.install.update import check_update

    off = disabled_names(installer.target.skills_dir)
    data = []
    for name, entry in sorted(installer.state.skills.items()):
        found = check_update(installer, name) if check else None
        changes = found.files if found is not None and found.changed else []
        data.append(
            {
                "name": name,
                **entry,
                "enabled": name not in off,
                "update_available": None if found is None else found.changed,
                "changes": changes,
            }
        )
    return data


UPDATES_AVAILABLE = 3
"""The exit code of ``installed --check`` when at least one update is available."""


def _audit_update(
    installer: Installer, name: str, update: UpdatePlan, *, yes: bool, accept: bool
) -> bool:
    """The audit of what the update brings (findings the installed version did not have,
    and the skills it newly needs); True to go ahead."""
    top = next(p for p in update.plan.skills if p.name == name)
    before = audit_folder(installer.target.skills_dir / name, name=name)
    after = audit_folder(top.found.folder, top.found.skill, name)
    brought = after.new_since(before)
    show_audit(after, brought)
    extra = [p for p in update.plan.skills if p.name != name]
    audits = _show_plan(Plan(skills=extra, mcp=update.plan.mcp)) if extra else []
    risky = [*brought, *(f for a in audits for f in a.findings)]
    return accept_findings(
        [after, *audits], yes=yes, accept=accept, interactive=_interactive(), findings=risky
    )


@click.command("installed")
@_project_option
@click.option(
    "--check",
    is_flag=True,
    help="Fetch each source to see whether an update is available (changes nothing); "
    f"exits {UPDATES_AVAILABLE} when one is.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of a table.")
@pass_state
def installed_command(state: CliState, project: Path | None, check: bool, as_json: bool) -> None:
    """What gibberish installed: source, version, pinned commit or hash, update available.

    Exit codes: 0 done (with --check: no update), 3 with --check when an update is
    available, 1 on an error.
    """
    from gibberish.cli.common import print_json

    installer = _installer(state, project)
    data = _installed_rows(installer, check)
    rows = [
        [
            d["name"],
            d.get("version", ""),
            printable(d.get("source", "")),
            d.get("resolved", "")[:19],
            d.get("installed_by", "user"),
            "on" if d["enabled"] else "off",
            {True: "yes", False: "no", None: "?" if check else "(use --check)"}[
                d["update_available"]
            ],
        ]
        for d in data
    ]
    details = [(d["name"], d["changes"]) for d in data if d["update_available"]]
    if as_json:
        print_json(data)
    elif not rows:
        click.echo(
            f"Nothing installed in {installer.target.skills_dir} yet: try `gibberish install SOURCE`."
        )
    else:
        click.echo(table(["SKILL", "VERSION", "SOURCE", "PINNED", "BY", "ENABLED", "UPDATE"], rows))
        for name, files in details:
            click.echo(f"\n{name}: an update changes {plural(len(files), 'file')}:")
            for line in files:
                click.echo(f"    {printable(line)}")
    if check and any(d["update_available"] for d in data):
        raise SystemExit(UPDATES_AVAILABLE)


COMMANDS = [install_command, uninstall_command, update_command, installed_command]
