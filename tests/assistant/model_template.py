"""FunctionGemma's own chat template, found on this machine and rendered as ``transformers`` does.

Google's ``chat_template.jinja`` of ``google/functiongemma-270m-it`` ships under the Gemma
terms, so the repository does not carry it. The tests look for it in two places:

* ``../shared/reference/`` beside the repository (``functiongemma-270m-it.chat_template.jinja``,
  the release, and ``….v2.jinja``, the later revision), where CI keeps them;
* ``GIBBERISH_FUNCTIONGEMMA_TEMPLATE``: a ``chat_template.jinja``, the model's
  ``tokenizer_config.json`` or its ``.gguf`` file (metadata key ``tokenizer.chat_template``,
  read with the ``gguf`` package when it is installed).

``render`` renders a template the way ``transformers.apply_chat_template`` does: an
``ImmutableSandboxedEnvironment`` with ``trim_blocks``, ``lstrip_blocks``, the
``loopcontrols`` extension and a ``{% generation %}`` tag, Jinja's default ``Undefined``,
``raise_exception`` as a global.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

ENV = "GIBBERISH_FUNCTIONGEMMA_TEMPLATE"
GGUF_KEY = "tokenizer.chat_template"
REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference"
REFERENCE_FILES = (
    "functiongemma-270m-it.chat_template.jinja",
    "functiongemma-270m-it.chat_template.v2.jinja",
)
REVISIONS = {
    "db61fb01017bd82401d3ffca4f8e066cd56ff6d38d2a30c4058770c0bf7ab49b": "release",
    "0dbaf70819c970c9bacd7125be8e9db46b7bc0e6ed3bc303d92bd58fb9dd604a": "revision 2",
}
"""sha256 of the two revisions of the file in circulation (ADR 0033)."""


class TemplateNotFound(Exception):
    """Why the model's own template could not be had (one sentence, for a skip reason)."""


@dataclass(frozen=True)
class FoundTemplate:
    source: str
    text: str

    @property
    def revision(self) -> str:
        """``release``, ``revision 2``, or ``unknown`` for a file of another hash."""
        digest = hashlib.sha256(self.text.encode("utf-8")).hexdigest()
        return REVISIONS.get(digest, "unknown")

    @property
    def preamble(self) -> str:
        """What this template writes as developer text when there is no system message
        (found by rendering a conversation with one tool and no system message)."""
        tool = {"type": "function", "function": {"name": "f", "description": ""}}
        head = "<start_of_turn>developer\n"
        out = render(self.text, [{"role": "user", "content": "x"}], [tool], bos_token="")
        return out[len(head) : out.index("<start_function_declaration>")]


def from_environment() -> FoundTemplate:
    """The template named by ``GIBBERISH_FUNCTIONGEMMA_TEMPLATE``, or why there is none."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        raise TemplateNotFound(
            f"FunctionGemma's own chat template is not on this machine: set {ENV} to its "
            "chat_template.jinja, tokenizer_config.json or .gguf file"
        )
    return load(Path(value).expanduser())


def reference_templates() -> list[FoundTemplate]:
    """Every copy of the model's template at hand: the reference files and the variable's."""
    found = [load(REFERENCE / name) for name in REFERENCE_FILES if (REFERENCE / name).is_file()]
    try:
        named = from_environment()
    except TemplateNotFound:
        return found
    return found if any(t.text == named.text for t in found) else [*found, named]


NOT_FOUND = (
    f"FunctionGemma's own chat template is not on this machine: neither {REFERENCE} "
    f"holds {REFERENCE_FILES[0]} nor is {ENV} set to a chat_template.jinja, "
    "tokenizer_config.json or .gguf file"
)


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


class TemplateRaised(ValueError):
    """The template called ``raise_exception``."""


def _raise(message: str) -> None:
    raise TemplateRaised(message)


@cache
def _compiled(source: str) -> Any:
    from jinja2 import nodes
    from jinja2.ext import Extension, loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class Generation(Extension):
        """``{% generation %}…{% endgeneration %}``: renders its body (transformers marks
        the assistant's tokens with it)."""

        tags = frozenset({"generation"})

        def parse(self, parser: Any) -> Any:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            call = self.call_method("_body")
            return nodes.CallBlock(call, [], [], body).set_lineno(lineno)

        def _body(self, caller: Any) -> str:
            return caller()

    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols, Generation]
    )
    env.globals["raise_exception"] = _raise
    return env.from_string(source)


def render(
    source: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    *,
    add_generation_prompt: bool = False,
    bos_token: str = "<bos>",
) -> str:
    """``source`` rendered for ``messages`` and ``tools`` as ``apply_chat_template`` does."""
    return _compiled(source).render(
        messages=messages,
        tools=tools,
        add_generation_prompt=add_generation_prompt,
        bos_token=bos_token,
    )
