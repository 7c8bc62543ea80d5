"""Which programs run code, and where a template's values would reach it (docs/adr/0006-code-running-programs.md).

A template is never run by a shell, but the programs it names interpret some of their
arguments: ``sh -c CODE``, ``python SCRIPT``, ``env PROGRAM``, ``sudo -s``, an awk or
sed program, ``ssh host COMMAND``, ``watch CMD``, ``find -exec`` ... This module holds
that knowledge (the command line of each program it covers) and the scan that walks a
template's words through it. The template parser (:mod:`gibberish.skills.templates`)
only asks which words name such a program (:func:`knows_program`,
:func:`is_interpreter`), calls :func:`scan_command` when one does, and turns the
findings into diagnostics; it keeps the shell syntax, this module the programs.

Public surface:

* :func:`scan_command` walks the words and returns a :class:`CommandScan`: the
  :class:`Finding` list (diagnostic code, word index, message, warning or not) and the
  :class:`Slot` list (values in front of what a wrapper runs, safe only for some
  parameters; the caller judges them against the parameter table).
* :func:`knows_program` and :func:`is_interpreter` say whether a program name is worth
  a scan, so the common template never starts one.
* :data:`MARK` stands for a placeholder inside a word's text.

Decisions beyond docs/adr/0006-code-running-programs.md:

* Values are never interpreted by gibberish, but programs interpret some of their
  arguments: a placeholder where a program would run it as code is an error, as is one
  that would choose the program (behind ``env``, ``sudo``, ``timeout`` ...) or an
  interpreter's script; literal inline code is a warning. The analysis knows the options
  of each program it covers, looks at every argument, and where an interpreter's option
  list holds an option it does not know, keeps checking every later argument rather than
  trusting where the options end. docs/skill-format.md lists the programs and the known
  limits.
* A sed script with a placeholder is an error (``s/x/{{y}}/e`` could run a command);
  a literal sed script is not warned about, unlike awk programs and shell code.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from msgspec import Struct

from gibberish.lazy import lazy_pattern
from gibberish.skills.model import Literal, Placeholder, PlaceholderKind, TemplateWord
from gibberish.skills.program_table import (
    CODE_ENVIRONMENT,
    CODE_ENVIRONMENT_RE,
    PROGRAMS,
    TAKES_ARGUMENT,
    Program,
)

__all__ = [
    "MARK",
    "CommandScan",
    "Finding",
    "Slot",
    "is_interpreter",
    "knows_program",
    "scan_command",
]

MARK = "\ue000"
"""Stands for a placeholder in a word's text (a private-use code point). The template
parser masks each placeholder's first character with it and refuses it in source text,
so literal text never holds it."""

_FLAG_KINDS = (PlaceholderKind.FLAG, PlaceholderKind.FLAG_EQUALS)
_PARALLEL_INPUTS = frozenset({":::", "::::", ":::+", "::::+"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_ASSIGN_RE = lazy_pattern(r"([A-Za-z_][A-Za-z0-9_]*)=")
_VERSION_RE = lazy_pattern(r"[0-9.]+$")
_END = -1
"""What a step of the scan returns when the command line needs no more reading."""


def _index(rows: Sequence[Program]) -> tuple[dict[str, Program], dict[str, Program]]:
    """Program names to rows: exact names, and names that may carry a version suffix."""
    exact: dict[str, Program] = {}
    versioned: dict[str, Program] = {}
    for row in rows:
        for name in row.names.split():
            exact[name.rstrip("#")] = row
            if name.endswith("#"):
                versioned[name[:-1]] = row
    return exact, versioned


_EXACT, _VERSIONED = _index(PROGRAMS)


@functools.lru_cache(maxsize=1024)
def _program_spec(name: str) -> Program | None:
    """The row of the program called ``name`` (no directory), if it is one we know."""
    spec = _EXACT.get(name)
    if spec is None:
        spec = _VERSIONED.get(_VERSION_RE.sub("", name))
    return spec


def knows_program(name: str) -> bool:
    """Whether :func:`scan_command` analyses the command line of the program called
    ``name`` (no directory): a shell or interpreter, a wrapper (``env``, ``sudo``,
    ``xargs`` ...), ``find``, awk, sed, ssh, watch ..."""
    return _program_spec(name) is not None


def is_interpreter(name: str) -> bool:
    """Whether the program called ``name`` (no directory) is a shell or interpreter, whose
    code options :func:`scan_command` checks wherever it appears among the words
    (``docker run img bash -c ...``), not only as the program."""
    spec = _program_spec(name)
    return spec is not None and spec.kind in ("interpreter", "pwsh")


# ---------------------------------------------------------------------------------------
# Reading one option word


class _Role(NamedTuple):
    role: str
    option: str
    """The option as written."""
    attached: str | None
    """Its argument when attached (``-cCODE``, ``--eval=CODE``)."""
    takes_next: bool
    """Whether the next word is its argument."""


def _option_roles(spec: Program, shape: str) -> list[_Role]:
    """The roles of an option word: a PowerShell option, a long (or single-dash whole
    word) option, or a cluster of short letters."""
    if spec.kind == "pwsh":
        return [_pwsh_role(shape)]
    if shape.startswith("--") or shape.partition("=")[0] in spec.long:
        return [_long_role(spec, shape)]
    return _cluster_roles(spec, shape)


def _long_role(spec: Program, shape: str) -> _Role:
    name, eq, value = shape.partition("=")
    if MARK in name:
        return _Role("value", name, None, False)
    entry = spec.long.get(name)
    if entry is None and len(name) > 3:  # getopt_long takes any unambiguous prefix
        roles = {v for k, v in spec.long.items() if k.startswith(name)}
        entry = roles.pop() if len(roles) == 1 else None
    if entry is None:
        # Unknown long options of these programs are flags in practice: those that take
        # a value want it after `=` (or are listed).
        return _Role("flag", name, value if eq else None, False)
    role, takes_next = entry
    return _Role(role, name, value, False) if eq else _Role(role, name, None, takes_next)


def _cluster_roles(spec: Program, shape: str) -> list[_Role]:
    """The roles of a short option word (``-lc``, ``-oL``, ``-cCODE``, ``-ce``)."""
    roles: list[_Role] = []
    k = 1
    while k < len(shape):
        letter = shape[k]
        if letter == MARK:  # a value among the option letters
            return [*roles, _Role("value", shape, None, False)]
        role, takes_next = spec.short.get(letter, ("unknown", False))
        rest = shape[k + 1 :]
        if role == "digits":
            k += 1
            while k < len(shape) and shape[k] in "0123456789":
                k += 1
            continue
        if role == "codepos" and rest and not all(c in spec.short for c in rest):
            # `bash -c'echo x'`: whatever the shell makes of it, the text is code
            return [*roles, _Role("code", shape[: k + 1], rest, False)]
        if role in TAKES_ARGUMENT or (role == "stop" and rest):
            attached = rest or None
            return [*roles, _Role(role, shape[: k + 1], attached, takes_next and not rest)]
        # a flag, or `-c` of `sh -ce`: the letters after it are flags, the code comes later
        roles.append(_Role(role, shape[: k + 1], None, False))
        k += 1
    return roles


_PWSH_OPTIONS = {
    "command": "code",
    "encodedcommand": "code",
    "ec": "code",
    "file": "choose",
    "executionpolicy": "arg",
    "ep": "arg",
    "workingdirectory": "arg",
    "wd": "arg",
    "configurationname": "arg",
    "custompipename": "arg",
    "inputformat": "arg",
    "outputformat": "arg",
    "settingsfile": "arg",
    "windowstyle": "arg",
}


def _pwsh_role(shape: str) -> _Role:
    """PowerShell options are words, case-insensitive, and may be abbreviated."""
    name = shape.lstrip("-").lower()
    if MARK in name:
        return _Role("value", shape, None, False)
    head, colon, value = name.partition(":")
    roles = {r for full, r in _PWSH_OPTIONS.items() if full.startswith(head)} if head else set()
    if head in ("c", "e"):  # -c is -Command, -e -EncodedCommand
        roles = {"code"}
    role = roles.pop() if len(roles) == 1 else "unknown"
    if colon:
        return _Role(role, shape, value, False)
    return _Role(role, shape, None, role in TAKES_ARGUMENT)


def _hint(spec: Program) -> str:
    """How to pass a value to code without putting it in the code."""
    if not spec.hint:
        return "Move the command into a script under scripts/ and pass the value to it."
    return (
        f"Pass the value as a separate argument and read it there ({spec.hint}), or move "
        "the code into a script under scripts/."
    )


def _shape(word: TemplateWord) -> str | None:
    """The word's text with each placeholder as MARK; None for a {{x:--flag}} word."""
    ph = word.whole_placeholder
    if ph is not None and ph.kind in _FLAG_KINDS:
        return None
    fragments = word.fragments
    if len(fragments) == 1 and isinstance(fragments[0], Literal):
        return fragments[0].text
    return "".join(f.text if isinstance(f, Literal) else MARK for f in fragments)


