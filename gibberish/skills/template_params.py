"""Cross-check a parsed command template against its tool's parameter table
(docs/adr/0007-placeholders-and-values.md).

:func:`check_template` runs after :func:`templates.parse_template`: the words are
already known to be one simple command, and here each placeholder meets the parameter
it names. Errors: a placeholder that names no parameter, ``{{x:--flag=}}`` on a boolean,
a ``{{x:default}}`` that is not a valid value of the type, and a value in front of the
program a wrapper runs that could move it. Warnings: a parameter the command never uses,
a default on a required parameter, two defaults that disagree.
"""

from __future__ import annotations

from collections.abc import Sequence

from gibberish.skills.model import (
    CommandTemplate,
    Diagnostic,
    ParameterDefinition,
    ParameterType,
    Placeholder,
    PlaceholderKind,
    Severity,
    TemplateWord,
)
from gibberish.skills.programs import Slot, knows_program, scan_command
from gibberish.skills.render import RenderError, coerce_value
from gibberish.skills.templates import PLACEHOLDER_RE

__all__ = ["check_template"]

_Found = tuple[str, str]
"""(diagnostic code, message)."""


def _placeholder_lines(template: CommandTemplate, line: int | None) -> dict[str, int | None]:
    """First line of each placeholder name in the template source."""
    found: dict[str, int | None] = {}
    for m in PLACEHOLDER_RE.finditer(template.source):
        if m.group(1) not in found:
            found[m.group(1)] = (
                None if line is None else line + template.source.count("\n", 0, m.start())
            )
    return found


def check_template(
    template: CommandTemplate,
    parameters: Sequence[ParameterDefinition],
    *,
    file: str | None = None,
    line: int | None = None,
) -> list[Diagnostic]:
    """Cross-check a parsed template against the tool's parameter table.

    ``line`` is the block's first line (default: the template's own); each diagnostic
    points at the line of the placeholder it is about.
    """
    if line is None:
        line = template.line
    where = _placeholder_lines(template, line)
    params = {p.name: p for p in parameters}
    found: list[tuple[str, str, int | None]] = []
    seen: set[tuple[str, PlaceholderKind, str | None]] = set()
    unknown: set[str] = set()
    for ph in (ph for word in template.words for ph in word.placeholders):
        if (ph.name, ph.kind, ph.modifier) not in seen:
            seen.add((ph.name, ph.kind, ph.modifier))
            at = where.get(ph.name, line)
            found += [(c, m, at) for c, m in _placeholder_problems(ph, params, unknown)]
    for code, message, name in _slot_problems(template, params):
        found.append((code, message, where.get(name, line)))
    used = template.placeholder_names
    found += [
        (
            "W-UNUSED-PARAMETER",
            f"Parameter '{p.name}' is declared but the command never uses it; add "
            f"{{{{{p.name}}}}} to the command or remove it from the table.",
            p.line if p.line is not None else line,
        )
        for p in parameters
        if p.name not in used
    ]
    return [
        Diagnostic(
            Severity.WARNING if code.startswith("W-") else Severity.ERROR, code, message, file, at
        )
        for code, message, at in found
    ]


def _placeholder_problems(
    ph: Placeholder,
    params: dict[str, ParameterDefinition],
    unknown: set[str],
) -> list[_Found]:
    """What is wrong with one placeholder; ``unknown``: names already reported as not
    parameters (once per name)."""
    param = params.get(ph.name)
    if param is None:
        if ph.name in unknown:
            return []
        unknown.add(ph.name)
        declared = ", ".join(sorted(params)) or "none"
        return [
            (
                "E-UNKNOWN-PLACEHOLDER",
                f"{{{{{ph.name}}}}} is not a parameter of this tool (declared: {declared}). "
                "Add it to the Parameters table or fix the spelling.",
            )
        ]
    if ph.kind is PlaceholderKind.FLAG_EQUALS and param.type is ParameterType.BOOLEAN:
        flag = (ph.modifier or "").rstrip("=")
        return [
            (
                "E-FLAG-EQUALS-BOOLEAN",
                f"`{{{{{ph.name}:{ph.modifier}}}}}` gives a value after `=`, but "
                f"'{ph.name}' is a boolean. Write {{{{{ph.name}:{flag}}}}} to pass "
                f"`{flag}` only when it is true, or {{{{{ph.name}}}}} for true/false text.",
            )
        ]
    if ph.kind is PlaceholderKind.DEFAULT:
        return _default_problems(ph, param)
    return []


