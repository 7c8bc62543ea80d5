"""Which tools go into a prompt: mode first, then relevance, within a token budget.

A small local model reads every declaration on every request; hundreds of them cost time and
accuracy. So the prompt gets the tools most related to the request that fit the budget.

* Tokens are *estimated* as ``ceil(len(text) / 4)`` — about right for English and this
  syntax with Gemma-family tokenizers, free to compute, and only used to compare against the
  budget (no tokenizer dependency).
* Relevance is plain word overlap. Request and tool are split into lowercase words (letters
  and digits; ``_`` and ``-`` split words, so ``git_log`` is ``git`` + ``log``), a final
  plural ``s`` is dropped, and a short list of function words is ignored. Each distinct
  request word scores 2 if it is in the tool or skill *name*, else 1 if it is in the tool
  description, a parameter name or description, or the skill description; the tool's
  relevance is the sum. Ties keep the catalog order.
* Selection is greedy over tools by relevance: a declaration is included whole if it fits
  in what is left of the budget, otherwise skipped (a smaller, less relevant one may still
  fit). Declarations are never cut. The most relevant tool is always included, even when it
  alone exceeds the budget — a prompt without tools cannot produce a call. Nothing in the
  prompt mentions the tools left out.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from msgspec import Struct, field

from gibberish.assistant.functiongemma import render_declaration, render_prompt
from gibberish.assistant.manifest import tool_schema
from gibberish.assistant.naming import ExposedTool
from gibberish.assistant.settings import DEFAULT_BUDGET
from gibberish.skills.model import Mode

NAME_WEIGHT = 2.0
TEXT_WEIGHT = 1.0

_WORD = re.compile(r"[^\W_]+")
STOPWORDS = frozenset(
    {
        *("a", "an", "and", "are", "as", "at", "be", "by", "can", "could", "do", "does"),
        *("for", "from", "i", "in", "is", "it", "me", "my", "of", "on", "or", "please"),
        *("the", "this", "that", "to", "what", "which", "with", "would", "you", "your"),
    }
)


def estimate_tokens(text: str) -> int:
    """``ceil(len(text) / 4)``: the documented, tokenizer-free estimate."""
    return math.ceil(len(text) / 4)


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words(text: str) -> frozenset[str]:
    """The scoring words of ``text`` (lowercase, plural ``s`` dropped, no function words)."""
    found = set(_WORD.findall(text.lower()))
    found -= STOPWORDS
    # ``_stem`` inlined: this runs for every tool when an index is built
    return frozenset([w[:-1] if len(w) > 3 and w[-1] == "s" and w[-2] != "s" else w for w in found])


@functools.lru_cache(maxsize=8192)
def _tool_words(tool: ExposedTool) -> tuple[frozenset[str], frozenset[str]]:
    name = words(f"{tool.tool.name} {tool.skill.name} {tool.name}")
    text_parts = [tool.description, tool.skill.description]
    for p in tool.parameters:
        text_parts.append(p.name)
        text_parts.append(p.description)
    return name, words(" ".join(text_parts)) - name


def relevance(request: str | frozenset[str], tool: ExposedTool) -> float:
    """Word-overlap score of ``tool`` for ``request`` (see the module docstring)."""
    wanted = words(request) if isinstance(request, str) else request
    name, text = _tool_words(tool)
    return NAME_WEIGHT * len(wanted & name) + TEXT_WEIGHT * len(wanted & text)


def rank_by_relevance(
    request: str, tools: Sequence[ExposedTool]
) -> list[tuple[float, ExposedTool]]:
    """Tools with their scores, most relevant first (ties keep the input order)."""
    wanted = words(request)
    scored = [(relevance(wanted, t), i, t) for i, t in enumerate(tools)]
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [(score, t) for score, _, t in scored]


def functiongemma_cost(tool: ExposedTool) -> int:
    return estimate_tokens(render_declaration(tool))


def json_cost(tool: ExposedTool) -> int:
    return estimate_tokens(json.dumps(tool_schema(tool), separators=(",", ":")))


def prompt_overhead(request: str) -> int:
    """Estimated tokens of the FunctionGemma prompt for ``request`` without declarations."""
    return estimate_tokens(render_prompt((), request))


class Selection(Struct, frozen=True):
    tools: tuple[ExposedTool, ...]
    """The tools for the prompt, most relevant first."""
    tokens: int
    """Estimated tokens of the whole prompt with the chosen tools."""
    budget: int
    relevance: Mapping[int, float] = field(default_factory=dict)
    """Relevance by position in ``candidates`` of every candidate sharing a word with the
    request (a candidate not listed scored 0)."""
    candidates: tuple[ExposedTool, ...] = ()
    """Every tool that was considered, in catalog order."""

    @property
    def scores(self) -> dict[str, float]:
        """Relevance per exposed name of the candidates sharing a word with the request."""
        return {self.candidates[i].name: float(s) for i, s in self.relevance.items()}

    def score(self, tool: ExposedTool) -> float:
        """The relevance of ``tool`` (0 when it shares no word with the request or was
        not a candidate)."""
        try:
            return float(self.relevance.get(self.candidates.index(tool), 0.0))
        except ValueError:
            return 0.0

    @property
    def omitted(self) -> tuple[ExposedTool, ...]:
        """The candidates left out, in catalog order."""
        chosen = {id(t) for t in self.tools}
        return tuple(t for t in self.candidates if id(t) not in chosen)


def select_tools(
    tools: Iterable[ExposedTool],
    request: str,
    budget: int = DEFAULT_BUDGET,
    *,
    mode: Mode | None = None,
    cost: Callable[[ExposedTool], int] = functiongemma_cost,
    overhead: int | None = None,
) -> Selection:
    """Choose whole tools for the prompt: ``mode`` filter, then relevance, within ``budget``.

    ``overhead`` is the estimated size of the prompt without declarations; by default the
    FunctionGemma prompt (developer sentence, turn markers and the request).
    """
    candidates = [t for t in tools if mode is None or t.skill.available_in(mode)]
    wanted = words(request)
    scored = [(relevance(wanted, t), i, t) for i, t in enumerate(candidates)]
    scored.sort(key=lambda s: (-s[0], s[1]))
    chosen: list[ExposedTool] = []
    used = prompt_overhead(request) if overhead is None else overhead
    for _, _, tool in scored:
        size = cost(tool)
        if used + size <= budget or not chosen:
            chosen.append(tool)
            used += size
    by_position = {i: score for score, i, _ in scored if score}
    return Selection(tuple(chosen), used, budget, by_position, tuple(candidates))
