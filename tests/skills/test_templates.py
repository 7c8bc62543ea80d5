"""Template parsing (docs/adr/0003-no-shell-ever.md): accepted shapes, every rejected construct, quote removal,
placeholders, inline code, URL queries, the cross-check against parameters, and the fast
path giving exactly what the bashlex path gives."""

from __future__ import annotations

import shutil
import subprocess

import bashlex
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gibberish.skills import templates
from gibberish.skills.model import (
    Literal,
    ParameterDefinition,
    ParameterType,
    Placeholder,
    PlaceholderKind,
    Severity,
)
from gibberish.skills.quoting import remove_quotes
from gibberish.skills.template_params import check_template
from gibberish.skills.templates import CODES, parse_template

P = ParameterDefinition
T = ParameterType


def error_codes(source: str) -> set[str]:
    _, diags = parse_template(source)
    return {d.code for d in diags if d.severity is Severity.ERROR}


def texts(source: str) -> list[str]:
    template, diags = parse_template(source)
    assert template is not None, [d.format() for d in diags]
    return [w.literal_text for w in template.words]


def fragments(source: str) -> list[tuple]:
    template, diags = parse_template(source)
    assert template is not None, [d.format() for d in diags]
    return [w.fragments for w in template.words]


# ---------------------------------------------------------------------------------------
# Rejected shell constructs: each has its own code, quotes the text, says what to do

REJECTED = [
    ("git log | head -5", "E-SHELL-PIPE", "|"),
    ("make && make install", "E-SHELL-LIST", "&&"),
    ("test -f x || touch x", "E-SHELL-LIST", "||"),
    ("cd /tmp; ls", "E-SHELL-LIST", ";"),
    ("ls;", "E-SHELL-LIST", ";"),
    ("echo one\necho two", "E-SHELL-LIST", "echo two"),
    ("ls > out.txt", "E-SHELL-REDIRECT", "> out.txt"),
    ("sort < in.txt", "E-SHELL-REDIRECT", "< in.txt"),
    ("ls >> log.txt", "E-SHELL-REDIRECT", ">> log.txt"),
    ("make 2>&1", "E-SHELL-REDIRECT", "2>&1"),
    ("cat <<< hello", "E-SHELL-REDIRECT", "<<< hello"),
    ("ls &> all.txt", "E-SHELL-REDIRECT", "&> all.txt"),
    ("echo $HOME", "E-SHELL-VARIABLE", "$HOME"),
    ("echo ${HOME}", "E-SHELL-VARIABLE", "${HOME}"),
    ('echo "hello $USER"', "E-SHELL-VARIABLE", "$USER"),
    ("echo $1", "E-SHELL-VARIABLE", "$1"),
    ("echo $", "E-SHELL-VARIABLE", "$"),
    ("echo $(date)", "E-SHELL-SUBSTITUTION", "$(date)"),
    ('echo "now: $(date +%s)"', "E-SHELL-SUBSTITUTION", "$(date +%s)"),
    ("echo `date`", "E-SHELL-SUBSTITUTION", "`date`"),
    ("echo $(ls | wc -l)", "E-SHELL-SUBSTITUTION", "$(ls | wc -l)"),
    ("diff <(ls a) b", "E-SHELL-PROCESS-SUBSTITUTION", "<(ls a)"),
    ("tee >(gzip)", "E-SHELL-PROCESS-SUBSTITUTION", ">(gzip)"),
    ("(cd /tmp && ls)", "E-SHELL-SUBSHELL", "(cd /tmp && ls)"),
    ("{ ls; }", "E-SHELL-SUBSHELL", "{ ls; }"),
    ("ls *.txt", "E-SHELL-GLOB", "*"),
    ("ls file?.txt", "E-SHELL-GLOB", "?"),
    ("ls [ab].txt", "E-SHELL-GLOB", "["),
    ("curl https://x.com/search?q={{q}}", "E-SHELL-GLOB", "?"),
    ("echo {a,b}", "E-SHELL-BRACE", "{a,b}"),
    ("touch f{1..3}.txt", "E-SHELL-BRACE", "{1..3}"),
    ("echo $((1+1))", "E-SHELL-ARITHMETIC", "$((1+1))"),
    ("echo $[1+1]", "E-SHELL-ARITHMETIC", "$[1+1]"),
    ("((x = 1))", "E-SHELL-ARITHMETIC", "((x = 1))"),
    ("case x in a) ls;; esac", "E-SHELL-COMPOUND", "case"),
    ("time ls", "E-SHELL-COMPOUND", "time"),
    ("if true; then ls; fi", "E-SHELL-COMPOUND", "if true; then ls; fi"),
    ("for f in a b; do echo x; done", "E-SHELL-COMPOUND", "for f in a b"),
    ("while true; do ls; done", "E-SHELL-COMPOUND", "while true"),
    ("f() { ls; }", "E-SHELL-COMPOUND", "f() { ls; }"),
    ("printf $'a\\tb'", "E-SHELL-ANSI-C", "$'a\\tb'"),
    ('echo $"hello"', "E-SHELL-LOCALE", '$"'),
    ("sleep 5 &", "E-SHELL-BACKGROUND", "&"),
    ("! grep -q x f", "E-SHELL-NEGATION", "!"),
    ("LANG=C ls", "E-SHELL-ASSIGNMENT", "LANG=C"),
    ("ls -la # list everything", "E-SHELL-COMMENT", "# list everything"),
    ('echo "unterminated', "E-TEMPLATE-SYNTAX", '"unterminated'),
    ("echo 'unterminated", "E-TEMPLATE-SYNTAX", "'unterminated"),
    ("echo a\\", "E-TEMPLATE-SYNTAX", "\\"),
    ("echo )", "E-TEMPLATE-SYNTAX", ")"),
    ("echo \x00", "E-TEMPLATE-SYNTAX", "NUL"),
    ("", "E-EMPTY-COMMAND", "empty"),
    ("  \n\t\n", "E-EMPTY-COMMAND", "empty"),
]


