"""Parse one SKILL.md into a SkillDefinition — never raising for bad content.

Whatever is wrong with the file (unreadable, a FIFO, 5 MB, binary, not UTF-8, broken
YAML, no tools ...) comes back as diagnostics on a SkillDefinition whose name falls
back to its folder name, so a broken skill shows up in the UI next to its siblings
instead of taking the library down.

Reading opens the file non-blocking and checks it is a regular file before reading at
most 1 MiB + 1 byte, so a FIFO or a device named SKILL.md can never hang the loader.

``source_sha256`` is the SHA-256 of the exact bytes parsed (of the UTF-8 text for
:func:`parse_skill_text`), so the Engine can tell that the file on disk is still the
one a person was shown. Terminal controls and bidi controls anywhere in the file are
E-CONTROL-CHARACTER errors; the text fields of such a skill keep them only as visible
escapes. A bug that raises while parsing becomes an E-INTERNAL error on that skill.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import stat
from pathlib import Path
from types import MappingProxyType
from typing import Any

from msgspec.structs import replace

from gibberish.skills import fields as F
from gibberish.skills.body import parse_body
from gibberish.skills.frontmatter import Frontmatter, parse_frontmatter
from gibberish.skills.model import (
    Diagnostic,
    ParameterDefinition,
    Profile,
    SkillDefinition,
    ToolDefinition,
    Trust,
)
from gibberish.skills.text_template import TextTemplate

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def is_inside(path: str, root: str) -> bool:
    """True when the resolved ``path`` is ``root`` or below it (both already resolved)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _escape_target(path: Path) -> str | None:
    """Where SKILL.md really lives when it is a symlink leading out of its folder."""
    if not os.path.islink(path):
        return None
    target = os.path.realpath(path)
    if is_inside(target, os.path.realpath(path.parent)):
        return None
    return target


def read_skill_bytes(path: Path) -> tuple[bytes | None, Diagnostic | None]:
    """The raw bytes of a SKILL.md, or the diagnostic saying why it cannot be used."""
    file = str(path)
    target = _escape_target(path)
    if target is not None:
        return None, F.error(
            F.E_PATH_ESCAPE,
            f"SKILL.md is a symlink to {target}, outside the skill folder {path.parent}; "
            "a skill may only use its own files. Replace the link with a copy.",
            file,
            None,
        )
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        return None, _unopenable(file, exc)
    try:
        return _read_open_file(fd, file)
    except OSError as exc:
        return None, F.error(
            F.E_UNREADABLE, f"cannot read SKILL.md: {exc.strerror or exc}.", file, None
        )
    finally:
        os.close(fd)


def _unopenable(file: str, exc: OSError) -> Diagnostic:
    if isinstance(exc, IsADirectoryError):
        message = "SKILL.md is a directory, not a file; replace it with the file."
    elif isinstance(exc, FileNotFoundError):
        message = "SKILL.md does not exist (or is a broken link)."
    else:
        message = f"cannot read SKILL.md: {exc.strerror or exc}; check its permissions."
    return F.error(F.E_UNREADABLE, message, file, None)


def _read_open_file(fd: int, file: str) -> tuple[bytes | None, Diagnostic | None]:
    """Read at most one byte over the size limit from an open SKILL.md (never a FIFO or
    a device: those are refused by their mode before any read)."""
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode):
        message = "SKILL.md is a directory, not a file; replace it with the file."
        return None, F.error(F.E_UNREADABLE, message, file, None)
    if not stat.S_ISREG(st.st_mode):
        message = "SKILL.md is not a regular file (a device, pipe or socket)."
        return None, F.error(F.E_UNREADABLE, message, file, None)
    if st.st_size > F.MAX_SKILL_FILE_BYTES:
        return None, _too_large(file, st.st_size)
    chunks: list[bytes] = []
    remaining = F.MAX_SKILL_FILE_BYTES + 1
    while remaining > 0:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    data = b"".join(chunks)
    if len(data) > F.MAX_SKILL_FILE_BYTES:
        return None, _too_large(file, len(data))
    return data, None


