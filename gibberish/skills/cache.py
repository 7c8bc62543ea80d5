"""The parse cache: what every skill parsed to, kept on disk between runs.

Parsing a thousand SKILL.md files costs about half a second; a CLI command or a tray
start that finds them unchanged should not pay it again. The library's entries (each
parsed definition with the stat signature, folder tree and content digest it was parsed
at) are written to one file per set of skill sources, in the cache folder, after each
full scan: a process's first load (the tray's runs on its worker thread). A refresh,
which the tray runs on its GUI thread after an edit, never writes.
The next process hands a cached entry to the library as if it had parsed it itself, and
the library's usual rule decides: an identical stat signature (inode, size, mtime and
ctime of SKILL.md, of the folder and of every sub-folder) reuses it without reading;
an entry that was "racy" when saved, or whose files carry a timestamp in the future of
this clock (a clock that went backwards), is re-read and compared by content digest;
anything else is parsed again. So a stale entry can only cost a parse, never be used.

The file is safe to delete. It is stamped with a format number, the gibberish version,
the Python version and a signature of the parser's own source files: a cache written by
other code is ignored. A file that cannot be read back (truncated, corrupted, not ours)
is logged and rebuilt. It is a pickle, read back with an unpickler that builds only the
skill model's own classes and a few standard types, and only from a file this user owns
that nobody else can write: the cache folder is private (0700), the file 0600.
"""

from __future__ import annotations

import contextlib
import enum
import gc
import hashlib
import io
import os
import pickle
import sys
import tempfile
import types
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from gibberish import __version__, paths
from gibberish.logger import logger
from gibberish.skills.entry import CachedEntry, is_racy
from gibberish.skills.model import CommandTemplate, ToolDefinition
from gibberish.skills.stored_tool import as_stored
from gibberish.skills.text_template import as_text

if TYPE_CHECKING:
    from gibberish.skills.entry import SkillSource
    from gibberish.skills.model import Profile

log = logger("gibberish.skills.cache")

FORMAT = 4
"""Bumped whenever what is stored changes shape."""

_MODEL_CLASSES = frozenset(
    [("gibberish.skills.entry", name) for name in ("CachedEntry", "Tree")]
    + [
        ("gibberish.skills.model", name)
        for name in (
            "SkillDefinition",
            "Diagnostic",
            "Trust",
            "Mode",
            "Profile",
            "Severity",
        )
    ]
    + [("gibberish.skills.text_template", "from_text")]
    + [("gibberish.skills.stored_tool", "stored_tool")]
    + [("gibberish.skills.cache", "_read_only")]
)
"""What a saved entry is made of, by name: no other global of gibberish is reachable
(a command template is stored as its text, so its word and fragment classes are not)."""
_ALLOWED_GLOBALS = {
    ("pathlib", "PosixPath"),
    ("pathlib", "WindowsPath"),
    ("pathlib", "PurePosixPath"),
    ("pathlib", "PureWindowsPath"),
    ("pathlib", "Path"),
    ("datetime", "date"),
    ("datetime", "datetime"),
    ("datetime", "time"),
    ("datetime", "timedelta"),
    ("datetime", "timezone"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "complex"),
    ("copyreg", "_reconstructor"),
    ("builtins", "object"),
}


def _read_only(mapping: dict[str, Any]) -> Mapping[str, Any]:
    return types.MappingProxyType(mapping)


