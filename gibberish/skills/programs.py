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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from gibberish.skills.model import Literal, Placeholder, PlaceholderKind, TemplateWord

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


# ---------------------------------------------------------------------------------------
# What each program's command line looks like (docs/adr/0006-code-running-programs.md: a value may never choose the
# program or be parsed as code).
#
# Each known program has a spec: what kind of command line it has and the role of each
# option. Roles:
#   flag    no argument                    arg     takes an argument
#   code    its argument is code           choose  its argument chooses code to run
#   config  its argument is settings that can run commands (ssh -o)
#   codepos (shells) -c: the first positional argument is the code
#   digits  (perl -l, -0) optional digits attached; the cluster goes on
#   stop    no command follows (sudo -l)   shell   the command goes to a shell (sudo -s)
#   exec    the command follows as words, no shell (watch -x)
#   execarg takes an argument, and the command follows as words (runuser -u USER)
# An option written ``x?`` takes its argument attached only (``-i.bak``), never as the
# next word.

_TAKES_ARGUMENT = frozenset({"arg", "code", "choose", "config", "execarg"})


@dataclass(frozen=True, slots=True)
class _Spec:
    kind: str
    """interpreter | wrapper | script (awk, sed) | remote (ssh) | shellwords (watch,
    parallel) | su | plain (script) | find | pwsh"""
    short: dict[str, tuple[str, bool]]
    long: dict[str, tuple[str, bool]]
    skip: int = 0
    """Positional arguments before the command (timeout DURATION, flock FILE ...)."""
    warn: bool = True
    """Whether literal inline code is worth a warning (sed scripts are not)."""
    plus: bool = False
    """Whether ``+o``-style words are options too (shells)."""
    assignments: bool = False
    """Whether NAME=VALUE words may come before the command (env)."""


def _spec(kind: str, options: str = "", **more: Any) -> _Spec:
    """A spec from ``"c:code o:arg i?:arg abx --norc --rcfile:choose"``: bare letters and
    long options are flags; ``NAME:ROLE`` gives a role."""
    short: dict[str, tuple[str, bool]] = {}
    long: dict[str, tuple[str, bool]] = {}
    for token in options.split():
        name, _, role = token.partition(":")
        attached_only = name.endswith("?")
        name = name.rstrip("?")
        role = role or "flag"
        entry = (role, role in _TAKES_ARGUMENT and not attached_only)
        if name.startswith("--"):
            long[name] = entry
        elif role == "flag":
            short.update(dict.fromkeys(name, entry))
        else:
            short[name] = entry
    return _Spec(kind, short, long, **more)