def _too_large(file: str, size: int) -> Diagnostic:
    return F.error(
        F.E_FILE_TOO_LARGE,
        f"SKILL.md is {size:,} bytes; the limit is {F.MAX_SKILL_FILE_BYTES:,} (1 MiB). "
        "Move large content into files next to it.",
        file,
        None,
    )


def decode_skill_bytes(data: bytes, *, file: str | None) -> tuple[str | None, Diagnostic | None]:
    """UTF-8 text (BOM removed), or why the bytes are not a text SKILL.md."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return None, F.error(
            F.E_NOT_UTF8, "SKILL.md is saved as UTF-16; save it as UTF-8.", file, 1
        )
    nul = data.find(b"\x00")
    if nul >= 0:
        return None, F.error(
            F.E_BINARY_FILE,
            "SKILL.md contains NUL bytes, so it is a binary file, not Markdown text.",
            file,
            data.count(b"\n", 0, nul) + 1,
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, F.error(
            F.E_NOT_UTF8,
            f"SKILL.md is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8.",
            file,
            line,
        )
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, None


def _folder_name(path: Path) -> str:
    """The name of the folder holding ``path`` (made absolute first: ``SKILL.md`` alone)."""
    return path.parent.name or Path(os.path.abspath(path)).parent.name


def _fallback_name(path: Path, expected_name: str | None) -> tuple[str, list[Diagnostic]]:
    """The name a skill is listed under when its own is unusable, shown safely."""
    name = expected_name if expected_name is not None else _folder_name(path)
    found = F.UNSAFE_CHARACTER_RE.search(name)
    if found is None:
        return name, []
    return F.escape_unsafe(name), [
        F.error(
            F.E_CONTROL_CHARACTER,
            f"the skill's folder name contains {F.describe_character(found.group())}, which "
            "can hide or reorder text on screen; rename the folder to the skill's name.",
            str(path),
            None,
        )
    ]


def internal_error(file: str, exc: BaseException) -> Diagnostic:
    """E-INTERNAL: parsing raised. The skill is listed, broken; its siblings still load."""
    detail = str(exc).strip().split("\n", 1)[0]
    if len(detail) > 200:
        detail = detail[:197] + "..."
    return F.error(
        F.E_INTERNAL,
        f"gibberish could not read this skill: {type(exc).__name__}: {detail or '(no message)'}"
        "; please report it.",
        file,
        None,
    )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _broken(
    path: Path,
    name: str,
    diagnostics: list[Diagnostic],
    profile: Profile,
    trust: Trust,
    sha256: str = "",
) -> SkillDefinition:
    return SkillDefinition(
        name=name,
        source_path=path,
        trust=trust,
        profile=profile,
        source_sha256=sha256,
        diagnostics=tuple(diagnostics),
    )


def parse_skill_file(
    path: Path,
    *,
    profile: Profile = Profile.GIBBERISH,
    trust: Trust = Trust.USER,
    expected_name: str | None = None,
) -> SkillDefinition:
    """Read and parse ``path`` (a SKILL.md). Never raises for bad content.

    ``expected_name`` defaults to the folder name; a different ``name`` in the
    frontmatter is E-NAME-MISMATCH.
    """
    path = Path(path)
    data, problem = read_skill_bytes(path)
    return parse_skill_bytes(
        data, problem, path=path, profile=profile, trust=trust, expected_name=expected_name
    )


def parse_skill_bytes(
    data: bytes | None,
    problem: Diagnostic | None = None,
    *,
    path: Path,
    profile: Profile = Profile.GIBBERISH,
    trust: Trust = Trust.USER,
    expected_name: str | None = None,
) -> SkillDefinition:
    """Parse what :func:`read_skill_bytes` returned (bytes, or None and the problem).

    Split from :func:`parse_skill_file` so the library can keep a digest of the exact
    bytes it parsed (to re-check "racy" files cheaply). ``source_sha256`` is the
    SHA-256 of ``data`` ("" when there were no bytes).
    """
    path = Path(path)
    name, name_diags = _fallback_name(path, expected_name)
    if data is None:
        if problem is None:
            problem = F.error(F.E_UNREADABLE, "SKILL.md could not be read.", str(path), None)
        return _broken(path, name, [problem, *name_diags], profile, trust)
    sha256 = _sha256(data)
    text, problem = decode_skill_bytes(data, file=str(path))
    if text is None:
        assert problem is not None
        return _broken(path, name, [problem, *name_diags], profile, trust, sha256)
    return _parse_guarded(
        text, path=path, profile=profile, trust=trust, name=(name, name_diags), sha256=sha256
    )


def parse_skill_text(
    text: str,
    *,
    path: Path,
    profile: Profile = Profile.GIBBERISH,
    trust: Trust = Trust.USER,
    expected_name: str | None = None,
) -> SkillDefinition:
    """Parse SKILL.md ``text`` as if read from ``path`` (used for line numbers and names).

    A UTF-8 BOM is dropped and CRLF / CR line ends count as one line end, so the line
    numbers match what an editor shows. ``source_sha256`` is the SHA-256 of ``text``
    encoded as UTF-8, exactly as given.
    """
    path = Path(path)
    sha256 = _sha256(text.encode("utf-8", "surrogatepass"))
    return _parse_guarded(
        text,
        path=path,
        profile=profile,
        trust=trust,
        name=_fallback_name(path, expected_name),
        sha256=sha256,
    )


def _parse_guarded(
    text: str,
    *,
    path: Path,
    profile: Profile,
    trust: Trust,
    name: tuple[str, list[Diagnostic]],
    sha256: str,
) -> SkillDefinition:
    """Parse, turning any exception into an E-INTERNAL error on this one skill."""
    skill_name, name_diags = name
    try:
        skill = _parse_text(
            text, path=path, profile=profile, trust=trust, name=skill_name, sha256=sha256
        )
    except Exception as exc:  # a parser bug must not take the library down
        return _broken(
            path, skill_name, [internal_error(str(path), exc), *name_diags], profile, trust, sha256
        )
    if name_diags:
        skill = replace(skill, diagnostics=(*name_diags, *skill.diagnostics))
    return skill


MAX_CONTROL_CHARACTER_LINES = 20
"""E-CONTROL-CHARACTER diagnostics per file; one more says how many lines were left out."""


def control_characters(text: str, *, file: str | None) -> list[Diagnostic]:
    """E-CONTROL-CHARACTER for each line of ``text`` (LF line ends) holding an unsafe character.

    The whole file is checked, not only the fields that reach a prompt: the frontmatter,
    tool names and descriptions, parameter tables, commands and the prose around them
    are all read by people (in a terminal, a dialog, an editor, a review of the file).
    """
    if not F.has_unsafe(text):
        return []
    by_line: dict[int, list[str]] = {}
    line, counted = 1, 0
    for match in F.UNSAFE_CHARACTER_RE.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        chars = by_line.setdefault(line, [])
        if match.group() not in chars:
            chars.append(match.group())
    diags = []
    for number, chars in list(by_line.items())[:MAX_CONTROL_CHARACTER_LINES]:
        shown = " and ".join(F.describe_character(c) for c in chars[:3])
        more = f" (and {len(chars) - 3} more)" if len(chars) > 3 else ""
        diags.append(
            F.error(
                F.E_CONTROL_CHARACTER,
                f"this line contains {shown}{more}: control and bidirectional characters can "
                "hide, restyle or reorder what a person reviewing or approving this skill "
                "sees, so they are not allowed in SKILL.md. Remove them.",
                file,
                number,
            )
        )
    if len(by_line) > MAX_CONTROL_CHARACTER_LINES:
        rest = list(by_line)[MAX_CONTROL_CHARACTER_LINES:]
        diags.append(
            F.error(
                F.E_CONTROL_CHARACTER,
                f"{len(rest)} more lines contain control or bidirectional characters "
                f"(from line {rest[0]} on); remove them all.",
                file,
                rest[0],
            )
        )
    return diags


def _escape_deep(value: Any) -> Any:
    """Plain data (``extra``) with every string's unsafe characters made visible."""
    if isinstance(value, str):
        return F.escape_unsafe(value)
    if isinstance(value, list | tuple):
        return type(value)(_escape_deep(v) for v in value)
    if isinstance(value, dict) or hasattr(value, "items"):
        return {_escape_deep(k): _escape_deep(v) for k, v in value.items()}
    return value


