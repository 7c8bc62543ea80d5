"""Instruction skills written for these tests in the shapes public collections use.

Prose for a model, no ``###`` tools, usually no ``version``: folded and quoted
descriptions, unknown fields (``license``, ``metadata``, ``allowed-tools``), a name that
differs from the folder, ``###`` headings that are prose, references/, scripts/ and
assets, a long description, a Windows line ending, a BOM.
"""

from __future__ import annotations

from pathlib import Path

LONG = "Reviews pull requests for security issues. " * 20

SHAPES: dict[str, dict[str, str | bytes]] = {
    "plain-guide": {
        "SKILL.md": "---\nname: plain-guide\ndescription: How we write release notes.\n---\n\n"
        "# Release notes\n\nUse short sentences.\n",
    },
    "folded-description": {
        "SKILL.md": "---\nname: folded-description\ndescription: >\n  Writes commit messages\n"
        "  in the imperative. Use when committing.\nlicense: Apache-2.0\n---\n\n"
        "## When to use\n\nAlways.\n\n### Step one\n\nRead the diff.\n\n### Step two\n\n"
        "Write it.\n",
    },
    "with-references": {
        "SKILL.md": "---\nname: with-references\ndescription: 'Quoted: has a colon in it'\n"
        "metadata:\n  author: someone\n  version: '2.1'\nallowed-tools: Bash(git:*) Read\n---\n\n"
        "See [the guide](references/guide.md) and run `scripts/check.py`.\n\n```bash\n"
        "python scripts/check.py\n```\n",
        "references/guide.md": "# Guide\n\nDetails.\n",
        "scripts/check.py": "print('checked')\n",
        "assets/logo.svg": "<svg/>\n",
        "LICENSE.txt": "Apache\n",
    },
    "long-description": {
        "SKILL.md": f"---\nname: long-description\ndescription: {LONG.strip()}\n---\n\nBody.\n",
    },
    "crlf-and-bom": {
        "SKILL.md": "\ufeff---\r\nname: crlf-and-bom\r\ndescription: Windows line endings.\r\n"
        "---\r\n\r\nProse.\r\n".encode(),
    },
}
"""folder name → files; every skill's name equals its folder name."""


def write_shape(root: Path, name: str) -> Path:
    folder = root / name
    for rel, content in SHAPES[name].items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return folder


def write_all(root: Path) -> list[Path]:
    return [write_shape(root, name) for name in SHAPES]


def instruction_text(name: str, body: str = "Follow the house style.\n") -> str:
    return f"---\nname: {name}\ndescription: The {name} instructions, for tests.\n---\n\n{body}"
