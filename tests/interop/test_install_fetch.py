"""The safe fetcher: every hostile archive, repository and server is refused or contained,
nothing is written outside the staging folder, and the staging folder is always removed."""

from __future__ import annotations

import os
import stat
import tarfile
import threading
import time
from pathlib import Path

import pytest

from gibberish.install.fetch import FetchError, Limits, SourceError, fetch, parse_source
from tests.interop.builders import (
    commit_files,
    files_under,
    git,
    git_repo,
    loopback,
    mode_of,
    needs_git,
    skill_text,
    tar_info,
    tar_with,
    write_skill,
    zip_with,
)

SKILL = skill_text("demo").encode()


def _snapshot(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def refused(tmp_path: Path, source: str, match: str, limits: Limits | None = None) -> None:
    """The fetch fails with ``match``; nothing new exists anywhere under tmp_path."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    before = _snapshot(tmp_path)
    with pytest.raises(FetchError, match=match), fetch(source, workdir=work, limits=limits):
        pass
    assert _snapshot(tmp_path) == before
    assert list(work.iterdir()) == []


# -- sources -----------------------------------------------------------------------------


def test_parse_source_kinds(tmp_path: Path) -> None:
    (tmp_path / "a.zip").write_bytes(b"")
    assert parse_source(str(tmp_path)).kind == "folder"
    assert parse_source(str(tmp_path / "a.zip")).kind == "archive"
    assert parse_source("http://127.0.0.1/x.tar.gz").kind == "url"
    src = parse_source("file:///srv/r.git#v1.2:skills/pdf")
    assert (src.kind, src.location, src.ref, src.subdir) == (
        "git",
        "file:///srv/r.git",
        "v1.2",
        "skills/pdf",
    )
    src = parse_source("git+https://example.org/r.git#main")
    assert (src.location, src.ref) == ("https://example.org/r.git", "main")
    src = parse_source("git@example.org:me/r.git#dev")
    assert (src.kind, src.location, src.ref) == ("git", "git@example.org:me/r.git", "dev")
    src = parse_source("github:owner/repo/skills/pdf@v2")
    assert (src.location, src.ref, src.subdir) == (
        "https://github.com/owner/repo.git",
        "v2",
        "skills/pdf",
    )
    for bad in (
        "",
        "--upload-pack=x",
        "ext::sh -c x",
        "ftp://x/y.zip",
        "file:///r#main:../x",
        "github:x",
    ):
        with pytest.raises(SourceError):
            parse_source(bad)


# -- archives: what works ------------------------------------------------------------------


def test_zip_and_tar_archives_extract(tmp_path: Path) -> None:
    entries = [("demo/SKILL.md", SKILL, 0), ("demo/scripts/run.sh", b"#!/bin/sh\n", 0o100755)]
    zipped = zip_with(tmp_path / "demo.skill", entries)
    with fetch(str(zipped)) as staged:
        assert (staged.root / "demo" / "SKILL.md").read_bytes() == SKILL
        assert mode_of(staged.root / "demo" / "scripts" / "run.sh") == 0o755
        assert staged.resolved.startswith("sha256:")
        root = staged.root
    assert not root.exists()
    for suffix, mode in (("tar.gz", "w:gz"), ("tar.xz", "w:xz")):
        tarred = tar_with(tmp_path / f"demo.{suffix}", [("demo/SKILL.md", SKILL)], mode)
        with fetch(str(tarred)) as staged:
            assert files_under(staged.root) == {"demo/SKILL.md": SKILL}


def test_setuid_setgid_and_sticky_bits_are_stripped(tmp_path: Path) -> None:
    zipped = zip_with(tmp_path / "s.zip", [("SKILL.md", SKILL, 0o106755), ("x", b"x", 0o102644)])
    with fetch(str(zipped)) as staged:
        assert mode_of(staged.root / "SKILL.md") == 0o755
        assert mode_of(staged.root / "x") == 0o644
    tarred = tar_with(tmp_path / "s.tar.gz", [tar_info("t", size=1, mode=0o7777)])
    with fetch(str(tarred)) as staged:
        assert mode_of(staged.root / "t") == 0o755


def test_links_inside_are_kept_and_hard_links_become_copies(tmp_path: Path) -> None:
    tarred = tar_with(
        tmp_path / "l.tar.gz",
        [
            ("d/SKILL.md", SKILL),
            tar_info("d/alias.md", tarfile.SYMTYPE, linkname="SKILL.md"),
            tar_info("d/copy.md", tarfile.LNKTYPE, linkname="d/SKILL.md"),
        ],
    )
    with fetch(str(tarred)) as staged:
        assert os.readlink(staged.root / "d" / "alias.md") == "SKILL.md"
        copy = staged.root / "d" / "copy.md"
        assert not copy.is_symlink() and copy.read_bytes() == SKILL
        assert os.stat(copy).st_nlink == 1


# -- archives: hostile ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("../evil", "outside"),
        ("a/../../evil", "outside"),
        ("/tmp/evil", "absolute"),
        ("C:/evil", "absolute"),
        ("c:evil", "absolute"),
        ("a\\..\\..\\evil", "backslash"),
    ],
)
def test_zip_slip_variants_are_refused(tmp_path: Path, name: str, match: str) -> None:
    zipped = zip_with(tmp_path / "slip.zip", [("SKILL.md", SKILL, 0), (name, b"pwned", 0)])
    refused(tmp_path, str(zipped), match)
    tarred = tar_with(tmp_path / "slip.tar.gz", [("SKILL.md", SKILL), (name, b"pwned")])
    refused(tmp_path, str(tarred), match)


@pytest.mark.parametrize(
    ("members", "match"),
    [
        ([tar_info("out", tarfile.SYMTYPE, linkname="../../etc")], "outside"),
        ([tar_info("out", tarfile.SYMTYPE, linkname="/etc/passwd")], "absolute"),
        ([tar_info("d", tarfile.SYMTYPE, linkname="."), ("d/../../x", b"x")], "outside"),
        (
            [tar_info("d", tarfile.SYMTYPE, linkname="sub"), ("d/x", b"x")],
            "both a link and a folder",
        ),
        ([tar_info("h", tarfile.LNKTYPE, linkname="/etc/passwd")], "absolute"),
        ([tar_info("h", tarfile.LNKTYPE, linkname="missing")], "not a file earlier"),
        (
            [
                tar_info("a/b/c/up", tarfile.SYMTYPE, linkname="../../.."),
                tar_info("esc", tarfile.SYMTYPE, linkname="a/b/c/up/../.."),
            ],
            "outside",
        ),
    ],
)
def test_links_that_leave_or_are_written_through_are_refused(
    tmp_path: Path, members: list, match: str
) -> None:
    tarred = tar_with(tmp_path / "links.tar.gz", [("SKILL.md", SKILL), *members])
    refused(tmp_path, str(tarred), match)


def test_links_pointing_at_each_other_stay_harmless(tmp_path: Path) -> None:
    tarred = tar_with(
        tmp_path / "loop.tar.gz",
        [
            ("SKILL.md", SKILL),
            tar_info("a", tarfile.SYMTYPE, linkname="b"),
            tar_info("b", tarfile.SYMTYPE, linkname="a"),
        ],
    )
    with fetch(str(tarred)) as staged:  # a loop is left out, and said
        assert not os.path.lexists(staged.root / "a") and not os.path.lexists(staged.root / "b")
        assert "a (a link in a loop; left out)" in staged.skipped


def test_zip_symlink_out_is_refused(tmp_path: Path) -> None:
    zipped = zip_with(
        tmp_path / "l.zip", [("SKILL.md", SKILL, 0), ("l", b"../../../etc/passwd", 0o120777)]
    )
    refused(tmp_path, str(zipped), "outside")


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_devices_and_fifos_are_refused(tmp_path: Path, kind: bytes) -> None:
    tarred = tar_with(tmp_path / "dev.tar.gz", [("SKILL.md", SKILL), tar_info("dev", kind)])
    refused(tmp_path, str(tarred), "device")
    zipped = zip_with(
        tmp_path / "dev.zip", [("SKILL.md", SKILL, 0), ("fifo", b"", stat.S_IFIFO | 0o644)]
    )
    refused(tmp_path, str(zipped), "device")


def test_zip_bomb_is_stopped_while_extracting(tmp_path: Path) -> None:
    zipped = zip_with(
        tmp_path / "bomb.zip", [("SKILL.md", SKILL, 0), ("zeros", b"\0" * (8 << 20), 0)]
    )
    assert zipped.stat().st_size < 64 * 1024
    refused(tmp_path, str(zipped), "times its own size")
    small = Limits(max_total_bytes=1 << 20, max_ratio=10**9)
    refused(tmp_path, str(zipped), "more than 1 MiB", small)
    many = zip_with(tmp_path / "many.zip", [(f"f{i}", b"", 0) for i in range(50)])
    refused(tmp_path, str(many), "more than 20 entries", Limits(max_entries=20))


def test_a_lying_zip_header_does_not_get_past_the_cap(tmp_path: Path) -> None:
    zipped = zip_with(tmp_path / "liar.zip", [("big", b"A" * (3 << 20), 0)])
    data = bytearray(zipped.read_bytes())
    # Claim a tiny uncompressed size in the central directory; the real bytes still count.
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    zipped.write_bytes(bytes(data))
    refused(tmp_path, str(zipped), "more than 1 MiB|damaged", Limits(max_total_bytes=1 << 20))


def test_duplicate_entries_are_refused(tmp_path: Path) -> None:
    zipped = tmp_path / "dup.zip"
    import warnings
    import zipfile

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(zipped, "w") as archive:
            archive.writestr("SKILL.md", SKILL)
            archive.writestr("SKILL.md", b"---\nname: other\n---\n")
    refused(tmp_path, str(zipped), "appears twice")


def test_non_utf8_names_are_refused(tmp_path: Path) -> None:
    bad = b"caf\xe9.txt".decode("utf-8", "surrogateescape")
    tarred = tar_with(tmp_path / "n.tar", [("SKILL.md", SKILL), (bad, b"x")], "w")
    refused(tmp_path, str(tarred), "not valid UTF-8")
    zipped = zip_with(tmp_path / "n.zip", [("SKILL.md", SKILL, 0), ("cafX", b"x", 0)])
    zipped.write_bytes(zipped.read_bytes().replace(b"cafX", b"caf\xe9"))  # Latin-1, no UTF-8 flag
    refused(tmp_path, str(zipped), "not valid UTF-8")


def test_damaged_archives_say_so(tmp_path: Path) -> None:
    good = tar_with(tmp_path / "t.tar.gz", [("SKILL.md", SKILL * 200)])
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(good.read_bytes()[:-40])
    refused(tmp_path, str(cut), "damaged or truncated")


# -- folders -------------------------------------------------------------------------------


def test_folder_copy_leaves_out_git_and_refuses_fifos(tmp_path: Path) -> None:
    skill = write_skill(tmp_path / "src", "demo")
    (skill / ".git").mkdir()
    (skill / ".git" / "config").write_text("[core]\n")
    (skill / "inside").symlink_to("SKILL.md")
    with fetch(str(skill)) as staged:
        assert sorted(p.name for p in staged.root.iterdir()) == ["SKILL.md", "inside"]
        assert staged.skipped == [".git"]
    (skill / "outside").symlink_to("/etc/passwd")
    refused(tmp_path, str(skill), "absolute")
    (skill / "outside").unlink()
    os.mkfifo(skill / "pipe")
    refused(tmp_path, str(skill), "FIFO")


# -- http ----------------------------------------------------------------------------------


def test_download_of_archive_and_raw_skill(tmp_path: Path) -> None:
    tarred = tar_with(tmp_path / "demo.tar.gz", [("demo/SKILL.md", SKILL)])
    with loopback() as server:
        url = server.file("/demo.tar.gz", tarred.read_bytes())
        with fetch(url) as staged:
            assert files_under(staged.root) == {"demo/SKILL.md": SKILL}
        raw = server.file("/raw/SKILL.md", SKILL, "text/plain")
        with fetch(raw) as staged:
            assert files_under(staged.root) == {"SKILL.md": SKILL}
        page = server.file("/page", b"<html>hello</html>", "text/html")
        refused(tmp_path, page, "neither an archive nor a SKILL.md")
        refused(tmp_path, server.base + "/missing.zip", "answered 404")


def test_redirect_to_a_non_http_scheme_is_refused(tmp_path: Path) -> None:
    with loopback() as server:
        for target in ("file:///etc/passwd", "ftp://127.0.0.1/x.zip", "data:text/plain,x"):

            def redirect(handler, target=target) -> None:
                handler.send_response(302)
                handler.send_header("Location", target)
                handler.send_header("Content-Length", "0")
                handler.end_headers()

            server.routes["/r"] = redirect
            refused(tmp_path, server.base + "/r", "not http")


def test_a_server_that_sends_forever_is_cut_off(tmp_path: Path) -> None:
    stop = threading.Event()

    def forever(handler) -> None:
        handler.send_response(200)
        handler.end_headers()
        while not stop.is_set():
            handler.wfile.write(b"\0" * 65536)

    def trickle(handler) -> None:
        handler.send_response(200)
        handler.end_headers()
        while not stop.is_set():
            handler.wfile.write(b"-")
            handler.wfile.flush()
            time.sleep(0.05)

    with loopback() as server:
        server.routes["/forever"] = forever
        server.routes["/trickle"] = trickle
        try:
            refused(
                tmp_path,
                server.base + "/forever",
                "more than 1 MiB",
                Limits(max_download_bytes=1 << 20),
            )
            started = time.monotonic()
            refused(tmp_path, server.base + "/trickle", "longer than", Limits(total_timeout=1.0))
            assert time.monotonic() - started < 10
        finally:
            stop.set()


def test_an_interrupted_download_is_not_a_file(tmp_path: Path) -> None:
    def cut(handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", "100000")
        handler.end_headers()
        handler.wfile.write(b"PK\x03\x04" + b"x" * 1000)
        handler.wfile.flush()
        handler.close_connection = True

    with loopback() as server:
        server.routes["/cut.zip"] = cut
        refused(tmp_path, server.base + "/cut.zip", "interrupted")


# -- git -----------------------------------------------------------------------------------


@needs_git
def test_git_ref_and_subfolder(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo", {"skills/demo/SKILL.md": skill_text("demo"), "README": "x"})
    first = git(repo, "rev-parse", "HEAD")
    git(repo, "tag", "v1")
    second = commit_files(repo, {"skills/demo/extra.txt": "new"}, "second")
    with fetch(f"file://{repo}#main:skills/demo") as staged:
        assert sorted(files_under(staged.root)) == ["SKILL.md", "extra.txt"]
        assert staged.resolved == second
    with fetch(f"file://{repo}#v1:skills") as staged:
        assert sorted(files_under(staged.root)) == ["demo/SKILL.md"]
        assert staged.resolved == first
    with fetch(f"file://{repo}#{first}") as staged:  # a pinned commit that is not a branch tip
        assert staged.resolved == first
        assert not (staged.root / ".git").exists()
    refused(tmp_path, f"file://{repo}#nope", "cannot fetch")
    refused(tmp_path, f"file://{repo}#main:no/such", "no folder")


@needs_git
def test_git_hooks_filters_and_submodules_run_nothing(tmp_path: Path, monkeypatch) -> None:
    marker = tmp_path / "ran"
    evil = f"#!/bin/sh\ntouch {marker}\n"
    templates = tmp_path / "templates" / "hooks"
    templates.mkdir(parents=True)
    for hook in ("post-checkout", "reference-transaction", "post-merge", "pre-auto-gc"):
        (templates / hook).write_text(evil)
        (templates / hook).chmod(0o755)
    helper = tmp_path / "evil-filter"
    helper.write_text(evil + "cat\n")
    helper.chmod(0o755)
    inner = git_repo(tmp_path / "inner", {"payload.sh": evil})
    repo = git_repo(
        tmp_path / "repo",
        {"SKILL.md": skill_text("demo"), ".gitattributes": "* filter=evil\n", "hook.sh": evil},
    )
    git(
        repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", f"file://{inner}", "sub"
    )
    git(repo, "commit", "-q", "-m", "submodule")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".gitconfig").write_text(
        f"[init]\n\ttemplateDir = {templates.parent}\n"
        f'[filter "evil"]\n\tsmudge = {helper}\n\tclean = {helper}\n\tprocess = {helper}\n'
        '[protocol "file"]\n\tallow = always\n'
    )
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with fetch(f"file://{repo}#main") as staged:
        assert (staged.root / "SKILL.md").exists()
        assert not (staged.root / "sub" / "payload.sh").exists()
        assert any("sub" in s and "submodule" in s for s in staged.skipped)
        assert not list(staged.root.rglob(".git"))
    assert not marker.exists()


@needs_git
def test_a_repository_with_a_git_folder_inside_its_tree_is_not_copied(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo", {"SKILL.md": skill_text("demo")})
    # Plant a tree entry named ".git" with plumbing (porcelain refuses to).
    hooks_blob = os.popen(f"printf 'evil' | git -C {repo} hash-object -w --stdin").read().strip()
    inner = (
        os.popen(f"printf '100755 blob {hooks_blob}\\tpost-checkout\\n' | git -C {repo} mktree")
        .read()
        .strip()
    )
    top = git(repo, "ls-tree", "HEAD")
    listing = top + f"\n040000 tree {inner}\t.git\n"
    tree = os.popen(f"printf '%s' '{listing}' | git -C {repo} mktree").read().strip()
    commit = git(repo, "commit-tree", tree, "-m", "evil")
    git(repo, "update-ref", "refs/heads/evil", commit)
    with fetch(f"file://{repo}#evil") as staged:
        assert files_under(staged.root) == {"SKILL.md": skill_text("demo").encode()}
        assert staged.skipped == [".git"]


def test_the_bomb_cap_holds_while_writing_not_after(tmp_path: Path) -> None:
    from gibberish.install.archive import extract_archive
    from gibberish.install.tree import CHUNK, StagingTree

    zipped = zip_with(tmp_path / "big.zip", [("zeros", b"\0" * (64 << 20), 0)])
    root = tmp_path / "root"
    root.mkdir()
    tree = StagingTree(root, Limits(max_total_bytes=1 << 20, max_ratio=10**9), origin="big.zip")
    with pytest.raises(FetchError, match="more than 1 MiB"):
        extract_archive(zipped, tree)
    assert tree.written <= (1 << 20) + CHUNK  # stopped at the cap, 63 MiB never written
    assert (root / "zeros").stat().st_size <= (1 << 20) + CHUNK


@needs_git
def test_a_repository_larger_than_the_cap_is_stopped(tmp_path: Path) -> None:
    repo = git_repo(
        tmp_path / "repo", {"SKILL.md": skill_text("demo"), "blob.bin": os.urandom(3 << 20)}
    )
    refused(
        tmp_path, f"file://{repo}#main", "larger than 1 MiB", Limits(max_download_bytes=1 << 20)
    )
