"""``gibberish install`` from plugins and marketplaces: every manifest kind, from a folder,
an archive and a git repository; a built plugin back byte for byte; hostile manifests."""

from __future__ import annotations

import json
import os
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.interop.builders import files_under, git_repo, needs_git, skill_text
from tests.interop.conftest import ART_FILES, ECHOER, INSTRUCTION_SKILL, write_skill

PROVENANCE = ".gibberish-source.json"
SCHEMA = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"

MANIFESTS: dict[str, dict[str, str]] = {
    "agent-plugins": {"plugin.json": json.dumps({"$schema": SCHEMA, "name": "kit"})},
    "claude": {".claude-plugin/plugin.json": json.dumps({"name": "kit", "version": "1.0.0"})},
    "gemini": {"gemini-extension.json": json.dumps({"name": "kit", "version": "1.0.0"})},
    "codex": {
        ".codex-plugin/plugin.json": json.dumps(
            {"name": "kit", "version": "1.0.0", "skills": "./extra/"}
        )
    },
}


def _plugin_files(kind: str, prefix: str = "") -> dict[str, str]:
    """A plugin of ``kind`` holding skills one and two (Codex lists its own folder)."""
    folder = "extra" if kind == "codex" else "skills"
    files = {f"{prefix}{rel}": text for rel, text in MANIFESTS[kind].items()}
    files[f"{prefix}{folder}/one/SKILL.md"] = skill_text("one")
    files[f"{prefix}{folder}/two/SKILL.md"] = skill_text("two")
    files[f"{prefix}{folder}/two/notes/usage.md"] = "How to use two.\n"
    files[f"{prefix}docs/not-a-skill/SKILL.md"] = skill_text("stray")
    return files


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _tar(root: Path, path: Path) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        archive.add(root, arcname=root.name)
    return path


def _source(tmp_path: Path, files: dict[str, str], transport: str) -> str:
    folder = _write(tmp_path / "src" / "kit", files)
    if transport == "folder":
        return str(folder)
    if transport == "archive":
        return str(_tar(folder, tmp_path / "kit.tar.gz"))
    return f"file://{git_repo(tmp_path / 'repo', files)}"


@pytest.mark.parametrize("transport", ["folder", "archive", pytest.param("git", marks=needs_git)])
@pytest.mark.parametrize("kind", sorted(MANIFESTS))
def test_each_manifest_kind_from_each_transport(
    gib: Callable[..., Result], tmp_path: Path, user_skills: Path, kind: str, transport: str
) -> None:
    source = _source(tmp_path, _plugin_files(kind), transport)
    folder = "extra" if kind == "codex" else "skills"
    if transport == "archive":
        folder = f"kit/{folder}"
    result = gib("install", source, "--yes", "--no-sync")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in user_skills.iterdir() if not p.name.startswith(".")) == [
        "one",
        "two",
    ]  # only what the manifest points at: docs/not-a-skill is no part of the plugin
    assert (user_skills / "two" / "notes" / "usage.md").read_text() == "How to use two.\n"
    record = json.loads((user_skills / "one" / PROVENANCE).read_text())
    assert record["kind"] == ("folder" if transport == "folder" else transport)
    assert record["resolved"] or transport == "folder"
    listed = json.loads(gib("installed", "--json").output)
    assert {e["name"] for e in listed} == {"one", "two"}
    assert {e["path"] for e in listed} == {f"{folder}/one", f"{folder}/two"}


