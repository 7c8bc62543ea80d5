"""Terminal controls from tool output, model text and folder names never reach the terminal raw.

C1 controls (U+009B is CSI: ``\\x9b31m`` turns the terminal red, U+0085 is a line break),
ESC sequences and bidi overrides (U+202E) are shown as escapes by ``printable``; in JSON
they are ``\\uXXXX`` escapes, which decode to the same strings.
"""

from __future__ import annotations

import json

from tests.assistant.fakeserver import Text
from tests.cli.conftest import ECHO_TOOL
from tests.helpers.sandbox import confirm_flags

CONTROLS = ("\x9b", "\x85", "\u202e", "\x1b", "\x07")
NASTY = "red\x9b31m next\x85line \u202eevil\x1b[8mhidden\x07"

PRINTF_TOOL = r"""
### shout

Print hostile text.

#### Parameters

None.

#### Command

```bash
printf 'red\302\23331m next\302\205line \342\200\256evil\033[8mhidden\a'
```
"""


def raw(text: str) -> list[str]:
    return [c for c in CONTROLS if c in text]


def test_tool_output_in_the_envelope_is_escaped_and_still_means_the_same(
    write_skill, invoke
) -> None:
    write_skill("noisy", tools=PRINTF_TOOL, extra="read_only: true\n")
    invoke("approvals", "approve", "noisy", "--yes")
    for flags in ((), ("--json",)):
        result = invoke("run", "noisy.shout", *flags, *confirm_flags())
        assert result.exit_code == 0, result.output
        assert raw(result.output) == []
        data = json.loads(result.stdout[result.stdout.index("{") :])
        assert data["output"] == NASTY  # the same text, written with escapes


def test_the_model_chose_line_escapes_the_model_s_values(write_skill, invoke, model_server) -> None:
    write_skill("echoer", tools=ECHO_TOOL)
    call = f"<start_function_call>call:say{{words:<escape>{NASTY}<escape>}}<end_function_call>"
    model_server.queue(Text(call))
    result = invoke("ask", "say it", "--endpoint", model_server.url)
    assert "model chose echoer.say" in result.output
    assert raw(result.output) == []
    assert "\\x9b31m" in result.output and "\\u202e" in result.output


def test_a_folder_name_with_a_newline_keeps_skills_list_one_line_per_skill(
    write_skill, invoke, skills_root
) -> None:
    write_skill("fine")
    write_skill("two\nlines\x9b31m")
    result = invoke("skills", "list")
    lines = result.output.splitlines()
    assert raw(result.output) == []
    assert len([line for line in lines if "two" in line]) == 1
    assert "lines" not in "\n".join(line for line in lines if "two" not in line)


def test_skills_render_escapes_the_values(write_skill, invoke) -> None:
    write_skill("echoer", tools=ECHO_TOOL)
    rendered = invoke("skills", "render", "echoer.say", "--arg", f"words={NASTY}").output
    assert raw(rendered) == [] and "\\x1b[8m" in rendered
    as_json = invoke("skills", "render", "echoer.say", "--arg", f"words={NASTY}", "--json")
    assert raw(as_json.output) == [] and json.loads(as_json.stdout) == ["echo", NASTY]
