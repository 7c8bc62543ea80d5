"""FunctionGemma's control tokens, its trigger sentence, and ``neutralize``.

The lowest layer of the FunctionGemma format: the template module, the manifests and the
call parser all take their tokens from here, so none of them needs another.
"""

from __future__ import annotations

import re

DEVELOPER_PROMPT = "You are a model that can do function calling with the following functions"
"""The trigger sentence Google's documentation puts before the declarations."""

ESCAPE = "<escape>"
START_OF_TURN = "<start_of_turn>"
END_OF_TURN = "<end_of_turn>"
START_DECLARATION = "<start_function_declaration>"
END_DECLARATION = "<end_function_declaration>"
START_CALL = "<start_function_call>"
END_CALL = "<end_function_call>"
START_RESPONSE = "<start_function_response>"
END_RESPONSE = "<end_function_response>"
BOS = "<bos>"

STOP_SEQUENCES = (END_OF_TURN, START_RESPONSE)
"""Where generation should stop: the end of the model's turn, or where a function response
would begin (Google lists ``<start_function_response>`` as an additional stop sequence)."""

_CONTROL_TOKEN = re.compile(
    r"<(?:bos|eos|pad|unk|mask|escape|start_of_turn|end_of_turn|start_of_image|end_of_image"
    r"|(?:start|end)_function_(?:declaration|call|response))>"  # Gemma 3 / FunctionGemma
    r"|<\|[^<>\n]{0,40}?\|?>|<[^<>|\n]{1,40}\|>"  # <|im_start|>, <|eot_id|>, <|turn>, <turn|> …
    r"|</?(?:s|tool_call|tool_response|tools|think)>"  # Llama 2 / Hermes / Qwen / SmolLM
    r"|\[/?(?:INST|SYS|TOOL_CALLS|AVAILABLE_TOOLS|TOOL_RESULTS|TOOL_CONTENT)\]",  # Mistral
    re.IGNORECASE,
)
_LOOKALIKE = str.maketrans({"<": "‹", ">": "›", "[": "⟦", "]": "⟧"})


def neutralize(text: str) -> str:
    """``text`` with every prompt-format control token made inert (``<escape>`` →
    ``‹escape›``). Only brackets are replaced, never added, so no new token can appear."""
    if "<" not in text and "[" not in text:
        return text
    return _CONTROL_TOKEN.sub(lambda m: m.group(0).translate(_LOOKALIKE), text)
