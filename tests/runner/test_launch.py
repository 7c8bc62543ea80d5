"""Runs that succeed, fail, or cannot start, and how each is reported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gibberish.runner import EXIT_CANNOT_EXECUTE, EXIT_NOT_FOUND, RunStatus, run


def test_success(make_spec):
    result = run(make_spec("echo", "hello"))
    assert result.status is RunStatus.SUCCEEDED
    assert result.envelope.to_dict() == {
        "success": True,
        "exit_code": 0,
        "output": "hello\n",
        "truncated": False,
        "duration_ms": result.envelope.duration_ms,
    }
    assert result.argv == ("echo", "hello")


def test_own_exit_code_and_message(make_spec, script):
    result = run(make_spec(script("echo oops; exit 3\n")))
    assert result.status is RunStatus.FAILED
    assert result.envelope.exit_code == 3
    assert result.envelope.error == "Command failed with exit code 3"
    assert result.envelope.output == "oops\n"


def test_killed_by_a_signal_is_128_plus_n(make_spec, script):
    result = run(make_spec(script("kill -KILL $$\n")))
    assert result.envelope.exit_code == 137
    assert "SIGKILL" in result.envelope.error


def test_arguments_are_never_interpreted_by_a_shell(make_spec, tmp_path):
    tricky = "$(touch pwned); `touch pwned2` * ; rm -rf ~ && echo"
    result = run(make_spec("printf", "%s", tricky))
    assert result.envelope.output == tricky
    assert not (tmp_path / "pwned").exists()


def test_stdout_and_stderr_are_merged_in_order(make_spec, script):
    result = run(make_spec(script("echo one; echo two >&2; echo three\n")))
    assert result.envelope.output == "one\ntwo\nthree\n"


def test_stdin_is_closed(make_spec):
    result = run(make_spec("cat"))
    assert result.envelope.success
    assert result.envelope.output == ""


def test_runs_in_the_given_directory(make_spec, tmp_path):
    folder = tmp_path / "here"
    folder.mkdir()
    result = run(make_spec("pwd", cwd=folder))
    assert result.envelope.output.strip() == str(folder)


def test_command_not_found(make_spec):
    result = run(make_spec("git-does-not-exist-xyz", "status"))
    envelope = result.envelope
    assert result.status is RunStatus.FAILED
    assert envelope.exit_code == EXIT_NOT_FOUND
    assert envelope.error.startswith("command not found: git-does-not-exist-xyz (looked in PATH=")
    assert envelope.output == "" and envelope.duration_ms == 0


def test_lookup_uses_the_childs_path_not_ours(make_spec, tmp_path, script):
    tool = script("echo found\n", name="only-in-child-path")
    env = {"PATH": str(tool.parent)}
    assert run(make_spec("only-in-child-path", env=env)).envelope.output == "found\n"
    assert run(make_spec("only-in-child-path")).envelope.exit_code == EXIT_NOT_FOUND


def test_relative_path_entries_are_ignored_for_lookup(make_spec, tmp_path, script):
    script("echo planted\n", name="planted")
    result = run(make_spec("planted", env={"PATH": ".:"}, cwd=tmp_path))
    assert result.envelope.exit_code == EXIT_NOT_FOUND


def test_missing_file_path(make_spec, tmp_path):
    result = run(make_spec(tmp_path / "nope.sh"))
    assert result.envelope.exit_code == EXIT_NOT_FOUND
    assert "no such file" in result.envelope.error


def test_not_executable(make_spec, tmp_path):
    path = tmp_path / "tool.sh"
    path.write_text("#!/bin/sh\necho hi\n")
    path.chmod(0o644)
    result = run(make_spec(path))
    assert result.envelope.exit_code == EXIT_CANNOT_EXECUTE
    assert str(path) in result.envelope.error
    assert f"chmod +x {path}" in result.envelope.error


def test_not_executable_in_path(make_spec, tmp_path):
    path = tmp_path / "tool"
    path.write_text("#!/bin/sh\necho hi\n")
    path.chmod(0o644)
    result = run(make_spec("tool", env={"PATH": str(tmp_path)}))
    assert result.envelope.exit_code == EXIT_CANNOT_EXECUTE
    assert f"chmod +x {path}" in result.envelope.error


def test_directory_as_program(make_spec, tmp_path):
    folder = tmp_path / "adir"
    folder.mkdir()
    result = run(make_spec(folder))
    assert result.envelope.exit_code == EXIT_CANNOT_EXECUTE
    assert "is a directory" in result.envelope.error


def test_relative_program_resolves_against_cwd(make_spec, tmp_path, script):
    script("echo relative\n", name="rel.sh")
    assert run(make_spec("./rel.sh", cwd=tmp_path)).envelope.output == "relative\n"


def test_script_without_shebang(make_spec, tmp_path):
    path = tmp_path / "noshebang"
    path.write_text("echo hi\n")
    path.chmod(0o755)
    result = run(make_spec(path))
    assert result.envelope.exit_code == EXIT_CANNOT_EXECUTE
    assert "#!" in result.envelope.error


def test_missing_interpreter(make_spec, tmp_path):
    path = tmp_path / "badinterp"
    path.write_text("#!/nonexistent/interpreter\n")
    path.chmod(0o755)
    result = run(make_spec(path))
    assert result.envelope.exit_code == EXIT_NOT_FOUND
    assert "interpreter" in result.envelope.error


def test_missing_working_directory(make_spec, tmp_path):
    result = run(make_spec("true", cwd=tmp_path / "gone"))
    assert result.envelope.exit_code is None
    assert result.envelope.error == f"working directory does not exist: {tmp_path / 'gone'}"


def test_working_directory_that_is_a_file(make_spec, tmp_path):
    file = tmp_path / "file"
    file.write_text("")
    result = run(make_spec("true", cwd=file))
    assert "not a directory" in result.envelope.error


def test_nul_byte_in_an_argument_is_an_error_not_a_crash(make_spec):
    result = run(make_spec("echo", "a\0b"))
    assert not result.envelope.success
    assert result.envelope.exit_code is None
    assert result.envelope.error


@pytest.mark.skipif(os.geteuid() == 0, reason="root can enter any directory")
def test_unreadable_working_directory(make_spec, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o000)
    try:
        result = run(make_spec("true", cwd=locked))
        assert not result.envelope.success
    finally:
        locked.chmod(0o755)


def test_run_id_reaches_the_child(make_spec):
    spec = make_spec("sh", "-c", 'printf %s "$GIBBERISH_RUN_ID"')
    assert run(spec).envelope.output == spec.run_id


def test_result_carries_the_spec(make_spec, tmp_path):
    spec = make_spec("true")
    result = run(spec)
    assert (result.run_id, result.cwd, result.log_path) == (spec.run_id, Path(tmp_path), None)
