"""The parameter form remembers the last values a person ran each tool with.

Values live in ``$XDG_STATE_HOME/gibberish/form-values.json`` (state, not settings:
losing it loses nothing but convenience), one small object per ``skill.tool``, written
atomically and bounded (``MAX_TOOLS`` tools, ``MAX_VALUE`` characters a value). A
parameter whose name says it is a secret (``password``, ``token`` …) is never written.
A file that cannot be read or parsed is treated as empty: a form must always open.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gibberish import paths
from gibberish.engine.run_history import keepable
from gibberish.fileio import atomic_write_bytes

MAX_TOOLS = 200


def _file() -> Path:
    return paths.state_dir() / "form-values.json"


def _load_all() -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def remembered(ref: str) -> dict[str, Any]:
    """The values ``ref`` last ran with (empty when none)."""
    values = _load_all().get(ref)
    return dict(values) if isinstance(values, dict) else {}


def starting_values(
    ref: str, parameters: Iterable[str], prefilled: Mapping[str, Any] | None
) -> dict[str, Any]:
    """What a form opens with: the last run's values of the tool's current parameters,
    then a proposal's values, which win."""
    known = set(parameters)
    values = {k: v for k, v in remembered(ref).items() if k in known}
    values.update(prefilled or {})
    return values


def remember(ref: str, values: dict[str, Any]) -> None:
    """Keep ``values`` for ``ref`` (secrets and oversized values left out)."""
    data = _load_all()
    data.pop(ref, None)
    data[ref] = {k: v for k, v in values.items() if keepable(k, v)}
    while len(data) > MAX_TOOLS:
        data.pop(next(iter(data)))
    with contextlib.suppress(OSError):  # remembering is a convenience; the run goes on
        atomic_write_bytes(_file(), json.dumps(data, ensure_ascii=False).encode("utf-8"))