def _environment_reason(name: str) -> str | None:
    """Why setting the environment variable ``name`` can run code, if it can."""
    if CODE_ENVIRONMENT_RE.fullmatch(name) is None:
        return None
    return next(why for pattern, why in CODE_ENVIRONMENT if re.fullmatch(pattern, name))


# ---------------------------------------------------------------------------------------
# The scan


class Finding(NamedTuple):
    """Something :func:`scan_command` found wrong or worth a warning."""

    code: str
    """A stable diagnostic code (``E-PLACEHOLDER-IN-INLINE-CODE`` ...)."""
    index: int  # type: ignore[assignment]  # shadows tuple.index; the word it is about
    message: str
    warning: bool


class Slot(Struct, frozen=True):
    """A placeholder in front of the program a wrapper runs (or the script an interpreter
    runs): safe only when its value is always exactly one word, which depends on the
    parameter (the template parser's ``check_template`` judges it)."""

    index: int
    """The word holding the placeholder."""
    program: str
    """The wrapper or interpreter whose command line it is in."""
    kind: str
    """``flag`` ({{x:--flag}} on a flag), ``flag-argument`` ({{x:-n}} on an option that
    takes the next word), ``argument`` (an option's separate argument) or ``positional``
    (timeout's DURATION ...)."""
    option: str = ""
    """The option it belongs to, if any."""


