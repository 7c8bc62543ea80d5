"""``gibberish stub``: a gateway stub with no source content, and the RFC's source hash."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.export.stub import build_stub, render_stub, source_hash

SKILL = """---
name: writing
description: Help with writing. Use when the user drafts prose.
---

# Writing

Secret sentence that must not leak.

## Drafting

Draft fast.

### Deep detail

Too deep for the stub.

## Editing

Edit slowly.
"""


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    root = tmp_path / "src" / "writing"
    (root / "refs").mkdir(parents=True)
    (root / "SKILL.md").write_text(SKILL, encoding="utf-8")
    long = "x" * 200
    (root / "refs" / "b.md").write_text(f"---\ndescription: {long}\n---\n# Bee\n", "utf-8")
    (root / "refs" / "a.md").write_text("no heading here\n", encoding="utf-8")
    (root / "refs" / "a-b.txt").write_bytes(b"\x00\x01binary")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "ignored.md").write_text("# Ignored\n", encoding="utf-8")
    return root


def independent_hash(root: Path) -> str:
    """The RFC's definition, written separately: sorted (path, sha256-hex) pairs, one SHA-256."""
    pairs = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            full = Path(dirpath, name)
            if full.is_symlink() or not full.is_file():
                continue
            rel = full.relative_to(root).as_posix()
            pairs.append((rel, hashlib.sha256(full.read_bytes()).hexdigest()))
    h = hashlib.sha256()
    for rel, digest in sorted(pairs):
        h.update(rel.encode("utf-8") + digest.encode("ascii"))
    return h.hexdigest()


def test_source_hash_matches_the_rfc_definition(skill: Path) -> None:
    assert source_hash(skill) == independent_hash(skill)
    before = source_hash(skill)
    (skill / ".hidden" / "ignored.md").write_text("# Changed\n", encoding="utf-8")
    assert source_hash(skill) == before  # hidden folders do not count
    (skill / "refs" / "a.md").write_text("changed\n", encoding="utf-8")
    assert source_hash(skill) != before


def test_source_hash_of_a_known_folder(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_bytes(b"x")
    x = hashlib.sha256(b"x").hexdigest()
    assert source_hash(tmp_path) == hashlib.sha256(b"SKILL.md" + x.encode()).hexdigest()


def test_stub_has_gateway_notice_and_sections_but_no_content(skill: Path) -> None:
    text = render_stub(skill)
    assert text.startswith("---\nname: writing\ndescription: Help with writing.")
    assert "skills_outline" in text and "gibberish show writing --section" in text
    listing = text.split("## Top Sections\n\n", 1)[1].splitlines()
    assert listing == [
        "- Writing",
        "  - Drafting",
        "  - Editing",
        "- References (query by title only)",
        "  - refs/a.md",
        "  - Bee — " + "x" * 119 + "…",
    ]
    assert "Secret sentence" not in text and "Deep detail" not in text
    assert str(skill.parent) not in text and "a-b.txt" not in text
    assert len(text.splitlines()) <= 100


def test_many_headings_are_limited_with_a_count(tmp_path: Path) -> None:
    root = tmp_path / "big"
    root.mkdir()
    heads = "".join(f"# H{i}\n\ntext\n\n" for i in range(20))
    (root / "SKILL.md").write_text(f"---\nname: big\ndescription: Big.\n---\n{heads}", "utf-8")
    listing = render_stub(root).split("## Top Sections\n\n", 1)[1].splitlines()
    assert listing == [
        *[f"- H{i}" for i in range(15)],
        "- … (5 more; the outline lists every heading)",
    ]


def test_at_most_fifteen_sections_with_references_counted(tmp_path: Path) -> None:
    root = tmp_path / "refs"
    (root / "references").mkdir(parents=True)
    heads = "".join(f"# H{i}\n\n## Sub{i}\n\n" for i in range(5))
    (root / "SKILL.md").write_text(f"---\nname: refs\ndescription: R.\n---\n{heads}", "utf-8")
    for i in range(30):
        (root / "references" / f"r{i:02}.md").write_text(f"# Ref {i}\n", "utf-8")
    listing = render_stub(root).split("## Top Sections\n\n", 1)[1].splitlines()
    sections = [line for line in listing if not line.startswith(("- References", "- …"))]
    assert len(sections) == 15 and sections[10:] == [f"  - Ref {i}" for i in range(5)]
    assert listing[-1] == "- … (25 more; the outline lists every heading)"


def test_build_writes_manifest_and_rebuilds_only_on_change(skill: Path, tmp_path: Path) -> None:
    out = tmp_path / "runtime"
    first = build_stub(skill, out)
    assert first.rebuilt and first.folder == out / "writing"
    manifest = json.loads((out / "writing" / ".skillc" / "manifest.json").read_text("utf-8"))
    assert manifest["skill"] == "writing" and manifest["version"] == 1
    assert manifest["source_hash"] == independent_hash(skill)
    assert manifest["built_at"].endswith("+00:00")
    assert sorted(p.name for p in (out / "writing").iterdir()) == [".skillc", "SKILL.md"]
    assert not build_stub(skill, out).rebuilt
    (skill / "SKILL.md").write_text(SKILL + "\n# More\n", encoding="utf-8")
    again = build_stub(skill, out)
    assert again.rebuilt and "- More" in (out / "writing" / "SKILL.md").read_text("utf-8")


def test_cli_stub_passes_the_agentskills_check(skill: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "runtime"
    result = runner.invoke(cli, ["stub", str(skill), "--out", str(out)])
    assert result.exit_code == 0, result.output
    check = runner.invoke(cli, ["skills", "check", "--profile", "agentskills", str(out)])
    assert check.exit_code == 0, check.output
    assert "0 errors, 0 warnings" in check.output


def test_cli_stub_errors_use_rfc_codes_and_exit_1(tmp_path: Path) -> None:
    runner = CliRunner()
    (tmp_path / "empty").mkdir()
    result = runner.invoke(cli, ["stub", str(tmp_path / "empty"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1 and "error[E010]" in result.output
    (tmp_path / "nodesc").mkdir()
    (tmp_path / "nodesc" / "SKILL.md").write_text("---\nname: nodesc\n---\nbody\n", "utf-8")
    result = runner.invoke(cli, ["stub", str(tmp_path / "nodesc"), "--out", str(tmp_path / "o")])
    assert (
        result.exit_code == 1 and "error[E011]" in result.output and "description" in result.output
    )
    os.symlink("/etc", tmp_path / "nodesc" / "etc")
    (tmp_path / "nodesc" / "SKILL.md").write_text("---\nname: n\ndescription: d\n---\n", "utf-8")
    result = runner.invoke(cli, ["stub", str(tmp_path / "nodesc"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1 and "error[E012]" in result.output
