"""``gibberish install FOLDER`` as a whole process: what it imports, and the same answers
from the names looked up one by one as from a whole library (docs/adr/0089).

The process is the real ``python -m gibberish`` with its own HOME and XDG folders; what
it imported is read from ``-X importtime`` (the process ends with ``os._exit``, so an
exit hook would never run).
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gibberish import paths
from gibberish.install.lockfile import exclusive
from tests.helpers.builders import write_skill

NOT_NEEDED = (
    "PySide6",
    "gibberish.engine.core",
    "gibberish.engine",
    "gibberish.ui",
    "gibberish.export.sync_all",
    "gibberish.cli.sync_offer",
    "gibberish.install.update",
    "gibberish.runner.handle",
    "gibberish.trust.approvals",
    "pydantic",
    "starlette",
    "fastapi",
    "uvicorn",
    "mcp",
    "httpx",
    "keyring",
    "psutil",
    "filelock",
    "tomlkit",
    "tarfile",
    "zipfile",
    "logging.handlers",  # the log file is made when something is logged
    "tomllib",  # no settings file, no project: no TOML read
    "gibberish.settings",  # no settings file: nothing to read (docs/adr/0099)
    "gibberish.runner.sandbox",  # no tool runs; the notice is sandbox_status's
    "subprocess",
    "dataclasses",  # records are Structs, made without compiling methods (docs/adr/0100)
    "logging",  # nothing logged: the log file's set-up waits for a logger (docs/adr/0101)
    "platformdirs",  # the XDG folders are read by gibberish.paths (docs/adr/0101)
    "gibberish.cli.tray_start",  # a command line with a command never starts the tray
)


def _install(folder: Path, *extra: str, cwd: Path | None = None) -> tuple[int, str, set[str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gibberish", "--no-bundled", "install",
         str(folder), "-y", "--no-sync", *extra],
        capture_output=True, text=True, timeout=120, cwd=cwd or folder.parent,
        stdin=subprocess.DEVNULL, env=os.environ.copy(),
    )  # fmt: skip
    imported = set()
    other = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:"):
            imported.add(line.rsplit("|", 1)[1].strip())
        else:
            other.append(line)
    return done.returncode, done.stdout + "\n".join(other), imported


def _loaded(imported: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in imported)


def test_installing_a_folder_imports_only_what_an_install_needs(tmp_path: Path) -> None:
    skill = write_skill(tmp_path / "src", "alpha")
    code, output, imported = _install(skill)
    assert code == 0, output
    assert (paths.user_skills_dir() / "alpha" / "SKILL.md").is_file()
    assert "Installed alpha" in output
    assert {"gibberish.install.audit", "gibberish.install.transaction", "click"} <= imported
    loaded = [name for name in NOT_NEEDED if _loaded(imported, name)]
    assert loaded == [], loaded


COMMAND_TEMPLATES = (
    "gibberish.skills.templates",
    "gibberish.skills.template_params",
    "gibberish.skills.render",
    "gibberish.skills.programs",
)
"""What reads and checks a tool's command; an instruction skill has no command."""

INSTRUCTIONS = """---
name: minutes
description: How to keep meeting notes. Use when someone asks for minutes.
---

# Minutes

### Before the meeting

Write the agenda first:

```bash
mkdir -p notes && touch notes/agenda.md
```
"""


def test_an_instruction_skill_installs_without_the_command_templates(tmp_path: Path) -> None:
    skill = tmp_path / "src" / "minutes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(INSTRUCTIONS, encoding="utf-8")
    code, output, imported = _install(skill)
    assert code == 0, output
    assert (paths.user_skills_dir() / "minutes" / "SKILL.md").is_file()
    assert [m for m in COMMAND_TEMPLATES if m in imported] == []
    code, output, imported = _install(write_skill(tmp_path / "src", "alpha"))
    assert code == 0, output
    assert [m for m in COMMAND_TEMPLATES if m in imported] == list(COMMAND_TEMPLATES)


