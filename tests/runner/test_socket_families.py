"""An offline run makes sockets only of the families on its list (ADR 0062).

Each family is tried by a real program inside a real bwrap run with the raw ``socket``
/ ``socketpair`` system calls (so the standard library's own checks cannot hide the
answer). A family the kernel does not build here answers ``EAFNOSUPPORT`` unfiltered;
the filter must answer ``EACCES`` for every refused one either way — so each test says
"refused by the filter", not merely "failed".
"""

from __future__ import annotations

import platform
import socket
import sys
from collections.abc import Callable

import pytest

from gibberish.runner import run, sandbox, seccomp
from gibberish.runner.sandbox import Sandbox

pytestmark = [
    pytest.mark.skipif(not sandbox.status().active, reason="no working bubblewrap here"),
    pytest.mark.skipif(seccomp.offline_filter() is None, reason="no seccomp filter here"),
    pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64 system call numbers"),
]

PY = sys.executable

TRY = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
call = {"socket": 41, "socketpair": 53}[sys.argv[1]]
pair = (ctypes.c_int * 2)()
for word in sys.argv[2:]:
    family, kind, proto = (int(x) for x in word.split(":"))
    extra = [ctypes.byref(pair)] if call == 53 else []
    fd = libc.syscall(call, ctypes.c_ulong(family), kind, proto, *extra)
    print("MADE" if fd >= 0 else {13: "REFUSED"}.get(ctypes.get_errno(), "OTHER"))
"""

S, D, R = socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW

REFUSED_SOCKETS = {
    "AF_UNIX": (1, S, 0),
    "AF_VSOCK": (40, S, 0),
    "AF_PACKET": (17, R, 0),
    "AF_BLUETOOTH": (31, S, 3),
    "AF_CAN": (29, R, 1),
    "AF_ALG": (38, 5, 0),
    "AF_XDP": (44, R, 0),
    "AF_NETLINK": (16, R, 0),
    "AF_KEY": (15, R, 2),
    "AF_TIPC": (30, 5, 0),
    "AF_UNSPEC": (0, S, 0),
    "AF_MCTP (45, the highest known today)": (45, D, 0),
    "a family a later kernel adds (46)": (46, S, 0),
    "a family far above (1000)": (1000, S, 0),
    "AF_INET with upper bits set": (2 | (1 << 32), S, 0),
    "AF_VSOCK with upper bits set": (40 | (0xFFFF << 48), S, 0),
    "a negative family": (0xFFFFFFFF, S, 0),
}

ALLOWED_SOCKETS = {"AF_INET": (2, S, 0), "AF_INET6": (10, S, 0), "AF_INET datagram": (2, D, 0)}


Runner = Callable[[Sandbox, str], str]


@pytest.fixture
def code_in(make_spec) -> Runner:
    """Run Python ``code`` (with arguments) in a real sandboxed run; its output."""

    def go(box: Sandbox, code: str, *args: str) -> str:
        return run(make_spec(PY, "-c", code, *args, sandbox=box)).envelope.output

    return go


def _try(code_in: Runner, box: Sandbox, call: str, *triples: tuple[int, int, int]) -> list[str]:
    words = [":".join(map(str, t)) for t in triples]
    return code_in(box, TRY, call, *words).split()


OFFLINE = [Sandbox(network=False), Sandbox(network=False, read_only=True)]


@pytest.mark.parametrize("box", OFFLINE, ids=["writable", "read-only"])
def test_every_family_off_the_list_is_refused(code_in: Runner, box: Sandbox) -> None:
    names = list(REFUSED_SOCKETS)
    outcomes = _try(code_in, box, "socket", *REFUSED_SOCKETS.values())
    assert dict(zip(names, outcomes, strict=True)) == dict.fromkeys(names, "REFUSED")


@pytest.mark.parametrize("box", OFFLINE, ids=["writable", "read-only"])
def test_ip_sockets_inside_the_empty_network_are_allowed(code_in: Runner, box: Sandbox) -> None:
    names = list(ALLOWED_SOCKETS)
    outcomes = _try(code_in, box, "socket", *ALLOWED_SOCKETS.values())
    assert dict(zip(names, outcomes, strict=True)) == dict.fromkeys(names, "MADE")


def test_socketpair_is_allowed_for_unix_only(code_in: Runner) -> None:
    box = Sandbox(network=False)
    outcomes = _try(
        code_in, box, "socketpair", (1, S, 0), (1, D, 0), (30, 5, 0), (40, S, 0), (46, S, 0)
    )
    assert outcomes == ["MADE", "MADE", "REFUSED", "REFUSED", "REFUSED"]


def test_a_display_run_may_add_unix_sockets_and_nothing_else(code_in: Runner) -> None:
    box = Sandbox(network=False, gui=True)
    triples = (ALLOWED_SOCKETS["AF_INET"], REFUSED_SOCKETS["AF_UNIX"], (40, S, 0), (17, R, 0))
    assert _try(code_in, box, "socket", *triples) == ["MADE", "MADE", "REFUSED", "REFUSED"]


def test_a_vsock_port_cannot_be_bound_offline(code_in: Runner) -> None:
    """The finding itself, through the standard library: an offline run binds no vsock
    port (the control, an online run, gets past ``socket()``)."""
    code = (
        "import socket\n"
        "try:\n"
        "    s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)\n"
        "    s.bind((socket.VMADDR_CID_ANY, 5555)); print('BOUND')\n"
        "except PermissionError: print('REFUSED')\n"
        "except OSError as exc: print('OTHER', exc.errno)\n"
    )
    offline = code_in(Sandbox(network=False), code).strip()
    online = code_in(Sandbox(network=True), code).strip()
    assert offline == "REFUSED"
    assert online != "REFUSED"
