"""The SKILL.md body: ``###`` tool sections, their parameter tables and command blocks.

Deliberately line-based instead of a full Markdown parse: only ATX headings, fenced
code blocks and pipe tables matter here, and a real CommonMark parser costs more than
the rest of loading a skill together. Fences are tracked the CommonMark way (same
character, at least as long, up to three spaces of indent), so a ``###`` inside a code
block is never a tool.

Fast path: a line is only looked at when its first character could start a heading
or a fence (``#``, a backtick, ``~`` or a space); the lines between two structural
lines are handed over as one slice (a description paragraph, a parameter table, a
command), so an ordinary line costs one character test.

Structure rules (where the spec is silent, the choice is written here):

* A ``###`` heading starts a tool; a ``#`` or ``##`` heading ends the current tool (text
  under it is free prose); ``####`` headings inside a tool open its sub-sections:
  ``Parameters``, ``Command``, ``Phrases`` (spoken forms, for voice), anything else is
  ignored. ``#####``/``######`` do not change the section.
* In the ``agentskills`` profile a ``###`` section is a tool only when it has a
  ``#### Parameters`` or ``#### Command`` sub-section: instruction skills use ``###``
  headings for prose. In the ``gibberish`` profile every ``###`` heading is a tool.
* A tool without a ``#### Parameters`` section is allowed with warning W-NO-PARAMETERS
  (SKILL.md spec §9.2); write ``None.`` to say "no parameters" explicitly.
* A tool whose name is invalid or repeated gets an error and is left out of
  ``tools``; its sections are still checked so every problem shows at once.
* When the parameter table itself is broken, the command is parsed but not checked
  against the parameters (that would only repeat the table error as "unknown
  placeholder" errors).
* A heading name may be wrapped in backticks (```### `git_status` ```); name, type and
  default cells may be too.

The command templates' parser and checks (``templates``, ``template_params``,
``render`` and the program tables under them) are imported by the first tool that
needs them: an instruction skill, which most public skills are, needs none.
"""

from __future__ import annotations

from typing import NamedTuple

from msgspec import Struct, field
from msgspec.structs import replace

from gibberish.lazy import lazy_pattern
from gibberish.skills import fields as F
from gibberish.skills.model import (
    CommandTemplate,
    Diagnostic,
    ParameterDefinition,
    ParameterType,
    PlaceholderKind,
    Profile,
    ToolDefinition,
)

_COMMAND_LANGUAGES = frozenset({"", "bash", "sh", "shell"})
_REQUIRED_WORDS = {"yes": True, "true": True, "no": False, "false": False}
_TYPES = {t.value: t for t in ParameterType}
_NO_DEFAULT = frozenset({"", "-", "\u2013", "\u2014"})
_REQUIRED_COLUMNS = ("name", "type", "required", "description")


class _Fence(Struct):
    info: str
    open_line: int
    source: str = ""
    closed: bool = False


class _Section(Struct):
    """A ``####`` sub-section of a tool: heading line, text chunks and fences."""

    line: int
    chunks: list[tuple[int, list[str]]] = field(default_factory=list)
    """``(first line number, lines)`` of each stretch of text between structural lines."""
    fences: list[_Fence] = field(default_factory=list)


class _ToolBlock(Struct):
    name: str
    line: int
    description: list[str] = field(default_factory=list)
    description_done: bool = False
    parameters: _Section | None = None
    command: _Section | None = None
    phrases: _Section | None = None
    duplicate_sections: list[tuple[str, int, int]] = field(default_factory=list)


def _heading(line: str) -> tuple[int, str] | None:
    """``(level, text)`` of an ATX heading, None for any other line."""
    stripped = line.lstrip(" ")
    if not stripped.startswith("#") or len(line) - len(stripped) > 3:
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    if level > 6:
        return None
    rest = stripped[level:]
    if rest and rest[0] not in " \t":
        return None
    text = rest.strip()
    # Closing sequence: "### name ###".
    if text.endswith("#"):
        trimmed = text.rstrip("#")
        if not trimmed or trimmed[-1] in " \t":
            text = trimmed.strip()
    return level, text


