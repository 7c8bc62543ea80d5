"""Compile one skill into a Gemini CLI custom command (a self-contained ``.toml``).

Gemini CLI loads ``~/.gemini/commands/<name>.toml`` as ``/<name>``: a ``description``
and a ``prompt`` in which ``{{args}}`` is replaced by what the person typed after the
command. It reads no other file, so everything the skill refers to is inlined here.

Deterministic and offline: the same skill always gives the same bytes.

* ``description``: the first sentence of the skill's description.
* ``prompt``: a framing line, the SKILL.md body with its wording turned into direct
  instructions (``rewrite_instructions``), each tool as the exact command to run (for
  skills with tools), every local file SKILL.md refers to inlined under its file name,
  and the request placeholder last.
* Gemini CLI runs ``!{…}`` as a shell command and reads ``@{…}`` as a file when the
  command is used. Text from the skill never gets that power: both triggers, and any
  ``{{args}}`` of its own, are broken with an invisible WORD JOINER (U+2060) so the
  model still reads the same characters.
* ``MAX_PROMPT_BYTES`` caps the result; going over is an error naming the largest files.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

from msgspec import Struct

from gibberish.export.references import Resource, collect_resources
from gibberish.skills.model import Profile, SkillDefinition, ToolDefinition
from gibberish.skills.parser import parse_skill_file

MAX_PROMPT_BYTES = 256 * 1024
JOINER = "\u2060"
ARGS = "{{args}}"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,49}$")
_TOOL_HEADING = re.compile(r"^###\s+([a-z0-9_]{1,32})\s*$", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~)")


class CompileError(Exception):
    """A skill that cannot become a command; the message says what to do."""


class CompiledCommand(Struct, frozen=True):
    name: str
    description: str
    prompt: str
    resources: tuple[Resource, ...]

    @property
    def toml_name(self) -> str:
        return f"{self.name}.toml"

    def toml(self) -> str:
        return f"description = {_basic_string(self.description)}\n" + (
            f"prompt = {_multiline(self.prompt)}\n"
        )


def neutralize(text: str) -> str:
    """Make Gemini CLI's injection triggers and the args placeholder inert in ``text``."""
    text = text.replace(ARGS, "{" + JOINER + "{args}}")
    return text.replace("!{", "!" + JOINER + "{").replace("@{", "@" + JOINER + "{")


def command_name(raw: str) -> str:
    """``/art`` or ``art`` → ``art``; anything else is an error saying what is allowed."""
    name = raw.strip().lstrip("/")
    if not _NAME.match(name):
        raise CompileError(
            f"command name {raw!r} must be 1-50 letters, digits, '-' or '_' (like 'art')"
        )
    return name


def first_sentence(text: str) -> str:
    text = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    sentence = match.group(1) if match else text
    return sentence[:200]


_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bClaude's\b"), "your"),
    (
        re.compile(
            r"\b(?:Claude|the assistant|the model|the agent|the AI)\b(?= (?:should|must|can|will|may))",
            re.I,
        ),
        "you",
    ),
    (re.compile(r"\bUse this skill (when|to|for|if)\b", re.I), r"Apply these instructions \1"),
    (re.compile(r"\bThis skill (helps|lets|allows)( you)? (to )?", re.I), "Your job is to "),
    (re.compile(r"\bThis skill\b", re.I), "This command"),
    (re.compile(r"\bthis skill\b"), "these instructions"),
)


def rewrite_instructions(body: str) -> str:
    """Turn prose about a skill into instructions to the model, outside code blocks only.

    The rules are few and fixed (so output is repeatable): "Claude/the assistant should"
    becomes "you should", "Use this skill when" becomes "Apply these instructions when",
    "This skill helps…" becomes "Your job is to…". ``--refine`` is for anything finer.
    """
    out: list[str] = []
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
        elif not fenced:
            for pattern, replacement in _REWRITES:
                line = pattern.sub(replacement, line)
            line = re.sub(r"(^|[.!?]\s+)you\b", lambda m: m.group(1) + "You", line)
        out.append(line)
    return "\n".join(out).strip()


def _preamble(skill: SkillDefinition) -> str:
    """The body before the first tool section (a tool skill's sections become commands)."""
    names = {t.name for t in skill.tools}
    for match in _TOOL_HEADING.finditer(skill.body):
        if match.group(1) in names:
            return skill.body[: match.start()]
    return skill.body


def _tool_text(tool: ToolDefinition) -> str:
    lines = [f"### {tool.name}", "", tool.description.strip()]
    if tool.command is not None:
        lines += ["", "Run exactly this command (one program and its arguments, no shell):"]
        lines += ["", "```", tool.command.source, "```"]
    if tool.parameters:
        lines += ["", "Fill each placeholder with one argument (quote it for a shell):"]
        for p in tool.parameters:
            need = "required" if p.required else f"optional, default {p.default!r}"
            lines.append(f"- `{{{{{p.name}}}}}` ({p.type.value}, {need}): {p.description}")
        lines.append("Leave out the word of an optional placeholder you have no value for.")
    return "\n".join(lines)


def _tools_section(skill: SkillDefinition) -> str:
    if not skill.tools:
        return ""
    head = (
        "## Commands\n\nCarry out requests with these commands. A path starting with "
        "`./` is relative to the skill's folder; its file is included in full below, so "
        "when it is not on disk write it to a temporary folder, make it executable and "
        "run it from there."
    )
    return head + "\n\n" + "\n\n".join(_tool_text(t) for t in skill.tools)


