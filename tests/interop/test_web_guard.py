"""``gibberish web`` serves only the person who started it (issue 26, finding 2).

Classes: requests without the launch's token; Host names other than the bound address
and ``localhost``; state-changing requests from another site; URL sources that reach
this computer or its private network; server paths in error messages; and another local
user (a real second uid, where the test runs as root).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from gibberish.export.web.app import create_app
from gibberish.install import download as download_module
from gibberish.install import fetch as fetch_module
from gibberish.install.limits import FetchError
from gibberish.install.netcheck import is_public_address, require_public
from gibberish.skills.parser import parse_skill_file
from tests.conftest import BUNDLED_SKILLS
from tests.interop.builders import free_port, gibberish_web, loopback
from tests.interop.conftest import INSTRUCTION_SKILL

BASE = "http://127.0.0.1:8765"


def art_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("art/SKILL.md", INSTRUCTION_SKILL)
    return buffer.getvalue()


@pytest.fixture
def app():  # type: ignore[no-untyped-def]
    installed = [parse_skill_file(BUNDLED_SKILLS / "notes" / "SKILL.md")]
    return create_app(lambda: installed, max_upload=256 * 1024)


@pytest.fixture
def stranger(app) -> TestClient:  # type: ignore[no-untyped-def]
    """A client on the right host that never saw the link."""
    return TestClient(app, base_url=BASE)


@pytest.fixture
def person(app) -> TestClient:  # type: ignore[no-untyped-def]
    """The person's browser tab: took the token from the printed link, sends it as Bearer."""
    return TestClient(app, base_url=BASE, headers={"Authorization": f"Bearer {app.state.token}"})


API_PATHS = ["/api/v1/skills", "/api/v1/targets", "/api/v1/nothing-here"]
SHELL_PATHS = ["/", "/openapi.json", "/docs", "/static/app.js", "/static/style.css"]


@pytest.mark.parametrize("path", API_PATHS)
def test_every_endpoint_needs_the_token(stranger: TestClient, path: str) -> None:
    response = stranger.get(path)
    assert response.status_code == 403
    assert "notes" not in response.text and "token" in response.json()["hint"]


@pytest.mark.parametrize("path", SHELL_PATHS)
def test_the_shell_is_served_without_the_token_and_holds_nothing_of_the_person(
    stranger: TestClient, path: str
) -> None:
    response = stranger.get(path)
    assert response.status_code == 200
    assert "notes" not in response.text and "set-cookie" not in response.headers


