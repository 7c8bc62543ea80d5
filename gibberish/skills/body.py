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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gibberish.skills import fields as F
from gibberish.skills.model import (
    Diagnostic,
    ParameterDefinition,
    ParameterType,
    Profile,
    ToolDefinition,
)
from gibberish.skills.render import RenderError, coerce_value
from gibberish.skills.templates import check_template, parse_template

_COMMAND_LANGUAGES = frozenset({"", "bash", "sh", "shell"})
_REQUIRED_WORDS = {"yes": True, "true": True, "no": False, "false": False}
_TYPES = {t.value: t for t in ParameterType}
_NO_DEFAULT = frozenset({"", "-", "\u2013", "\u2014"})
_REQUIRED_COLUMNS = ("name", "type", "required", "description")


@dataclass(slots=True)
class _Fence:
    info: str
    open_line: int
    source: str = ""
    closed: bool = False


@dataclass(slots=True)
class _Section:
    """A ``####`` sub-section of a tool: heading line, text chunks and fences."""

    line: int
    chunks: list[tuple[int, list[str]]] = field(default_factory=list)
    """``(first line number, lines)`` of each stretch of text between structural lines."""
    fences: list[_Fence] = field(default_factory=list)


@dataclass(slots=True)
class _ToolBlock:
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


def _scan(text: str, first_line: int) -> tuple[list[_ToolBlock], list[_Fence]]:
    """One pass over the body: tool blocks, plus a fence left open at the end."""
    lines = text.split("\n")
    tools: list[_ToolBlock] = []
    current: _ToolBlock | None = None
    section: _Section | None = None
    fence: _Fence | None = None
    fence_char, fence_len, fence_body = "", 0, 0
    pending = 0  # index of the first line not yet handed to a section

    def flush(end: int) -> None:
        if current is None or end <= pending:
            return
        if section is not None:
            section.chunks.append((first_line + pending, lines[pending:end]))
        elif not current.description_done:
            _take_description(current, lines[pending:end])

    for index, line in enumerate(lines):
        if not line or line[0] not in _MAYBE_STRUCTURAL:
            continue
        if fence is not None:
            if _fence_closes(line, fence_char, fence_len):
                fence.source = "\n".join(lines[fence_body:index])
                fence.closed = True
                fence = None
                pending = index + 1
            continue
        number = first_line + index
        lead = line.lstrip(" ")[:1]
        opened = _fence_open(line) if lead in _FENCE_CHARS else None
        if opened is not None:
            flush(index)
            fence_char, fence_len, info = opened
            fence = _Fence(info, number)
            fence_body = index + 1
            if section is not None:
                section.fences.append(fence)
            elif current is not None:
                current.description_done = True
            continue
        heading = _heading(line) if lead == "#" else None
        if heading is None:
            continue
        level, title = heading
        if level >= 5 and (current is None or section is not None):
            continue  # plain text of the current section
        flush(index)
        pending = index + 1
        if level <= 2:
            current, section = None, None
        elif level == 3:
            current = _ToolBlock(_unwrap(title), number)
            section = None
            tools.append(current)
        elif current is None:
            continue
        elif level == 4:
            current.description_done = True
            kind = title.rstrip(":").strip().lower()
            section = _Section(number)
            if kind in ("parameters", "command", "phrases"):
                existing: _Section | None = getattr(current, kind)
                if existing is not None:
                    # Collected, then ignored.
                    current.duplicate_sections.append((kind, existing.line, number))
                else:
                    setattr(current, kind, section)
        else:
            current.description_done = True
    if fence is not None:
        fence.source = "\n".join(lines[fence_body:])
        return tools, [fence]
    flush(len(lines))
    return tools, []


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

    def err(self, code: str, message: str, line: int) -> None:
        self.broken = True
        self.diagnostics.append(F.error(code, message, self.file, line))

    def read(self, section: _Section) -> list[ParameterDefinition]:
        table = self._find_table(section)
        if table is None:
            return []
        first, lines = table
        header_line = first
        if len(lines) < 2 or not _is_delimiter_row(_split_row(lines[1])):
            self.err(
                F.E_PARAM_TABLE,
                f"the parameter table of tool '{self.tool}' has no delimiter row: put a "
                "line like |---|---|---|---| right under the header.",
                header_line,
            )
            return []
        header = _split_row(lines[0])
        columns: dict[str, int] = {}
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
            return []
        index = (
            columns["name"],
            columns["type"],
            columns["required"],
            columns["description"],
            columns.get("default"),
        )
        width = len(header)
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
        self,
        cells: list[str],
        index: tuple[int, int, int, int, int | None],
        line: int,
        seen: dict[str, int],
    ) -> ParameterDefinition | None:
        i_name, i_type, i_required, i_description, i_default = index
        name = _unwrap(cells[i_name])
        ok = True
        if not F.is_valid_param_name(name):
            self.err(
                F.E_INVALID_PARAM_NAME,
                f"invalid parameter name {name!r} in tool '{self.tool}': use letters, digits "
                "and '_', starting with a letter or '_' (at most 64).",
                line,
            )
            ok = False
        elif name in seen:
            self.err(
                F.E_DUP_PARAM,
                f"parameter '{name}' of tool '{self.tool}' is already defined on line "
                f"{seen[name]}; remove one of the rows.",
                line,
            )
            ok = False
        else:
            seen[name] = line
        type_text = _unwrap(cells[i_type]).lower()
        ptype = _TYPES.get(type_text)
        if ptype is None:
            self.err(
                F.E_INVALID_PARAM_TYPE,
                f"parameter '{name}' of tool '{self.tool}' has unknown type {type_text!r}; "
                "use string, integer, number, boolean or array.",
                line,
            )
            ok = False
        required = _REQUIRED_WORDS.get(cells[i_required].strip("*_ ").lower())
        if required is None:
            self.err(
                F.E_INVALID_REQUIRED,
                f"parameter '{name}' of tool '{self.tool}' has Required "
                f"{cells[i_required]!r}; write yes or no.",
                line,
            )
            ok = False
        if not ok or ptype is None or required is None:
            return None
        description = cells[i_description]
        raw_default = "" if i_default is None else _unwrap(cells[i_default])
        if raw_default in _NO_DEFAULT:
            raw_default = ""
        described = (
            _default_in_description(description) if description.endswith((")", ".")) else None
        )
        if (
            raw_default
            and described is not None
            and _unquote_default(described) != _unquote_default(raw_default)
        ):
            self.diagnostics.append(
                F.warning(
                    F.W_DEFAULT_CONFLICT,
                    f"parameter '{name}' of tool '{self.tool}' has default {raw_default!r} in "
                    f"the Default column but {described!r} in its description; the column "
                    "wins. Make them agree.",
                    self.file,
                    line,
                )
            )
        chosen = raw_default or described
        default: Any = None
        if chosen:
            value = _unquote_default(chosen)
            probe = ParameterDefinition(name, ptype, required, description, None, line)
            try:
                default = coerce_value(probe, _default_value(ptype, value))
            except RenderError as exc:
                self.err(
                    F.E_INVALID_DEFAULT,
                    f"the default {value!r} of parameter '{name}' in tool '{self.tool}' is not "
                    f"a valid {ptype.value}: {exc.message}",
                    line,
                )
                return None
        return ParameterDefinition(name, ptype, required, description, default, line)


