"""The model's settings: the ``[model]`` table of config.toml, owned by the model feed.

One class for the settings file, the Settings dialog and the HTTP clients. The API key of
an OpenAI-compatible server is never read from or written to the file (any program can
read it there): it lives in the keyring (``gibberish model-key set``) and the Engine adds
it when it builds a client. Importing this module loads no HTTP code.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from msgspec import Struct
from msgspec.structs import fields, force_setattr

from gibberish.schema import Table, boolean, choice, number, text

DEFAULT_ENDPOINT = "http://127.0.0.1:11434"
DEFAULT_MODEL = "functiongemma"
DEFAULT_BUDGET = 2048
"""Estimated prompt tokens for tool declarations + request (see ``assistant.budget``)."""
DEFAULT_MAX_TOKENS = 256
"""Enough for a few calls with long arguments; a call is typically 20–60 tokens."""


class Api(StrEnum):
    OLLAMA_GENERATE = "ollama-generate"
    OLLAMA_CHAT = "ollama-chat"
    OPENAI = "openai"


MODEL_APIS = tuple(api.value for api in Api)


class ModelSettings(Struct, frozen=True):
    """Where the model is and how to talk to it. ``enabled`` False means no model routing."""

    enabled: bool = False
    endpoint: str = DEFAULT_ENDPOINT
    model: str = DEFAULT_MODEL
    api: Api = Api.OLLAMA_GENERATE
    timeout: float = 30.0
    """One deadline in seconds for connecting and reading the whole reply."""
    budget: int = DEFAULT_BUDGET
    stream: bool = True
    temperature: float | None = 0.0
    """0 makes routing repeatable; None leaves the server's default."""
    max_tokens: int = DEFAULT_MAX_TOKENS
    """The most tokens the model may write per answer (``num_predict`` for Ollama)."""
    api_key: str | None = None
    """Sent as ``Authorization: Bearer`` to OpenAI-compatible servers; never stored."""

    def __post_init__(self) -> None:
        force_setattr(self, "api", Api(self.api))  # from a file or a form: a string

    def _shown(self) -> tuple[tuple[str, Any], ...]:
        """Every field but the key: what is compared and shown (the key is a secret)."""
        return tuple(
            (name, getattr(self, name)) for name in self.__struct_fields__ if name != "api_key"
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, ModelSettings)
        return self._shown() == other._shown()

    def __hash__(self) -> int:
        return hash(self._shown())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self._shown())
        return f"{type(self).__name__}({shown})"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelSettings:
        """Settings from trusted stored values; unknown keys are ignored, missing ones default."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def to_dict(self) -> dict[str, Any]:
        """What the settings file stores: every field but the key."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["api"] = self.api.value
        data.pop("api_key")
        if data["temperature"] is None:
            data.pop("temperature")  # TOML has no null: absent means the server's default
        return data


MODEL_TABLE = Table(
    "model",
    (
        boolean("enabled"),
        text("endpoint", 'an address in quotes, such as "http://127.0.0.1:11434"'),
        text("model", "a model name in quotes"),
        choice("api", Api),
        number("timeout", 0.1, 600, "seconds"),
        number("budget", 1, 1_000_000, "tokens", whole=True),
        boolean("stream"),
        number("temperature", 0, 2),
        number("max_tokens", 1, 1_000_000, "tokens", whole=True),
    ),
    refused={
        "api_key": "is not read from the settings file (any program can read it there); "
        "store the key in the keyring with `gibberish model-key set`."
    },
)