def test_an_old_token_link_moves_the_token_to_the_fragment(app, stranger: TestClient) -> None:  # type: ignore[no-untyped-def]
    first = stranger.get(f"/?token={app.state.token}", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == f"/#token={app.state.token}"
    assert "set-cookie" not in first.headers
    assert stranger.get("/?token=wrong", follow_redirects=False).status_code == 403


@pytest.mark.parametrize(
    "how",
    [
        {"headers": {"Authorization": "Bearer "}},
        {"headers": {"Authorization": "Bearer x"}},
        {"params": {"token": ""}},
    ],
)
def test_a_wrong_or_empty_token_is_refused(app, how: dict) -> None:  # type: ignore[no-untyped-def]
    client = TestClient(app, base_url=BASE, cookies=how.get("cookies"))
    response = client.get("/api/v1/skills", headers=how.get("headers"), params=how.get("params"))
    assert response.status_code == 403


def test_token_prefix_or_case_change_is_refused(app) -> None:  # type: ignore[no-untyped-def]
    client = TestClient(app, base_url=BASE)
    token = app.state.token
    for wrong in (token[:-1], token + "x", token.swapcase()):
        assert client.get("/api/v1/skills", params={"token": wrong}).status_code == 403


def test_a_bearer_header_or_the_parameter_is_served_and_no_cookie_is_set(
    app, person: TestClient
) -> None:  # type: ignore[no-untyped-def]
    answer = person.get("/api/v1/skills")
    assert answer.json()[0]["name"] == "notes" and "set-cookie" not in answer.headers
    api = TestClient(app, base_url=BASE)
    assert api.get("/api/v1/skills", params={"token": app.state.token}).status_code == 200
    assert not person.cookies and not api.cookies


@pytest.mark.parametrize("name", ["gibberish_web_8765", "gibberish_web_0", "token", "session"])
def test_a_cookie_holding_the_token_opens_nothing(app, name: str) -> None:  # type: ignore[no-untyped-def]
    """Whatever a cookie holds, another listener on this computer could replay it."""
    client = TestClient(app, base_url=BASE, cookies={name: app.state.token})
    assert client.get("/api/v1/skills").status_code == 403


def test_installed_skills_are_not_compiled_for_a_stranger(stranger: TestClient) -> None:
    data = {"target": "agent-skills", "installed_skill_name": "notes"}
    response = stranger.post("/api/v1/compile", data=data)
    assert response.status_code == 403 and b"notes/SKILL.md" not in response.content


@pytest.mark.parametrize(
    "host",
    [
        "testserver",
        "attacker.example",
        "127.0.0.1.nip.io",
        "localhost.attacker.example",
        "[::1]:8765",
        "0.0.0.0:8765",
        "127.0.0.2:8765",
        "",
    ],
)
def test_only_the_bound_address_and_localhost_are_served(
    app, person: TestClient, host: str
) -> None:  # type: ignore[no-untyped-def]
    response = person.get("/api/v1/skills", headers={"Host": host})
    assert response.status_code == 403
    for good in ("127.0.0.1:8765", "localhost:8765"):
        assert person.get("/api/v1/skills", headers={"Host": good}).status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://127.0.0.1:9999"},
        {"Origin": "http://localhost.evil.example:8765"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Sec-Fetch-Site": "cross-site", "Origin": "http://127.0.0.1:8765"},
    ],
)
def test_a_post_from_another_site_is_refused_even_with_the_token(
    person: TestClient, headers: dict
) -> None:
    response = person.post(
        "/api/v1/preview",
        data={"installed_skill_name": "notes"},
        headers=headers,
    )
    assert response.status_code == 403 and "another site" in response.json()["error"]


def test_a_same_origin_post_is_served(person: TestClient) -> None:
    headers = {"Origin": BASE, "Sec-Fetch-Site": "same-origin"}
    response = person.post(
        "/api/v1/preview", data={"installed_skill_name": "notes"}, headers=headers
    )
    assert response.status_code == 200, response.text


PRIVATE_URLS = [
    "http://127.0.0.1:{port}/art.zip",
    "http://localhost:{port}/art.zip",
    "http://[::1]:{port}/art.zip",
    "http://0x7f000001:{port}/art.zip",
    "http://2130706433:{port}/art.zip",
    "http://[::ffff:127.0.0.1]:{port}/art.zip",
    "git+http://127.0.0.1:{port}/repo.git",
    "http://10.0.0.1:{port}/art.zip",
    "http://169.254.169.254/latest/meta-data",
    "http://224.0.0.1/x.zip",
    "http://0.0.0.0:{port}/art.zip",
]


@pytest.mark.parametrize("template", PRIVATE_URLS)
def test_url_sources_reaching_private_addresses_are_refused(
    person: TestClient, template: str
) -> None:
    hits: list[str] = []
    with loopback() as server:
        url = server.file("/art.zip", art_zip(), "application/zip")
        route = server.routes["/art.zip"]
        server.routes["/art.zip"] = lambda handler: (hits.append("x"), route(handler))
        given = template.format(port=url.split(":")[2].split("/")[0])
        response = person.post("/api/v1/preview", data={"skill_url": given})
    assert response.status_code == 400, response.text
    assert "private" in response.json()["error"] or "resolve" in response.json()["error"]
    assert hits == []


