"""Fuzzing what comes from outside (issue 26, "Beyond the findings").

Hypothesis drives, with bounded examples so each test takes a few seconds:

* the web API (every form field, random uploads) on loopback through the real app and
  its guard: never a 500, never a server path, never served without the token;
* the MCP disclosure tools' arguments and ``skill://`` resource URIs: never a byte from
  outside the skill folder;
* archive member names: nothing is written outside the staging folder;
* SKILL.md ``name:`` values reaching every writer (stub, sync, compile, the web
  builder): each either refuses with a message or writes inside its target only.
"""

from __future__ import annotations

import io
import os
import tempfile
import warnings
import zipfile
from pathlib import Path

import anyio
import msgspec.structs
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gibberish.engine.core import Engine, EngineOptions
from gibberish.export.compile import CompileError, compile_skill, write_outputs
from gibberish.export.stub import StubTargetError, build_stub
from gibberish.export.sync import apply_folder, plan_folder
from gibberish.export.web.app import create_app
from gibberish.export.web.guard import split_host
from gibberish.export.web.service import ServiceError, build
from gibberish.install.fetch import FetchError, fetch
from gibberish.mcp.server import GibberishMCP
from gibberish.pathsafety import UnsafeNameError
from gibberish.skills.model import Trust
from gibberish.skills.parser import parse_skill_file
from tests.conftest import BUNDLED_SKILLS

