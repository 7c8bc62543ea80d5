"""SkillLibrary: every skill folder of every source, kept current cheaply.

Sources are scanned one level deep (``<source>/<name>/SKILL.md``); the first source
listing a name wins (user folder, then extra folders, then bundled), and each shadowed
folder gets a W-SKILL-OVERRIDDEN warning naming both paths. Shadowed skills are not
parsed at all.

``refresh()`` re-reads only skills whose stat signature changed: inode, size, mtime
and ctime of SKILL.md, of the skill folder and of each of its sub-folders (so a new
file or symlink anywhere in the skill is noticed; ctime catches ``touch -d`` and
``cp -p`` tricks that keep mtime). Because file timestamps are coarse (a kernel tick,
two seconds on FAT), a skill whose files changed within ``RACY_WINDOW_NS`` of being
read is "racy": the next refresh re-reads its folder listing and SKILL.md bytes even
with an identical stat and compares them with what was parsed (a digest) — the trick
git uses for its index — so a quick edit that keeps the size is never missed, and a
racy but unchanged skill is not parsed again. A re-parse only counts as ``changed``
when the resulting definition differs.

Every file inside a skill is checked: a symlink that resolves outside the skill folder
makes the skill fail with E-PATH-ESCAPE (a symlinked *skill folder* is fine and is
followed). A skill folder holding more than MAX_TREE_ENTRIES entries cannot be checked
completely, so it fails with E-SKILL-TREE-LARGE: no unchecked skill ever loads. Whatever
goes wrong while reading one skill (even a bug that raises) becomes an error on that
skill (E-INTERNAL); its siblings always load. A folder holding
``.gibberish-source.json`` (written by importers) is ``Trust.UNTRUSTED`` whatever its
source.

Thread-safety: ``load``/``refresh`` are serialized by one lock and build a new
snapshot without holding the state lock; readers only take the state lock long enough
to copy, so the tray's timer can refresh while the UI reads.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from msgspec import Struct
from msgspec.structs import replace

from gibberish import paths
from gibberish.skills import fields as F
from gibberish.skills.disabled import disabled_names
from gibberish.skills.entry import CachedEntry as _Entry
from gibberish.skills.entry import Sig as _Sig
from gibberish.skills.entry import SkillSource
from gibberish.skills.entry import Tree as _Tree
from gibberish.skills.entry import is_racy as _is_racy
from gibberish.skills.model import Diagnostic, Profile, SkillDefinition, Trust

if TYPE_CHECKING:
    from types import ModuleType

    from gibberish.skills.cache import ParseCache


def _parser() -> ModuleType:
    """The SKILL.md parser (with PyYAML and the body parser, some 30 modules and 2 MiB),
    imported when a skill is first read: a load the parse cache answers never needs it."""
    from gibberish.skills import parser

    return parser


def read_skill_bytes(path: Path) -> tuple[bytes | None, Diagnostic | None]:
    """``parser.read_skill_bytes``, the parser imported on first use."""
    return _parser().read_skill_bytes(path)


def parse_skill_bytes(*args: Any, **kwargs: Any) -> SkillDefinition:
    """``parser.parse_skill_bytes``, the parser imported on first use."""
    return _parser().parse_skill_bytes(*args, **kwargs)


RACY_WINDOW_NS = 2_000_000_000
"""Files changed this recently are re-checked on the next refresh (coarse timestamps)."""

MAX_TREE_ENTRIES = 10_000
"""Entries (files, folders, links) a skill folder may hold: each is checked for a symlink
leading out of the skill, and a folder with more fails with E-SKILL-TREE-LARGE."""


class LibraryChanges(Struct, frozen=True):
    """Skill names that appeared, were re-read with a different result, or went away."""

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)


Stat = Callable[[str], os.stat_result]
"""How the library reads a file's status (``os.stat``; a test may hand in a file system
whose timestamps do not move)."""


def _sig(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _stat_sig(stat: Stat, path: str) -> _Sig:
    try:
        return _sig(stat(path))
    except OSError:
        return None


class _TreeWalk:
    """Sub-folders, escaping symlinks and the provenance marker of one skill folder.

    Symlinked sub-folders are checked but not entered (no loops; a link that stays
    inside is walked through its real location anyway). SKILL.md itself is checked by
    the parser. Entries are iterated, not listed: a folder of a million files stops at
    ``limit``, unread."""

    def __init__(self, folder: str, limit: int) -> None:
        self.folder = folder
        self.limit = limit
        self.subdirs: list[str] = []
        self.escapes: list[tuple[str, str]] = []
        self.provenance = False
        self.real_root: str | None = None
        self.count = 0

    def run(self) -> _Tree:
        stack = [(self.folder, "")]
        while stack:
            directory, rel = stack.pop()
            if not self.folder_entries(directory, rel, stack):
                return self.tree(too_many=True)
        return self.tree(too_many=False)

    def tree(self, *, too_many: bool) -> _Tree:
        # Sorted: scandir order is arbitrary, and an unchanged skill must compare equal.
        return _Tree(
            tuple(sorted(self.subdirs)), tuple(sorted(self.escapes)), self.provenance, too_many
        )

    def folder_entries(self, directory: str, rel: str, stack: list[tuple[str, str]]) -> bool:
        """Take the entries of one folder; False when there are more than the limit."""
        try:
            it = os.scandir(directory)
        except OSError:
            return True
        with it:
            while (entry := _next_entry(it)) is not None:
                self.count += 1
                if self.count > self.limit:
                    return False
                try:
                    self.entry(entry, rel, stack)
                except OSError:
                    continue
        return True

    def entry(self, entry: os.DirEntry[str], rel: str, stack: list[tuple[str, str]]) -> None:
        top = not rel
        if top and entry.name == F.PROVENANCE_FILE_NAME:
            self.provenance = True
        if entry.is_symlink():
            if top and entry.name == F.SKILL_FILE_NAME:
                return  # checked by the parser
            if self.real_root is None:
                self.real_root = os.path.realpath(self.folder)
            target = os.path.realpath(entry.path)
            if not _parser().is_inside(target, self.real_root):
                self.escapes.append((rel + entry.name, target))
        elif entry.is_dir(follow_symlinks=False):
            self.subdirs.append(entry.path)
            stack.append((entry.path, rel + entry.name + os.sep))


def _next_entry(it: Iterator[os.DirEntry[str]]) -> os.DirEntry[str] | None:
    try:
        return next(it, None)
    except OSError:
        return None


def _digest(data: bytes | None) -> bytes | None:
    return None if data is None else hashlib.blake2b(data, digest_size=16).digest()


class _Candidate(NamedTuple):
    """A skill folder found while listing a source (a tuple: a thousand are made per refresh)."""

    name: str
    folder: str
    skill_md: str
    skill_md_sig: _Sig
    """Taken while listing (one stat answers both "is it a skill?" and "did it change?")."""
    source: SkillSource


class _Snapshot(Struct, frozen=True):
    skills: dict[str, SkillDefinition]
    ordered: tuple[SkillDefinition, ...]
    diagnostics: tuple[Diagnostic, ...]


_EMPTY_SNAPSHOT = _Snapshot({}, (), ())


class SkillLibrary:
    """All skills from ``sources`` (earlier sources win), with incremental refresh."""

    def __init__(
        self,
        sources: Sequence[SkillSource],
        *,
        profile: Profile = Profile.GIBBERISH,
        racy_window_ns: int = RACY_WINDOW_NS,
        max_tree_entries: int = MAX_TREE_ENTRIES,
        stat: Stat = os.stat,
        cache: ParseCache | None = None,
    ) -> None:
        """``racy_window_ns``: files changed this recently are re-checked on the next
        refresh; ``max_tree_entries``: entries a skill folder may hold; ``stat``: how
        file status is read. The defaults are what the app uses."""
        self._sources = tuple(sources)
        self._cache = cache
        """Parsed entries saved by an earlier process (see ``gibberish.skills.cache``)."""
        self._profile = profile
        self._racy_window_ns = racy_window_ns
        self._max_tree_entries = max_tree_entries
        self._stat = stat
        self._scan_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}
        self._snapshot = _EMPTY_SNAPSHOT
        self._loaded = False

    @classmethod
    def default_sources(
        cls,
        *,
        extra_dirs: Sequence[Path] = (),
        include_user: bool = True,
        include_bundled: bool = True,
    ) -> list[SkillSource]:
        """User skills folder, then ``extra_dirs``, then the bundled skills (duplicates dropped)."""
        sources: list[SkillSource] = []
        if include_user:
            sources.append(SkillSource(paths.user_skills_dir(), Trust.USER))
        sources.extend(SkillSource(Path(d), Trust.USER) for d in extra_dirs)
        if include_bundled:
            sources.append(SkillSource(paths.bundled_skills_dir(), Trust.BUNDLED))
        unique: list[SkillSource] = []
        seen: set[str] = set()
        for source in sources:
            key = os.path.realpath(source.path)
            if key not in seen:
                seen.add(key)
                unique.append(source)
        return unique

    @property
    def sources(self) -> tuple[SkillSource, ...]:
        return self._sources

    @property
    def profile(self) -> Profile:
        return self._profile

    # --- reading -------------------------------------------------------------------

    def skills(self) -> list[SkillDefinition]:
        """Every winning skill, broken ones included, sorted by name."""
        with self._state_lock:
            return list(self._snapshot.ordered)

    @property
    def cache_path(self) -> Path | None:
        """The parse cache's file, or None without one (other caches are keyed the same)."""
        return self._cache.path if self._cache is not None else None

    def content_digests(self) -> dict[int, bytes]:
        """By ``id`` of each current skill definition: the digest of the SKILL.md bytes it
        was parsed from (skills whose file could not be read have none). The ids hold for
        as long as the caller holds the definitions of ``skills()``."""
        entries = self._entries
        return {id(e.skill): e.digest for e in entries.values() if e.digest is not None}

    def get(self, name: str) -> SkillDefinition | None:
        with self._state_lock:
            return self._snapshot.skills.get(name)

    def problems(self) -> list[SkillDefinition]:
        """Skills that have at least one error (they cannot run)."""
        return [s for s in self.skills() if not s.ok]

    def diagnostics(self) -> list[Diagnostic]:
        """Library-level diagnostics first, then every skill's, by skill name."""
        with self._state_lock:
            snapshot = self._snapshot
        result = list(snapshot.diagnostics)
        for skill in snapshot.ordered:
            result.extend(skill.diagnostics)
        return result

    # --- scanning ------------------------------------------------------------------

    def load(self) -> LibraryChanges:
        """Full scan: every skill is parsed again, whatever the cache says."""
        with self._scan_lock:
            return self._scan(full=True)

    def refresh(self) -> LibraryChanges:
        """Re-read only the skills whose files changed on disk since the last scan."""
        with self._scan_lock:
            return self._scan(full=not self._loaded)

    def _scan(self, *, full: bool) -> LibraryChanges:
        library_diags: list[Diagnostic] = []
        winners = self._winners(library_diags)
        now = time.time_ns()
        entries = {
            c.folder: self._read_entry(c, None if full else self._entries.get(c.folder), now)
            for c in winners.values()
        }
        self._entries = entries
        self._loaded = True
        if full and self._cache is not None:  # a refresh (the tray's GUI thread) never writes
            self._cache.save(entries)
        return self._publish(entries, library_diags)

    def _winners(self, library_diags: list[Diagnostic]) -> dict[str, _Candidate]:
        """The skill folder that wins each name (earlier sources first), overrides noted."""
        winners: dict[str, _Candidate] = {}
        for source in self._sources:
            for candidate in self._candidates(source, library_diags):
                first = winners.get(candidate.name)
                if first is None:
                    winners[candidate.name] = candidate
                else:
                    library_diags.append(_override_warning(first, candidate))
        return winners

    def _read_entry(self, candidate: _Candidate, old: _Entry | None, now: int) -> _Entry:
        """The entry of ``candidate``, reusing ``old`` (or the disk cache's) when unchanged."""
        if old is None and self._cache is not None:
            old = self._cache.get(candidate.folder, now, self._racy_window_ns)
        try:
            return self._entry_for(candidate, old, now)
        except Exception as exc:  # one skill must never stop the others from loading
            return self._failed_entry(candidate, exc)

    def _publish(
        self, entries: dict[str, _Entry], library_diags: list[Diagnostic]
    ) -> LibraryChanges:
        """Make ``entries`` the library's skills; what was added, changed and removed."""
        skills = {e.skill.name: e.skill for e in entries.values()}
        with self._state_lock:
            before = self._snapshot.skills
        added = sorted(n for n in skills if n not in before)
        removed = sorted(n for n in before if n not in skills)
        changed = sorted(
            n for n, s in skills.items() if n in before and before[n] is not s and before[n] != s
        )
        ordered = tuple(skills[n] for n in sorted(skills))
        snapshot = _Snapshot(skills, ordered, tuple(library_diags))
        with self._state_lock:
            self._snapshot = snapshot
        return LibraryChanges(tuple(added), tuple(changed), tuple(removed))

    def load_folder(self, folder: Path, *, trust: Trust = Trust.USER) -> SkillDefinition:
        """One skill folder (holding SKILL.md), read exactly as :meth:`load` reads each
        skill of a source: the same walk (symlinks leading out, loops, the entry limit),
        the same SKILL.md checks (a FIFO, a device, a link to itself or out of the
        folder) and the same parse. ``gibberish skills check DIR`` goes through here, so
        it never reports fewer problems than the library then refuses a skill for."""
        path = os.path.abspath(folder)
        skill_md = os.path.join(path, F.SKILL_FILE_NAME)
        source = SkillSource(Path(os.path.dirname(path)), trust)
        candidate = _Candidate(
            os.path.basename(path), path, skill_md, _stat_sig(self._stat, skill_md), source
        )
        try:
            return self._entry_for(candidate, None, time.time_ns()).skill
        except Exception as exc:  # a bug; the skill is reported, never raised
            return _failed_skill(candidate, trust, self._profile, exc)

    def _candidates(self, source: SkillSource, diags: list[Diagnostic]) -> list[_Candidate]:
        """Skill folders of one source, sorted by name; missing sources are just empty."""
        root, off = str(source.path), _turned_off(source)  # off: turned off, kept
        try:
            with os.scandir(root) as it:
                entries = [e for e in it if _listed(e.name, off)]
        except FileNotFoundError:
            return []
        except NotADirectoryError:
            diags.append(
                F.error(
                    F.E_UNREADABLE_DIR,
                    f"the skills source {root} is a file, not a folder; its skills are not loaded.",
                    root,
                    None,
                )
            )
            return []
        except OSError as exc:
            diags.append(
                F.error(
                    F.E_UNREADABLE_DIR,
                    f"cannot list the skills folder {root}: {exc.strerror or exc}; check its "
                    "permissions. Its skills are not loaded.",
                    root,
                    None,
                )
            )
            return []
        found: list[_Candidate] = []
        suffix = os.sep + F.SKILL_FILE_NAME
        for entry in sorted(entries, key=lambda e: e.name):
            try:
                if not entry.is_dir():
                    continue
            except OSError:
                continue
            skill_md = entry.path + suffix
            try:
                sig: _Sig = _sig(self._stat(skill_md))
            except FileNotFoundError:
                sig = None
                missing = not os.path.lexists(skill_md)  # a dangling link is a broken skill
            except OSError:
                sig, missing = None, False
            else:
                missing = False
            if missing:
                diags.append(
                    F.warning(
                        F.W_NO_SKILL_FILE,
                        f"the folder {entry.path} has no SKILL.md, so it is not a skill; add "
                        "one (the name is case-sensitive) or move the folder away.",
                        entry.path,
                        None,
                    )
                )
                continue
            found.append(_Candidate(entry.name, entry.path, skill_md, sig, source))
        return found

    def lookup(self, name: str) -> SkillDefinition | None:
        """The winning skill called ``name``, read without listing or parsing the others.

        The same precedence as a scan (the first source holding ``<name>/SKILL.md``
        wins); None when no source has it. For ``gibberish run SKILL.TOOL``.
        """
        if not name or name.startswith(".") or any(s and s in name for s in (os.sep, os.altsep)):
            return None
        with self._scan_lock:
            candidate = next(filter(None, (_named(s, name) for s in self._sources)), None)
            if candidate is None:
                return None
            old = self._entries.get(candidate.folder)
            return self._read_entry(candidate, old, time.time_ns()).skill

    def _entry_for(self, candidate: _Candidate, old: _Entry | None, now: int) -> _Entry:
        folder = candidate.folder
        signature = (candidate.skill_md_sig, _stat_sig(self._stat, folder))
        same_stat = False
        if (
            old is not None
            and old.signature == signature
            and old.trust is candidate.source.trust
            and old.subdir_sigs == self._sigs(old.tree.subdirs)
        ):
            if not old.racy:
                return old
            same_stat = True
        tree = _TreeWalk(folder, self._max_tree_entries).run()
        data, problem = read_skill_bytes(Path(candidate.skill_md))
        digest = _digest(data)
        if same_stat and old is not None and old.tree == tree and old.digest == digest:
            # Racy but unchanged, as its content shows: no need to parse it again.
            old.racy = _is_racy(now, old.signature, old.subdir_sigs, self._racy_window_ns)
            return old
        subdir_sigs = self._sigs(tree.subdirs)
        trust = Trust.UNTRUSTED if tree.provenance else candidate.source.trust
        try:
            skill = parse_skill_bytes(
                data,
                problem,
                path=Path(candidate.skill_md),
                profile=self._profile,
                trust=trust,
                expected_name=candidate.name,
            )
            if self._profile is Profile.GIBBERISH and not skill.ok and data is not None:
                # an instruction skill is one, not a broken tool skill (gibberish.skills.kind)
                from gibberish.skills.kind import as_instructions  # with the parser: lazily

                skill = as_instructions(skill, data, trust=trust, expected_name=candidate.name)
        except Exception as exc:  # the parser never raises for content; this is a bug
            skill = _failed_skill(candidate, trust, self._profile, exc)
        extra = _tree_diagnostics(folder, tree, self._max_tree_entries)
        if extra:
            skill = replace(skill, diagnostics=skill.diagnostics + tuple(extra))
        if old is not None and old.skill == skill:
            skill = old.skill  # keep identity: unchanged
        return _Entry(
            folder=folder,
            trust=candidate.source.trust,
            signature=signature,
            tree=tree,
            subdir_sigs=subdir_sigs,
            digest=digest,
            skill=skill,
            racy=_is_racy(now, signature, subdir_sigs, self._racy_window_ns),
        )

    def _sigs(self, folders: Sequence[str]) -> tuple[_Sig, ...]:
        return tuple(_stat_sig(self._stat, f) for f in folders)

    def _failed_entry(self, candidate: _Candidate, exc: Exception) -> _Entry:
        """An entry for a skill whose reading raised: listed, broken, re-read next refresh."""
        skill = _failed_skill(candidate, candidate.source.trust, self._profile, exc)
        return _Entry(
            folder=candidate.folder,
            trust=candidate.source.trust,
            signature=(None, None),
            tree=_Tree((), (), False, False),
            subdir_sigs=(),
            digest=None,
            skill=skill,
            racy=True,
        )