@pytest.mark.parametrize(("source", "code", "snippet"), REJECTED)
def test_rejected_construct_has_its_own_code(source: str, code: str, snippet: str) -> None:
    template, diags = parse_template(source, file="s/SKILL.md", line=12)
    assert template is None
    errors = [d for d in diags if d.is_error]
    assert {d.code for d in errors} == {code}, [d.format() for d in diags]
    assert code in CODES
    for d in errors:
        assert snippet in d.message
        assert d.file == "s/SKILL.md"
        assert d.line is not None and d.line >= 12


@pytest.mark.parametrize(
    "source",
    [s for s, code, _ in REJECTED if code.startswith("E-SHELL-") and "COMMENT" not in code],
)
def test_shell_construct_messages_say_what_to_do(source: str) -> None:
    _, diags = parse_template(source)
    message = diags[0].message
    assert any(hint in message for hint in ("scripts/", "quote", "Quote", "Drop", "Write"))


def test_new_codes_are_listed() -> None:
    new = {"E-RELATIVE-PROGRAM", "W-RELATIVE-ARGUMENT", "E-PLACEHOLDER-COMMAND-POSITION"}
    assert new | {"E-PLACEHOLDER-IN-HOST"} <= CODES.keys()


def test_several_constructs_are_all_reported() -> None:
    assert error_codes("cat a | grep b > out") == {"E-SHELL-PIPE", "E-SHELL-REDIRECT"}


def test_error_line_is_offset_within_the_block() -> None:
    source = "rsync -a \\\n  --delete \\\n  src/ dst/ > log.txt"
    _, diags = parse_template(source, file="f.md", line=20)
    assert [(d.code, d.line) for d in diags] == [("E-SHELL-REDIRECT", 22)]


def test_no_file_or_line_given() -> None:
    _, diags = parse_template("ls | wc")
    assert diags[0].file is None and diags[0].line is None


@pytest.mark.parametrize(
    "source",
    [
        "echo '$HOME' '*' '?' '[a]' '{a,b}' '|' '&&' ';' '>' '#' '`x`' '$(x)'",
        'echo "*" "?" "[a]" "{a,b}" "|" ";" ">" "#" "\\$HOME" "\\`x\\`"',
        "echo \\* \\? \\[ \\| \\; \\> \\$HOME \\#",
        "echo a#b done if time",
        "find . -name x -exec rm {} \\;",
        "echo 'it'\\''s'",
        "echo hi!",
    ],
)
def test_quoted_or_escaped_specials_are_plain_text(source: str) -> None:
    assert error_codes(source) == set()


# ---------------------------------------------------------------------------------------
# Quote removal


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("""echo a"b c"'d'""", ["echo", "ab cd"]),
        ('echo "a\\"b"', ["echo", 'a"b']),
        ("echo 'a\\\"b'", ["echo", 'a\\"b']),
        ('echo "a\\\\b" "a\\qb"', ["echo", "a\\b", "a\\qb"]),
        ('echo "a\\$b" "a\\`b"', ["echo", "a$b", "a`b"]),
        ("echo a\\ b", ["echo", "a b"]),
        ("echo \\'x\\\"", ["echo", "'x\""]),
        ("echo '' \"\"", ["echo", "", ""]),
        ('echo "it\'s"', ["echo", "it's"]),
        ("echo 'a b'  \"c  d\"\te", ["echo", "a b", "c  d", "e"]),
        ("git log \\\n  --oneline \\\n  -n 3", ["git", "log", "--oneline", "-n", "3"]),
        ("echo ab\\\ncd", ["echo", "abcd"]),
        ('echo "ab\\\ncd"', ["echo", "abcd"]),
        ("echo 'ab\\\ncd'", ["echo", "ab\\\ncd"]),
        ("echo 'two\nlines'", ["echo", "two\nlines"]),
        ("\n\n  echo x  \n\n", ["echo", "x"]),
        ("echo a\r\n", ["echo", "a"]),
        ("echo caf\u00e9 a\u00a0b", ["echo", "caf\u00e9", "a\u00a0b"]),
    ],
)
def test_quote_removal(source: str, expected: list[str]) -> None:
    assert texts(source) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("plain", "plain"),
        ("""a"b c"'d'""", "ab cd"),
        ("'$x'", "$x"),
        ('"\\$x"', "$x"),
        ('"\\n"', "\\n"),
        ("\\n", "n"),
        ("a\\\nb", "ab"),
        ("trailing\\", "trailing\\"),
        ("''", ""),
    ],
)
def test_remove_quotes(raw: str, expected: str) -> None:
    assert remove_quotes(raw) == expected


# ---------------------------------------------------------------------------------------
# Placeholders


def test_placeholder_forms() -> None:
    words = fragments(
        "tool {{a}} {{ b }} {{c:some default}} {{d:-f}} {{e:--flag}} {{f:--flag=}} {{g:}}"
    )
    assert words[1:] == [
        (Placeholder("a"),),
        (Placeholder("b"),),
        (Placeholder("c", PlaceholderKind.DEFAULT, "some default"),),
        (Placeholder("d", PlaceholderKind.FLAG, "-f"),),
        (Placeholder("e", PlaceholderKind.FLAG, "--flag"),),
        (Placeholder("f", PlaceholderKind.FLAG_EQUALS, "--flag="),),
        (Placeholder("g", PlaceholderKind.DEFAULT, ""),),
    ]


