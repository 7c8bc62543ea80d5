"""Counted nouns read right everywhere a person reads them: the CLI, the tray, export's
files, the compile page, the assistant's advice. No "1 skill(s)" anywhere in gibberish/."""

from __future__ import annotations

import re
from pathlib import Path

from gibberish.words import plural
from tests.conftest import REPO_ROOT
from tests.helpers.source_strings import string_literals

PACKAGE = REPO_ROOT / "gibberish"
S_IN_BRACKETS = re.compile(r"\w\(s\)")
"""“skill(s)”, “file(s)”, “http(s)”: a program talking, not a sentence."""


def test_plural_says_one_and_many() -> None:
    assert plural(1, "skill") == "1 skill"
    assert plural(2, "skill") == "2 skills"
    assert plural(0, "warning") == "0 warnings"
    assert plural(1, "match", "matches") == "1 match"
    assert plural(3, "match", "matches") == "3 matches"


def test_the_tray_says_counts_with_the_same_helper() -> None:
    from gibberish.ui import formatting

    assert formatting.plural is plural


def s_in_brackets() -> list[str]:
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, text in string_literals(path):
            if S_IN_BRACKETS.search(text):
                bad.append(f"{path.relative_to(REPO_ROOT)}:{line}: {text!r}")
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix in {".js", ".html"}:
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if S_IN_BRACKETS.search(line):
                    bad.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()!r}")
    return bad


def test_no_string_in_gibberish_says_s_in_brackets() -> None:
    """Every string a module can print or show, and the compile page's script: a count
    goes through ``plural`` ("1 skill", "2 skills"), a scheme is named ("http or https")."""
    assert s_in_brackets() == []


def test_the_check_finds_a_cli_message_and_a_page_script(tmp_path: Path, monkeypatch) -> None:
    """The scan sees an f-string's text, a plain string and a line of script, and leaves
    a docstring alone."""
    package = tmp_path / "gibberish"
    (package / "static").mkdir(parents=True)
    (package / "cli.py").write_text(
        '"""Runs the tool(s)."""\n'
        "def f(n):\n"
        '    """Prints file(s)."""\n'
        '    print(f"Install {n} skill(s)?")\n'
        '    return "not http(s)"\n',
        encoding="utf-8",
    )
    (package / "static" / "app.js").write_text("x = `${n} file(s)`;\n", encoding="utf-8")
    monkeypatch.setattr(f"{__name__}.PACKAGE", package)
    monkeypatch.setattr(f"{__name__}.REPO_ROOT", tmp_path)
    found = s_in_brackets()
    assert sorted(f.split(": ")[0] for f in found) == [
        "gibberish/cli.py:4",
        "gibberish/cli.py:5",
        "gibberish/static/app.js:1",
    ]