def _resources_section(resources: tuple[Resource, ...]) -> str:
    if not resources:
        return ""
    parts = ["## Files\n\nYou will use the following files, included here in full."]
    for r in resources:
        if r.text is None:
            parts.append(f"--- FILE: {r.rel} ({r.note}; not included) ---")
        else:
            body = r.text if r.text.endswith("\n") else r.text + "\n"
            parts.append(f"--- BEGIN FILE: {r.rel} ---\n{body}--- END FILE: {r.rel} ---")
    return "\n\n".join(parts)


def _usable(skill: SkillDefinition) -> SkillDefinition:
    """The skill as gibberish reads it, or as other agents do (instructions, no tools)."""
    if skill.ok:
        return skill
    if skill.source_path.is_file():
        as_agents = parse_skill_file(
            skill.source_path,
            profile=Profile.AGENTSKILLS,
            trust=skill.trust,
            expected_name=skill.directory.name,
        )
        if as_agents.ok:
            return as_agents
        skill = as_agents
    first = skill.errors[0]
    raise CompileError(f"{first.format()} — fix the skill first (gibberish skills check)")


def compile_skill(
    skill: SkillDefinition,
    name: str | None = None,
    *,
    refine: Callable[[str], str] | None = None,
    max_bytes: int = MAX_PROMPT_BYTES,
) -> CompiledCommand:
    """The Gemini command for ``skill``; ``refine`` may reword the instructions only."""
    skill = _usable(skill)
    cmd = command_name(name or skill.name)
    instructions = rewrite_instructions(_preamble(skill))
    if refine is not None and instructions:
        instructions = refine(instructions)
    resources = collect_resources(skill)
    intro = (
        f'You are carrying out the "{cmd}" command. {skill.description.strip()}\n\n'
        "Follow these instructions exactly."
    )
    sections = [intro, instructions, _tools_section(skill), _resources_section(resources)]
    body = "\n\n".join(neutralize(s) for s in sections if s)
    prompt = body + "\n\nNow carry out the user's request:\n" + ARGS + "\n"
    size = len(prompt.encode("utf-8"))
    if size > max_bytes:
        raise CompileError(_too_big(size, max_bytes, resources))
    return CompiledCommand(cmd, first_sentence(skill.description), prompt, resources)


def _too_big(size: int, limit: int, resources: tuple[Resource, ...]) -> str:
    largest = sorted((r for r in resources if r.text), key=lambda r: -len(r.text or ""))[:3]
    named = ", ".join(f"{r.rel} ({len((r.text or '').encode()) // 1024} KiB)" for r in largest)
    hint = f"; the largest inlined files: {named}" if named else ""
    return (
        f"the compiled prompt would be {size // 1024} KiB, over the {limit // 1024} KiB "
        f"limit{hint}. Refer to fewer or smaller files from SKILL.md, or raise the limit "
        "(--max-kib)."
    )


def _basic_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are a subset TOML accepts, except \\/)."""
    return json.dumps(text, ensure_ascii=False).replace("\\/", "/")


def _multiline(text: str) -> str:
    """A TOML multi-line string holding ``text`` exactly (literal when possible)."""
    plain = all(c in "\n\t" or (ord(c) >= 0x20 and c != "\x7f") for c in text)
    if plain and "'''" not in text and not text.endswith("'"):
        return "'''\n" + text + "'''"
    out = []
    for c in text:
        if c == "\\":
            out.append("\\\\")
        elif c == '"':
            out.append('\\"')
        elif c in "\n\t":
            out.append(c)
        elif ord(c) < 0x20 or c == "\x7f":
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"""\n' + "".join(out) + '"""'


def readme(command: CompiledCommand) -> str:
    toml_name = command.toml_name
    return f"""# Gemini CLI command: /{command.name}

{command.description}

Compiled by gibberish from a skill: `{toml_name}` holds the whole skill (instructions,
commands and files), so it needs nothing else.

## Install

For every project (your user commands):

```sh
mkdir -p ~/.gemini/commands
cp {toml_name} ~/.gemini/commands/
```

For one project only, copy it into that project's `.gemini/commands/` folder instead.
On Windows the user folder is `%USERPROFILE%\\.gemini\\commands\\`.

## Use

Start (or restart) Gemini CLI, then type:

```
/{command.name} what you want done
```

`gemini` lists it under `/help`; the text after the command replaces `{{{{args}}}}` at the
end of the prompt.
"""


def zip_bytes(command: CompiledCommand) -> bytes:
    """The download: ``<name>.toml`` and ``README.md`` (fixed timestamps: same bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for arcname, text in ((command.toml_name, command.toml()), ("README.md", readme(command))):
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, text.encode("utf-8"))
    return buffer.getvalue()


def write_outputs(
    command: CompiledCommand,
    *,
    out_dir: Path | None,
    zip_path: Path | None,
    force: bool = False,
    notes: list[str] | None = None,
) -> Path:
    """Write the ``.toml`` into ``out_dir`` or the zip to ``zip_path``; returns what was written.

    A file already there is replaced only when it holds exactly this output or ``force``
    is given (then ``notes`` gets the sentence naming it): gibberish never replaces a file
    it did not write (:mod:`gibberish.pathsafety`).
    """
    from gibberish.fileio import atomic_write_bytes
    from gibberish.pathsafety import replace_allowed, resolve_inside

    if zip_path is not None:
        target, data = zip_path, zip_bytes(command)
    else:
        target = resolve_inside(out_dir or Path.cwd(), command.toml_name)
        data = command.toml().encode("utf-8")
    same = target.is_file() and not target.is_symlink() and target.read_bytes() == data
    note = replace_allowed(target, ours=same, force=force)
    atomic_write_bytes(target, data, mode=0o644)
    if note and notes is not None:
        notes.append(note)
    return target