def parse_body(
    text: str,
    *,
    first_line: int,
    file: str | None,
    profile: Profile = Profile.GIBBERISH,
) -> tuple[tuple[ToolDefinition, ...], list[Diagnostic]]:
    """Tools defined in the body ``text`` (LF line ends) whose first line is ``first_line``."""
    blocks, open_fences = _scan(text, first_line)
    diags: list[Diagnostic] = []
    for fence in open_fences:
        diags.append(
            F.error(
                F.E_UNTERMINATED_FENCE,
                f"the code block opened on line {fence.open_line} is never closed, so it "
                "swallows the rest of the file; close it with the same fence characters.",
                file,
                fence.open_line,
            )
        )
    if profile is Profile.AGENTSKILLS:
        blocks = [b for b in blocks if b.parameters is not None or b.command is not None]
    tools: list[ToolDefinition] = []
    seen: dict[str, int] = {}
    for block in blocks:
        tool, tool_diags = _build_tool(block, file)
        diags.extend(tool_diags)
        if not F.is_valid_tool_name(block.name):
            diags.append(
                F.error(
                    F.E_INVALID_TOOL_NAME,
                    f"invalid tool name {block.name!r}: use 1-32 lowercase letters, digits and "
                    "'_' (e.g. git_status).",
                    file,
                    block.line,
                )
            )
        elif block.name in seen:
            diags.append(
                F.error(
                    F.E_DUP_TOOL,
                    f"tool '{block.name}' is already defined on line {seen[block.name]}; "
                    "rename or remove one of them.",
                    file,
                    block.line,
                )
            )
        else:
            seen[block.name] = block.line
            tools.append(tool)
    if not blocks and profile is Profile.GIBBERISH:
        diags.append(
            F.error(
                F.E_NO_TOOLS,
                "the skill defines no tools: add a '### tool_name' section with a "
                "'#### Parameters' table (or 'None.') and a '#### Command' code block.",
                file,
                first_line,
            )
        )
    return tuple(tools), diags


def _build_tool(block: _ToolBlock, file: str | None) -> tuple[ToolDefinition, list[Diagnostic]]:
    diags: list[Diagnostic] = []
    name = block.name
    for kind, first, again in block.duplicate_sections:
        diags.append(
            F.error(
                F.E_DUP_SECTION,
                f"tool '{name}' has a second '#### {kind.capitalize()}' section (the first is "
                f"on line {first}); keep only one.",
                file,
                again,
            )
        )
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
    command = None
    section = block.command
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
    else:
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
        for extra in section.fences[1:]:
            diags.append(
                F.warning(
                    F.W_EXTRA_COMMAND,
                    f"tool '{name}' has more than one code block under '#### Command'; only "
                    f"the first (line {fence.open_line}) is used.",
                    file,
                    extra.open_line,
                )
            )
        if fence.closed:
            source = fence.source
            line = fence.open_line + 1
            command, template_diags = parse_template(source, file=file, line=line)
            diags.extend(template_diags)
            if command is not None and not params_broken:
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