def _fence_open(line: str) -> tuple[str, int, str] | None:
    """``(char, length, info)`` when ``line`` opens a fenced code block."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith(("```", "~~~")):
        return None
    char = stripped[0]
    length = len(stripped) - len(stripped.lstrip(char))
    info = stripped[length:].strip()
    if char == "`" and "`" in info:
        return None
    return char, length, info


def _fence_closes(line: str, char: str, length: int) -> bool:
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith(char * length):
        return False
    return not stripped.lstrip(char).strip()


def _unwrap(text: str) -> str:
    """Drop one pair of surrounding backticks (names written as code)."""
    if len(text) >= 2 and text[0] == "`" and text[-1] == "`":
        return text[1:-1].strip()
    return text


def _take_description(block: _ToolBlock, chunk: list[str]) -> None:
    """The first paragraph of ``chunk`` (the lines right under a tool heading)."""
    for line in chunk:
        stripped = line.strip()
        if stripped:
            block.description.append(stripped)
        elif block.description:
            break
    block.description_done = True


_MAYBE_STRUCTURAL = frozenset(" #`~")
_FENCE_CHARS = frozenset("`~")


class _BodyScan:
    """One pass over the body's lines: tool blocks, their sections and fences.

    ``keep_prose``: every ``###`` heading is a tool (gibberish profile); otherwise a
    ``###`` section without ``#### Parameters`` or ``#### Command`` is prose and dropped
    as soon as the next one starts, so memory follows the tools, not the headings. The
    scan stops at the first tool over ``limit`` (``overflow`` is its line)."""

    def __init__(self, text: str, first_line: int, *, keep_prose: bool, limit: int) -> None:
        self.lines = text.split("\n")
        self.first_line = first_line
        self.keep_prose = keep_prose
        self.limit = limit
        self.tools: list[_ToolBlock] = []
        self.current: _ToolBlock | None = None
        self.section: _Section | None = None
        self.fence: _Fence | None = None
        self.fence_char, self.fence_len, self.fence_body = "", 0, 0
        self.pending = 0
        """Index of the first line not yet handed to a section."""
        self.overflow: int | None = None

    def run(self) -> tuple[list[_ToolBlock], list[_Fence]]:
        """The tool blocks, plus a fence left open at the end."""
        lines = self.lines
        for index, line in enumerate(lines):
            if not line or line[0] not in _MAYBE_STRUCTURAL:
                continue
            if self.fence is not None:
                self.inside_fence(line, index)
                continue
            lead = line.lstrip(" ")[:1]
            opened = _fence_open(line) if lead in _FENCE_CHARS else None
            if opened is not None:
                self.open_fence(opened, index)
                continue
            heading = _heading(line) if lead == "#" else None
            if heading is not None and not self.heading(*heading, index):
                break
        if self.fence is not None:
            self.fence.source = "\n".join(lines[self.fence_body :])
            return self.finish(), [self.fence]
        if self.overflow is None:
            self.flush(len(lines))
        return self.finish(), []

    def finish(self) -> list[_ToolBlock]:
        if self.tools and not self.keep_prose and not _is_tool(self.tools[-1]):
            self.tools.pop()
        return self.tools

    def flush(self, end: int) -> None:
        current, pending = self.current, self.pending
        if current is None or end <= pending:
            return
        if self.section is not None:
            self.section.chunks.append((self.first_line + pending, self.lines[pending:end]))
        elif not current.description_done:
            _take_description(current, self.lines[pending:end])

    def inside_fence(self, line: str, index: int) -> None:
        if self.fence is not None and _fence_closes(line, self.fence_char, self.fence_len):
            self.fence.source = "\n".join(self.lines[self.fence_body : index])
            self.fence.closed = True
            self.fence = None
            self.pending = index + 1

    def open_fence(self, opened: tuple[str, int, str], index: int) -> None:
        self.flush(index)
        self.fence_char, self.fence_len, info = opened
        self.fence = _Fence(info, self.first_line + index)
        self.fence_body = index + 1
        if self.section is not None:
            self.section.fences.append(self.fence)
        elif self.current is not None:
            self.current.description_done = True

    def heading(self, level: int, title: str, index: int) -> bool:
        """Take a heading line; False when the scan must stop (too many tools)."""
        current = self.current
        if level >= 5 and (current is None or self.section is not None):
            return True  # plain text of the current section
        self.flush(index)
        self.pending = index + 1
        number = self.first_line + index
        if level <= 2:
            self.current, self.section = None, None
        elif level == 3:
            return self.new_tool(_unwrap(title), number)
        elif current is None:
            return True
        elif level == 4:
            current.description_done = True
            self.section = _Section(number)
            kind = title.rstrip(":").strip().lower()
            if kind in ("parameters", "command", "phrases"):
                existing: _Section | None = getattr(current, kind)
                if existing is not None:  # collected, then ignored
                    current.duplicate_sections.append((kind, existing.line, number))
                else:
                    setattr(current, kind, self.section)
        else:
            current.description_done = True
        return True

    def new_tool(self, name: str, number: int) -> bool:
        tools = self.tools
        if tools and not self.keep_prose and not _is_tool(tools[-1]):
            tools.pop()
        if len(tools) >= self.limit:
            self.overflow = number
            return False
        self.current = _ToolBlock(name, number)
        self.section = None
        tools.append(self.current)
        return True


def _is_tool(block: _ToolBlock) -> bool:
    return block.parameters is not None or block.command is not None


def _split_row(line: str) -> list[str]:
    """Cells of a pipe-table row; ``\\|`` is a literal pipe inside a cell."""
    text = line.strip()
    escaped = "\\|" in text
    if escaped:
        text = text.replace("\\|", "\x00")
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    cells = [c.strip() for c in text.split("|")]
    if escaped:
        cells = [c.replace("\x00", "|") for c in cells]
    return cells


def _is_delimiter_row(cells: list[str]) -> bool:
    for cell in cells:
        core = cell.strip().strip(":")
        if not core or core.strip("-"):
            return False
    return bool(cells)


def _default_in_description(description: str) -> str | None:
    """``X`` from a description ending in ``(default: X)`` (an optional final period)."""
    text = description.rstrip().rstrip(".").rstrip()
    if not text.endswith(")"):
        return None
    start = text.lower().rfind("(default:")
    if start < 0:
        return None
    return text[start + len("(default:") : -1].strip()


def _unquote_default(raw: str) -> str:
    raw = _unwrap(raw)
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    return raw


def _default_value(ptype: ParameterType, text: str) -> object:
    """The raw default handed to ``coerce_value``: text, or a list for arrays.

    An array default is written as a bracketed list (``[a, "b c"]``, items split on
    commas, each may be quoted); any other text is a list of that one item, the same
    reading ``{{x:default}}`` gets in a command.
    """
    if ptype is not ParameterType.ARRAY:
        return text
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [_unquote_default(item.strip()) for item in inner.split(",")] if inner else []
    return [text]


class _ParamReader:
    """Reads one ``#### Parameters`` section into ParameterDefinitions."""

    def __init__(self, file: str | None, tool: str) -> None:
        self.file = file
        self.tool = tool
        self.diagnostics: list[Diagnostic] = []
        self.broken = False
        self.prose_defaults: set[str] = set()
        """Parameters whose default comes from ``(default: X)`` in the description."""

    def err(self, code: str, message: str, line: int) -> None:
        self.broken = True
        self.diagnostics.append(F.error(code, message, self.file, line))

    def read(self, section: _Section) -> list[ParameterDefinition]:
        table = self._find_table(section)
        if table is None:
            return []
        first, lines = table
        index = self._columns(first, lines)
        if index is None:
            return []
        width = index.width
        params: list[ParameterDefinition] = []
        seen: dict[str, int] = {}
        for offset in range(2, len(lines)):
            cells = _split_row(lines[offset])
            if len(cells) < width:
                cells.extend([""] * (width - len(cells)))
            param = self._row(cells, index, first + offset, seen)
            if param is not None:
                params.append(param)
        return params

    def _columns(self, header_line: int, lines: list[str]) -> _Columns | None:
        """Where the columns are, from the header row (and a delimiter row under it)."""
        if len(lines) < 2 or not _is_delimiter_row(_split_row(lines[1])):
            self.err(
                F.E_PARAM_TABLE,
                f"the parameter table of tool '{self.tool}' has no delimiter row: put a "
                "line like |---|---|---|---| right under the header.",
                header_line,
            )
            return None
        columns: dict[str, int] = {}
        header = _split_row(lines[0])
        for i, cell in enumerate(header):
            columns.setdefault(cell.strip("*_ ").lower(), i)
        missing = [c for c in _REQUIRED_COLUMNS if c not in columns]
        if missing:
            self.err(
                F.E_PARAM_COLUMNS,
                f"the parameter table of tool '{self.tool}' lacks the column"
                f"{'s' if len(missing) > 1 else ''} "
                + ", ".join(m.capitalize() for m in missing)
                + "; the header must be | Name | Type | Required | Description | "
                "(and optionally | Default |).",
                header_line,
            )
            return None
        return _Columns(
            columns["name"],
            columns["type"],
            columns["required"],
            columns["description"],
            columns.get("default"),
            len(header),
        )

    def _find_table(self, section: _Section) -> tuple[int, list[str]] | None:
        """``(line of the header, table lines)``: the first run of lines holding ``|``.

        A table never spans two chunks (a heading or fence between them ends it).
        """
        for first, chunk in section.chunks:
            for i, line in enumerate(chunk):
                if "|" in line:
                    end = i + 1
                    while end < len(chunk) and "|" in chunk[end]:
                        end += 1
                    return first + i, chunk[i:end]
        words = [t.strip() for _, chunk in section.chunks for t in chunk if t.strip()]
        if words and words[0].strip("*_ ").rstrip(".").strip("*_ ").lower() == "none":
            return None
        what = "is empty" if not words else "has no parameter table"
        self.diagnostics.append(
            F.warning(
                F.W_PARAMETERS_UNRECOGNIZED,
                f"the Parameters section of tool '{self.tool}' {what}; the tool is read "
                "as having no parameters. Write a table (| Name | Type | Required | "
                "Description |) or 'None.'",
                self.file,
                section.line,
            )
        )
        return None

    def _row(
        self, cells: list[str], index: _Columns, line: int, seen: dict[str, int]
    ) -> ParameterDefinition | None:
        name = _unwrap(cells[index.name])
        name_ok = self._name_ok(name, line, seen)
        typed = self._type(name, _unwrap(cells[index.type]).lower(), line)
        required = self._required(name, cells[index.required], line)
        if not name_ok or typed is None or required is None:
            return None
        ptype, low, high = typed
        description = cells[index.description]
        column = "" if index.default is None else _unwrap(cells[index.default])
        probe = ParameterDefinition(name, ptype, required, description, None, line, low, high)
        chosen = self._chosen_default(probe, column)
        if not chosen:
            return probe
        value = _unquote_default(chosen)
        from gibberish.skills.render import RenderError, coerce_value

        try:
            default = coerce_value(probe, _default_value(ptype, value))
        except RenderError as exc:
            if not column or column in _NO_DEFAULT:
                return probe  # `(default: all)` for an integer is prose, not a default
            self.err(
                F.E_INVALID_DEFAULT,
                f"the default {value!r} of parameter '{name}' in tool '{self.tool}' is not "
                f"a valid {ptype.value}: {exc.message}",
                line,
            )
            return None
        if not column or column in _NO_DEFAULT:
            self.prose_defaults.add(name)
        return replace(probe, default=default)

    def _name_ok(self, name: str, line: int, seen: dict[str, int]) -> bool:
        if not F.is_valid_param_name(name):
            self.err(
                F.E_INVALID_PARAM_NAME,
                f"invalid parameter name {name!r} in tool '{self.tool}': use letters, digits "
                "and '_', starting with a letter or '_' (at most 64).",
                line,
            )
            return False
        if name in seen:
            self.err(
                F.E_DUP_PARAM,
                f"parameter '{name}' of tool '{self.tool}' is already defined on line "
                f"{seen[name]}; remove one of the rows.",
                line,
            )
            return False
        seen[name] = line
        return True

    def _type(self, name: str, type_text: str, line: int) -> _Typed | None:
        """The type, and for a number the range written after it (``integer 1..100``)."""
        word, _, bounds = type_text.partition(" ")
        ptype = _TYPES.get(word)
        if ptype is None:
            self.err(
                F.E_INVALID_PARAM_TYPE,
                f"parameter '{name}' of tool '{self.tool}' has unknown type {type_text!r}; "
                "use string, integer, number, boolean or array.",
                line,
            )
            return None
        if not bounds.strip():
            return ptype, None, None
        limits = _range(ptype, bounds.strip())
        if limits is None:
            self.err(
                F.E_INVALID_PARAM_TYPE,
                f"parameter '{name}' of tool '{self.tool}' has the type {type_text!r}; a "
                "range follows integer or number only, written LOW..HIGH with LOW <= HIGH "
                "(either may be left out): integer 1..1000, number 0..1, integer 0..",
                line,
            )
            return None
        return ptype, *limits

    def _required(self, name: str, cell: str, line: int) -> bool | None:
        required = _REQUIRED_WORDS.get(cell.strip("*_ ").lower())
        if required is None:
            self.err(
                F.E_INVALID_REQUIRED,
                f"parameter '{name}' of tool '{self.tool}' has Required {cell!r}; write yes or no.",
                line,
            )
        return required

    def _chosen_default(self, param: ParameterDefinition, column: str) -> str | None:
        """The default as written: the Default column, else ``(default: X)`` at the end
        of the description (a warning when both are given and differ)."""
        if column in _NO_DEFAULT:
            column = ""
        description = param.description
        described = (
            _default_in_description(description) if description.endswith((")", ".")) else None
        )
        if (
            column
            and described is not None
            and _unquote_default(described) != _unquote_default(column)
        ):
            self.diagnostics.append(
                F.warning(
                    F.W_DEFAULT_CONFLICT,
                    f"parameter '{param.name}' of tool '{self.tool}' has default "
                    f"{column!r} in the Default column but {described!r} in its "
                    "description; the column wins. Make them agree.",
                    self.file,
                    param.line,
                )
            )
        return column or described


