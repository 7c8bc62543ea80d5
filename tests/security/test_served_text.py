"""Nothing that serves a skill's text follows a link out of its folder (issue 26, finding 5).

``gibberish show``, the MCP tool ``skills_show`` (and its siblings) and the resource
``skill://X/SKILL.md`` read only files inside the skill folder; a skill that failed to
load is never served. Variants: a link to ``/proc/self/environ``, to a secret file by
absolute path, by a relative ``..`` path, through a chain of links, and a FIFO.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.engine.core import Engine, EngineOptions
from gibberish.mcp.server import GibberishMCP
from gibberish.skills import disclosure

SECRET = "API_KEY=sk-very-secret-value"
GOOD = "---\nname: good\ndescription: A good skill.\nversion: 1.0.0\n---\n\n# Good\n\nHello.\n"


def _to_proc(folder: Path, secret: Path) -> None:
    os.symlink("/proc/self/environ", folder / "SKILL.md")


def _absolute(folder: Path, secret: Path) -> None:
    os.symlink(secret, folder / "SKILL.md")


def _relative(folder: Path, secret: Path) -> None:
    os.symlink(os.path.relpath(secret, folder), folder / "SKILL.md")


def _chain(folder: Path, secret: Path) -> None:
    os.symlink(secret, folder / "hop")
    os.symlink("hop", folder / "SKILL.md")


def _fifo(folder: Path, secret: Path) -> None:
    os.mkfifo(folder / "SKILL.md")


LINKS: dict[str, Callable[[Path, Path], None]] = {
    "proc-environ": _to_proc,
    "absolute": _absolute,
    "relative": _relative,
    "chain": _chain,
    "fifo": _fifo,
}


@pytest.fixture(params=sorted(LINKS))
def planted(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch) -> Path:
    """A skills folder with a good skill and ``evil`` whose SKILL.md is planted."""
    monkeypatch.setenv("API_KEY", "sk-very-secret-value")
    secret = tmp_path / "private" / "notes.md"
    secret.parent.mkdir()
    secret.write_text(f"---\nname: evil\ndescription: d\n---\n\n{SECRET}\n", encoding="utf-8")
    skills = tmp_path / "skills"
    (skills / "good").mkdir(parents=True)
    (skills / "good" / "SKILL.md").write_text(GOOD, encoding="utf-8")
    (skills / "evil").mkdir()
    LINKS[request.param](skills / "evil", secret)
    return skills


def test_show_refuses_a_planted_skill_md(planted: Path) -> None:
    for args in (["show", "evil"], ["outline", "evil"], ["show", str(planted / "evil")]):
        result = CliRunner().invoke(
            cli, ["--no-bundled", "--no-user-skills", "--skills-dir", str(planted), *args]
        )
        assert result.exit_code == 1, result.output
        assert "sk-very-secret" not in result.output
    search = CliRunner().invoke(
        cli,
        ["--no-bundled", "--no-user-skills", "--skills-dir", str(planted), "search", "secret"],
    )
    assert "sk-very-secret" not in search.output


def _server(planted: Path) -> GibberishMCP:
    engine = Engine(
        EngineOptions(extra_skills_dirs=(planted,), include_bundled=False, include_user=False)
    )
    return GibberishMCP(engine, approver=lambda prepared: None, cwd=planted)


def test_mcp_tools_and_resources_refuse_a_planted_skill_md(planted: Path) -> None:
    server = _server(planted)

    async def main() -> tuple[list[str], list[str]]:
        texts: list[str] = []
        for tool, args in (
            ("skills_show", {"name": "evil"}),
            ("skills_outline", {"name": "evil"}),
            ("skills_sources", {"name": "evil"}),
            ("skills_search", {"query": "secret value API_KEY"}),
        ):
            try:
                texts.append(repr(await server.call_tool(tool, args)))
            except Exception as exc:  # a refused call is the tool's error
                texts.append(str(exc))
        resources = [str(r.uri) for r in await server.list_resources()]
        return texts, resources

    texts, resources = anyio.run(main)
    assert all("sk-very-secret" not in t for t in texts), texts
    assert "skill://evil/SKILL.md" not in resources
    assert "skill://good/SKILL.md" in resources
    assert "Hello." in repr(anyio.run(server.call_tool, "skills_show", {"name": "good"}))


def test_a_resource_whose_file_becomes_a_link_later_is_refused(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    (skills / "good").mkdir(parents=True)
    (skills / "good" / "SKILL.md").write_text(GOOD, encoding="utf-8")
    server = _server(skills)
    (skills / "good" / "SKILL.md").unlink()
    os.symlink("/proc/self/environ", skills / "good" / "SKILL.md")

    async def read() -> str:
        try:
            return repr(await server.read_resource("skill://good/SKILL.md"))
        except Exception as exc:
            return str(exc)

    assert "sk-" not in anyio.run(read) and "PATH=" not in anyio.run(read)


def test_read_text_refuses_proc_and_devices(tmp_path: Path) -> None:
    for path in (Path("/proc/self/environ"), Path("/dev/zero")):
        with pytest.raises((disclosure.DisclosureError, OSError)):
            disclosure.read_text(path)
    inside = tmp_path / "a.md"
    inside.write_text("fine", encoding="utf-8")
    assert disclosure.read_text(inside) == "fine"


def test_a_link_to_a_file_inside_the_folder_is_still_served(tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "good"
    folder.mkdir(parents=True)
    (folder / "REAL.md").write_text(GOOD, encoding="utf-8")
    os.symlink("REAL.md", folder / "SKILL.md")
    assert "Hello." in disclosure.show(folder)


def test_the_web_page_does_not_serve_a_skill_that_failed_to_load(planted: Path) -> None:
    from fastapi.testclient import TestClient

    from gibberish.export.web.app import create_app

    engine = Engine(
        EngineOptions(extra_skills_dirs=(planted,), include_bundled=False, include_user=False)
    )
    app = create_app(engine.library.skills)
    client = TestClient(
        app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {app.state.token}"}
    )
    for target in ("gemini-toml", "agent-skills", "skillc-stub"):
        response = client.post(
            "/api/v1/preview", data={"installed_skill_name": "evil", "target": target}
        )
        assert response.status_code == 404, response.text
        assert "failed to load" in response.json()["error"]
        assert "sk-very-secret" not in response.text
