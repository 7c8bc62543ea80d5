"""DNS rebinding at connect time (issue 26, finding 2; ADR 0043).

A URL source's host is checked (every address public) and the fetch then connects only
to an address from that same lookup. The resolver here is the test's: it answers a
public address at first and 127.0.0.1 afterwards, and a real listener on 127.0.0.1
records every connection it accepts. It must accept none: not one byte of the request
may reach a private address, whatever the name answers the second time.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gibberish.export.web.app import create_app
from gibberish.install import gitfetch
from gibberish.install.download import download
from gibberish.install.fetch import fetch
from gibberish.install.limits import FetchError, Limits
from gibberish.install.pinned import git_resolve_option
from gibberish.skills.parser import parse_skill_file
from tests.conftest import BUNDLED_SKILLS
from tests.helpers.builders import needs_git

NAME = "rebinding.test"
PUBLIC = "93.184.216.34"
_real_getaddrinfo = socket.getaddrinfo


class Listener:
    """A TCP listener on 127.0.0.1 that records each connection and what it was sent."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    self.received.append(conn.recv(65536))
                except OSError:
                    self.received.append(b"")
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


def _info(address: str, port: int) -> tuple:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sockaddr = (address, port, 0, 0) if family == socket.AF_INET6 else (address, port)
    return (family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr)


@contextmanager
def rebinding(monkeypatch, answers: list[list[str]]) -> Iterator[list[int]]:
    """``socket.getaddrinfo`` answers ``NAME`` with ``answers[n]`` on the n-th lookup
    (the last answer from then on); any other host is looked up for real (addresses)."""
    calls: list[int] = []

    def fake(host, port, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host != NAME:
            return _real_getaddrinfo(host, port, *args, **kwargs)
        answer = answers[min(len(calls), len(answers) - 1)]
        calls.append(int(port))
        return [_info(a, int(port)) for a in answer]

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    yield calls


# Public for the check, then private: loopback, a mixed answer led by loopback, or
# loopback spelled as an IPv4-mapped IPv6 address.
SEQUENCES = [
    pytest.param([[PUBLIC], ["127.0.0.1"]], id="public-then-loopback"),
    pytest.param([[PUBLIC], ["127.0.0.1", PUBLIC]], id="public-then-mixed"),
    pytest.param([[PUBLIC], ["::ffff:127.0.0.1"]], id="public-then-mapped-loopback"),
]
# fetch() checks the name before handing it to the downloader, which checks it again:
# the third lookup is the one at connect time.
FETCH_SEQUENCES = [
    pytest.param([[PUBLIC], [PUBLIC], ["127.0.0.1"]], id="public-twice-then-loopback"),
    pytest.param([[PUBLIC], [PUBLIC], ["127.0.0.1", PUBLIC]], id="public-twice-then-mixed"),
    pytest.param([[PUBLIC], [PUBLIC], ["::ffff:127.0.0.1"]], id="public-twice-then-mapped"),
]


def _skip_without_v6(answers: list[list[str]]) -> None:
    if any(":" in a for answer in answers for a in answer) and not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")


@pytest.mark.parametrize("answers", SEQUENCES)
def test_a_download_never_reaches_the_address_of_a_second_lookup(
    monkeypatch, tmp_path: Path, answers: list[list[str]]
) -> None:
    _skip_without_v6(answers)
    with Listener() as server, rebinding(monkeypatch, answers) as calls:
        url = f"http://{NAME}:{server.port}/art.zip"
        with pytest.raises(FetchError, match="private network"):
            download(url, tmp_path / "out", Limits(public_only=True))
    assert calls, "the resolver was never asked"
    assert server.received == []


@pytest.mark.parametrize("answers", FETCH_SEQUENCES)
def test_an_install_or_context_import_url_never_reaches_it(
    monkeypatch, tmp_path: Path, answers: list[list[str]]
) -> None:
    _skip_without_v6(answers)
    limits = Limits(public_only=True)
    with (
        Listener() as server,
        rebinding(monkeypatch, answers),
        pytest.raises(FetchError, match="private network"),
        fetch(f"http://{NAME}:{server.port}/art.zip", limits=limits),
    ):
        pass
    assert server.received == []


@pytest.mark.parametrize("answers", FETCH_SEQUENCES)
def test_the_web_pages_skill_url_never_reaches_it(monkeypatch, answers: list[list[str]]) -> None:
    _skip_without_v6(answers)
    installed = [parse_skill_file(BUNDLED_SKILLS / "notes" / "SKILL.md")]
    app = create_app(lambda: installed)
    client = TestClient(
        app, base_url="http://127.0.0.1:8765",
        headers={"Authorization": f"Bearer {app.state.token}"},
    )  # fmt: skip
    with Listener() as server, rebinding(monkeypatch, answers):
        url = f"http://{NAME}:{server.port}/art.zip"
        response = client.post("/api/v1/preview", data={"skill_url": url})
    assert response.status_code == 400, response.text
    assert "private network" in response.json()["error"]
    assert server.received == []


def test_allow_private_urls_still_connects(monkeypatch, tmp_path: Path) -> None:
    """The pin is for public-only fetches; with private URLs allowed the name is used."""
    with Listener() as server, rebinding(monkeypatch, [["127.0.0.1"]]):
        result = download(f"http://{NAME}:{server.port}/x", tmp_path / "out", Limits())
    assert result.size == 2 and server.received and b"Host: rebinding.test" in server.received[0]


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        ([[PUBLIC]], f"http.curloptResolve={NAME}:443:{PUBLIC}"),
        ([[PUBLIC, "2606:4700:4700::1111"]], f"{NAME}:443:{PUBLIC},[2606:4700:4700::1111]"),
    ],
)
def test_git_over_https_is_pinned_to_the_checked_address(monkeypatch, answers, expected) -> None:
    with rebinding(monkeypatch, answers):
        option = git_resolve_option(f"https://{NAME}/x.git", public_only=True)
    assert option[0] == "-c" and option[1].endswith(expected)