class CommandScan(Struct, frozen=True):
    """What :func:`scan_command` found in a command line."""

    problems: tuple[Finding, ...]
    """In the order found."""
    slots: tuple[Slot, ...]


class _Line(Struct):
    """Where the scan of one program's command line stands."""

    spec: Program
    name: str
    stop: int
    sweep: bool
    """The program was found among another's arguments: only its code options count
    (``apt install python3 {{pkg}}`` is no script)."""
    front: bool
    """Values here come before what the program runs (wrappers, interpreters)."""
    options_open: bool = True
    positionals: int = 0
    has_code: bool = False
    """The code is given by an option (``-c``, ``-e``, ``-m``)."""
    code_next: str = ""
    """The option (``sh -c``, ``node -p``) after which the next positional is the code."""
    operand_seen: bool = False
    certain: bool = True
    """Every option before the operand is one we know."""
    mode: str = ""
    """``exec``, ``stop`` or ``shell``, set by an option of that role."""

    @property
    def before_operand(self) -> bool:
        return self.front and not self.operand_seen and not self.has_code


class _Findings:
    """The words a scan reads and what it found in them: problems, slots where a value
    could become an option, and the words already analysed. One method per kind of
    finding, each with its sentence for the person."""

    def __init__(self, words: Sequence[TemplateWord]) -> None:
        self.words = words
        self.shapes = [_shape(w) for w in words]
        self.problems: list[Finding] = []
        self.slots: list[Slot] = []
        self.covered: set[int] = set()
        """Words already analysed: programs, code, remote commands."""

    def text(self, k: int) -> str:
        return self.words[k].literal_text

    def add(self, code: str, k: int, message: str, *, warning: bool = False) -> None:
        self.problems.append(Finding(code, k, message, warning))

    def tainted(self, k: int) -> bool:
        return k < len(self.words) and not self.words[k].is_literal

    def code(self, k: int, name: str, how: str, spec: Program, attached: str | None = None) -> None:
        """Word ``k`` (or the text attached to its option) is code run by ``name``."""
        if k >= len(self.words) or k in self.covered:
            return
        self.covered.add(k)
        bad = MARK in attached if attached is not None else self.tainted(k)
        if bad:
            self.add(
                "E-PLACEHOLDER-IN-INLINE-CODE",
                k,
                f"`{self.text(k)}` is code that `{name}` runs ({how}) and contains a "
                f"placeholder, so a value would be parsed as code (injection). {_hint(spec)}",
            )
        elif spec.warn:
            self.add(
                "W-INLINE-SHELL",
                k,
                f"`{name}` is given inline code (`{self.text(k)[:40]}`), which is hard to "
                "review; consider a script under scripts/.",
                warning=True,
            )

    def shell_words(self, start: int, end: int, name: str, how: str) -> None:
        """Words ``start..end`` are joined and parsed by a shell (ssh, watch, parallel)."""
        if start >= end:
            return
        self.covered.update(range(start, end))
        bad = next((k for k in range(start, end) if self.tainted(k)), None)
        shown = " ".join(self.text(k) for k in range(start, end))
        if bad is not None:
            self.add(
                "E-PLACEHOLDER-IN-INLINE-CODE",
                bad,
                f"`{name}` {how}, which parses `{shown[:60]}` as shell code; a value there "
                "would be parsed as code (injection). Move the command into a script "
                "under scripts/ and pass the value to it as an argument.",
            )
        else:
            self.add(
                "W-INLINE-SHELL",
                start,
                f"`{name}` {how}, which parses `{shown[:40]}` as shell code; that is hard "
                "to review, consider a script under scripts/.",
                warning=True,
            )

    def chooses(self, k: int, name: str, what: str, attached: str | None = None) -> None:
        """Word ``k`` (or its attached text) chooses the program or code ``name`` runs."""
        bad = MARK in attached if attached is not None else self.tainted(k)
        if bad:
            self.covered.add(k)
            self.add(
                "E-PLACEHOLDER-COMMAND-POSITION",
                k,
                f"`{self.text(k)}` is {what} and contains a placeholder: a value may "
                "never choose which program or code runs. Write it literally, or switch "
                "on the value inside a script under scripts/.",
            )

    def config(self, k: int, name: str, option: str, attached: str | None) -> None:
        """Word ``k`` (or its attached text) is settings that can run commands."""
        bad = MARK in attached if attached is not None else self.tainted(k)
        if bad:
            self.covered.add(k)
            self.add(
                "E-PLACEHOLDER-IN-INLINE-CODE",
                k,
                f"`{self.text(k)}` sets `{name} {option}`, and such settings can run "
                "commands (ssh's ProxyCommand, for one), so a value there could run code "
                "(injection). Write the setting literally.",
            )

    def environment(self, k: int, name: str, text: str | None) -> None:
        """Word ``k`` (text ``NAME=VALUE``) sets a variable in the environment of what
        ``name`` runs."""
        if text is None or MARK not in text:
            return
        m = _ASSIGN_RE.match(text)
        if m is None:
            what, why = "chooses which variable is set", "one of them runs code"
        else:
            reason = _environment_reason(m[1])
            if reason is None:
                return
            what, why = f"lets a value set {m[1]}", reason
        self.add(
            "E-PLACEHOLDER-IN-INLINE-CODE",
            k,
            f"`{self.text(k)}` {what} for the program `{name}` runs, which makes programs "
            f"load or run code of the value's choosing ({why}): injection. Set it "
            "literally, or not at all.",
        )

    def value_among_options(self, j: int, name: str, spec: Program) -> None:
        if spec.has_code_options:
            code, what = "E-PLACEHOLDER-IN-INLINE-CODE", "one that runs code included (injection)"
        else:
            code, what = (
                "E-PLACEHOLDER-COMMAND-POSITION",
                "one that takes the next word included, which moves the program it runs",
            )
        self.add(
            code,
            j,
            f"`{self.text(j)}` puts a value among the options of `{name}`, where it could "
            f"become any option, {what}. Write the options literally.",
        )

    def flag_code(self, k: int, name: str, option: str) -> None:
        self.covered.add(k)
        self.add(
            "E-PLACEHOLDER-IN-INLINE-CODE",
            k,
            f"`{self.text(k)}` gives `{name}` the option `{option}`, which makes a value "
            f"or the next argument code that `{name}` runs (injection). Write the option "
            "literally with its code, or move the code into a script under scripts/.",
        )