def _defang_tool(tool: ToolDefinition) -> ToolDefinition:
    def param(p: ParameterDefinition) -> ParameterDefinition:
        return replace(
            p, description=F.escape_unsafe(p.description), default=_escape_deep(p.default)
        )

    command = tool.command
    if command is not None:
        # Its words come from the shown text, fresh or from the parse cache alike.
        command = TextTemplate(F.escape_unsafe(command.source), command.line)
    return replace(
        tool,
        description=F.escape_unsafe(tool.description),
        parameters=tuple(param(p) for p in tool.parameters),
        command=command,
    )


def _defang(skill: SkillDefinition) -> SkillDefinition:
    """A skill with E-CONTROL-CHARACTER never runs, but it is still listed (CLI, tray,
    JSON): show its text with the offending characters as visible escapes."""
    diagnostics = tuple(
        d
        if F.UNSAFE_CHARACTER_RE.search(d.message) is None
        and (d.file is None or F.UNSAFE_CHARACTER_RE.search(d.file) is None)
        else Diagnostic(
            d.severity,
            d.code,
            F.escape_unsafe(d.message),
            None if d.file is None else F.escape_unsafe(d.file),
            d.line,
        )
        for d in skill.diagnostics
    )
    return replace(
        skill,
        version=F.escape_unsafe(skill.version),
        description=F.escape_unsafe(skill.description),
        author=None if skill.author is None else F.escape_unsafe(skill.author),
        tools=tuple(_defang_tool(t) for t in skill.tools),
        body=F.escape_unsafe(skill.body),
        extra=MappingProxyType(
            {
                k: MappingProxyType(_escape_deep(v)) if k == "metadata" else _escape_deep(v)
                for k, v in skill.extra.items()
            }
        )
        if skill.extra
        else skill.extra,
        diagnostics=diagnostics,
    )