def test_placeholders_inside_words_and_quotes() -> None:
    words = fragments("""x --name={{n}} "a {{b}} c" 'q{{c}}' pre{{d}}{{e}}post""")
    assert words[1] == (Literal("--name="), Placeholder("n"))
    assert words[2] == (Literal("a "), Placeholder("b"), Literal(" c"))
    assert words[3] == (Literal("q"), Placeholder("c"))
    assert words[4] == (Literal("pre"), Placeholder("d"), Placeholder("e"), Literal("post"))


def test_placeholder_with_quoted_whole_word_is_still_whole() -> None:
    template, _ = parse_template('x "{{files}}"')
    assert template is not None
    assert template.words[1].whole_placeholder == Placeholder("files")


def test_placeholder_text_is_never_seen_as_shell_syntax() -> None:
    # a default may hold characters that would be shell syntax outside a placeholder
    words = fragments("x {{sep:a;b|c*}} {{when:now && later}}")
    assert words[1] == (Placeholder("sep", PlaceholderKind.DEFAULT, "a;b|c*"),)
    assert words[2] == (Placeholder("when", PlaceholderKind.DEFAULT, "now && later"),)


@pytest.mark.parametrize(
    "source",
    [
        'docker inspect -f "{{.State.Status}}"',
        "x {{1abc}}",
        "x {{my-param}}",
        "x {{name",
        "x {{}}",
        "x {{a:b{c}}",
        'x {{msg:"hello"}}',
        "x {{v:--bad flag}}",
        "x {{v:--}}",
    ],
)
def test_malformed_placeholder(source: str) -> None:
    template, diags = parse_template(source, line=3)
    assert template is None
    assert {d.code for d in diags} == {"E-PLACEHOLDER-SYNTAX"}
    assert diags[0].line == 3


@pytest.mark.parametrize("source", ["{{prog}} --help", "./{{script}}.sh", "py{{version}} x"])
def test_placeholder_as_program(source: str) -> None:
    _, diags = parse_template(source)
    assert [d.code for d in diags] == ["E-PLACEHOLDER-PROGRAM"]
    assert "program" in diags[0].message


@pytest.mark.parametrize("source", ["x a{{v:--verbose}}", "x {{v:--name=}}.txt", "x -{{v:-f}}"])
def test_flag_placeholder_must_be_its_own_word(source: str) -> None:
    assert error_codes(source) == {"E-FLAG-PLACEHOLDER-NOT-WORD"}


def test_flag_placeholder_may_be_quoted() -> None:
    assert fragments('x "{{v:--verbose}}"')[1] == (
        Placeholder("v", PlaceholderKind.FLAG, "--verbose"),
    )


# ---------------------------------------------------------------------------------------
# Inline code for shells and interpreters


@pytest.mark.parametrize(
    "source",
    [
        'sh -c "echo hi"',
        "bash -lc 'ls -la'",
        "/bin/bash -c 'ls'",
        "zsh -c ls",
        "dash -c ls",
        "python -c 'print(1)'",
        "python3 -c 'print(1)'",
        "python3.12 -c 'print(1)'",
        "node -e 'console.log(1)'",
        "node --eval=1",
        "perl -ne 'print'",
        "ruby -e 'puts 1'",
        "osascript -e 'beep'",
        "ssh host sh -c 'uptime'",
    ],
)
def test_inline_code_is_a_warning(source: str) -> None:
    template, diags = parse_template(source)
    assert template is not None
    assert [(d.code, d.severity) for d in diags] == [("W-INLINE-SHELL", Severity.WARNING)]


@pytest.mark.parametrize(
    "source",
    [
        'sh -c "echo {{msg}}"',
        "bash -c 'grep {{pattern}} file'",
        "python3 -c 'print({{x}})'",
        "node -e {{code}}",
        "node --eval={{code}}",
        "perl -e 'print \"{{x}}\"'",
        "osascript -e 'display notification \"{{text}}\"'",
    ],
)
def test_placeholder_inside_inline_code_is_an_error(source: str) -> None:
    template, diags = parse_template(source)
    assert template is None
    assert {d.code for d in diags} == {"E-PLACEHOLDER-IN-INLINE-CODE"}
    assert "injection" in diags[0].message


def test_value_passed_after_inline_code_is_the_safe_pattern() -> None:
    template, diags = parse_template("""sh -c 'printf "%s\\n" "$1"' sh {{msg}}""")
    assert template is not None
    assert [d.code for d in diags] == ["W-INLINE-SHELL"]


@pytest.mark.parametrize(
    "source",
    [
        "grep -c {{x}} file",
        "bash /opt/tools/run.sh {{x}}",
        "python3 script.py -c {{x}}",
        "python3 -m http.server {{port}}",
        "python3 -X utf8 /opt/x.py -c {{x}}",
        "node server.js -p {{port}}",
        "node --inspect server.js -p {{port}}",
        "sed -n '1,5p' {{file}}",
        "sed -i -e 's/a/b/' -- {{file}}",
        "sudo -u root ls {{x}}",
        "timeout 5 ls -- {{x}}",
        "env LANG={{lang}} sort f",
        "command -v {{x}}",
        "sudo -l {{x}}",
        "watch -x ls {{x}}",
        "runuser -u bob -- ls {{x}}",
        "find . -name {{n}} -exec rm {} +",
        "apt-get install -y python3 {{pkg}}",
        "kubectl get node {{name}} -o wide",
    ],
)
def test_not_inline_code(source: str) -> None:
    assert parse_template(source)[1] == []


def test_remote_command_after_a_value_host_is_literal_code() -> None:
    # the host is data; the words after it are a remote shell command (literal: a warning)
    template, diags = parse_template("ssh {{host}} -- /usr/bin/true")
    assert template is not None
    assert [(d.code, d.severity) for d in diags] == [("W-INLINE-SHELL", Severity.WARNING)]


