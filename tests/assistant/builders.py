"""The SKILL.md spec's example skills (§8) as model objects, built without the parser."""

from __future__ import annotations

from pathlib import Path

from gibberish.skills.model import (
    Mode,
    ParameterDefinition,
    ParameterType,
    SkillDefinition,
    ToolDefinition,
)

P = ParameterType


def param(name, type_, required=False, description="", default=None) -> ParameterDefinition:
    return ParameterDefinition(name, type_, required, description, default)


def skill(name, description, tools, modes=(Mode.GLOBAL,), **kw) -> SkillDefinition:
    return SkillDefinition(
        name=name,
        source_path=Path(f"/skills/{name}/SKILL.md"),
        version="1.0.0",
        description=description,
        modes=tuple(modes),
        tools=tuple(tools),
        **kw,
    )


def git_skill() -> SkillDefinition:
    return skill(
        "git",
        "Git operations. Use for checking status, viewing history, or seeing changes.",
        [
            ToolDefinition("git_status", "Show the current git status with short format."),
            ToolDefinition(
                "git_log",
                "Show recent commit history.",
                (param("count", P.INTEGER, description="Number of commits", default=10),),
            ),
            ToolDefinition(
                "git_diff",
                "Show uncommitted changes.",
                (param("staged", P.BOOLEAN, description="Show only staged changes"),),
            ),
        ],
        modes=(Mode.DEV, Mode.GLOBAL),
        author="gibb.eri.sh",
    )


def summarize_skill() -> SkillDefinition:
    return skill(
        "summarize",
        "Summarize webpages or text. Use when user wants a summary of a URL or article.",
        [
            ToolDefinition(
                "summarize_url",
                "Fetch and summarize a webpage.",
                (param("url", P.STRING, True, "The URL to summarize"),),
            )
        ],
        read_only=True,
        network=True,
        timeout_secs=60,
    )


def deploy_skill() -> SkillDefinition:
    return skill(
        "deploy",
        'Deploy to Vercel. Use when user says "deploy" or "ship it".',
        [
            ToolDefinition(
                "deploy_preview",
                "Deploy a preview build to Vercel.",
                (param("message", P.STRING, description="Deployment message"),),
            )
        ],
        modes=(Mode.DEV,),
        always_ask=True,
        network=True,
        timeout_secs=120,
    )
