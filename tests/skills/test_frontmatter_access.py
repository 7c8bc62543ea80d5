"""``gui:`` and ``credentials:`` in the frontmatter: checked, located, kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from gibberish.skills.model import SkillDefinition
from gibberish.skills.parser import parse_skill_text
from gibberish.skills.serialize import skill_to_dict
from tests.skills.fixtures.skillkit import HELLO_TOOL, codes, front, only

PATH = Path("/skills/demo/SKILL.md")


def with_fields(extra: str) -> SkillDefinition:
    return parse_skill_text(front(extra=extra) + "\n" + HELLO_TOOL, path=PATH)


def test_defaults_are_no_display_and_no_credentials() -> None:
    skill = with_fields("")
    assert (skill.gui, skill.credentials) == (False, ())


def test_gui_and_credentials_are_read_and_serialized() -> None:
    skill = with_fields("gui: true\ncredentials: [~/.aws, /etc/ssl/private, ~/.aws]")
    assert skill.ok and skill.gui and skill.credentials == ("~/.aws", "/etc/ssl/private")
    data = skill_to_dict(skill)
    assert data["gui"] is True and data["credentials"] == ["~/.aws", "/etc/ssl/private"]


@pytest.mark.parametrize(
    "bad",
    [
        "[.ssh]",  # relative
        "[~]",  # the whole home folder
        "['/']",  # the whole file system
        "[~/.ssh/../..]",  # climbs out
        "[~user/.ssh]",  # another user's home
        '["~/.ssh\\u0000x"]',  # a control character
        "[" + "/a" * 200 + "]",  # too long
        "[1]",  # not text
    ],
)
def test_a_bad_credential_path_is_an_error_on_its_line(bad: str) -> None:
    skill = with_fields(f"credentials: {bad}")
    assert not skill.ok and skill.credentials == ()
    diagnostic = only(skill, "E-INVALID-FIELD")
    assert diagnostic.line == 5 and "credential" in diagnostic.message


@pytest.mark.parametrize("bad", ["yes please", "1", "[true]"])
def test_gui_must_be_a_boolean(bad: str) -> None:
    skill = with_fields(f"gui: {bad}")
    assert "E-INVALID-FIELD" in codes(skill) and skill.gui is False


def test_one_credential_path_may_be_written_without_a_list() -> None:
    assert with_fields("credentials: ~/.kube").credentials == ("~/.kube",)
