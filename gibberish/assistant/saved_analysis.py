"""The router's analysis of each skill, kept on disk next to the parse cache.

A model request in a new process (``gibberish ask`` / ``prompt``) needs the tool index
(``tool_index.py``): every tool's words and declaration sizes. Made from scratch that is
about half a second at 1,000 skills, more than the rest of the command. What one skill
analyses to depends only on what its SKILL.md parsed to and on the exposed names of its
tools, so it is saved here, per skill, under a key that changes whenever either could:

* the SKILL.md's path and trust, and the digest of the bytes the library parsed (the
  library's own, ``SkillLibrary.content_digests``): an edited file has another digest;
* the exposed names of the skill's tools (a name clash elsewhere renames them);
* the stamp of the code that produced it: the parse cache's (parser, versions) and this
  package's modules (words, exposed names, declarations). Another stamp and the whole
  file is ignored.

A skill without a digest (unreadable, or not the library's current object) is analysed
as before and not saved. The file is one per parse cache (``analysed-<same key>.pickle``),
written atomically, private (0600 in the 0700 cache folder), read only from a file this
user owns that nobody else can write, with an unpickler that builds no object at all but
strings, numbers, tuples, frozensets and dicts: a damaged or foreign file is ignored and
rewritten, never trusted. Deleting it costs one analysis.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gibberish.logger import logger
from gibberish.skills.cache import code_stamp as parser_stamp
from gibberish.skills.cache import without_collection

if TYPE_CHECKING:
    from gibberish.assistant.naming import ExposedTool
    from gibberish.assistant.skill_part import SkillPart
    from gibberish.skills.model import SkillDefinition

log = logger("gibberish.assistant.saved_analysis")

FORMAT = 2
"""Bumped whenever what is stored changes shape."""

Key = tuple[str, str, bytes, tuple[str, ...]]
Saved = tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...], dict[str, tuple[int, ...]]]
"""Per tool, its name words and its text words, each as a tuple: the index only asks
whether a word is among them, and 10,000 tuples unpickle in a quarter of the time the
same frozensets take (2.5 against 10.9 ms at 1,000 skills)."""


def _code_stamp() -> tuple[Any, ...]:
    """The parse cache's stamp and this package's code (name, size, mtime of each module:
    words, names and declarations are all made here)."""
    sources = []
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        with contextlib.suppress(OSError):
            info = path.stat()
            sources.append((path.name, info.st_size, info.st_mtime_ns))
    return (FORMAT, parser_stamp(), tuple(sources))


class _DataOnly(pickle.Unpickler):
    """Strings, numbers, tuples, frozensets and dicts are opcodes: every global is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a saved analysis")


class SavedAnalyses:
    """The saved analyses of one parse cache: read once on first use, written on ``save``.

    ``library`` returns the current skill library (its parse cache's path and its content
    digests); the front ends may swap libraries when the skill sources change."""

    def __init__(self, library: Callable[[], Any], costs: Mapping[str, Callable[..., int]]):
        self._library = library
        self._costs = dict(costs)
        """Declaration-size functions by the name they are saved under."""
        self._names = {cost: name for name, cost in self._costs.items()}
        self._path: Path | None = None
        self._saved: dict[Key, Saved] = {}
        self._digests: Mapping[int, bytes] = {}
        self.unsaved = False
        """Whether a part was analysed afresh since the file was read or written."""

    @staticmethod
    def path_for(parse_cache: Path) -> Path:
        return parse_cache.with_name(parse_cache.name.replace("parsed-", "analysed-", 1))

    def refresh(self) -> None:
        """Follow the library: its digests now, and its file when the sources changed."""
        library = self._library()
        cache = getattr(library, "cache_path", None)
        path = self.path_for(cache) if cache is not None else None
        if path != self._path:
            self._path = path
            self._saved = self._read(path) if path is not None else {}
            self.unsaved = False
        self._digests = library.content_digests() if path is not None else {}

    def key(self, skill: SkillDefinition, names: Sequence[str]) -> Key | None:
        digest = self._digests.get(id(skill))
        if digest is None:
            return None
        return (str(skill.source_path), skill.trust.value, digest, tuple(names))

    def part(self, skill: SkillDefinition, tools: Sequence[ExposedTool]) -> SkillPart | None:
        """The saved analysis of ``skill`` under these exposed names, as a part; or None."""
        from gibberish.assistant.skill_part import SkillPart

        key = self.key(skill, [t.name for t in tools])
        found = self._saved.get(key) if key is not None else None
        if found is None:
            self.unsaved = self.unsaved or key is not None
            return None
        names, texts, costs = found
        if len(names) != len(tools):
            return None
        by_function = {self._costs[n]: c for n, c in costs.items() if n in self._costs}
        vocabulary = frozenset().union(*names, *texts)
        return SkillPart(skill, tuple(tools), names, texts, vocabulary, by_function)

    def save(self, parts: Iterable[SkillPart]) -> bool:
        """Write the analyses of ``parts`` (those with a key), replacing the file; True if
        written. Words are interned so the file and its readers hold each word once."""
        if self._path is None:
            return False
        intern = sys.intern
        data: dict[Key, Saved] = {}
        for part in parts:
            key = self.key(part.skill, [t.name for t in part.tools])
            if key is None:
                continue
            names = tuple(tuple(map(intern, w)) for w in part.name_words)
            texts = tuple(tuple(map(intern, w)) for w in part.text_words)
            costs = {self._names[c]: v for c, v in part.costs.items() if c in self._names}
            data[key] = (names, texts, costs)
        try:
            _write(self._path, (_code_stamp(), data))
        except (OSError, pickle.PicklingError, TypeError) as exc:
            log.warning("cannot write the router's saved analysis %s: %s", self._path, exc)
            return False
        self._saved = data
        self.unsaved = False
        return True

    def _read(self, path: Path) -> dict[Key, Saved]:
        try:
            with open(path, "rb") as handle:
                info = os.fstat(handle.fileno())
                if info.st_uid != os.getuid() or info.st_mode & 0o022:
                    log.warning("ignoring %s: not private to this user", path)
                    return {}
                data = handle.read()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            log.warning("cannot read %s (%s); it will be rebuilt", path, exc)
            return {}
        try:
            with without_collection():
                stamp, saved = _DataOnly(io.BytesIO(data)).load()
        except Exception as exc:  # any damage at all: the file is only a shortcut
            log.warning("%s is unreadable (%s); it will be rebuilt", path, exc)
            return {}
        if stamp != _code_stamp() or not _well_formed(saved):
            log.info("%s was written by other code; it will be rebuilt", path)
            return {}
        return saved


def _well_formed(saved: Any) -> bool:
    """Each value is (name words, text words, costs) of the shape ``save`` writes."""
    if not isinstance(saved, dict):
        return False
    for value in saved.values():
        if not (isinstance(value, tuple) and len(value) == 3):
            return False
        names, texts, costs = value
        if not (isinstance(names, tuple) and isinstance(texts, tuple) and len(names) == len(texts)):
            return False
        if not all(type(w) is tuple for w in (*names, *texts)):
            return False
        if not isinstance(costs, dict) or not all(
            isinstance(c, tuple) and len(c) == len(names) for c in costs.values()
        ):
            return False
    return True


def _write(path: Path, payload: Any) -> None:
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    fd, temp = tempfile.mkstemp(prefix=".analysed-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
