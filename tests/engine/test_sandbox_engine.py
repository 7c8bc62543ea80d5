"""The sandbox as the Engine uses it: approved content only, the desktop, the fallback."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from gibberish import paths
from gibberish.engine.core import Engine, EngineError, EngineOptions
from gibberish.runner import sandbox
from gibberish.runner.sandbox import Sandbox

requires_bwrap = pytest.mark.skipif(
    not sandbox.status().active,
    reason=f"no working bubblewrap here ({sandbox.status().detail}); apt install bubblewrap",
)

SKILL = """---
name: {name}
version: 1.0.0
description: Sandbox test skill.
read_only: {read_only}
network: {network}
---

### hello

Say hello.

#### Parameters

None.

#### Command

```bash
{command}
```
"""


def make_skill(
    root: Path,
    name: str = "swap",
    *,
    command: str = "./scripts/hello.sh",
    read_only: bool = True,
    network: bool = False,
    script: str = "#!/bin/sh\necho approved\n",
) -> Path:
    folder = root / name
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        SKILL.format(
            name=name,
            command=command,
            read_only=str(read_only).lower(),
            network=str(network).lower(),
        )
    )
    hello = folder / "scripts" / "hello.sh"
    hello.write_text(script)
    hello.chmod(0o755)
    return folder


def _swap_forever(script: Path, stop: threading.Event) -> None:
    good, evil = "#!/bin/sh\necho approved\n", "#!/bin/sh\necho EVIL\n"
    spare = script.with_name(".hello.tmp")
    while not stop.is_set():
        for body in (evil, good):
            spare.write_text(body)
            spare.chmod(0o755)
            os.replace(spare, script)


@requires_bwrap
def test_what_runs_is_what_was_approved_while_a_script_is_swapped(
    engine: Engine, root: Path
) -> None:
    folder = make_skill(root)
    engine.trust.approve_prepared(engine.runs.prepare("swap.hello"))
    stop = threading.Event()
    swapper = threading.Thread(target=_swap_forever, args=(folder / "scripts/hello.sh", stop))
    swapper.start()
    outputs: list[str] = []
    refused = 0
    try:
        for _ in range(150):
            try:
                prepared = engine.runs.prepare("swap.hello")
                outputs.append(engine.runs.run(prepared).envelope.output.strip())
            except EngineError:
                refused += 1
    finally:
        stop.set()
        swapper.join()
    assert "EVIL" not in outputs, f"{outputs.count('EVIL')} runs ran unapproved content"
    assert outputs.count("approved") > 0 and set(outputs) == {"approved"}, (outputs, refused)


@requires_bwrap
def test_even_a_write_skill_cannot_change_its_own_folder(engine: Engine, root: Path) -> None:
    """It runs from a read-only snapshot, which is deleted after the run."""
    folder = make_skill(root, read_only=False, script='#!/bin/sh\necho changed >> "$0"\n')
    prepared = engine.runs.prepare("swap.hello")
    result = engine.runs.run(prepared, confirmed=True)
    assert "Read-only file system" in result.envelope.output
    assert (folder / "scripts/hello.sh").read_text() == '#!/bin/sh\necho changed >> "$0"\n'
    assert not list((paths.cache_dir() / "snapshots").iterdir())


@requires_bwrap
def test_the_web_skill_still_reaches_the_session_bus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """systemd-run --user talks to the session bus: a stand-in on PATH proves it gets there."""
    runtime = Path(os.environ["XDG_RUNTIME_DIR"])
    bus_path = runtime / "bus"
    bus = socket.socket(socket.AF_UNIX)
    bus.bind(str(bus_path))
    bus.listen(4)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "systemd-run"
    fake.write_text(
        "#!/bin/sh\n"
        'exec python3 -c "import os,socket; s=socket.socket(socket.AF_UNIX); '
        "s.connect(os.environ['XDG_RUNTIME_DIR'] + '/bus')\"\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    engine = Engine(EngineOptions(include_user=False))
    try:
        prepared = engine.runs.prepare("web.open_url", {"url": "https://example.org/"})
        result = engine.runs.run(prepared, confirmed=True)
        bus.settimeout(5)
        connection, _ = bus.accept()
        connection.close()
    finally:
        bus.close()
    assert result.envelope.output.strip() == "Opened https://example.org/"
    web = engine.library.require("web")
    assert Sandbox(read_only=web.read_only, network=web.network).desktop


def test_without_bwrap_a_notice_names_the_package_once(
    engine: Engine, root: Path, no_sandbox
) -> None:
    assert not engine.sandbox_status().active
    notices = engine.notices()
    assert any("bubblewrap" in n and "read_only" in n for n in notices)
    assert not any("bubblewrap" in n for n in engine.notices())


def test_without_bwrap_a_user_read_only_skill_asks_every_time(
    engine: Engine, root: Path, no_sandbox
) -> None:
    make_skill(root)
    engine.trust.approve_prepared(engine.runs.prepare("swap.hello"))
    prepared = engine.runs.prepare("swap.hello")
    assert prepared.decision.asks and not prepared.decision.first_run
    assert "sandbox" in prepared.decision.reason
    assert engine.runs.run(prepared, confirmed=True).envelope.output == "approved\n"


def test_without_bwrap_bundled_read_only_tools_still_run(no_sandbox) -> None:
    engine = Engine(EngineOptions(include_user=False))
    assert engine.runs.prepare("system.uptime").decision.runs


@requires_bwrap
def test_with_bwrap_an_approved_read_only_skill_runs_without_asking(
    engine: Engine, root: Path
) -> None:
    make_skill(root)
    engine.trust.approve_prepared(engine.runs.prepare("swap.hello"))
    assert engine.runs.prepare("swap.hello").decision.runs


def test_a_bwrap_that_cannot_create_namespaces_means_no_sandbox(
    engine: Engine, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As with user namespaces disabled: the probe fails, runs go unwrapped, one notice."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.delenv(sandbox.SWITCH_VAR, raising=False)  # CI may turn the sandbox off
    sandbox.reset()
    try:
        make_skill(root, read_only=False)
        status = engine.sandbox_status()
        assert not status.active and "No permissions" in status.detail
        result = engine.runs.run(engine.runs.prepare("swap.hello"), confirmed=True)
        assert result.envelope.output == "approved\n"
        notices = engine.notices()
        assert any("bubblewrap" in n and "No permissions" in n for n in notices)
    finally:
        sandbox.reset()  # probed again, with the real PATH, by the next test that asks


TRAY = """
import json, os, sys
from gibberish.engine.core import Engine, EngineOptions
engine = Engine(EngineOptions(include_user=False))
path = f"/proc/{os.getpid()}/environ"
prepared = engine.runs.prepare("files.read_file", {"path": path, "lines": 5})
assert prepared.decision.runs, prepared.decision.reason
print(json.dumps(engine.runs.run(prepared).envelope.output))
"""


def _read_own_environ_through_files(canary: str, **extra: str) -> str:
    env = dict(os.environ, GITHUB_TOKEN=canary, **extra)
    done = subprocess.run(
        [sys.executable, "-c", TRAY],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@requires_bwrap
def test_files_read_file_cannot_read_the_trays_environment() -> None:
    """The approval-free bundled tool, pointed at /proc/<tray pid>/environ."""
    canary = f"ghp_{uuid.uuid4().hex}"
    leaked = _read_own_environ_through_files(canary, **{sandbox.SWITCH_VAR: "off"})
    assert canary in leaked  # what it did before the sandbox
    assert canary not in _read_own_environ_through_files(canary)
