"""Reading one commit of a git repository through the ``git`` program, running nothing.

The repository is fetched shallowly into a private *bare* repository, so there is no
checkout at all: no hook, no ``.gitattributes`` filter, no submodule, no fsmonitor can
run. The files are then read object by object (``ls-tree`` + ``cat-file --batch``) and
written through :class:`StagingTree`, which applies the same rules as for archives.
Submodules (gitlinks) are left out and reported; ``.git`` is never copied.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from gibberish.install.limits import FetchError, Limits
from gibberish.install.pinned import PINNED_GIT_SCHEMES, git_pinned
from gibberish.install.sources import Source
from gibberish.install.tree import StagingTree

SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "protocol.ext.allow=never",
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
    "init.templateDir=",
    "gc.auto=0",
)
_HEX = re.compile(r"^[0-9a-fA-F]{7,64}$")
_DROPPED_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_NAMESPACE",
)
_PUBLIC_ONLY_DROPPED_ENV = (
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_PROXY_COMMAND",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
)
"""Anything that could send a public-only fetch elsewhere: a proxy does its own lookup."""
ALLOWED_PROTOCOLS = "https:http:git:ssh:file"
"""The transports the source parser accepts; never ``ext::``, ``fd::`` or a remote
helper, whatever the person's git configuration or a server's redirect says."""


def git_program() -> str:
    found = shutil.which("git")
    if not found:
        raise FetchError("Installing from a git repository needs the `git` program; install git.")
    return found


@functools.cache
def git_supports_resolve() -> bool:
    """Whether the installed git knows ``http.curloptResolve`` (git 2.37 and later); an
    older git ignores it silently, so a pin would not hold."""
    try:
        done = subprocess.run(
            [git_program(), "--version"], capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired, FetchError):
        return False
    found = re.search(rb"(\d+)\.(\d+)", done.stdout)
    return found is not None and (int(found[1]), int(found[2])) >= (2, 37)


def _pin(source: Source, limits: Limits) -> tuple[str, list[str]]:
    """The URL git is given and the options that keep it on the addresses checked just
    now (public-only fetches; anything that cannot be pinned is refused)."""
    if not limits.public_only:
        return source.location, []
    location, pin = git_pinned(source.location)
    if pin and not git_supports_resolve():
        raise FetchError(
            "fetching a git repository over http or https here needs git 2.37 or later (it keeps "
            "git on the address that was checked); update git or use the .zip of the repository."
        )
    return location, pin


def _git_env(public_only: bool = False) -> dict[str, str]:
    """git's environment: the transports by list; for a public-only fetch also without
    the person's git configuration (an ``insteadOf`` or proxy there would send git to an
    address nobody checked), ssh commands or proxies."""
    dropped = _DROPPED_ENV + (_PUBLIC_ONLY_DROPPED_ENV if public_only else ())
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C", GIT_ALLOW_PROTOCOL=ALLOWED_PROTOCOLS)
    if public_only:
        env.update(
            GIT_ALLOW_PROTOCOL=":".join(PINNED_GIT_SCHEMES),
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
        )
    return env


def _git(
    repo: Path, *args: str, limits: Limits, check: bool = True, pin: Sequence[str] = ()
) -> subprocess.CompletedProcess:
    argv = [git_program(), "-C", str(repo)]
    for item in SAFE_CONFIG:
        argv += ["-c", item]
    if limits.public_only:  # a redirect or proxy could lead to an address unchecked
        argv += ["-c", "http.followRedirects=false", "-c", "http.proxy=", "-c", "core.gitProxy="]
        argv += pin
    if args[0] == "fetch":
        done = _run_watched([*argv, *args], repo, limits)
    else:  # local commands: quick, nothing arrives from outside
        try:
            done = subprocess.run(
                [*argv, *args], capture_output=True, env=_git_env(limits.public_only),
                stdin=subprocess.DEVNULL,
                timeout=limits.total_timeout, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            raise FetchError(
                f"git {args[0]} took longer than {limits.total_timeout:.0f} s."
            ) from exc
    if check and done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise FetchError(f"git {args[0]} failed: {message[-1] if message else done.returncode}")
    return done


def _run_watched(argv: list[str], repo: Path, limits: Limits) -> subprocess.CompletedProcess:
    """Run git (and the helpers it starts) within the deadline and the download cap.

    A fetch cannot be told how much it may download, so the repository's size is
    watched while it runs and the whole process group is killed past the cap.
    """
    deadline = time.monotonic() + limits.total_timeout
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
            env=_git_env(limits.public_only),
            start_new_session=True,
        )  # fmt: skip
        try:
            finished = False
            while not finished:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=0.2)
                finished = process.poll() is not None  # checked once more after the end
                if time.monotonic() > deadline:
                    raise FetchError(
                        f"git {argv[-1]} took longer than {limits.total_timeout:.0f} s."
                    )
                if _size(repo) > limits.max_download_bytes:
                    raise FetchError(
                        f"the repository is larger than {limits.max_download_bytes // 2**20} MiB; "
                        "stopped (point at a smaller repository or a subfolder's archive)."
                    )
        finally:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(argv, process.returncode, out.read(), err.read())


def _size(repo: Path) -> int:
    total = 0
    for folder, _dirs, files in os.walk(repo / "objects"):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(folder, name)).st_size
    return total


def fetch_git(source: Source, scratch: Path, tree: StagingTree, limits: Limits) -> str:
    """Write the files of ``source`` (at its ref, in its subfolder) into ``tree``; return the commit."""
    repo = scratch / "repo.git"
    _git(scratch, "init", "--bare", "-q", str(repo), limits=limits)
    commit = _fetch_commit(repo, source, limits)
    treeish = f"{commit}:{source.subdir}"
    kind = _git(repo, "cat-file", "-t", treeish, limits=limits, check=False)
    if kind.stdout.strip() != b"tree":
        raise FetchError(f"{source.text}: there is no folder “{source.subdir}” at {commit[:12]}.")
    _copy_tree(repo, treeish, tree, limits)
    tree.finish()
    return commit


def _fetch_commit(repo: Path, source: Source, limits: Limits) -> str:
    ref = source.ref or "HEAD"
    base = ("fetch", "-q", "--no-tags", "--no-recurse-submodules")
    # public_only: git connects only to the addresses checked here (pinned.py)
    location, pin = _pin(source, limits)
    shallow = _git(
        repo, *base, "--depth", "1", "--", location, ref,
        limits=limits, check=False, pin=pin,
    )  # fmt: skip
    if shallow.returncode == 0:
        return _rev_parse(repo, "FETCH_HEAD", source, limits)
    if not _HEX.match(ref):
        detail = shallow.stderr.decode("utf-8", "replace").strip().splitlines()
        raise FetchError(
            f"{source.text}: cannot fetch “{ref}” ({detail[-1] if detail else 'git failed'})."
        )
    # A commit id the server will not serve shallowly: fetch the history, then find it.
    _git(
        repo, *base, "--", location,
        "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*", limits=limits, pin=pin,
    )  # fmt: skip
    return _rev_parse(repo, ref, source, limits)


def _rev_parse(repo: Path, ref: str, source: Source, limits: Limits) -> str:
    done = _git(
        repo, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}", limits=limits, check=False
    )
    if done.returncode != 0:
        raise FetchError(f"{source.text}: no commit “{ref}” in the repository.")
    return done.stdout.decode().strip()


def _copy_tree(repo: Path, treeish: str, tree: StagingTree, limits: Limits) -> None:
    listing = _git(repo, "ls-tree", "-r", "-z", treeish, limits=limits).stdout
    entries = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, obj = meta.decode().split(" ")
        path = raw_path.decode("utf-8", "surrogateescape")
        if kind == "commit":
            tree.skipped.append(f"{path} (submodule, not fetched)")
            continue
        entries.append((mode, obj, path))
    if not entries:
        return
    with _CatFile(repo, limits) as reader:
        for mode, obj, path in entries:
            content = reader.read(obj, path, limits, tree.origin)
            if mode == "120000":
                tree.add_symlink(path, content.decode("utf-8", "surrogateescape"))
            else:
                tree.add_bytes(path, content, int(mode, 8))


class _CatFile:
    """One ``git cat-file --batch`` process, asked for one object at a time."""

    def __init__(self, repo: Path, limits: Limits) -> None:
        argv = [git_program(), "-C", str(repo)]
        for item in SAFE_CONFIG:
            argv += ["-c", item]
        self.process = subprocess.Popen(
            [*argv, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=_git_env(limits.public_only),
        )  # fmt: skip

    def __enter__(self) -> _CatFile:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.close()
        self.process.stdout.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def read(self, obj: str, path: str, limits: Limits, origin: str) -> bytes:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin and stdout
        stdin.write(obj.encode() + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            raise FetchError(f"{origin}: cannot read {path!r} from the repository.")
        size = int(header[2])
        if size > limits.max_file_bytes:
            raise FetchError(
                f"{origin}: {path!r} is larger than {limits.max_file_bytes // 2**20} MiB."
            )
        content = stdout.read(size)
        stdout.read(1)
        return content