_SHELL = _spec(
    "interpreter",
    "c:codepos o:arg O:arg C:code abefhiklmnprstuvxBDEHILPTV --rcfile:choose "
    "--init-file:choose --command:code --init-command:code",
    plus=True,
)
_INTERPRETERS: dict[str, _Spec] = {
    "shell": _SHELL,
    "python": _spec(
        "interpreter",
        "c:code m:choose W:arg X:arg Q:arg bBdEhiIOPqRsSuvVx --check-hash-based-pycs:arg",
    ),
    "node": _spec(
        "interpreter",
        "e:code p:code r:choose C:arg chiv --eval:code --print:code --require:choose "
        "--import:choose --loader:choose --experimental-loader:choose --env-file:config "
        "--conditions:arg --title:arg",
    ),
    "perl": _spec(
        "interpreter",
        "e:code E:code M:choose m:choose I:arg d?:choose D?:arg i?:arg C?:arg x?:arg "
        "F?:arg l:digits 0:digits acfnpsStTuUvwWXhV",
    ),
    "ruby": _spec(
        "interpreter",
        "e:code r:choose I:arg C:arg E:arg F?:arg x?:arg T?:arg W?:arg K?:arg 0:digits "
        "acdhlnpsSvwyU",
    ),
    "php": _spec(
        "interpreter",
        "r:code B:code R:code E:code F:choose f:choose c:choose z:choose d:config t:arg "
        "S:arg ahHilmnqsvwe",
    ),
    "lua": _spec("interpreter", "e:code l:choose j:arg O?:arg b ivEW"),
    "osascript": _spec("interpreter", "e:code l:arg s:arg i"),
    "r": _spec("interpreter", "e:code f:choose --file:choose"),
    "pwsh": _Spec("pwsh", {}, {}),
}
_INTERPRETER_RE = re.compile(
    r"(?P<shell>(?:ba|z|da|k|mk|a|fi|c|tc|ya|rba|pdk)?sh)"
    r"|(?P<python>(?:python|pypy)[0-9.]*)"
    r"|(?P<node>node(?:js)?|bun)"
    r"|(?P<perl>perl[0-9.]*)"
    r"|(?P<ruby>ruby[0-9.]*)"
    r"|(?P<php>php[0-9.]*)"
    r"|(?P<lua>lua(?:jit)?[0-9.]*)"
    r"|(?P<osascript>osascript)"
    r"|(?P<r>Rscript|R)"
    r"|(?P<pwsh>pwsh|powershell(?:\.exe)?)"
)
_AWK = _spec(
    "script",
    "e:code f:choose E:choose i:choose l:choose F:arg v:arg W:arg d?:arg D?:arg L?:arg "
    "o?:arg p?:arg bcCghIkMnNOPrsStVy --source:code --file:choose --exec:choose "
    "--include:choose --load:choose --field-separator:arg --assign:arg",
)
_SED = _spec(
    "script",
    "e:code f:choose l:arg i?:arg nrEsuzb --expression:code --file:choose "
    "--line-length:arg --in-place?:arg",
    warn=False,
)
_SU = _spec(
    "su",
    "c:code s:choose g:arg G:arg w:arg u:execarg lmpfP --command:code --session-command:code "
    "--shell:choose --group:arg --supp-group:arg --whitelist-environment:arg --user:execarg",
)
_PROGRAMS: dict[str, _Spec] = {
    "awk": _AWK,
    "gawk": _AWK,
    "mawk": _AWK,
    "nawk": _AWK,
    "sed": _SED,
    "gsed": _SED,
    "env": _spec(
        "wrapper",
        "u:arg C:arg S:code P:arg i0v --unset:arg --chdir:arg --split-string:code "
        "--ignore-environment --null --debug --default-signal?:arg --ignore-signal?:arg "
        "--block-signal?:arg --list-signal-handling",
        assignments=True,
    ),
    "nice": _spec("wrapper", "n:arg --adjustment:arg"),
    "nohup": _spec("wrapper"),
    "timeout": _spec(
        "wrapper",
        "s:arg k:arg v --signal:arg --kill-after:arg --preserve-status --foreground --verbose",
        skip=1,
    ),
    "stdbuf": _spec("wrapper", "i:arg o:arg e:arg --input:arg --output:arg --error:arg"),
    "sudo": _spec(
        "wrapper",
        "u:arg g:arg C:arg D:arg h?:arg p:arg r:arg t:arg T:arg U:arg R:arg s:shell i:shell "
        "e:stop l:stop v:stop K:stop V:stop AbBEHknNPS --user:arg --group:arg "
        "--close-from:arg --chdir:arg --chroot:arg --host:arg --prompt:arg --role:arg "
        "--type:arg --command-timeout:arg --other-user:arg --shell:shell --login:shell "
        "--edit:stop --list:stop --validate:stop --remove-timestamp:stop --version:stop "
        "--help:stop --preserve-env?:arg",
    ),
    "doas": _spec("wrapper", "u:arg C:stop s:shell nL"),
    "flock": _spec(
        "wrapper",
        "w:arg E:arg c:code sxunoFv --wait:arg --timeout:arg --conflict-exit-code:arg "
        "--command:code",
        skip=1,
    ),
    "xargs": _spec(
        "wrapper",
        "a:arg d:arg E:arg I:arg L:arg n:arg P:arg s:arg e?:arg i?:arg l?:arg 0oprtx "
        "--arg-file:arg --delimiter:arg --max-lines?:arg --max-args:arg --max-procs:arg "
        "--max-chars:arg --process-slot-var:arg --eof?:arg --replace?:arg",
    ),
    "exec": _spec("wrapper", "a:arg cl"),
    "command": _spec("wrapper", "v:stop V:stop p"),
    "time": _spec("wrapper", "f:arg o:arg apqv --format:arg --output:arg"),
    "setsid": _spec("wrapper", "cfw"),
    "chroot": _spec("wrapper", "--userspec:arg --groups:arg", skip=1),
    "ionice": _spec("wrapper", "c:arg n:arg p:stop P:stop u:stop t"),
    "taskset": _spec("wrapper", "p:stop acV", skip=1),
    "chrt": _spec("wrapper", "p:stop T:arg P:arg D:arg abdefiormRv", skip=1),
    "pkexec": _spec("wrapper", "--user:arg"),
    "unbuffer": _spec("wrapper", "p"),
    "busybox": _spec("wrapper"),
    "dbus-run-session": _spec("wrapper", "--config-file:arg --dbus-daemon:arg"),
    "systemd-run": _spec(
        "wrapper",
        "u:arg p:arg E:arg H:arg M:arg S:stop dqGrtP --unit:arg --property:arg "
        "--description:arg --slice:arg --setenv:arg --uid:arg --gid:arg --nice:arg "
        "--working-directory:arg --on-active:arg --on-boot:arg --on-startup:arg "
        "--on-unit-active:arg --on-unit-inactive:arg --on-calendar:arg "
        "--timer-property:arg --path-property:arg --socket-property:arg --service-type:arg "
        "--host:arg --machine:arg --json:arg --shell:stop",
    ),
    "ssh": _spec(
        "remote",
        "B:arg b:arg c:arg D:arg E:arg e:arg F:config I:arg i:arg J:arg L:arg l:arg m:arg "
        "O:arg o:config p:arg Q:stop R:arg S:arg W:arg w:arg 46AaCfGgKkMNnqsTtVvXxYy",
    ),
    "watch": _spec(
        "shellwords",
        "n:arg q:arg d?:arg x:exec bcCeghprtvw --interval:arg --equexit:arg "
        "--differences?:arg --exec:exec",
    ),
    "parallel": _spec(
        "shellwords",
        "j:arg a:arg d:arg E:arg I:arg L:arg N:arg n:arg S:arg s:arg C:arg P:arg l:arg "
        "0kqvXumgt --jobs:arg --arg-file:arg --delimiter:arg --joblog:arg --results:arg "
        "--sshlogin:arg --colsep:arg --tagstring:arg --workdir:arg --basefile:arg "
        "--env:arg --timeout:arg --retries:arg --memfree:arg --load:arg --delay:arg "
        "--halt:arg --tmpdir:arg --sshloginfile:arg --return:arg --max-args:arg "
        "--max-replace-args:arg --max-lines:arg --replace:arg --max-procs:arg",
    ),
    "su": _SU,
    "runuser": _SU,
    "script": _spec(
        "plain",
        "c:code E:arg I:arg O:arg B:arg T:arg m:arg t?:arg aefqV --command:code --echo:arg "
        "--log-in:arg --log-out:arg --log-io:arg --log-timing:arg --logging-format:arg "
        "--output-limit:arg",
    ),
    "find": _Spec("find", {}, {}),
}
_PARALLEL_INPUTS = frozenset({":::", "::::", ":::+", "::::+"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_CODE_ENVIRONMENT_RE = re.compile(
    r"LD_\w+|DYLD_\w+|BASH_ENV|ENV|BASH_FUNC_\S*|SHELLOPTS|PS4|PROMPT_COMMAND|PATH"
    r"|PYTHON(?:PATH|STARTUP|HOME|INSPECT)|PERL5?(?:LIB|OPT|DB)|NODE_(?:OPTIONS|PATH)"
    r"|RUBY(?:OPT|LIB)|GIT_\w+|GCONV_PATH|EDITOR|VISUAL|PAGER|BROWSER|TERMINAL|IFS"
)
"""Environment variables that make programs load or run code of the value's choosing."""
_ASSIGN_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")


@functools.lru_cache(maxsize=1024)
def _program_spec(name: str) -> _Spec | None:
    """The spec of the program called ``name`` (no directory), if it is one we know."""
    spec = _PROGRAMS.get(name)
    if spec is not None:
        return spec
    m = _INTERPRETER_RE.fullmatch(name)
    return None if m is None else _INTERPRETERS[m.lastgroup or "shell"]


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


_Role = tuple[str, str, str | None, bool]
"""(role, option as written, attached argument or None, whether the next word is its
argument)."""


def _long_role(spec: _Spec, shape: str) -> _Role:
    name, eq, value = shape.partition("=")
    if MARK in name:
        return ("value", name, None, False)
    entry = spec.long.get(name)
    if entry is None and len(name) > 3:  # getopt_long takes any unambiguous prefix
        roles = {v for k, v in spec.long.items() if k.startswith(name)}
        entry = roles.pop() if len(roles) == 1 else None
    if entry is None:
        # Unknown long options of these programs are flags in practice: those that take
        # a value want it after `=` (or are listed).
        return ("flag", name, value if eq else None, False)
    role, takes_next = entry
    return (role, name, value, False) if eq else (role, name, None, takes_next)


def _cluster_roles(spec: _Spec, shape: str) -> list[_Role]:
    """The roles of a short option word (``-lc``, ``-oL``, ``-cCODE``)."""
    roles: list[_Role] = []
    k = 1
    while k < len(shape):
        letter = shape[k]
        if letter == MARK:  # a value among the option letters
            return [*roles, ("value", shape, None, False)]
        role, takes_next = spec.short.get(letter, ("unknown", False))
        rest = shape[k + 1 :]
        if role == "digits":
            k += 1
            while k < len(shape) and shape[k] in "0123456789":
                k += 1
            continue
        if role == "codepos" and rest:
            # `bash -c'echo x'`: whatever the shell makes of it, the text is code
            return [*roles, ("code", shape[: k + 1], rest, False)]
        if role in _TAKES_ARGUMENT or (role == "stop" and rest):
            attached = rest or None
            return [*roles, (role, shape[: k + 1], attached, takes_next and not rest)]
        roles.append((role, shape[: k + 1], None, False))
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
        return ("value", shape, None, False)
    head, colon, value = name.partition(":")
    roles = {r for full, r in _PWSH_OPTIONS.items() if full.startswith(head)} if head else set()
    if head in ("c", "e"):  # -c is -Command, -e -EncodedCommand
        roles = {"code"}
    role = roles.pop() if len(roles) == 1 else "unknown"
    if colon:
        return (role, shape, value, False)
    return (role, shape, None, role in _TAKES_ARGUMENT)


# ---------------------------------------------------------------------------------------
# The scan


class Finding(NamedTuple):
    """Something :func:`scan_command` found wrong or worth a warning."""

    code: str
    """A stable diagnostic code (``E-PLACEHOLDER-IN-INLINE-CODE`` ...)."""
    index: int
    """The word it is about."""
    message: str
    warning: bool


@dataclass(frozen=True, slots=True)
class Slot:
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


@dataclass(frozen=True, slots=True)
class CommandScan:
    """What :func:`scan_command` found in a command line."""

    problems: tuple[Finding, ...]
    """In the order found."""
    slots: tuple[Slot, ...]


class _Scanner:
    """Walks the command line from the program through wrappers (``env``, ``sudo``,
    ``timeout`` ..., ``find -exec``) and reports values that would choose the program
    or be read as code by a program (shells and interpreters, ``awk``, ``sed``, ``ssh``,
    ``watch`` ...). Then any shell or interpreter named anywhere else (``docker run img
    bash -c ...``) has its code options checked too."""

    def __init__(self, words: Sequence[TemplateWord]) -> None:
        self.words = words
        self.shapes = [_shape(w) for w in words]
        self.problems: list[Finding] = []
        self.slots: list[Slot] = []
        self.covered: set[int] = set()
        """Words already analysed: programs, code, remote commands."""

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

    # -- reporting -------------------------------------------------------------------

    def text(self, k: int) -> str:
        return self.words[k].literal_text

    def add(self, code: str, k: int, message: str, *, warning: bool = False) -> None:
        self.problems.append(Finding(code, k, message, warning))

    def tainted(self, k: int) -> bool:
        return k < len(self.words) and not self.words[k].is_literal

    def code(self, k: int, name: str, how: str, spec: _Spec, attached: str | None = None) -> None:
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

    def flag_code(self, k: int, name: str, option: str) -> None:
        self.covered.add(k)
        self.add(
            "E-PLACEHOLDER-IN-INLINE-CODE",
            k,
            f"`{self.text(k)}` gives `{name}` the option `{option}`, which makes a value "
            f"or the next argument code that `{name}` runs (injection). Write the option "
            "literally with its code, or move the code into a script under scripts/.",
        )

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

    def roles(self, spec: _Spec, j: int) -> tuple[list[_Role], bool]:
        """The option roles of word ``j`` and whether it is a {{x:--flag}} placeholder."""
        shape = self.shapes[j]
        if shape is None:  # {{x:--flag}} or {{x:--flag=}}: the modifier is the option
            ph = self.words[j].fragments[0]
            assert isinstance(ph, Placeholder)
            option = ph.modifier or ""
            if ph.kind is PlaceholderKind.FLAG_EQUALS:
                option += MARK
            shape = option
            if spec.kind == "pwsh":
                return [_pwsh_role(shape)], True
            if shape.startswith("--"):
                role = _long_role(spec, shape)
                return [(role[0], role[1], role[2], False)], True
            return [(r, o, a, False) for r, o, a, _ in _cluster_roles(spec, shape)], True
        if spec.kind == "pwsh":
            return [_pwsh_role(shape)], False
        if shape.startswith("--"):
            return [_long_role(spec, shape)], False
        return _cluster_roles(spec, shape), False

    def command_line(self, spec: _Spec, name: str, i: int, stop: int, *, sweep: bool) -> None:
        """The arguments of ``name`` (word ``i``) up to ``stop``.

        ``sweep``: the program was found somewhere in the arguments of another, so only
        its code options are checked (``apt install python3 {{pkg}}`` is no script).
        """
        shapes = self.shapes
        kind = spec.kind
        options_open = True
        positionals = 0
        has_code = False  # the interpreter's code is given by an option (-c, -e, -m)
        code_next = False  # shells after -c: the next positional is the code
        operand_seen = False
        certain = True  # every option before the operand is one we know
        mode = ""
        front = kind in ("wrapper", "interpreter", "pwsh") and not sweep
        j = i + 1
        while j < stop:
            shape = shapes[j]
            if options_open and shape == "-" and spec.assignments:  # env -: same as -i
                j += 1
                continue
            is_option = options_open and (
                shape is None
                or (len(shape) > 1 and (shape[0] == "-" or (spec.plus and shape[0] == "+")))
            )
            if is_option and shape == "--":
                options_open = False
                j += 1
                continue
            if is_option:
                roles, placeholder = self.roles(spec, j)
                skip_next = False
                for role, option, attached, takes_next in roles:
                    pre = front and not operand_seen and not has_code
                    if placeholder and (
                        code_next or role in ("code", "codepos", "choose", "config")
                    ):  # after `bash -c`, `{{v:--verbose}}` puts a value where the code goes
                        self.flag_code(j, name, option.replace(MARK, ""))
                        has_code = True
                    elif role == "value":
                        if _has_code_options(spec):
                            code, what = (
                                "E-PLACEHOLDER-IN-INLINE-CODE",
                                "one that runs code included (injection)",
                            )
                        else:
                            code, what = (
                                "E-PLACEHOLDER-COMMAND-POSITION",
                                "one that takes the next word included, which moves "
                                "the program it runs",
                            )
                        self.add(
                            code,
                            j,
                            f"`{self.text(j)}` puts a value among the options of `{name}`, "
                            f"where it could become any option, {what}. Write the options "
                            "literally.",
                        )
                    elif role == "code" and kind == "pwsh" and attached is None:
                        how = f"runs the words after `{option}` as PowerShell code"
                        self.shell_words(j + 1, stop, name, how)
                        return
                    elif role == "code":
                        has_code = True
                        where = j if attached is not None else j + 1
                        skip_next = attached is None
                        self.code(where, name, f"`{option}`", spec, attached)
                    elif role == "codepos":
                        has_code = code_next = True
                    elif role in ("choose", "config"):
                        where = j if attached is not None else j + 1
                        skip_next = attached is None
                        if where >= stop:
                            continue
                        if role == "config":
                            self.config(where, name, option, attached)
                        else:
                            self.chooses(
                                where,
                                name,
                                f"the code that `{name} {option}` runs",
                                attached,
                            )
                        has_code = has_code or kind in ("interpreter", "script", "pwsh")
                    elif role in ("arg", "execarg"):
                        if role == "execarg":
                            mode = "exec"
                        if placeholder:
                            if pre:  # {{b:-n}} on a boolean: -n would take the next word
                                self.slots.append(Slot(j, name, "flag-argument", option))
                        elif takes_next:
                            skip_next = True
                            if pre and self.tainted(j + 1):
                                self.slots.append(Slot(j + 1, name, "argument", option))
                    elif role == "exec":
                        mode = "exec"
                    elif role == "stop":
                        mode = "stop"
                    elif role == "shell":
                        mode = "shell"
                    else:  # flag or unknown
                        if role == "unknown":
                            certain = False
                        if placeholder and pre:
                            self.slots.append(Slot(j, name, "flag", option))
                j += 2 if skip_next else 1
                continue
            # a positional argument
            if kind == "wrapper":
                if mode == "stop" or has_code:
                    return
                if spec.assignments and shape is not None and _ASSIGN_RE.match(shape):
                    self.assignment(j, name, shape)
                    j += 1
                    continue
                if positionals < spec.skip:
                    positionals += 1
                    if not sweep and self.tainted(j):
                        self.slots.append(Slot(j, name, "positional"))
                    j += 1
                    continue
                if mode == "shell":
                    self.shell_words(j, stop, name, "hands its command to a shell")
                else:
                    self.program(j, stop, name)
                return
            if kind in ("interpreter", "pwsh"):
                if code_next:
                    code_next = False
                    operand_seen = True
                    self.code(j, name, "`-c`", spec)
                elif not has_code and not operand_seen:
                    operand_seen = True
                    if not sweep:
                        self.covered.add(j)
                        self.chooses(j, name, f"the script that `{name}` runs")
                if certain and (operand_seen or has_code):
                    return
                j += 1
                continue
            if kind == "script":
                if not has_code and not operand_seen and not sweep:
                    self.code(j, name, "its program text", spec)
                operand_seen = True
                j += 1
                continue
            if kind == "remote":
                if positionals == 0:
                    positionals = 1
                    j += 1
                    continue
                self.shell_words(
                    j, stop, name, "sends the words after the host to the remote shell"
                )
                return
            if kind == "shellwords":
                if mode == "exec":
                    self.program(j, stop, name)
                    return
                end = stop
                if name == "parallel":
                    end = next((k for k in range(j, stop) if shapes[k] in _PARALLEL_INPUTS), stop)
                self.shell_words(j, end, name, "runs its command through a shell")
                return
            if kind == "su":
                if mode == "exec":
                    self.program(j, stop, name)
                    return
                if positionals and not sweep:
                    self.chooses(j, name, f"an argument that `{name}` passes to the user's shell")
                positionals += 1
            j += 1
        return

    def config(self, k: int, name: str, option: str, attached: str | None) -> None:
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

    def assignment(self, k: int, name: str, shape: str) -> None:
        m = _ASSIGN_RE.match(shape)
        if m is not None and MARK in shape and _CODE_ENVIRONMENT_RE.fullmatch(m[1]):
            self.add(
                "E-PLACEHOLDER-IN-INLINE-CODE",
                k,
                f"`{self.text(k)}` lets a value set {m[1]} for the program `{name}` runs, "
                "which makes programs load or run code of the value's choosing "
                "(injection). Set it literally, or not at all.",
            )


def _hint(spec: _Spec) -> str:
    """How to pass a value to code without putting it in the code."""
    if spec is _SHELL:
        way = "sh -c '... \"$1\"' sh {{value}}"
    elif spec is _AWK:
        way = "awk -v name={{value}} '... name ...'"
    elif spec.kind == "interpreter":
        way = "sys.argv, @ARGV, process.argv ..."
    else:
        return "Move the command into a script under scripts/ and pass the value to it."
    return (
        f"Pass the value as a separate argument and read it there ({way}), or move the "
        "code into a script under scripts/."
    )


def _has_code_options(spec: _Spec) -> bool:
    return spec.kind == "pwsh" or any(
        role in ("code", "codepos", "choose", "config")
        for role, _ in (*spec.short.values(), *spec.long.values())
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
