"""``gibberish skills list|check|show|render`` as a person uses them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import BUNDLED_SKILLS, REPO_ROOT

BROKEN_PIPE = """
### bad

Pipes are not allowed.

#### Parameters

None.

#### Command

```bash
ls | wc -l
```
"""


def test_list_shows_a_table_with_every_skill(write_skill, invoke) -> None:
    write_skill("alpha")
    write_skill("beta", description="Second skill.")
    result = invoke("skills", "list")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == [
        "NAME",
        "VERSION",
        "TRUST",
        "KIND",
        "TOOLS",
        "STATUS",
        "DESCRIPTION",
    ]
    assert lines[1].split()[:6] == ["alpha", "1.0.0", "user", "tools", "1", "ok"]
    assert "Second skill." in lines[2]


def test_list_json_has_the_documented_shape(write_skill, invoke) -> None:
    write_skill("alpha", extra="modes: [Dev]\nread_only: true\ntimeout: 7\n")
    result = invoke("skills", "list", "--json")
    assert result.exit_code == 0
    [skill] = json.loads(result.output)
    for key in (
        "path",
        "name",
        "ok",
        "trust",
        "version",
        "description",
        "modes",
        "read_only",
        "always_ask",
        "timeout",
        "network",
        "tools",
        "diagnostics",
    ):
        assert key in skill
    assert skill["modes"] == ["Dev"] and skill["read_only"] is True and skill["timeout"] == 7
    [tool] = skill["tools"]
    assert tool["name"] == "say"
    assert tool["parameters"] == [
        {
            "name": "words",
            "type": "string",
            "required": True,
            "default": None,
            "description": "What to print",
        }
    ]
    assert tool["command"].strip() == "echo {{words}}"


def test_list_filters_by_mode(write_skill, invoke) -> None:
    write_skill("devonly", extra="modes: [Dev]\n")
    write_skill("everywhere")
    names = [
        s["name"]
        for s in json.loads(invoke("skills", "list", "--json", "--mode", "Meeting").output)
    ]
    assert names == ["everywhere"]


def test_check_prints_every_problem_with_file_and_line(write_skill, skills_root, invoke) -> None:
    write_skill("good")
    write_skill("piped", tools=BROKEN_PIPE)
    bad = skills_root / "noname"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nversion: 1.0.0\ndescription: x\n---\n", encoding="utf-8")
    result = invoke("skills", "check", str(skills_root))
    assert result.exit_code == 1
    out = result.output
    assert "E-SHELL-PIPE" in out
    pipe_line = next(line for line in out.splitlines() if "E-SHELL-PIPE" in line)
    path_part, line_no = pipe_line.split(": ")[0].rsplit(":", 1)
    assert path_part.endswith(os.path.join("piped", "SKILL.md"))
    text = (skills_root / "piped" / "SKILL.md").read_text().splitlines()
    assert "ls | wc -l" in text[int(line_no) - 1]
    assert "E-MISSING-FIELD" in out
    assert out.splitlines()[-1] == "3 skills checked: 3 errors, 0 warnings."


def test_check_exits_zero_with_only_warnings(write_skill, skills_root, invoke) -> None:
    write_skill("warned", extra="colour: blue\n")
    result = invoke("skills", "check", str(skills_root / "warned"))
    assert result.exit_code == 0, result.output
    assert "W-UNKNOWN-FIELD" in result.output


def test_check_json(write_skill, skills_root, invoke) -> None:
    write_skill("piped", tools=BROKEN_PIPE)
    result = invoke("skills", "check", "--json", str(skills_root))
    data = json.loads(result.output)
    assert data["ok"] is False and data["errors"] >= 1
    codes = [d["code"] for s in data["skills"] for d in s["diagnostics"]]
    assert "E-SHELL-PIPE" in codes


def test_check_agentskills_profile_allows_instruction_skills(tmp_path, invoke) -> None:
    folder = tmp_path / "writing-style"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: writing-style\ndescription: How we write docs.\n---\n\nUse short sentences.\n"
    )
    plain = invoke("skills", "check", str(folder))  # valid: an instruction skill, said so
    assert plain.exit_code == 0 and "Instruction skills" in plain.output
    assert invoke("skills", "check", "--profile", "agentskills", str(folder)).exit_code == 0
    (folder / "SKILL.md").write_text("---\nname: writing-style\n---\n\nNo description.\n")
    assert invoke("skills", "check", str(folder)).exit_code == 1


def test_check_of_a_missing_path_is_a_clear_error(invoke, tmp_path) -> None:
    result = invoke("skills", "check", str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert "no such file or folder" in result.output


def test_show_and_unknown_skill(write_skill, invoke) -> None:
    write_skill("alpha")
    shown = invoke("skills", "show", "alpha")
    assert shown.exit_code == 0 and "alpha.say" in shown.output and "echo {{words}}" in shown.output
    missing = invoke("skills", "show", "zeta")
    assert missing.exit_code == 1 and "No skill named 'zeta'" in missing.output


def test_render_prints_the_argv_without_running(write_skill, invoke, tmp_path) -> None:
    write_skill("alpha")
    marker = tmp_path / "ran"
    result = invoke(
        "skills", "render", "alpha.say", "--arg", f"words=$(touch {marker}); *", "--json"
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == ["echo", f"$(touch {marker}); *"]
    assert not marker.exists()


def test_render_reports_a_missing_parameter(write_skill, invoke) -> None:
    write_skill("alpha")
    result = invoke("skills", "render", "alpha.say")
    assert result.exit_code == 1
    assert "words" in result.output


def test_bundled_skills_all_pass_check(invoke) -> None:
    result = invoke("skills", "check", str(BUNDLED_SKILLS))
    assert result.exit_code == 0, result.output
    assert "0 errors, 0 warnings" in result.output


def test_console_script_lists_bundled_skills() -> None:
    """The README's first job before the tray: `gibberish skills list` shows the bundled skills."""
    result = subprocess.run(
        [sys.executable, "-m", "gibberish", "skills", "list"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    for name in ("git", "files", "system", "web", "notes"):
        assert any(line.split()[:1] == [name] for line in result.stdout.splitlines()), result.stdout
    assert "Traceback" not in result.stderr


def test_version_option(invoke) -> None:
    result = invoke("--version")
    assert result.exit_code == 0 and "gibberish" in result.output


def test_check_never_tracebacks_on_binary_file(tmp_path: Path, invoke) -> None:
    folder = tmp_path / "binary"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(b"\x00\xff\xfe garbage \x89PNG")
    result = invoke("skills", "check", str(folder))
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "SKILL.md" in result.output