@pytest.mark.parametrize("answers", [[["127.0.0.1"]], [[PUBLIC, "10.0.0.7"]]])
def test_git_pin_refuses_a_private_answer(monkeypatch, answers) -> None:
    with rebinding(monkeypatch, answers), pytest.raises(FetchError, match="private network"):
        git_resolve_option(f"https://{NAME}/x.git", public_only=True)


@pytest.mark.parametrize("answers", FETCH_SEQUENCES)
def test_git_fetch_passes_the_checked_address_to_git(
    monkeypatch, tmp_path: Path, answers: list[list[str]]
) -> None:
    """Whatever the name answers later, git is told the address that was checked (or
    refused before it starts)."""
    seen: list[list[str]] = []

    def record(argv, repo, limits):  # type: ignore[no-untyped-def]
        seen.append(list(argv))
        raise FetchError("stopped here")

    monkeypatch.setattr(gitfetch, "_run_watched", record)
    with (
        rebinding(monkeypatch, answers),
        pytest.raises(FetchError),
        fetch(f"git+https://{NAME}/x.git", limits=Limits(public_only=True)),
    ):
        pass
    for argv in seen:
        pins = [a for a in argv if a.startswith("http.curloptResolve=")]
        assert pins == [f"http.curloptResolve={NAME}:443:{PUBLIC}"], argv


@needs_git
def test_installed_git_understands_curlopt_resolve() -> None:
    assert gitfetch.git_supports_resolve(), "git 2.37 or later is needed to pin addresses"


@contextmanager
def dumb_git_server(folder: Path) -> Iterator[tuple[int, list[str]]]:
    """A static HTTP server on 127.0.0.1 over ``folder`` (git's "dumb" protocol) that
    records the Host header of every request."""
    import functools
    import http.server

    hosts: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            hosts.append(self.headers.get("Host", ""))
            super().do_GET()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], hosts
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@needs_git
def test_git_really_connects_to_the_checked_address(monkeypatch, tmp_path: Path) -> None:
    """The pin is obeyed by the installed git: the name has no DNS entry outside this
    test's resolver, so git reaches the server only through the address that was checked
    (127.0.0.1, counted as public here to stand in for a checked public address)."""
    import subprocess

    from gibberish.install import netcheck
    from tests.helpers.builders import git, git_repo, skill_text

    work = git_repo(tmp_path / "work", {"art/SKILL.md": skill_text("art")})
    commit = git(work, "rev-parse", "HEAD")
    bare = tmp_path / "srv" / "repo.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    subprocess.run(["git", "-C", str(bare), "update-server-info"], check=True)
    monkeypatch.setattr(netcheck, "is_public_address", lambda text: True)
    with (
        dumb_git_server(tmp_path / "srv") as (port, hosts),
        rebinding(monkeypatch, [["127.0.0.1"]]),
    ):
        source = f"git+http://{NAME}:{port}/repo.git#{commit}:art"
        with fetch(source, limits=Limits(public_only=True)) as staged:
            assert (staged.root / "SKILL.md").is_file()
    assert hosts and all(h == f"{NAME}:{port}" for h in hosts)


@pytest.mark.parametrize("cert_name", [NAME, "someone-else.test"])
def test_tls_still_names_the_host_and_checks_its_certificate(
    monkeypatch, tmp_path: Path, cert_name: str
) -> None:
    """Pinned to the checked address, TLS still sends the name (SNI) and checks the
    certificate against it: a certificate for another name is refused."""
    import shutil
    import ssl
    import subprocess

    from gibberish.install import download as download_module
    from gibberish.install import netcheck, pinned

    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl program to make a test certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", f"/CN={cert_name}", "-addext", f"subjectAltName=DNS:{cert_name}",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert, key)
    names: list[str | None] = []
    server_ctx.sni_callback = lambda sock, name, ctx: names.append(name)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]

    def serve() -> None:
        conn, _ = listener.accept()
        try:
            with server_ctx.wrap_socket(conn, server_side=True) as tls:
                tls.recv(65536)
                tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        except (OSError, ssl.SSLError):
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    monkeypatch.setattr(netcheck, "is_public_address", lambda text: True)
    monkeypatch.setattr(download_module, "is_public_address", lambda text: True)
    monkeypatch.setattr(
        pinned.httpx, "create_ssl_context", lambda: ssl.create_default_context(cafile=str(cert))
    )
    with rebinding(monkeypatch, [["127.0.0.1"]]):
        url = f"https://{NAME}:{port}/x"
        if cert_name == NAME:
            assert download(url, tmp_path / "out", Limits(public_only=True)).size == 2
        else:
            with pytest.raises(FetchError, match=r"(?i)certificate"):
                download(url, tmp_path / "out", Limits(public_only=True))
    thread.join(timeout=5)
    listener.close()
    assert names == [NAME]
