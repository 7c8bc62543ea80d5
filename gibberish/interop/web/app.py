"""The local compile page and its API (FastAPI), served by ``gibberish web``.

Routes: ``GET /`` the page, ``GET /api/v1/skills`` installed skills, ``GET
/api/v1/targets`` what can be produced, ``POST /api/v1/preview`` the files as JSON,
``POST /api/v1/compile`` the same files as a zip with a README (OpenAPI at ``/docs``).

Local only: the server binds 127.0.0.1, and requests whose ``Host`` is not a loopback
name are refused, so a web site cannot reach it through DNS rebinding. Uploads are
read in chunks and refused past ``max_upload`` bytes; every temporary file is removed
when the request ends, whatever happened.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from gibberish.interop import agents
from gibberish.interop.web.service import (
    MAX_UPLOAD_BYTES,
    Result,
    ServiceError,
    build,
    fetched_skill,
    installed_skill,
)
from gibberish.skills.model import SkillDefinition, Trust

STATIC = Path(__file__).with_name("static")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "testserver"})


class PreviewFile(BaseModel):
    path: str
    content: str
    size: int


class Preview(BaseModel):
    name: str
    target: str
    zip_name: str
    files: list[PreviewFile]


class InstalledSkill(BaseModel):
    name: str
    description: str
    trust: str


class ErrorBody(BaseModel):
    error: str
    hint: str = ""


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "Bad input; `hint` says what to do."},
    404: {"model": ErrorBody, "description": "No such installed skill."},
    413: {"model": ErrorBody, "description": "The upload is larger than the limit."},
}


def _size(count: int) -> str:
    return f"{count // (1024 * 1024)} MiB" if count >= 1024 * 1024 else f"{count // 1024} KiB"


async def _save_upload(upload: UploadFile, folder: Path, limit: int) -> Path:
    suffix = "".join(Path(upload.filename or "skill.zip").suffixes[-2:]) or ".zip"
    target = folder / f"upload{suffix.lower()}"
    size = 0
    with open(target, "wb") as handle:
        while chunk := await upload.read(1024 * 1024):
            size += len(chunk)
            if size > limit:
                raise ServiceError(
                    f"The upload is larger than {_size(limit)}.",
                    "Send a smaller archive: one skill folder, without build output.",
                    413,
                )
            handle.write(chunk)
    return target


def create_app(
    skills: Callable[[], Sequence[SkillDefinition]], *, max_upload: int = MAX_UPLOAD_BYTES
) -> FastAPI:
    """The app; ``skills`` lists the installed skills (the Engine's, from the CLI)."""
    app = FastAPI(
        title="gibberish compile",
        version="1",
        description="Turn a skill into a Gemini CLI command or an Agent Skills folder.",
    )

    @app.middleware("http")
    async def loopback_only(request: Request, call_next):  # type: ignore[no-untyped-def]
        host = (request.headers.get("host") or "").rsplit(":", 1)[0]
        if host not in LOOPBACK_HOSTS:
            return JSONResponse({"error": "Only local requests are served."}, status_code=403)
        return await call_next(request)

    @app.exception_handler(ServiceError)
    async def service_error(_request: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse({"error": exc.message, "hint": exc.hint}, status_code=exc.status)

    async def produce(
        target: str,
        output_name: str,
        agent: str,
        skill_url: str,
        installed: str,
        pick: str,
        upload: UploadFile | None,
    ) -> Result:
        sources = sum(bool(x) for x in (skill_url.strip(), installed, upload and upload.filename))
        if sources != 1:
            raise ServiceError(
                "Give exactly one source.",
                "Upload a .zip, paste a git URL, or pick an installed skill.",
            )
        if installed:
            skill = installed_skill(installed, skills)
            return await run_in_threadpool(build, skill, target, name=output_name, agent=agent)

        def from_source(path: Path | None) -> Result:
            with fetched_skill(upload=path, url=skill_url, pick=pick) as skill:
                return build(skill, target, name=output_name, agent=agent)

        with tempfile.TemporaryDirectory(prefix="gibberish-upload-") as folder:
            path = None
            if upload is not None and upload.filename:
                path = await _save_upload(upload, Path(folder), max_upload)
            return await run_in_threadpool(from_source, path)

    @app.post(
        "/api/v1/compile",
        response_class=Response,
        responses={
            200: {
                "content": {"application/zip": {}},
                "description": "A zip: the result and a README.md.",
            },
            **ERRORS,
        },
    )
    async def compile_zip(
        target: Annotated[
            str, Form(description="`gemini-toml` or `agent-skills`.")
        ] = "gemini-toml",
        output_name: Annotated[str, Form(description="Command name, like `art` or `/art`.")] = "",
        agent: Annotated[
            str, Form(description="For `agent-skills`: " + ", ".join(agents.TARGET_NAMES))
        ] = "claude-code",
        skill_url: Annotated[
            str, Form(description="https:// link to a .zip or a git repository.")
        ] = "",
        installed_skill_name: Annotated[str, Form(description="Name of an installed skill.")] = "",
        skill_in_archive: Annotated[
            str, Form(description="Folder name when the source holds several skills.")
        ] = "",
        skill_zip_file: Annotated[
            UploadFile | None, File(description="A .zip of the skill folder.")
        ] = None,
    ) -> Response:
        """Compile one skill; the answer is a zip with the result and a README."""
        result = await produce(
            target,
            output_name,
            agent,
            skill_url,
            installed_skill_name,
            skill_in_archive,
            skill_zip_file,
        )
        headers = {"Content-Disposition": f'attachment; filename="{result.zip_name}"'}
        return Response(result.zip_bytes(), media_type="application/zip", headers=headers)

    @app.post("/api/v1/preview", response_model=Preview, responses=ERRORS)
    async def preview(
        target: Annotated[str, Form()] = "gemini-toml",
        output_name: Annotated[str, Form()] = "",
        agent: Annotated[str, Form()] = "claude-code",
        skill_url: Annotated[str, Form()] = "",
        installed_skill_name: Annotated[str, Form()] = "",
        skill_in_archive: Annotated[str, Form()] = "",
        skill_zip_file: Annotated[UploadFile | None, File()] = None,
    ) -> Preview:
        """The files ``/api/v1/compile`` would zip, as text, for the page to show."""
        result = await produce(
            target,
            output_name,
            agent,
            skill_url,
            installed_skill_name,
            skill_in_archive,
            skill_zip_file,
        )
        files = [PreviewFile(path=f.path, content=f.text, size=len(f.data)) for f in result.files]
        return Preview(
            name=result.name, target=result.target, zip_name=result.zip_name, files=files
        )

    @app.get("/api/v1/skills", response_model=list[InstalledSkill])
    def list_skills() -> list[InstalledSkill]:
        """Installed skills that can be picked instead of an upload."""
        return [
            InstalledSkill(name=s.name, description=s.description, trust=s.trust.value)
            for s in skills()
            if s.trust is not Trust.UNTRUSTED or s.ok
        ]

    @app.get("/api/v1/targets")
    def list_targets() -> dict[str, Any]:
        """What the page can produce, and the agents an Agent Skills folder can be for."""
        return {
            "targets": [
                {"id": "gemini-toml", "title": "Gemini CLI command (.toml)"},
                {"id": "agent-skills", "title": "Agent Skills folder"},
            ],
            "agents": [{"id": a.name, "title": a.title} for a in agents.TARGETS],
        }

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
