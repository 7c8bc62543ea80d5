"""The repository speaks only of itself: every document the code cites is in it.

Decisions are recorded in ``docs/adr/``; code and docs cite those records. A reference to a
design document, review or seed that a reader of this repository does not have is a
defect, and so is a citation of a ``docs/`` file that does not exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("gibberish", "docs", "tests", "benchmarks", "packaging", "skills")
SUFFIXES = {".py", ".md", ".toml", ".txt", ".sh", ".desktop", ".json"}

# Documents that live outside the repository, and ways of citing them. One folder beside
# the repository is data, not a document: ``../shared/reference/`` holds the model's own
# chat template, which its licence keeps out of the repository, and the tests read it from
# there (ADR 0033). Naming that folder is naming where a test finds its input.
OUTSIDE = re.compile(
    r"DESIGN\.md|DESIGN\s*§|\.\./shared(?!/reference/)|shared/seeds|seeds/00\d"
    r"|security review [HML]\d|review finding|\((?:H|M|L)\d(?:, ?(?:H|M|L)\d)*\)"
)
DOCS_CITATION = re.compile(r"(?<![\w/.-])docs/adr/[\w.-]+\.md")


def _files() -> list[Path]:
    found = [ROOT / "README.md"]
    for top in SCANNED:
        found += [
            p
            for p in (ROOT / top).rglob("*")
            if p.is_file() and p.suffix in SUFFIXES and ".venv" not in p.parts
        ]
    return [p for p in found if p != Path(__file__).resolve()]


def _lines(pattern: re.Pattern[str]) -> list[tuple[Path, int, str]]:
    hits = []
    for path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for match in pattern.finditer(line):
                hits.append((path.relative_to(ROOT), number, match.group(0)))
    return hits


def test_no_reference_to_a_document_outside_the_repository() -> None:
    hits = _lines(OUTSIDE)
    assert not hits, "cite a record in docs/adr/ instead:\n" + "\n".join(
        f"{path}:{line}: {text}" for path, line, text in hits
    )


def test_every_cited_doc_exists() -> None:
    missing = [
        (path, line, text)
        for path, line, text in _lines(DOCS_CITATION)
        if not (ROOT / text).is_file()
    ]
    assert not missing, "\n".join(
        f"{path}:{line}: {text} does not exist" for path, line, text in missing
    )


@pytest.mark.parametrize(
    "record", sorted((ROOT / "docs" / "adr").glob("0*.md")), ids=lambda p: p.name
)
def test_each_decision_record_has_its_sections(record: Path) -> None:
    text = record.read_text(encoding="utf-8")
    for heading in ("Status:", "## Context", "## Decision", "## Consequences"):
        assert heading in text, f"{record.name} lacks {heading!r}"


def test_the_index_lists_every_record() -> None:
    index = (ROOT / "docs" / "adr" / "README.md").read_text(encoding="utf-8")
    for record in sorted((ROOT / "docs" / "adr").glob("0*.md")):
        assert f"({record.name})" in index, f"docs/adr/README.md does not list {record.name}"
