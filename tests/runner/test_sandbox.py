"""The sandbox, proven by real runs through bubblewrap: each property a skill declares.

Every test here starts real processes inside ``bwrap`` and checks from the outside what
the tool could and could not do. They skip, saying why, where bwrap does not work.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import psutil
import pytest

from gibberish.runner import RunSpec, run, sandbox
from gibberish.runner.sandbox import Sandbox

requires_bwrap = pytest.mark.skipif(
    not sandbox.status().active,
    reason=f"no working bubblewrap here ({sandbox.status().detail}); apt install bubblewrap",
)

pytestmark = requires_bwrap

PY = sys.executable


def python_tool(make_spec, code: str, **overrides) -> RunSpec:
    return make_spec(PY, "-c", textwrap.dedent(code), **overrides)


def output_of(spec: RunSpec) -> str:
    result = run(spec)
    assert result.envelope.error is None or result.envelope.exit_code is not None, result
    return result.envelope.output


# -- read_only --------------------------------------------------------------------------

WRITE_PROBE = """
import errno, os, sys
for path in sys.argv[1:]:
    try:
        with open(path, "w") as handle:
            handle.write("x")
        print(path, "WROTE")
    except OSError as exc:
        print(path, errno.errorcode[exc.errno])
"""


def test_read_only_makes_every_write_fail_with_erofs(make_spec, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    targets = ["/etc/gibberish-probe", str(home / "probe"), str(tmp_path / "probe")]
    spec = make_spec(PY, "-c", WRITE_PROBE, *targets, sandbox=Sandbox(read_only=True))
    lines = output_of(spec).splitlines()
    assert lines == [f"{t} EROFS" for t in targets]
    assert not Path("/etc/gibberish-probe").exists()
    assert not (home / "probe").exists()


def test_read_only_gets_a_private_tmp_and_still_reads_its_inputs(make_spec, tmp_path: Path) -> None:
    data = tmp_path / "input.txt"
    data.write_text("the input\n")
    outside = Path(f"/tmp/gibberish-outside-{uuid.uuid4().hex}")
    outside.write_text("outside")
    scratch = Path(f"/tmp/gibberish-scratch-{uuid.uuid4().hex}")
    code = """
    import os, sys
    open(sys.argv[2], "w").write("scratch")
    print(open(sys.argv[1]).read().strip(), os.path.exists(OUTSIDE))
    """.replace("OUTSIDE", repr(str(outside)))
    try:
        spec = make_spec(
            PY, "-c", textwrap.dedent(code), data, scratch, sandbox=Sandbox(read_only=True)
        )
        assert output_of(spec).strip() == "the input False"
        assert not scratch.exists()
    finally:
        outside.unlink()
        scratch.unlink(missing_ok=True)


def test_a_write_run_can_write(make_spec, tmp_path: Path) -> None:
    target = tmp_path / "written"
    spec = make_spec(PY, "-c", WRITE_PROBE, target, sandbox=Sandbox(read_only=False))
    assert output_of(spec).strip() == f"{target} WROTE"
    assert target.read_text() == "x"


# -- network: false ---------------------------------------------------------------------

CONNECT_PROBE = """
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3).close()
    print("CONNECTED")
except OSError as exc:
    print(type(exc).__name__)
"""


@pytest.fixture
def loopback_server():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


def test_network_false_cannot_reach_a_loopback_server_outside(make_spec, loopback_server) -> None:
    offline = make_spec(
        PY, "-c", CONNECT_PROBE, str(loopback_server), sandbox=Sandbox(network=False)
    )
    online = make_spec(PY, "-c", CONNECT_PROBE, str(loopback_server), sandbox=Sandbox(network=True))
    assert output_of(offline).strip() == "ConnectionRefusedError"
    assert output_of(online).strip() == "CONNECTED"


# -- other processes' environments ------------------------------------------------------

PARENT = """
import json, os, sys
from pathlib import Path
from gibberish.runner import RunSpec, build_environment, run
from gibberish.runner.sandbox import Sandbox

