"""The JSON shape of a skill holds any value YAML can put in its frontmatter."""

from __future__ import annotations

import datetime
import json
import math
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gibberish.skills.model import Profile
from gibberish.skills.parser import parse_skill_text
from gibberish.skills.serialize import json_value, skill_to_dict
from tests.skills.fixtures.skillkit import HELLO_TOOL, front

PATH = Path("/skills/demo/SKILL.md")

_KEYS = st.one_of(
    st.text(min_size=1, max_size=12),
    st.integers(-1000, 1000),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.dates(),
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.dates(),
    st.datetimes(),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=20,
)


def _dumps(value: object) -> str:
    return json.dumps(value, allow_nan=False, sort_keys=False)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(metadata=st.dictionaries(_KEYS, _VALUES, max_size=5), other=_VALUES)
def test_any_yaml_frontmatter_serializes_to_valid_json(metadata: dict, other: object) -> None:
    fields = yaml.safe_dump({"metadata": metadata, "x-other": other, "license": other})
    text = front(extra=fields) + "\n" + HELLO_TOOL
    for profile in Profile:
        skill = parse_skill_text(text, path=PATH, profile=profile)
        shaped = skill_to_dict(skill)
        assert json.loads(_dumps(shaped))["name"] == "demo"


def test_a_metadata_mapping_serializes() -> None:
    # Once `skills check --json` failed: "Object of type mappingproxy is not JSON serializable"
    text = front(extra="metadata:\n  author: someone\n  tags: [a, b]") + "\n" + HELLO_TOOL
    skill = parse_skill_text(text, path=PATH, profile=Profile.AGENTSKILLS)
    assert skill.ok, skill.diagnostics
    shaped = json.loads(_dumps(skill_to_dict(skill)))
    assert shaped["extra"]["metadata"] == {"author": "someone", "tags": ["a", "b"]}


def test_dates_numbers_and_null_as_keys() -> None:
    extra = "metadata:\n  2024-01-02: released\n  1: one\n  null: nothing\n  false: off\n  at: 2024-01-02"
    skill = parse_skill_text(front(extra=extra) + "\n" + HELLO_TOOL, path=PATH)
    assert "E-INVALID-FIELD" not in [d.code for d in skill.diagnostics]
    metadata = json.loads(_dumps(skill_to_dict(skill)))["extra"]["metadata"]
    assert metadata == {
        "2024-01-02": "released",
        "1": "one",
        "null": "nothing",
        "false": False,
        "at": "2024-01-02",
    }


def test_json_value_spells_what_json_cannot_hold() -> None:
    assert json_value({math.inf: [math.nan, -math.inf]}) == {".inf": [".nan", "-.inf"]}
    assert json_value((datetime.date(2024, 1, 2), {1.5: None})) == ["2024-01-02", {"1.5": None}]
