"""SKILL.md frontmatter: find it, load its YAML, type-check every field (docs/adr/0002-skill-md-parsing.md).

Works on the file's text with LF line ends and no BOM, so that every diagnostic can
carry the real SKILL.md line number. The YAML is loaded with the C safe
loader when PyYAML has it (about eight times faster than the pure Python one, which
matters when a thousand skills load at start-up). Field line numbers come from a cheap
scan of the top-level keys rather than from a node graph, for the same reason.

Hostile YAML is screened on libyaml's flat event stream before anything is composed:
anchors and aliases are refused (E-YAML-ALIAS: they are how a few hundred bytes become
10^8 values) and so is nesting deeper than MAX_YAML_DEPTH (PyYAML's composer recurses
once per level). The screen only runs when the text could hold either.
"""

from __future__ import annotations

import datetime
import reprlib
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from msgspec import Struct, field

from gibberish.lazy import lazy_pattern
from gibberish.skills import fields as F
from gibberish.skills.model import DEFAULT_MODES, DEFAULT_TIMEOUT_SECS, Diagnostic, Mode, Profile
from gibberish.skills.serialize import json_key
from gibberish.yaml_import import yaml

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _Loader = yaml.SafeLoader

_EMPTY: Mapping[str, Any] = MappingProxyType({})

GIBBERISH_FIELDS = (
    "name",
    "version",
    "description",
    "author",
    "modes",
    "read_only",
    "always_ask",
    "timeout",
    "network",
    "secrets",
    "gui",
    "credentials",
)
AGENT_SKILLS_FIELDS = ("license", "compatibility", "metadata", "allowed-tools")
"""Fields of the Agent Skills spec: accepted in both profiles and kept in ``extra``."""
INSTALL_FIELDS = ("dependencies",)
"""Read by the installer (docs/skill-format.md, "dependencies"); kept in ``extra``."""
KNOWN_FIELDS = frozenset(GIBBERISH_FIELDS + AGENT_SKILLS_FIELDS + INSTALL_FIELDS)

_MODES_BY_LOWER = {m.value.lower(): m for m in Mode}


class FrontmatterBlock(Struct, frozen=True):
    """Where the frontmatter sits in the file, and where the body starts."""

    yaml_text: str
    yaml_line: int
    """1-based SKILL.md line of the first YAML line (the line after the opening ``---``)."""
    body_line: int
    """1-based SKILL.md line of the first body line (the line after the closing ``---``)."""
    body_offset: int
    """Offset in the text where the body starts (``len(text)`` when there is none)."""


class Frontmatter(Struct, frozen=True):
    """Checked frontmatter values; a field that failed its check holds its default."""

    name: str | None = None
    """None when missing or invalid (the caller falls back to the folder name)."""
    version: str = ""
    description: str = ""
    author: str | None = None
    modes: tuple[Mode, ...] = DEFAULT_MODES
    read_only: bool = False
    always_ask: bool = False
    timeout_secs: int = DEFAULT_TIMEOUT_SECS
    network: bool = False
    secrets: tuple[str, ...] = ()
    gui: bool = False
    credentials: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)


def _is_delimiter(line: str) -> bool:
    return line.rstrip(" \t") == "---"