# Each of these once loaded without any error: options with values, `--`, attached code, flag placeholders, wrappers,
# and programs that were not known to take code.
INLINE_CODE_BYPASSES = [
    "bash -o pipefail -c 'grep {{x}} f'",
    "bash --rcfile /dev/null -c 'echo {{x}}'",
    "bash +o posix -c 'echo {{x}}'",
    "bash -O extglob -c 'echo {{x}}'",
    "python3 -X utf8 -c 'print(\"{{x}}\")'",
    "python3 -W ignore -c '{{x}}'",
    "perl -I lib -e 'print \"{{x}}\"'",
    "bash -c -- 'echo {{x}}'",
    "python3 -c{{x}}",
    "perl -e{{x}}",
    "perl -lne '{{x}}'",
    "bash -c'echo {{x}}'",
    "node --print={{x}}",
    "bash {{c:-c}} 'echo {{x}}'",
    "bash {{c:-c}} 'echo hi'",
    "node {{e:--eval=}}",
    "python3 {{c:-c}} ls",
    "bash -{{opts}} 'echo hi'",
    "python3 -Z unknown /opt/x.py -c '{{x}}'",
    # through programs that run a program
    "env -i FOO=1 bash -c 'echo {{x}}'",
    "env - sh -c '{{x}}'",
    "nice -n 5 sh -c '{{x}}'",
    "nohup bash -c {{x}}",
    "timeout -s KILL 5 bash -c 'x {{y}}'",
    "stdbuf -oL python3 -c '{{x}}'",
    "sudo -u root bash -c '{{x}}'",
    "doas sh -c '{{x}}'",
    "flock /tmp/lock sh -c '{{x}}'",
    "xargs -I R sh -c 'echo R {{x}}'",
    "busybox sh -c '{{x}}'",
    "setsid -f sh -c '{{x}}'",
    "/usr/bin/env bash -c '{{x}}'",
    "find . -exec sh -c 'echo {{x}}' \\;",
    "find . -execdir bash -c '{{x}}' {} +",
    "docker run --rm img bash -c 'echo {{x}}'",
    "kubectl exec pod -- sh -c 'cat {{x}}'",
    # programs whose arguments are code
    "awk '{print \"{{x}}\"}' file",
    "gawk -F: -e '{{x}}' file",
    "awk --source='{{x}}' file",
    "sed 's/a/{{y}}/e' file",
    "sed -n -e 's/a/{{y}}/' file",
    "sed --expression='s/{{y}}//' file",
    "watch -n 1 'echo {{x}}'",
    "watch df -h {{x}}",
    "ssh host 'cat {{f}}'",
    "ssh -p 22 host ls {{dir}}",
    "ssh -o {{option}} host",
    "ssh -oProxyCommand={{x}} host",
    "su -c 'echo {{x}}' root",
    "runuser -c 'x {{y}}' bob",
    "flock /tmp/lock -c 'echo {{x}}'",
    "script -q -c 'echo {{x}}' /dev/null",
    "env -S 'echo {{x}}'",
    "env --split-string='a {{x}}'",
    "env -S{{x}}",
    "parallel echo {{x}} ::: a b",
    "sudo -s echo {{x}}",
    "pwsh -NoProfile -Command Get-Item {{x}}",
    "php -d {{setting}} /opt/x.php",
    "env LD_PRELOAD={{x}} ls",
]


@pytest.mark.parametrize("source", INLINE_CODE_BYPASSES)
def test_code_given_to_a_program_may_not_hold_a_placeholder(source: str) -> None:
    template, diags = parse_template(source)
    assert template is None
    assert {d.code for d in diags} == {"E-PLACEHOLDER-IN-INLINE-CODE"}, [d.format() for d in diags]
    assert "injection" in diags[0].message


@pytest.mark.parametrize(
    "source",
    [
        "bash -o pipefail -c 'ls -la'",
        "bash -c -- 'ls'",
        "env -i bash -c 'ls'",
        "timeout 5 sh -c ls",
        "sudo bash -c ls",
        "awk -F: '{print $1}' /etc/passwd",
        "awk -v name={{x}} '{print name}' f",
        "watch df -h",
        "ssh host uptime",
        "flock /tmp/lock -c 'ls'",
        "find . -exec sh -c 'ls' \\;",
        "su -c ls root",
        "script -q -c ls /dev/null",
        "env -S 'ls -l'",
        "parallel echo ::: a b",
        "pwsh -NoProfile -c Get-Date",
        "docker run --rm img sh -c 'ls'",
    ],
)
def test_literal_code_for_more_programs_is_a_warning(source: str) -> None:
    template, diags = parse_template(source)
    assert template is not None
    assert [(d.code, d.severity) for d in diags] == [("W-INLINE-SHELL", Severity.WARNING)]


def test_sed_scripts_written_out_are_not_warned_about() -> None:
    assert parse_template("sed -n 's/a/b/p' file")[1] == []
    assert parse_template("sed -e 's/a/b/' -e '/x/d' file")[1] == []


# ---------------------------------------------------------------------------------------
# A value may not choose what runs


