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
``skill:NAME``                a skill's submenu (trust badge, description tooltip)
``tool:SKILL.TOOL``           launches a tool
``problems`` / ``problem:NAME``  skills that failed to load
``recent`` / ``recent:N``     recent runs (0 = newest)
``open-skills-folder`` ``reload-skills`` ``install-skill`` ``approvals`` ``settings`` ``quit``
============================  =============================================

Skill submenus are *lazy*: their tools are created when the submenu is about to show
(and, right after a rebuild, on the next idle turn of the event loop), so building the
menu for 200 skills at start-up stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction, QActionGroup, QIcon
from PySide6.QtWidgets import QMenu

from gibberish.trust.provenance import read_provenance
from gibberish.ui import icons
from gibberish.ui.formatting import human_duration, human_title, plain_tooltip

if TYPE_CHECKING:
    from gibberish.app import Engine, RecentRun
    from gibberish.skills.model import Mode, SkillDefinition
    from gibberish.trust.modes import ModeContext

MODES: tuple[str, ...] = ("Global", "Dev", "Meeting", "Writer")
"""``Mode`` values (a ``StrEnum``): the menu needs no import of the skills model."""
MAX_LABEL = 80


class Kind:
    """What a ``MenuItem`` is (plain strings: the menu is built on every open)."""

    ACTION = "action"
    MENU = "menu"
    SEPARATOR = "separator"


Children = Sequence["MenuItem"] | Callable[[], Sequence["MenuItem"]]


class MenuItem:
    """One entry: an action, a submenu (children may be a callable: built lazily) or a line.

    A plain class with slots rather than a dataclass: hundreds are made per menu, and
    start-up time counts (see ``benchmarks/startup.py``).
    """

    __slots__ = (
        "checkable",
        "checked",
        "children",
        "enabled",
        "group",
        "icon",
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
        trigger: Callable[[], None] | None = None,
        children: Children = (),
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

    def items(self) -> Sequence[MenuItem]:
        """The children, building them if they are lazy."""
        return self.children() if callable(self.children) else self.children

    def __repr__(self) -> str:
        return f"MenuItem({self.name!r}, {self.text!r}, kind={self.kind!r})"


def separator(name: str) -> MenuItem:
    return MenuItem(name, kind=Kind.SEPARATOR)


class MenuActions(Protocol):
    """What the menu's entries do (the controller implements it)."""

    def set_mode(self, mode: Mode | str | None) -> None: ...
    def open_command_bar(self) -> None: ...
    def listen(self) -> None: ...
    def launch(self, ref: str) -> None: ...
    def show_problem(self, name: str) -> None: ...
    def show_recent(self, index: int) -> None: ...
    def open_skills_folder(self) -> None: ...
    def install_skill(self) -> None: ...
    def reload_skills(self) -> None: ...
    def open_approvals(self) -> None: ...
    def open_settings(self) -> None: ...
    def quit(self) -> None: ...


def elide(text: str, limit: int = MAX_LABEL) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _skill_tooltip(skill: SkillDefinition) -> str:
    trust = icons.TRUST_LABELS.get(skill.trust, str(skill.trust))
    lines = [skill.description, f"Trust: {trust}"]
    if skill.trust == "untrusted":
        lines.append("Imported from outside: asks before every run.")
        origin = read_provenance(skill.directory)
        if origin is not None:
            lines.append(f"Source: {origin.source}")
    return "\n".join(line for line in lines if line)


def mode_items(context: ModeContext, actions: MenuActions) -> list[MenuItem]:
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
                trigger=lambda m=mode: actions.set_mode(m),
            )
        )
    return items


def skill_items(skill: SkillDefinition, actions: MenuActions) -> list[MenuItem]:
    return [
        MenuItem(
            f"tool:{skill.name}.{tool.name}",
            human_title(tool.name),
            tooltip=f"{tool.description}\n{skill.name}.{tool.name}".strip(),
            trigger=lambda ref=f"{skill.name}.{tool.name}": actions.launch(ref),
        )
        for tool in skill.tools
    ]