_Typed = tuple[ParameterType, int | float | None, int | float | None]
"""A parameter's type, minimum and maximum."""
_RANGE_RE = lazy_pattern(r"([+-]?[0-9]+(?:\.[0-9]+)?)?\s*\.\.\s*([+-]?[0-9]+(?:\.[0-9]+)?)?")


def _range(ptype: ParameterType, text: str) -> tuple[int | float | None, int | float | None] | None:
    """``LOW..HIGH`` (either may be missing) for an integer or number, or None."""
    m = _RANGE_RE.fullmatch(text)
    if m is None or ptype not in (ParameterType.INTEGER, ParameterType.NUMBER):
        return None
    if m[1] is None and m[2] is None:
        return None
    integer = ptype is ParameterType.INTEGER
    if integer and any(b is not None and "." in b for b in m.groups()):
        return None
    convert = int if integer else float
    low = None if m[1] is None else convert(m[1])
    high = None if m[2] is None else convert(m[2])
    if low is not None and high is not None and low > high:
        return None
    return low, high


class _Columns(NamedTuple):
    """Column index of each field of the parameter table."""

    name: int
    type: int
    required: int
    description: int
    default: int | None
    width: int
    """Cells in the header row."""


def parse_body(
    text: str,
    *,
    first_line: int,
    file: str | None,
    profile: Profile = Profile.GIBBERISH,
) -> tuple[tuple[ToolDefinition, ...], list[Diagnostic]]:
    """Tools defined in the body ``text`` (LF line ends) whose first line is ``first_line``.

    Linear in the text, and at most :data:`fields.MAX_TOOLS` tools are read: the first
    one over the limit is an error (``E-TOO-MANY-TOOLS``) and the rest is not looked at."""
    scan = _BodyScan(
        text,
        first_line,
        keep_prose=profile is Profile.GIBBERISH,
        limit=F.MAX_TOOLS,
    )
    blocks, open_fences = scan.run()
    tool_fences = {id(f) for b in blocks for s in (b.parameters, b.command) if s for f in s.fences}
    diags = [
        _unterminated(fence, file, in_prose=id(fence) not in tool_fences and not scan.keep_prose)
        for fence in open_fences
    ]
    if scan.overflow is not None:
        diags.append(
            F.error(
                F.E_TOO_MANY_TOOLS,
                f"this '###' heading starts tool number {F.MAX_TOOLS + 1}; a skill holds at "
                f"most {F.MAX_TOOLS} tools, and nothing after this line was read. Split the "
                "skill into several skills.",
                file,
                scan.overflow,
            )
        )
    if profile is Profile.GIBBERISH and _reads_as_instructions(blocks):
        blocks = []  # one E-NO-TOOLS with a hint, not three errors per heading
    tools: list[ToolDefinition] = []
    seen: dict[str, int] = {}
    for block in blocks:
        tool, tool_diags = _build_tool(block, file)
        diags.extend(tool_diags)
        problem = _tool_name_problem(block, seen, file)
        if problem is not None:
            diags.append(problem)
        else:
            seen[block.name] = block.line
            tools.append(tool)
    if not blocks and profile is Profile.GIBBERISH:
        diags.append(
            F.error(
                F.E_NO_TOOLS,
                "the skill defines no tools: add a '### tool_name' section with a "
                "'#### Parameters' table (or 'None.') and a '#### Command' code block. If it "
                "is an instruction skill (Agent Skills format: prose for a model, its '###' "
                "headings are not tools), check it with '--profile agentskills'.",
                file,
                first_line,
            )
        )
    return tuple(tools), diags


