"""A folder of hostile skills beside good ones, built in a test's temporary folder.

Link loops (to itself, to its folder, a pair), dangling links (absolute, relative),
FIFOs (inside, and as SKILL.md), a SKILL.md leading out, 10,001 files, a 50 MB file
(sparse). Unreadable files and folders are added by :func:`make_unreadable`.
"""

from __future__ import annotations

import os
from pathlib import Path

GOOD = ("good-guide", "good-tool")
ODD_BUT_USABLE = ("loop-self", "loop-dir", "loop-pair", "dangling-rel", "fifo-inside", "big-file")
BROKEN = ("dangling", "fifo-skillmd", "skillmd-dangling", "skillmd-link-out", "many-files")

TOOL = (
    "---\nname: good-tool\nversion: 1.0.0\ndescription: Says hi.\nread_only: true\n---\n\n"
    "### hello\n\nSay hello.\n\n#### Parameters\n\nNone.\n\n#### Command\n\n```bash\necho hi\n```\n"
)


def _skill(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} skill.\n---\n\n# {name}\n\n"
        "Follow the house style.\n\n## Usage\n\nRead it.\n"
    )
    return folder


def build(root: Path, *, many: int = 10_001) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    _skill(root, "good-guide")
    (root / "good-tool").mkdir()
    (root / "good-tool" / "SKILL.md").write_text(TOOL)
    os.symlink("loop-self-link", _skill(root, "loop-self") / "loop-self-link")
    os.symlink(".", _skill(root, "loop-dir") / "again")
    pair = _skill(root, "loop-pair")
    os.symlink("b", pair / "a")
    os.symlink("a", pair / "b")
    os.symlink("/nonexistent/target", _skill(root, "dangling") / "gone.md")
    refs = _skill(root, "dangling-rel") / "references"
    refs.mkdir()
    os.symlink("../missing.md", refs / "x.md")
    os.mkfifo(_skill(root, "fifo-inside") / "pipe.md")
    (root / "fifo-skillmd").mkdir()
    os.mkfifo(root / "fifo-skillmd" / "SKILL.md")
    out = _skill(root, "skillmd-link-out") / "SKILL.md"
    out.unlink()
    os.symlink("/etc/hostname", out)
    (root / "skillmd-dangling").mkdir()
    os.symlink("nowhere.md", root / "skillmd-dangling" / "SKILL.md")
    many_refs = _skill(root, "many-files") / "refs"
    many_refs.mkdir()
    for i in range(many):
        (many_refs / f"f{i}.md").write_bytes(b"# file\n")
    with open(_skill(root, "big-file") / "huge.md", "wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    return root


def make_unreadable(root: Path) -> None:
    """``unreadable-file`` (a mode-000 file) and ``unreadable-dir`` (a mode-000 folder)."""
    secret = _skill(root, "unreadable-file") / "secret.md"
    secret.write_text("# secret\n")
    secret.chmod(0)
    refs = _skill(root, "unreadable-dir") / "refs"
    refs.mkdir()
    (refs / "a.md").write_text("# a\n")
    refs.chmod(0)
