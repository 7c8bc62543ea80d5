"""The programs that run code, as data (docs/adr/0006-code-running-programs.md).

One row per program (or family of programs sharing a command line): its names, what
kind of command line it has, and the role of each option. :mod:`gibberish.skills.programs`
reads these rows with one generic scanner; adding a program is adding a row here (and a
row to the table of ``tests/skills/test_programs.py``).

Kinds (what the positional arguments are):

* ``interpreter``: the first positional is the script it runs, unless an option gave
  the code (``-c``, ``-e``, ``-m`` ...). Interpreters are also looked for anywhere among
  the words (``docker run img bash -c ...``).
* ``wrapper``: after ``skip`` positionals (``timeout DURATION``) comes the program it
  runs, with its arguments (``env``, ``sudo``, ``strace`` ...).
* ``script``: the first positional is program text (awk, sed) unless ``-e``/``-f``.
* ``sql``: the first positional is a database, every later one is code (sqlite3).
* ``remote``: the first positional is a host, the rest is a command line for the remote
  shell (ssh).
* ``shellwords``: the positionals are joined into a shell command line (watch, parallel).
* ``su``: the first positional is a user, later ones go to the user's shell.
* ``editor``: a positional starting with ``+`` is an editor command (vim).
* ``plain``: positionals are data; only the options matter (tar, rsync, zip ...).
* ``find``: ``-exec PROGRAM ... ;`` runs a program.

Option roles (``NAME:ROLE`` in a row's option string; a bare letter or ``--name`` is a
flag):

========  ==============================================================================
flag      takes no argument
arg       takes an argument (attached ``-n5`` / ``--n=5``, or the next word)
code      its argument is code the program runs (``-c CODE``, ``--eval=CODE``)
codepos   no argument of its own, but the first positional becomes code (``sh -c``,
          ``node -p``); in a cluster the letters after it are more flags (``sh -ce``)
choose    its argument chooses code to run: a script, module, library, program
config    its argument is settings that can run commands (``ssh -o``)
env       its argument is ``NAME=VALUE`` for the program's environment (``strace -E``)
digits    optional digits attached, then the cluster goes on (``perl -l``, ``-0``)
stop      no command follows (``sudo -l``)
shell     the command goes to a shell (``sudo -s``)
exec      the command follows as words, no shell (``watch -x``, ``gdb --args``)
execarg   takes an argument, and the command follows as words (``runuser -u USER``)
========  ==============================================================================

``x?:ROLE`` takes its argument attached only (``-i.bak``), never as the next word. A
long option written with a single dash (``-cmd``, ``-TT``, ``-ex``) is a whole-word
option of that program.
"""

from __future__ import annotations

from msgspec import Struct, field

from gibberish.lazy import lazy_pattern
from gibberish.records import hash_without

__all__ = ["CODE_ENVIRONMENT", "PROGRAMS", "TAKES_ARGUMENT", "Program"]

TAKES_ARGUMENT = frozenset({"arg", "code", "choose", "config", "env", "execarg"})
"""Roles whose option takes an argument."""


