"""An offline run reaches no socket of the host, and no run keeps a capability.

Each test starts a real listening Unix socket where hosts keep them (``/run``,
``/var/tmp``, ``/tmp`` named by an argument, the X11 folder, ``/dev/shm``, an ssh
control socket in the home folder, the working folder, the abstract namespace) and a
real run inside bwrap tries to connect to it. An online, writable run reaching the same
socket is the control that shows each probe can succeed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from msgspec.structs import replace

from gibberish.runner import run, sandbox, seccomp
from gibberish.runner.sandbox import Sandbox

requires_bwrap = pytest.mark.skipif(
    not sandbox.status().active,
    reason=f"no working bubblewrap here ({sandbox.status().detail}); apt install bubblewrap",
)
requires_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (run the suite as root)")
pytestmark = requires_bwrap

PY = sys.executable
SYSTEM_PY = "/usr/bin/python3"

PROBE = """
import socket, sys
for address in sys.argv[1:]:
    target = "\\0" + address[1:] if address.startswith("@") else address
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(3)
        s.connect(target)
        print("REACHED")
    except OSError as exc:
        print(type(exc).__name__)
"""

OFFLINE = [Sandbox(read_only=True, network=False), Sandbox(read_only=False, network=False)]


@contextlib.contextmanager
def listening(path: str) -> Iterator[str]:
    """A Unix socket listening at ``path`` (``@name``: abstract), anyone may connect."""
    server = socket.socket(socket.AF_UNIX)
    abstract = path.startswith("@")
    server.bind("\0" + path[1:] if abstract else path)
    if not abstract:
        os.chmod(path, 0o777)
    server.listen(8)
    try:
        yield path
    finally:
        server.close()
        if not abstract:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


def unique(prefix: str) -> str:
    return f"{prefix}gibberish-{uuid.uuid4().hex[:12]}.sock"


def probe(make_spec, box: Sandbox, *addresses: str) -> list[str]:
    result = run(make_spec(PY, "-c", PROBE, *addresses, sandbox=box))
    return result.envelope.output.split()


@pytest.fixture
def host_sockets(tmp_path: Path) -> Iterator[list[str]]:
    """Sockets in every place the review found, plus the working folder."""
    home = Path(os.environ["HOME"])
    (home / ".ssh").mkdir(mode=0o700, exist_ok=True)
    x11 = Path("/tmp/.X11-unix")
    made_x11 = not x11.exists()
    x11.mkdir(mode=0o1777, exist_ok=True)
    tmux = Path(f"/tmp/tmux-{uuid.uuid4().hex[:8]}")
    tmux.mkdir(mode=0o700)
    places = [
        unique("/run/"),
        unique("/var/tmp/"),
        unique("/tmp/"),
        unique(f"{x11}/X-"),
        unique(f"{tmux}/default-"),
        unique("/dev/shm/"),
        unique(f"{home}/.ssh/cm-"),
        unique(f"{tmp_path}/"),
        unique("@/tmp/.X11-unix/X-"),
    ]
    with contextlib.ExitStack() as stack:
        for place in places:
            stack.enter_context(listening(place))
        yield places
    shutil.rmtree(tmux, ignore_errors=True)
    if made_x11:
        shutil.rmtree(x11, ignore_errors=True)


@requires_root
def test_an_online_writable_run_reaches_every_probe_socket(make_spec, host_sockets) -> None:
    """The control: each socket below is really reachable when nothing hides it."""
    assert probe(make_spec, Sandbox(read_only=False, network=True), *host_sockets) == [
        "REACHED"
    ] * len(host_sockets)


@requires_root
@pytest.mark.parametrize("box", OFFLINE, ids=["read-only", "writable"])
def test_an_offline_run_reaches_no_socket_of_the_host(make_spec, host_sockets, box) -> None:
    outcomes = probe(make_spec, box, *host_sockets)
    assert "REACHED" not in outcomes, dict(zip(host_sockets, outcomes, strict=True))
    assert len(outcomes) == len(host_sockets)


@requires_root
@pytest.mark.parametrize("box", OFFLINE, ids=["read-only", "writable"])
def test_without_seccomp_the_hidden_places_still_hold(
    make_spec, host_sockets, box, monkeypatch
) -> None:
    """Where libseccomp is missing, the socket folders are hidden all the same: /run,
    /var/tmp, a literal /tmp argument, X11, /dev/shm and the abstract namespace."""
    monkeypatch.setattr(seccomp, "offline_filter", lambda display=False: None)
    files = host_sockets[:7]  # /run, /var/tmp, /tmp argument, X11, tmux, /dev/shm, ~/.ssh
    abstract = host_sockets[-1]
    outcomes = probe(make_spec, box, *files, abstract)
    assert "REACHED" not in outcomes, dict(zip([*files, abstract], outcomes, strict=True))
    assert len(outcomes) == len(files) + 1


def test_the_filter_refuses_unix_sockets_but_not_socketpairs(make_spec) -> None:
    if seccomp.offline_filter() is None:
        pytest.skip(f"no seccomp filter here: {seccomp.why_unavailable()}")
    code = """
