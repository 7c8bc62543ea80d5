"""The exchanges recorded from real model servers, and how to run each one.

``scripts/record-cassettes.py`` runs every scenario against a real server through a
``RecordingProxy`` and stores the cassette with the outcome it saw; the suite
(``test_cassettes.py``) runs the same scenario against a ``ReplayServer`` and checks that
gibberish sends the same bytes and reads the recorded bytes to the same outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gibberish.assistant.clients import Api, ModelError, ModelRequest, ModelSettings, client_for
from gibberish.assistant.naming import ToolCatalog
from gibberish.assistant.router import Router
from tests.assistant.builders import deploy_skill, git_skill, summarize_skill

CASSETTES = Path(__file__).parent / "cassettes"


@dataclass(frozen=True)
class Scenario:
    name: str
    api: Api
    request: str
    tools: tuple[str, ...] = ("git_log", "git_status", "git_diff")
    settings: dict[str, Any] = field(default_factory=dict)
    route: bool = False
    """Run the whole router (with its repair retry) instead of one client request."""

    def model_settings(self, endpoint: str, model: str) -> ModelSettings:
        return ModelSettings(
            endpoint=endpoint, model=model, api=self.api, timeout=600.0, **self.settings
        )


SCENARIOS = (
    Scenario("openai-stream-tools", Api.OPENAI, "show me the last 5 commits"),
    Scenario("openai-whole-reply", Api.OPENAI, "what changed?", settings={"stream": False}),
    Scenario("openai-cut-off", Api.OPENAI, "show me the git status", settings={"max_tokens": 4}),
    Scenario(
        "openai-route",
        Api.OPENAI,
        "summarize https://example.org",
        tools=("git_log", "git_status", "git_diff", "summarize_url", "deploy_preview"),
        route=True,
    ),
)


def catalog() -> ToolCatalog:
    return ToolCatalog.from_skills([git_skill(), summarize_skill(), deploy_skill()])


def run(scenario: Scenario, endpoint: str, model: str) -> dict[str, Any]:
    """Run ``scenario`` against ``endpoint``; the outcome as plain data."""
    settings = scenario.model_settings(endpoint, model)
    tools = catalog().subset(list(scenario.tools))
    if scenario.route:
        result = Router(client_for(settings)).route(scenario.request, tools)
        return {
            "status": result.status.value,
            "calls": [[c.name, c.status.value, dict(c.arguments)] for c in result.calls],
            "attempts": result.attempts,
            "outputs": list(result.outputs),
            "message": result.message,
        }
    try:
        reply = client_for(settings).complete(ModelRequest.single(tools, scenario.request))
    except ModelError as exc:
        return {"error": exc.kind.value, "message": exc.message}
    return {
        "text": reply.text,
        "calls": [[c.name, c.arguments] for c in reply.calls],
        "errors": list(reply.errors),
        "native": reply.native,
        "finish_reason": reply.finish_reason,
        "tokens": reply.tokens,
    }
