"""Find FunctionGemma's own chat template on this machine, for the byte-exactness test.

Google's ``chat_template`` of ``google/functiongemma-270m-it`` ships under the Gemma terms,
so the repository does not carry it, and no package the project's registries serve ships it
(docs/model-feed.md lists what was searched). Whoever has the model can point the suite at
it: ``GIBBERISH_FUNCTIONGEMMA_TEMPLATE`` names a ``chat_template.jinja``, the model's
``tokenizer_config.json`` or its ``.gguf`` file (metadata key ``tokenizer.chat_template``,
read with the ``gguf`` package when it is installed). ``test_template.py`` then renders
every case with that template as well as with the reconstruction.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

ENV = "GIBBERISH_FUNCTIONGEMMA_TEMPLATE"
GGUF_KEY = "tokenizer.chat_template"


class TemplateNotFound(Exception):
    """Why the model's own template could not be had (one sentence, for a skip reason)."""


@dataclass(frozen=True)
class FoundTemplate:
    source: str
    text: str


def from_environment() -> FoundTemplate:
    """The template named by ``GIBBERISH_FUNCTIONGEMMA_TEMPLATE``, or why there is none."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        raise TemplateNotFound(
            f"FunctionGemma's own chat template is not on this machine: set {ENV} to its "
            "chat_template.jinja, tokenizer_config.json or .gguf file"
        )
    return load(Path(value).expanduser())


def load(path: Path) -> FoundTemplate:
    """The chat template inside ``path`` (a Jinja file, a tokenizer config or a GGUF)."""
    if not path.is_file():
        raise TemplateNotFound(f"{path}: no such file ({ENV})")
    if path.suffix == ".gguf":
        return FoundTemplate(f"{path} ({GGUF_KEY})", _from_gguf(path))
    if path.suffix == ".json":
        return FoundTemplate(f"{path} (chat_template)", _from_tokenizer_config(path))
    return FoundTemplate(str(path), path.read_text(encoding="utf-8"))


def _from_tokenizer_config(path: Path) -> str:
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TemplateNotFound(f"{path}: not a readable JSON tokenizer config ({exc})") from exc
    template = config.get("chat_template") if isinstance(config, dict) else None
    if isinstance(template, list):  # several named templates: the default one
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        template = named.get("default")
    if not isinstance(template, str) or not template:
        raise TemplateNotFound(f"{path}: has no chat_template")
    return template


def _from_gguf(path: Path) -> str:
    try:
        from gguf import GGUFReader  # type: ignore[import-not-found]
    except ImportError as exc:
        raise TemplateNotFound(
            f"{path}: reading a GGUF needs the gguf package (pip install gguf)"
        ) from exc
    try:
        field = GGUFReader(path).get_field(GGUF_KEY)
    except (OSError, ValueError) as exc:
        raise TemplateNotFound(f"{path}: not a readable GGUF file ({exc})") from exc
    if field is None:
        raise TemplateNotFound(f"{path}: has no {GGUF_KEY}")
    return bytes(field.parts[field.data[0]]).decode("utf-8")