class _Scanner(_Findings):
    """Walks the command line from the program through wrappers (``env``, ``sudo``,
    ``timeout`` ..., ``find -exec``) and reports values that would choose the program
    or be read as code by a program (shells and interpreters, ``awk``, ``sed``, ``ssh``,
    ``watch`` ...). Then any shell or interpreter named anywhere else (``docker run img
    bash -c ...``) has its code options checked too.

    The knowledge of each program is its row in :data:`program_table.PROGRAMS`; this
    class only reads it: one method per option role (:data:`_OPTION_STEPS`) and one per
    kind of command line (:data:`_POSITIONAL_STEPS`); what it finds is kept and worded by
    :class:`_Findings`."""

    def run(self) -> _Scanner:
        self.program(0, len(self.words), None)
        for k, shape in enumerate(self.shapes):
            if k in self.covered or shape is None or MARK in shape:
                continue
            name = shape.rsplit("/", 1)[-1]
            spec = _program_spec(name)
            if spec is not None and spec.kind in ("interpreter", "pwsh"):
                self.covered.add(k)
                self.command_line(spec, name, k, len(self.words), sweep=True)
        return self

    # -- walking ---------------------------------------------------------------------

    def program(self, i: int, stop: int, via: str | None) -> None:
        """Word ``i`` is the program of a command that ends before ``stop``; ``via`` is
        the wrapper that runs it (None for the template's own program)."""
        if i >= stop:
            return
        shape = self.shapes[i]
        if shape is None or MARK in shape:
            if via is not None:
                self.chooses(i, via, f"the program that `{via}` runs")
            return
        self.covered.add(i)
        if via is not None and "/" in shape and not shape.startswith(("/", "~/", "./", "../")):
            self.add(
                "W-RELATIVE-ARGUMENT",
                i,
                f"`{shape}` is run by `{via}` from the run's working folder (the focused "
                "repository), not from the skill. To run the skill's own file, make it the "
                "program of the command (`./path`).",
                warning=True,
            )
        name = shape.rsplit("/", 1)[-1]
        spec = _program_spec(name)
        if spec is None:
            return
        if spec.kind == "find":
            self.find(i, stop)
        else:
            self.command_line(spec, name, i, stop, sweep=False)

    def find(self, i: int, stop: int) -> None:
        j = i + 1
        while j < stop:
            if self.shapes[j] in _FIND_EXEC:
                end = next((k for k in range(j + 1, stop) if self.shapes[k] in (";", "+")), stop)
                self.program(j + 1, end, f"find {self.shapes[j]}")
                j = end
            j += 1

    def roles(self, spec: Program, j: int) -> tuple[list[_Role], bool]:
        """The option roles of word ``j`` and whether it is a {{x:--flag}} placeholder
        (whose modifier is the option; it never takes the next word)."""
        shape = self.shapes[j]
        if shape is not None:
            return _option_roles(spec, shape), False
        ph = self.words[j].fragments[0]
        assert isinstance(ph, Placeholder)
        option = (ph.modifier or "") + (MARK if ph.kind is PlaceholderKind.FLAG_EQUALS else "")
        return [r._replace(takes_next=False) for r in _option_roles(spec, option)], True

    def command_line(self, spec: Program, name: str, i: int, stop: int, *, sweep: bool) -> None:
        """The arguments of ``name`` (word ``i``) up to ``stop``, one step at a time: an
        option word through its roles, a positional through the program's kind."""
        front = spec.kind in ("wrapper", "interpreter", "pwsh") and not sweep
        line = _Line(spec, name, stop, sweep, front)
        j = i + 1
        while j < stop:
            shape = self.shapes[j]
            if line.options_open and shape == "--":
                line.options_open = False
                step = 1
            elif line.options_open and (
                shape is None
                or (len(shape) > 1 and (shape[0] == "-" or (spec.plus and shape[0] == "+")))
            ):
                step = self.option(line, j)
            else:
                step = _POSITIONAL_STEPS[spec.kind](self, line, j)
            if step == _END:
                return
            j += step

    def option(self, line: _Line, j: int) -> int:
        """Read option word ``j``: how many words it takes (1 or 2), or _END."""
        roles, placeholder = self.roles(line.spec, j)
        step = 1
        for role in roles:
            if placeholder and (
                line.code_next or role.role in ("code", "codepos", "choose", "config", "env")
            ):  # after `bash -c`, `{{v:--verbose}}` puts a value where the code goes
                self.flag_code(j, line.name, role.option.replace(MARK, ""))
                line.has_code = True
                continue
            taken = _OPTION_STEPS.get(role.role, _Scanner.on_flag)(self, line, j, role, placeholder)
            if taken == _END:
                return _END
            step = max(step, taken)
        return step

    # -- one method per option role: how many words the option takes -------------------

    def on_value(self, line: _Line, j: int, role: _Role, placeholder: bool) -> int:
        self.value_among_options(j, line.name, line.spec)
        return 1

    def on_code(self, line: _Line, j: int, role: _Role, placeholder: bool) -> int:
        if line.spec.kind == "pwsh" and role.attached is None:
            how = f"runs the words after `{role.option}` as PowerShell code"
            self.shell_words(j + 1, line.stop, line.name, how)
            return _END
        line.has_code = True
        where = j if role.attached is not None else j + 1
        self.code(where, line.name, f"`{role.option}`", line.spec, role.attached)
        return 1 if role.attached is not None else 2

    def on_codepos(self, line: _Line, j: int, role: _Role, placeholder: bool) -> int:
        if role.attached is not None:  # `node --print=CODE`
            return self.on_code(line, j, role, placeholder)
        line.has_code = True
        line.code_next = role.option
        return 1

    def on_choose(self, line: _Line, j: int, role: _Role, placeholder: bool) -> int:
        where = j if role.attached is not None else j + 1
        if where < line.stop:
            what = f"the code that `{line.name} {role.option}` runs"
            self.chooses(where, line.name, what, role.attached)
            line.has_code = line.has_code or line.spec.kind in ("interpreter", "script", "pwsh")
        return 1 if role.attached is not None else 2

    def on_config(self, line: _Line, j: int, role: _Role, placeholder: bool) -> int:
        where = j if role.attached is not None else j + 1
        if where < line.stop:
            self.config(where, line.name, role.option, role.attached)
            line.has_code = line.has_code or line.spec.kind in ("interpreter", "script", "pwsh")
        return 1 if role.attached is not None else 2

    def on_env(self, line: _Line, j: int, role: _Role, placeholder: bool) -> int:
        where = j if role.attached is not None else j + 1
        if where < line.stop:
            text = role.attached if role.attached is not None else self.shapes[where]
            self.environment(where, line.name, text)
        return 1 if role.attached is not None else 2

    def on_arg(self, line: _Line, j: int, role: _Role, placeholder: bool) -> int:
        if role.role == "execarg":
            line.mode = "exec"
        if placeholder:
            if line.before_operand:  # {{b:-n}} on a boolean: -n would take the next word
                self.slots.append(Slot(j, line.name, "flag-argument", role.option))
            return 1
        if not role.takes_next:
            return 1
        if line.before_operand and self.tainted(j + 1):
            self.slots.append(Slot(j + 1, line.name, "argument", role.option))
        return 2

    def on_mode(self, line: _Line, j: int, role: _Role, placeholder: bool) -> int:
        line.mode = role.role
        return 1

    def on_flag(self, line: _Line, j: int, role: _Role, placeholder: bool) -> int:
        if role.role == "unknown":
            line.certain = False
        if placeholder and line.before_operand:
            self.slots.append(Slot(j, line.name, "flag", role.option))
        return 1

    # -- one method per kind of command line: what a positional argument is ----------

    def at_wrapper(self, line: _Line, j: int) -> int:
        spec, shape = line.spec, self.shapes[j]
        if spec.assignments and shape == "-" and line.options_open:  # env -: same as -i
            return 1
        if line.mode == "stop" or line.has_code:
            return _END
        if spec.assignments and shape is not None and _ASSIGN_RE.match(shape):
            self.environment(j, line.name, shape)
            return 1
        if line.positionals < spec.skip:
            line.positionals += 1
            if not line.sweep and self.tainted(j):
                self.slots.append(Slot(j, line.name, "positional"))
            return 1
        if line.mode == "shell":
            self.shell_words(j, line.stop, line.name, "hands its command to a shell")
        else:
            self.program(j, line.stop, line.name)
        return _END

    def at_interpreter(self, line: _Line, j: int) -> int:
        name = line.name
        if line.code_next:
            self.code(j, name, f"`{line.code_next}`", line.spec)
            line.code_next = ""
            line.operand_seen = True
        elif not line.has_code and not line.operand_seen:
            line.operand_seen = True
            if not line.sweep:
                self.covered.add(j)
                self.chooses(j, name, f"the script that `{name}` runs")
        if line.certain and (line.operand_seen or line.has_code):
            return _END
        return 1

    def at_script(self, line: _Line, j: int) -> int:
        if not line.has_code and not line.operand_seen and not line.sweep:
            self.code(j, line.name, "its program text", line.spec)
        line.operand_seen = True
        return 1

    def at_sql(self, line: _Line, j: int) -> int:
        line.positionals += 1
        if line.positionals > 1:  # after the database, every argument is SQL
            self.code(j, line.name, "an SQL statement or dot-command such as .shell", line.spec)
        return 1

    def at_remote(self, line: _Line, j: int) -> int:
        if line.positionals == 0:
            line.positionals = 1
            return 1
        how = "sends the words after the host to the remote shell"
        self.shell_words(j, line.stop, line.name, how)
        return _END

    def at_shellwords(self, line: _Line, j: int) -> int:
        if line.mode == "exec":
            self.program(j, line.stop, line.name)
            return _END
        end = line.stop
        if line.name == "parallel":
            end = next((k for k in range(j, end) if self.shapes[k] in _PARALLEL_INPUTS), end)
        self.shell_words(j, end, line.name, "runs its command through a shell")
        return _END

    def at_su(self, line: _Line, j: int) -> int:
        if line.mode == "exec":
            self.program(j, line.stop, line.name)
            return _END
        if line.positionals and not line.sweep:
            what = f"an argument that `{line.name}` passes to the user's shell"
            self.chooses(j, line.name, what)
        line.positionals += 1
        return 1

    def at_editor(self, line: _Line, j: int) -> int:
        shape = self.shapes[j] or ""
        if line.options_open and shape.startswith("+"):
            self.code(j, line.name, "a `+` command", line.spec)
        elif line.options_open and shape.startswith(MARK):
            self.add(
                "E-PLACEHOLDER-IN-INLINE-CODE",
                j,
                f"`{self.text(j)}` starts with a value, and `{line.name}` runs an argument "
                "starting with `+` as an editor command (injection). Write `--` before "
                "the files.",
            )
        return 1

    def at_plain(self, line: _Line, j: int) -> int:
        if line.mode == "exec":  # gdb --args PROGRAM ...
            self.program(j, line.stop, line.name)
            return _END
        return 1


