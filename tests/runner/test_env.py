"""The child environment: allowlist, block list, injected variables, secrets."""

from __future__ import annotations

from pathlib import Path

import pytest

from gibberish.runner import RunSpec, build_environment, new_run_id, run
from gibberish.runner.env import DEFAULT_PATH, is_blocked, sanitize_path

PARENT = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/home/ada",
    "USER": "ada",
    "LANG": "en_GB.UTF-8",
    "LC_ALL": "en_GB.UTF-8",
    "LC_TIME": "C",
    "TERM": "xterm-256color",
    "DISPLAY": ":0",
    "WAYLAND_DISPLAY": "wayland-0",
    "XDG_RUNTIME_DIR": "/run/user/1000",
    "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus",
    "XAUTHORITY": "/home/ada/.Xauthority",
    # not on the allowlist
    "SHELL": "/bin/bash",
    "PYTHONPATH": "/evil",
    "LD_PRELOAD": "/evil.so",
    "SSH_AUTH_SOCK": "/tmp/ssh-agent",
    # credentials
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "AWS_PROFILE": "prod",
    "GITHUB_TOKEN": "ghp_secret",
    "OPENAI_API_KEY": "sk-openai",
    "ANTHROPIC_API_KEY": "sk-ant",
    "MY_SERVICE_TOKEN": "svc-token",
    "DB_PASSWORD": "hunter2",
}

CREDENTIALS = (
    "AWS_SECRET_ACCESS_KEY",
    "GITHUB_TOKEN",
    "OPENAI_API_KEY",
    "MY_SERVICE_TOKEN",
    "DB_PASSWORD",
)


def _build(parent=PARENT, **kwargs) -> dict[str, str]:
    kwargs.setdefault("skill_name", "notes")
    kwargs.setdefault("skill_dir", Path("/skills/notes"))
    kwargs.setdefault("mode", "Dev")
    kwargs.setdefault("run_id", "abc123")
    return build_environment(parent, **kwargs)


def test_only_allowlisted_variables_are_inherited():
    env = _build()
    inherited = {name for name in env if not name.startswith("GIBBERISH_")}
    assert inherited == {
        "PATH",
        "HOME",
        "USER",
        "LANG",
        "LC_ALL",
        "LC_TIME",
        "TERM",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "XDG_RUNTIME_DIR",
        "DBUS_SESSION_BUS_ADDRESS",
        "XAUTHORITY",
    }
    assert env["HOME"] == "/home/ada"


def test_gibberish_variables_are_injected():
    env = _build()
    assert env["GIBBERISH_SKILL_NAME"] == "notes"
    assert env["GIBBERISH_SKILL_DIR"] == "/skills/notes"
    assert env["GIBBERISH_MODE"] == "Dev"
    assert env["GIBBERISH_RUN_ID"] == "abc123"


@pytest.mark.parametrize(
    "name",
    [
        "GITHUB_TOKEN",
        "MY_SERVICE_TOKEN",
        "API_KEY",
        "api_key",
        "CLIENT_SECRET",
        "DB_PASSWORD",
        "PASSWORD",
        "PASSWORD_FILE",
        "aws_region",
        "OPENAI_BASE_URL",
        "ANTHROPIC_MODEL",
        "LC_API_KEY",
    ],
)
def test_block_patterns_are_case_insensitive(name):
    assert is_blocked(name)


@pytest.mark.parametrize("name", ["PATH", "HOME", "LANG", "LC_ALL", "KEYBOARD", "TOKENIZER"])
def test_ordinary_names_are_not_blocked(name):
    assert not is_blocked(name)


def test_block_list_applies_after_allowlist():
    env = _build({**PARENT, "LC_API_KEY": "x", "LC_PASSWORD_HINT": "y"})
    assert "LC_API_KEY" not in env
    assert "LC_PASSWORD_HINT" not in env
    assert env["LC_ALL"] == "en_GB.UTF-8"


def test_declared_secrets_are_added_even_when_their_names_look_blocked():
    env = _build(secrets={"GITHUB_TOKEN": "skill-own-token", "NOTES_API_KEY": "k"})
    assert env["GITHUB_TOKEN"] == "skill-own-token"
    assert env["NOTES_API_KEY"] == "k"
    assert "OPENAI_API_KEY" not in env