@pytest.mark.parametrize(
    "source",
    [
        "env {{x}}",
        "env -i FOO=1 {{x}} a",
        "env - {{x}}",
        "xargs {{x}}",
        "xargs -0 -n 1 {{x}}",
        "timeout 5 {{x}}",
        "timeout --signal=KILL 5s {{x}} a",
        "nice {{x}}",
        "nice -n 10 {{x}}",
        "nohup {{x}}",
        "sudo {{x}}",
        "sudo -u root -- {{x}}",
        "doas {{x}}",
        "stdbuf -oL {{x}}",
        "flock /tmp/lock {{x}}",
        "exec {{x}}",
        "command {{x}}",
        "nice time {{x}}",
        "setsid {{x}}",
        "chroot /srv {{x}}",
        "busybox {{x}}",
        "systemd-run --user {{x}}",
        "watch -x {{x}}",
        "runuser -u bob -- {{x}}",
        "nohup ./{{x}}.sh",
        "find . -exec {{x}} {} +",
        "find . -name a -ok {{x}} \\;",
        "timeout 5 nice {{x}}",
        # an interpreter's script or module is what runs too
        "python3 {{script}}",
        "python3 -u -- {{script}}",
        "bash -- {{script}}",
        "bash -x /opt/{{name}}.sh",
        "python3 -m {{module}}",
        "node -r {{module}} app.js",
        "node --import={{module}} app.js",
        "perl -M{{module}} -e 1",
        "ruby -r{{lib}} app.rb",
        "awk -f {{file}} data",
        "sed -f {{file}} data",
        "su root {{x}}",
        "su -s {{shell}} root",
    ],
)
def test_placeholder_choosing_what_a_program_runs_is_an_error(source: str) -> None:
    template, diags = parse_template(source)
    assert template is None
    assert "E-PLACEHOLDER-COMMAND-POSITION" in {d.code for d in diags}, [d.format() for d in diags]
    assert {d.code for d in diags} <= {
        "E-PLACEHOLDER-COMMAND-POSITION",
        "W-INLINE-SHELL",
        "W-RELATIVE-ARGUMENT",
    }
    message = next(d.message for d in diags if d.code == "E-PLACEHOLDER-COMMAND-POSITION")
    assert "never choose" in message


@pytest.mark.parametrize(
    ("source", "params", "bad"),
    [
        ("sudo -u {{user}} ls {{x}}", [P("user", T.STRING, False), P("x", T.STRING, True)], "user"),
        ("timeout {{secs}} ls", [P("secs", T.INTEGER, False)], "secs"),
        ("timeout {{secs}} ls", [P("secs", T.ARRAY, True)], "secs"),
        ("nice -n {{n}} ls", [P("n", T.INTEGER, False)], "n"),
        ("timeout {{v:--verbose}} 5 ls", [P("v", T.STRING, False)], "v"),
        ("timeout {{s:-s}} 5 ls", [P("s", T.BOOLEAN, False)], "s"),
        (
            "python3 -W {{w}} /opt/x.py {{a}}",
            [P("w", T.STRING, False), P("a", T.STRING, True)],
            "w",
        ),
    ],
)
def test_value_that_could_move_the_program_is_an_error(
    source: str, params: list[ParameterDefinition], bad: str
) -> None:
    template, diags = parse_template(source)
    assert template is not None and diags == []
    found = check_template(template, params, file="f", line=3)
    assert [(d.code, d.severity) for d in found] == [
        ("E-PLACEHOLDER-COMMAND-POSITION", Severity.ERROR)
    ]
    assert f"'{bad}'" in found[0].message and found[0].line == 3


@pytest.mark.parametrize(
    ("source", "params"),
    [
        ("sudo -u {{user}} ls {{x}}", [P("user", T.STRING, True), P("x", T.STRING, True)]),
        ("sudo --user={{user}} ls {{x}}", [P("user", T.STRING, False), P("x", T.STRING, True)]),
        ("sudo -u{{user}} ls", [P("user", T.STRING, False)]),
        ("timeout {{secs}} ls", [P("secs", T.INTEGER, True)]),
        ("timeout {{secs}} ls", [P("secs", T.INTEGER, False, default=5)]),
        ("timeout {{secs:5}} ls", [P("secs", T.INTEGER, False)]),
        ("timeout {{v:--verbose}} 5 ls", [P("v", T.BOOLEAN, False)]),
        ("timeout {{s:-s}} 5 ls", [P("s", T.STRING, False)]),
        ("timeout {{s:--signal=}} 5 ls", [P("s", T.ARRAY, False)]),
        ("python3 /opt/x.py -W {{w}}", [P("w", T.STRING, False)]),
        ("ls -n {{n}} {{files}}", [P("n", T.INTEGER, False), P("files", T.ARRAY, False)]),
    ],
)
def test_values_that_are_always_one_word_may_come_before_the_program(
    source: str, params: list[ParameterDefinition]
) -> None:
    template, _ = parse_template(source)
    assert template is not None
    assert check_template(template, params) == []


@pytest.mark.parametrize("source", ["scripts/tool.sh", "bin/x --help", "../x.sh", "~user/bin/x"])
def test_relative_program_is_an_error(source: str) -> None:
    template, diags = parse_template(source, line=4)
    assert template is None
    assert [(d.code, d.line) for d in diags] == [("E-RELATIVE-PROGRAM", 4)]
    assert "working folder" in diags[0].message


def test_relative_program_message_shows_the_fix() -> None:
    _, diags = parse_template("scripts/tool.sh {{x}}")
    assert "`./scripts/tool.sh`" in diags[0].message


@pytest.mark.parametrize(
    "source", ["./scripts/tool.sh", "/usr/bin/git", "~/bin/tool", "git status", "./tool"]
)
def test_programs_that_are_not_relative(source: str) -> None:
    assert parse_template(source)[1] == []


@pytest.mark.parametrize(
    "source",
    [
        "python3 ./scripts/x.py",
        "bash ./scripts/run.sh {{x}}",
        "rg todo ./src",
        "x ../notes.txt",
        "x --config=./settings.toml",
        "cat ./{{name}}.txt",
        "x --out=./{{name}}",
        "timeout 5 scripts/x.sh",
    ],
)
def test_relative_argument_is_a_warning(source: str) -> None:
    template, diags = parse_template(source)
    assert template is not None
    assert [(d.code, d.severity) for d in diags] == [("W-RELATIVE-ARGUMENT", Severity.WARNING)]
    assert "working folder" in diags[0].message


