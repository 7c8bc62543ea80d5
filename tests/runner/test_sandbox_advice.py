"""What the notice, ``gibberish doctor`` and the docs say when bwrap is blocked.

A fake ``bwrap`` on PATH fails exactly as Ubuntu 24.04's does under its AppArmor
user-namespace restriction (``bwrap: setting up uid map: Permission denied``, exit 1,
while ``--version`` still works): the advice must name that restriction and the AppArmor
profile that lifts it, never "install bubblewrap" (it is installed).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.app import Engine, EngineOptions
from gibberish.cli import cli
from gibberish.runner import sandbox, sandbox_advice

UBUNTU_2404 = "bwrap: setting up uid map: Permission denied"
OLD_DEBIAN = (
    "bwrap: No permissions to creating new namespace, likely because the kernel does not "
    "allow non-privileged user namespaces. On e.g. debian this can be enabled with "
    "'sysctl kernel.unprivileged_userns_clone=1'."
)
DESKTOP_DOC = Path(__file__).resolve().parents[2] / "docs" / "desktop.md"


def fake_bwrap(folder: Path, stderr: str) -> Path:
    """A bwrap that prints its version, and fails every sandbox with ``stderr``."""
    folder.mkdir(exist_ok=True)
    fake = folder / "bwrap"
    (folder / "stderr.txt").write_text(stderr + "\n")
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --version ]; then echo "bubblewrap 0.9.0"; exit 0; fi\n'
        f"cat '{folder / 'stderr.txt'}' >&2\n"
        "exit 1\n"
    )
    fake.chmod(0o755)
    return fake


@pytest.fixture
def blocked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Install a failing bwrap first on PATH; the switches read from temp files."""

    def install(stderr: str, *, apparmor: str | None = None, debian: str | None = None) -> Path:
        fake = fake_bwrap(tmp_path / "bin", stderr)
        monkeypatch.delenv(sandbox.SWITCH_VAR, raising=False)  # CI may turn it off
        monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
        for name, value in (("APPARMOR_SWITCH", apparmor), ("DEBIAN_SWITCH", debian)):
            switch = tmp_path / name
            if value is not None:
                switch.write_text(value + "\n")
            monkeypatch.setattr(sandbox_advice, name, switch)
        sandbox.reset()
        return fake

    yield install
    sandbox.reset()


def _says_apparmor(text: str, fake: Path) -> None:
    assert "AppArmor" in text and "apparmor_restrict_unprivileged_userns" in text
    assert "/etc/apparmor.d/bwrap" in text and f"profile bwrap {fake}" in text
    assert "userns," in text and "apparmor_parser -r" in text
    assert "read_only and network: false are not enforced" in text
    assert "Install the package" not in text


@pytest.mark.parametrize(
    "stderr",
    [UBUNTU_2404, f"bwrap: some earlier line\n{UBUNTU_2404}", UBUNTU_2404.upper()],
    ids=["ubuntu-24.04", "after-another-line", "other-case"],
)
def test_the_notice_names_the_apparmor_restriction_and_its_fix(blocked, stderr) -> None:
    fake = blocked(stderr)
    engine = Engine(EngineOptions(include_user=False))
    status = engine.sandbox_status()
    assert not status.active and status.bwrap == str(fake)
    notices = [n for n in engine.notices() if n.startswith("Tools run without a sandbox")]
    assert len(notices) == 1
    _says_apparmor(notices[0], fake)
    assert not [n for n in engine.notices() if "sandbox" in n]  # once per process


def test_any_userns_refusal_with_the_apparmor_switch_on_is_apparmor(blocked) -> None:
    fake = blocked("bwrap: Creating new namespace failed: Operation not permitted", apparmor="1")
    _says_apparmor(sandbox.status().detail + " " + sandbox.status().advice, fake)


def test_doctor_says_what_blocks_bwrap_and_what_to_do(blocked) -> None:
    fake = blocked(UBUNTU_2404)
    result = CliRunner().invoke(cli, ["doctor", "--json"], catch_exceptions=False)
    checks = {c["check"]: c for c in json.loads(result.output)}
    assert checks["sandbox"]["ok"] is False
    _says_apparmor(checks["sandbox"]["detail"], fake)
    text = CliRunner().invoke(cli, ["doctor"], catch_exceptions=False).output
    assert "warn sandbox" in text and "AppArmor" in text


def test_user_namespaces_turned_off_on_debian_say_the_sysctl(blocked) -> None:
    blocked(OLD_DEBIAN, apparmor=None, debian="0")
    status = sandbox.status()
    assert "kernel.unprivileged_userns_clone=1" in status.advice
    assert "AppArmor" not in status.detail + status.advice


def test_a_missing_bwrap_still_names_the_package(monkeypatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv(sandbox.SWITCH_VAR, raising=False)
    sandbox.reset()
    try:
        text = sandbox.take_notice() or ""
    finally:
        sandbox.reset()
    assert "bwrap was not found" in text and "apt install bubblewrap" in text


def test_the_docs_say_what_to_do_under_the_apparmor_restriction() -> None:
    text = DESKTOP_DOC.read_text(encoding="utf-8")
    assert "setting up uid map: Permission denied" in text
    assert "apparmor_restrict_unprivileged_userns" in text and "/etc/apparmor.d/bwrap" in text
