"""``Sandbox.hidden``: a folder becomes an empty tmpfs, a file an empty file, inside the run.

This is what a model-started run gets over each credential place (ADR 0028). Proven by
real runs as root and as ``nobody``; the unhidden run is the control.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from gibberish.runner import run, sandbox
from gibberish.runner.sandbox import Sandbox
from tests.runner.test_sandbox_sockets import PY, _as_nobody

pytestmark = pytest.mark.skipif(
    not sandbox.status().active,
    reason=f"no working bubblewrap here ({sandbox.status().detail}); apt install bubblewrap",
)

READ = """
import os, sys
folder, single = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(folder)) if os.path.isdir(folder) else "gone"
inside = os.path.join(folder, "id_ed25519")
key = open(inside).read() if os.path.exists(inside) else ""
print(repr((names, key, open(single).read())))
"""


@pytest.fixture
def secret_places() -> Iterator[tuple[Path, Path]]:
    """A key folder and a token file anyone may read (so ``nobody`` could, unhidden)."""
    base = Path(f"/tmp/gibberish-hidden-{uuid.uuid4().hex}")
    folder = base / ".ssh"
    folder.mkdir(parents=True)
    base.chmod(0o755)
    folder.chmod(0o755)
    (folder / "id_ed25519").write_text("PRIVATE KEY")
    token = base / ".netrc"
    token.write_text("password hunter2")
    for path in (folder / "id_ed25519", token):
        path.chmod(0o644)
    try:
        yield folder, token
    finally:
        shutil.rmtree(base)


@pytest.mark.parametrize("read_only", [True, False])
def test_hidden_places_are_empty_inside_the_run(make_spec, secret_places, read_only) -> None:
    folder, token = secret_places
    shown = Sandbox(read_only=read_only)
    hidden = Sandbox(read_only=read_only, hidden=(str(folder), str(token)))
    args = (PY, "-c", READ, folder, token)
    control = run(make_spec(*args, sandbox=shown)).envelope.output.strip()
    assert control == repr((["id_ed25519"], "PRIVATE KEY", "password hunter2"))
    assert run(make_spec(*args, sandbox=hidden)).envelope.output.strip() == repr(([], "", ""))


def test_a_write_into_a_hidden_folder_stays_in_the_run(make_spec, secret_places) -> None:
    folder, _ = secret_places
    code = "import sys; open(sys.argv[1] + '/authorized_keys', 'w').write('x')"
    box = Sandbox(read_only=False, hidden=(str(folder),))
    assert run(make_spec(PY, "-c", code, folder, sandbox=box)).envelope.exit_code == 0
    assert not (folder / "authorized_keys").exists()


def test_as_nobody_hidden_places_are_empty(secret_places) -> None:
    folder, token = secret_places
    shown = _as_nobody(Sandbox(read_only=True), READ, str(folder), str(token))
    hidden = _as_nobody(
        Sandbox(read_only=True, hidden=(str(folder), str(token))), READ, str(folder), str(token)
    )
    assert "PRIVATE" in " ".join(shown) and "hunter2" in " ".join(shown)
    assert " ".join(hidden) == repr(([], "", ""))
