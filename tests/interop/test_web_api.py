"""The compile API (``/api/v1/...``), in process: sources, targets, hostile uploads."""

from __future__ import annotations

import io
import json
import os
import tempfile
import time
import tomllib
import zipfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gibberish.export.web.app import create_app
from gibberish.skills.parser import parse_skill_file
from tests.conftest import BUNDLED_SKILLS
from tests.interop.builders import loopback, zip_with
from tests.interop.conftest import ART_FILES, INSTRUCTION_SKILL


def art_zip(prefix: str = "art/", extra: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(prefix + "SKILL.md", INSTRUCTION_SKILL)
        for rel, text in {**ART_FILES, **(extra or {})}.items():
            archive.writestr(prefix + rel, text)
    return buffer.getvalue()


@pytest.fixture
def client() -> TestClient:
    installed = [parse_skill_file(BUNDLED_SKILLS / "notes" / "SKILL.md")]
    app = create_app(lambda: installed, max_upload=256 * 1024, allow_private_urls=True)
    return authorized(app)


def authorized(app) -> TestClient:  # type: ignore[no-untyped-def]
    """A client holding the launch's token, as the page's own browser tab does."""
    headers = {"Authorization": f"Bearer {app.state.token}"}
    return TestClient(app, base_url="http://127.0.0.1:8765", headers=headers)


def _post(client: TestClient, path: str, data: dict, upload: bytes | None = None, name="s.zip"):
    files = {"skill_zip_file": (name, upload, "application/zip")} if upload is not None else None
    return client.post(path, data=data, files=files)


def test_uploaded_zip_compiles_to_a_zip_with_toml_and_readme(client: TestClient) -> None:
    response = _post(client, "/api/v1/compile", {"output_name": "/draw"}, art_zip())
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/zip"
    assert 'filename="draw-gemini-command.zip"' in response.headers["content-disposition"]
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        assert archive.namelist() == ["draw.toml", "README.md"]
        command = tomllib.loads(archive.read("draw.toml").decode())
    assert command["description"] == "Draw generative art on a canvas."
    assert "--- BEGIN FILE: docs/colors.txt ---" in command["prompt"]


def test_preview_returns_the_same_files_as_text(client: TestClient) -> None:
    response = _post(client, "/api/v1/preview", {}, art_zip(prefix="repo-main/"))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["name"] == "art" and [f["path"] for f in body["files"]] == ["art.toml", "README.md"]


def test_agent_skills_target_for_an_installed_skill(client: TestClient) -> None:
    data = {"target": "agent-skills", "agent": "cursor", "installed_skill_name": "notes"}
    response = _post(client, "/api/v1/compile", data)
    assert response.status_code == 200, response.text
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        names = archive.namelist()
        readme = archive.read("README.md").decode()
        mode = archive.getinfo("notes/scripts/search-notes.sh").external_attr >> 16
    assert "notes/SKILL.md" in names and "notes/scripts/read-notes.sh" in names
    assert "cp -r notes ~/.cursor/skills/" in readme and mode & 0o111


def test_remote_url_goes_through_the_fetcher(client: TestClient) -> None:
    with loopback() as server:
        url = server.file("/art.zip", art_zip(), "application/zip")
        response = _post(client, "/api/v1/preview", {"skill_url": url})
    assert response.status_code == 200, response.text
    assert response.json()["name"] == "art"


@pytest.mark.parametrize(
    ("data", "upload", "status", "words"),
    [
        ({}, None, 400, "Give exactly one source"),
        ({"skill_url": "/etc"}, None, 400, "is not a remote URL"),
        ({"skill_url": "file:///etc"}, None, 400, "is not a remote URL"),
        ({"installed_skill_name": "nope"}, None, 404, "No installed skill named"),
        ({"target": "word"}, "art", 400, "Unknown target"),
        ({"output_name": "../x"}, "art", 400, "command name '../x' must be"),
        ({"target": "agent-skills", "agent": "emacs"}, "art", 400, "unknown agent 'emacs'"),
        ({}, "not a zip at all", 400, ""),
        ({}, "big", 413, "larger than 256 KiB"),
        ({}, "slip", 400, ".."),
        ({}, "empty", 400, "No SKILL.md found"),
        ({}, "two", 400, "several skills"),
    ],
)
def test_bad_requests_say_what_and_what_to_do(
    client: TestClient, tmp_path: Path, data: dict, upload: str | None, status: int, words: str
) -> None:
    payload = {
        None: None,
        "art": art_zip(),
        "not a zip at all": b"hello",
        "big": b"\0" * (300 * 1024),
        "slip": zip_with(tmp_path / "s.zip", [("../evil/SKILL.md", b"x", 0)]).read_bytes(),
        "empty": zip_with(tmp_path / "e.zip", [("readme.txt", b"x", 0)]).read_bytes(),
        "two": art_zip("a/art/") + b"",
    }[upload]
    if upload == "two":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for name in ("one", "two"):
                archive.writestr(f"x/{name}/SKILL.md", INSTRUCTION_SKILL.replace("art", name))
        payload = buffer.getvalue()
    response = _post(client, "/api/v1/preview", data, payload)
    assert response.status_code == status, response.text
    body = response.json()
    assert words in body["error"] and body["hint"]


def test_temporary_files_are_removed(client: TestClient, monkeypatch, tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert _post(client, "/api/v1/compile", {}, art_zip()).status_code == 200
    assert _post(client, "/api/v1/compile", {}, b"\0" * (300 * 1024)).status_code == 413
    assert _post(client, "/api/v1/compile", {}, art_zip("x/y/z/")).status_code == 200
    assert os.listdir(scratch) == []


def test_only_loopback_hosts_are_served(client: TestClient) -> None:
    response = client.get("/api/v1/skills", headers={"Host": "attacker.example"})
    assert response.status_code == 403
    assert client.get("/api/v1/skills").json()[0]["name"] == "notes"


def test_openapi_documents_the_compile_endpoint(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    post = schema["paths"]["/api/v1/compile"]["post"]
    assert "application/zip" in post["responses"]["200"]["content"]
    assert "413" in post["responses"]
    assert client.get("/docs").status_code == 200


def test_gibberish_web_serves_on_loopback(tmp_path: Path) -> None:
    import httpx

    from tests.interop.builders import free_port, gibberish_web

    port = free_port()
    with gibberish_web(tmp_path, port) as process:
        assert process.stdout is not None
        line = process.stdout.readline()  # printed once the port is bound
        assert f"http://127.0.0.1:{port}/#token=" in line, line  # never sent to a server
        url = line.split()[2]
        token = url.split("#token=")[1]
        with httpx.Client(timeout=5) as browser:
            page = _until_served(lambda: browser.get(url), process)
            assert page.status_code == 200 and "Compile a skill" in page.text
            assert "set-cookie" not in page.headers
            bearer = {"Authorization": f"Bearer {token}"}
            skills = browser.get(f"http://127.0.0.1:{port}/api/v1/skills", headers=bearer).json()
            assert "notes" in [s["name"] for s in skills]
        bare = httpx.get(f"http://127.0.0.1:{port}/api/v1/skills", timeout=5)
        assert bare.status_code == 403 and "notes" not in bare.text


def _until_served(get, process):  # type: ignore[no-untyped-def]
    """The first answer; uvicorn starts serving just after the port is bound."""
    import httpx

    deadline = time.monotonic() + 30
    while True:
        try:
            return get()
        except httpx.TransportError:
            assert process.poll() is None, "gibberish web exited"
            assert time.monotonic() < deadline, "gibberish web did not start"
            time.sleep(0.05)  # polling the condition: the port answers


def test_gibberish_web_refuses_other_hosts() -> None:
    from click.testing import CliRunner

    from gibberish.cli import cli

    result = CliRunner().invoke(cli, ["web", "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "for this computer only" in result.output


def test_oversized_or_unsized_bodies_are_refused_before_reading(client: TestClient) -> None:
    response = _post(client, "/api/v1/compile", {}, b"\0" * (1024 * 1024))
    assert response.status_code == 413 and "larger than 256 KiB" in response.json()["error"]

    def chunks():
        yield b"--x\r\n"

    response = client.post(
        "/api/v1/compile",
        content=chunks(),
        headers={"Content-Type": "multipart/form-data; boundary=x"},
    )
    assert response.status_code == 411 and response.json()["hint"]


def test_skillc_stub_target_for_an_uploaded_skill(client: TestClient) -> None:
    response = _post(client, "/api/v1/compile", {"target": "skillc-stub"}, art_zip())
    assert response.status_code == 200, response.text
    assert 'filename="art-stub.zip"' in response.headers["content-disposition"]
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        assert sorted(archive.namelist()) == [
            "README.md",
            "art/.skillc/manifest.json",
            "art/SKILL.md",
        ]
        stub = archive.read("art/SKILL.md").decode()
        manifest = json.loads(archive.read("art/.skillc/manifest.json"))
    assert "gibberish outline art" in stub and "BEGIN FILE" not in stub
    assert manifest["skill"] == "art" and len(manifest["source_hash"]) == 64
    targets = [t["id"] for t in client.get("/api/v1/targets").json()["targets"]]
    assert targets == ["gemini-toml", "agent-skills", "skillc-stub"]