class _ModelPickler(pickle.Pickler):
    """Pickles read-only mappings (a skill's extra fields) as what they wrap, and command
    templates as their text (``text_template.py``)."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, CommandTemplate):
            return as_text(obj)
        if isinstance(obj, ToolDefinition):
            return as_stored(obj)
        if isinstance(obj, PurePath):  # one string, split once (not a part at a time)
            return type(obj), (str(obj),)
        if type(obj) is types.MappingProxyType:
            return _read_only, (dict(obj),)
        return NotImplemented


def _enum_member(cls: Any, name: Any) -> Any:
    """A member of one of the model's enums, by name; nothing else.

    Python 3.11.2 (Debian 12's) pickles an enum member as ``getattr(Trust, "USER")``,
    later versions as ``Trust("user")``. Plain ``getattr`` would hand a crafted cache
    any attribute of an allowed class, so only an enum's own members come out.
    """
    if isinstance(cls, type) and issubclass(cls, enum.Enum) and name in cls.__members__:
        return cls.__members__[name]
    raise pickle.UnpicklingError(f"getattr({cls!r}, {name!r}) is not part of a parsed skill")


def _every_field(cls: Any) -> Any:
    """``cls`` itself, or for a record its constructor taking exactly one value per field.

    A record pickles as its class and its values, and would take fewer values than it has
    fields (the rest get their defaults): an object saved by another shape of the model
    makes the file unreadable instead, never half-read."""
    count = len(getattr(cls, "__struct_fields__", ()))
    if not count:
        return cls

    def every_field(*values: Any) -> Any:
        if len(values) != count:
            raise ValueError(f"{cls.__name__} saved with {len(values)} values, not {count}")
        return cls(*values)

    every_field.__name__ = every_field.__qualname__ = cls.__name__
    return every_field


class _ModelUnpickler(pickle.Unpickler):
    """Builds the skill model's classes and plain data; refuses every other global."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("builtins", "getattr"):
            return _enum_member
        if (module, name) in _MODEL_CLASSES:
            return _every_field(super().find_class(module, name))
        if (module, name) in _ALLOWED_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a parsed skill")


@contextlib.contextmanager
def without_collection() -> Iterator[None]:
    """Automatic garbage collection paused while lasting objects are made in bulk.

    Unpickling tens of thousands of objects, none of them garbage, sets off the collector
    again and again, and each older-generation pass walks the whole growing heap: a third
    of a warm load of 1,000 skills. Collection resumes afterwards only if it was on (the
    tray turns it off and collects on its GUI thread itself).

    Resuming alone would only defer the walk: the first allocation after it collects the
    youngest generation, which now holds every object made (6 ms for a warm load of
    1,000 skills), then the middle one walks them again. So what was made is first moved
    to the oldest generation unwalked: ``gc.freeze`` moves every tracked object to the
    permanent generation and ``gc.unfreeze`` puts them all back into the oldest one, as
    documented. Nothing stays frozen; cycles among the objects alive then are found by
    the next full collection instead of a young one. Skipped when something already keeps
    objects frozen on purpose, which ``gc.unfreeze`` would undo.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def code_stamp() -> tuple[Any, ...]:
    """What must match for a saved entry to mean what it meant: format, versions, parser."""
    package = Path(__file__).resolve().parent
    sources = []
    for path in sorted(package.glob("*.py")):
        with contextlib.suppress(OSError):
            info = path.stat()
            sources.append((path.name, info.st_size, info.st_mtime_ns))
    return (FORMAT, __version__, sys.version_info[:2], tuple(sources))


def cache_file(sources: Sequence[SkillSource], profile: Profile) -> Path:
    """The cache file of one set of sources (the tray's and a ``--skills-dir`` run differ)."""
    key = repr([(str(s.path), s.trust.value) for s in sources] + [profile.value])
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).hexdigest()
    return paths.cache_dir() / "skills" / f"parsed-{digest}.pickle"


class ParseCache:
    """One cache file: read once on first use, written after a scan that changed it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries: dict[str, CachedEntry] | None = None
        self._saved: dict[str, tuple[int, bool]] = {}

    @classmethod
    def for_sources(cls, sources: Sequence[SkillSource], profile: Profile) -> ParseCache:
        return cls(cache_file(sources, profile))

    def get(self, folder: str, now: int, window: int) -> CachedEntry | None:
        """The saved entry of ``folder``, marked racy when its times are within ``window``
        nanoseconds of ``now`` (or past it)."""
        if self._entries is None:
            self._entries = self._read()
            self._saved = {f: (id(e), e.racy) for f, e in self._entries.items()}
        entry = self._entries.get(folder)
        if not isinstance(entry, CachedEntry):
            return None
        if not entry.racy:
            entry.racy = is_racy(now, entry.signature, entry.subdir_sigs, window)
        return entry

    def save(self, entries: Mapping[str, CachedEntry]) -> bool:
        """Write ``entries`` if they differ from what the file holds; True if written."""
        state = {f: (id(e), e.racy) for f, e in entries.items()}
        if self._entries is not None and state == self._saved:
            return False
        try:
            self._write(dict(entries))
        except (OSError, pickle.PicklingError, TypeError, AttributeError) as exc:
            log.warning("cannot write the parse cache %s: %s", self.path, exc)
            return False
        self._entries = dict(entries)
        self._saved = state
        return True

    def _read(self) -> dict[str, CachedEntry]:
        try:
            with open(self.path, "rb") as handle:
                info = os.fstat(handle.fileno())
                if info.st_uid != os.getuid() or info.st_mode & 0o022:
                    log.warning("ignoring the parse cache %s: not private to this user", self.path)
                    return {}
                data = handle.read()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            log.warning("cannot read the parse cache %s (%s); rebuilding it", self.path, exc)
            return {}
        try:
            with without_collection():
                stamp, entries = _ModelUnpickler(io.BytesIO(data)).load()
        except Exception as exc:  # any damage at all: the cache is only a shortcut
            log.warning("the parse cache %s is unreadable (%s); rebuilding it", self.path, exc)
            return {}
        if stamp != code_stamp():
            log.info("the parse cache %s was written by other code; rebuilding it", self.path)
            return {}
        if not isinstance(entries, dict):
            log.warning("the parse cache %s holds no entries; rebuilding it", self.path)
            return {}
        return entries

    def _write(self, entries: dict[str, CachedEntry]) -> None:
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        buffer = io.BytesIO()
        _ModelPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump((code_stamp(), entries))
        data = buffer.getvalue()
        fd, temp = tempfile.mkstemp(prefix=".parsed-", dir=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
