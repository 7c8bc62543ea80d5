"""Loading the model's own chat template (``model_template.py``) from the files a model ships.

The files here are made by the tests: the reconstruction stands in for Google's text, so
the loader and the comparison it feeds are proven without the Gemma-licensed file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gibberish.assistant.conversation import Message
from gibberish.assistant.functiongemma import render_conversation
from tests.assistant import model_template
from tests.assistant.model_template import ENV, TemplateNotFound, from_environment, load
from tests.assistant.test_template import CONVERSATIONS, TEMPLATE, TOOL_SETS, template_render

TEXT = TEMPLATE.read_text(encoding="utf-8")


def test_a_jinja_file_is_read_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "chat_template.jinja"
    path.write_text(TEXT, encoding="utf-8")
    assert load(path).text == TEXT


def test_a_tokenizer_config_gives_its_chat_template(tmp_path: Path) -> None:
    path = tmp_path / "tokenizer_config.json"
    path.write_text(json.dumps({"bos_token": "<bos>", "chat_template": TEXT}), encoding="utf-8")
    found = load(path)
    assert found.text == TEXT and "chat_template" in found.source


def test_a_tokenizer_config_with_named_templates_gives_the_default(tmp_path: Path) -> None:
    path = tmp_path / "tokenizer_config.json"
    named = [{"name": "tool_use", "template": "x"}, {"name": "default", "template": TEXT}]
    path.write_text(json.dumps({"chat_template": named}), encoding="utf-8")
    assert load(path).text == TEXT


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not a readable JSON tokenizer config"),
        (json.dumps({"bos_token": "<bos>"}), "has no chat_template"),
        (json.dumps(["a list"]), "has no chat_template"),
    ],
)
def test_a_config_without_a_template_says_so(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "tokenizer_config.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(TemplateNotFound, match=problem):
        load(path)


def test_a_missing_file_or_unset_variable_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(TemplateNotFound, match=f"set {ENV}"):
        from_environment()
    monkeypatch.setenv(ENV, str(tmp_path / "absent.gguf"))
    with pytest.raises(TemplateNotFound, match="no such file"):
        from_environment()


def test_a_gguf_gives_its_tokenizer_chat_template(tmp_path: Path) -> None:
    gguf = pytest.importorskip("gguf", reason="the gguf package reads GGUF metadata")
    path = tmp_path / "model.gguf"
    writer = gguf.GGUFWriter(str(path), "gemma3")
    writer.add_chat_template(TEXT)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    assert load(path).text == TEXT
    (tmp_path / "other.gguf").write_bytes(b"GGUF not really")
    with pytest.raises(TemplateNotFound, match="not a readable GGUF"):
        load(tmp_path / "other.gguf")


def test_without_the_gguf_package_a_gguf_names_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    monkeypatch.setitem(__import__("sys").modules, "gguf", None)
    with pytest.raises(TemplateNotFound, match="needs the gguf package"):
        model_template.load(path)


def test_the_environment_template_drives_the_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the variable, a template equal to ours renders equal; one that closes the
    declaration with ``}}`` (as some renders of the real template do) is caught."""
    tools, messages = TOOL_SETS["git"], CONVERSATIONS["one request"]
    ours = render_conversation(tools, messages, bos=True)
    path = tmp_path / "chat_template.jinja"
    monkeypatch.setenv(ENV, str(path))

    path.write_text(TEXT, encoding="utf-8")
    assert template_render(tools, messages, source=from_environment().text) == ours

    path.write_text(TEXT.replace("<escape>} }", "<escape>}}"), encoding="utf-8")
    other = template_render(tools, messages, source=from_environment().text)
    assert other != ours
    assert "type:<escape>OBJECT<escape>}}<end_function_declaration>" in other
    assert isinstance(messages[0], Message)