MARKET = {
    ".claude-plugin/marketplace.json": json.dumps(
        {
            "name": "shop",
            "owner": {"name": "Shop"},
            "metadata": {"pluginRoot": "./plugins"},
            "plugins": [
                {"name": "alpha", "source": "./plugins/alpha"},
                {"name": "beta", "source": "beta"},
                {"name": "gamma", "source": "./plugins/gamma"},
            ],
        }
    ),
    "plugins/alpha/.claude-plugin/plugin.json": json.dumps({"name": "alpha"}),
    "plugins/alpha/skills/a-one/SKILL.md": skill_text("a-one"),
    "plugins/beta/plugin.json": json.dumps({"$schema": SCHEMA, "name": "beta"}),
    "plugins/beta/skills/b-one/SKILL.md": skill_text("b-one"),
    "plugins/beta/skills/b-two/SKILL.md": skill_text("b-two"),
    "plugins/beta/mcp.json": json.dumps(
        {
            "mcpServers": {
                "beta-files": {"type": "stdio", "command": "npx", "args": ["-y", "files-mcp"]},
                "beta-own": {"command": "node", "args": ["${PLUGIN_ROOT}/server.js"]},
            }
        }
    ),
    "plugins/gamma/gemini-extension.json": json.dumps({"name": "gamma", "version": "1.0.0"}),
    "plugins/gamma/skills/g-one/SKILL.md": skill_text("g-one"),
}


@pytest.mark.parametrize("transport", ["folder", "archive", pytest.param("git", marks=needs_git)])
def test_marketplace_installs_one_plugin_or_all(
    gib: Callable[..., Result], tmp_path: Path, user_skills: Path, transport: str
) -> None:
    source = _source(tmp_path, MARKET, transport)
    result = gib("install", source, "--plugin", "beta", "--yes", "--no-sync")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in user_skills.iterdir() if p.is_dir() and p.name[0] != ".") == [
        "b-one",
        "b-two",
    ]
    assert "MCP server beta-files for b-one: npx -y files-mcp (recorded, not started)" in (
        result.output
    )
    assert "beta-own runs files of the plugin itself" in result.output
    result = gib("install", source, "--yes", "--no-sync", "--replace")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in user_skills.iterdir() if p.is_dir() and p.name[0] != ".") == [
        "a-one",
        "b-one",
        "b-two",
        "g-one",
    ]


def test_unknown_plugin_name_is_named(
    gib: Callable[..., Result], tmp_path: Path, user_skills: Path
) -> None:
    source = _source(tmp_path, MARKET, "folder")
    result = gib("install", source, "--plugin", "delta", "--yes", "--no-sync")
    assert result.exit_code == 1
    assert "no plugin named delta (it lists alpha, beta, gamma)" in result.output
    assert not user_skills.exists() or not any(user_skills.iterdir())