@pytest.mark.parametrize("source", ["find ./ -name x", "ls .", "x a/./b", "x ../", "x -- -./y"])
def test_arguments_that_are_not_relative_paths(source: str) -> None:
    assert parse_template(source)[1] == []


# ---------------------------------------------------------------------------------------
# URL query placeholders


def test_url_query_placeholders_are_marked() -> None:
    word = fragments('curl "https://api.com/{{user}}/repos?q={{query}}&n={{limit}}"')[1]
    marks = {f.name: f.in_url_query for f in word if isinstance(f, Placeholder)}
    assert marks == {"user": False, "query": True, "limit": True}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x 'HTTP://a.b/?q={{v}}'", True),
        ("x 'ftp://a.b/?q={{v}}'", False),
        ("x 'see?{{v}}'", False),
        ("x {{v}}", False),
        ("x '--url=https://a.b/?q={{v}}'", True),
        ("x url=HTTPS://a.b/p#{{v}}", True),
        ("x 'https://a.b/p/{{v}}'", False),
        ("x 'https://a.b?{{v}}'", True),
    ],
)
def test_url_query_only_in_http_words(source: str, expected: bool) -> None:
    word = fragments(source)[1]
    assert [f.in_url_query for f in word if isinstance(f, Placeholder)] == [expected]


@pytest.mark.parametrize(
    "source",
    [
        "curl 'https://{{host}}/x'",
        "curl 'https://{{sub}}.example.com/'",
        "curl 'https://api.example.com{{path}}'",
        "curl 'https://api.example.com:{{port}}/'",
        "curl 'https://user:{{password}}@api.example.com/'",
        "curl '--url=https://{{host}}/x?q=1'",
        "curl 'http://a.b{{x}}/?q=1'",
        "x HTTPS://{{host}}",
        # before `://`, a value writes the whole URL (`http://127.0.0.1:18500/?`)
        "curl -s {{scheme}}://api.example.com/items/{{item}}",
        "curl '--url={{scheme}}://api.example.com/'",
        "x {{a}}s://b.c/",
        "git clone {{proto}}://host/repo",
    ],
)
def test_placeholder_in_url_host_is_an_error(source: str) -> None:
    template, diags = parse_template(source, line=2)
    assert template is None
    assert [(d.code, d.line) for d in diags] == [("E-PLACEHOLDER-IN-HOST", 2)]
    assert "host" in diags[0].message


@pytest.mark.parametrize(
    "source",
    [
        "curl 'https://api.example.com/{{user}}/repos?q={{q}}'",
        "curl 'https://api.example.com?q={{q}}'",
        "curl 'https://api.example.com#{{anchor}}'",
        "curl 'https://api.example.com/x' {{more}}",
        "curl {{url}}",
        "echo 'see {{x}} at https://a.b/'",
        "echo '{{x}} at ftp://a.b/'",
    ],
)
def test_placeholders_outside_the_url_host_are_fine(source: str) -> None:
    assert parse_template(source)[1] == []


# ---------------------------------------------------------------------------------------
# check_template


def check(source: str, *params: ParameterDefinition) -> list[tuple[str, Severity]]:
    template, diags = parse_template(source, line=5)
    assert template is not None, diags
    return [(d.code, d.severity) for d in check_template(template, params, file="f")]


def test_check_clean() -> None:
    assert check("git log -n {{count}}", P("count", T.INTEGER, True)) == []


def test_unknown_placeholder() -> None:
    template, _ = parse_template("x {{nmae}} \\\n  {{nmae:--n=}}", line=5)
    assert template is not None
    diags = check_template(template, [P("name", T.STRING, False)], file="f")
    errors = [d for d in diags if d.code == "E-UNKNOWN-PLACEHOLDER"]
    assert len(errors) == 1  # once per name
    assert "nmae" in errors[0].message and "name" in errors[0].message
    assert errors[0].file == "f" and errors[0].line == 5


def test_unknown_placeholder_line_is_where_it_appears() -> None:
    template, _ = parse_template("x \\\n  --a \\\n  {{ghost}}", line=10)
    assert template is not None
    (diag,) = check_template(template, [])
    assert diag.line == 12


def test_unused_parameter_is_a_warning() -> None:
    template, _ = parse_template("ls", line=5)
    assert template is not None
    (diag,) = check_template(template, [P("path", T.STRING, False, line=3)])
    assert (diag.code, diag.severity, diag.line) == ("W-UNUSED-PARAMETER", Severity.WARNING, 3)
    assert "path" in diag.message


def test_flag_equals_on_boolean() -> None:
    assert check("x {{v:--verbose=}}", P("v", T.BOOLEAN, False)) == [
        ("E-FLAG-EQUALS-BOOLEAN", Severity.ERROR)
    ]


@pytest.mark.parametrize(
    ("ptype", "default", "ok"),
    [
        (T.INTEGER, "10", True),
        (T.INTEGER, "ten", False),
        (T.INTEGER, "1.5", False),
        (T.NUMBER, "1.5", True),
        (T.NUMBER, "nan", False),
        (T.BOOLEAN, "yes", True),
        (T.BOOLEAN, "maybe", False),
        (T.STRING, "anything at all", True),
        (T.ARRAY, "one item", True),
    ],
)
def test_placeholder_default_must_fit_the_type(ptype: T, default: str, ok: bool) -> None:
    result = check(f"x {{{{v:{default}}}}}", P("v", ptype, False))
    assert result == ([] if ok else [("E-BAD-PLACEHOLDER-DEFAULT", Severity.ERROR)])


