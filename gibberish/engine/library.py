"""The library facade: where skills come from, loading them, finding a skill or a tool.

Sources are the user folder, extra folders, the bundled skills and, when the tray
follows a project, that project's ``.gibberish/skills`` first. Following a project is an
explicit call (:meth:`LibraryFacade.follow_project`), never a side effect of a query.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gibberish.engine.values import EngineError, EngineOptions, ToolRef
from gibberish.settings import Settings
from gibberish.skills.cache import ParseCache
from gibberish.skills.fields import W_SKILL_OVERRIDDEN
from gibberish.skills.library import LibraryChanges, SkillLibrary, SkillSource
from gibberish.skills.model import Diagnostic, Mode, Profile, SkillDefinition
from gibberish.skills.projectdir import find_project, project_skills_dir
from gibberish.trust import projects as project_trust

_Held = tuple[SkillDefinition, tuple[ToolRef, ...]]


class LibraryFacade:
    """The loaded skills; loads on first use and re-reads only what changed."""

    def __init__(self, options: EngineOptions, settings: Callable[[], Settings]) -> None:
        self._options = options
        self._settings = settings
        self._project_skills: Path | None = None
        self._project_trusted = False
        self._loaded = False
        self._tool_refs: dict[int, _Held] = {}
        self.skill_library = self._new_library()

    # ------------------------------------------------------------------ sources
    def _new_library(self) -> SkillLibrary:
        """A library over the current sources, backed by their parse cache on disk."""
        sources = self.sources()
        return SkillLibrary(sources, cache=ParseCache.for_sources(sources, Profile.GIBBERISH))

    def sources(self) -> list[SkillSource]:
        """The folders skills are read from, the first listing a name winning."""
        extra = tuple(self._options.extra_skills_dirs) + self._settings().extra_skill_paths
        sources = SkillLibrary.default_sources(
            extra_dirs=extra,
            include_user=self._options.include_user,
            include_bundled=self._options.include_bundled,
        )
        if self._project_skills is not None:  # placed by the project's trust (trust/projects)
            sources = project_trust.with_project(sources, self._project_skills)
        return sources

    def sources_changed(self) -> None:
        """The settings' skills folders changed: the next use reads the new sources."""
        self.skill_library = self._new_library()
        self._loaded = False

    def _project_of(self, folder: Path | None) -> tuple[Path | None, bool]:
        """The skills folder of the project holding ``folder`` and whether the person
        trusts that project (trust/projects.py)."""
        project = find_project(folder) if folder is not None else None
        if project is None:
            return None, False
        return project_skills_dir(project), project_trust.is_trusted(project)

    def would_follow(self, folder: Path | None) -> bool:
        """Whether :meth:`follow_project` would change the sources (a few stats, no load)."""
        return self._project_of(folder) != (self._project_skills, self._project_trusted)

    def follow_project(self, folder: Path | None) -> bool:
        """Also load the skills installed in the project holding ``folder`` (gibberish.toml).

        Called with the focused app's working folder; True when the skill sources changed
        (the next use then loads them, through the parse cache like any other load).
        """
        followed = self._project_of(folder)
        if followed == (self._project_skills, self._project_trusted):
            return False
        self._project_skills, self._project_trusted = followed
        self.sources_changed()
        return True

    @property
    def project_skills(self) -> Path | None:
        """The skills folder of the project followed now (trusted or not), else None."""
        return self._project_skills

    def untrusted_project(self) -> tuple[Path, list[str]] | None:
        """The followed project whose skills wait for the person's trust (the tray asks)."""
        return project_trust.waiting(self._project_skills)

    # ------------------------------------------------------------------ loading
    def ensure_loaded(self) -> None:
        if not self._loaded:
            self.skill_library.load()
            self._loaded = True

    def reload(self) -> LibraryChanges:
        """Re-read what changed on disk (cheap; the tray calls it from its file watcher)."""
        if not self._loaded:
            self._loaded = True
            return self.skill_library.load()
        return self.skill_library.refresh()

    def skills(self) -> list[SkillDefinition]:
        self.ensure_loaded()
        return self.skill_library.skills()

    def problems(self) -> list[SkillDefinition]:
        self.ensure_loaded()
        return self.skill_library.problems()

    def diagnostics(self) -> list[Diagnostic]:
        self.ensure_loaded()
        return self.skill_library.diagnostics()

    def overrides(self) -> dict[str, Diagnostic]:
        """Skills that hide another of the same name (a user ``files`` over the bundled
        one), by name, with the warning that names both folders."""
        found: dict[str, Diagnostic] = {}
        for diagnostic in self.diagnostics():
            if diagnostic.code == W_SKILL_OVERRIDDEN and diagnostic.file:
                found.setdefault(Path(diagnostic.file).parent.name, diagnostic)
        return found

    def watched_folders(self) -> tuple[list[Path], list[Path]]:
        """The skills folders and every skill's own folder: what a file watcher follows."""
        self.ensure_loaded()
        return [s.path for s in self.skill_library.sources], [s.directory for s in self.skills()]

    # ------------------------------------------------------------------ lookup
    def require(self, name: str) -> SkillDefinition:
        """The skill called ``name``, or an ``EngineError`` listing the known ones."""
        self.ensure_loaded()
        found = self.skill_library.get(name)
        if found is None:
            known = ", ".join(s.name for s in self.skill_library.skills()) or "none"
            raise EngineError(f"No skill named {name!r}. Known skills: {known}.")
        return found

    def get(self, name: str) -> SkillDefinition | None:
        """The skill called ``name`` (broken ones included), or None."""
        self.ensure_loaded()
        return self.skill_library.get(name)

    def _require_quickly(self, name: str) -> SkillDefinition:
        """Like :meth:`require`, but before the first full load only its own folder is read
        (``gibberish run x.y`` at 1,000 skills parses one)."""
        if not self._loaded:
            found = self.skill_library.lookup(name)
            if found is not None:
                return found
        return self.require(name)

    def tools(self, mode: Mode | None = None) -> list[ToolRef]:
        """Tools of every loaded, valid skill; only those offered in ``mode`` when given."""
        refs: list[ToolRef] = []
        kept: dict[int, _Held] = {}
        for skill in self.skills():
            held = self._tool_refs.get(id(skill))
            if held is not None and held[0] is not skill:
                held = None  # another skill object at a reused address
            if skill.ok and (mode is None or skill.available_in(mode)):
                if held is None:
                    held = (skill, tuple(ToolRef(skill, tool) for tool in skill.tools))
                refs.extend(held[1])
            if held is not None:
                kept[id(skill)] = held
        self._tool_refs = kept  # an unchanged skill keeps its refs (views compare them)
        return refs

    def find_tool(self, ref: str) -> ToolRef:
        """Resolve ``skill.tool`` (or ``skill__tool``, the model-feed form)."""
        skill_name, sep, tool_name = ref.partition(".")
        if not sep:
            skill_name, sep, tool_name = ref.partition("__")
        if not sep or not skill_name or not tool_name:
            raise EngineError(f"{ref!r} is not SKILL.TOOL (for example git.git_status).")
        skill = self._require_quickly(skill_name)
        if not skill.ok:
            first = skill.errors[0].format() if skill.errors else "it has errors"
            raise EngineError(f"Skill {skill.name!r} failed to load: {first}")
        tool = skill.tool(tool_name)
        if tool is None:
            names = ", ".join(t.name for t in skill.tools)
            raise EngineError(
                f"Skill {skill.name!r} has no tool {tool_name!r}. Its tools: {names}."
            )
        return ToolRef(skill, tool)