def _slot_problems(
    template: CommandTemplate, params: dict[str, ParameterDefinition]
) -> list[tuple[str, str, str]]:
    """(code, message, placeholder name) for values in front of the program a wrapper runs
    (or the script an interpreter runs) that could move it: an optional value that is
    left out removes its word, a list adds words, ``{{x:--flag}}`` gives two words unless
    x is a boolean; then a later word, maybe a value, becomes the program."""
    words = template.words
    if not words or not words[0].is_literal:
        return []
    if not knows_program(words[0].literal_text.rsplit("/", 1)[-1]):
        return []
    out: list[tuple[str, str, str]] = []
    for slot in scan_command(words).slots:
        word = words[slot.index]
        for ph in word.placeholders:
            param = params.get(ph.name)
            why = "" if param is None else _slot_reason(slot, word, ph, param)
            if why:
                before = f"`{word.literal_text}` comes before what `{slot.program}` runs"
                message = f"{before}, and a value could move it: {why}."
                out.append(("E-PLACEHOLDER-COMMAND-POSITION", message, ph.name))
    return out


def _slot_reason(
    slot: Slot, word: TemplateWord, ph: Placeholder, param: ParameterDefinition
) -> str:
    """Why this value could move the program after it, or "" when it cannot."""
    if slot.kind == "flag":
        if ph.kind is PlaceholderKind.FLAG and param.type is not ParameterType.BOOLEAN:
            return (
                f"for a {param.type.value} it gives two words, `{ph.modifier} VALUE`, "
                f"and `{ph.modifier}` takes no value here, so VALUE would be read "
                f"as what runs. Make '{ph.name}' a boolean or write "
                f"`{ph.modifier}={{{{{ph.name}}}}}` if the option takes a value"
            )
        return ""
    if slot.kind == "flag-argument":
        if param.type is ParameterType.BOOLEAN:
            return (
                f"for the boolean '{ph.name}' it gives `{ph.modifier}` alone, and "
                f"`{ph.modifier}` takes the next word as its value. Use it with a "
                "text or number parameter"
            )
        return ""
    if param.type is ParameterType.ARRAY and word.whole_placeholder is not None:
        return (
            f"'{ph.name}' is a list, and each item becomes a word, so the words "
            "after it move. Use a text parameter"
        )
    if param.required or param.default is not None or ph.kind is PlaceholderKind.DEFAULT:
        return ""
    why = (
        f"'{ph.name}' is optional, and when it is left out its word goes and "
        "the words after it move. Make it required or give it a default"
    )
    if slot.option:
        joined = "=" if slot.option.startswith("--") else ""
        why += (
            f", or attach it to its option "
            f"(`{slot.option}{joined}{{{{{ph.name}}}}}`, gone as one when left out)"
        )
    return why


def _default_problems(ph: Placeholder, param: ParameterDefinition) -> list[tuple[str, str]]:
    """(code, message) for a ``{{x:default}}`` that cannot or will not be used as written."""
    text = ph.modifier or ""
    shown = f"`{{{{{ph.name}:{text}}}}}`"
    try:
        value = coerce_value(param, [text] if param.type is ParameterType.ARRAY else text)
    except RenderError as exc:
        return [
            (
                "E-BAD-PLACEHOLDER-DEFAULT",
                f"The default in {shown} is not a valid {param.type.value}: {exc.message}",
            )
        ]
    if param.required:
        return [
            (
                "W-DEFAULT-ON-REQUIRED",
                f"'{ph.name}' is required, so the default in {shown} is never used. Make the "
                "parameter optional or drop the default.",
            )
        ]
    if param.default is not None:
        try:
            table = coerce_value(param, param.default)
        except RenderError:
            table = param.default
        if table != value:
            return [
                (
                    "W-CONFLICTING-DEFAULT",
                    f"'{ph.name}' has the default {param.default!r} in the Parameters table "
                    f"and {text!r} in the command; the table's wins. Keep only one.",
                )
            ]
    return []
