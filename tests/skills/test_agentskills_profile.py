"""The agentskills profile accepts what the Agent Skills reference validator
(skills-ref) accepts: prose the profile does not read, and names in any script."""

from __future__ import annotations

from pathlib import Path

import pytest
import skills_ref

from gibberish.skills.model import Profile, Severity
from gibberish.skills.parser import parse_skill_file
from tests.skills.fixtures.skillkit import HELLO_TOOL, write_skill


def _skill(root: Path, name: str, body: str) -> Path:
    text = f"---\nname: {name}\ndescription: An instruction skill.\n---\n{body}"
    return write_skill(root, name, text)


def _errors(path: Path, profile: Profile) -> list[str]:
    skill = parse_skill_file(path, profile=profile, expected_name=path.parent.name)
    return [d.code for d in skill.diagnostics if d.severity is Severity.ERROR]


UNCLOSED_PROSE = "# Usage\n\nRun it like this:\n\n```bash\nmake all\n\nThat is all.\n"


def test_an_unclosed_fence_in_prose_is_a_warning_in_the_agentskills_profile(
    tmp_path: Path,
) -> None:
    path = _skill(tmp_path, "notes", UNCLOSED_PROSE)
    assert skills_ref.validate(path.parent) == []
    skill = parse_skill_file(path, profile=Profile.AGENTSKILLS, expected_name="notes")
    assert skill.ok
    assert [(d.code, d.line) for d in skill.diagnostics] == [("W-UNTERMINATED-FENCE", 9)]


def test_an_unclosed_fence_is_still_an_error_where_tools_are_read(tmp_path: Path) -> None:
    path = _skill(tmp_path, "notes", UNCLOSED_PROSE)
    assert "E-UNTERMINATED-FENCE" in _errors(path, Profile.GIBBERISH)
    tool = HELLO_TOOL.replace("echo hello\n```\n", "echo hello\n")
    broken = _skill(tmp_path / "b", "notes", tool)
    assert "E-UNTERMINATED-FENCE" in _errors(broken, Profile.AGENTSKILLS)


@pytest.mark.parametrize("name", ["café", "日本語", "данные-skill", "ελληνικά-2", "ﬁle"])
def test_lowercase_unicode_names_load_in_the_agentskills_profile(tmp_path: Path, name: str) -> None:
    path = _skill(tmp_path, name, "Some instructions.\n")
    assert skills_ref.validate(path.parent) == []
    assert _errors(path, Profile.AGENTSKILLS) == []
    assert "E-INVALID-NAME" in _errors(path, Profile.GIBBERISH)


@pytest.mark.parametrize("name", ["Café", "-café", "ca--fé", "café!", "a_b"])
def test_names_the_reference_refuses_are_refused(tmp_path: Path, name: str) -> None:
    path = _skill(tmp_path, name, "Some instructions.\n")
    assert skills_ref.validate(path.parent) != []
    assert "E-INVALID-NAME" in _errors(path, Profile.AGENTSKILLS)
