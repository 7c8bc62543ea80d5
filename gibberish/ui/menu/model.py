"""The menu model shared by the tray menu and the launcher window.

``build_menu`` turns the Engine's state (mode, skills, problems, recent runs) into a
small tree of ``MenuItem`` values; ``populate_qmenu`` renders that tree as a ``QMenu``
(the tray) and ``launcher.LauncherWindow`` renders the same tree as a tree view with
buttons. So both show exactly the same things, and every entry has one object name that
tests (and people writing desktop automation) can rely on:

============================  =============================================
``mode``                      the mode submenu
``mode-auto`` ``mode-global``  radio items (``mode-dev``, ``mode-meeting``, ``mode-writer``)
``ask``                       opens the command bar
``skill:NAME``                a skill's submenu (its icon with the trust badge, description tooltip)
``tool:SKILL.TOOL``           launches a tool
``problems`` / ``problem:NAME``  skills that failed to load
``recent`` / ``recent:N``     recent runs (0 = newest)
``turn-off:NAME``             *Turn off* at the end of a skill's submenu
``turned-off`` / ``turn-on:NAME``  skills turned off, each with *Turn on* (when any is off)
``open-skills-folder`` ``reload-skills`` ``install-skill`` ``approvals`` ``settings`` ``quit``
``export-plugin``             *Export as a plugin…* (after ``install-skill``)
============================  =============================================

Skill submenus are *lazy*: their tools are created when the submenu is about to show
(or on an idle turn before that), so building the menu for 1,000 skills stays cheap.
The tray keeps its ``QMenu`` and changes only the entries whose ``signature`` changed
(``menu_view``; see docs/adr/0018-menu-diff.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Protocol, cast

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QActionGroup, QIcon
from PySide6.QtWidgets import QMenu

from gibberish.ui import icons
from gibberish.ui.formatting import human_duration, human_title, plain_tooltip, title_of_ref
from gibberish.ui.menu.dispatch import carry_trigger, dispatch_triggers
from gibberish.ui.menu.protocol import MenuContext, MenuLibrary, MenuSkill, offered_in
from gibberish.ui.menu.skill_badges import badged_skill_icon

if TYPE_CHECKING:
    from pathlib import Path

    from gibberish.engine.core import RecentRun
    from gibberish.skills.model import Mode

MODES: tuple[str, ...] = ("Global", "Dev", "Meeting", "Writer")
"""``Mode`` values (a ``StrEnum``): the menu needs no import of the skills model."""
MAX_LABEL = 80


class Kind:
    """What a ``MenuItem`` is (plain strings: cheap to make and to compare)."""

    ACTION = "action"
    MENU = "menu"
    SEPARATOR = "separator"


Children = Sequence["MenuItem"] | Callable[[], Sequence["MenuItem"]]


class MenuItem:
    """One entry: an action, a submenu (children may be a callable: built lazily) or a line.

    A plain class with slots rather than a record: hundreds are made per menu, and
    start-up time counts (see ``benchmarks/startup.py``).
    """

    __slots__ = (
        "checkable",
        "checked",
        "children",
        "enabled",
        "group",
        "icon",
        "key",
        "kind",
        "name",
        "text",
        "tooltip",
        "trigger",
    )

    def __init__(
        self,
        name: str,
        text: str = "",
        kind: str = Kind.ACTION,
        tooltip: str = "",
        icon: QIcon | None = None,
        enabled: bool = True,
        checkable: bool = False,
        checked: bool = False,
        group: str | None = None,
        trigger: Callable[[], object] | None = None,
        children: Children = (),
        key: object = None,
    ) -> None:
        self.name = name
        self.text = text
        self.kind = kind
        self.tooltip = tooltip
        self.icon = icon
        self.enabled = enabled
        self.checkable = checkable
        self.checked = checked
        self.group = group
        self.trigger = trigger
        self.children = children
        self.key = key
        """What lazy ``children`` are made from: equal keys, equal children (see ``signature``)."""

    def items(self) -> Sequence[MenuItem]:
        """The children, building them if they are lazy."""
        return self.children() if callable(self.children) else self.children

    def __repr__(self) -> str:
        return f"MenuItem({self.name!r}, {self.text!r}, kind={self.kind!r})"


def signature(item: MenuItem) -> tuple:
    """Everything an entry shows: two items with equal signatures render the same.

    Lazy children count through the item's ``key``; a lazy submenu without a key is
    *volatile* (filled again each time it opens), so its signature leaves them out.
    """
    icon = item.icon.cacheKey() if item.icon is not None else None
    head = (item.kind, item.text, item.tooltip, icon, item.enabled, item.checkable, item.checked)
    if callable(item.children):
        return (*head, item.group, item.key)
    return (*head, item.group, item.key, tuple(signature(c) for c in item.children))


def separator(name: str) -> MenuItem:
    return MenuItem(name, kind=Kind.SEPARATOR)


class MenuActions(Protocol):
    """What the menu's entries do (the controller implements it)."""

    def set_mode(self, mode: Mode | str | None) -> None: ...
    def open_command_bar(self) -> None: ...
    def listen(self) -> None: ...
    def launch(self, ref: str) -> object: ...
    def show_problem(self, name: str) -> None: ...
    def show_recent(self, index: int) -> None: ...
    def open_skills_folder(self) -> None: ...
    def install_skill(self) -> None: ...
    def export_plugin(self) -> None: ...
    def reload_skills(self) -> None: ...
    def open_approvals(self) -> None: ...
    def open_settings(self) -> None: ...
    def trust_project(self, project: Path, names: list[str]) -> None: ...
    def switch_skill(self, name: str, on: bool) -> None: ...
    def quit(self) -> None: ...