def find_frontmatter(
    text: str, *, file: str | None
) -> tuple[FrontmatterBlock | None, list[Diagnostic]]:
    """Locate the block between a first line ``---`` and the next line ``---``.

    ``text`` has LF line ends. Works on offsets (``str.find``) rather than a list of
    lines: only the frontmatter's own lines are ever looked at.
    """
    first_end = text.find("\n")
    if first_end < 0:
        first_end = len(text)
    if not _is_delimiter(text[:first_end]):
        hint = ""
        for i, line in enumerate(text.split("\n", 50)[:50]):
            if line.strip():
                if _is_delimiter(line) and i:
                    hint = f" Line {i + 1} is '---': remove what comes before it."
                break
        return None, [
            F.error(
                F.E_NO_FRONTMATTER,
                "SKILL.md does not start with YAML frontmatter: the first line must be '---', "
                "followed by the fields (name, version, description ...) and a closing '---'."
                + hint,
                file,
                1,
            )
        ]
    search = first_end
    while True:
        newline = text.find("\n---", search)
        if newline < 0:
            break
        start = newline + 1
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        if _is_delimiter(text[start:end]):
            yaml_text = text[first_end + 1 : newline] if newline > first_end else ""
            closing_line = text.count("\n", 0, start) + 1
            return (
                FrontmatterBlock(
                    yaml_text,
                    yaml_line=2,
                    body_line=closing_line + 1,
                    body_offset=min(end + 1, len(text)),
                ),
                [],
            )
        search = start
    return None, [
        F.error(
            F.E_UNTERMINATED_FRONTMATTER,
            "the frontmatter opened by '---' on line 1 is never closed: "
            "add a line '---' after the last field.",
            file,
            1,
        )
    ]


# --- YAML -----------------------------------------------------------------------------

_KEY_RE = lazy_pattern(r"""(?:"([^"\\]*)"|'([^']*)'|([A-Za-z0-9_][^:#\s]*))[ \t]*:(?:[ \t]|$)""")
# `key: value` where the plain (unquoted) value itself contains ': ' or ends in ':'.
_LENIENT_RE = lazy_pattern(
    r"""^([ \t]*)([A-Za-z0-9_][A-Za-z0-9_.-]*):[ \t]+([^\s"'\[{|>&*!%@`#].*)$"""
)


def top_level_key_lines(yaml_text: str, first_line: int) -> dict[str, list[int]]:
    """Line numbers of every top-level key (column 0), in order of appearance.

    Values of a top-level mapping are indented or on the key's line, so a column-0
    ``key:`` is a key; this avoids composing a YAML node graph just for line numbers.
    """
    found: dict[str, list[int]] = {}
    for offset, line in enumerate(yaml_text.split("\n")):
        if not line or line[0] in " \t#-":
            continue
        m = _KEY_RE.match(line)
        if m:
            key = m.group(1) if m.group(1) is not None else m.group(2) or m.group(3)
            found.setdefault(key, []).append(first_line + offset)
    return found


def _yaml_error_line(exc: yaml.YAMLError, yaml_text: str, first_line: int) -> tuple[int, str]:
    """The SKILL.md line of a YAML error, and ``column N`` text when known.

    Counted from the mark's character index rather than its ``line``: YAML also breaks
    lines at U+2028/U+0085, editors do not.
    """
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is None:
        return first_line - 1, ""
    index = min(max(mark.index, 0), len(yaml_text))
    line_start = yaml_text.rfind("\n", 0, index) + 1
    line = first_line + yaml_text.count("\n", 0, index)
    return line, f", column {index - line_start + 1}"


def _lenient_rewrite(yaml_text: str, first_line: int) -> tuple[str, list[tuple[int, str]]]:
    """Quote every plain value containing ``': '`` (or ending in ``':'``).

    That is the most common mistake in published skills
    (``description: Use when: the user asks ...``); YAML reads it as a nested mapping.
    """
    out: list[str] = []
    fixed: list[tuple[int, str]] = []
    for offset, line in enumerate(yaml_text.split("\n")):
        m = _LENIENT_RE.match(line)
        if m:
            indent, key, value = m.groups()
            value = value.rstrip()
            if ": " in value or value.endswith(":"):
                out.append(f"{indent}{key}: '" + value.replace("'", "''") + "'")
                fixed.append((first_line + offset, key))
                continue
        out.append(line)
    return "\n".join(out), fixed


MAX_YAML_DEPTH = 32
"""Lists and mappings nested deeper than this are refused before PyYAML composes them.

libyaml's parser is a state machine, but PyYAML's composer recurses once per level: in
pure Python that is a RecursionError, in the C extension a crash of the whole process
(a few hundred thousand ``[`` fit in a 1 MiB SKILL.md). Real frontmatter is 2-3 deep.
"""


