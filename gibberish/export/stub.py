"""Compile a skill to a skillc-style stub: a small SKILL.md that points at the gateway.

The stub (RFC-0001 C-STUB) keeps the skill's name and description, tells the agent to use
the gateway (the ``skills_*`` MCP tools first, the ``gibberish outline|show|open|sources|
search`` commands as fallback) and lists the sections (C-SECTIONS) — never the source
text, a file listing or an absolute path. Beside it, ``.skillc/manifest.json``
(C-MANIFEST) records ``source_hash``, so a build is redone only when a source file
changed. skillc's reference implementation writes that file to ``.skillc-meta/``; the RFC
says ``.skillc/`` and this module follows the RFC (docs/mcp.md).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import yaml
from msgspec import Struct

from gibberish.fileio import atomic_write_bytes
from gibberish.pathsafety import (
    OutsideTargetError,
    PathComponent,
    UnsafeNameError,
    WouldReplaceError,
    replace_allowed,
    resolve_inside,
    same_folder,
)
from gibberish.skills.disclosure import (
    SKILL_FILE,
    Heading,
    markdown_files,
    outline,
    read_text,
    relative,
    skill_meta,
    split_frontmatter,
    walk_files,
)

MANIFEST_DIR = ".skillc"
MANIFEST_FILE = "manifest.json"
MANIFEST_VERSION = 1
MAX_ENTRIES = 15
MAX_DESCRIPTION = 120
MAX_STUB_LINES = 100
REFERENCES_LABEL = "References (query by title only)"
_PLAIN_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
_GATEWAY_LINE = "This skill is served through a gateway. Do not read its source files directly:"


class StubWriteError(OSError):
    """The stub could not be written where asked (the message names the path and why)."""


class StubResult(Struct, frozen=True):
    skill: str
    folder: Path
    source_hash: str
    rebuilt: bool
    replaced: tuple[str, ...] = ()
    """One sentence per file of someone else's that ``force`` replaced."""


class StubTargetError(OSError):
    """The stub cannot be written where it was asked to go (the message says why)."""


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()


def source_hash(root: Path) -> str:
    """SHA-256 over the sorted ``(relative_path, file_hash)`` pairs (RFC-0001 C-MANIFEST).

    For each regular file outside hidden folders, in order of relative path (``/``
    separated, compared by code point), the UTF-8 path and then the lowercase hex SHA-256
    of the file's bytes are fed, with no separator, to one SHA-256.
    """
    pairs = sorted((relative(root, p), file_sha256(p)) for p in walk_files(root))
    digest = hashlib.sha256()
    for path, file_hash in pairs:
        digest.update(path.encode("utf-8"))
        digest.update(file_hash.encode("ascii"))
    return digest.hexdigest()


# ------------------------------------------------------------------ section listing


def _skill_md_entries(headings: list[Heading]) -> list[str]:
    """SKILL.md's H1 and H2 headings, H2 indented under their H1."""
    return [
        ("  " if h.level == 2 else "") + f"- {_one_line(h.title)}"
        for h in headings
        if h.file == SKILL_FILE and h.level <= 2
    ]


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _reference_entries(root: Path, headings: list[Heading], room: int) -> tuple[list[str], int]:
    """The first ``room`` reference files (title — description), and how many there are."""
    files = markdown_files(root)[1:]
    entries = []
    for file in files[: max(room, 0)]:
        h1 = next((h.title for h in headings if h.file == file and h.level == 1), None)
        label = _one_line(h1 or file)
        fields, _, _ = split_frontmatter(read_text(root / file), file=file)
        description = _one_line(fields.get("description") or "")
        if len(description) > MAX_DESCRIPTION:
            description = description[: MAX_DESCRIPTION - 1].rstrip() + "…"
        entries.append(f"  - {label} — {description}" if description else f"  - {label}")
    return entries, len(files)


def section_listing(root: Path) -> list[str]:
    """The "Top Sections" lines of RFC-0001 C-SECTIONS: at most ``MAX_ENTRIES`` sections
    (SKILL.md's headings, then reference files), and an honest count of the rest."""
    headings = outline(root)
    own = _skill_md_entries(headings)
    shown = own[:MAX_ENTRIES]
    references, total_refs = _reference_entries(root, headings, MAX_ENTRIES - len(shown))
    lines = [*shown]
    if total_refs:
        lines += [f"- {REFERENCES_LABEL}", *references]
    hidden = len(own) - len(shown) + total_refs - len(references)
    if hidden:
        lines.append(f"- … ({hidden} more; the outline lists every heading)")
    return lines or ["- (no H1 or H2 headings; the outline lists every heading)"]


# ------------------------------------------------------------------ the stub


