"""Credentials in sources never reach a lock, provenance, state, log or message (finding 10).

Variants: a password in the URL (``user:TOKEN@``), a token standing in for the user
(``TOKEN@``), a query parameter (``?token=``, ``?access_token=``, a signed S3 link), for
archive URLs (fetched for real from loopback) and git URLs (an error path, and the pinned
source a lock would hold).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gibberish.cli.logfile import log_path
from gibberish.install.fetch import FetchError, fetch
from gibberish.install.sources import SourceError, parse_source
from gibberish.redaction import has_credentials, scrub, without_credentials
from tests.helpers.builders import free_port, loopback, needs_git, skill_text, tar_with

SECRET = "ghp_S3cr3tT0k3nValue"


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        (f"https://user:{SECRET}@example.org/r.git", "https://example.org/r.git"),
        (f"https://{SECRET}@github.com/o/r.git#main:x", "https://github.com/o/r.git#main:x"),
        (f"git+https://x-access-token:{SECRET}@h/r.git#v1", "git+https://h/r.git#v1"),
        (f"https://h/s.zip?token={SECRET}&ref=main", "https://h/s.zip?ref=main"),
        (f"https://h/s.zip?access_token={SECRET}", "https://h/s.zip"),
        (
            f"https://b.s3.amazonaws.com/s.zip?X-Amz-Signature={SECRET}&X-Amz-Credential=c",
            "https://b.s3.amazonaws.com/s.zip",
        ),
        (f"git+ssh://git:{SECRET}@h/r.git", "git+ssh://git@h/r.git"),
        ("git@github.com:o/r.git", "git@github.com:o/r.git"),
        ("https://h/s.zip?ref=main", "https://h/s.zip?ref=main"),
    ],
)
def test_without_credentials(typed: str, kept: str) -> None:
    assert without_credentials(typed) == kept
    assert SECRET not in parse_source(typed).text
    assert has_credentials(typed) is (typed != kept)


def test_a_bad_source_message_never_quotes_the_token() -> None:
    with pytest.raises(SourceError) as caught:
        parse_source(f"git+ftp://user:{SECRET}@h/r.git")
    assert SECRET not in str(caught.value)


def test_scrub_finds_urls_inside_sentences() -> None:
    text = f"fetch https://u:{SECRET}@h/x.git failed (see https://h/y?token={SECRET})."
    assert SECRET not in scrub(text) and "https://h/x.git" in scrub(text)


@needs_git
def test_pinned_git_source_has_no_credentials() -> None:
    source = parse_source(f"git+https://user:{SECRET}@example.org/r.git#main")
    assert SECRET in source.location  # what git is given to fetch with
    assert SECRET not in source.pinned("a" * 40) and SECRET not in source.text


@needs_git
def test_a_failing_git_fetch_does_not_quote_the_token(tmp_path: Path) -> None:
    url = f"git+http://user:{SECRET}@127.0.0.1:{free_port()}/repo.git"
    with pytest.raises(FetchError) as caught, fetch(url, workdir=tmp_path):
        pass
    assert SECRET not in str(caught.value)


def test_a_failing_download_does_not_quote_the_token(tmp_path: Path) -> None:
    with loopback() as server:
        for url in (
            f"http://user:{SECRET}@127.0.0.1:{server.base.rsplit(':', 1)[1]}/missing.zip",
            f"{server.base}/missing.zip?token={SECRET}",
        ):
            with pytest.raises(FetchError) as caught, fetch(url, workdir=tmp_path):
                pass
            assert SECRET not in str(caught.value) and "missing.zip" in str(caught.value)


def _everything(root: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8", errors="replace") for p in root.rglob("*") if p.is_file()
    )


@pytest.mark.parametrize("form", ["password", "query"])
def test_installing_a_private_archive_url_keeps_no_token(tmp_path: Path, gib, form: str) -> None:
    tarred = tar_with(tmp_path / "t.tar.gz", [("priv/SKILL.md", skill_text("priv").encode())])
    project = tmp_path / "project"
    project.mkdir()
    (project / "gibberish.toml").write_text("", encoding="utf-8")
    with loopback() as server:
        port = server.base.rsplit(":", 1)[1]
        if form == "password":
            server.file("/t.tar.gz", tarred.read_bytes())
            url = f"http://user:{SECRET}@127.0.0.1:{port}/t.tar.gz"
        else:
            server.file(f"/t.tar.gz?token={SECRET}", tarred.read_bytes())
            url = f"{server.base}/t.tar.gz?token={SECRET}"
        result = gib("install", url, "--project", str(project), "--yes")
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output
    assert (project / ".gibberish" / "skills" / "priv" / "SKILL.md").is_file()
    written = _everything(project)
    assert "t.tar.gz" in written and SECRET not in written
    record = json.loads(
        (project / ".gibberish" / "skills" / "priv" / ".gibberish-source.json").read_text()
    )
    assert SECRET not in json.dumps(record)
    log = log_path()
    assert not log.exists() or SECRET not in log.read_text(encoding="utf-8")


def test_a_token_from_the_keyring_authenticates_a_private_download(
    tmp_path: Path, gib, user_skills
) -> None:
    tarred = tar_with(tmp_path / "t.tar.gz", [("priv/SKILL.md", skill_text("priv").encode())])
    seen: list[str] = []
    with loopback() as server:

        def private(handler) -> None:  # type: ignore[no-untyped-def]
            seen.append(handler.headers.get("Authorization", ""))
            if handler.headers.get("Authorization") != f"Bearer {SECRET}":
                handler.send_error(401)
                return
            body = tarred.read_bytes()
            handler.send_response(200)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)

        server.routes["/t.tar.gz"] = private
        refused = gib("install", f"{server.base}/t.tar.gz", "--yes")
        assert refused.exit_code == 1 and "401" in refused.output
        stored = gib("secrets", "source", "127.0.0.1", input=f"{SECRET}\n")
        assert stored.exit_code == 0 and SECRET not in stored.output
        result = gib("install", f"{server.base}/t.tar.gz", "--yes")
    assert result.exit_code == 0, result.output
    assert seen == ["", f"Bearer {SECRET}"]
    assert SECRET not in _everything(user_skills)
    assert gib("secrets", "source", "127.0.0.1", "--delete").exit_code == 0


@pytest.mark.parametrize(
    "url", ["http://example.org/x.zip", "ftp://example.org/x", "https:///x", "http://10.0.0.1/x"]
)
def test_a_kept_token_never_travels_in_clear_text(url: str) -> None:
    from gibberish.install import source_auth

    source_auth.store("example.org", SECRET)
    source_auth.store("10.0.0.1", SECRET)
    assert source_auth.header_for(url) == {}
    assert source_auth.header_for("https://example.org/x.zip") == {
        "Authorization": f"Bearer {SECRET}"
    }


def test_a_provenance_record_from_before_shows_no_token(tmp_path: Path) -> None:
    from gibberish.trust.provenance import PROVENANCE_FILE, read_provenance

    record = {
        "source": f"https://user:{SECRET}@example.org/r.git",
        "kind": "git",
        "imported_at": "2025-01-01T00:00:00+00:00",
        "fingerprint": "0" * 64,
    }
    (tmp_path / PROVENANCE_FILE).write_text(json.dumps(record), encoding="utf-8")
    shown = read_provenance(tmp_path)
    assert shown is not None and shown.source == "https://example.org/r.git"
