"""``prompt`` and ``ask --dry-run`` end without the interpreter's teardown, and only then.

Each check runs a real Python process: an ``atexit`` handler that prints ``teardown``
shows whether the orderly shutdown ran. The quick exit must keep every byte of output
and the exit code, and must step aside whenever something is left to do: another
thread, a run still going, a sandbox file to remove, a stdout that cannot be flushed,
or a caller that did not enable it (the click group invoked in-process, as tests do).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.cli.quick_exit import finish
from tests.conftest import REPO_ROOT

PRELUDE = """
import atexit, os, sys
atexit.register(lambda: os.write(2, b"teardown\\n"))
from gibberish.cli import quick_exit
"""


def _python(body: str, **kwargs) -> subprocess.CompletedProcess[str]:
    code = PRELUDE + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=60,
        **kwargs,
    )


def test_a_finished_command_leaves_at_once_with_its_output_and_code() -> None:
    done = _python(
        """
        quick_exit.enable()
        sys.stdout.write("x" * 200_000)  # more than a pipe holds: flushed before leaving
        print("last line", file=sys.stderr)
        quick_exit.finish(3)
        """
    )
    assert done.returncode == 3
    assert done.stdout == "x" * 200_000
    assert done.stderr == "last line\n"  # and no "teardown"


@pytest.mark.parametrize(
    "obstacle",
    [
        "pass  # not enabled: the click group run in-process",
        "quick_exit.enable(); import threading; threading.Thread(target=__import__('time')"
        ".sleep, args=(0.2,)).start()",
        "quick_exit.enable(); from gibberish.runner import handle; "
        "handle._active.add(type('Run', (), {'cancel': lambda s: None, 'wait': lambda s, t: "
        "None, 'spec': type('Spec', (), {'grace': 0.0})})())",
        "quick_exit.enable(); from gibberish.runner import sandbox_mounts; "
        "sandbox_mounts._empty_file()",
        "quick_exit.enable(); sys.stdout.close()",
    ],
    ids=["not-enabled", "another-thread", "run-going", "sandbox-file", "stdout-closed"],
)
def test_anything_left_to_do_means_the_usual_shutdown(obstacle) -> None:
    done = _python(f"{obstacle}\nprint('out', file=sys.stderr)\nquick_exit.finish(4)\n")
    assert done.returncode == 4, done.stderr
    assert done.stderr.endswith("out\nteardown\n"), done.stderr


def test_the_sandbox_file_is_still_removed_when_it_was_made() -> None:
    done = _python(
        """
        quick_exit.enable()
        from gibberish.runner import sandbox_mounts
        print(sandbox_mounts._empty_file(), file=sys.stderr)
        quick_exit.finish(0)
        """
    )
    made = Path(done.stderr.splitlines()[0])
    assert done.returncode == 0 and made.name.startswith("gibberish-empty-")
    assert not made.exists()


def test_in_process_the_command_raises_system_exit(monkeypatch) -> None:
    result = CliRunner().invoke(cli, ["prompt", "--format", "text", "--request", "uptime"])
    assert result.exit_code == 0, result.output
    assert "uptime" in result.output
    with pytest.raises(SystemExit) as raised:
        finish(5)
    assert raised.value.code == 5


def _program(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``gibberish ARGV`` as the installed program runs it, with the teardown marker."""
    return _python(f"from gibberish.cli import main\nsys.argv = {['gibberish', *argv]!r}\nmain()\n")


@pytest.mark.parametrize(
    "argv",
    [
        ["prompt", "--request", "how long has the computer been running"],
        ["prompt", "--format", "openai", "--request", "show the disk usage"],
        ["prompt", "--format", "text"],
    ],
)
def test_prompt_prints_what_it_prints_in_process_and_skips_the_teardown(argv) -> None:
    """The real program (quick exit) and the click group in-process (none) give the same
    text."""
    real = _program(argv)
    in_process = CliRunner().invoke(cli, argv)
    assert real.returncode == 0 == in_process.exit_code, real.stderr
    assert real.stdout == in_process.stdout and len(real.stdout) > 100
    assert "teardown" not in real.stderr


def test_ask_dry_run_prints_its_call_and_skips_the_teardown(model_server) -> None:
    from tests.assistant.fakeserver import Text

    call = "<start_function_call>call:uptime{}<end_function_call>"
    model_server.queue(Text(call))
    real = _program(["ask", "how long has it been up", "--endpoint", model_server.url, "--dry-run"])
    assert real.returncode == 0, real.stderr
    assert '"argv":["uptime"]' in real.stdout and "teardown" not in real.stderr
    model_server.queue(Text("I cannot help with that."))
    refused = _program(["ask", "sing", "--endpoint", model_server.url, "--dry-run"])
    assert refused.returncode == 1 and "teardown" in refused.stderr  # the usual way out
