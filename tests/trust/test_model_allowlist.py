"""What a model may read is a list, not a list of exceptions (issue 37, item 2).

Hostile variants of each finding, through the Engine's real ``prepare`` for a
model-started run (``origin=MODEL``: MCP, ``ask``, voice), with and without the sandbox:

* an agent's login (Codex's ``auth.json``, Claude Code's ``.credentials.json``), git's
  credential store under ``XDG_CONFIG_HOME`` and ``~/.gitconfig`` are refused, from a
  project and from an agent started in the home folder;
* version-control internals (``.git/config`` whose remote holds a token, ``.hg/hgrc``,
  a nested repository's, through a link, by every spelling) are refused;
* the home folder (or a folder above it, or a link to it, or a home that is itself a
  repository) is never a project: every path in it asks, and a person must answer;
* what the run prints goes back to a model redacted, and the person's run log says so.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gibberish.app import Engine, EngineOptions
from gibberish.redaction import redact_output
from gibberish.runner import sandbox
from gibberish.trust.model_reads import RunOrigin

MODEL = RunOrigin.MODEL
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
REMOTE = f'[remote "origin"]\n\turl = https://x-access-token:{TOKEN}@github.com/o/r.git\n'


@pytest.fixture(params=["sandbox", "no-sandbox"])
def sandboxing(request, monkeypatch):
    if request.param == "sandbox" and not sandbox.status().active:
        pytest.skip(f"no working bubblewrap here ({sandbox.status().detail})")
    if request.param == "no-sandbox":
        monkeypatch.setenv(sandbox.SWITCH_VAR, "off")
    sandbox.reset()
    yield request.param
    sandbox.reset()


@pytest.fixture
def home() -> Path:
    return Path(os.environ["HOME"])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "config").write_text(REMOTE)
    (folder / ".git" / "credentials").write_text(f"https://u:{TOKEN}@github.com\n")
    (folder / ".hg").mkdir()
    (folder / ".hg" / "hgrc").write_text(f"[auth]\nx.password = {TOKEN}\n")
    (folder / "vendor" / "lib" / ".git").mkdir(parents=True)
    (folder / "vendor" / "lib" / ".git" / "config").write_text(REMOTE)
    (folder / "README.md").write_text("the project\n")
    (folder / "src").mkdir()
    return folder


def engine() -> Engine:
    return Engine(EngineOptions(include_user=False))


def decide(path: str, context: Path):  # type: ignore[no-untyped-def]
    prepared = engine().runs.prepare(
        "files.read_file", {"path": path}, context_dir=context, origin=MODEL
    )
    return prepared.decision


# -- an agent's login, git's credential store ------------------------------------------

AGENT_PLACES = [
    ".codex/auth.json",
    ".claude/.credentials.json",
    ".config/git/credentials",
    ".gitconfig",
    ".hgrc",
]


@pytest.mark.parametrize("rel", AGENT_PLACES)
@pytest.mark.parametrize("started", ["in a project", "in the home folder"])
def test_an_agents_login_and_gits_credentials_are_refused(
    home: Path, project: Path, sandboxing: str, rel: str, started: str
) -> None:
    secret = home / rel
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text(f'{{"token": "{TOKEN}"}}\n')
    context = project if started == "in a project" else home
    for spelled in (str(secret), "~/" + rel):
        decision = decide(spelled, context)
        assert decision.refused, (spelled, decision)
        assert TOKEN not in decision.reason


def test_gits_credential_store_under_xdg_config_home_is_refused(
    project: Path, sandboxing: str
) -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"])
    store = config / "git" / "credentials"
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text(f"https://u:{TOKEN}@github.com\n")
    assert decide(str(store), project).refused


# -- version-control internals ---------------------------------------------------------

VCS_SPELLINGS = [
    ".git/config",
    "./.git/config",
    "src/../.git/config",
    ".git//config",
    ".git",
    ".git/credentials",
    ".hg/hgrc",
    "vendor/lib/.git/config",
    "{project}/.git/config",
]


@pytest.mark.parametrize("spelled", VCS_SPELLINGS)
def test_version_control_internals_are_refused(
    project: Path, sandboxing: str, spelled: str
) -> None:
    decision = decide(spelled.format(project=project), project)
    assert decision.refused, decision
    assert "version-control" in decision.reason and TOKEN not in decision.reason


def test_a_link_to_a_remotes_address_is_refused(project: Path, sandboxing: str) -> None:
    (project / "innocent.txt").symlink_to(project / ".git" / "config")
    (project / "meta").symlink_to(project / ".git")
    for spelled in ("innocent.txt", "meta/config", str(project / "meta")):
        assert decide(spelled, project).refused, spelled


def test_the_projects_own_files_are_not_refused(project: Path, sandboxing: str) -> None:
    """The control: a file of the project is neither refused nor outside."""
    decision = decide("README.md", project)
    assert not decision.refused and not decision.reads_outside


# -- the home folder is never a project ------------------------------------------------


@pytest.fixture
def diary(home: Path) -> Path:
    path = home / "Documents" / "diary.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("dear diary\n")
    return path


def _asks_a_person(decision) -> bool:  # type: ignore[no-untyped-def]
    return (
        decision.asks
        and decision.person_must_answer
        and bool(decision.reads_outside)
        and "no project" in decision.reason
    )


@pytest.mark.parametrize("spelled", ["{diary}", "~/Documents/diary.txt", "Documents/diary.txt"])
def test_an_agent_started_in_home_has_no_project(
    home: Path, diary: Path, sandboxing: str, spelled: str
) -> None:
    decision = decide(spelled.format(diary=diary), home)
    assert _asks_a_person(decision), decision


def test_a_folder_above_home_is_no_project_either(diary: Path, sandboxing: str) -> None:
    for context in (Path("/"), diary.parents[2]):
        assert _asks_a_person(decide(str(diary), context)), context


def test_a_link_to_home_is_no_project(home: Path, diary: Path, tmp_path: Path) -> None:
    link = tmp_path / "looks-like-a-project"
    link.symlink_to(home)
    assert _asks_a_person(decide(str(diary), link))


def test_a_home_that_is_a_repository_is_no_project(home: Path, diary: Path) -> None:
    """Dotfiles kept in git: an agent in ~/Documents finds the repository root ~."""
    (home / ".git").mkdir(exist_ok=True)
    assert _asks_a_person(decide(str(diary), diary.parent))


def test_a_project_in_home_is_still_a_project(home: Path, sandboxing: str) -> None:
    """The control: a folder in the home folder is a project; its files do not ask."""
    proj = home / "code" / "app"
    (proj / ".git").mkdir(parents=True)
    (proj / "main.py").write_text("print()\n")
    decision = decide("main.py", proj)
    assert not decision.reads_outside and not decision.refused


# -- what goes back to the model is redacted ------------------------------------------

PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
SECRETS = {
    "GitHub token": TOKEN,
    "fine-grained GitHub token": "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "GitLab token": "glpat-abcdefghij0123456789",
    "Slack token": "xoxb-1234567890-abcdefghij",
    "AWS access key": "AKIAIOSFODNN7EXAMPLE",
    "OpenAI key": "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
    "Anthropic key": "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
    "Google API key": "AIza" + "B" * 35,
    "JSON web token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "private key": PRIVATE_KEY,
    "unterminated private key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7",
    "URL password": "https://alice:s3cr3t-pass@example.org/repo.git",
    "token as a URL user": f"https://{TOKEN[4:]}@github.com/o/r.git",
}


@pytest.mark.parametrize("kind", list(SECRETS))
def test_each_kind_of_secret_is_redacted(kind: str) -> None:
    secret = SECRETS[kind]
    text, counts = redact_output(f"before {secret} after")
    assert text.startswith("before ") and "[redacted" in text, text
    hidden = secret.split("@")[0].split("//")[-1] if "://" in secret else secret
    assert hidden not in text and sum(counts.values()) >= 1


def test_ordinary_text_is_left_alone() -> None:
    text = "ssh://git@github.com/o/r.git and git@github.com:o/r.git, sk-short, AKIA lowercase"
    assert redact_output(text) == (text, {})


def test_a_models_run_comes_back_redacted_and_the_log_says_so(
    project: Path, sandboxing: str
) -> None:
    from gibberish.mcp.server import GibberishMCP

    leak = project / "notes.txt"
    leak.write_text(f"remote: https://u:{TOKEN}@github.com/o/r\n{PRIVATE_KEY}\nkey {TOKEN}\n")
    eng = engine()
    server = GibberishMCP(eng, approver=lambda prepared, client: ("once", ""), cwd=project)
    exposed = next(e for e in server.skill_tools.values() if e.tool.name == "read_file")
    result = server.run_skill_tool(exposed, {"path": "notes.txt"})
    sent = result.structured_content
    assert sent is not None and sent["success"], sent
    assert TOKEN not in str(sent) and "PRIVATE KEY-----\nb3Bl" not in str(sent)
    assert "[redacted" in sent["output"]
    (recent,) = eng.runs.recent()
    log = Path(recent.result.log_path).read_text()
    assert "Removed before this output went to the model" in log and "private key" in log


def test_skills_open_refuses_a_skills_top_level_git_config(tmp_path: Path) -> None:
    from gibberish.mcp.server import GibberishMCP
    from gibberish.skills.disclosure import DisclosureError

    root = tmp_path / "skills"
    skill = root / "leaky"
    (skill / ".git").mkdir(parents=True)
    (skill / ".git" / "config").write_text(REMOTE)
    (skill / "SKILL.md").write_text("---\nname: leaky\ndescription: Leaks.\n---\n# Leaky\n")
    eng = Engine(
        EngineOptions(extra_skills_dirs=(root,), include_user=False, include_bundled=False)
    )
    server = GibberishMCP(eng, cwd=tmp_path)
    listed = {f["path"] for f in server.skills_sources("leaky")["files"]}
    assert ".git/config" not in listed
    for spelled in (".git/config", "./.git/config", ".git/../.git/config"):
        with pytest.raises(DisclosureError) as caught:  # the tool's error text
            server.skills_open("leaky", spelled)
        assert TOKEN not in str(caught.value)


def test_yes_does_not_answer_a_read_in_home_with_no_project(home: Path, diary: Path) -> None:
    """``ask --yes`` / ``listen --yes``: the standing answer is not taken; a person is asked
    (here: declines), so the diary is not read."""
    from gibberish.session import Answer, authorize

    eng = engine()
    prepared = eng.runs.prepare(
        "files.read_file", {"path": str(diary)}, context_dir=home, origin=MODEL
    )
    asked: list[str] = []

    def person(p) -> Answer:  # type: ignore[no-untyped-def]
        asked.append(p.ref)
        return Answer.CANCEL

    verdict = authorize(eng, prepared, person, yes=True, model_chose=True)
    assert asked == ["files.read_file"] and verdict.refused
