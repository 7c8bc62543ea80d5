"""The compile page in a real headless Chromium: upload, preview, download, load in Gemini.

Playwright drives Debian's ``chromium`` (``playwright install`` is not needed and not
used). Screenshots go to a temporary folder, or to ``$GIBBERISH_SCREENSHOTS_DIR`` when
set (``docs/screenshots`` is refreshed that way).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gibberish.export.web.app import create_app
from gibberish.skills.parser import parse_skill_file
from tests.conftest import BUNDLED_SKILLS
from tests.helpers.skill_folders import ART_FILES, INSTRUCTION_SKILL, GeminiCli, write_skill

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Served:
    """The page's address and the token ``gibberish web`` would print with it."""

    base: str
    token: str

    def __add__(self, path: str) -> str:  # the link gibberish web prints, for "/"
        return f"{self.base}{path}#token={self.token}" if path == "/" else self.base + path


@pytest.fixture
def server() -> Iterator[Served]:
    uvicorn = pytest.importorskip("uvicorn")
    installed = [parse_skill_file(BUNDLED_SKILLS / "notes" / "SKILL.md")]
    app = create_app(lambda: installed)
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    instance = uvicorn.Server(config)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [sock]})
    thread.start()
    try:
        while not instance.started:
            if not thread.is_alive():
                pytest.fail("the web server did not start")
            thread.join(0.05)
        base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        yield Served(base, app.state.token)
    finally:
        instance.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture
def browser_page():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="pip install playwright (dev extra)"
    )
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(
                accept_downloads=True, viewport={"width": 1000, "height": 900}
            )
            yield context.new_page()
        finally:
            browser.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("GIBBERISH_SCREENSHOTS_DIR") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _art_zip(tmp_path: Path) -> Path:
    folder = write_skill(tmp_path / "src", "art", INSTRUCTION_SKILL, ART_FILES)
    path = tmp_path / "art.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                archive.write(file, file.relative_to(folder.parent).as_posix())
    return path


def test_upload_preview_download_and_gemini_loads_it(
    server: Served, browser_page, tmp_path: Path, shots: Path, gemini_cli: GeminiCli
) -> None:
    page = browser_page
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready=true]")
    page.set_input_files("#zip", str(_art_zip(tmp_path)))
    page.fill("#name", "draw")
    page.click("#preview")
    page.wait_for_selector("#result:not([hidden])")
    preview = page.inner_text("#files")
    assert page.inner_text("#result-title") == "draw-gemini-command.zip — 2 files"
    assert "draw.toml" in preview
    assert "--- BEGIN FILE: templates/style.html ---" in preview
    assert "cp draw.toml ~/.gemini/commands/" in preview
    page.screenshot(path=str(shots / "web-preview.png"), full_page=False)

    with page.expect_download() as download_info:
        page.click("#download")
    saved = tmp_path / "download.zip"
    download_info.value.save_as(saved)
    assert download_info.value.suggested_filename == "draw-gemini-command.zip"

    home = Path(os.environ["HOME"])
    with zipfile.ZipFile(saved) as archive:
        assert archive.namelist() == ["draw.toml", "README.md"]
        archive.extract("draw.toml", home / ".gemini" / "commands")
    loaded = gemini_cli.load_commands(home, "a spiral in teal")
    assert loaded["errors"] == []
    [command] = loaded["commands"]
    expected = tomllib.loads((home / ".gemini" / "commands" / "draw.toml").read_text())["prompt"]
    assert command["name"] == "draw"
    assert command["prompt"] == expected.replace("{{args}}", "a spiral in teal")


def test_errors_are_shown_with_what_to_do(server: Served, browser_page, shots: Path) -> None:
    page = browser_page
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready=true]")
    page.check("input[name=source][value=url]")
    page.fill("#url", "/home/me/.ssh")
    page.click("#preview")
    page.wait_for_selector("#error:not([hidden])")
    assert "is not a remote URL" in page.inner_text("#error-text")
    assert "pick it from the list" in page.inner_text("#error-hint")
    assert page.is_disabled("#download")
    page.screenshot(path=str(shots / "web-error.png"))


def test_an_installed_skill_as_an_agent_skills_folder(
    server: Served, browser_page, shots: Path
) -> None:
    page = browser_page
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready=true]")
    page.check("input[name=source][value=installed]")
    page.select_option("#installed", "notes")
    page.check("input[name=target][value=agent-skills]")
    page.select_option("#agent", "codex")
    page.click("#preview")
    page.wait_for_selector("#result:not([hidden])")
    text = page.inner_text("#files")
    assert "notes/SKILL.md" in text and "cp -r notes ~/.agents/skills/" in text
    page.screenshot(path=str(shots / "web-agent-skills.png"))