def _recent_text(run: RecentRun) -> tuple[str, str]:
    envelope = run.result.envelope
    mark = "✓" if envelope.success else "✗"
    status = run.result.status.value.replace("_", " ")
    text = f"{mark} {run.ref} — {status}, {human_duration(envelope.duration_ms)}"
    tip = envelope.error or (envelope.output.strip().splitlines() or [""])[0]
    return text, elide(tip, 200)


def build_menu(
    engine: Engine, actions: MenuActions, context: ModeContext, *, loading: bool = False
) -> list[MenuItem]:
    """The whole menu for the current state of ``engine`` in ``context``'s mode.

    ``loading``: ``engine`` is the cached stand-in shown while the real Engine loads.
    """
    items: list[MenuItem] = []
    how = "automatic" if context.automatic else "manual"
    items.append(
        MenuItem(
            "mode",
            f"Mode: {context.mode} ({how})",
            kind=Kind.MENU,
            tooltip=context.reason,
            children=lambda: mode_items(context, actions),
        )
    )
    items.append(
        MenuItem(
            "ask",
            "Ask…",
            tooltip="Find a tool by typing (also: run `gibberish` again)",
            trigger=actions.open_command_bar,
        )
    )
    items.append(
        MenuItem(
            "listen",
            "Listen",
            tooltip="Say what to run (also: `gibberish listen`, e.g. from a shortcut)",
            trigger=actions.listen,
        )
    )
    items.append(separator("skills-separator"))

    skills = [s for s in engine.skills() if s.ok and s.tools and s.available_in(context.mode)]
    for skill in skills:
        items.append(
            MenuItem(
                f"skill:{skill.name}",
                skill.name,
                kind=Kind.MENU,
                tooltip=_skill_tooltip(skill),
                icon=icons.trust_icon(skill.trust),
                children=lambda s=skill: skill_items(s, actions),
            )
        )
    if not skills:
        items.append(
            MenuItem(
                "no-skills",
                "Loading skills…" if loading else f"No skills for {context.mode} mode",
                enabled=False,
                tooltip="" if loading else "Add skills to your skills folder, or change the mode",
            )
        )
    items.append(separator("lists-separator"))

    problems = engine.problems()
    problem_items = []
    for skill in problems:
        first = skill.errors[0] if skill.errors else None
        message = first.message if first is not None else "failed to load"
        problem_items.append(
            MenuItem(
                f"problem:{skill.name}",
                elide(f"{skill.name}: {message}"),
                tooltip="\n".join(d.format() for d in skill.errors) or message,
                trigger=lambda n=skill.name: actions.show_problem(n),
            )
        )
    for name, warning in engine.overrides().items():
        problem_items.append(
            MenuItem(
                f"override:{name}",
                elide(f"{name}: overrides another skill of the same name"),
                tooltip=warning.message,
                trigger=lambda n=name: actions.show_problem(n),
            )
        )
    items.append(
        MenuItem(
            "problems",
            f"Problems ({len(problem_items)})" if problem_items else "No problems",
            kind=Kind.MENU,
            enabled=bool(problem_items),
            tooltip="Skills that failed to load or hide another"
            if problem_items
            else "Every skill loaded",
            children=problem_items,
        )
    )

    recent_items = []
    for index, run in enumerate(engine.recent_runs()):
        text, tip = _recent_text(run)
        recent_items.append(
            MenuItem(
                f"recent:{index}",
                text,
                tooltip=tip,
                trigger=lambda i=index: actions.show_recent(i),
            )
        )
    items.append(
        MenuItem(
            "recent",
            "Recent runs",
            kind=Kind.MENU,
            enabled=bool(recent_items),
            children=recent_items,
        )
    )
    items.append(separator("actions-separator"))
    items.extend(
        [
            MenuItem(
                "open-skills-folder", "Open skills folder", trigger=actions.open_skills_folder
            ),
            MenuItem("reload-skills", "Reload skills", trigger=actions.reload_skills),
            MenuItem(
                "install-skill",
                "Install skill…",
                tooltip="From a folder, an archive or a URL (or drop one on the launcher)",
                trigger=actions.install_skill,
            ),
            MenuItem("approvals", "Approvals…", trigger=actions.open_approvals),
            MenuItem("settings", "Settings…", trigger=actions.open_settings),
            separator("quit-separator"),
            MenuItem("quit", "Quit", trigger=actions.quit),
        ]
    )
    return items