@pytest.mark.parametrize("transport", ["folder", "archive", pytest.param("git", marks=needs_git)])
def test_a_built_plugin_installs_back_byte_for_byte(
    gib: Callable[..., Result], tmp_path: Path, user_skills: Path, transport: str
) -> None:
    mine = tmp_path / "mine"
    write_skill(mine, "art", INSTRUCTION_SKILL, ART_FILES)
    write_skill(mine, "echoer", ECHOER)
    os.chmod(mine / "art" / "code.js", 0o755)
    out = tmp_path / "built" / "my-kit"
    result = gib(
        "--no-bundled", "--no-user-skills", "--skills-dir", str(mine),
        "plugin", "build", "--out", str(out), "--marketplace",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    if transport == "folder":
        source = str(out)
    elif transport == "archive":
        source = str(_tar(out, tmp_path / "my-kit.tar.gz"))
    else:
        files = {k: v.decode() for k, v in files_under(out).items()}
        source = f"file://{git_repo(tmp_path / 'repo', files)}"
    result = gib("install", source, "--yes", "--no-sync")
    assert result.exit_code == 0, result.output
    for name in ("art", "echoer"):
        back = files_under(user_skills / name)
        back.pop(PROVENANCE)
        assert back == files_under(mine / name)
    if transport != "git":  # git keeps only the executable bit it was given
        assert os.stat(user_skills / "art" / "code.js").st_mode & 0o111


HOSTILE = [
    ({"name": "m", "plugins": [{"name": "x", "source": "../outside"}]}, "leaves the plugin folder"),
    ({"name": "m", "plugins": [{"name": "x", "source": "/etc"}]}, "leaves the plugin folder"),
    ({"name": "m", "plugins": [{"name": "x", "source": "./a/../../b"}]}, "leaves the plugin"),
    ({"name": "m", "plugins": [{"name": "x", "source": "C:\\x"}]}, "leaves the plugin folder"),
    ({"name": "m", "plugins": [{"name": "x", "source": "./link"}]}, "link"),
    ({"name": "m", "plugins": [{"name": "x", "source": 7}]}, "must be a relative path"),
    (
        {"name": "m", "plugins": [{"name": "x", "source": {"source": "github", "repo": "o/r"}}]},
        "`gibberish install github:o/r`",
    ),
    ({"name": "m", "plugins": []}, "lists no plugins"),
    ({"name": "m", "plugins": [{"source": "./p"}]}, "plugins[0] has no name"),
]


@pytest.mark.parametrize(("market", "message"), HOSTILE)
def test_hostile_marketplaces_are_refused_with_a_reason(
    gib: Callable[..., Result], tmp_path: Path, user_skills: Path, market: dict, message: str
) -> None:
    root = _write(tmp_path / "m", {".claude-plugin/marketplace.json": json.dumps(market)})
    _write(root, {"p/skills/s/SKILL.md": skill_text("s")})
    _write(tmp_path, {"b/skills/evil/SKILL.md": skill_text("evil")})
    if message == "link":  # the fetch refuses a link out of the source before any manifest
        (root / "link").symlink_to("../b")
    result = gib("install", str(root), "--yes", "--no-sync")
    assert result.exit_code == 1, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not (user_skills / "evil").exists() and not (user_skills / "s").exists()


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ({"name": "k", "skills": ["../../b/skills"]}, "leaves the plugin folder"),
        ({"name": "k", "skills": "/tmp"}, "leaves the plugin folder"),
        ({"name": "k", "skills": ["./link"]}, "link"),
        ({"name": "k", "mcpServers": "../secrets.json"}, "leaves the plugin folder"),
    ],
)
def test_hostile_plugin_paths_are_refused(
    gib: Callable[..., Result], tmp_path: Path, user_skills: Path, manifest: dict, message: str
) -> None:
    root = _write(tmp_path / "k", {".claude-plugin/plugin.json": json.dumps(manifest)})
    _write(root, {"skills/s/SKILL.md": skill_text("s")})
    _write(tmp_path, {"b/skills/evil/SKILL.md": skill_text("evil")})
    if message == "link":
        (root / "link").symlink_to("../b/skills")
    result = gib("install", str(root), "--yes", "--no-sync")
    assert result.exit_code == 1, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not (user_skills / "evil").exists()


def test_broken_manifest_json_names_file_and_line(
    gib: Callable[..., Result], tmp_path: Path, user_skills: Path
) -> None:
    root = _write(tmp_path / "k", {"gemini-extension.json": '{\n  "name": "k",\n  oops\n}'})
    _write(root, {"skills/s/SKILL.md": skill_text("s")})
    result = gib("install", str(root), "--yes", "--no-sync")
    assert result.exit_code == 1
    assert "gemini-extension.json:3: not valid JSON" in result.output


def test_plugin_without_skills_says_so(
    gib: Callable[..., Result], tmp_path: Path, user_skills: Path
) -> None:
    root = _write(tmp_path / "k", {"plugin.json": json.dumps({"$schema": SCHEMA, "name": "k"})})
    result = gib("install", str(root), "--yes", "--no-sync")
    assert result.exit_code == 1 and "the plugin holds no skills" in result.output


