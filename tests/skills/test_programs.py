"""The table of code-running programs (docs/adr/0006-code-running-programs.md), one test
row per program row: a template where a value would run as code or choose what runs
(refused), and one where values stay data (accepted).

Adding a program to ``gibberish/skills/program_table.py`` means adding its row here:
``test_every_program_row_has_a_test_row`` fails otherwise."""

from __future__ import annotations

import pytest

from gibberish.skills.model import Severity
from gibberish.skills.program_table import PROGRAMS
from gibberish.skills.programs import is_interpreter
from gibberish.skills.templates import parse_template

CODE = "E-PLACEHOLDER-IN-INLINE-CODE"
CHOOSE = "E-PLACEHOLDER-COMMAND-POSITION"

# program row (its first name) -> (refused template, its error, accepted template)
ROWS: dict[str, tuple[str, str, str]] = {
    "sh": ("sh -ce {{x}}", CODE, "sh -c 'printf %s \"$1\"' sh {{x}}"),
    "python": ("python3 -Sc {{x}}", CODE, "python3 -cS {{x}}"),
    "node": ("node -pe {{x}}", CODE, "node app.js {{x}}"),
    "perl": ("perl -le {{x}}", CODE, "perl -el {{x}}"),
    "ruby": ("ruby -ne {{x}}", CODE, "ruby /opt/x.rb {{x}}"),
    "php": ("php -nr {{x}}", CODE, "php /opt/x.php {{x}}"),
    "lua": ("lua -e {{x}}", CODE, "lua /opt/x.lua {{x}}"),
    "osascript": ("osascript -e {{x}}", CODE, "osascript /opt/x.scpt {{x}}"),
    "Rscript": ("Rscript -e {{x}}", CODE, "Rscript /opt/x.R {{x}}"),
    "pwsh": ("pwsh -c {{x}}", CODE, "pwsh -File /opt/x.ps1 {{x}}"),
    "awk": ("awk {{prog}} f", CODE, "awk -v v={{x}} '{print v}' f"),
    "sed": ("sed -e {{x}} f", CODE, "sed -n 1p {{file}}"),
    "sqlite3": ("sqlite3 {{db}} {{sql}}", CODE, "sqlite3 -readonly {{db}} .tables"),
    "vim": ("vim {{file}}", CODE, "vim -R -- {{file}}"),
    "gdb": ("gdb -batch -ex {{x}} /bin/true", CODE, "gdb -batch -ex bt /bin/true {{core}}"),
    "tar": ("tar -xf a.tar --to-command={{x}}", CODE, "tar -xf {{archive}} -C {{dir}}"),
    "rsync": ("rsync -e {{x}} a b", CODE, "rsync -a {{src}} {{dst}}"),
    "zip": ("zip -T -TT {{x}} a.zip f", CODE, "zip -r {{archive}} {{dir}}"),
    "env": ("env LESSOPEN={{pre}} less f", CODE, "env LANG={{lang}} sort f"),
    "nice": ("nice -n 5 {{x}}", CHOOSE, "nice -n 5 ls {{x}}"),
    "nohup": ("nohup {{x}}", CHOOSE, "nohup ls {{x}}"),
    "timeout": ("timeout 5 {{x}}", CHOOSE, "timeout 5 ls {{x}}"),
    "stdbuf": ("stdbuf -oL {{x}}", CHOOSE, "stdbuf -oL ls {{x}}"),
    "sudo": ("sudo LD_PRELOAD={{x}} ls", CODE, "sudo -u root ls {{x}}"),
    "doas": ("doas {{x}}", CHOOSE, "doas ls {{x}}"),
    "flock": ("flock /tmp/l -c {{x}}", CODE, "flock /tmp/l ls {{x}}"),
    "xargs": ("xargs -0 {{x}}", CHOOSE, "xargs -0 ls {{x}}"),
    "exec": ("exec {{x}}", CHOOSE, "exec ls {{x}}"),
    "command": ("command {{x}}", CHOOSE, "command -v {{x}}"),
    "time": ("nice time -p {{x}}", CHOOSE, "nice time -p ls {{x}}"),
    "setsid": ("setsid -f {{x}}", CHOOSE, "setsid -f ls {{x}}"),
    "chroot": ("chroot /srv {{x}}", CHOOSE, "chroot /srv ls {{x}}"),
    "ionice": ("ionice -c 3 {{x}}", CHOOSE, "ionice -c 3 ls {{x}}"),
    "taskset": ("taskset 0x1 {{x}}", CHOOSE, "taskset 0x1 ls {{x}}"),
    "chrt": ("chrt -b 0 {{x}}", CHOOSE, "chrt -b 0 ls {{x}}"),
    "pkexec": ("pkexec {{x}}", CHOOSE, "pkexec ls {{x}}"),
    "unbuffer": ("unbuffer {{x}}", CHOOSE, "unbuffer ls {{x}}"),
    "busybox": ("busybox {{x}}", CHOOSE, "busybox ls {{x}}"),
    "dbus-run-session": ("dbus-run-session {{x}}", CHOOSE, "dbus-run-session ls {{x}}"),
    "systemd-run": ("systemd-run --user -E LD_PRELOAD={{x}} ls", CODE, "systemd-run --user ls"),
    "strace": ("strace -f -o /tmp/t {{x}}", CHOOSE, "strace -f -o /tmp/t ls {{x}}"),
    "prlimit": ("prlimit --nofile=10 {{x}}", CHOOSE, "prlimit --nofile=10 ls {{x}}"),
    "setpriv": ("setpriv --nnp {{x}}", CHOOSE, "setpriv --nnp ls {{x}}"),
    "unshare": ("unshare -r {{x}}", CHOOSE, "unshare -r ls {{x}}"),
    "nsenter": ("nsenter -t 1 -m {{x}}", CHOOSE, "nsenter -t 1 -m ls {{x}}"),
    "fakeroot": ("fakeroot {{x}}", CHOOSE, "fakeroot ls {{x}}"),
    "faketime": ("faketime yesterday {{x}}", CHOOSE, "faketime yesterday ls {{x}}"),
    "numactl": ("numactl -N 0 {{x}}", CHOOSE, "numactl -N 0 ls {{x}}"),
    "xvfb-run": ("xvfb-run -a {{x}}", CHOOSE, "xvfb-run -a ls {{x}}"),
    "ssh-agent": ("ssh-agent {{x}}", CHOOSE, "ssh-agent ls {{x}}"),
    "systemd-inhibit": ("systemd-inhibit --why=x {{x}}", CHOOSE, "systemd-inhibit ls {{x}}"),
    "ssh": ("ssh host ls {{dir}}", CODE, "ssh {{host}} -- /usr/bin/true"),
    "watch": ("watch df -h {{x}}", CODE, "watch -x ls {{x}}"),
    "parallel": ("parallel echo {{x}} ::: a", CODE, "parallel -j 2 ::: {{x}}"),
    "su": ("su -c {{x}} root", CODE, "su -s /bin/sh root"),
    "script": ("script -q -c {{x}} /dev/null", CODE, "script -q {{file}}"),
    "find": ("find . -exec {{x}} {} +", CHOOSE, "find {{dir}} -name {{n}} -exec rm {} +"),
}