def _reads_as_instructions(blocks: list[_ToolBlock]) -> bool:
    """No ``###`` section has a Parameters or Command section, and there are several of
    them or one is no tool name (``### When to use``): an instruction skill, not tools
    that lack their sections."""
    if not blocks or any(_is_tool(b) for b in blocks):
        return False
    return len(blocks) > 1 or not F.is_valid_tool_name(blocks[0].name)


def _unterminated(fence: _Fence, file: str | None, *, in_prose: bool) -> Diagnostic:
    """A code block never closed: an error where it swallows tools, a warning in the prose
    of an instruction skill (the agentskills profile reads no tools from prose)."""
    message = (
        f"the code block opened on line {fence.open_line} is never closed, so it "
        "swallows the rest of the file; close it with the same fence characters."
    )
    if in_prose:
        return F.warning(F.W_UNTERMINATED_FENCE, message, file, fence.open_line)
    return F.error(F.E_UNTERMINATED_FENCE, message, file, fence.open_line)


def _tool_name_problem(
    block: _ToolBlock, seen: dict[str, int], file: str | None
) -> Diagnostic | None:
    """Why the tool is left out: an invalid or repeated name."""
    if not F.is_valid_tool_name(block.name):
        return F.error(
            F.E_INVALID_TOOL_NAME,
            f"invalid tool name {block.name!r}: use 1-32 lowercase letters, digits and "
            "'_' (e.g. git_status).",
            file,
            block.line,
        )
    if block.name in seen:
        return F.error(
            F.E_DUP_TOOL,
            f"tool '{block.name}' is already defined on line {seen[block.name]}; "
            "rename or remove one of them.",
            file,
            block.line,
        )
    return None


