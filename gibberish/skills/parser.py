"""Parse one SKILL.md into a SkillDefinition — never raising for bad content.

Whatever is wrong with the file (unreadable, a FIFO, 5 MB, binary, not UTF-8, broken
YAML, no tools ...) comes back as diagnostics on a SkillDefinition whose name falls
back to its folder name, so a broken skill shows up in the UI next to its siblings
instead of taking the library down.

Reading opens the file non-blocking and checks it is a regular file before reading at
most 1 MiB + 1 byte, so a FIFO or a device named SKILL.md can never hang the loader.
"""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

from gibberish.skills import fields as F
from gibberish.skills.body import parse_body
from gibberish.skills.frontmatter import parse_frontmatter
from gibberish.skills.model import Diagnostic, Profile, SkillDefinition, Trust

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
    except IsADirectoryError:
        return None, F.error(
            F.E_UNREADABLE,
            "SKILL.md is a directory, not a file; replace it with the file.",
            file,
            None,
        )
    except FileNotFoundError:
        return None, F.error(
            F.E_UNREADABLE, "SKILL.md does not exist (or is a broken link).", file, None
        )
    except OSError as exc:
        return None, F.error(
            F.E_UNREADABLE,
            f"cannot read SKILL.md: {exc.strerror or exc}; check its permissions.",
            file,
            None,
        )
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            return None, F.error(
                F.E_UNREADABLE,
                "SKILL.md is a directory, not a file; replace it with the file.",
                file,
                None,
            )
        if not stat.S_ISREG(st.st_mode):
            return None, F.error(
                F.E_UNREADABLE,
                "SKILL.md is not a regular file (a device, pipe or socket).",
                file,
                None,
            )
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
    except OSError as exc:
        return None, F.error(
            F.E_UNREADABLE, f"cannot read SKILL.md: {exc.strerror or exc}.", file, None
        )
    finally:
        os.close(fd)
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


def _broken(
    path: Path, name: str, diagnostic: Diagnostic, profile: Profile, trust: Trust
) -> SkillDefinition:
    return SkillDefinition(
        name=name, source_path=path, trust=trust, profile=profile, diagnostics=(diagnostic,)
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
    bytes it parsed (to re-check "racy" files cheaply).
    """
    path = Path(path)
    name = expected_name if expected_name is not None else _folder_name(path)
    if data is None:
        if problem is None:
            problem = F.error(F.E_UNREADABLE, "SKILL.md could not be read.", str(path), None)
        return _broken(path, name, problem, profile, trust)
    text, problem = decode_skill_bytes(data, file=str(path))
    if text is None:
        assert problem is not None
        return _broken(path, name, problem, profile, trust)
    return parse_skill_text(text, path=path, profile=profile, trust=trust, expected_name=name)


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
    numbers match what an editor shows.
    """
    path = Path(path)
    file = str(path)
    name = expected_name if expected_name is not None else _folder_name(path)
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    front, block, diags = parse_frontmatter(text, file=file, profile=profile, expected_name=name)
    tools: tuple = ()
    body = ""
    if block is not None:
        body = text[block.body_offset :]
        tools, body_diags = parse_body(body, first_line=block.body_line, file=file, profile=profile)
        diags.extend(body_diags)
        body = body.strip("\n")
    diags.sort(key=lambda d: d.line or 0)
    if front is None:
        return SkillDefinition(
            name=name,
            source_path=path,
            tools=tools,
            body=body,
            trust=trust,
            profile=profile,
            diagnostics=tuple(diags),
        )
    return SkillDefinition(
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
        tools=tools,
        body=body,
        extra=front.extra,
        trust=trust,
        profile=profile,
        diagnostics=tuple(diags),
    )
