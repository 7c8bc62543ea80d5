"""Names, limits and diagnostic codes shared by the SKILL.md parser modules.

Kept in one small module so the frontmatter checker, the body parser and the library
agree on what a valid name is and spell every diagnostic code the same way; the codes
are a stable interface (the CLI prints them, tests and docs refer to them).
"""

from __future__ import annotations

import re
import unicodedata

from gibberish.lazy import lazy_pattern
from gibberish.skills.model import DEFAULT_TIMEOUT_SECS, Diagnostic, Severity

# --- limits -------------------------------------------------------------------------

MAX_SKILL_FILE_BYTES = 1024 * 1024
"""A SKILL.md larger than this is refused unread: nobody writes 1 MiB of tool docs."""

MAX_TOOLS = 500
"""Tools per skill: the menu, the command bar and a model's tool list all show every
one, and a file of nothing but ``###`` lines must not cost minutes to refuse."""

MAX_NAME_LENGTH = 64
MAX_TOOL_NAME_LENGTH = 32
MAX_PARAM_NAME_LENGTH = 64
GIBBERISH_DESCRIPTION_MAX = 256
AGENTSKILLS_DESCRIPTION_MAX = 1024
COMPATIBILITY_MAX = 500
TIMEOUT_MIN = 1
TIMEOUT_MAX = 300
TIMEOUT_DEFAULT = DEFAULT_TIMEOUT_SECS

SKILL_FILE_NAME = "SKILL.md"
PROVENANCE_FILE_NAME = ".gibberish-source.json"

# --- characters that must not reach a person's screen ------------------------------------

_UNSAFE_CODEPOINTS = (
    *(c for c in range(0x20) if c not in (0x09, 0x0A)),
    *range(0x7F, 0xA0),  # DEL and the C1 controls (0x9B is a one-byte CSI)
    *range(0x202A, 0x202F),  # embeddings and overrides (LRE RLE PDF LRO RLO)
    *range(0x2066, 0x206A),  # isolates (LRI RLI FSI PDI)
)
UNSAFE_CHARACTER_RE = lazy_pattern(
    "[" + "".join(re.escape(chr(c)) for c in _UNSAFE_CODEPOINTS) + "]"
)
"""C0 controls except tab and line feed, DEL, C1 controls and the bidi overrides.

Each can restyle, hide or reorder text in a terminal or a dialog (``ESC [8m`` conceals
the rest of a line; U+202E shows what follows backwards), so none may appear in
anything a skill supplies. A line feed is the line separator (and may sit inside a
multi-line YAML value); a tab is harmless. The weak direction marks (U+200E, U+200F,
U+061C) stay allowed: right-to-left prose needs them and they cannot reorder a run of
text the way embeddings, overrides and isolates can (the CLI prompt escapes them anyway).
"""
_ASCII_SAFE = bytes(c for c in range(0x80) if c not in _UNSAFE_CODEPOINTS)


def has_unsafe(text: str) -> bool:
    """Whether ``text`` holds an unsafe character; a whole SKILL.md costs microseconds.

    ASCII text (most files) is checked by deleting every safe byte, several times faster
    than a regular expression search; other text falls back to the search.
    """
    if text.isascii():
        return bool(text.encode("ascii").translate(None, _ASCII_SAFE))
    return UNSAFE_CHARACTER_RE.search(text) is not None


_ESCAPES = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _UNSAFE_CODEPOINTS}
_CONTROL_NAMES = {
    0x00: "NUL", 0x07: "BEL", 0x08: "BACKSPACE", 0x0B: "VERTICAL TAB", 0x0C: "FORM FEED",
    0x0D: "CARRIAGE RETURN", 0x1B: "ESC", 0x7F: "DEL", 0x85: "NEXT LINE", 0x9B: "CSI",
}  # fmt: skip


def escape_unsafe(text: str) -> str:
    """``text`` with every unsafe character written as a visible ``\\xNN``/``\\uNNNN``."""
    if UNSAFE_CHARACTER_RE.search(text) is None:
        return text
    return text.translate(_ESCAPES)


