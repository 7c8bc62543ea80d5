"""The parse cache keeps command templates as their text, and names only model classes.

A restored template parses its source again the first time its words are needed; these
tests hold it to giving the same words, and the same rendered argv, as a fresh parse, for
the bundled skills and for templates of every shape the parser takes (placeholders with
defaults and flags, quotes, URLs with queries, ``--``, ``./scripts``, arrays, a slow-path
template with an escaped newline). They also hold the unpickler to the named model
classes: a cache naming any other global of ``gibberish.skills`` is refused and rebuilt.
"""

from __future__ import annotations

import gc
import io
import logging
import pickle
import pickletools
from pathlib import Path

import pytest

from gibberish.skills import cache as cache_module
from gibberish.skills.cache import ParseCache, _ModelUnpickler, without_collection
from gibberish.skills.library import SkillLibrary
from gibberish.skills.model import CommandTemplate, ParameterType, SkillDefinition
from gibberish.skills.render import render
from gibberish.skills.templates import parse_template
from gibberish.skills.text_template import TextTemplate, from_text
from tests.conftest import BUNDLED_SKILLS
from tests.skills.fixtures.skillkit import cached_library, make_skill, param_table, tool_block

SHAPES = {
    "plain": ("echo hello", []),
    "value_and_default": (
        "grep -rn {{pattern}} {{path:.}}",
        [("pattern", "string", "yes", "What"), ("path", "string", "no", "Where")],
    ),
    "flags": (
        "ls {{long:-l}} {{all:--all}} {{sort:--sort=}} -- {{folder}}",
        [
            ("long", "boolean", "no", "Long"),
            ("all", "boolean", "no", "All"),
            ("sort", "string", "no", "Sort key"),
            ("folder", "string", "yes", "Folder"),
        ],
    ),
    "quotes_and_url": (
        "curl -s \"https://example.org/search?q={{query}}&n={{count}}\" -H 'Accept: a b'",
        [("query", "string", "yes", "Query"), ("count", "integer", "no", "How many")],
    ),
    "script_and_array": (
        "./scripts/run.sh --name={{name}} {{files}}",
        [("name", "string", "yes", "Name"), ("files", "array", "no", "Files")],
    ),
    "continued_line": (
        "printf '%s\\n' \\\n  {{first}} {{second:two}}",
        [("first", "number", "yes", "One"), ("second", "string", "no", "Two")],
    ),
}

VALUES = {
    ParameterType.STRING: "a value; with $HOME & spaces",
    ParameterType.INTEGER: 7,
    ParameterType.NUMBER: 2.5,
    ParameterType.BOOLEAN: True,
    ParameterType.ARRAY: ["one", "two words"],
}


@pytest.fixture
def shapes_root(tmp_path: Path) -> Path:
    folder = tmp_path / "skills"
    for name, (command, rows) in SHAPES.items():
        params = param_table(rows) if rows else "None."
        make_skill(
            folder,
            name.replace("_", "-"),
            tools=[tool_block(f"{name}_tool", "Do it.", command, params)],
            scripts={"run.sh": "#!/bin/sh\necho run\n"},
        )
    return folder


def _library(root: Path) -> SkillLibrary:
    return cached_library(root)


def _fresh_and_restored(root: Path) -> tuple[list[SkillDefinition], list[SkillDefinition]]:
    fresh = _library(root).skills()
    assert all(s.ok and s.tools[0].command is not None for s in fresh), fresh
    restored = _library(root).skills()
    assert [s.name for s in restored] == [s.name for s in fresh] and fresh
    return fresh, restored


def _argvs(skill: SkillDefinition) -> list[list[str]]:
    out = []
    for tool in skill.tools:
        if tool.command is None:
            continue
        args = {p.name: VALUES[p.type] for p in tool.parameters}
        out.append(render(tool, args, skill_dir=skill.directory, home=Path("/home/someone")))
    return out


def _templates(skills: list[SkillDefinition]) -> list[CommandTemplate]:
    return [t.command for s in skills for t in s.tools if t.command is not None]


@pytest.mark.parametrize("which", ["shapes", "bundled"])
def test_restored_templates_render_what_fresh_ones_do(which, shapes_root) -> None:
    root = shapes_root if which == "shapes" else BUNDLED_SKILLS
    fresh, restored = _fresh_and_restored(root)
    restored_templates = _templates(restored)
    assert restored_templates
    assert all(type(t) is TextTemplate and t._words is None for t in restored_templates)
    for before, after in zip(fresh, restored, strict=True):
        assert _argvs(after) == _argvs(before)
        assert after == before and after is not before
    for template in restored_templates:
        assert template.words == parse_template(template.source)[0].words
        assert template._words is not None  # parsed once, then kept


def test_the_cache_file_holds_templates_as_text_only(shapes_root) -> None:
    library = _library(shapes_root)
    data = ParseCache.for_sources(library.sources, library.profile).path.read_bytes()
    names = {arg for op, arg, _pos in pickletools.genops(data) if op.name == "SHORT_BINUNICODE"}
    assert "from_text" in names
    assert not names & {"CommandTemplate", "TemplateWord", "Literal", "Placeholder"}
    assert "grep -rn {{pattern}} {{path:.}}" in names