class _Refused(Exception):
    """The YAML is well-formed but uses something SKILL.md frontmatter does not allow."""

    def __init__(self, code: str, message: str, index: int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.index = index


def _at(event: yaml.Event) -> int:
    """Where ``event`` starts in the text (the parser marks every event it makes)."""
    return event.start_mark.index if event.start_mark is not None else 0


_NODE_START = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_NODE_END = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def _screen(yaml_text: str) -> None:
    """Raise _Refused for an anchor, an alias or too deep a nesting.

    Aliases are refused outright: ten aliases per level over eight levels is a few
    hundred bytes that expand to 10^8 values (a "billion laughs"), and nothing in a
    SKILL.md needs them. The check walks libyaml's event stream, which is flat, cheap
    and never expands an alias; it only runs when the text could hold one of these (an
    ``&`` or ``*``, or enough ``[ { - : ?`` for a deep nesting: every level needs one).
    Raises yaml.YAMLError for a syntax error, as loading would.
    """
    if (
        "&" not in yaml_text
        and "*" not in yaml_text
        and yaml_text.count("[")
        + yaml_text.count("{")
        + yaml_text.count("-")
        + yaml_text.count(":")
        + yaml_text.count("?")
        <= MAX_YAML_DEPTH
    ):
        return
    depth = 0
    for event in yaml.parse(yaml_text, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _Refused(
                F.E_YAML_ALIAS,
                "anchors and aliases (&name / *name) are not allowed in SKILL.md frontmatter; "
                "write each value out in full.",
                _at(event),
            )
        if isinstance(event, _NODE_START):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise _Refused(
                    F.E_YAML,
                    f"invalid YAML in the frontmatter: lists and mappings are nested more "
                    f"than {MAX_YAML_DEPTH} levels deep. Flatten the value.",
                    _at(event),
                )
        elif isinstance(event, _NODE_END):
            depth -= 1


def _load(yaml_text: str) -> Any:
    _screen(yaml_text)
    return yaml.load(yaml_text, Loader=_Loader)


def _index_line(yaml_text: str, index: int, first_line: int) -> int:
    return first_line + yaml_text.count("\n", 0, min(max(index, 0), len(yaml_text)))


def _too_deep(file: str | None, line: int) -> Diagnostic:
    return F.error(
        F.E_YAML,
        "invalid YAML in the frontmatter: it is nested too deeply to read. Flatten the "
        "lists and mappings.",
        file,
        line,
    )


def load_yaml(
    yaml_text: str, *, file: str | None, first_line: int
) -> tuple[Any, bool, list[Diagnostic]]:
    """Load the frontmatter YAML: ``(data, ok, diagnostics)``.

    On a syntax error, one lenient retry quotes values containing ``': '``; if that
    loads, each quoted line gets a W-YAML-LENIENT warning. Otherwise the original error
    is reported as E-YAML at its real SKILL.md line. Anchors and aliases are refused
    (E-YAML-ALIAS), and so is a nesting deeper than MAX_YAML_DEPTH (E-YAML).
    """
    try:
        return _load(yaml_text), True, []
    except _Refused as refused:
        line = _index_line(yaml_text, refused.index, first_line)
        return None, False, [F.error(refused.code, refused.message, file, line)]
    except yaml.YAMLError as exc:
        original = exc
    except RecursionError:
        return None, False, [_too_deep(file, first_line)]
    lenient = _load_lenient(yaml_text, file=file, first_line=first_line)
    if lenient is not None:
        return lenient
    return None, False, [_yaml_error(original, yaml_text, file=file, first_line=first_line)]


def _load_lenient(
    yaml_text: str, *, file: str | None, first_line: int
) -> tuple[Any, bool, list[Diagnostic]] | None:
    """The retry with values holding ``': '`` quoted; None when it does not help."""
    rewritten, fixed = _lenient_rewrite(yaml_text, first_line)
    if not fixed:
        return None
    try:
        data = _load(rewritten)
    except _Refused as refused:
        # The rewrite keeps every line where it was, so the index maps back.
        line = _index_line(rewritten, refused.index, first_line)
        return None, False, [F.error(refused.code, refused.message, file, line)]
    except (yaml.YAMLError, RecursionError):
        return None
    warnings = [
        F.warning(
            F.W_YAML_LENIENT,
            f"the value of '{key}' contains ': ', which is not valid YAML "
            "unquoted; it was read as text. Put the value in quotes.",
            file,
            line,
        )
        for line, key in fixed
    ]
    return data, True, warnings


def _yaml_error(
    error: yaml.YAMLError, yaml_text: str, *, file: str | None, first_line: int
) -> Diagnostic:
    line, column = _yaml_error_line(error, yaml_text, first_line)
    problem = getattr(error, "problem", None) or str(error).split("\n")[0]
    context = getattr(error, "context", None)
    detail = f"{problem} ({context})" if context else problem
    return F.error(
        F.E_YAML,
        f"invalid YAML in the frontmatter: {detail}{column}. Fix the syntax on this "
        "line; quote values that contain ': ' or start with a special character.",
        file,
        line,
    )


# --- field checks -----------------------------------------------------------------------


_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxstring = 40
_REPR.maxother = 40
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = 6
_REPR.maxdict = 4
"""Bounded ``repr`` for messages: a value nested 3,000 deep must not recurse 3,000 times."""


def _describe(value: Any) -> str:
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {shown!r}"
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    kinds = {int: "integer", float: "number", list: "list", dict: "mapping"}
    return f"{kinds.get(type(value), type(value).__name__)} {_REPR.repr(value)}"[:60]


class _Checker:
    """Checks one frontmatter mapping; collects diagnostics with the field's line."""

    def __init__(
        self,
        data: Mapping[Any, Any],
        *,
        profile: Profile,
        file: str | None,
        key_lines: Mapping[str, list[int]],
        default_line: int,
        expected_name: str | None = None,
    ) -> None:
        self.data = data
        self.expected_name = expected_name
        self.profile = profile
        self.file = file
        self.key_lines = key_lines
        self.default_line = default_line
        self.diagnostics: list[Diagnostic] = []

    def line(self, key: str) -> int:
        lines = self.key_lines.get(key)
        return lines[-1] if lines else self.default_line

    def err(self, code: str, key: str, message: str) -> None:
        self.diagnostics.append(F.error(code, message, self.file, self.line(key)))

    def warn(self, code: str, key: str, message: str) -> None:
        self.diagnostics.append(F.warning(code, message, self.file, self.line(key)))

    def invalid(self, key: str, expected: str, value: Any) -> None:
        self.err(F.E_INVALID_FIELD, key, f"'{key}' must be {expected}, got {_describe(value)}.")

    def error_at(self, code: str, message: str, line: int) -> None:
        self.diagnostics.append(F.error(code, message, self.file, line))

    def string_list(self, key: str, value: Any) -> list[str] | None:
        """A list of strings; a bare string counts as a list of one."""
        if isinstance(value, str):
            return [value]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
        self.invalid(key, "a list of strings", value)
        return None


_REJECTED: Any = object()
"""What a field checker returns for a value it reported: the field keeps its default."""

_Check = Callable[["_Checker", str, Any], Any]


def _check_name(c: _Checker, key: str, raw: Any) -> Any:
    if not isinstance(raw, str):
        c.err(F.E_INVALID_NAME, key, f"'name' must be a string, got {_describe(raw)}.")
    elif not F.is_valid_skill_name(raw, unicode=c.profile is Profile.AGENTSKILLS):
        c.err(
            F.E_INVALID_NAME,
            key,
            f"invalid skill name {raw!r}: {F.skill_name_problem(raw)}. Use 1-64 lowercase "
            "letters, digits and single hyphens, not at either end (e.g. 'git-status').",
        )
    elif c.expected_name is not None and raw != c.expected_name:
        # One verdict everywhere (check, compile, install, the library): accepted under
        # its folder's name with a warning; an install names the folder after 'name'.
        c.warn(
            F.W_NAME_MISMATCH,
            key,
            f"the skill is named {raw!r} but its folder is {c.expected_name!r}; it is "
            f"used as {c.expected_name!r} here (an install names its folder {raw!r}). "
            "Rename the folder or change 'name' so they are equal.",
        )
    else:
        return raw
    return _REJECTED


def _check_version(c: _Checker, key: str, raw: Any) -> Any:
    if isinstance(raw, str) and F.is_semver(raw):
        return raw
    if isinstance(raw, str):
        hint = " (drop the leading 'v')" if raw[:1] in "vV" and F.is_semver(raw[1:]) else ""
        c.err(
            F.E_INVALID_VERSION,
            key,
            f"'version' {raw!r} is not a semantic version{hint}; write MAJOR.MINOR.PATCH, "
            "e.g. 1.0.0.",
        )
    else:
        c.err(
            F.E_INVALID_VERSION,
            key,
            f"'version' must be a semantic version string like 1.0.0, got {_describe(raw)}; "
            'write all three numbers, or quote it: version: "1.0.0".',
        )
    return _REJECTED


def _check_description(c: _Checker, key: str, raw: Any) -> Any:
    if not isinstance(raw, str):
        c.invalid(key, "text", raw)
        return _REJECTED
    description = raw.strip()
    if not description:
        c.err(
            F.E_INVALID_FIELD,
            key,
            "'description' is empty; say what the skill does and when to use it.",
        )
        return _REJECTED
    if c.profile is not Profile.GIBBERISH:
        if len(description) <= F.AGENTSKILLS_DESCRIPTION_MAX:
            return description
        c.err(
            F.E_DESCRIPTION_TOO_LONG,
            key,
            f"'description' is {len(description)} characters long; the limit is "
            f"{F.AGENTSKILLS_DESCRIPTION_MAX}. Shorten it.",
        )
        return _REJECTED
    limit = F.GIBBERISH_DESCRIPTION_MAX
    if len(description) > limit:
        c.warn(
            F.W_DESCRIPTION_LONG,
            key,
            f"'description' is {len(description)} characters long; only the first "
            f"{limit} are used. Shorten it to {limit} characters or fewer.",
        )
        description = description[:limit].rstrip()
    return description


def _check_text_or_null(c: _Checker, key: str, raw: Any) -> Any:
    if raw is None:
        return None
    if isinstance(raw, str):
        return raw.strip() or None
    c.invalid(key, "text", raw)
    return _REJECTED


def _check_modes(c: _Checker, key: str, raw: Any) -> Any:
    items = c.string_list(key, raw)
    if items is None:
        return _REJECTED
    unknown = [m for m in items if m.lower() not in _MODES_BY_LOWER]
    if unknown:
        c.err(
            F.E_INVALID_FIELD,
            key,
            "unknown mode "
            + ", ".join(repr(m) for m in unknown)
            + "; modes are "
            + ", ".join(m.value for m in Mode)
            + ".",
        )
        return _REJECTED
    if not items:
        c.err(
            F.E_INVALID_FIELD,
            key,
            "'modes' is empty, so the skill would never be offered; list at least "
            "one mode or remove the field (default: [Global]).",
        )
        return _REJECTED
    return tuple(dict.fromkeys(_MODES_BY_LOWER[m.lower()] for m in items))


def _check_boolean(c: _Checker, key: str, raw: Any) -> Any:
    if type(raw) is bool:
        return raw
    c.invalid(key, "true or false (a YAML boolean, without quotes)", raw)
    return _REJECTED


def _check_timeout(c: _Checker, key: str, raw: Any) -> Any:
    if type(raw) is not int:
        c.invalid(key, f"a whole number of seconds ({F.TIMEOUT_MIN}-{F.TIMEOUT_MAX})", raw)
        return _REJECTED
    if not F.TIMEOUT_MIN <= raw <= F.TIMEOUT_MAX:
        c.err(
            F.E_INVALID_FIELD,
            key,
            f"'timeout' is {raw} seconds; it must be between {F.TIMEOUT_MIN} and {F.TIMEOUT_MAX}.",
        )
        return _REJECTED
    return raw


def _check_secrets(c: _Checker, key: str, raw: Any) -> Any:
    items = c.string_list(key, raw)
    if items is None:
        return _REJECTED
    bad = [s for s in items if not F.is_valid_secret_name(s)]
    if bad:
        c.err(
            F.E_INVALID_FIELD,
            key,
            "invalid secret name " + ", ".join(repr(s) for s in bad) + "; secrets are "
            "environment variable names: capital letters, digits and '_' "
            "(e.g. GITHUB_TOKEN).",
        )
        return _REJECTED
    return tuple(dict.fromkeys(items))


def _check_credentials(c: _Checker, key: str, raw: Any) -> Any:
    """Credential places the skill reads even when a model started it: ``~/...`` or
    absolute paths, no ``..``; a person sees each one before approving the skill."""
    items = c.string_list(key, raw)
    if items is None:
        return _REJECTED
    bad = [p for p in items if not F.is_valid_credential_path(p)]
    if bad:
        c.err(
            F.E_INVALID_FIELD,
            key,
            "invalid credential path " + ", ".join(repr(p) for p in bad) + "; each must "
            "start with '~/' or '/', have no '..' part, and be at most "
            f"{F.CREDENTIAL_PATH_MAX} characters (e.g. ~/.aws).",
        )
        return _REJECTED
    return tuple(dict.fromkeys(items))


def _check_text(c: _Checker, key: str, raw: Any) -> Any:
    if isinstance(raw, str):
        return raw
    c.invalid(key, "text", raw)
    return _REJECTED


def _check_compatibility(c: _Checker, key: str, raw: Any) -> Any:
    if not isinstance(raw, str):
        c.invalid(key, "text", raw)
    elif len(raw) > F.COMPATIBILITY_MAX:
        c.err(
            F.E_INVALID_FIELD,
            key,
            f"'compatibility' is {len(raw)} characters long; the limit is {F.COMPATIBILITY_MAX}.",
        )
    else:
        return raw
    return _REJECTED


def _check_plain_mapping(c: _Checker, key: str, raw: Any) -> Any:
    if not isinstance(raw, dict):
        c.invalid(key, "a mapping of keys to values", raw)
        return _REJECTED
    plain = _plain_data(raw, depth=0, stack=set(), budget=_Budget(MAX_PLAIN_VALUES))
    if plain is None:
        c.err(
            F.E_INVALID_FIELD,
            key,
            f"'{key}' must be plain data (text, numbers, booleans, lists and "
            f"mappings with text keys, at most {_MAX_DEPTH} levels deep and "
            f"{MAX_PLAIN_VALUES:,} values in all).",
        )
        return _REJECTED
    return MappingProxyType(plain)


def _check_allowed_tools(c: _Checker, key: str, raw: Any) -> Any:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list) and all(isinstance(v, str) for v in raw):
        return tuple(raw)
    c.invalid(key, "text or a list of strings", raw)
    return _REJECTED


_FIELD_CHECKS: dict[str, tuple[str, _Check]] = {
    "name": ("name", _check_name),
    "version": ("version", _check_version),
    "description": ("description", _check_description),
    "author": ("author", _check_text_or_null),
    "modes": ("modes", _check_modes),
    "read_only": ("read_only", _check_boolean),
    "always_ask": ("always_ask", _check_boolean),
    "timeout": ("timeout_secs", _check_timeout),
    "network": ("network", _check_boolean),
    "secrets": ("secrets", _check_secrets),
    "gui": ("gui", _check_boolean),
    "credentials": ("credentials", _check_credentials),
}
"""Field -> (Frontmatter attribute, checker). A checker reports what is wrong and
returns the checked value, or _REJECTED; the attribute's default is Frontmatter's."""

_EXTRA_CHECKS: dict[str, _Check] = {
    "license": _check_text,
    "compatibility": _check_compatibility,
    "metadata": _check_plain_mapping,
    "allowed-tools": _check_allowed_tools,
    "dependencies": _check_plain_mapping,
}
"""Agent Skills fields typed as that spec types them, and the installer's ``dependencies``
(its own shape is checked when a skill is installed), kept in ``extra``."""


def check_fields(
    data: Mapping[Any, Any],
    *,
    profile: Profile,
    file: str | None,
    key_lines: Mapping[str, list[int]] = _EMPTY,
    expected_name: str | None = None,
    default_line: int = 1,
) -> tuple[Frontmatter, list[Diagnostic]]:
    """Type- and range-check every field of a loaded frontmatter mapping: duplicates,
    missing required fields, then each field present through its checker."""
    c = _Checker(
        data,
        profile=profile,
        file=file,
        key_lines=key_lines,
        default_line=default_line,
        expected_name=expected_name,
    )
    _check_duplicates(c)
    _check_required(c)
    values: dict[str, Any] = {}
    for key, (attribute, check) in _FIELD_CHECKS.items():
        if key in data and (value := check(c, key, data[key])) is not _REJECTED:
            values[attribute] = value
    extra: dict[str, Any] = {}
    for key, check in _EXTRA_CHECKS.items():
        if key in data and (value := check(c, key, data[key])) is not _REJECTED:
            extra[key] = value
    _check_unknown(c)
    front = Frontmatter(**values, extra=MappingProxyType(extra) if extra else _EMPTY)
    return front, c.diagnostics


def _check_duplicates(c: _Checker) -> None:
    for key, lines in c.key_lines.items():
        if len(lines) > 1:
            shown = ", ".join(map(str, lines))
            c.error_at(
                F.E_DUPLICATE_FIELD,
                f"'{key}' is set {len(lines)} times (lines {shown}); keep only one.",
                lines[-1],
            )


def _check_required(c: _Checker) -> None:
    required: tuple[str, ...] = ("name", "description")
    if c.profile is Profile.GIBBERISH:
        required = ("name", "version", "description")
    for key in required:
        if key not in c.data:
            c.error_at(
                F.E_MISSING_FIELD,
                f"the required field '{key}' is missing from the frontmatter; add it "
                f"between the '---' lines (e.g. {_EXAMPLES[key]}).",
                c.default_line,
            )


def _check_unknown(c: _Checker) -> None:
    for key in c.data:
        if key not in KNOWN_FIELDS:
            shown = str(key)
            import difflib  # only for a field that is not known

            close = difflib.get_close_matches(shown, sorted(KNOWN_FIELDS), n=1, cutoff=0.75)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            c.warn(
                F.W_UNKNOWN_FIELD, shown, f"unknown frontmatter field '{shown}' is ignored.{hint}"
            )


_EXAMPLES = {
    "name": "name: my-skill",
    "version": "version: 1.0.0",
    "description": "description: What it does and when to use it.",
}


_MAX_DEPTH = 8
MAX_PLAIN_VALUES = 10_000
"""Values ``_plain_data`` visits before giving up: YAML aliases are refused, but a
mapping handed to ``check_fields`` by other code may still share sub-lists."""


class _Budget:
    __slots__ = ("left",)

    def __init__(self, left: int) -> None:
        self.left = left


def _plain_data(value: Any, *, depth: int, stack: set[int], budget: _Budget) -> Any:
    """``value`` as JSON-like data (dates become ISO text), or None when it cannot be.

    Guards what is kept in ``extra``: it is compared on every refresh and exported as
    JSON, so a self-referencing structure, a datetime or a value that expands to more
    than MAX_PLAIN_VALUES values must not get in.
    """
    budget.left -= 1
    if budget.left < 0:
        return None
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, datetime.date):
        return value.isoformat()
    if depth >= _MAX_DEPTH or id(value) in stack or not isinstance(value, list | dict):
        return None
    stack.add(id(value))
    try:
        if isinstance(value, list):
            return _plain_list(value, depth=depth, stack=stack, budget=budget)
        return _plain_mapping(value, depth=depth, stack=stack, budget=budget)
    finally:
        stack.discard(id(value))


