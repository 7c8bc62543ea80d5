"""A tool's arguments as the command line gives them: ``--args-json`` and ``--arg NAME=VALUE``.

Flags are the command line's business, so their parsing (and every message that names a
flag) lives here; the Engine only ever sees a mapping of parameter names to values.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gibberish.engine.core import EngineError
from gibberish.skills.model import ParameterType, ToolDefinition


def parse_cli_arguments(
    tool: ToolDefinition, pairs: Sequence[str], args_json: str | None
) -> dict[str, Any]:
    """Arguments from ``--args-json`` and ``--arg NAME=VALUE`` (``--arg`` wins).

    For an array parameter every ``--arg`` adds one item, so ``--arg path=a --arg path=b``
    is ``["a", "b"]`` and a single ``--arg path=a`` is ``["a"]``; values are never split.
    """
    out: dict[str, Any] = {}
    if args_json:
        try:
            loaded = json.loads(args_json)
        except json.JSONDecodeError as exc:
            raise EngineError(
                f"--args-json is not valid JSON: {exc.msg} at column {exc.colno}."
            ) from None
        if not isinstance(loaded, dict):
            raise EngineError('--args-json must be a JSON object, like {"count": 5}.')
        out.update(loaded)
    from_pairs: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise EngineError(f"--arg {pair!r} is not NAME=VALUE.")
        param = tool.parameter(key)
        if param is not None and param.type is ParameterType.ARRAY:
            from_pairs.setdefault(key, []).append(value)
        elif key in from_pairs:
            raise EngineError(f"--arg {key} is given twice; it takes one value.")
        else:
            from_pairs[key] = value
    out.update(from_pairs)
    return out
