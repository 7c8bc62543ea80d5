"""Building skills, archives (honest and hostile), git repositories and a loopback server."""

from __future__ import annotations

import contextlib
import http.server
import io
import os
import shutil
import socket
import stat
import subprocess
import sys
import tarfile
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

needs_git = pytest.mark.skipif(
    shutil.which("git") is None, reason="needs the git program (Debian: apt-get install git)"
)


def skill_text(name: str, *, extra: str = "", tool: str = "hello", command: str = "echo hi") -> str:
    return (
        f"---\nname: {name}\nversion: 1.0.0\ndescription: The {name} skill, for tests.\n"
        f"read_only: true\n{extra}---\n\n### {tool}\n\nSay hello.\n\n#### Parameters\n\nNone.\n\n"
        f"#### Command\n\n```bash\n{command}\n```\n"
    )


def write_skill(folder: Path, name: str, **kwargs: str) -> Path:
    skill = folder / name
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(skill_text(name, **kwargs), encoding="utf-8")
    return skill


def zip_with(path: Path, entries: list[tuple[str, bytes, int]], *, utf8_names: bool = True) -> Path:
    """entries: (name, data, unix mode incl. type bits; 0 = plain file)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if mode:
                info.create_system = 3
                info.external_attr = mode << 16
            archive.writestr(info, data)
    return path


def tar_with(
    path: Path, members: list[tarfile.TarInfo | tuple[str, bytes]], mode: str = "w:gz"
) -> Path:
    with tarfile.open(
        path, mode, format=tarfile.GNU_FORMAT, encoding="utf-8", errors="surrogateescape"
    ) as archive:
        for member in members:
            if isinstance(member, tuple):
                info = tarfile.TarInfo(member[0])
                info.size = len(member[1])
                info.mode = 0o644
                archive.addfile(info, io.BytesIO(member[1]))
            else:
                archive.addfile(member, io.BytesIO(b"\0" * member.size) if member.isreg() else None)
    return path


def tar_info(
    name: str,
    kind: bytes = tarfile.REGTYPE,
    *,
    linkname: str = "",
    size: int = 0,
    mode: int = 0o644,
) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    info.size = size
    info.mode = mode
    return info


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, env=env, check=True)
    return done.stdout.decode().strip()


def git_repo(path: Path, files: dict[str, str | bytes]) -> Path:
    """A repository with one commit on branch main holding ``files``."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    commit_files(path, files, "initial")
    return path


def commit_files(repo: Path, files: dict[str, str | bytes], message: str) -> str:
    for name, content in files.items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def files_under(root: Path) -> dict[str, bytes]:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


class LoopbackServer:
    """An HTTP server on 127.0.0.1 whose routes are plain functions of the handler."""

    def __init__(self) -> None:
        self.routes: dict[str, Callable[[http.server.BaseHTTPRequestHandler], None]] = {}
        routes = self.routes

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                route = routes.get(self.path)
                if route is None:
                    self.send_error(404)
                    return
                with contextlib.suppress(OSError):
                    route(self)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def file(self, path: str, body: bytes, content_type: str = "application/octet-stream") -> str:
        def send(handler: http.server.BaseHTTPRequestHandler) -> None:
            handler.send_response(200)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)

        self.routes[path] = send
        return self.base + path

    def __enter__(self) -> LoopbackServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@contextlib.contextmanager
def loopback() -> Iterator[LoopbackServer]:
    with LoopbackServer() as server:
        yield server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def gibberish_web(tmp_path: Path, port: int) -> Iterator[subprocess.Popen]:
    """``gibberish web`` on ``port`` as a person starts it; its link comes on stdout, its
    notes (no sandbox here, say) go to a file, so the first line read is the link."""
    with (tmp_path / "web-stderr.txt").open("w") as notes:
        process = subprocess.Popen(
            [sys.executable, "-m", "gibberish", "web", "--port", str(port), "--no-browser"],
            stdout=subprocess.PIPE,
            stderr=notes,
            text=True,
        )
        try:
            yield process
        finally:
            process.terminate()
            process.wait(10)