def test_with_no_settings_file_the_defaults_are_what_the_install_assumes(tmp_path: Path) -> None:
    from gibberish.settings import Settings, load_settings

    loaded = load_settings(tmp_path / "missing.toml")
    assert loaded.notices == ()
    assert loaded.settings.extra_skill_paths == Settings().extra_skill_paths == ()


def test_a_broken_settings_file_is_still_read_and_named(tmp_path: Path) -> None:
    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text("extra_skills_dirs = [\n", encoding="utf-8")
    skill = write_skill(tmp_path / "src", "alpha")
    code, output, imported = _install(skill)
    assert code == 0, output
    assert "note: Settings file" in output and "is not valid TOML" in output
    assert "gibberish.settings" in imported
    assert (paths.user_skills_dir() / "alpha" / "SKILL.md").is_file()


@pytest.mark.parametrize("switch", ["off", "0"])
def test_the_install_still_says_tools_would_run_without_a_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, switch: str
) -> None:
    monkeypatch.setenv("GIBBERISH_SANDBOX", switch)
    skill = write_skill(tmp_path / "src", "alpha")
    code, output, imported = _install(skill)
    assert code == 0, output
    assert "note: Tools run without a sandbox: the sandbox is turned off" in output
    assert "gibberish.runner.sandbox" not in imported


def test_the_install_says_so_when_bwrap_is_not_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    monkeypatch.setenv("PATH", str(bare))
    monkeypatch.delenv("GIBBERISH_SANDBOX", raising=False)  # not turned off: only missing
    skill = write_skill(tmp_path / "src", "alpha")
    code, output, _ = _install(skill)
    assert code == 0, output
    assert "note: Tools run without a sandbox: bwrap was not found on PATH." in output


def test_inside_a_project_the_engine_decides_as_before(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "gibberish.toml").write_text("[skills]\n", encoding="utf-8")
    skill = write_skill(tmp_path / "src", "alpha")
    code, output, imported = _install(skill, cwd=project)
    assert code == 0, output
    assert "gibberish.engine.core" in imported


@pytest.mark.parametrize("where", ["flag", "settings"])
def test_a_skill_of_your_own_elsewhere_is_still_refused(tmp_path: Path, where: str) -> None:
    mine = tmp_path / "mine"
    write_skill(mine, "alpha", command="echo mine")
    if where == "flag":
        args = ["--skills-dir", str(mine)]
    else:
        args = []
        paths.config_file().parent.mkdir(parents=True, exist_ok=True)
        paths.config_file().write_text(f"extra_skills_dirs = [{json.dumps(str(mine))}]\n")
    skill = write_skill(tmp_path / "src", "alpha")
    done = subprocess.run(
        [sys.executable, "-m", "gibberish", "--no-bundled", *args, "install", str(skill),
         "-y", "--no-sync"],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "alpha: would overwrite a skill of your own" in done.stderr
    assert "--replace" in done.stderr
    assert not (paths.user_skills_dir() / "alpha").exists()


def test_a_turned_off_or_missing_skill_elsewhere_is_no_conflict(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    write_skill(mine, "beta")
    (mine / "alpha").mkdir()  # a folder without SKILL.md is not a skill
    skill = write_skill(tmp_path / "src", "alpha")
    done = subprocess.run(
        [sys.executable, "-m", "gibberish", "--no-bundled", "--skills-dir", str(mine),
         "install", str(skill), "-y", "--no-sync"],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (paths.user_skills_dir() / "alpha" / "SKILL.md").is_file()


def test_the_install_lock_excludes_another_process_and_dies_with_it(tmp_path: Path) -> None:
    lock = tmp_path / "installed.json.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT);"
         "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)",
         str(lock)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(TimeoutError, match="another install"), exclusive(lock, timeout=0.3):
            pass
        got = threading.Event()

        def wait() -> None:
            with exclusive(lock, timeout=30):
                got.set()

        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(0.3)
        assert not got.is_set()
        holder.kill()  # the kernel drops a dead process's lock
        waiter.join(30)
        assert got.is_set()
    finally:
        holder.kill()
        holder.wait()


def test_the_lock_is_released_after_the_block(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    with exclusive(lock, timeout=1):
        fd = os.open(lock, os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    with exclusive(lock, timeout=1):
        pass
