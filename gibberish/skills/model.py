"""The shapes of a parsed skill.

These frozen records (msgspec Structs, ADR 0100) are what every other layer receives:
the runner gets an argv rendered from a ``CommandTemplate``, the trust layer reads
``read_only``/``always_ask``, the model feed turns ``ToolDefinition``s into declarations,
and the UI builds forms from ``ParameterDefinition``s. They carry data only; parsing lives in the sibling modules.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from gibberish.records import hash_without


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Trust(StrEnum):
    """Where a skill came from, which decides how much it is trusted (docs/adr/0010-trust-table.md)."""

    BUNDLED = "bundled"
    USER = "user"
    UNTRUSTED = "untrusted"


class Mode(StrEnum):
    GLOBAL = "Global"
    DEV = "Dev"
    MEETING = "Meeting"
    WRITER = "Writer"


class Profile(StrEnum):
    """Which rules a SKILL.md is checked against (docs/adr/0002-skill-md-parsing.md)."""

    GIBBERISH = "gibberish"
    AGENTSKILLS = "agentskills"


class ParameterType(StrEnum):
    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ARRAY = "array"


class Diagnostic(Struct, frozen=True):
    """One problem found in a skill: what, where (file and 1-based line), how bad."""

    severity: Severity
    code: str
    message: str
    file: str | None = None
    line: int | None = None

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def location(self) -> str:
        if self.file is None:
            return "<unknown>"
        return f"{self.file}:{self.line}" if self.line else self.file

    def format(self) -> str:
        """``file:line: error E-CODE: message`` — the shape compilers use, so editors link it."""
        return f"{self.location()}: {self.severity.value} {self.code}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
            "file": self.file,
            "line": self.line,
        }


class ParameterDefinition(Struct, frozen=True):
    name: str
    type: ParameterType
    required: bool
    description: str = ""
    default: Any = None
    """Already coerced to ``type`` (an int for integer, a list of str for array...)."""
    line: int | None = None
    minimum: int | float | None = None
    """The smallest value an integer or number takes (``integer 1..100``), if limited."""
    maximum: int | float | None = None
    """The largest value an integer or number takes, if limited."""

    __hash__ = hash_without("default")  # a default may be a list (an array's)

    def to_dict(self) -> dict[str, Any]:
        shape: dict[str, Any] = {
            "name": self.name,
            "type": self.type.value,
            "required": self.required,
            "default": self.default,
            "description": self.description,
        }
        if self.minimum is not None:
            shape["minimum"] = self.minimum
        if self.maximum is not None:
            shape["maximum"] = self.maximum
        return shape


class PlaceholderKind(StrEnum):
    VALUE = "value"  # {{name}}
    DEFAULT = "default"  # {{name:default}}
    FLAG = "flag"  # {{name:-f}} / {{name:--flag}}
    FLAG_EQUALS = "flag_equals"  # {{name:--flag=}}


class Literal(Struct, frozen=True):
    """Literal text of a template word, quotes already removed."""

    text: str


class Placeholder(Struct, frozen=True):
    name: str
    kind: PlaceholderKind = PlaceholderKind.VALUE
    modifier: str | None = None
    """The text after ``:``: the default for DEFAULT, the flag for FLAG/FLAG_EQUALS."""
    in_url_query: bool = False
    """True when it sits in the query part of an ``http(s)://`` word: values are percent-encoded."""


Fragment = Literal | Placeholder


class TemplateWord(Struct, frozen=True):
    """One argument of the command: literal text and placeholders, joined without spaces."""

    fragments: tuple[Fragment, ...]

    @property
    def is_literal(self) -> bool:
        return all(isinstance(f, Literal) for f in self.fragments)

    @property
    def literal_text(self) -> str:
        """The word's text with each placeholder shown as ``{{name}}`` (for display)."""
        parts = []
        for f in self.fragments:
            if isinstance(f, Literal):
                parts.append(f.text)
            else:
                parts.append(
                    "{{" + f.name + (":" + f.modifier if f.modifier is not None else "") + "}}"
                )
        return "".join(parts)

    @property
    def whole_placeholder(self) -> Placeholder | None:
        """The placeholder when it is the entire word (arrays then expand to several arguments)."""
        if len(self.fragments) == 1 and isinstance(self.fragments[0], Placeholder):
            return self.fragments[0]
        return None

    @property
    def placeholders(self) -> tuple[Placeholder, ...]:
        return tuple(f for f in self.fragments if isinstance(f, Placeholder))


