"""The parse cache stores a tool's parameters as tuples of plain values.

A restored tool must be indistinguishable from a parsed one: an ordinary
``ToolDefinition``, equal both ways, the same hash, the same parameters (every type,
defaults, ranges), ``replace`` as on any tool; and a cache whose parameter tuples are
damaged is refused when it is read.
"""

from __future__ import annotations

import io
import logging
import pickle
import pickletools
from pathlib import Path

import pytest
from msgspec.structs import replace

from gibberish.skills.cache import ParseCache, _ModelUnpickler
from gibberish.skills.library import SkillLibrary
from gibberish.skills.model import ToolDefinition
from gibberish.skills.stored_tool import as_stored, stored_tool
from tests.conftest import BUNDLED_SKILLS
from tests.skills.fixtures.skillkit import cached_library, make_skill, param_table, tool_block

ROWS = [
    ("text", "string", "no", "Some text (default: hello world)"),
    ("count", "integer 1..50", "no", "How many (default: 5)"),
    ("ratio", "number", "yes", "A share"),
    ("loud", "boolean", "no", "Shout (default: true)"),
    ("names", "array", "no", "Several names"),
]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "skills"
    command = "echo {{text}} {{count}} {{ratio}} {{loud:--loud}} {{names}}"
    make_skill(folder, "typed", tools=[tool_block("all", "All types.", command, param_table(ROWS))])
    make_skill(folder, "bare", tools=[tool_block("none", "No parameters.", "uptime")])
    return folder


def _library(root: Path) -> SkillLibrary:
    return cached_library(root)


@pytest.mark.parametrize("which", ["typed", "bundled"])
def test_a_restored_tool_is_the_parsed_one(which, root) -> None:
    folder = root if which == "typed" else BUNDLED_SKILLS
    fresh = [t for s in _library(folder).skills() for t in s.tools]
    restored = [t for s in _library(folder).skills() for t in s.tools]
    assert fresh and all(type(t) is ToolDefinition for t in restored)
    for parsed, back in zip(fresh, restored, strict=True):
        assert hash(back) == hash(parsed)
        assert back == parsed and parsed == back and (back != parsed) is False
        assert back.parameters == parsed.parameters
        assert [p.type for p in back.parameters] == [p.type for p in parsed.parameters]
    if which == "typed":
        [typed] = [t for t in restored if t.name == "all"]
        assert [p.default for p in typed.parameters] == ["hello world", 5, None, True, None]
        assert (typed.parameters[1].minimum, typed.parameters[1].maximum) == (1, 50)


def test_replace_and_inequality_work_as_on_any_tool(root) -> None:
    _library(root)
    [typed] = [t for s in _library(root).skills() for t in s.tools if t.name == "all"]
    fewer = replace(typed, parameters=typed.parameters[:2])
    assert isinstance(fewer, ToolDefinition) and len(fewer.parameters) == 2
    assert fewer != typed and typed != replace(typed, description="Other.")
    assert typed == replace(typed)
    with pytest.raises(AttributeError):
        typed.name = "renamed"


def test_the_cache_names_no_parameter_class_and_a_resave_writes_the_same_tuples(root) -> None:
    library = _library(root)
    data = ParseCache.for_sources(library.sources, library.profile).path.read_bytes()
    names = {a for op, a, _pos in pickletools.genops(data) if op.name == "SHORT_BINUNICODE"}
    assert "stored_tool" in names
    assert not names & {"ParameterDefinition", "ToolDefinition", "ParameterType"}
    [typed] = [t for s in _library(root).skills() for t in s.tools if t.name == "all"]
    again = pickle.loads(pickle.dumps(as_stored(typed)[1]))  # what a resave writes
    assert stored_tool(*again) == typed


@pytest.mark.parametrize(
    "raw",
    [
        (("x", "string", True, "", None, 1, None),),  # seven values
        (("x", "colour", True, "", None, 1, None, None),),  # an unknown type
        [("x", "string", True, "", None, 1, None, None)],  # not a tuple
        ("x",),
    ],
)
def test_damaged_parameters_are_refused_when_read(raw) -> None:
    with pytest.raises(TypeError):
        stored_tool("t", "", raw, None, 1, ())


def test_a_cache_with_damaged_parameters_is_rebuilt(root, caplog) -> None:
    first = _library(root)
    path = ParseCache.for_sources(first.sources, first.profile).path
    data = path.read_bytes().replace(b"integer", b"integex")
    assert _ModelUnpickler  # the same unpickler reads it
    path.write_bytes(data)
    with caplog.at_level(logging.WARNING, logger="gibberish.skills.cache"):
        second = _library(root)
    assert "unreadable" in caplog.text
    assert second.skills() == first.skills()
    with pytest.raises(TypeError):
        _ModelUnpickler(io.BytesIO(data)).load()


@pytest.mark.parametrize("which", ["typed", "bundled"])
def test_the_json_shape_of_restored_parameters_is_the_parsed_one(which, root) -> None:
    """A restored skill lists the bytes a parsed one does, key order included."""
    import json

    from gibberish.skills.serialize import skill_to_dict

    folder = root if which == "typed" else BUNDLED_SKILLS
    fresh = _library(folder).skills()
    restored = _library(folder).skills()
    for parsed, back in zip(fresh, restored, strict=True):
        assert json.dumps(skill_to_dict(back)) == json.dumps(skill_to_dict(parsed))