def project_item(waiting: tuple[Path, list[str]], actions: MenuActions) -> MenuItem:
    """*Trust project “X”…*: the question about a project folder whose skills load as
    untrusted until the person trusts it (gibberish/trust/projects.py)."""
    project, names = waiting
    return MenuItem(
        "trust-project",
        elide(f"Trust project “{project.name}”…"),
        tooltip=f"{project}: its skills ({', '.join(names)}) load as untrusted until you trust it",
        trigger=lambda: actions.trust_project(project, names),
        key=(str(project), tuple(names)),
    )


def elide(text: str, limit: int = MAX_LABEL) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _skill_tooltip(skill: MenuSkill) -> str:
    trust = icons.TRUST_LABELS.get(skill.trust, str(skill.trust))
    lines = [skill.description, f"Trust: {trust}"]
    if skill.trust == "untrusted":
        lines.append("Imported from outside: asks before every run.")
        from gibberish.trust.provenance import read_provenance  # untrusted skills only

        origin = read_provenance(skill.directory)
        if origin is not None:
            lines.append(f"Source: {origin.source}")
    return "\n".join(line for line in lines if line)


def mode_items(context: MenuContext, actions: MenuActions) -> list[MenuItem]:
    items = [
        MenuItem(
            "mode-auto",
            "Automatic",
            tooltip=context.reason if context.automatic else "Guess the mode from the focused app",
            checkable=True,
            checked=context.automatic,
            group="mode",
            trigger=lambda: actions.set_mode(None),
        ),
        separator("mode-separator"),
    ]
    for mode in MODES:
        items.append(
            MenuItem(
                f"mode-{mode.lower()}",
                mode,
                checkable=True,
                checked=not context.automatic and context.mode == mode,
                group="mode",
                trigger=partial(actions.set_mode, mode),
            )
        )
    return items


def skill_items(skill: MenuSkill, actions: MenuActions) -> list[MenuItem]:
    from gibberish.skills.model import tool_ref  # loaded by then: the skill is one

    refs = [(tool, tool_ref(skill.name, tool.name)) for tool in skill.tools]
    items = [
        MenuItem(
            f"tool:{ref}",
            human_title(tool.name),
            tooltip=f"{tool.description}\n{ref}".strip(),
            trigger=partial(actions.launch, ref),  # kept by its action: half a closure's size
        )
        for tool, ref in refs
    ]
    items.append(separator(f"turn-off-separator:{skill.name}"))
    items.append(
        MenuItem(
            f"turn-off:{skill.name}",
            "Turn off",
            tooltip="Take it out of the menu and of what the model sees; its files are kept",
            trigger=partial(actions.switch_skill, skill.name, False),
        )
    )
    return items