def test_a_template_stays_immutable_and_compares_by_text_words_and_line() -> None:
    template, _ = parse_template("git log -n {{count}}", line=12)
    assert template is not None
    for either in (template, TextTemplate(template.source, 12)):
        for field, value in (("source", "rm -rf /"), ("line", 1), ("_words", ()), ("new", 1)):
            with pytest.raises(AttributeError):
                setattr(either, field, value)
        with pytest.raises(AttributeError):
            del either.source
        assert either.source == template.source and either.line == 12
    for restored in (pickle.loads(pickle.dumps(template)), TextTemplate(template.source, 12)):
        assert restored == template and hash(restored) == hash(template)
        assert restored.program == "git" and restored.placeholder_names == {"count"}
    assert restored != CommandTemplate(template.source, template.words, 13)
    assert restored != CommandTemplate(template.source, template.words[:1], 12)


@pytest.mark.parametrize(
    "state", [(b"echo", 1), ("echo", "1"), (["echo"], None), ("echo",), ("echo", 1, 2)]
)
def test_a_template_restored_from_a_wrong_state_is_an_error(state) -> None:
    with pytest.raises((TypeError, ValueError)):
        from_text(*state)


OTHER_GLOBALS = [
    ("gibberish.skills.library", "SkillLibrary"),
    ("gibberish.skills.cache", "ParseCache"),
    ("gibberish.skills.cache", "_unrolled_setstate"),
    ("gibberish.skills.model", "tool_ref"),
    ("gibberish.skills.model", "TemplateWord"),
    ("gibberish.skills.templates", "parse_template"),
    ("gibberish.skills.entry", "is_racy"),
    ("gibberish.skills.entry", "SkillSource"),
    ("gibberish.skills.fields", "os"),
    ("gibberish.skills", "model"),
]


def _global_pickle(module: str, name: str) -> bytes:
    """A pickle that names ``module.name`` (protocol 0's GLOBAL opcode) and returns it."""
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n."


@pytest.mark.parametrize(("module", "name"), OTHER_GLOBALS)
def test_a_cache_naming_another_gibberish_skills_global_is_refused(module, name) -> None:
    with pytest.raises(pickle.UnpicklingError, match="not part of a parsed skill"):
        _ModelUnpickler(io.BytesIO(_global_pickle(module, name))).load()


def test_a_cache_file_naming_another_global_is_rebuilt(shapes_root, caplog) -> None:
    first = _library(shapes_root)
    path = ParseCache.for_sources(first.sources, first.profile).path
    crafted = (  # (stamp, SkillLibrary): the right stamp, then a class no entry is made of
        pickle.dumps(cache_module.code_stamp(), protocol=2)[:-1]
        + _global_pickle("gibberish.skills.library", "SkillLibrary")[:-1]
        + pickle.TUPLE2
        + pickle.STOP
    )
    assert pickle.loads(crafted)[1] is SkillLibrary  # a plain unpickler would hand it over
    path.write_bytes(crafted)
    with caplog.at_level(logging.WARNING, logger="gibberish.skills.cache"):
        second = _library(shapes_root)
    assert "not part of a parsed skill" in caplog.text
    assert second.skills() == first.skills()


def test_the_model_classes_a_cache_names_are_all_reachable() -> None:
    for module, name in sorted(cache_module._MODEL_CLASSES):
        found = _ModelUnpickler(io.BytesIO(_global_pickle(module, name))).load()
        assert found.__name__ == name and callable(found)


def _generation_of(marker: object) -> int | None:
    for generation in range(3):
        if any(o is marker for o in gc.get_objects(generation)):
            return generation
    return None


class _Made:
    """A tracked object the tests look for in the collector's generations."""


def test_what_is_made_unwalked_lands_in_the_oldest_generation() -> None:
    gc.unfreeze()  # an earlier test in this process (the tray's gui_gc) may have frozen its objects
    was = gc.isenabled()
    gc.enable()
    try:
        with without_collection():
            made = _Made()
        assert gc.isenabled() and gc.get_freeze_count() == 0
        assert _generation_of(made) == 2
    finally:
        gc.enable() if was else gc.disable()


def test_objects_frozen_on_purpose_stay_frozen() -> None:
    was = gc.isenabled()
    gc.enable()
    kept = _Made()
    gc.freeze()
    try:
        with without_collection():
            made = _Made()
        # Still frozen: an unfreeze would have emptied the permanent generation. (Its
        # count is not compared: another thread may free a frozen object meanwhile.)
        assert gc.get_freeze_count() > 0
        assert _generation_of(kept) is None  # still out of every generation
        assert _generation_of(made) is not None  # what was made is walked as usual
    finally:
        gc.unfreeze()
        gc.enable() if was else gc.disable()