_Step = Callable[[_Scanner, _Line, int, _Role, bool], int]
_OPTION_STEPS: dict[str, _Step] = {
    "value": _Scanner.on_value,
    "code": _Scanner.on_code,
    "codepos": _Scanner.on_codepos,
    "choose": _Scanner.on_choose,
    "config": _Scanner.on_config,
    "env": _Scanner.on_env,
    "arg": _Scanner.on_arg,
    "execarg": _Scanner.on_arg,
    "exec": _Scanner.on_mode,
    "stop": _Scanner.on_mode,
    "shell": _Scanner.on_mode,
}
"""Option role -> how the scan reads it (flags and unknown options: :meth:`on_flag`)."""
_POSITIONAL_STEPS: dict[str, Callable[[_Scanner, _Line, int], int]] = {
    "wrapper": _Scanner.at_wrapper,
    "interpreter": _Scanner.at_interpreter,
    "pwsh": _Scanner.at_interpreter,
    "script": _Scanner.at_script,
    "sql": _Scanner.at_sql,
    "remote": _Scanner.at_remote,
    "shellwords": _Scanner.at_shellwords,
    "su": _Scanner.at_su,
    "editor": _Scanner.at_editor,
    "plain": _Scanner.at_plain,
}
"""Kind of command line -> what a positional argument is."""


@functools.lru_cache(maxsize=1024)
def scan_command(words: tuple[TemplateWord, ...]) -> CommandScan:
    """Walk a template's words (the program first) through the programs that run code.

    From the program through any wrappers (``env``, ``sudo``, ``timeout`` ...,
    ``find -exec``), a placeholder that would choose what runs or be read as code is an
    error and literal inline code a warning; then every shell or interpreter named
    elsewhere in the words has its code options checked. Cached: templates repeat.
    """
    scanner = _Scanner(words).run()
    return CommandScan(tuple(scanner.problems), tuple(scanner.slots))