def render_stub(root: Path) -> str:
    """The stub SKILL.md text for the skill in ``root`` (E010/E011 when it is not one)."""
    name, description = skill_meta(root)
    front = yaml.safe_dump(
        {"name": name, "description": description},
        sort_keys=False,
        allow_unicode=True,
        width=10_000,
    )
    quoted = name if _PLAIN_NAME.fullmatch(name) else json.dumps(name)
    lines = [
        "---",
        front.rstrip("\n"),
        "---",
        "",
        f"# {name}",
        "",
        _GATEWAY_LINE,
        "ask for its structure, then for the sections you need.",
        "",
        "If the `gibberish` MCP server is available, prefer its tools — faster, with",
        "structured output: `skills_outline`, `skills_show`, `skills_search`, `skills_open`,",
        "`skills_sources`.",
        "",
        "Otherwise use the command line:",
        "",
        f"- `gibberish outline {quoted}` — every heading of every Markdown file",
        f'- `gibberish show {quoted} --section "<heading>"` — one section',
        f"- `gibberish open {quoted} <path>` — one file of the skill",
        f"- `gibberish sources {quoted}` — the file tree with sizes",
        '- `gibberish search "<words>"` — find sections across skills',
        "",
        "## Top Sections",
        "",
    ]
    listing = section_listing(root)
    room = MAX_STUB_LINES - len(lines) - 1
    if len(listing) > room:
        listing = [*listing[: room - 1], f"- … ({len(listing) - room + 1} more entries)"]
    return "\n".join(lines + listing) + "\n"


def read_manifest(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / MANIFEST_DIR / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def stub_is_ours(folder: Path, previous: dict[str, Any] | None) -> bool:
    """Whether ``folder/SKILL.md`` is the stub gibberish wrote there (per its manifest)."""
    path = folder / SKILL_FILE
    if previous is None or path.is_symlink() or not path.is_file():
        return False
    recorded = previous.get("stub_sha256")
    if isinstance(recorded, str):
        return file_sha256(path) == recorded
    # a manifest from before stub_sha256 was recorded: the gateway sentence marks our stub
    return _GATEWAY_LINE in read_text(path, limit=64 * 1024)


def _target_folder(root: Path, out_dir: Path, name: str) -> Path:
    """``out_dir/<name>``, the name checked as one path component, never the source."""
    try:
        folder = resolve_inside(out_dir, PathComponent(name, "skill name"))
        resolve_inside(out_dir, name, MANIFEST_DIR, MANIFEST_FILE)
    except (UnsafeNameError, OutsideTargetError) as exc:
        raise StubTargetError(f"{root / SKILL_FILE}: {exc}") from None
    if same_folder(folder, root) or Path(os.path.realpath(folder)).is_relative_to(
        os.path.realpath(root)
    ):
        raise StubTargetError(
            f"--out {out_dir} would put the stub inside the skill it is built from "
            f"({root}) and replace its SKILL.md; choose a folder outside the skill"
        )
    return folder


def build_stub(root: Path, out_dir: Path, *, force: bool = False) -> StubResult:
    """Write ``out_dir/<name>/SKILL.md`` and its manifest; skip when the sources are unchanged.

    The name comes from the skill's frontmatter, so it goes through
    :class:`~gibberish.pathsafety.PathComponent`; a SKILL.md or manifest that gibberish
    did not write is never replaced unless ``force`` (and the result says what was).
    """
    name, _ = skill_meta(root)
    folder = _target_folder(root, out_dir, name)
    digest = source_hash(root)
    previous = read_manifest(folder)
    ours = stub_is_ours(folder, previous)
    if not force and ours and previous is not None and previous.get("source_hash") == digest:
        return StubResult(name, folder, digest, rebuilt=False)
    manifest_path = folder / MANIFEST_DIR / MANIFEST_FILE
    try:
        replaced = [
            note
            for note in (
                replace_allowed(folder / SKILL_FILE, ours=ours, force=force, what="SKILL.md"),
                replace_allowed(
                    manifest_path, ours=previous is not None, force=force, what="manifest"
                ),
            )
            if note
        ]
    except WouldReplaceError as exc:
        raise StubTargetError(str(exc)) from None
    text = render_stub(root).encode("utf-8")
    manifest = {
        "skill": name,
        "version": MANIFEST_VERSION,
        "built_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "source_hash": digest,
        "stub_sha256": hashlib.sha256(text).hexdigest(),
    }
    try:
        atomic_write_bytes(folder / SKILL_FILE, text, mode=0o644)
        atomic_write_bytes(
            manifest_path, (json.dumps(manifest, indent=2) + "\n").encode("utf-8"), mode=0o644
        )
    except OSError as exc:
        raise StubWriteError(f"{exc.filename or folder}: {exc.strerror or exc}") from None
    return StubResult(name, folder, digest, rebuilt=True, replaced=tuple(replaced))