FAST = settings(
    max_examples=int(os.environ.get("GIBBERISH_FUZZ_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
SECRET = "FUZZ-SECRET-7c1e"
NASTY = st.sampled_from(
    ["..", "../..", "/", "/etc/passwd", "a/../../b", "\\", "\x00", "~", "%2e%2e", "-x", " ", ""]
)
TEXT = st.one_of(NASTY, st.text(max_size=40), st.builds("/".join, st.lists(NASTY, max_size=4)))


def art_zip(names: list[str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w") as archive:
        warnings.simplefilter("ignore", UserWarning)  # duplicate names are part of the fuzz
        archive.writestr(
            "art/SKILL.md", "---\nname: art\ndescription: Art.\nversion: 1.0.0\n---\n\n# Art\n"
        )
        for name in names or []:
            try:
                archive.writestr(name, b"x")
            except (IndexError, ValueError):  # a name zipfile itself cannot write
                continue
    return buffer.getvalue()


# -- the web API ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def web():  # type: ignore[no-untyped-def]
    installed = [parse_skill_file(BUNDLED_SKILLS / "notes" / "SKILL.md")]
    app = create_app(lambda: installed, max_upload=64 * 1024)
    person = TestClient(
        app,
        base_url="http://127.0.0.1:8765",
        headers={"Authorization": f"Bearer {app.state.token}"},
    )
    return app, person


FORM = st.fixed_dictionaries(
    {},
    optional={
        "target": st.one_of(st.sampled_from(["gemini-toml", "agent-skills", "skillc-stub"]), TEXT),
        "output_name": TEXT,
        "agent": st.one_of(st.sampled_from(["cursor", "claude-code"]), TEXT),
        "skill_url": st.one_of(
            TEXT,
            st.sampled_from(
                ["file:///etc/passwd", "http://127.0.0.1:1/x.zip", "git+file:///", "/etc"]
            ),
        ),
        "installed_skill_name": st.one_of(st.just("notes"), TEXT),
        "skill_in_archive": TEXT,
    },
)
UPLOAD = st.one_of(
    st.none(),
    st.binary(max_size=2048),
    st.lists(TEXT, max_size=3).map(art_zip),
)


@FAST
@given(form=FORM, upload=UPLOAD)
def test_web_api_answers_every_form_without_a_500_or_a_server_path(web, form, upload) -> None:  # type: ignore[no-untyped-def]
    _app, person = web
    files = {"skill_zip_file": ("s.zip", upload, "application/zip")} if upload is not None else None
    data = {k: v.replace("\x00", "") for k, v in form.items()}
    for path in ("/api/v1/preview", "/api/v1/compile"):
        response = person.post(path, data=data, files=files)
        assert response.status_code in (200, 400, 404, 413, 422), response.text
        if response.status_code != 200:
            assert "/tmp/" not in response.text and str(Path.home()) not in response.text


@FAST
@given(
    path=st.sampled_from(["/", "/api/v1/skills", "/api/v1/preview", "/docs", "/openapi.json"]),
    token=st.text(max_size=60),
    host=st.one_of(st.just("127.0.0.1:8765"), st.text(max_size=30)),
)
def test_web_api_never_serves_without_the_token(web, path: str, token: str, host: str) -> None:  # type: ignore[no-untyped-def]
    app, _person = web
    if token == app.state.token:
        return
    stranger = TestClient(app, base_url="http://127.0.0.1:8765")
    headers = {"Host": host.encode("ascii", "ignore").decode() or "x"}
    try:
        response = stranger.get(path, params={"token": token}, headers=headers)
    except ValueError:  # the client itself cannot send that Host
        assert split_host(headers["Host"]) == ("", None)
        return
    assert response.status_code == 403 and "notes" not in response.text


# -- MCP tool arguments and resource URIs ---------------------------------------------------


@pytest.fixture(scope="module")
def mcp(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("mcp")
    (root / "secret.md").write_text(f"# Secret\n\n{SECRET}\n", encoding="utf-8")
    skill = root / "skills" / "good"
    (skill / "docs").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: good\ndescription: Good.\nversion: 1.0.0\n---\n\n# Good\n\n## Part\n\nx\n",
        encoding="utf-8",
    )
    os.symlink(root / "secret.md", skill / "docs" / "out.md")
    engine = Engine(
        EngineOptions(
            extra_skills_dirs=(root / "skills",), include_bundled=False, include_user=False
        )
    )
    return GibberishMCP(engine, approver=lambda prepared: None, cwd=root)


async def _call(server: GibberishMCP, tool: str, args: dict) -> str:
    try:
        return repr(await server.call_tool(tool, args))
    except Exception as exc:  # the tool's error is the answer
        return str(exc)


@FAST
@given(
    tool=st.sampled_from(
        ["skills_show", "skills_open", "skills_outline", "skills_sources", "skills_search"]
    ),
    name=st.one_of(st.just("good"), TEXT),
    path=st.one_of(st.just("docs/out.md"), st.just("../secret.md"), TEXT),
    section=st.one_of(st.none(), st.just("Secret"), TEXT),
    max_lines=st.one_of(st.none(), st.integers(-5, 5)),
)
def test_mcp_tool_arguments_never_reach_outside_the_skill(
    mcp, tool, name, path, section, max_lines
) -> None:  # type: ignore[no-untyped-def]
    args = {
        "skills_show": {"name": name, "section": section, "max_lines": max_lines},
        "skills_open": {"name": name, "path": path},
        "skills_outline": {"name": name},
        "skills_sources": {"name": name},
        "skills_search": {"query": section or name or "secret"},
    }[tool]
    assert SECRET not in anyio.run(_call, mcp, tool, args)


@FAST
@given(uri=st.one_of(TEXT, st.builds("skill://{}/SKILL.md".format, TEXT)))
def test_mcp_resource_uris_never_reach_outside(mcp, uri: str) -> None:  # type: ignore[no-untyped-def]
    async def read() -> str:
        try:
            return repr(await mcp.read_resource(uri))
        except Exception as exc:
            return str(exc)

    assert SECRET not in anyio.run(read)


# -- archive members ------------------------------------------------------------------------


@FAST
@given(names=st.lists(TEXT, min_size=1, max_size=5))
def test_archive_members_never_land_outside_the_staging_folder(names: list[str]) -> None:
    with tempfile.TemporaryDirectory() as outer:
        base = Path(outer)
        work = base / "work"
        archive = base / "in.zip"
        archive.write_bytes(art_zip([n for n in names if n]))
        before = {p for p in base.rglob("*") if work not in p.parents and p != work}
        try:
            with fetch(str(archive), workdir=work) as staged:
                for path in staged.root.rglob("*"):
                    assert os.path.realpath(path).startswith(os.path.realpath(staged.root))
        except FetchError:
            pass
        after = {p for p in base.rglob("*") if work not in p.parents and p != work}
        assert after == before


# -- SKILL.md names reaching every writer ---------------------------------------------------

NAME = st.one_of(NASTY, st.text(min_size=1, max_size=30), st.builds("/".join, st.lists(NASTY)))


@FAST
@given(name=NAME)
def test_frontmatter_names_reaching_every_writer(name: str) -> None:
    with tempfile.TemporaryDirectory() as outer:
        base = Path(outer)
        src = base / "src" / "victim"
        src.mkdir(parents=True)
        quoted = name.replace("\\", "\\\\").replace('"', '\\"')
        text = f'---\nname: "{quoted}"\ndescription: d.\nversion: 1.0.0\n---\n\n# T\n\nx\n'
        (src / "SKILL.md").write_text(text, encoding="utf-8", errors="surrogatepass")
        out = base / "out"
        out.mkdir()
        skill = parse_skill_file(src / "SKILL.md", trust=Trust.UNTRUSTED)
        hostile = msgspec.structs.replace(skill, name=name)
        outside_before = sorted(p for p in base.rglob("*") if out not in (p, *p.parents))
        for write in (
            lambda: build_stub(src, out),
            lambda: apply_folder(plan_folder(out, ["claude-code"], [hostile])),
            lambda: write_outputs(compile_skill(hostile), out_dir=out, zip_path=None),
            lambda: build(hostile, "agent-skills"),
        ):
            try:
                write()
            except (StubTargetError, UnsafeNameError, CompileError, ServiceError, ValueError):
                pass
            except Exception as exc:  # a refusal must say what; a crash is a finding
                if type(exc).__name__ not in ("DisclosureError",):
                    raise
        outside_after = sorted(p for p in base.rglob("*") if out not in (p, *p.parents))
        assert outside_after == outside_before
        for path in out.rglob("*"):
            assert os.path.realpath(path).startswith(os.path.realpath(out))