import socket
a, b = socket.socketpair()
a.sendall(b"pair"); print(b.recv(4).decode())
try:
    socket.socket(socket.AF_UNIX)
    print("UNIX")
except PermissionError:
    print("REFUSED")
"""
    offline = run(make_spec(PY, "-c", code, sandbox=Sandbox(network=False)))
    assert offline.envelope.output.split() == ["pair", "REFUSED"]
    gui = run(make_spec(PY, "-c", code, sandbox=Sandbox(network=False, gui=True)))
    assert gui.envelope.output.split() == ["pair", "UNIX"]


RAW_SOCKET = """
import ctypes, os, platform, socket
if platform.machine() != "x86_64":
    print("SKIP")
else:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    SYS_socket = 41
    # The kernel reads the family as a 32-bit int: upper bits set must not slip past
    # a filter that compares all 64.
    for family in (socket.AF_UNIX, socket.AF_UNIX | (1 << 32), socket.AF_UNIX | (0xFFFF << 48)):
        fd = libc.syscall(SYS_socket, ctypes.c_ulong(family), socket.SOCK_STREAM, 0)
        print("MADE" if fd >= 0 else os.strerror(ctypes.get_errno()).split()[0])
"""


def test_the_filter_cannot_be_passed_with_upper_bits_in_the_family(make_spec) -> None:
    if seccomp.offline_filter() is None:
        pytest.skip(f"no seccomp filter here: {seccomp.why_unavailable()}")
    result = run(make_spec(PY, "-c", RAW_SOCKET, sandbox=Sandbox(network=False)))
    out = result.envelope.output.split()
    if out == ["SKIP"]:
        pytest.skip("the raw system call number used here is x86_64's")
    assert out == ["Permission"] * 3, result.envelope.output


OTHER_DOORS = """
import ctypes, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
number = int(sys.argv[1])
args = [ctypes.c_ulong(a) for a in map(int, sys.argv[2:])]
fd = libc.syscall(number, *args)
print("MADE" if fd >= 0 else os.strerror(ctypes.get_errno()).split()[0], flush=True)
"""


def _raw(make_spec, box: Sandbox, *argv: str) -> str:
    import platform

    if seccomp.offline_filter() is None:
        pytest.skip(f"no seccomp filter here: {seccomp.why_unavailable()}")
    if platform.machine() != "x86_64":
        pytest.skip("the raw system call numbers used here are x86_64's")
    return run(make_spec(PY, "-c", OTHER_DOORS, *argv, sandbox=box)).envelope.output.strip()


def test_io_uring_is_refused_offline(make_spec) -> None:
    """An io_uring ring connects sockets without connect(): offline, it cannot be set up.
    (Bad arguments on purpose: unfiltered, the kernel answers EFAULT; filtered, ENOSYS.)"""
    online = _raw(make_spec, Sandbox(network=True), "425", "8", "0")
    if online != "Bad":
        pytest.skip(f"io_uring is not available on this kernel ({online})")
    assert _raw(make_spec, Sandbox(network=False), "425", "8", "0") == "Function"


def test_an_x32_socket_call_is_not_let_through(make_spec) -> None:
    """The x32 ABI numbers its system calls apart; libseccomp kills a foreign ABI's call
    (on kernels without x32 the kernel refuses it anyway)."""
    x32_socket = str(41 | 0x40000000)
    out = _raw(make_spec, Sandbox(network=False), x32_socket, str(socket.AF_UNIX), "1", "0")
    assert "MADE" not in out


def test_an_offline_gui_run_reaches_the_display_but_not_the_bus(make_spec, tmp_path) -> None:
    runtime = Path(os.environ["XDG_RUNTIME_DIR"])
    wayland, bus = str(runtime / "wayland-9"), str(runtime / "bus")
    spec_env = {"WAYLAND_DISPLAY": "wayland-9"}
    with listening(wayland), listening(bus):
        box = Sandbox(read_only=True, network=False, gui=True)
        spec = make_spec(PY, "-c", PROBE, wayland, bus, sandbox=box)
        spec = replace(spec, env={**spec.env, **spec_env})
        assert run(spec).envelope.output.split() == ["REACHED", "FileNotFoundError"]
        plain = make_spec(PY, "-c", PROBE, wayland, sandbox=Sandbox(read_only=True))
        assert run(plain).envelope.output.split() == ["FileNotFoundError"]


def test_a_literal_tmp_argument_is_not_bound_back_for_an_offline_run(make_spec) -> None:
    """A folder (which could hold a socket, now or later) and a socket are not bound
    back into an offline read-only run's private /tmp; a regular file is (a person's
    ``files.read_file /tmp/report.txt`` keeps working)."""
    folder = Path(f"/tmp/gibberish-arg-{uuid.uuid4().hex}")
    folder.mkdir()
    try:
        (folder / "data.txt").write_text("seen")
        (folder / "other.txt").write_text("not named")
        sock = str(folder.parent / (folder.name + ".sock"))
        code = (
            "import os, sys; folder, data, sock = sys.argv[1:]; "
            "print(','.join(sorted(os.listdir(folder))), open(data).read(), os.path.exists(sock))"
        )
        args = (PY, "-c", code, folder, folder / "data.txt", sock)
        with listening(sock):
            online = run(make_spec(*args, sandbox=Sandbox(read_only=True)))
            offline = run(make_spec(*args, sandbox=Sandbox(read_only=True, network=False)))
        assert online.envelope.output.split() == ["data.txt,other.txt", "seen", "True"]
        # only the file named is there, mounted on its own; the folder and socket are not
        assert offline.envelope.output.split() == ["data.txt", "seen", "False"]
    finally:
        shutil.rmtree(folder)


# -- capabilities and the session -------------------------------------------------------

CAPS = """
import os
fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
# A session started outside the PID namespace shows as 0: --new-session makes it one of
# the sandbox's own (so no terminal of the person's can be written to with TIOCSTI).
print(fields["CapEff"].strip(), fields["CapPrm"].strip(), os.getsid(0) != 0)
"""


@pytest.mark.parametrize("read_only", [True, False])
def test_a_run_has_no_capabilities_and_its_own_session(make_spec, read_only) -> None:
    result = run(make_spec(PY, "-c", CAPS, sandbox=Sandbox(read_only=read_only)))
    assert result.envelope.output.split() == ["0000000000000000", "0000000000000000", "True"]


@requires_root
@pytest.mark.parametrize(
    "command",
    [
        ["mount", "-o", "remount,rw", "/"],
        ["mount", "-o", "remount,rw,bind", "/"],
        ["mount", "-t", "tmpfs", "none", "/etc"],
        ["unshare", "--mount", "true"],
    ],
)
def test_a_read_only_run_started_as_root_cannot_remount(make_spec, command) -> None:
    if shutil.which(command[0]) is None:
        pytest.skip(f"{command[0]} is not installed")
    code = """