def test_default_on_required_parameter_warns() -> None:
    assert check("x {{v:5}}", P("v", T.INTEGER, True)) == [
        ("W-DEFAULT-ON-REQUIRED", Severity.WARNING)
    ]


def test_conflicting_defaults_warn() -> None:
    assert check("x {{v:5}}", P("v", T.INTEGER, False, default=6)) == [
        ("W-CONFLICTING-DEFAULT", Severity.WARNING)
    ]
    assert check("x {{v:5}}", P("v", T.INTEGER, False, default=5)) == []


# ---------------------------------------------------------------------------------------
# Fast path == bashlex path

TYPICAL = [
    "git log -n {{count}} --oneline",
    'curl -s "https://api.github.com/search/repositories?q={{query}}&per_page={{limit:5}}"',
    "./scripts/summarize.py --input {{path}} {{verbose:--verbose}} {{model:--model=}}",
    "git status --short --branch",
    "rg --json -n {{pattern}} -- {{paths}}",
    "python3 ./scripts/convert.py \\\n  --from {{src}} \\\n  --to {{dst}} \\\n  {{force:--force}}",
    'notify-send "Gibberish" "{{message}}"',
    'xdg-open "https://duckduckgo.com/?q={{query}}"',
    "ffmpeg -i {{input}} -vf scale={{width:1280}}:-2 {{output}}",
    'echo \'a b\' "c\\"d" e\\ f',
    "x 'it''s' \"{{a}}\" '{{b}}' pre{{c}}post",
    "ls \\\n  -la",
    'x "two\nlines" ~/a ~ -- {{a}}',
    "sh -c 'echo hi' sh {{x}}",
    "{{prog}} x",
    "x a{{v:--flag}}",
    'python3 -c "print({{x}})"',
    '"if" then',
    "timeout 5 \\\n  bash -o pipefail -c 'grep {{x}} f'",
    "sudo -u {{user}} \\\n  env -i {{prog}}",
    "scripts/tool.sh \\\n  ./data {{x}}",
    "curl \\\n  'https://{{host}}/a/{{b}}?q={{q}}'",
    "ssh host \\\n  uptime {{x}}",
]


@pytest.mark.parametrize("source", TYPICAL)
def test_fast_path_equals_bashlex_path(source: str) -> None:
    marked, _, problems = templates._find_placeholders(source)
    assert not problems and templates._fast_words(marked) is not None  # really fast
    fast = templates._parse(source, "f", 7, allow_fast=True)
    slow = templates._parse(source, "f", 7, allow_fast=False)
    assert fast == slow


def test_typical_templates_never_call_bashlex(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("bashlex was called")

    monkeypatch.setattr(bashlex, "parse", refuse)
    for source in TYPICAL:
        templates._parse(source, None, None, allow_fast=True)


def test_parse_template_result_does_not_depend_on_the_cache() -> None:
    for source in TYPICAL + [s for s, _, _ in REJECTED]:
        first = parse_template(source, file="a", line=3)
        again = parse_template(source, file="a", line=3)
        uncached = templates._parse(source.replace("\r\n", "\n"), "a", 3, allow_fast=True)
        assert first == again == uncached
        elsewhere = parse_template(source, file="b", line=40)
        assert [d.line for d in elsewhere[1]] == [
            None if d.line is None else d.line + 37 for d in first[1]
        ]


_PLAIN_CHARS = st.sampled_from(list("abcXYZ019-_./:=,%@+^~"))
_ANY_CHARS = st.characters(blacklist_characters="\x00\ue000\ue001", blacklist_categories=("Cs",))
_NAMES = st.sampled_from(["a", "b", "query", "n_2"])


_SPECIAL_PIECES = [
    *["\\\n", "{}", "'{{a}}'", '"x{{b}}y"', "if", "time", "A=", "x#y", "--", "\\"],
    # programs whose command lines are analysed, and paths and URLs
    *["sh", "-c", "-oL", "env", "sudo", "-u", "ssh", "awk", "sed", "python3", "-e"],
    *["https://a/", "'https://a.b/p?q='", "./x", "a/b", "-exec", ";"],
]


@st.composite
def _template_piece(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 9))
    if kind <= 3:
        return draw(st.text(_PLAIN_CHARS, min_size=1, max_size=6))
    if kind == 4:
        return "'" + draw(st.text(_ANY_CHARS, max_size=6)).replace("'", "") + "'"
    if kind == 5:
        inner = draw(st.text(_ANY_CHARS, max_size=6))
        inner = "".join(c if c not in '"\\$`' else "\\" + c for c in inner)
        return '"' + inner + '"'
    if kind == 6:
        return "\\" + draw(_ANY_CHARS.filter(lambda c: c != "\n"))
    if kind == 7:
        name = draw(_NAMES)
        mod = draw(st.sampled_from([None, "dflt", "two words", "-f", "--flag", "--flag="]))
        return "{{" + name + ("" if mod is None else ":" + mod) + "}}"
    if kind == 8:
        return draw(st.sampled_from(_SPECIAL_PIECES))
    return draw(st.sampled_from(list("|&;<>()*?[]{}#!$`\n")))  # forces the slow path


@st.composite
def _templates(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.lists(_template_piece(), min_size=1, max_size=4), max_size=6))
    seps = st.sampled_from([" ", "  ", "\t", " \\\n  ", "\\\n"])
    out = [draw(st.sampled_from(["", " ", "\n"]))]
    for word in words:
        out.append("".join(word))
        out.append(draw(seps))
    return "".join(out)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_templates())
def test_fast_and_slow_paths_agree_on_generated_templates(source: str) -> None:
    fast = templates._parse(source, "f", 1, allow_fast=True)
    slow = templates._parse(source, "f", 1, allow_fast=False)
    assert fast == slow


