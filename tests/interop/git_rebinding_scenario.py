"""Run inside a network namespace that holds only loopback (see test_git_rebinding.py).

A DNS server on 127.0.0.53 (the namespace's ``/etc/resolv.conf`` points at it) answers
``rebinding.test`` with a public address to the first A query (or the first two) of
each case and with 127.0.0.1 to every later one; listeners on 127.0.0.1 (the git daemon's port, ssh's port
22 and one more) record every connection. Each case fetches one source the way the
web page does (public only) and the result — the message, the connections each
listener saw, the queries — is printed as JSON. The public address is unreachable here
(there is no other interface), so nothing leaves the machine.
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import threading

NAME = "rebinding.test"
PUBLIC = "93.184.216.34"


class Resolver:
    """A minimal DNS server: A for NAME as the current plan says, nothing else."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.53", 53))
        self.plan: list[str] = [PUBLIC, "127.0.0.1"]
        self.queries: list[str] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def reset(self, plan: list[str]) -> None:
        self.plan, self.queries = plan, []

    def _serve(self) -> None:
        while True:
            data, peer = self.sock.recvfrom(2048)
            try:
                self.sock.sendto(self._answer(data), peer)
            except (IndexError, struct.error):
                continue

    def _answer(self, data: bytes) -> bytes:
        ident, _flags, _qd = struct.unpack("!HHH", data[:6])
        offset, labels = 12, []
        while data[offset]:
            length = data[offset]
            labels.append(data[offset + 1 : offset + 1 + length].decode("ascii", "replace"))
            offset += 1 + length
        question = data[12 : offset + 5]
        qtype = struct.unpack("!H", data[offset + 1 : offset + 3])[0]
        name = ".".join(labels).lower()
        answers = b""
        count = 0
        if name == NAME and qtype == 1:
            address = self.plan[min(len(self.queries), len(self.plan) - 1)]
            self.queries.append(address)
            answers = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 0, 4) + socket.inet_aton(address)
            count = 1
        rcode = 0 if name == NAME else 3
        header = struct.pack("!HHHHHH", ident, 0x8180 | rcode, 1, count, 0, 0)
        return header + question + answers


class Listener:
    def __init__(self, port: int) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.hits = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            conn, _ = self.sock.accept()
            self.hits += 1
            conn.close()


def main() -> None:
    sys.path.insert(0, sys.argv[1])
    from gibberish.install.fetch import fetch
    from gibberish.install.limits import FetchError, Limits
    from gibberish.install.sources import SourceError

    resolver = Resolver()
    daemon, ssh, other = Listener(9418), Listener(22), Listener(0)
    listeners = {"git": daemon, "ssh": ssh, "other": other}
    p = other.port
    cases = {
        "git://": f"git+git://{NAME}/skills.git",
        "git:// with a port": f"git+git://{NAME}:{p}/skills.git",
        "ssh://": f"git+ssh://git@{NAME}/skills.git",
        "ssh:// with a port": f"git+ssh://git@{NAME}:{p}/skills.git",
        "scp-style": f"git@{NAME}:owner/skills.git",
        "http": f"git+http://{NAME}:{p}/skills.git",
        "https": f"git+https://{NAME}:{p}/skills.git",
        "plain http .git": f"http://{NAME}:{p}/skills.git",
        "ext::": f"ext::sh -c nc% {NAME}% {p}",
        "file::": f"file::{NAME}:{p}",
    }
    # Loopback from the second answer on, or from the third (after two public ones):
    # whichever lookup git (or ssh) makes of its own gets loopback in one of the two.
    plans = {"second": [PUBLIC, "127.0.0.1"], "third": [PUBLIC, PUBLIC, "127.0.0.1"]}
    results: dict[str, dict[str, object]] = {}
    for label, source in cases.items():
        for when, plan in plans.items():
            resolver.reset(plan)
            before = {k: v.hits for k, v in listeners.items()}
            try:
                with fetch(source, limits=Limits(public_only=True, total_timeout=20)):
                    message = "FETCHED"
            except (FetchError, SourceError) as exc:
                message = str(exc)
            hits = {k: v.hits - before[k] for k, v in listeners.items()}
            result = {"message": message, "hits": hits, "queries": resolver.queries}
            results[f"{label}, loopback from the {when} answer"] = result
    # The person's git settings must not steer a public-only fetch: an insteadOf in
    # ~/.gitconfig that turns the (public) name into this computer's git daemon.
    import os
    from pathlib import Path

    gitconfig = Path(os.environ["HOME"]) / ".gitconfig"
    gitconfig.write_text(f'[url "git://127.0.0.1/"]\n\tinsteadOf = https://{NAME}/\n')
    resolver.reset([PUBLIC])
    before = {k: v.hits for k, v in listeners.items()}
    try:
        with fetch(f"git+https://{NAME}/skills.git", limits=Limits(public_only=True)):
            message = "FETCHED"
    except (FetchError, SourceError) as exc:
        message = str(exc)
    hits = {k: v.hits - before[k] for k, v in listeners.items()}
    results["insteadOf"] = {"message": message, "hits": hits, "queries": resolver.queries}
    gitconfig.unlink()
    # The control: without public-only, a name answering loopback reaches the listener,
    # so the resolver, the listeners and git really work together here.
    resolver.reset(["127.0.0.1"])
    before = daemon.hits
    try:
        with fetch(f"git+git://{NAME}/skills.git", limits=Limits(total_timeout=20)):
            pass
    except (FetchError, SourceError):
        pass
    results["control"] = {"hits": {"git": daemon.hits - before}, "queries": resolver.queries}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