def test_a_manifest_path_through_a_link_out_is_refused_even_after_the_fetch(tmp_path: Path) -> None:
    """The fetch already refuses links out of a source; the manifest's own check holds too."""
    from gibberish.install.discover import InstallError
    from gibberish.install.plugin_source import inside

    base = tmp_path / "plugin"
    (tmp_path / "elsewhere").mkdir()
    base.mkdir()
    (base / "out").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InstallError, match="leads outside the plugin through a link"):
        inside(base, "./out", "plugin.json", "a skills path")
    assert inside(base, "./skills/x", "plugin.json", "a skills path") == base / "skills" / "x"


def _claude_servers(home: Path) -> dict:
    config = home / ".claude.json"
    return json.loads(config.read_text()).get("mcpServers", {}) if config.exists() else {}


@pytest.fixture
def claude_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A home where only Claude Code is found (its folder; no agent on PATH)."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    return home


def test_a_plugins_mcp_server_reaches_an_agent_only_with_consent(
    gib: Callable[..., Result], tmp_path: Path, user_skills: Path, claude_home: Path
) -> None:
    source = _source(tmp_path, MARKET, "folder")
    result = gib("install", source, "--plugin", "beta", "--yes", "--sync")
    assert result.exit_code == 0, result.output
    assert (claude_home / ".claude" / "skills" / "b-one" / "SKILL.md").is_file()
    assert "beta-files" not in _claude_servers(claude_home)
    assert "--allow-mcp beta-files" in result.output
    record = json.loads((user_skills / "b-one" / PROVENANCE).read_text())
    assert record["mcp"] == {
        "beta-files": {"command": "npx", "args": ["-y", "files-mcp"], "env": {}}
    }
    assert "mcp" not in json.loads((user_skills / "b-two" / PROVENANCE).read_text())

    result = gib("sync", "claude-code", "--allow-mcp", "beta-files")
    assert result.exit_code == 0, result.output
    assert _claude_servers(claude_home)["beta-files"]["command"] == "npx"
    assert "beta-own" not in _claude_servers(claude_home)

    result = gib("uninstall", "b-one", "--yes")
    assert result.exit_code == 0, result.output
    assert "beta-files" not in _claude_servers(claude_home)


@needs_git
def test_a_skill_from_a_marketplace_updates_from_its_repository(
    gib: Callable[..., Result], tmp_path: Path, user_skills: Path
) -> None:
    from tests.interop.builders import commit_files

    repo = git_repo(tmp_path / "repo", MARKET)
    result = gib("install", f"file://{repo}", "--plugin", "beta", "--yes", "--no-sync")
    assert result.exit_code == 0, result.output
    changed = skill_text("b-one", command="echo changed")
    commit_files(repo, {"plugins/beta/skills/b-one/SKILL.md": changed}, "change b-one")
    result = gib("update", "b-one", "--yes")
    assert result.exit_code == 0, result.output
    assert "b-one: updated" in result.output
    assert (user_skills / "b-one" / "SKILL.md").read_text() == changed
    assert gib("update", "b-two", "--yes").output.startswith("b-two: up to date")


def test_a_marketplace_entry_may_list_its_plugins_skills(
    gib: Callable[..., Result], tmp_path: Path, user_skills: Path
) -> None:
    entry = {"name": "solo", "source": "./solo", "strict": False, "skills": ["./extra/"]}
    root = _write(
        tmp_path / "m",
        {
            ".claude-plugin/marketplace.json": json.dumps({"name": "m", "plugins": [entry]}),
            "solo/extra/inline/SKILL.md": skill_text("inline"),
            "solo/skills/usual/SKILL.md": skill_text("usual"),
        },
    )
    result = gib("install", str(root), "--yes", "--no-sync")
    assert result.exit_code == 0, result.output
    assert {p.name for p in user_skills.iterdir() if p.name[0] != "."} == {"inline", "usual"}

    entry["skills"] = ["../../outside"]
    (root / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps({"name": "m", "plugins": [entry]})
    )
    result = gib("install", str(root), "--yes", "--no-sync", "--replace")
    assert result.exit_code == 1 and "leaves the plugin folder" in result.output
