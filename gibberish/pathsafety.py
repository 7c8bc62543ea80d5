"""Names from files are never paths: the one type every writer takes names through.

A skill's ``name:``, a lock file's keys, an archive's folder names and a web form's fields
all come from someone else. Every place that turns such a name into a file to write (the
stub builder, ``sync``, ``install``, ``compile``, the web page) goes through three rules
kept here, so there is one place to get them right:

* :class:`PathComponent` — a name is one plain path component: not empty, no ``/`` or
  ``\\``, not ``.`` or ``..``, no NUL or control characters, not an option (``-x``),
  at most 255 bytes. Anything else is refused with a sentence saying which name and why.
* :func:`resolve_inside` — the path actually written, symlinks followed, must stay inside
  the folder the writer was pointed at.
* :func:`replace_allowed` — a file gibberish did not write is never replaced, unless the
  person said ``--force``; then the caller is told what is replaced, to say so.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

MAX_COMPONENT_BYTES = 255


class UnsafeNameError(ValueError):
    """A name that is not one plain path component (the message says which and why)."""


class OutsideTargetError(OSError):
    """A write that would land outside the folder it was meant for."""


class WouldReplaceError(OSError):
    """A file exists that gibberish did not write; it is left alone unless forced."""


def _problem(value: str) -> str | None:
    if not value:
        return "is empty"
    if value in (".", ".."):
        return "is “.” or “..”"
    if "/" in value or "\\" in value:
        return "holds a slash, so it would be a path, not a name"
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in value):
        return "holds a control or invisible character"
    if value.startswith("-"):
        return "starts with “-”, so a program would read it as an option"
    if value != value.strip():
        return "starts or ends with a space"
    if len(value.encode("utf-8", "surrogatepass")) > MAX_COMPONENT_BYTES:
        return f"is longer than {MAX_COMPONENT_BYTES} bytes"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8"
    return None


class PathComponent(str):
    """One validated file or folder name; constructing one from anything else raises
    :class:`UnsafeNameError` (``what`` names the value in the message, e.g. "skill name")."""

    __slots__ = ()

    def __new__(cls, value: object, what: str = "name") -> PathComponent:
        if isinstance(value, PathComponent):
            return value
        if not isinstance(value, str):
            raise UnsafeNameError(f"the {what} {value!r} is not text")
        problem = _problem(value)
        if problem:
            raise UnsafeNameError(
                f"the {what} {value!r} {problem}; it must be a plain name such as “my-skill”"
            )
        return super().__new__(cls, value)


def is_path_component(value: object) -> bool:
    """Whether ``value`` would make a :class:`PathComponent`."""
    return isinstance(value, str) and _problem(value) is None


def resolve_inside(root: Path, *parts: str) -> Path:
    """``root/parts…`` once every part is a :class:`PathComponent` and the result, with
    symlinks followed as far as they exist, is inside ``root`` (resolved the same way).

    Raises :class:`UnsafeNameError` for a bad part and :class:`OutsideTargetError` when a
    link on the way leads out of ``root``.
    """
    components = [PathComponent(p, "path part") for p in parts]
    return ensure_inside(root, Path(root, *components))


def ensure_inside(root: Path, path: Path) -> Path:
    """``path`` unchanged when it, links followed as far as they exist, is ``root`` or
    inside it; :class:`OutsideTargetError` otherwise (``..`` included)."""
    real_root = os.path.realpath(root)
    candidate = os.path.realpath(Path(root, path) if not Path(path).is_absolute() else path)
    if candidate != real_root and not candidate.startswith(real_root.rstrip(os.sep) + os.sep):
        raise OutsideTargetError(
            f"{path} leads outside {root} (to {candidate}); nothing was written there"
        )
    return Path(path)


def same_folder(a: Path, b: Path) -> bool:
    """Whether two paths name the same folder (links followed)."""
    return os.path.realpath(a) == os.path.realpath(b)


def replace_allowed(path: Path, *, ours: bool, force: bool, what: str = "file") -> str | None:
    """Whether writing ``path`` may go ahead: None when nothing is replaced or the file is
    gibberish's own (``ours``); the sentence to show when ``force`` replaces someone else's
    file; :class:`WouldReplaceError` otherwise."""
    if not (path.exists() or path.is_symlink()) or ours:
        return None
    if force:
        return f"replaced {path} (a {what} gibberish did not write; --force)"
    raise WouldReplaceError(
        f"{path} exists and gibberish did not write it; left alone. "
        f"Choose another folder, remove it, or give --force to replace it"
    )
