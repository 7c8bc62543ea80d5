"""Installing an npm package a test drives, or skipping with the reason when npm cannot.

npm being on PATH is not enough: an offline machine, a registry behind a proxy with its
own certificate, or a full disk all make ``npm install`` fail, and that says nothing
about gibberish. The test then skips with npm's last line instead of erroring.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence

import pytest


def install_or_skip(
    argv: Sequence[str], *, package: str, env: Mapping[str, str], timeout: float
) -> None:
    """Run ``argv`` (an ``npm install``); skip the test when it fails or hangs."""
    try:
        done = subprocess.run(
            list(argv), env=dict(env), capture_output=True, text=True, timeout=timeout
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"npm could not install {package} ({type(exc).__name__}); .ci/run installs it")
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        why = lines[-1].strip() if lines else f"exit code {done.returncode}"
        pytest.skip(f"npm could not install {package} ({why[:160]}); .ci/run installs it")