def _build_tool(block: _ToolBlock, file: str | None) -> tuple[ToolDefinition, list[Diagnostic]]:
    """The tool of one ``###`` block, and everything wrong with it."""
    name = block.name
    diags = [
        F.error(
            F.E_DUP_SECTION,
            f"tool '{name}' has a second '#### {kind.capitalize()}' section (the first is "
            f"on line {first}); keep only one.",
            file,
            again,
        )
        for kind, first, again in block.duplicate_sections
    ]
    description = " ".join(block.description)
    if not description:
        diags.append(
            F.warning(
                F.W_NO_TOOL_DESCRIPTION,
                f"tool '{name}' has no description: write a sentence under its heading saying "
                "what it does (models and the command bar rely on it).",
                file,
                block.line,
            )
        )
    params: list[ParameterDefinition] = []
    params_broken = False
    prose: set[str] = set()
    if block.parameters is None:
        diags.append(
            F.warning(
                F.W_NO_PARAMETERS,
                f"tool '{name}' has no '#### Parameters' section; add one with a table or 'None.'",
                file,
                block.line,
            )
        )
    else:
        reader = _ParamReader(file, name)
        params = reader.read(block.parameters)
        diags.extend(reader.diagnostics)
        params_broken = reader.broken
        prose = reader.prose_defaults
    command = _command(block, file, diags)
    if command is not None and not params_broken:
        params = _prefer_template_defaults(command, params, prose)
        line = command.line
        from gibberish.skills.template_params import check_template

        diags.extend(check_template(command, params, file=file, line=line))
    phrases = _bullets(block.phrases) if block.phrases is not None else ()
    return ToolDefinition(name, description, tuple(params), command, block.line, phrases), diags