# ---------------------------------------------------------------------- QMenu rendering


def _clear(menu: QMenu) -> None:
    """Remove every entry; old objects are unparented first so lookups by name never find them."""
    for action in menu.actions():
        sub = action.menu()
        menu.removeAction(action)
        if sub is not None:
            sub.setParent(None)
            sub.deleteLater()
        elif action.parent() is menu:
            action.setParent(None)
            action.deleteLater()
    for group in menu.findChildren(QActionGroup):
        group.setParent(None)
        group.deleteLater()


class _LazyFill(QObject):
    """Fills its parent submenu from ``item`` once, when it is about to show.

    A child QObject with a bound-method slot rather than a lambda capturing the submenu:
    such a lambda, released while the submenu is destroyed, would drop the submenu's
    last Python reference in the middle of its own destructor.
    """

    def __init__(self, menu: QMenu, item: MenuItem) -> None:
        super().__init__(menu)
        self.item = item
        self.filled = False
        menu.aboutToShow.connect(self.fill)

    def fill(self) -> None:
        if self.filled:
            return
        menu = self.parent()
        if not isinstance(menu, QMenu):
            return
        self.filled = True
        fill_all(populate_qmenu(menu, self.item.items()))


Pending = list[_LazyFill]


def populate_qmenu(menu: QMenu, items: Sequence[MenuItem], *, lazy: bool = True) -> Pending:
    """Fill ``menu`` with ``items`` (replacing what was there); returns lazy submenus not filled yet."""
    _clear(menu)
    menu.setToolTipsVisible(True)
    groups: dict[str, QActionGroup] = {}
    pending: Pending = []
    for item in items:
        if item.kind == Kind.SEPARATOR:
            sep = menu.addSeparator()
            sep.setObjectName(item.name)
            continue
        if item.kind == Kind.MENU:
            sub = QMenu(item.text, menu)
            sub.setObjectName(item.name)
            sub.setToolTipsVisible(True)
            action = sub.menuAction()
            action.setObjectName(item.name)
            action.setToolTip(plain_tooltip(item.tooltip))
            action.setEnabled(item.enabled)
            if item.icon is not None:
                action.setIcon(item.icon)
            menu.addMenu(sub)
            if callable(item.children) and lazy:
                pending.append(_LazyFill(sub, item))
            else:
                pending.extend(populate_qmenu(sub, item.items(), lazy=lazy))
            continue
        action = QAction(item.text, menu)
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
            # The lambda holds only the trigger (it calls the controller), never the action.
            action.triggered.connect(lambda _checked=False, fn=item.trigger: fn())
        menu.addAction(action)
    return pending


def fill_all(pending: Pending) -> None:
    """Fill lazy submenus now (those deleted by a rebuild in the meantime are skipped)."""
    for filler in pending:
        try:
            filler.fill()
        except RuntimeError:  # its submenu was deleted by a rebuild
            continue


def fill_pending_later(pending: Pending) -> None:
    """Fill lazy submenus on the next idle turn, so exported (D-Bus) menus are complete too."""
    if pending:
        fillers = list(pending)
        QTimer.singleShot(0, lambda: fill_all(fillers))