me = os.getpid()
env = build_environment(os.environ, skill_name="t", skill_dir=Path.cwd(), mode="Global", run_id="")
env.pop("GIBBERISH_RUN_ID")
tool = (
    "for f in /proc/$PPID/environ /proc/1/environ /proc/%d/environ; do "
    "tr '\\\\0' '\\\\n' < $f; done 2>&1; ls /proc | grep -c '^[0-9]'" % me
)
sandbox = None if sys.argv[1] == "none" else Sandbox(read_only=True)
result = run(RunSpec(argv=("sh", "-c", tool), cwd=Path.cwd(), env=env, sandbox=sandbox))
print(json.dumps(result.envelope.output))
"""


def _tool_output_under_a_parent(sandboxed: str, canary: str) -> str:
    env = dict(os.environ, AWS_SECRET_ACCESS_KEY=canary)
    done = subprocess.run(
        [PY, "-c", PARENT, sandboxed],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
        check=True,
    )
    return json.loads(done.stdout)


def test_a_tool_cannot_read_its_parents_environment() -> None:
    canary = f"canary-{uuid.uuid4().hex}"
    assert canary in _tool_output_under_a_parent("none", canary)  # the leak it closes
    output = _tool_output_under_a_parent("sandbox", canary)
    assert canary not in output
    # Only the namespace's own processes are visible: bwrap's init, sh, ls, grep.
    assert int(output.strip().splitlines()[-1]) <= 5


# -- nothing outlives the run -----------------------------------------------------------


def _marked(marker: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            mine = any(marker in part for part in proc.info["cmdline"] or ())
            if mine and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def _wait_none_marked(marker: str, timeout: float) -> list[psutil.Process]:
    deadline = time.monotonic() + timeout
    while (left := _marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


def _kill_marked(marker: str) -> None:
    """Cleanup after a failure: stop, then kill, until no marked process is left."""
    for _ in range(20):
        procs = _marked(marker)
        if not procs:
            return
        for signum in (19, 9):  # SIGSTOP first, so a re-fork loop cannot outpace us
            for proc in procs:
                with contextlib.suppress(psutil.Error):
                    proc.send_signal(signum)
        time.sleep(0.05)


def _escaping_tree(marker: str) -> str:
    """setsid + env -i (drops the run id), and a setsid re-fork loop, then exit at once."""
    loop = f"while :; do setsid env -i sh -c 'sleep {marker}' & sleep 0.01; done"
    return f'setsid env -i sleep {marker} & setsid env -i sh -c "{loop}" & sleep 0.3; echo started'


@pytest.mark.parametrize("read_only", [True, False])
def test_zero_survivors_of_an_adversarial_tree(make_spec, read_only: bool) -> None:
    marker = f"3002.{uuid.uuid4().int % 10**6}"
    spec = make_spec("sh", "-c", _escaping_tree(marker), sandbox=Sandbox(read_only=read_only))
    try:
        result = run(spec)
        assert result.envelope.output.strip() == "started"
        assert _wait_none_marked(marker, timeout=spec.grace) == []
    finally:
        _kill_marked(marker)


def test_zero_survivors_after_a_timeout_with_a_refork_loop(make_spec) -> None:
    marker = f"3003.{uuid.uuid4().int % 10**6}"
    tree = _escaping_tree(marker).replace("echo started", "trap '' TERM; sleep 30")
    spec = make_spec("sh", "-c", tree, sandbox=Sandbox(), timeout=0.5, grace=0.3)
    try:
        result = run(spec)
        assert result.envelope.exit_code == 124
        assert _wait_none_marked(marker, timeout=spec.grace) == []
    finally:
        _kill_marked(marker)


def test_timeout_still_gives_the_tool_its_grace(make_spec) -> None:
    code = "trap 'echo got TERM; exit 3' TERM; echo ready; while :; do sleep 0.05; done"
    spec = make_spec("sh", "-c", code, sandbox=Sandbox(), timeout=0.5, grace=5.0)
    started = time.monotonic()
    result = run(spec)
    assert result.envelope.exit_code == 124
    assert "got TERM" in result.envelope.output
    assert time.monotonic() - started < 4.0  # it ended when the tool did, not after grace


# -- the desktop ------------------------------------------------------------------------

UNIX_PROBE = """
import socket, sys
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    print("REACHED")
except OSError as exc:
    print(type(exc).__name__)