def turned_off_items(names: Sequence[str], actions: MenuActions) -> list[MenuItem]:
    """*Skills turned off (N)*, each with *Turn on* (nothing when none is off)."""
    if not names:
        return []
    entries = [
        MenuItem(
            f"turn-on:{name}",
            elide(f"Turn on {human_title(name)}"),
            tooltip="Put it back in the menu and in what the model sees",
            trigger=partial(actions.switch_skill, name, True),
        )
        for name in names
    ]
    return [
        MenuItem(
            "turned-off",
            f"Skills turned off ({len(names)})",
            kind=Kind.MENU,
            children=entries,
            key=tuple(names),
        )
    ]


STATUS_WORDS = {"succeeded": "finished", "cancelled": "stopped", "timed_out": "timed out"}
"""A run's final status as the *Recent runs* entry says it ("failed" stays)."""


def _recent_text(run: RecentRun) -> tuple[str, str]:
    """The entry: ✓ or ✗, the tool's title, how it ended and how long it took; the
    tooltip: the error or the first line of output, then the tool's id."""
    envelope = run.result.envelope
    mark = "✓" if envelope.success else "✗"
    status = run.result.status.value
    status = STATUS_WORDS.get(status, status.replace("_", " "))
    text = f"{mark} {title_of_ref(run.ref)} — {status}, {human_duration(envelope.duration_ms)}"
    tip = envelope.error or (envelope.output.strip().splitlines() or [""])[0]
    return text, f"{elide(tip, 200)}\n{run.ref}".strip()


def build_menu(
    library: MenuLibrary,
    recent: Sequence[RecentRun],
    actions: MenuActions,
    context: MenuContext,
    *,
    loading: bool = False,
) -> list[MenuItem]:
    """The whole menu for ``library`` and the ``recent`` runs in ``context``'s mode.

    ``loading``: ``library`` is the cached stand-in shown while the real Engine loads.
    Made of the sections below, which ``menu_source`` also uses one by one (it keeps the
    skill section until the skills or the mode change).
    """
    return [
        *head_items(context, actions),
        *skill_section(library.skills(), context, actions, loading=loading),
        separator("lists-separator"),
        *list_items(library, recent, actions),
        *tail_items(actions),
    ]


def head_items(context: MenuContext, actions: MenuActions) -> list[MenuItem]:
    """The mode submenu, *Ask…*, *Listen* and the line above the skills."""
    how = "automatic" if context.automatic else "manual"
    return [
        MenuItem(
            "mode",
            f"Mode: {context.mode} ({how})",
            kind=Kind.MENU,
            tooltip=context.reason,
            children=lambda: mode_items(context, actions),
            key=(str(context.mode), context.automatic, context.reason),
        ),
        MenuItem(
            "ask",
            "Ask…",
            tooltip="Find a tool by typing (also: run “gibberish” again)",
            trigger=actions.open_command_bar,
        ),
        MenuItem(
            "listen",
            "Listen",
            tooltip="Say what to run (also: “gibberish listen”, e.g. from a shortcut)",
            trigger=actions.listen,
        ),
        separator("skills-separator"),
    ]


def skill_entry(skill: MenuSkill, actions: MenuActions) -> MenuItem:
    """One skill's submenu entry. Its key is what the submenu shows (each tool's name and
    description): an edit that changes them replaces the submenu, and the menu drawn from
    ``menu_cache`` keeps every entry the loaded skills show the same way."""
    return MenuItem(
        f"skill:{skill.name}",
        human_title(skill.name),
        kind=Kind.MENU,
        tooltip=_skill_tooltip(skill),
        icon=badged_skill_icon(skill.name, skill.directory, skill.trust),
        children=lambda: skill_items(skill, actions),
        key=(skill.name, tuple((t.name, t.description) for t in skill.tools)),
    )


def skill_section(
    skills: Sequence[MenuSkill],
    context: MenuContext,
    actions: MenuActions,
    *,
    loading: bool = False,
    entry: Callable[[MenuSkill], MenuItem] | None = None,
) -> list[MenuItem]:
    """A submenu per skill offered in ``context``'s mode (``entry`` makes each one)."""
    make = entry or (lambda skill: skill_entry(skill, actions))
    items = [make(s) for s in skills if offered_in(s, context.mode)]
    if not items:
        items.append(
            MenuItem(
                "no-skills",
                "Loading skills…" if loading else f"No skills for {context.mode} mode",
                enabled=False,
                tooltip="" if loading else "Add skills to your skills folder, or change the mode",
            )
        )
    return items