class Program(Struct, frozen=True):
    """One row of the table."""

    names: str
    """Space-separated program names; a name ending in ``#`` also matches with a version
    suffix (``python#`` is python, python3, python3.12)."""
    kind: str
    options: str = ""
    skip: int = 0
    """Positional arguments before the command (``timeout DURATION``, ``flock FILE``)."""
    warn: bool = True
    """Whether literal inline code is worth a warning (sed scripts and SQL are not)."""
    plus: bool = False
    """Whether ``+o``-style words are options too (shells)."""
    assignments: bool = False
    """Whether ``NAME=VALUE`` words may come before the command (env, sudo)."""
    hint: str = ""
    """How to pass a value to this program's code without putting it in the code."""
    short: dict[str, tuple[str, bool]] = field(default_factory=dict)
    long: dict[str, tuple[str, bool]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for token in self.options.split():
            name, _, role = token.partition(":")
            attached_only = name.endswith("?")
            name = name.rstrip("?")
            role = role or "flag"
            entry = (role, role in TAKES_ARGUMENT and not attached_only)
            if name.startswith("--") or (name.startswith("-") and len(name) > 2):
                self.long[name] = entry
            elif name.startswith("-"):
                self.short[name[1]] = entry
            elif role == "flag":
                self.short.update(dict.fromkeys(name, entry))
            else:
                self.short[name] = entry

    __hash__ = hash_without("short", "long")  # made from ``options``; dictionaries

    @property
    def has_code_options(self) -> bool:
        """Whether some option of this program runs or chooses code."""
        return self.kind == "pwsh" or any(
            role in ("code", "codepos", "choose", "config", "env")
            for role, _ in (*self.short.values(), *self.long.values())
        )


_SHELL_HINT = "sh -c '... \"$1\"' sh {{value}}"
_ARGV_HINT = "sys.argv, @ARGV, process.argv ..."

_SHELL = Program(
    "sh# bash# zsh dash ksh mksh ash fish csh tcsh yash rbash pdksh",
    "interpreter",
    "c:codepos o:arg O:arg C:code abefhiklmnprstuvxBDEHILPTV --rcfile:choose "
    "--init-file:choose --command:code --init-command:code",
    plus=True,
    hint=_SHELL_HINT,
)
_AWK = Program(
    "awk gawk mawk nawk",
    "script",
    "e:code f:choose E:choose i:choose l:choose F:arg v:arg W:arg d?:arg D?:arg L?:arg "
    "o?:arg p?:arg bcCghIkMnNOPrsStVy --source:code --file:choose --exec:choose "
    "--include:choose --load:choose --field-separator:arg --assign:arg",
    hint="awk -v name={{value}} '... name ...'",
)
_SU = Program(
    "su runuser",
    "su",
    "c:code s:choose g:arg G:arg w:arg u:execarg lmpfP --command:code --session-command:code "
    "--shell:choose --group:arg --supp-group:arg --whitelist-environment:arg --user:execarg",
)
_STRACE = (
    "o:arg e:arg p:stop P:arg s:arg u:arg E:env a:arg b:arg I:arg O:arg S:arg X:arg U:arg "
    "cCdDfFhiqrtTvVwxyzZk --output:arg --env:env --user:arg --trace:arg --signal:arg "
    "--attach:stop --string-limit:arg --columns:arg --summary-sort-by:arg"
)

PROGRAMS: tuple[Program, ...] = (
    # -- shells and interpreters ---------------------------------------------------------
    _SHELL,
    Program(
        "python# pypy#",
        "interpreter",
        "c:code m:choose W:arg X:arg Q:arg bBdEhiIOPqRsSuvVx --check-hash-based-pycs:arg",
        hint=_ARGV_HINT,
    ),
    Program(
        "node nodejs bun",
        "interpreter",
        "e:code p:codepos r:choose C:arg chiv --eval:code --print:codepos --require:choose "
        "--import:choose --loader:choose --experimental-loader:choose --env-file:config "
        "--conditions:arg --title:arg",
        hint=_ARGV_HINT,
    ),
    Program(
        "perl#",
        "interpreter",
        "e:code E:code M:choose m:choose I:arg d?:choose D?:arg i?:arg C?:arg x?:arg "
        "F?:arg l:digits 0:digits acfnpsStTuUvwWXhV",
        hint=_ARGV_HINT,
    ),
    Program(
        "ruby#",
        "interpreter",
        "e:code r:choose I:arg C:arg E:arg F?:arg x?:arg T?:arg W?:arg K?:arg 0:digits "
        "acdhlnpsSvwyU",
        hint=_ARGV_HINT,
    ),
    Program(
        "php#",
        "interpreter",
        "r:code B:code R:code E:code F:choose f:choose c:choose z:choose d:config t:arg "
        "S:arg ahHilmnqsvwe",
        hint=_ARGV_HINT,
    ),
    Program("lua# luajit#", "interpreter", "e:code l:choose j:arg O?:arg b ivEW", hint=_ARGV_HINT),
    Program("osascript", "interpreter", "e:code l:arg s:arg i", hint=_ARGV_HINT),
    Program("Rscript R", "interpreter", "e:code f:choose --file:choose", hint=_ARGV_HINT),
    Program("pwsh powershell powershell.exe", "pwsh", hint=_ARGV_HINT),
    # -- programs whose arguments are code ------------------------------------------------
    _AWK,
    Program(
        "sed gsed",
        "script",
        "e:code f:choose l:arg i?:arg nrEsuzb --expression:code --file:choose "
        "--line-length:arg --in-place?:arg",
        warn=False,
    ),
    Program(
        "sqlite3",
        "sql",
        "-cmd:code -init:choose -separator:arg -nullvalue:arg -newline:arg -vfs:arg "
        "-mmap:arg -maxsize:arg -escape:arg -A:arg",
        warn=False,
    ),
    Program(
        "vim vi nvim view vimdiff gvim rvim rview ex",
        "editor",
        "c:code S:choose u:choose U:choose s:choose i:arg T:arg t:arg q:arg w:arg W:arg "
        "--cmd:code bdeEglmMnNoOpRrvxXyZAFH",
    ),
    Program(
        "gdb",
        "plain",
        "-ex:code --ex:code -iex:code --iex:code -eval-command:code --eval-command:code "
        "-init-eval-command:code --init-eval-command:code x:choose -ix:choose --ix:choose "
        "-command:choose --command:choose -init-command:choose --init-command:choose "
        "--args:exec -args:exec p:stop --pid:stop -pid:stop",
    ),
    Program(
        "tar gtar bsdtar",
        "plain",
        "f:arg C:arg T:arg X:arg b:arg g:arg K:arg L:arg N:arg V:arg H:arg I:choose "
        "F:choose --to-command:code --checkpoint-action:code --use-compress-program:choose "
        "--rsh-command:choose --info-script:choose --new-volume-script:choose "
        "--file:arg --directory:arg",
    ),
    Program(
        "rsync",
        "plain",
        "e:code f:arg M:arg B:arg T:arg --rsh:code --rsync-path:code --filter:arg "
        "--remote-option:arg --exclude:arg --include:arg --log-file:arg --password-file:arg",
    ),
    Program("zip", "plain", "-TT:code --unzip-command:code b:arg n:arg t:arg P:arg Z:arg"),
    # -- programs that run a program -----------------------------------------------------
    Program(
        "env",
        "wrapper",
        "u:arg C:arg S:code P:arg i0v --unset:arg --chdir:arg --split-string:code "
        "--ignore-environment --null --debug --default-signal?:arg --ignore-signal?:arg "
        "--block-signal?:arg --list-signal-handling",
        assignments=True,
    ),
    Program("nice", "wrapper", "n:arg --adjustment:arg"),
    Program("nohup", "wrapper"),
    Program(
        "timeout",
        "wrapper",
        "s:arg k:arg v --signal:arg --kill-after:arg --preserve-status --foreground --verbose",
        skip=1,
    ),
    Program("stdbuf", "wrapper", "i:arg o:arg e:arg --input:arg --output:arg --error:arg"),
    Program(
        "sudo",
        "wrapper",
        "u:arg g:arg C:arg D:arg h?:arg p:arg r:arg t:arg T:arg U:arg R:arg s:shell i:shell "
        "e:stop l:stop v:stop K:stop V:stop AbBEHknNPS --user:arg --group:arg "
        "--close-from:arg --chdir:arg --chroot:arg --host:arg --prompt:arg --role:arg "
        "--type:arg --command-timeout:arg --other-user:arg --shell:shell --login:shell "
        "--edit:stop --list:stop --validate:stop --remove-timestamp:stop --version:stop "
        "--help:stop --preserve-env?:arg",
        assignments=True,
    ),
    Program("doas", "wrapper", "u:arg C:stop s:shell nL"),
    Program(
        "flock",
        "wrapper",
        "w:arg E:arg c:code sxunoFv --wait:arg --timeout:arg --conflict-exit-code:arg "
        "--command:code",
        skip=1,
    ),
    Program(
        "xargs",
        "wrapper",
        "a:arg d:arg E:arg I:arg L:arg n:arg P:arg s:arg e?:arg i?:arg l?:arg 0oprtx "
        "--arg-file:arg --delimiter:arg --max-lines?:arg --max-args:arg --max-procs:arg "
        "--max-chars:arg --process-slot-var:arg --eof?:arg --replace?:arg",
    ),
    Program("exec", "wrapper", "a:arg cl"),
    Program("command", "wrapper", "v:stop V:stop p"),
    Program("time", "wrapper", "f:arg o:arg apqv --format:arg --output:arg"),
    Program("setsid", "wrapper", "cfw"),
    Program("chroot", "wrapper", "--userspec:arg --groups:arg", skip=1),
    Program("ionice", "wrapper", "c:arg n:arg p:stop P:stop u:stop t"),
    Program("taskset", "wrapper", "p:stop acV", skip=1),
    Program("chrt", "wrapper", "p:stop T:arg P:arg D:arg abdefiormRv", skip=1),
    Program("pkexec", "wrapper", "--user:arg"),
    Program("unbuffer", "wrapper", "p"),
    Program("busybox", "wrapper"),
    Program("dbus-run-session", "wrapper", "--config-file:arg --dbus-daemon:arg"),
    Program(
        "systemd-run",
        "wrapper",
        "u:arg p:arg E:env H:arg M:arg S:stop dqGrtP --unit:arg --property:arg "
        "--description:arg --slice:arg --setenv:env --uid:arg --gid:arg --nice:arg "
        "--working-directory:arg --on-active:arg --on-boot:arg --on-startup:arg "
        "--on-unit-active:arg --on-unit-inactive:arg --on-calendar:arg "
        "--timer-property:arg --path-property:arg --socket-property:arg --service-type:arg "
        "--host:arg --machine:arg --json:arg --shell:stop",
    ),
    Program("strace ltrace", "wrapper", _STRACE),
    Program(
        "prlimit",
        "wrapper",
        "p:stop o:arg --pid:stop --output:arg --noheadings --raw --verbose",
    ),
    Program(
        "setpriv",
        "wrapper",
        "d:stop --dump:stop --reuid:arg --regid:arg --ruid:arg --rgid:arg --euid:arg "
        "--egid:arg --groups:arg --inh-caps:arg --ambient-caps:arg --bounding-set:arg "
        "--securebits:arg --pdeathsig:arg --selinux-label:arg --apparmor-profile:arg "
        "--landlock-access:arg --landlock-rule:arg --seccomp-filter:arg --nnp "
        "--no-new-privs --clear-groups --keep-groups --init-groups --reset-env",
    ),
    Program(
        "unshare",
        "wrapper",
        "S:arg G:arg R:arg w:arg mUipnuCTrcf --setuid:arg --setgid:arg --root:arg "
        "--wd:arg --kill-child?:arg --propagation:arg",
    ),
    Program("nsenter", "wrapper", "t:arg S:arg G:arg r?:arg w?:arg mUipnuCTaF --target:arg"),
    Program("fakeroot", "wrapper", "l:arg s:arg i:arg b:arg u --lib:arg --faked:arg"),
    Program("faketime", "wrapper", "m f:arg p:arg --exclude-monotonic", skip=1),
    Program("numactl", "wrapper", "C:arg N:arg m:arg p:arg i:arg l a s H"),
    Program("xvfb-run", "wrapper", "n:arg s:arg f:arg e:arg p:arg w:arg a l"),
    Program("ssh-agent", "wrapper", "a:arg E:arg t:arg P:arg O:arg cDdsk"),
    Program(
        "systemd-inhibit",
        "wrapper",
        "--what:arg --who:arg --why:arg --mode:arg --list:stop",
    ),
    # -- remote and repeated commands -----------------------------------------------------
    Program(
        "ssh",
        "remote",
        "B:arg b:arg c:arg D:arg E:arg e:arg F:config I:arg i:arg J:arg L:arg l:arg m:arg "
        "O:arg o:config p:arg Q:stop R:arg S:arg W:arg w:arg 46AaCfGgKkMNnqsTtVvXxYy",
    ),
    Program(
        "watch",
        "shellwords",
        "n:arg q:arg d?:arg x:exec bcCeghprtvw --interval:arg --equexit:arg "
        "--differences?:arg --exec:exec",
    ),
    Program(
        "parallel",
        "shellwords",
        "j:arg a:arg d:arg E:arg I:arg L:arg N:arg n:arg S:arg s:arg C:arg P:arg l:arg "
        "0kqvXumgt --jobs:arg --arg-file:arg --delimiter:arg --joblog:arg --results:arg "
        "--sshlogin:arg --colsep:arg --tagstring:arg --workdir:arg --basefile:arg "
        "--env:arg --timeout:arg --retries:arg --memfree:arg --load:arg --delay:arg "
        "--halt:arg --tmpdir:arg --sshloginfile:arg --return:arg --max-args:arg "
        "--max-replace-args:arg --max-lines:arg --replace:arg --max-procs:arg",
    ),
    _SU,
    Program(
        "script",
        "plain",
        "c:code E:arg I:arg O:arg B:arg T:arg m:arg t?:arg aefqV --command:code --echo:arg "
        "--log-in:arg --log-out:arg --log-io:arg --log-timing:arg --logging-format:arg "
        "--output-limit:arg",
    ),
    Program("find", "find"),
)

CODE_ENVIRONMENT: tuple[tuple[str, str], ...] = (
    (r"LD_\w+|DYLD_\w+|GCONV_PATH", "the dynamic loader loads a library"),
    (r"BASH_ENV|ENV|BASH_FUNC_\S*|SHELLOPTS|PS4|PROMPT_COMMAND|IFS|ZDOTDIR", "a shell runs it"),
    (r"PATH", "it chooses every program found by name"),
    (r"PYTHON(?:PATH|STARTUP|HOME|INSPECT|WARNINGS)", "Python imports or runs it"),
    (r"PERL5?(?:LIB|OPT|DB)|RUBY(?:OPT|LIB)|NODE_(?:OPTIONS|PATH)", "the interpreter loads it"),
    (r"JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS", "the JVM loads agents from it"),
    (r"LUA_INIT(?:_5_\d)?|LUA_(?:C?PATH)(?:_5_\d)?", "Lua runs or loads it"),
    (r"PHPRC|PHP_INI_SCAN_DIR", "PHP reads settings that run code"),
    (r"LESSOPEN|LESSCLOSE|LESS|LESSKEY\w*", "less runs it as a command"),
    (r"MANPAGER|MANOPT|MANROFFSEQ|GROFF_\w+", "man runs it"),
    (r"EDITOR|VISUAL|PAGER|SYSTEMD_PAGER|SYSTEMD_EDITOR|BROWSER|TERMINAL", "it names a program"),
    (r"SSH_ASKPASS|SUDO_ASKPASS|GIT_\w+", "it names a program that runs"),
)
"""Environment variables that make programs load or run code of the value's choosing,
each with the reason."""

CODE_ENVIRONMENT_RE = lazy_pattern("|".join(f"(?:{p})" for p, _ in CODE_ENVIRONMENT))
