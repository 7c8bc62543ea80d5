"""What gibberish installed, where from, and who needs what: the install state file.

``installed.json`` in the data folder (``.gibberish/state.json`` in a project)::

    {"format": 1,
     "skills": {"pdf": {"source": "...", "kind": "git", "resolved": "<commit|sha256:…>",
                        "version": "1.2.0", "installed_at": "…", "installed_by": "user",
                        "dependencies": ["csv"], "depended_by": []}},
     "mcp": {"files": {"command": "npx", "args": [...], "env": {...},
                       "installed_by_skill": "pdf"}}}

Written with the shared atomic writer. A file that cannot be read as this format is
kept aside (``installed.json.broken-<time>``) and the state is rebuilt from the
provenance files of the installed folders, so a damaged file never loses track of what
is installed.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from gibberish.fileio import atomic_write_bytes
from gibberish.install.dependencies import DependencyError, read_dependencies
from gibberish.install.record import read_record

FORMAT = 1


class InstallState(Struct):
    path: Path
    skills: dict[str, dict[str, Any]] = field(default_factory=dict)
    mcp: dict[str, dict[str, Any]] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)

    # -- reading and writing -----------------------------------------------------------------

    @classmethod
    def load(cls, path: Path, skills_dir: Path) -> InstallState:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return cls(path)
        try:
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise ValueError("unknown format")
            skills, mcp = data["skills"], data["mcp"]
            if not isinstance(skills, dict) or not isinstance(mcp, dict):
                raise ValueError("bad sections")
            if not all(isinstance(v, dict) for v in (*skills.values(), *mcp.values())):
                raise ValueError("bad entries")
        except (ValueError, KeyError, TypeError):
            return cls._rebuild(path, skills_dir)
        return cls(path, skills, mcp)

    @classmethod
    def _rebuild(cls, path: Path, skills_dir: Path) -> InstallState:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        aside = path.with_name(f"{path.name}.broken-{stamp}")
        path.replace(aside)
        state = cls(path)
        state.notices.append(
            f"{path} could not be read; it was kept as {aside.name} and rebuilt from the "
            "installed skill folders."
        )
        for folder in sorted(skills_dir.iterdir()) if skills_dir.is_dir() else []:
            record = read_record(folder)
            if record is None or folder.name.startswith("."):
                continue
            state.skills[folder.name] = {
                "source": record.get("source", ""),
                "kind": record.get("kind", ""),
                "resolved": record.get("resolved", ""),
                "version": record.get("version", ""),
                "installed_at": record.get("installed_at", record.get("imported_at", "")),
                "installed_by": record.get("installed_by", "user"),
                "dependencies": [],
                "depended_by": [],
            }
        state._relink(skills_dir)
        state.save()
        return state

    def _relink(self, skills_dir: Path) -> None:
        """Recompute ``dependencies``/``depended_by`` from the skills' own SKILL.md files."""
        names = set(self.skills)
        for name in names:
            try:
                deps = read_dependencies(skills_dir / name / "SKILL.md")
            except DependencyError:
                continue
            wanted = [d.name for d in deps.skills if d.name in names]
            self.skills[name]["dependencies"] = wanted
            for dep in wanted:
                self.skills[dep]["depended_by"].append(name)

    def save(self) -> None:
        data = {"format": FORMAT, "skills": self.skills, "mcp": self.mcp}
        text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        atomic_write_bytes(self.path, text.encode("utf-8"), mode=0o644)

    def snapshot(self) -> tuple[str, str]:
        return json.dumps(self.skills, sort_keys=True), json.dumps(self.mcp, sort_keys=True)

    def restore(self, snapshot: tuple[str, str]) -> None:
        self.skills, self.mcp = json.loads(snapshot[0]), json.loads(snapshot[1])

    # -- questions -------------------------------------------------------------------------

    def dependents(self, name: str) -> list[str]:
        return sorted(n for n, s in self.skills.items() if name in s.get("dependencies", []))

    def orphans_after_removing(self, name: str) -> list[str]:
        """Dependencies installed for ``name`` alone (transitively) that nothing else needs."""
        gone = {name}
        pending = list(self.skills.get(name, {}).get("dependencies", []))
        while pending:
            dep = pending.pop()
            entry = self.skills.get(dep)
            if dep in gone or entry is None or entry.get("installed_by") == "user":
                continue
            if all(d in gone for d in self.dependents(dep)):
                gone.add(dep)
                pending.extend(entry.get("dependencies", []))
        return sorted(gone - {name})

    def forget(self, name: str) -> None:
        self.skills.pop(name, None)
        for entry in self.skills.values():  # what others declare they need stays recorded
            if name in entry.get("depended_by", []):
                entry["depended_by"] = [n for n in entry["depended_by"] if n != name]
        for server in [m for m, v in self.mcp.items() if v.get("installed_by_skill") == name]:
            del self.mcp[server]
