"""The model feed: tool manifests, the call parser, local model clients, the request router.

Qt-free. Nothing here runs a tool or decides approval: a model's call comes out of the
router as a validated *proposal* that the Engine puts through the same decision table as a
click. See docs/model-feed.md for formats, naming, budget, scoring and confidence values.

The names below load their module on first use (the command bar needs only the fuzzy
ranker, and the model clients would bring an HTTP library into a tray that never asks a
model).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gibberish.lazy import lazy_exports

if TYPE_CHECKING:
    from gibberish.assistant.budget import (
        DEFAULT_BUDGET,
        Selection,
        estimate_tokens,
        rank_by_relevance,
        relevance,
        select_tools,
    )
    from gibberish.assistant.callparser import (
        CallSyntaxError,
        ParsedCall,
        ParseResult,
        parse_arguments,
        parse_calls,
    )
    from gibberish.assistant.clients import (
        Api,
        ModelCancelled,
        ModelClient,
        ModelError,
        ModelErrorKind,
        ModelReply,
        ModelRequest,
        ModelSettings,
        OllamaChatClient,
        OllamaGenerateClient,
        OpenAIChatClient,
        client_for,
    )
    from gibberish.assistant.conversation import Message, ToolCall
    from gibberish.assistant.functiongemma import (
        DEVELOPER_PROMPT,
        neutralize,
        render_call,
        render_conversation,
        render_declaration,
        render_developer_turn,
        render_prompt,
        render_response,
    )
    from gibberish.assistant.fuzzy import FuzzyIndex, FuzzyMatch
    from gibberish.assistant.heard import Heard
    from gibberish.assistant.manifest import render_plain_manifest, tool_schema, tool_schemas
    from gibberish.assistant.naming import (
        ExposedTool,
        ToolCatalog,
        expose,
        qualified_name,
        split_qualified,
    )
    from gibberish.assistant.outcome import advise
    from gibberish.assistant.proposal import Choice, Proposal, ProposalStatus
    from gibberish.assistant.router import Router
    from gibberish.assistant.validate import (
        CallStatus,
        CoercionError,
        ValidatedCall,
        coerce_argument,
        validate_call,
    )

_MODULES = {
    "DEFAULT_BUDGET": "gibberish.assistant.budget",
    "DEVELOPER_PROMPT": "gibberish.assistant.functiongemma",
    "Api": "gibberish.assistant.settings",
    "CallStatus": "gibberish.assistant.validate",
    "Choice": "gibberish.assistant.proposal",
    "CallSyntaxError": "gibberish.assistant.callparser",
    "CoercionError": "gibberish.assistant.validate",
    "ExposedTool": "gibberish.assistant.naming",
    "FuzzyIndex": "gibberish.assistant.fuzzy",
    "FuzzyMatch": "gibberish.assistant.fuzzy",
    "Heard": "gibberish.assistant.heard",
    "Message": "gibberish.assistant.conversation",
    "ModelCancelled": "gibberish.assistant.clients",
    "ModelClient": "gibberish.assistant.clients",
    "ModelError": "gibberish.assistant.clients",
    "ModelErrorKind": "gibberish.assistant.clients",
    "ModelReply": "gibberish.assistant.clients",
    "ModelRequest": "gibberish.assistant.clients",
    "ModelSettings": "gibberish.assistant.settings",
    "OllamaChatClient": "gibberish.assistant.clients",
    "OllamaGenerateClient": "gibberish.assistant.clients",
    "OpenAIChatClient": "gibberish.assistant.clients",
    "ParseResult": "gibberish.assistant.callparser",
    "ParsedCall": "gibberish.assistant.callparser",
    "Proposal": "gibberish.assistant.proposal",
    "ProposalStatus": "gibberish.assistant.proposal",
    "Router": "gibberish.assistant.router",
    "Selection": "gibberish.assistant.budget",
    "ToolCall": "gibberish.assistant.conversation",
    "ToolCatalog": "gibberish.assistant.naming",
    "ValidatedCall": "gibberish.assistant.validate",
    "advise": "gibberish.assistant.outcome",
    "client_for": "gibberish.assistant.clients",
    "coerce_argument": "gibberish.assistant.validate",
    "estimate_tokens": "gibberish.assistant.budget",
    "expose": "gibberish.assistant.naming",
    "neutralize": "gibberish.assistant.functiongemma",
    "parse_arguments": "gibberish.assistant.callparser",
    "parse_calls": "gibberish.assistant.callparser",
    "qualified_name": "gibberish.assistant.naming",
    "rank_by_relevance": "gibberish.assistant.budget",
    "relevance": "gibberish.assistant.budget",
    "render_call": "gibberish.assistant.functiongemma",
    "render_conversation": "gibberish.assistant.functiongemma",
    "render_declaration": "gibberish.assistant.functiongemma",
    "render_developer_turn": "gibberish.assistant.functiongemma",
    "render_plain_manifest": "gibberish.assistant.manifest",
    "render_prompt": "gibberish.assistant.functiongemma",
    "render_response": "gibberish.assistant.functiongemma",
    "select_tools": "gibberish.assistant.budget",
    "split_qualified": "gibberish.assistant.naming",
    "tool_schema": "gibberish.assistant.manifest",
    "tool_schemas": "gibberish.assistant.manifest",
    "validate_call": "gibberish.assistant.validate",
}

__all__ = [
    "DEFAULT_BUDGET",
    "DEVELOPER_PROMPT",
    "Api",
    "CallStatus",
    "CallSyntaxError",
    "Choice",
    "CoercionError",
    "ExposedTool",
    "FuzzyIndex",
    "FuzzyMatch",
    "Heard",
    "Message",
    "ModelCancelled",
    "ModelClient",
    "ModelError",
    "ModelErrorKind",
    "ModelReply",
    "ModelRequest",
    "ModelSettings",
    "OllamaChatClient",
    "OllamaGenerateClient",
    "OpenAIChatClient",
    "ParseResult",
    "ParsedCall",
    "Proposal",
    "ProposalStatus",
    "Router",
    "Selection",
    "ToolCall",
    "ToolCatalog",
    "ValidatedCall",
    "advise",
    "client_for",
    "coerce_argument",
    "estimate_tokens",
    "expose",
    "neutralize",
    "parse_arguments",
    "parse_calls",
    "qualified_name",
    "rank_by_relevance",
    "relevance",
    "render_call",
    "render_conversation",
    "render_declaration",
    "render_developer_turn",
    "render_plain_manifest",
    "render_prompt",
    "render_response",
    "select_tools",
    "split_qualified",
    "tool_schema",
    "tool_schemas",
    "validate_call",
]


__getattr__, __dir__ = lazy_exports(__name__, _MODULES)
