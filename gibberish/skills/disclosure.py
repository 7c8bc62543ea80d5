"""Progressive disclosure: read a skill folder a heading at a time.

An agent that is handed a whole skill folder spends its context on text it may never
need. These functions give it the structure first (``outline``, ``sources``), then only
the part it asks for (``show`` one section, ``open`` one file), and ``search`` across
skills to find the right section. They are the gateway commands of skillc's RFC-0001
(``outline``/``show``/``open``/``sources``/``search``) and back both the MCP tools
(``skills_*``) and the CLI fallback commands.

Every path an agent names is resolved and must stay inside the skill folder, symlinks
included (E012). Errors carry the RFC's codes and print as ``error[EXXX]: message``.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from msgspec import Struct

from gibberish.skills.frontmatter import find_frontmatter, load_yaml

E_SKILL_NOT_FOUND = "E001"
E_NO_SKILL_MD = "E010"
E_MISSING_FIELD = "E011"
E_PATH_ESCAPE = "E012"
E_UNREADABLE = "E013"
E_SECTION_NOT_FOUND = "E020"
E_FILE_NOT_FOUND = "E021"

SKILL_FILE = "SKILL.md"
MAX_OPEN_BYTES = 256 * 1024
"""``open`` returns at most this much of a file (an agent's context is the limit)."""
MAX_MARKDOWN_BYTES = 2 * 1024 * 1024
"""Markdown files larger than this are listed by ``sources`` but not parsed for headings."""

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*(?:[ \t]#+[ \t]*)?$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_WORD = re.compile(r"[^\W_]+")


class DisclosureError(Exception):
    """A request that cannot be answered; ``code`` is the RFC-0005 style error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"error[{self.code}]: {self.message}"


class Heading(Struct, frozen=True):
    file: str
    """Path relative to the skill folder, with ``/``."""
    level: int
    title: str
    line: int

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "level": self.level, "title": self.title, "line": self.line}


class Section(Struct, frozen=True):
    heading: Heading
    text: str
    """From the heading line up to the next heading of the same or a higher level."""
    own: str = ""
    """From the heading line up to the next heading of any level (what search scores)."""


class SourceFile(Struct, frozen=True):
    path: str
    size: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "size": self.size}


class SearchHit(Struct, frozen=True):
    skill: str
    section: Section
    score: float

    def to_dict(self, snippet_chars: int = 200) -> dict[str, Any]:
        body = " ".join(self.section.own.split("\n", 1)[-1].split())
        return {
            "skill": self.skill,
            **self.section.heading.to_dict(),
            "score": self.score,
            "snippet": body[:snippet_chars] + ("…" if len(body) > snippet_chars else ""),
        }


# ------------------------------------------------------------------ files


def require_skill_md(root: Path) -> Path:
    """The folder's SKILL.md, or E010; E012 when it is a link leading out of the folder
    (a SKILL.md linked to ``/proc/self/environ`` must never be served)."""
    path = root / SKILL_FILE
    if path.is_symlink():
        inside(root, SKILL_FILE)
    if not path.is_file():
        raise DisclosureError(E_NO_SKILL_MD, f"{root} has no {SKILL_FILE}: it is not a skill.")
    return path


UNLOADED = frozenset(
    {
        "E-UNREADABLE",
        "E-FILE-TOO-LARGE",
        "E-BINARY-FILE",
        "E-PATH-ESCAPE",
        "E-INTERNAL",
        "E-UNREADABLE-DIR",
        "E-SKILL-TREE-LARGE",
    }
)
"""Loader errors that mean the skill's files were not (safely) read: such a skill is
never served, whatever else it holds."""


def refuse_unloaded(name: str, errors: Iterable[Any]) -> None:
    """E001 for a skill that failed to load (``errors``: its diagnostics with ``code``)."""
    for diagnostic in errors:
        if diagnostic.code in UNLOADED:
            raise DisclosureError(
                E_SKILL_NOT_FOUND,
                f"the skill {name!r} failed to load ({diagnostic.code}), so it is not served; "
                "`gibberish check` says why.",
            )


def inside(root: Path, relative: str) -> Path:
    """``root/relative`` resolved; E012 when it (or a symlink on the way) leaves ``root``."""
    if not relative or "\x00" in relative:
        raise DisclosureError(E_FILE_NOT_FOUND, "give a path relative to the skill folder.")
    candidate = Path(relative)
    if candidate.is_absolute():
        raise DisclosureError(
            E_PATH_ESCAPE, f"{relative!r} is absolute; give a path inside the skill folder."
        )
    real_root = Path(os.path.realpath(root))
    target = Path(os.path.realpath(root / candidate))  # never raises on a link loop
    if not target.is_relative_to(real_root):
        raise DisclosureError(E_PATH_ESCAPE, f"{relative!r} escapes the skill folder.")
    return target


def walk_files(root: Path) -> Iterator[Path]:
    """Regular files under ``root`` outside hidden folders, in no particular order.

    Symlinks are not followed and not yielded; a symlink that points outside ``root`` is
    refused with E012 (a skill must not smuggle in files from elsewhere). A link loop or
    a dangling link inside the folder is simply no file; a folder that cannot be read is
    E013 (a listing that silently lacks files would mislead).
    """
    real_root = Path(os.path.realpath(root))
    for folder, dirs, files in os.walk(root, followlinks=False, onerror=_unreadable):
        here = Path(folder)
        kept = []
        for name in dirs:
            path = here / name
            if path.is_symlink():
                _check_link(path, real_root, root)
            elif not name.startswith("."):
                kept.append(name)
        dirs[:] = kept
        for name in files:
            path = here / name
            if path.is_symlink():
                _check_link(path, real_root, root)
            elif path.is_file():
                yield path


def _unreadable(error: OSError) -> None:
    raise DisclosureError(
        E_UNREADABLE, f"{error.filename}: cannot be read ({error.strerror}); fix its permissions."
    )


def _check_link(path: Path, real_root: Path, root: Path) -> None:
    if not Path(os.path.realpath(path)).is_relative_to(real_root):
        rel = path.relative_to(root).as_posix()
        raise DisclosureError(E_PATH_ESCAPE, f"{rel} is a symlink that leaves the skill folder.")


def relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def sources(root: Path) -> list[SourceFile]:
    """Every file of the skill (outside hidden folders) with its size, sorted by path."""
    require_skill_md(root)
    out = [SourceFile(relative(root, p), p.stat().st_size) for p in walk_files(root)]
    return sorted(out, key=lambda f: f.path)


def markdown_files(root: Path) -> list[str]:
    """``SKILL.md`` first, then every other ``.md`` file in order of path."""
    require_skill_md(root)
    others = sorted(
        relative(root, p)
        for p in walk_files(root)
        if p.suffix.lower() == ".md" and relative(root, p) != SKILL_FILE
    )
    return [SKILL_FILE, *others]


def read_text(path: Path, limit: int = MAX_MARKDOWN_BYTES) -> str:
    """A regular file's text (at most ``limit`` bytes); a FIFO, device or ``/proc`` file
    is refused, and the file is opened without following a final link."""
    real = os.path.realpath(path)
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise DisclosureError(
            E_UNREADABLE, f"{path}: cannot be read ({exc.strerror}); fix its permissions."
        ) from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or real.startswith(("/proc/", "/sys/")):
            raise DisclosureError(E_FILE_NOT_FOUND, f"{path.name} is not a regular file.")
        try:
            data = handle.read(limit)
        except OSError as exc:
            raise DisclosureError(
                E_UNREADABLE, f"{path}: cannot be read ({exc.strerror}); fix its permissions."
            ) from None
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").lstrip("\ufeff")


def servable(skills: Iterable[Any]) -> list[tuple[str, Path]]:
    """``(name, folder)`` of every skill that loaded (for ``search``)."""
    return servable_reporting(skills)[0]


def servable_reporting(
    skills: Iterable[Any],
) -> tuple[list[tuple[str, Path]], list[tuple[str, str]]]:
    """``servable``, and ``(skill, why)`` for each skill left out because it failed to load."""
    served: list[tuple[str, Path]] = []
    left_out: list[tuple[str, str]] = []
    for skill in skills:
        failed = next((d for d in skill.errors if d.code in UNLOADED), None)
        if failed is None:
            served.append((skill.name, skill.directory))
        else:
            left_out.append((skill.name, f"failed to load ({failed.code}): {failed.message}"))
    return served, left_out


# ------------------------------------------------------------------ markdown


def split_frontmatter(text: str, *, file: str) -> tuple[dict[str, Any], str, int]:
    """``(fields, body, first body line)``; no or broken frontmatter gives ``{}``."""
    if not text.startswith("---"):
        return {}, text, 1
    block, _ = find_frontmatter(text, file=file)
    if block is None:
        return {}, text, 1
    data, ok, _ = load_yaml(block.yaml_text, file=file, first_line=block.yaml_line)
    fields = data if ok and isinstance(data, dict) else {}
    return fields, text[block.body_offset :], block.body_line


def skill_meta(root: Path) -> tuple[str, str]:
    """``name`` and ``description`` from SKILL.md's frontmatter; E010/E011 when missing."""
    path = require_skill_md(root)
    fields, _, _ = split_frontmatter(read_text(path), file=SKILL_FILE)
    missing = [k for k in ("name", "description") if not str(fields.get(k) or "").strip()]
    if missing:
        raise DisclosureError(
            E_MISSING_FIELD,
            f"{path}: the frontmatter lacks {' and '.join(missing)} "
            "(add them between the '---' lines).",
        )
    return str(fields["name"]).strip(), " ".join(str(fields["description"]).split())


def _headings_in(body: str, first_line: int, file: str) -> Iterator[Heading]:
    fence: str | None = None
    for offset, line in enumerate(body.split("\n")):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        match = _HEADING.match(line)
        if match:
            yield Heading(file, len(match.group(1)), match.group(2).strip(), first_line + offset)


def _document(root: Path, file: str) -> tuple[dict[str, Any], list[str], int]:
    fields, body, first = split_frontmatter(read_text(root / file), file=file)
    return fields, body.split("\n"), first


def outline(root: Path) -> list[Heading]:
    """Every heading of every ``.md`` file, SKILL.md first, in document order."""
    out: list[Heading] = []
    for file in markdown_files(root):
        _, lines, first = _document(root, file)
        out.extend(_headings_in("\n".join(lines), first, file))
    return out


def sections(root: Path, file: str) -> list[Section]:
    """The sections of one Markdown file (text up to the next heading of level <= own)."""
    _, lines, first = _document(root, file)
    heads = list(_headings_in("\n".join(lines), first, file))
    out = []
    for i, head in enumerate(heads):
        end = next((h.line for h in heads[i + 1 :] if h.level <= head.level), first + len(lines))
        own_end = heads[i + 1].line if i + 1 < len(heads) else first + len(lines)
        text = "\n".join(lines[head.line - first : end - first]).rstrip()
        own = "\n".join(lines[head.line - first : own_end - first]).rstrip()
        out.append(Section(head, text, own))
    return out


def all_sections(root: Path) -> list[Section]:
    return [s for file in markdown_files(root) for s in sections(root, file)]


# ------------------------------------------------------------------ show / open


def _cap(text: str, max_lines: int | None) -> str:
    if max_lines is None or max_lines <= 0:
        return text
    lines = text.split("\n")
    if len(lines) <= max_lines:
        return text
    rest = len(lines) - max_lines
    return "\n".join(lines[:max_lines]) + f"\n… ({rest} more lines; raise max_lines to see them)"


def show(root: Path, section: str | None = None, max_lines: int | None = None) -> str:
    """SKILL.md's body, or one section by heading title (case-insensitive) in any .md file.

    A reference file's first H1 names the whole file, as the stub lists it.
    """
    if not section:
        _, body, _ = split_frontmatter(read_text(require_skill_md(root)), file=SKILL_FILE)
        return _cap(body.strip("\n"), max_lines)
    wanted = " ".join(section.split()).casefold()
    found = [s for s in all_sections(root) if s.heading.title.casefold() == wanted]
    if not found:
        titles = [s.heading.title for s in all_sections(root)]
        close = difflib.get_close_matches(section, titles, n=3, cutoff=0.5)
        hint = f" Did you mean: {', '.join(repr(t) for t in close)}?" if close else ""
        raise DisclosureError(
            E_SECTION_NOT_FOUND,
            f"no section {section!r} in this skill.{hint} The outline lists every heading.",
        )
    return _cap("\n\n".join(s.text for s in found), max_lines)


def open_file(root: Path, path: str, max_bytes: int = MAX_OPEN_BYTES) -> str:
    """A file of the skill as text — exactly the files :func:`sources` lists, nothing else
    (not a hidden folder's file such as ``.git/config``, not a symlink); binary files are
    described, not shown."""
    require_skill_md(root)
    target = inside(root, path)
    listed = {relative(root, p) for p in walk_files(root)}
    wanted = os.path.normpath(path).replace(os.sep, "/")
    if wanted not in listed:
        raise DisclosureError(
            E_FILE_NOT_FOUND,
            f"{path!r} is not a file of this skill (skills_sources lists the files there are).",
        )
    if not target.is_file():
        raise DisclosureError(E_FILE_NOT_FOUND, f"{path!r} is not a file of this skill.")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(Path(os.path.realpath(root)) / wanted, flags)
    except OSError as exc:
        message = f"{path!r} cannot be opened ({exc.strerror})."
        raise DisclosureError(E_FILE_NOT_FOUND, message) from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise DisclosureError(E_FILE_NOT_FOUND, f"{path!r} is not a file of this skill.")
        data = handle.read(max_bytes + 1)
        size = os.fstat(handle.fileno()).st_size
    if b"\x00" in data[:8192]:
        return f"({path} is a binary file of {size} bytes)"
    text = data[:max_bytes].decode("utf-8", errors="replace")
    if len(data) > max_bytes:
        text += f"\n… (cut at {max_bytes} bytes of {size})"
    return text


# ------------------------------------------------------------------ search


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _words(text: str) -> frozenset[str]:
    """Lowercase words of two letters or more, a final plural ``s`` dropped."""
    return frozenset(_stem(w) for w in _WORD.findall(text.casefold()) if len(w) > 1)


def score(query_words: frozenset[str], section: Section) -> float:
    """2 per query word in the heading, 1 per query word only in the section's own text
    (not its subsections': they are scored on their own)."""
    title = _words(section.heading.title)
    body = _words(section.own) - title
    return 2.0 * len(query_words & title) + 1.0 * len(query_words & body)


def search(skills: Iterable[tuple[str, Path]], query: str, limit: int = 10) -> list[SearchHit]:
    """Sections across ``(name, folder)`` skills ranked by word overlap with ``query``."""
    return search_reporting(skills, query, limit)[0]


def search_reporting(
    skills: Iterable[tuple[str, Path]], query: str, limit: int = 10
) -> tuple[list[SearchHit], list[tuple[str, str]]]:
    """The hits, and ``(skill, why)`` for each skill that could not be read: one bad
    folder is reported and the search carries on with the others."""
    wanted = _words(query)
    if not wanted:
        return [], []
    hits: list[SearchHit] = []
    problems: list[tuple[str, str]] = []
    for name, root in skills:
        try:
            found = all_sections(root)
        except DisclosureError as exc:
            problems.append((name, exc.message))
            continue
        except (OSError, RuntimeError, ValueError) as exc:
            problems.append((name, describe_error(exc)))
            continue
        hits.extend(SearchHit(name, s, sc) for s in found if (sc := score(wanted, s)) > 0)
    hits.sort(key=lambda h: (-h.score, h.skill, h.section.heading.file, h.section.heading.line))
    return hits[:limit], problems


def describe_error(exc: BaseException) -> str:
    """A sentence for an error met while reading a skill's files (no raw errno tuple)."""
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return str(exc)