def _bullets(section: _Section) -> tuple[str, ...]:
    """The items of a ``#### Phrases`` bullet list (``- show the last {count} commits``):
    spoken forms of the tool for voice; any other text in the section is ignored."""
    items = []
    for _first, chunk in section.chunks:
        for line in chunk:
            stripped = line.strip()
            if stripped[:2] in ("- ", "* ", "+ ") and stripped[2:].strip():
                items.append(stripped[2:].strip())
    return tuple(items)


def _prefer_template_defaults(
    command: CommandTemplate, params: list[ParameterDefinition], prose: set[str]
) -> list[ParameterDefinition]:
    """Where a ``(default: X)`` in a description and the command's ``{{x:default}}``
    disagree, the command's wins: it is what the tool was written to run with
    (``(default: current)`` next to ``{{path:.}}`` means the current folder, ``.``)."""
    if not prose:
        return params
    from gibberish.skills.render import RenderError, coerce_value

    written: dict[str, object] = {}
    by_name = {p.name: p for p in params}
    for ph in (ph for word in command.words for ph in word.placeholders):
        param = by_name.get(ph.name)
        if ph.kind is not PlaceholderKind.DEFAULT or ph.name not in prose or param is None:
            continue
        text = ph.modifier or ""
        try:
            value = [text] if param.type is ParameterType.ARRAY else text
            written.setdefault(ph.name, coerce_value(param, value))
        except RenderError:
            continue  # reported by check_template
    return [replace(p, default=written[p.name]) if p.name in written else p for p in params]