import subprocess, sys
done = subprocess.run(sys.argv[2:], capture_output=True)
try:
    open(sys.argv[1], "w").write("x")
    print(done.returncode, "WROTE")
except OSError as exc:
    print(done.returncode, type(exc).__name__)
"""
    probe_file = Path(f"/etc/gibberish-root-probe-{uuid.uuid4().hex}")
    try:
        box = Sandbox(read_only=True)
        result = run(make_spec(PY, "-c", code, probe_file, *command, sandbox=box))
        assert not probe_file.exists()
    finally:
        probe_file.unlink(missing_ok=True)
    exit_code, wrote = result.envelope.output.split()
    assert exit_code != "0" and wrote == "OSError"


KNOBS = """
import os
for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches", "/proc/sysrq-trigger"):
    if not os.path.exists(path):
        print("absent")
        continue
    try:  # opened for writing, never written: nothing on the host changes
        os.close(os.open(path, os.O_WRONLY))
        print("WRITABLE")
    except OSError as exc:
        print(type(exc).__name__)
"""


@requires_root
@pytest.mark.parametrize("read_only", [True, False])
def test_a_run_started_as_root_cannot_change_kernel_settings(make_spec, read_only) -> None:
    """uid 0 may write /proc/sys by file permission alone, capabilities or not: a
    ``core_pattern`` of ``|/path`` would run a program as root outside the sandbox."""
    result = run(make_spec(PY, "-c", KNOBS, sandbox=Sandbox(read_only=read_only)))
    outcomes = result.envelope.output.split()
    assert len(outcomes) == 3 and "WRITABLE" not in outcomes, outcomes
    assert outcomes[0] in {"OSError", "PermissionError"}  # EROFS or EACCES


# -- the same sandbox for an unprivileged user ------------------------------------------


def _as_nobody(box: Sandbox, code: str, *args: str) -> list[str]:
    """Run ``code`` with the system Python as ``nobody`` inside the sandbox ``wrap`` builds."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv (util-linux) to become nobody")
    if not os.access(SYSTEM_PY, os.X_OK):
        pytest.skip(f"{SYSTEM_PY} is not installed")
    program = seccomp.offline_filter(display=box.gui) if box.offline else None
    fd = seccomp.filter_fd(program) if program is not None else None
    status = sandbox.status()
    assert status.bwrap is not None
    env = {"PATH": "/usr/bin:/bin", "HOME": "/"}
    argv = sandbox.wrap(
        status.bwrap,
        box,
        argv=[SYSTEM_PY, "-c", code, *args],
        executable=SYSTEM_PY,
        cwd=Path("/"),
        env=env,
        seccomp_fd=fd,
    )
    become = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    try:
        done = subprocess.run(
            [*become, *argv],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
            pass_fds=(fd,) if fd is not None else (),
        )
    finally:
        if fd is not None:
            os.close(fd)
    if "setting up uid map" in done.stderr or "Operation not permitted" in done.stderr:
        pytest.skip(f"unprivileged user namespaces are not allowed here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@requires_root  # the probe sockets live in /run
@pytest.mark.parametrize("box", OFFLINE, ids=["read-only", "writable"])
def test_as_nobody_an_offline_run_reaches_no_host_socket(box) -> None:
    places = [unique("/run/"), unique("/var/tmp/"), unique("/tmp/"), unique("@nobody-")]
    with contextlib.ExitStack() as stack:
        for place in places:
            stack.enter_context(listening(place))
        online = _as_nobody(Sandbox(read_only=False, network=True), PROBE, *places)
        offline = _as_nobody(box, PROBE, *places)
    assert online == ["REACHED"] * len(places)
    assert "REACHED" not in offline and len(offline) == len(places)


def test_as_nobody_a_run_has_no_capabilities_and_its_own_session() -> None:
    assert _as_nobody(Sandbox(read_only=True), CAPS) == [
        "0000000000000000",
        "0000000000000000",
        "True",
    ]