def test_allow_private_urls_lets_them_through() -> None:
    installed = [parse_skill_file(BUNDLED_SKILLS / "notes" / "SKILL.md")]
    app = create_app(lambda: installed, allow_private_urls=True)
    client = TestClient(app, base_url=BASE, headers={"Authorization": f"Bearer {app.state.token}"})
    with loopback() as server:
        url = server.file("/art.zip", art_zip(), "application/zip")
        response = client.post("/api/v1/preview", data={"skill_url": url})
    assert response.status_code == 200, response.text


def test_a_name_that_resolves_public_first_then_private_is_stopped_at_connect(
    person: TestClient, monkeypatch
) -> None:
    """DNS rebinding: the name check passes, the connection lands on loopback."""
    monkeypatch.setattr(fetch_module, "require_public", lambda url: None)
    monkeypatch.setattr(download_module, "require_public", lambda url: None)
    hits: list[str] = []
    with loopback() as server:
        url = server.file("/art.zip", art_zip(), "application/zip")
        route = server.routes["/art.zip"]
        server.routes["/art.zip"] = lambda handler: (hits.append("x"), route(handler))
        response = person.post("/api/v1/preview", data={"skill_url": url})
    assert response.status_code == 400 and "private" in response.json()["error"]
    assert hits == []  # the connection itself is refused (tests/interop/test_dns_rebinding.py)


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("100.64.0.1", False),
        ("169.254.169.254", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("::1", False),
        ("::ffff:10.0.0.1", False),
        ("224.0.0.251", False),
        ("ff02::1", False),
        ("0.0.0.0", False),
        ("not an address", False),
    ],
)
def test_public_addresses(address: str, public: bool) -> None:
    assert is_public_address(address) is public


@pytest.mark.parametrize("url", ["git@127.0.0.1:x/y.git", "ssh://localhost/x", "https:///x"])
def test_require_public_covers_every_url_form(url: str) -> None:
    with pytest.raises(FetchError):
        require_public(url)


def test_errors_never_carry_server_paths(person: TestClient, tmp_path: Path) -> None:
    for payload in (b"not a zip", b"PK\x03\x04garbage", art_zip()[:40]):
        response = person.post(
            "/api/v1/preview",
            files={"skill_zip_file": ("s.zip", payload, "application/zip")},
        )
        assert response.status_code == 400
        text = response.text
        assert "/tmp" not in text and str(Path.home()) not in text, text
        assert "gibberish-upload" not in text and "gibberish-web" not in text


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to start a client as another user")
def test_another_local_user_cannot_read_the_skills(tmp_path: Path) -> None:
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is not installed")
    port = free_port()
    with gibberish_web(tmp_path, port) as process:
        assert process.stdout is not None
        url = process.stdout.readline().split()[2]
        probe = (
            "import urllib.request, urllib.error, sys\n"
            f"req = urllib.request.Request('http://127.0.0.1:{port}/api/v1/skills')\n"
            "for _ in range(300):\n"
            "    try:\n"
            "        urllib.request.urlopen(req, timeout=2); print('SERVED'); break\n"
            "    except urllib.error.HTTPError as e: print(e.code); break\n"
            "    except OSError: import time; time.sleep(0.05)\n"
        )
        other = subprocess.run(
            [
                setpriv,
                "--reuid=nobody",
                "--regid=nogroup",
                "--clear-groups",
                sys.executable,
                "-I",
                "-c",
                probe,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            cwd="/",
        )
        if other.returncode != 0 and not other.stdout:
            pytest.skip(f"the user nobody cannot run {sys.executable}: {other.stderr[-200:]}")
        assert other.stdout.strip() == "403", other.stdout + other.stderr
        token = url.split("#token=")[1]
        with httpx.Client(timeout=5, headers={"Authorization": f"Bearer {token}"}) as mine:
            assert mine.get(f"http://127.0.0.1:{port}/api/v1/skills").status_code == 200
