"""The approval store under real concurrency: several processes, and writers killed mid-write.

The children use the same code path as the app (default key provider: the conftest's
plaintext keyring is insecure, so the key is a file in the shared data folder, and the
processes also race to create it).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gibberish.trust.approvals import ApprovalStore
from gibberish.trust.keys import KeyProvider

from .conftest import write_skill

REPO_ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import sys
from pathlib import Path
from gibberish.trust.approvals import ApprovalStore
from gibberish.trust.keys import KeyProvider
from gibberish.trust.fingerprint import fingerprint

path, skill_dir, prefix, count = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
store = ApprovalStore(path)
fp = fingerprint(skill_dir)
start = len(store.list()) if count == "forever" else 0
i = 0
while count == "forever" or i < int(count):
    store.approve(f"{prefix}-{start + i}", fp, skill_dir=skill_dir)
    if i == 0:
        print("ready", flush=True)
    i += 1
bad = [n for n in store.notices() if "No secure keyring" not in n]
if bad:
    print("NOTICES", bad, flush=True)
    sys.exit(3)
"""


def spawn(*args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )


def reap(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=10)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


@pytest.mark.slow
def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    skill = write_skill(tmp_path / "skills")
    path = tmp_path / "data" / "approvals.json"
    writers, per_writer = 4, 25
    procs = [spawn(str(path), str(skill), f"w{n}", str(per_writer)) for n in range(writers)]
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, out + err
    finally:
        for proc in procs:
            reap(proc)

    store = ApprovalStore(path)
    names = {r.skill for r in store.list()}
    expected = {f"w{n}-{i}" for n in range(writers) for i in range(per_writer)}
    assert names == expected
    # every write raised the counter exactly once: it is read and raised under the lock
    assert KeyProvider(key_file=path.with_name("approvals.key")).generation() == len(expected)
    assert all("signature" not in n for n in store.notices())
    assert not list(path.parent.glob("*.bad-*"))


@pytest.mark.slow
def test_a_writer_killed_at_random_moments_never_leaves_a_bad_file(tmp_path: Path) -> None:
    skill = write_skill(tmp_path / "skills")
    path = tmp_path / "data" / "approvals.json"
    rng = random.Random(1234)
    seen = 0
    for _round in range(12):
        proc = spawn(str(path), str(skill), "k", "forever")
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.strip() == "ready", proc.stderr.read() if proc.stderr else ""
            # kill it somewhere inside its approve loop (each approval is ~1 ms)
            time.sleep(rng.uniform(0.0, 0.05))
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            reap(proc)
        assert proc.returncode == -signal.SIGKILL

        store = ApprovalStore(path)
        records = store.list()
        notices = [n for n in store.notices() if "No secure keyring" not in n]
        assert notices == [], notices
        assert len(records) >= max(seen, 1)  # never lost what an earlier round saved
        seen = len(records)

    assert not list(path.parent.glob("*.bad-*"))
    assert not list(path.parent.glob(".approvals.json.*.tmp"))  # cleaned by the last load