"""


@pytest.fixture
def session_socket():
    runtime = Path(os.environ["XDG_RUNTIME_DIR"])
    path = runtime / "bus"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(8)
    try:
        yield path
    finally:
        server.close()
        path.unlink(missing_ok=True)


@pytest.mark.parametrize(
    ("read_only", "network", "reached"),
    [(False, True, True), (True, True, False), (False, False, False), (True, False, False)],
)
def test_the_session_bus_is_there_only_for_network_write_skills(
    make_spec, session_socket: Path, read_only: bool, network: bool, reached: bool
) -> None:
    spec = make_spec(
        PY,
        "-c",
        UNIX_PROBE,
        session_socket,
        sandbox=Sandbox(read_only=read_only, network=network),
    )
    refused = "FileNotFoundError" if network else "PermissionError"  # offline: seccomp
    assert output_of(spec).strip() == ("REACHED" if reached else refused)


# -- the snapshot -----------------------------------------------------------------------


def test_the_snapshot_is_what_runs_and_is_removed(make_spec, tmp_path: Path) -> None:
    skill_dir = tmp_path / "skill"
    (skill_dir / "scripts").mkdir(parents=True)
    script = skill_dir / "scripts" / "hello.sh"
    script.write_text("#!/bin/sh\necho original\n")
    script.chmod(0o755)
    snapshot = tmp_path / "snapshot"
    (snapshot / "scripts").mkdir(parents=True)
    copy = snapshot / "scripts" / "hello.sh"
    copy.write_text('#!/bin/sh\necho snapshot; touch "$0.written" 2>&1\n')
    copy.chmod(0o755)
    box = Sandbox(read_only=False, skill_dir=skill_dir, snapshot=snapshot)
    result = run(make_spec(script, sandbox=box))
    assert result.envelope.output.splitlines()[0] == "snapshot"
    assert "Read-only file system" in result.envelope.output
    assert not snapshot.exists()


def test_stale_snapshots_of_a_crashed_process_are_pruned(tmp_path: Path) -> None:
    stale, fresh, other = tmp_path / "run-old", tmp_path / "run-new", tmp_path / "keep"
    for folder in (stale, fresh, other):
        (folder / "scripts").mkdir(parents=True)
    os.utime(stale, (1, 1))
    os.utime(other, (1, 1))
    assert sandbox.prune_snapshots(tmp_path) == 1
    assert not stale.exists() and fresh.exists() and other.exists()


def test_a_program_installed_under_tmp_still_runs_read_only(make_spec, tmp_path: Path) -> None:
    """A private /tmp must not hide the program itself: PREFIX/bin/tool and PREFIX/share.

    The prefix is its own folder under /tmp, outside the run's working folder and home
    (which stay visible anyway), as a clone with its virtual environment would be."""
    prefix = tmp_path / "prefix"
    assert not prefix.is_relative_to(os.environ["HOME"])
    (prefix / "bin").mkdir(parents=True)
    (prefix / "share").mkdir()
    (prefix / "share" / "greeting").write_text("hello from the prefix\n")
    tool = prefix / "bin" / "greet"
    tool.write_text(f"#!/bin/sh\ncat {prefix / 'share' / 'greeting'}\n")
    tool.chmod(0o755)
    result = run(make_spec(str(tool), cwd=Path("/"), sandbox=Sandbox(read_only=True)))
    assert result.envelope.output == "hello from the prefix\n", result.envelope