def _plain_item(v: Any, *, depth: int, stack: set[int], budget: _Budget) -> tuple[bool, Any]:
    """(whether ``v`` is plain data, its plain form)."""
    item = _plain_data(v, depth=depth + 1, stack=stack, budget=budget)
    return not (item is None and (v is not None or budget.left < 0)), item


def _plain_list(value: list[Any], *, depth: int, stack: set[int], budget: _Budget) -> Any:
    items = []
    for v in value:
        ok, item = _plain_item(v, depth=depth, stack=stack, budget=budget)
        if not ok:
            return None
        items.append(item)
    return items


def _plain_mapping(value: dict[Any, Any], *, depth: int, stack: set[int], budget: _Budget) -> Any:
    out: dict[str, Any] = {}
    for k, v in value.items():
        ok, item = _plain_item(v, depth=depth, stack=stack, budget=budget)
        if not ok or not isinstance(k, str | int | float | bool | datetime.date | None):
            return None
        out[json_key(k)] = item
    return out


def _unsafe_in(value: Any) -> str | None:
    """The first unsafe character in a string anywhere inside ``value`` (keys included)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found = F.UNSAFE_CHARACTER_RE.search(item)
            if found is not None:
                return found.group()
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _escaped_controls(
    data: Mapping[Any, Any],
    key_lines: Mapping[str, list[int]],
    *,
    file: str | None,
    default_line: int,
) -> list[Diagnostic]:
    """E-CONTROL-CHARACTER for each top-level field whose loaded text holds one."""
    diags: list[Diagnostic] = []
    for key, value in data.items():
        char = _unsafe_in(key) or _unsafe_in(value)
        if char is None:
            continue
        lines = key_lines.get(str(key))
        diags.append(
            F.error(
                F.E_CONTROL_CHARACTER,
                f"the value of '{key}' contains {F.describe_character(char)} (written as a "
                "YAML escape); control and bidirectional characters can hide or reorder "
                "what a person reviewing or approving this skill sees, so they are not "
                "allowed. Remove it.",
                file,
                lines[-1] if lines else default_line,
            )
        )
    return diags


def parse_frontmatter(
    text: str,
    *,
    file: str | None,
    profile: Profile,
    expected_name: str | None = None,
) -> tuple[Frontmatter | None, FrontmatterBlock | None, list[Diagnostic]]:
    """Find, load and check the frontmatter of a SKILL.md ``text`` (LF line ends, no BOM).

    Returns ``(frontmatter, block, diagnostics)``; ``frontmatter`` is None when there is
    no usable mapping (missing block, YAML error, not a mapping). ``block`` is None only
    when the frontmatter could not be found, in which case there is no body either.
    """
    block, diags = find_frontmatter(text, file=file)
    if block is None:
        return None, None, diags
    data, ok, yaml_diags = load_yaml(block.yaml_text, file=file, first_line=block.yaml_line)
    diags.extend(yaml_diags)
    if not ok:
        return None, block, diags
    if data is None:
        data = {}
    if not isinstance(data, dict):
        diags.append(
            F.error(
                F.E_FRONTMATTER_NOT_MAPPING,
                f"the frontmatter must be 'field: value' lines, got {_describe(data)}.",
                file,
                block.yaml_line,
            )
        )
        return None, block, diags
    key_lines = top_level_key_lines(block.yaml_text, block.yaml_line)
    if "\\" in block.yaml_text and not F.has_unsafe(block.yaml_text):
        # Raw ones are reported by the parser, line by line, for the whole file; this
        # finds those YAML escapes produce ("\e[8m", "\u202e", "\r" ...): only a
        # double-quoted scalar's backslash escapes can make one out of plain text.
        diags.extend(_escaped_controls(data, key_lines, file=file, default_line=block.yaml_line))
    front, field_diags = check_fields(
        data,
        profile=profile,
        file=file,
        key_lines=key_lines,
        expected_name=expected_name,
        default_line=1,
    )
    diags.extend(field_diags)
    return front, block, diags