def problem_items(library: MenuLibrary, actions: MenuActions) -> list[MenuItem]:
    """Skills that failed to load, then skills that hide another of the same name."""
    items = []
    for skill in library.problems():
        first = skill.errors[0] if skill.errors else None
        message = first.message if first is not None else "failed to load"
        items.append(
            MenuItem(
                f"problem:{skill.name}",
                elide(f"{skill.name}: {message}"),
                tooltip="\n".join(d.format() for d in skill.errors) or message,
                trigger=partial(actions.show_problem, skill.name),
            )
        )
    for name, warning in library.overrides().items():
        items.append(
            MenuItem(
                f"override:{name}",
                elide(f"{name}: overrides another skill of the same name"),
                tooltip=warning.message,
                trigger=partial(actions.show_problem, name),
            )
        )
    return items


def problems_menu(entries: list[MenuItem]) -> MenuItem:
    """*⚠ 2 skills have problems* (it stands out), or a quiet *No problems*."""
    count = len(entries)
    text = "No problems"
    if count:
        text = "⚠ 1 skill has a problem" if count == 1 else f"⚠ {count} skills have problems"
    return MenuItem(
        "problems",
        text,
        kind=Kind.MENU,
        enabled=bool(entries),
        tooltip="Skills that failed to load or hide another" if entries else "Every skill loaded",
        children=entries,
    )


def recent_menu(recent: Sequence[RecentRun], actions: MenuActions) -> MenuItem:
    entries = []
    for index, run in enumerate(recent):
        text, tip = _recent_text(run)
        entries.append(
            MenuItem(
                f"recent:{index}",
                text,
                tooltip=tip,
                trigger=partial(actions.show_recent, index),
            )
        )
    return MenuItem(
        "recent", "Recent runs", kind=Kind.MENU, enabled=bool(entries), children=entries
    )


def list_items(
    library: MenuLibrary, recent: Sequence[RecentRun], actions: MenuActions
) -> list[MenuItem]:
    """*Problems* and *Recent runs*."""
    return [problems_menu(problem_items(library, actions)), recent_menu(recent, actions)]


def tail_items(actions: MenuActions) -> list[MenuItem]:
    """The folder, reload, install, approvals, settings and quit entries."""
    return [
        separator("actions-separator"),
        MenuItem("open-skills-folder", "Open skills folder", trigger=actions.open_skills_folder),
        MenuItem("reload-skills", "Reload skills", trigger=actions.reload_skills),
        MenuItem(
            "install-skill",
            "Install skill…",
            tooltip="From a folder, an archive or a URL (or drop one on the launcher)",
            trigger=actions.install_skill,
        ),
        MenuItem(
            "export-plugin",
            "Export as a plugin…",
            tooltip="Your skills as one folder for Claude Code, Gemini CLI and other agents",
            trigger=actions.export_plugin,
        ),
        MenuItem("approvals", "Approvals…", trigger=actions.open_approvals),
        MenuItem("settings", "Settings…", trigger=actions.open_settings),
        separator("quit-separator"),
        MenuItem("quit", "Quit", trigger=actions.quit),
    ]


# ---------------------------------------------------------------------- QMenu rendering


def _clear(menu: QMenu) -> None:
    """Remove every entry; old objects are unparented first so lookups by name never find them."""
    for action in menu.actions():
        discard_entry(menu, action)
    for group in menu.findChildren(QActionGroup):
        group.setParent(None)
        group.deleteLater()