def _errors(source: str) -> set[str]:
    return {d.code for d in parse_template(source)[1] if d.severity is Severity.ERROR}


def test_every_program_row_has_a_test_row() -> None:
    rows = {p.names.split()[0].rstrip("#") for p in PROGRAMS}
    assert rows == set(ROWS)


@pytest.mark.parametrize(("program", "row"), ROWS.items(), ids=list(ROWS))
def test_program_row(program: str, row: tuple[str, str, str]) -> None:
    refused, code, accepted = row
    template, diags = parse_template(refused)
    assert template is None
    assert code in _errors(refused), [d.format() for d in diags]
    assert _errors(accepted) == set(), [d.format() for d in parse_template(accepted)[1]]


# Shells read `-ce` as the flags -c and -e and take the NEXT word as the code; node reads
# `-pe` as --print --eval. Each of these once passed with only a warning.
OPTION_CLUSTERS = [
    "sh -ce {{x}}",
    "bash -cl {{x}}",
    "bash -cex {{x}}",
    "dash -ceu {{x}}",
    "zsh -cf {{x}}",
    "node -pe {{x}}",
    "node --print -e {{x}}",
    "node --print {{x}}",
    "env -i sh -ce {{x}}",
    "docker run img bash -cex {{x}}",
]


@pytest.mark.parametrize("source", OPTION_CLUSTERS)
def test_option_clusters_put_the_code_in_the_next_word(source: str) -> None:
    assert _errors(source) == {CODE}


def _cluster_cases() -> list[str]:
    """For every interpreter in the table: each code letter after each flag letter
    (``-Sc``), and for `-c`-style letters each flag letter after it (``-ce``)."""
    cases = []
    for row in PROGRAMS:
        name = row.names.split()[0].rstrip("#")
        if not is_interpreter(name) or row.kind == "pwsh":
            continue
        flags = [k for k, (role, _) in row.short.items() if role == "flag"]
        for letter, (role, _) in row.short.items():
            if role == "code":
                cases += [f"{name} -{f}{letter} {{{{x}}}}" for f in flags]
            if role == "codepos":
                cases += [f"{name} -{letter}{f} {{{{x}}}}" for f in flags]
    return cases


@pytest.mark.parametrize("source", _cluster_cases())
def test_every_interpreter_reads_clusters(source: str) -> None:
    assert _errors(source) == {CODE}


@pytest.mark.parametrize(
    "source",
    [
        "env LESSOPEN={{pre}} less f",
        "env LESSCLOSE={{pre}} less f",
        "env MANPAGER={{x}} man ls",
        "env JAVA_TOOL_OPTIONS={{x}} java -jar /opt/a.jar",
        "env SSH_ASKPASS={{x}} ssh host",
        "env LUA_INIT={{x}} lua /opt/x.lua",
        "env PHPRC={{x}} php /opt/x.php",
        "env PYTHONWARNINGS={{x}} python3 /opt/x.py",
        "strace -E LD_PRELOAD={{x}} ls",
        "systemd-run --user --setenv=BASH_ENV={{x}} bash /opt/x.sh",
    ],
)
def test_environment_that_runs_code(source: str) -> None:
    assert _errors(source) == {CODE}


@pytest.mark.parametrize(
    "source",
    [
        "sqlite3 {{db}} {{sql}}",
        "sqlite3 -cmd {{x}} db.sqlite",
        "sqlite3 -init {{file}} db.sqlite",
        "tar --to-command={{x}} -xf a.tar",
        "tar -I {{prog}} -xf a.tar",
        "rsync --rsh={{x}} a b",
        "zip -TT {{x}} a.zip f",
        "gdb -ex {{x}} /bin/true",
        "gdb -batch -ex run --args {{p}}",
        "vim -c {{x}} f",
        "vim +{{x}} f",
        "nvim --cmd {{x}} f",
        "strace sh -c {{x}}",
        "prlimit --nofile=10 {{x}}",
        "setpriv --nnp {{x}}",
        "unshare -r {{x}}",
        "env {{name}}=1 ls",
    ],
)
def test_programs_that_run_code_through_options(source: str) -> None:
    template, diags = parse_template(source)
    assert template is None
    assert _errors(source) & {CODE, CHOOSE}, [d.format() for d in diags]
