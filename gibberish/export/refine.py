"""``--refine``: let the configured local model reword compiled instructions.

Only the instruction prose goes to the model; the inlined files, the commands and the
``{{args}}`` placeholder are assembled afterwards by the compiler and never pass through
it, so a model cannot drop a file or plant an injection (its text is neutralized like
any other). A reply that is empty or out of proportion is refused with a message.
"""

from __future__ import annotations

from gibberish.assistant.clients import Message, ModelClient, ModelError, ModelRequest
from gibberish.export.compile import CompileError

META_PROMPT = """Rewrite the following instructions for an AI assistant so that they speak
to the assistant directly ("You ..."), in the imperative, keeping every fact, name, path
and code block exactly. Answer with the rewritten instructions only, no preamble.

--- INSTRUCTIONS ---
{text}
--- END ---"""


def refine_with(client: ModelClient, text: str) -> str:
    """The model's rewording of ``text``; ``CompileError`` when it is unusable."""
    request = ModelRequest((), (Message("user", META_PROMPT.format(text=text)),))
    try:
        reply = client.complete(request)
    except ModelError as exc:
        raise CompileError(f"--refine: {exc.message} (compile without --refine)") from None
    answer = reply.text.strip()
    if not answer:
        raise CompileError("--refine: the model answered nothing (compile without --refine)")
    if len(answer) > 4 * len(text) + 400:
        raise CompileError(
            "--refine: the model's answer is far longer than the instructions; not used "
            "(compile without --refine)"
        )
    return answer