class _LazyFill:
    """Fills a submenu from ``item`` when it is about to show.

    Once, when the item has a ``key`` (its children stay what they were made from); every
    time, when it has none (*volatile*: the *Context* submenu reads the session's state).
    A plain object (connecting to a QObject's method costs several times more, and there
    is one per skill) that holds the submenu's own action, never the submenu: the action
    belongs to the submenu in C++, so when the submenu is destroyed and its connection
    drops this object, no last Python reference to the submenu dies inside its destructor.
    """

    __slots__ = ("action", "filled", "item", "volatile")

    def __init__(self, menu: QMenu, item: MenuItem) -> None:
        self.action = menu.menuAction()
        self.item: MenuItem | None = item
        self.filled = False
        self.volatile = item.key is None
        # A closure, which the connection keeps alive (a bound method of a plain object
        # would be held weakly, and this object has no other owner).
        menu.aboutToShow.connect(lambda: self.fill())

    def fill(self) -> None:
        if self.filled and not self.volatile:
            return
        menu = self.action.menu()  # RuntimeError once the submenu was deleted
        if not isinstance(menu, QMenu) or menu.parent() is None or self.item is None:
            return  # taken out of its menu (replaced): it is about to be deleted
        self.filled = True
        fill_all(populate_qmenu(menu, self.item.items()))
        if not self.volatile:  # filled for good: what it was made from may go
            self.item = None

    def fill_once(self) -> None:
        """Fill unless filled already (a volatile menu fills on each show anyway)."""
        if not self.filled:
            self.fill()


Pending = list[_LazyFill]


def make_entry(
    menu: QMenu,
    item: MenuItem,
    groups: dict[str, QActionGroup],
    pending: Pending,
    *,
    lazy: bool = True,
) -> QAction:
    """The action for ``item`` (a submenu's action for a submenu), appended to ``menu``;
    lazy submenus not filled yet are appended to ``pending``.

    Made by ``menu`` itself (``addMenu``, ``addAction``, ``addSeparator``): objects
    created on the C++ side cost about half of those constructed from Python, which
    matters for the few hundred submenus of a warm start's first menu.
    """
    if item.kind == Kind.SEPARATOR:
        sep = menu.addSeparator()
        sep.setObjectName(item.name)
        return sep
    if item.kind == Kind.MENU:
        if item.icon is not None:
            sub = menu.addMenu(item.icon, item.text)
        else:
            sub = menu.addMenu(item.text)
        sub.setObjectName(item.name)
        sub.setToolTipsVisible(True)
        action = sub.menuAction()
        action.setObjectName(item.name)
        action.setToolTip(plain_tooltip(item.tooltip))
        action.setEnabled(item.enabled)
        if callable(item.children) and lazy:
            pending.append(_LazyFill(sub, item))
        else:
            pending.extend(populate_qmenu(sub, item.items(), lazy=lazy))
        return action
    action = menu.addAction(item.text)
    action.setObjectName(item.name)
    action.setToolTip(plain_tooltip(item.tooltip or item.text))
    action.setEnabled(item.enabled)
    if item.icon is not None:
        action.setIcon(item.icon)
    if item.checkable:
        action.setCheckable(True)
        action.setChecked(item.checked)
    if item.group:
        group = groups.get(item.group)
        if group is None:
            group = groups[item.group] = QActionGroup(menu)
            group.setExclusive(True)
        group.addAction(action)
    if item.trigger is not None:
        carry_trigger(action, item.trigger)  # run by the menu's one connection (dispatch.py)
    return action


def discard_entry(menu: QMenu, action: QAction) -> None:
    """Take ``action`` (or its submenu) out of ``menu``; unparented first, so lookups by
    name never find it, and deleted on the next turn of the event loop."""
    sub = cast("QObject | None", action.menu())  # None for a plain action, whatever the stub says
    menu.removeAction(action)
    if sub is not None:
        sub.setParent(None)
        sub.deleteLater()
    elif action.parent() is menu:
        action.setParent(None)
        action.deleteLater()


def populate_qmenu(menu: QMenu, items: Sequence[MenuItem], *, lazy: bool = True) -> Pending:
    """Fill ``menu`` with ``items`` (replacing what was there); returns lazy submenus not filled yet."""
    _clear(menu)
    menu.setToolTipsVisible(True)
    dispatch_triggers(menu)
    groups: dict[str, QActionGroup] = {}
    pending: Pending = []
    for item in items:
        make_entry(menu, item, groups, pending, lazy=lazy)
    return pending


def fill_all(pending: Pending) -> None:
    """Fill lazy submenus now (those deleted by a rebuild in the meantime are skipped)."""
    for filler in pending:
        try:
            filler.fill_once()
        except RuntimeError:  # its submenu was deleted by a rebuild
            continue
