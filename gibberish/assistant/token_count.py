"""Counting a context block's tokens: the model server's own tokenizer when it has one.

The budget arithmetic uses the cheap estimate (``budget.estimate_tokens``: four
characters a token). When a person looks at one block (``context show``, ``context
import``), the count shown is the real one if the model in use can tell: a llama.cpp
server (``api = "openai"`` pointed at ``llama-server``) answers ``POST /tokenize`` with
the model's own token ids. Ollama and other OpenAI-compatible servers have no such
endpoint, so the count is then labelled an estimate. Only loopback servers are asked,
briefly; nothing is ever sent elsewhere to count tokens.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
from msgspec import Struct

from gibberish.assistant.budget import estimate_tokens
from gibberish.settings import ModelSettings

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


class TokenCount(Struct, frozen=True):
    tokens: int
    exact: bool
    how: str

    def shown(self) -> str:
        """``1234 tokens (llama.cpp tokenizer of m)`` or ``~1234 tokens (estimate …)``."""
        return f"{'' if self.exact else '~'}{self.tokens} tokens ({self.how})"


def count_tokens(text: str, model: ModelSettings | None, *, timeout: float = 1.0) -> TokenCount:
    """The model server's count when it tokenizes (llama.cpp), else the estimate."""
    if model is not None and model.enabled and model.api == "openai":
        counted = _llama_cpp_count(text, model.endpoint, timeout)
        if counted is not None:
            return TokenCount(counted, True, f"tokenizer of {model.model} on the model server")
    name = f"{model.model}: " if model is not None and model.enabled else ""
    return TokenCount(
        estimate_tokens(text), False, f"estimate, 4 characters a token; {name}no tokenizer here"
    )


def _llama_cpp_count(text: str, endpoint: str, timeout: float) -> int | None:
    parts = urlsplit(endpoint)
    if parts.hostname not in _LOOPBACK:
        return None
    base = f"{parts.scheme}://{parts.netloc}"
    try:
        response = httpx.post(f"{base}/tokenize", json={"content": text}, timeout=timeout)
        tokens = response.json().get("tokens") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return len(tokens) if isinstance(tokens, list) else None
