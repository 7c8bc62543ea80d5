"""Which skill names the app already has, asked name by name instead of read all at once.

Installing one folder needs to know, for the one or few names it brings, whether any
skills folder already holds a skill of that name (to say "would overwrite a skill of
your own", or that a dependency is already there). Reading every skill of every folder
to answer that, as the Engine's library does, costs more than the install itself; this
answers each question with the library's own lookup rules (``holds_skill``): the same
folders, the same precedence, a turned-off skill not counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gibberish.skills.library import SkillSource, holds_skill


class NamesInSources:
    """``name in names``: whether one of ``sources`` holds a skill ``name``, or the name
    was added (``names |= {...}``, as a lock's restore does)."""

    def __init__(self, sources: Sequence[SkillSource]) -> None:
        self._sources = tuple(sources)
        self._added: set[str] = set()
        self._known: dict[str, bool] = {}

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name in self._added:
            return True
        if name not in self._known:
            self._known[name] = holds_skill(self._sources, name)
        return self._known[name]

    def __ior__(self, names: Iterable[str]) -> NamesInSources:
        self._added.update(names)
        return self

    def __or__(self, names: Iterable[str]) -> NamesInSources:
        """A copy that also holds ``names`` (so ``available |= ...`` works whichever kind
        of name set an installer was given)."""
        copy = NamesInSources(self._sources)
        copy._added = self._added | set(names)
        copy._known = dict(self._known)
        return copy