def describe_character(char: str) -> str:
    """``U+001B (ESC)``: a code point and its name, for messages."""
    code = ord(char)
    name = _CONTROL_NAMES.get(code)
    if name is None:
        name = unicodedata.name(char, "") or (
            "a C1 control character" if 0x80 <= code < 0xA0 else "a control character"
        )
    return f"U+{code:04X} ({name})"


# --- name grammars ------------------------------------------------------------------

_SKILL_NAME_RE = lazy_pattern(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_TOOL_NAME_RE = lazy_pattern(r"[a-z0-9_]{1,32}")
_PARAM_NAME_RE = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_SECRET_NAME_RE = lazy_pattern(r"[A-Z_][A-Z0-9_]*")
# Semantic Versioning 2.0.0, the regular expression recommended by semver.org.
_SEMVER_RE = lazy_pattern(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
    r"(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?"
)


def is_valid_skill_name(name: str, *, unicode: bool = False) -> bool:
    """``[a-z0-9-]{1,64}`` without a leading, trailing or doubled hyphen. ``unicode``
    (the agentskills profile, as the Agent Skills reference validator): lowercase letters
    and digits of any script too, judged in NFKC form as that validator does."""
    if len(name) > MAX_NAME_LENGTH:
        return False
    if _SKILL_NAME_RE.fullmatch(name) is not None:
        return True
    return unicode and _is_unicode_skill_name(unicodedata.normalize("NFKC", name))


def _is_unicode_skill_name(name: str) -> bool:
    return (
        bool(name)
        and name == name.lower()
        and all(c.isalnum() or c == "-" for c in name)
        and not name.startswith("-")
        and not name.endswith("-")
        and "--" not in name
    )


def is_valid_tool_name(name: str) -> bool:
    return _TOOL_NAME_RE.fullmatch(name) is not None


def is_valid_param_name(name: str) -> bool:
    """An identifier: it becomes a JSON property and a ``{{placeholder}}`` name."""
    return _PARAM_NAME_RE.fullmatch(name) is not None


def is_valid_secret_name(name: str) -> bool:
    return _SECRET_NAME_RE.fullmatch(name) is not None


CREDENTIAL_PATH_MAX = 256


def is_valid_credential_path(path: str) -> bool:
    """``~/...`` or absolute, no ``..`` part, no control character, not just ``/`` or ``~``."""
    if not (path.startswith("~/") or path.startswith("/")) or len(path) > CREDENTIAL_PATH_MAX:
        return False
    parts = [p for p in path.split("/")[1:] if p]
    return bool(parts) and ".." not in parts and all(ch.isprintable() for ch in path)


def is_semver(version: str) -> bool:
    return _SEMVER_RE.fullmatch(version) is not None


def skill_name_problem(name: str) -> str:
    """Why ``name`` is not a valid skill name, in words (assumes it is invalid)."""
    if not name:
        return "it is empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"it is {len(name)} characters long (at most {MAX_NAME_LENGTH})"
    bad = sorted(
        {c for c in name if not (c.isascii() and (c.islower() or c.isdigit() or c == "-"))}
    )
    if bad:
        return "it contains " + ", ".join(repr(c) for c in bad) + " (only a-z, 0-9 and '-')"
    if name.startswith("-") or name.endswith("-"):
        return "it starts or ends with a hyphen"
    return "it contains a double hyphen"


# --- diagnostic codes ---------------------------------------------------------------
# File level
E_UNREADABLE = "E-UNREADABLE"
E_FILE_TOO_LARGE = "E-FILE-TOO-LARGE"
E_BINARY_FILE = "E-BINARY-FILE"
E_NOT_UTF8 = "E-NOT-UTF8"
E_PATH_ESCAPE = "E-PATH-ESCAPE"
E_CONTROL_CHARACTER = "E-CONTROL-CHARACTER"
E_INTERNAL = "E-INTERNAL"
# Frontmatter
E_NO_FRONTMATTER = "E-NO-FRONTMATTER"
E_UNTERMINATED_FRONTMATTER = "E-UNTERMINATED-FRONTMATTER"
E_YAML = "E-YAML"
E_YAML_ALIAS = "E-YAML-ALIAS"
W_YAML_LENIENT = "W-YAML-LENIENT"
E_FRONTMATTER_NOT_MAPPING = "E-FRONTMATTER-NOT-MAPPING"
E_DUPLICATE_FIELD = "E-DUPLICATE-FIELD"
E_MISSING_FIELD = "E-MISSING-FIELD"
E_INVALID_FIELD = "E-INVALID-FIELD"
E_INVALID_NAME = "E-INVALID-NAME"
E_NAME_MISMATCH = "E-NAME-MISMATCH"
W_NAME_MISMATCH = "W-NAME-MISMATCH"
W_NAMED_FILE_MISSING = "W-NAMED-FILE-MISSING"
E_NO_SKILL_FILE = "E-NO-SKILL-FILE"
E_INVALID_VERSION = "E-INVALID-VERSION"
E_DESCRIPTION_TOO_LONG = "E-DESCRIPTION-TOO-LONG"
W_DESCRIPTION_LONG = "W-DESCRIPTION-LONG"
W_UNKNOWN_FIELD = "W-UNKNOWN-FIELD"
# Body
E_NO_TOOLS = "E-NO-TOOLS"
E_INVALID_TOOL_NAME = "E-INVALID-TOOL-NAME"
E_DUP_TOOL = "E-DUP-TOOL"
E_DUP_SECTION = "E-DUP-SECTION"
E_TOO_MANY_TOOLS = "E-TOO-MANY-TOOLS"
W_NO_TOOL_DESCRIPTION = "W-NO-TOOL-DESCRIPTION"
W_NO_PARAMETERS = "W-NO-PARAMETERS"
W_PARAMETERS_UNRECOGNIZED = "W-PARAMETERS-UNRECOGNIZED"
E_PARAM_TABLE = "E-PARAM-TABLE"
E_PARAM_COLUMNS = "E-PARAM-COLUMNS"
E_INVALID_PARAM_NAME = "E-INVALID-PARAM-NAME"
E_DUP_PARAM = "E-DUP-PARAM"
E_INVALID_PARAM_TYPE = "E-INVALID-PARAM-TYPE"
E_INVALID_REQUIRED = "E-INVALID-REQUIRED"
E_INVALID_DEFAULT = "E-INVALID-DEFAULT"
W_DEFAULT_CONFLICT = "W-DEFAULT-CONFLICT"
E_MISSING_COMMAND = "E-MISSING-COMMAND"
E_UNTERMINATED_FENCE = "E-UNTERMINATED-FENCE"
W_UNTERMINATED_FENCE = "W-UNTERMINATED-FENCE"
W_COMMAND_LANGUAGE = "W-COMMAND-LANGUAGE"
W_EXTRA_COMMAND = "W-EXTRA-COMMAND"
# Library
W_SKILL_OVERRIDDEN = "W-SKILL-OVERRIDDEN"
E_UNREADABLE_DIR = "E-UNREADABLE-DIR"
W_NO_SKILL_FILE = "W-NO-SKILL-FILE"
E_SKILL_TREE_LARGE = "E-SKILL-TREE-LARGE"


def error(code: str, message: str, file: str | None, line: int | None) -> Diagnostic:
    return _diagnostic(Severity.ERROR, code, message, file, line)


def warning(code: str, message: str, file: str | None, line: int | None) -> Diagnostic:
    return _diagnostic(Severity.WARNING, code, message, file, line)


def _diagnostic(
    severity: Severity, code: str, message: str, file: str | None, line: int | None
) -> Diagnostic:
    # Messages quote names, keys, link targets and paths a skill chose: never let one of
    # them carry a terminal escape or a bidi override onto the screen.
    if UNSAFE_CHARACTER_RE.search(message) is not None:
        message = escape_unsafe(message)
    if file is not None and UNSAFE_CHARACTER_RE.search(file) is not None:
        file = escape_unsafe(file)
    return Diagnostic(severity, code, message, file, line)