class CommandTemplate:
    """A parsed ``#### Command`` block: exactly one simple command made of words.

    Immutable and compared by value, like the records around it. The words are a pure
    function of the source (what the parser makes of it), which lets
    :class:`gibberish.skills.text_template.TextTemplate` keep only the text and parse it
    when its words are first asked for: how the parse cache stores templates.
    """

    __slots__ = ("_words", "line", "source")

    source: str
    line: int | None
    _words: tuple[TemplateWord, ...] | None

    def __init__(
        self, source: str, words: tuple[TemplateWord, ...] | None, line: int | None = None
    ) -> None:
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "_words", words)
        object.__setattr__(self, "line", line)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __getstate__(self) -> tuple[Any, ...]:
        return (self.source, self.words, self.line)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        source, words, line = state
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "_words", words)
        object.__setattr__(self, "line", line)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CommandTemplate):
            return NotImplemented
        return (self.source, self.line) == (other.source, other.line) and (
            self.words == other.words
        )

    def __hash__(self) -> int:
        return hash((self.source, self.line))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(source={self.source!r}, line={self.line!r})"

    @property
    def words(self) -> tuple[TemplateWord, ...]:
        return self._words or ()

    @property
    def program(self) -> str:
        return self.words[0].literal_text if self.words else ""

    @property
    def args(self) -> tuple[TemplateWord, ...]:
        return self.words[1:]

    @property
    def placeholder_names(self) -> frozenset[str]:
        return frozenset(p.name for w in self.words for p in w.placeholders)


class ToolDefinition(Struct, frozen=True):
    name: str
    description: str
    parameters: tuple[ParameterDefinition, ...] = ()
    command: CommandTemplate | None = None
    line: int | None = None
    phrases: tuple[str, ...] = ()
    """Spoken forms the author gives under ``#### Phrases`` (voice grammar; may name
    parameters in braces: ``show the last {count} commits``)."""

    def parameter(self, name: str) -> ParameterDefinition | None:
        for p in self.parameters:
            if p.name == name:
                return p
        return None

    def parameter_dicts(self) -> list[dict[str, Any]]:
        """Each parameter's ``to_dict()`` (the JSON listing's shape)."""
        return [p.to_dict() for p in self.parameters]


DEFAULT_TIMEOUT_SECS = 30
"""A skill's timeout when its frontmatter sets none (the one definition of it)."""
DEFAULT_MODES: tuple[Mode, ...] = (Mode.GLOBAL,)
"""A skill's modes when its frontmatter sets none."""


class SkillDefinition(Struct, frozen=True):
    """A loaded skill. A broken one is still a value: ``ok`` is False and ``diagnostics`` say why."""

    name: str
    source_path: Path
    """The SKILL.md file."""
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
    """The skill opens windows: its runs may reach the display (never the session bus)."""
    credentials: tuple[str, ...] = ()
    """Credential places (``~/.aws``) its runs may read even when a model started them."""
    tools: tuple[ToolDefinition, ...] = ()
    body: str = ""
    """The Markdown body: context for instruction skills (no tools)."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Other known frontmatter (license, metadata, allowed-tools ...) kept for export."""
    trust: Trust = Trust.USER
    profile: Profile = Profile.GIBBERISH
    source_sha256: str = ""
    """SHA-256 (hex) of the exact SKILL.md bytes this definition was parsed from, so the
    Engine can tell whether what is on disk now is what a person was shown."""
    diagnostics: tuple[Diagnostic, ...] = ()

    __hash__ = hash_without("extra")  # the other frontmatter: mappings, lists

    @property
    def directory(self) -> Path:
        return self.source_path.parent

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if not d.is_error)

    @property
    def is_instruction_skill(self) -> bool:
        return not self.tools

    @property
    def kind(self) -> str:
        """``tools``, ``instructions`` (valid, no tools: prose for a model) or ``broken``."""
        if not self.ok:
            return "broken"
        return "tools" if self.tools else "instructions"

    def tool(self, name: str) -> ToolDefinition | None:
        for t in self.tools:
            if t.name == name:
                return t
        return None

    def available_in(self, mode: Mode) -> bool:
        return Mode.GLOBAL in self.modes or mode in self.modes


def tool_ref(skill: str, tool: str) -> str:
    """The one way a tool is named to a person and on the command line: ``skill.tool``."""
    return f"{skill}.{tool}"