def _parse_text(
    text: str,
    *,
    path: Path,
    profile: Profile,
    trust: Trust,
    name: str,
    sha256: str,
) -> SkillDefinition:
    file = str(path)
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    front, block, diags = parse_frontmatter(text, file=file, profile=profile, expected_name=name)
    diags.extend(control_characters(text, file=file))
    tools: tuple = ()
    body = ""
    if block is not None:
        body = text[block.body_offset :]
        tools, body_diags = parse_body(body, first_line=block.body_line, file=file, profile=profile)
        diags.extend(body_diags)
        body = body.strip("\n")
    diags.sort(key=lambda d: d.line or 0)
    front = front or Frontmatter()  # broken frontmatter: every field at its default
    skill = SkillDefinition(
        name=front.name or name,
        source_path=path,
        version=front.version,
        description=front.description,
        author=front.author,
        modes=front.modes,
        read_only=front.read_only,
        always_ask=front.always_ask,
        timeout_secs=front.timeout_secs,
        network=front.network,
        secrets=front.secrets,
        gui=front.gui,
        credentials=front.credentials,
        tools=tools,
        body=body,
        extra=front.extra,
        trust=trust,
        profile=profile,
        source_sha256=sha256,
        diagnostics=tuple(diags),
    )
    if any(d.code == F.E_CONTROL_CHARACTER for d in diags):
        skill = _defang(skill)
    return skill