def _listed(name: str, off: frozenset[str]) -> bool:
    """Whether a folder entry may be a skill: not hidden, not turned off."""
    return not name.startswith(".") and name not in off


def holds_skill(sources: Sequence[SkillSource], name: str) -> bool:
    """Whether a scan of ``sources`` lists a skill called ``name``: the checks of
    :meth:`SkillLibrary.lookup`, without reading the skill (an install asks this of the
    names it brings)."""
    if not name or name.startswith(".") or any(s and s in name for s in (os.sep, os.altsep)):
        return False
    return any(_named(source, name) is not None for source in sources)


def _turned_off(source: SkillSource) -> frozenset[str]:
    """The names a scan of ``source`` leaves out: those its own list turns off, and for
    the skills bundled with gibberish (a folder that is not the person's to write) also
    those the person's own list names (``gibberish disable NAME`` of a bundled skill)."""
    own = disabled_names(source.path)
    if source.trust is Trust.BUNDLED:
        return own | disabled_names(paths.user_skills_dir())
    return own


def _named(source: SkillSource, name: str) -> _Candidate | None:
    """``source``'s skill folder ``name`` as a scan would list it, or None."""
    folder = os.path.join(source.path, name)
    if name in _turned_off(source):
        return None
    try:
        if not os.path.isdir(folder) or name not in os.listdir(source.path):
            return None  # (the listing: a case-insensitive disk must not match "Git")
    except OSError:
        return None
    skill_md = os.path.join(folder, F.SKILL_FILE_NAME)
    try:
        sig: _Sig = _sig(os.stat(skill_md))
    except FileNotFoundError:
        if not os.path.lexists(skill_md):
            return None  # not a skill: the next source may hold it
        sig = None
    except OSError:
        sig = None
    return _Candidate(name, folder, skill_md, sig, source)


