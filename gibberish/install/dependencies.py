"""The ``dependencies:`` frontmatter field: other skills (by source) and MCP servers.

Read straight from the SKILL.md frontmatter so that the skills loader needs no change;
the loader lists the field as unknown (a warning), the installer gives it meaning::

    dependencies:
      skills:
        - file:///srv/skills.git#main:skills/pdf   # a source, as for `gibberish install`
        - source: github:me/tools/skills/csv
          name: csv                                # known name: no fetch when installed
      mcp:
        files:
          command: npx
          args: [-y, "@modelcontextprotocol/server-filesystem", "."]
          env: {LOG_LEVEL: info}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from msgspec import Struct, field

from gibberish.yaml_import import yaml

_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C one when built
E_DEPENDENCY_INVALID = "E-DEPENDENCY-INVALID"
E_DEPENDENCY_CYCLE = "E-DEPENDENCY-CYCLE"


class DependencyError(ValueError):
    """A ``dependencies:`` field that cannot be used, or a cycle; ``code`` says which."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class SkillDependency(Struct, frozen=True):
    source: str
    name: str = ""


class McpServer(Struct, frozen=True):
    name: str
    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"command": self.command, "args": list(self.args), "env": dict(self.env)}


class Dependencies(Struct, frozen=True):
    skills: tuple[SkillDependency, ...] = ()
    mcp: tuple[McpServer, ...] = ()


def frontmatter(text: str) -> dict[str, Any]:
    """The YAML mapping between the opening and closing ``---`` (empty when absent).

    YAML the loader reads leniently (an unquoted ``: `` in a value, W-YAML-LENIENT) is
    read the same way here, so the install's name for a skill is the loader's."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    for end, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            body = "\n".join(lines[1:end])
            try:
                data = yaml.load(body, Loader=_SAFE_LOADER)
            except yaml.YAMLError:
                from gibberish.skills.frontmatter import load_yaml

                data, ok, _ = load_yaml(body, file=None, first_line=2)
                if not ok:
                    return {}
            return data if isinstance(data, dict) else {}
    return {}


def read_dependencies(skill_md: Path, fields: dict[str, Any] | None = None) -> Dependencies:
    """The dependencies a SKILL.md declares; DependencyError (file named) when malformed.
    ``fields``: its :func:`frontmatter`, when the caller has read it already."""
    if fields is None:
        try:
            fields = frontmatter(skill_md.read_text("utf-8"))
        except (OSError, UnicodeDecodeError):
            return Dependencies()
    raw = fields.get("dependencies")
    if raw is None:
        return Dependencies()
    where = f"{skill_md}: dependencies"
    if not isinstance(raw, dict) or set(raw) - {"skills", "mcp"}:
        raise DependencyError(
            E_DEPENDENCY_INVALID, f"{where} must be a mapping with `skills:` and/or `mcp:`."
        )
    return Dependencies(_skills(raw.get("skills") or [], where), _mcp(raw.get("mcp") or {}, where))


def _skills(raw: Any, where: str) -> tuple[SkillDependency, ...]:
    if not isinstance(raw, list):
        raise DependencyError(E_DEPENDENCY_INVALID, f"{where}.skills must be a list of sources.")
    out = []
    for index, item in enumerate(raw):
        if isinstance(item, str) and item.strip():
            out.append(SkillDependency(item.strip()))
        elif (
            isinstance(item, dict)
            and isinstance(item.get("source"), str)
            and not set(item) - {"source", "name"}
        ):
            name = item.get("name", "")
            if not isinstance(name, str):
                raise DependencyError(
                    E_DEPENDENCY_INVALID, f"{where}.skills[{index}].name must be text."
                )
            out.append(SkillDependency(item["source"].strip(), name.strip()))
        else:
            raise DependencyError(
                E_DEPENDENCY_INVALID,
                f"{where}.skills[{index}] must be a source string or {{source: …, name: …}}.",
            )
    return tuple(out)


def _mcp(raw: Any, where: str) -> tuple[McpServer, ...]:
    if not isinstance(raw, dict):
        raise DependencyError(
            E_DEPENDENCY_INVALID, f"{where}.mcp must map server names to settings."
        )
    return tuple(_mcp_server(str(name), spec, f"{where}.mcp.{name}") for name, spec in raw.items())


def _mcp_server(name: str, spec: Any, here: str) -> McpServer:
    """One ``mcp:`` entry: a command, and optional args (words) and env (name: value)."""
    if (
        not isinstance(spec, dict)
        or not isinstance(spec.get("command"), str)
        or not spec["command"]
    ):
        raise DependencyError(E_DEPENDENCY_INVALID, f"{here} needs a `command:`.")
    if set(spec) - {"command", "args", "env"}:
        raise DependencyError(
            E_DEPENDENCY_INVALID, f"{here} has fields other than command, args, env."
        )
    args = spec.get("args") or []
    env = spec.get("env") or {}
    if not isinstance(args, list) or not all(isinstance(a, str | int | float) for a in args):
        raise DependencyError(E_DEPENDENCY_INVALID, f"{here}.args must be a list of words.")
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str | int | float) for k, v in env.items()
    ):
        raise DependencyError(E_DEPENDENCY_INVALID, f"{here}.env must map names to values.")
    return McpServer(
        name, spec["command"], tuple(str(a) for a in args), {k: str(v) for k, v in env.items()}
    )