def test_generated_templates_mostly_take_the_fast_path() -> None:
    """Guards the property above against testing nothing: most inputs must be fast."""
    fast = 0
    total = 0

    @settings(max_examples=200, deadline=None, database=None, derandomize=True)
    @given(_templates())
    def count(source: str) -> None:
        nonlocal fast, total
        total += 1
        marked, _, problems = templates._find_placeholders(source)
        fast += not problems and templates._fast_words(marked) is not None

    count()
    assert fast > total // 4


# ---------------------------------------------------------------------------------------
# Differential test against bash itself: the words we see are the words bash passes

_BASH = shutil.which("bash")


@st.composite
def _literal_templates(draw: st.DrawFn) -> str:
    pieces = [p for p in draw(st.lists(_template_piece(), min_size=1, max_size=8))]
    pieces = [p for p in pieces if "{{" not in p and "~" not in p]
    seps = st.sampled_from([" ", "\t", " \\\n ", "\\\n"])
    return "printf '<%s>' " + "".join(p + draw(seps) for p in pieces)


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_literal_templates())
def test_words_match_what_bash_passes(source: str) -> None:
    template, _ = parse_template(source)
    assume(template is not None)
    result = subprocess.run(
        [_BASH, "--norc", "--noprofile", "-c", source],
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
        check=True,
    )
    ours = "".join(f"<{w.literal_text}>" for w in template.words[2:])
    assert result.stdout.decode("utf-8", "surrogateescape") == (ours or "<>")


# ---------------------------------------------------------------------------------------
# Edge cases found while hardening


def test_nested_brace_expansion_reported_once() -> None:
    _, diags = parse_template("echo {a,{b,c}} x{y{1,2}}")
    assert [d.message.split("`")[1] for d in diags] == ["{a,{b,c}}", "{1,2}"]


@pytest.mark.parametrize(
    "source",
    [
        "echo {} {a, b} a{b}c '{a,b}' {a\\,b}",
        "x {",
        "x {a..b\\}",
        "x {1..3..x} {aa..b} {1..a} {a...b} {..} {a..}",
        "x {},x} {x}}",
        "find . -exec rm {} +",
    ],
)
def test_braces_that_do_not_expand_are_text(source: str) -> None:
    assert error_codes(source) == set()


@pytest.mark.parametrize(
    ("source", "snippet"),
    [
        ("echo {#},}", "{#},}"),
        ("echo {a},b}", "{a},b}"),
        ("echo x{},a}", "{},a}"),
        ("echo {a..c},x}", "{a..c}"),
        ('echo {"a,b"..c}', '{"a,b"..c}'),
        ("echo a{,}", "{,}"),
        ("echo {a{b,c}}", "{b,c}"),
        ("echo {-1..1}", "{-1..1}"),
        ("echo {a..e..2}", "{a..e..2}"),
        ("echo {\\{,x}", "{\\{,x}"),
        ("echo {'}',x}", "{'}',x}"),
        ("echo {a,\\\nb}", "{a,"),
    ],
)
def test_brace_expansion_bash_would_perform_is_refused(source: str, snippet: str) -> None:
    _, diags = parse_template(source)
    assert {d.code for d in diags} == {"E-SHELL-BRACE"}, [d.format() for d in diags]
    assert snippet in diags[0].message


_BRACE_PIECES = st.sampled_from(
    ["{", "{", "}", "}", ",", "..", ".", "a", "b", "1", "-", "x", "'}'", '","', "\\,", "{}"]
)


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_BRACE_PIECES, min_size=1, max_size=9).map("".join))
def test_brace_expansion_is_flagged_exactly_when_bash_expands(word: str) -> None:
    """bash with and without brace expansion (`+B`) prints the same words exactly when
    the template parser finds no brace expansion."""
    source = "printf '<%s>' " + word
    _, diags = parse_template(source)
    codes = {d.code for d in diags}
    assume(codes <= {"E-SHELL-BRACE"})

    def run(*flags: str) -> bytes:
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
        done = subprocess.run(
            [_BASH, "--norc", "--noprofile", *flags, "-c", source],
            capture_output=True,
            env=env,
            check=True,
        )
        return done.stdout

    assert (run() != run("+B")) == ("E-SHELL-BRACE" in codes), word


def test_trailing_continuation_is_ignored() -> None:
    assert texts("git status \\\n") == ["git", "status"]
    assert texts("git status\\\n  \\\n") == ["git", "status"]


def test_escaped_trailing_blank_stays_in_the_word() -> None:
    assert texts("echo a\\ ") == ["echo", "a "]


def test_quoted_text_bashlex_cannot_handle_is_still_a_word() -> None:
    # bashlex fails on a backtick inside single quotes; only structure is asked of it
    source = "echo '`' |"
    assert error_codes(source) == {"E-TEMPLATE-SYNTAX"}  # the dangling pipe, not the quote
    assert texts("echo '`' \"x\"") == ["echo", "`", "x"]
    assert templates._parse("echo 'a`b'", None, None, allow_fast=False)[0] is not None


def test_overlong_template_is_refused() -> None:
    source = "echo " + "a" * templates.MAX_TEMPLATE_CHARS
    assert error_codes(source) == {"E-TEMPLATE-SYNTAX"}


@pytest.mark.parametrize(
    "source",
    [
        "x " + "{a," * 20_000,
        "x " + "{{" * 20_000,
        "x " + "a " * 20_000 + "$",
        "x " + "(" * 5_000,
        '"' + "a" * 50_000,
    ],
)
def test_pathological_input_is_rejected_or_parsed_in_linear_time(source: str) -> None:
    import time

    start = time.process_time()
    parse_template(source)
    assert time.process_time() - start < 5.0