def _failed_skill(
    candidate: _Candidate, trust: Trust, profile: Profile, exc: Exception
) -> SkillDefinition:
    return SkillDefinition(
        name=candidate.name,
        source_path=Path(candidate.skill_md),
        trust=trust,
        profile=profile,
        diagnostics=(_parser().internal_error(candidate.skill_md, exc),),
    )


def _tree_diagnostics(folder: str, tree: _Tree, limit: int) -> list[Diagnostic]:
    diags = [
        F.error(
            F.E_PATH_ESCAPE,
            f"{rel} is a symlink to {target}, outside the skill folder {folder}; a skill may "
            "only use its own files. Replace the link with a copy of what it points to.",
            os.path.join(folder, rel),
            None,
        )
        for rel, target in tree.escapes
    ]
    if tree.too_many:
        diags.append(
            F.error(
                F.E_SKILL_TREE_LARGE,
                f"the skill folder {folder} holds more than {limit:,} files and "
                "folders, too many to check them all for symlinks leading out of it, so the "
                "skill is not loaded; a skill folder should hold only the skill. Move data, "
                "caches and dependencies elsewhere.",
                folder,
                None,
            )
        )
    return diags


def _describe_source(source: SkillSource) -> str:
    return "bundled" if source.trust is Trust.BUNDLED else source.trust.value


def _override_warning(winner: _Candidate, shadowed: _Candidate) -> Diagnostic:
    return F.warning(
        F.W_SKILL_OVERRIDDEN,
        f"the {_describe_source(winner.source)} skill '{winner.name}' in {winner.folder} "
        f"overrides the {_describe_source(shadowed.source)} skill of the same name in "
        f"{shadowed.folder}; rename one of the folders to keep both.",
        os.path.join(winner.folder, F.SKILL_FILE_NAME),
        None,
    )
