"""Finding and rendering the model's own chat template (``model_template.py``).

The loader is proven on files the tests write (a small stand-in template), so it holds
without the Gemma-licensed file; the comparison it feeds is proven with the real file
where it is at hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.assistant import model_template
from tests.assistant.model_template import (
    ENV,
    REFERENCE,
    REFERENCE_FILES,
    TemplateNotFound,
    from_environment,
    load,
    reference_templates,
    render,
)

TEXT = (
    "{{ bos_token }}{% for m in messages %}<start_of_turn>{{ m['role'] }}\n"
    "{{ m['content'] | trim }}<end_of_turn>\n{% endfor %}"
)


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


def test_the_stand_in_renders_as_transformers_would() -> None:
    assert render(TEXT, [{"role": "user", "content": " hi "}]) == (
        "<bos><start_of_turn>user\nhi<end_of_turn>\n"
    )


def test_the_environment_adds_a_template_to_the_reference_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "chat_template.jinja"
    path.write_text(TEXT, encoding="utf-8")
    monkeypatch.setenv(ENV, str(path))
    found = reference_templates()
    assert found[-1].text == TEXT and found[-1].revision == "unknown"
    monkeypatch.delenv(ENV)
    assert TEXT not in [t.text for t in reference_templates()]


def test_a_changed_template_is_caught_by_the_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the variable, the real file renders equal to gibberish; the same file with
    the closing braces spaced (as the documentation pages print them) is caught."""
    from tests.assistant.test_template import differing_cases

    release = REFERENCE / REFERENCE_FILES[0]
    if not release.is_file():
        pytest.skip(f"the model's template is not at {release}")
    text = release.read_text(encoding="utf-8")
    path = tmp_path / "chat_template.jinja"
    monkeypatch.setenv(ENV, str(path))

    path.write_text(text, encoding="utf-8")
    assert differing_cases(from_environment(), "") == []

    path.write_text(text.replace("-}} },", "-}} } ,"), encoding="utf-8")
    changed = from_environment()
    assert changed.revision == "unknown"
    differing = differing_cases(changed, changed.preamble)
    assert differing and all("} }" in d or "} ," in d for d in differing)
