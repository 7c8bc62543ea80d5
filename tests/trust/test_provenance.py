from __future__ import annotations

import json
from pathlib import Path

import pytest

from gibberish.trust.fingerprint import PROVENANCE_FILE, fingerprint
from gibberish.trust.provenance import is_imported, read_provenance, write_provenance


def test_write_and_read_provenance(skill_dir: Path) -> None:
    assert not is_imported(skill_dir)
    assert read_provenance(skill_dir) is None
    before = fingerprint(skill_dir)
    record = write_provenance(skill_dir, "https://github.com/x/y", "git", before.digest)
    assert is_imported(skill_dir)
    assert read_provenance(skill_dir) == record
    assert record.fingerprint == before.digest
    assert fingerprint(skill_dir) == before  # the provenance file is not fingerprinted
    data = json.loads((skill_dir / PROVENANCE_FILE).read_text())
    assert set(data) == {"source", "kind", "imported_at", "fingerprint"}


def test_a_broken_provenance_file_still_marks_the_skill_imported(skill_dir: Path) -> None:
    (skill_dir / PROVENANCE_FILE).write_text("{oops")
    assert is_imported(skill_dir)
    assert read_provenance(skill_dir) is None


def test_unknown_kind_is_refused(skill_dir: Path) -> None:
    with pytest.raises(ValueError, match="import kind"):
        write_provenance(skill_dir, "x", "ftp", "0" * 64)