def _command(
    block: _ToolBlock, file: str | None, diags: list[Diagnostic]
) -> CommandTemplate | None:
    """The tool's command template (None when missing or broken); its problems go to
    ``diags``."""
    name, section = block.name, block.command
    if section is None or not section.fences:
        where = "has no '#### Command' section" if section is None else "has no code block"
        diags.append(
            F.error(
                F.E_MISSING_COMMAND,
                f"tool '{name}' {where}: add '#### Command' followed by a fenced block "
                "(```bash ... ```) holding the command.",
                file,
                block.line if section is None else section.line,
            )
        )
        return None
    fence = section.fences[0]
    language = fence.info.split(maxsplit=1)[0].lower() if fence.info else ""
    if language not in _COMMAND_LANGUAGES:
        diags.append(
            F.warning(
                F.W_COMMAND_LANGUAGE,
                f"the command block of tool '{name}' is marked {language!r}; commands are "
                "run as program + arguments, mark the block 'bash' or leave it unmarked.",
                file,
                fence.open_line,
            )
        )
    diags.extend(
        F.warning(
            F.W_EXTRA_COMMAND,
            f"tool '{name}' has more than one code block under '#### Command'; only "
            f"the first (line {fence.open_line}) is used.",
            file,
            extra.open_line,
        )
        for extra in section.fences[1:]
    )
    if not fence.closed:
        return None
    from gibberish.skills.templates import parse_template

    command, template_diags = parse_template(fence.source, file=file, line=fence.open_line + 1)
    diags.extend(template_diags)
    return command
