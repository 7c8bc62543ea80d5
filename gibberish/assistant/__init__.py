"""The model feed: tool manifests, the call parser, local model clients, the request router.

Qt-free. Nothing here runs a tool or decides approval: a model's call comes out of the
router as a validated *proposal* that the Engine puts through the same decision table as a
click. See docs/model-feed.md for formats, naming, budget, scoring and confidence values.
"""

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
from gibberish.assistant.manifest import render_plain_manifest, tool_schema, tool_schemas
from gibberish.assistant.naming import (
    ExposedTool,
    ToolCatalog,
    expose,
    qualified_name,
    split_qualified,
)
from gibberish.assistant.outcome import Advice, Next, advise
from gibberish.assistant.router import Router, RouteResult, RouteStatus
from gibberish.assistant.validate import (
    CallStatus,
    CoercionError,
    ValidatedCall,
    coerce_argument,
    validate_call,
)

__all__ = [
    "DEFAULT_BUDGET",
    "DEVELOPER_PROMPT",
    "Advice",
    "Api",
    "CallStatus",
    "CallSyntaxError",
    "CoercionError",
    "ExposedTool",
    "FuzzyIndex",
    "FuzzyMatch",
    "Message",
    "ModelCancelled",
    "ModelClient",
    "ModelError",
    "ModelErrorKind",
    "ModelReply",
    "ModelRequest",
    "ModelSettings",
    "Next",
    "OllamaChatClient",
    "OllamaGenerateClient",
    "OpenAIChatClient",
    "ParseResult",
    "ParsedCall",
    "RouteResult",
    "RouteStatus",
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