@pytest.mark.parametrize("name", ["GIBBERISH_RUN_ID", "gibberish_mode"])
def test_secrets_cannot_override_gibberish_variables(name):
    with pytest.raises(ValueError, match="reserved"):
        _build(secrets={name: "x"})


@pytest.mark.parametrize(("name", "value"), [("", "x"), ("A=B", "x"), ("OK", "nul\0byte")])
def test_invalid_secrets_are_refused(name, value):
    with pytest.raises(ValueError):
        _build(secrets={name: value})


def test_default_path_when_parent_has_none():
    env = _build({"HOME": "/home/ada"})
    assert env["PATH"] == DEFAULT_PATH


def test_relative_path_entries_are_dropped():
    assert sanitize_path("/usr/bin::.:bin:/bin:/usr/bin") == "/usr/bin:/bin"
    assert sanitize_path(".:") == DEFAULT_PATH
    assert sanitize_path(None) == DEFAULT_PATH


def test_credentials_never_reach_the_child_but_the_basics_do(monkeypatch, tmp_path):
    for name in CREDENTIALS:
        monkeypatch.setenv(name, f"value-of-{name}")
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    import os

    run_id = new_run_id()
    env = build_environment(
        os.environ, skill_name="envcheck", skill_dir=tmp_path, mode="Global", run_id=run_id
    )
    result = run(RunSpec(argv=("/usr/bin/env",), cwd=tmp_path, env=env, timeout=10))
    assert result.envelope.success, result.envelope
    child = dict(line.split("=", 1) for line in result.envelope.output.splitlines() if "=" in line)
    for name in CREDENTIALS:
        assert name not in child
        assert f"value-of-{name}" not in result.envelope.output
    assert child["HOME"] == os.environ["HOME"]
    assert child["PATH"] == sanitize_path(os.environ["PATH"])
    assert child["LANG"] == "C.UTF-8"
    assert child["LC_ALL"] == "C.UTF-8"
    assert child["GIBBERISH_RUN_ID"] == run_id
    assert child["GIBBERISH_SKILL_NAME"] == "envcheck"


def test_declared_secrets_reach_the_child(tmp_path):
    import os

    env = build_environment(
        os.environ,
        skill_name="envcheck",
        skill_dir=tmp_path,
        mode="Global",
        run_id=new_run_id(),
        secrets={"NOTES_API_KEY": "s3cr3t"},
    )
    result = run(RunSpec(argv=("env",), cwd=tmp_path, env=env, timeout=10))
    assert "NOTES_API_KEY=s3cr3t" in result.envelope.output.splitlines()


def test_only_the_posix_locale_categories_pass() -> None:
    parent = {
        "LC_ALL": "C.UTF-8",
        "LC_TIME": "en_GB.UTF-8",
        "LC_EVIL_HOOK": "x",
        "LC_FORWARDED": "y",
    }
    env = build_environment(parent, skill_name="s", skill_dir=Path("/s"), mode="Global", run_id="r")
    assert env["LC_ALL"] == "C.UTF-8" and env["LC_TIME"] == "en_GB.UTF-8"
    assert "LC_EVIL_HOOK" not in env and "LC_FORWARDED" not in env


@pytest.mark.parametrize(
    "name",
    [
        "PATH",
        "LD_PRELOAD",
        "BASH_ENV",
        "PYTHONPATH",
        "GIT_SSH_COMMAND",
        "NODE_OPTIONS",
        "ld_library_path",
    ],
)
def test_a_secret_may_not_steer_how_programs_run(name: str) -> None:
    with pytest.raises(ValueError, match=name):
        build_environment(
            {}, skill_name="s", skill_dir=Path("/s"), mode="Global", run_id="r", secrets={name: "x"}
        )


def test_python_bytecode_stays_out_of_skill_folders(tmp_path: Path) -> None:
    env = build_environment(
        {}, skill_name="s", skill_dir=Path("/s"), mode="Global", run_id="r", pycache_prefix=tmp_path
    )
    assert env["PYTHONDONTWRITEBYTECODE"] == "1" and env["PYTHONPYCACHEPREFIX"] == str(tmp_path)
