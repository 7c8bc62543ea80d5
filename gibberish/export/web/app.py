"""The local compile page and its API (FastAPI), served by ``gibberish web``.

Routes: ``GET /`` the page, ``GET /api/v1/skills`` installed skills, ``GET
/api/v1/targets`` what can be produced, ``POST /api/v1/preview`` the files as JSON,
``POST /api/v1/compile`` the same files as a zip with a README (OpenAPI at ``/docs``).

Local only, and only for the person who started it: :mod:`.guard` checks the Host,
the per-launch token and, on every POST, Origin / Sec-Fetch-Site; a body whose
Content-Length is over the cap is refused before it is read; an upload is then read in
chunks and refused past ``max_upload`` bytes; every temporary file is removed when the
request ends, whatever happened. Error messages never carry the server's paths.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, File, Form, Request, UploadFile
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from msgspec import Struct
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from gibberish.export import agents
from gibberish.export.web.guard import (
    TOO_LARGE_HINT,
    allowed_hosts,
    guard,
    new_token,
    size_text,
)
from gibberish.export.web.service import (
    MAX_UPLOAD_BYTES,
    Result,
    ServiceError,
    build,
    fetched_skill,
    installed_skill,
    without_paths,
)
from gibberish.install.limits import Limits
from gibberish.skills.model import SkillDefinition

STATIC = Path(__file__).with_name("static")


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


async def _save_upload(upload: UploadFile, folder: Path, limit: int) -> Path:
    suffix = "".join(Path(upload.filename or "skill.zip").suffixes[-2:]) or ".zip"
    target = folder / f"upload{suffix.lower()}"
    size = 0
    with open(target, "wb") as handle:
        while chunk := await upload.read(1024 * 1024):
            size += len(chunk)
            if size > limit:
                raise ServiceError(
                    f"The upload is larger than {size_text(limit)}.", TOO_LARGE_HINT, 413
                )
            handle.write(chunk)
    return target


class CompileForm(Struct):
    """The form both POST endpoints take (``multipart/form-data``)."""

    target: Annotated[str, Form(description="`gemini-toml`, `agent-skills` or `skillc-stub`.")] = (
        "gemini-toml"
    )
    output_name: Annotated[str, Form(description="Command name, like `art` or `/art`.")] = ""
    agent: Annotated[
        str, Form(description="For `agent-skills`: " + ", ".join(agents.TARGET_NAMES))
    ] = "claude-code"
    skill_url: Annotated[str, Form(description="https:// link to a .zip or a git repository.")] = ""
    installed_skill_name: Annotated[str, Form(description="Name of an installed skill.")] = ""
    skill_in_archive: Annotated[
        str, Form(description="Folder name when the source holds several skills.")
    ] = ""
    skill_zip_file: Annotated[
        UploadFile | None, File(description="A .zip of the skill folder.")
    ] = None


async def _produce(request: Request, form: CompileForm) -> Result:
    """One source → the target's files; temporary files are gone when this returns."""
    upload = form.skill_zip_file if form.skill_zip_file and form.skill_zip_file.filename else None
    given = (form.skill_url.strip(), form.installed_skill_name, upload)
    if sum(bool(x) for x in given) != 1:
        raise ServiceError(
            "Give exactly one source.",
            "Upload a .zip, paste a git URL, or pick an installed skill.",
        )
    options = {"name": form.output_name, "agent": form.agent}
    if form.installed_skill_name:
        skill = installed_skill(form.installed_skill_name, request.app.state.skills)
        return await run_in_threadpool(build, skill, form.target, **options)

    def from_source(path: Path | None) -> Result:
        limits = Limits(public_only=request.app.state.public_only)
        with fetched_skill(
            upload=path, url=form.skill_url, pick=form.skill_in_archive, limits=limits
        ) as skill:
            return build(skill, form.target, **options)

    with tempfile.TemporaryDirectory(prefix="gibberish-upload-") as folder:
        path = None
        if upload is not None:
            path = await _save_upload(upload, Path(folder), request.app.state.max_upload)
        return await run_in_threadpool(from_source, path)


router = APIRouter()
ZIP_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/zip": {}}, "description": "A zip: the result and a README.md."}
}


@router.post("/api/v1/compile", response_class=Response, responses={**ZIP_RESPONSE, **ERRORS})
async def compile_zip(request: Request, form: Annotated[CompileForm, Depends()]) -> Response:
    """Compile one skill; the answer is a zip with the result and a README."""
    result = await _produce(request, form)
    headers = {"Content-Disposition": f'attachment; filename="{result.zip_name}"'}
    return Response(result.zip_bytes(), media_type="application/zip", headers=headers)


@router.post("/api/v1/preview", response_model=Preview, responses=ERRORS)
async def preview(request: Request, form: Annotated[CompileForm, Depends()]) -> Preview:
    """The files ``/api/v1/compile`` would zip, as text, for the page to show."""
    result = await _produce(request, form)
    files = [PreviewFile(path=f.path, content=f.text, size=len(f.data)) for f in result.files]
    return Preview(name=result.name, target=result.target, zip_name=result.zip_name, files=files)


@router.get("/api/v1/skills", response_model=list[InstalledSkill])
def list_skills(request: Request) -> list[InstalledSkill]:
    """Installed skills that can be picked instead of an upload."""
    return [
        InstalledSkill(name=s.name, description=s.description, trust=s.trust.value)
        for s in request.app.state.skills()
    ]


@router.get("/api/v1/targets")
def list_targets() -> dict[str, Any]:
    """What the page can produce, and the agents an Agent Skills folder can be for."""
    return {
        "targets": [
            {"id": "gemini-toml", "title": "Gemini CLI command (.toml)"},
            {"id": "agent-skills", "title": "Agent Skills folder"},
            {"id": "skillc-stub", "title": "skillc stub (read section by section)"},
        ],
        "agents": [{"id": a.name, "title": a.title} for a in agents.TARGETS],
    }


@router.get("/", include_in_schema=False)
def index() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html")


async def _service_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    body = {"error": without_paths(exc.message), "hint": without_paths(exc.hint)}
    return JSONResponse(body, status_code=exc.status)


def create_app(
    skills: Callable[[], Sequence[SkillDefinition]],
    *,
    max_upload: int = MAX_UPLOAD_BYTES,
    token: str | None = None,
    bound_host: str = "127.0.0.1",
    allow_private_urls: bool = False,
) -> FastAPI:
    """The app; ``skills`` lists the installed skills (the Engine's, from the CLI).

    ``token`` is the launch's secret (a fresh one when not given: ``app.state.token``);
    ``bound_host`` with ``localhost`` are the only Host names served; URL sources must
    resolve to public addresses unless ``allow_private_urls`` (:mod:`.guard`).
    """
    app = FastAPI(
        title="gibberish compile",
        version="1",
        description="Turn a skill into a Gemini CLI command or an Agent Skills folder.",
    )
    app.state.skills = skills
    app.state.max_upload = max_upload
    app.state.token = token or new_token()
    app.state.allowed_hosts = allowed_hosts(bound_host)
    app.state.public_only = not allow_private_urls
    app.middleware("http")(guard)
    app.add_exception_handler(ServiceError, _service_error)
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
