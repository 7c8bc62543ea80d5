"""Read FunctionGemma calls out of model output: ``<start_function_call>call:NAME{…}<end_function_call>``.

A hand-written scanner, not a regular expression: values are ``<escape>``-delimited strings
in which ``,`` ``}`` ``:`` ``{`` and ``<`` are plain text, objects and arrays nest, and a
stream may stop right after the closing ``}``. The scanner jumps between delimiters with
``str.find`` (the C loop) instead of stepping through characters in Python, which is what
keeps it within a few times ``json.loads`` (see benchmarks/feed.py).

Grammar accepted (whitespace allowed between tokens)::

    output  := … (START "call:" NAME (object | "{" json-object "}") [END])* …
    object  := "{" [key ":" value ("," key ":" value)*] "}"
    key     := bare-key | "<escape>" text "<escape>" | json-string
    value   := "<escape>" text "<escape>" | object | array | json-string
               | true | false | null | None | <nil> | number | word
    array   := "[" [value ("," value)*] "]"

Every form the runtimes write into a prompt is read (docs/model-feed.md): the chat
template's (``None`` for a missing value, bare keys inside nested objects, ``1.0``), Ollama's
renderer's (``<nil>``, ``1`` for ``1.0``), and llama.cpp's, which hands the template the
arguments as a JSON string, so the call reads ``call:NAME{`` + spaces + ``{"k":"v"}`` + ``}``
(``json-object``, read with ``json``). A model that saw these in its history may answer in
them, so answers are read the same way; a JSON string as a key or value is read too.

Leniency, on purpose: a missing ``<end_function_call>`` at the very end of the output or
right before the next ``<start_function_call>`` is accepted (streams get cut at a stop
token); output that begins with ``call:NAME{`` without
the start token is read as a call (some runtimes drop special tokens from the text); a bare
word (no spaces, no ``:``) that is not true/false/null/a number is read as a string (models
sometimes forget ``<escape>``) — validation still checks it against the schema. Anything else that does not
fit is not guessed at: the block is reported with a reason and yields no call.

A block ends at the next ``<start_function_call>`` at the latest (a renderer never writes a
control token inside a string: ``functiongemma.neutralize``), which keeps the scan linear
in the length of the output however many start tokens it holds.
"""

from __future__ import annotations

import json
import math
from typing import Any

from msgspec import Struct

from gibberish.assistant.functiongemma import END_CALL, ESCAPE, START_CALL

_ESC_LEN = len(ESCAPE)
_START_LEN = len(START_CALL)
_END_LEN = len(END_CALL)
_CALL_PREFIX = "call:"
_WHITESPACE = " \t\r\n"
_SCALAR_STOP = frozenset(",}]<{[")
_BAD_KEY = frozenset('{}[],<>:"\r\n')
_BAD_NAME = frozenset("{}[],<>:\"' \t\r\n()")
_NUMBER_START = frozenset("-+0123456789.")
_BAD_WORD = frozenset(": \t\r\n")
MAX_DEPTH = 32
_NIL = "<nil>"
"""How Ollama's renderer (Go's ``%v``) writes a missing value."""
_JSON = json.JSONDecoder()


class CallSyntaxError(ValueError):
    """A call block that does not fit the grammar; ``position`` is an offset in the output."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


class ParsedCall(Struct, frozen=True):
    """One call as written by the model: the name and the arguments, not yet validated."""

    name: str
    arguments: dict[str, Any]
    raw: str = ""
    """The call's text as it appeared in the output."""
    terminated: bool = True
    """False when the output ended before ``<end_function_call>``."""


class ParseResult(Struct, frozen=True):
    calls: tuple[ParsedCall, ...] = ()
    errors: tuple[str, ...] = ()
    """One reason per block that could not be read, or why there is no call at all."""
    text: str = ""
    """The output with the call blocks taken out (what the model said besides calling)."""

    @property
    def ok(self) -> bool:
        return bool(self.calls) and not self.errors

    @property
    def reason(self) -> str | None:
        return "; ".join(self.errors) if self.errors else None


def _skip_ws(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i] in _WHITESPACE:
        i += 1
    return i


def _scalar(token: str, position: int) -> Any:
    if token == "true":
        return True
    if token == "false":
        return False
    if token in ("null", "None"):  # JSON's, and the chat template's (Python's) spelling
        return None
    if not token:
        raise CallSyntaxError("a value is missing", position)
    if token[0] in _NUMBER_START:
        try:
            return int(token)
        except ValueError:
            pass
        try:
            number = float(token)
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return number
    if not _BAD_WORD.isdisjoint(token):
        raise CallSyntaxError(f"text {token!r} must be wrapped in <escape>", position)
    return token


def _parse_value(s: str, i: int, depth: int) -> tuple[Any, int]:
    """The value starting at ``s[i]`` (whitespace already skipped) and the index after it."""
    c = s[i]
    if c == "<" and s.startswith(ESCAPE, i):
        j = s.find(ESCAPE, i + _ESC_LEN)
        if j < 0:
            raise CallSyntaxError("a string is not closed with <escape>", i)
        return s[i + _ESC_LEN : j], j + _ESC_LEN
    if c == "{":
        return _parse_object(s, i, depth + 1)
    if c == '"':
        return _json_string(s, i)
    if c == "<" and s.startswith(_NIL, i):
        return None, i + len(_NIL)
    if c == "[":
        return _parse_array(s, i, depth + 1)
    n = len(s)
    j = i
    stop = _SCALAR_STOP
    while j < n and s[j] not in stop:
        j += 1
    if j < n and s[j] in "<{[":
        raise CallSyntaxError(f"unexpected {s[j]!r} in a value", j)
    return _scalar(s[i:j].strip(), i), j


def _json_string(s: str, i: int) -> tuple[str, int]:
    """The JSON string literal starting at ``s[i]`` (a ``"``)."""
    try:
        value, end = _JSON.raw_decode(s, i)
    except ValueError:
        raise CallSyntaxError("a quoted string is not valid JSON", i) from None
    if not isinstance(value, str):
        raise CallSyntaxError("expected a quoted string", i)
    return value, end


def _parse_array(s: str, i: int, depth: int) -> tuple[list[Any], int]:
    if depth > MAX_DEPTH:
        raise CallSyntaxError("values nest too deeply", i)
    n = len(s)
    i += 1
    items: list[Any] = []
    if i < n and s[i] == "]":
        return items, i + 1
    while True:
        if i >= n:
            raise CallSyntaxError("an array is not closed with ]", i)
        if s[i] in _WHITESPACE:
            i = _skip_ws(s, i)
            if i >= n:
                raise CallSyntaxError("an array is not closed with ]", i)
            if s[i] == "]" and not items:
                return items, i + 1
        value, i = _parse_value(s, i, depth)
        items.append(value)
        if i < n and s[i] in _WHITESPACE:
            i = _skip_ws(s, i)
        if i >= n:
            raise CallSyntaxError("an array is not closed with ]", i)
        c = s[i]
        if c == ",":
            i += 1
        elif c == "]":
            return items, i + 1
        else:
            raise CallSyntaxError(f"expected ',' or ']' but found {c!r}", i)


def _parse_key(s: str, i: int) -> tuple[str, int]:
    """The key starting at ``s[i]`` and the index of the ``:`` after it."""
    if s.startswith(ESCAPE, i):
        j = s.find(ESCAPE, i + _ESC_LEN)
        if j < 0:
            raise CallSyntaxError("a key is not closed with <escape>", i)
        key, i = s[i + _ESC_LEN : j], _skip_ws(s, j + _ESC_LEN)
    elif s[i] == '"':
        key, i = _json_string(s, i)
        i = _skip_ws(s, i)
    else:
        j = s.find(":", i)
        if j < 0:
            raise CallSyntaxError("expected 'key:value'", i)
        key = s[i:j]
        if not key.isidentifier():  # a bare key: anything up to ':' but delimiters
            key = key.strip()
            if not key or not _BAD_KEY.isdisjoint(key):
                raise CallSyntaxError("expected 'key:value'", i)
        return key, j
    if i >= len(s) or s[i] != ":":
        raise CallSyntaxError("expected ':' after a key", i)
    return key, i


def _parse_member_value(s: str, i: int, key: str, depth: int) -> tuple[Any, int]:
    """The value of ``key``, starting at ``s[i]`` (just past its ``:``), and the index
    after it and any whitespace that follows."""
    n = len(s)
    if i >= n:
        raise CallSyntaxError(f"the value of {key!r} is missing", i)
    if s[i] in _WHITESPACE:
        i = _skip_ws(s, i)
        if i >= n:
            raise CallSyntaxError(f"the value of {key!r} is missing", i)
    if s.startswith(ESCAPE, i):  # the common case, inlined: a string value
        j = s.find(ESCAPE, i + _ESC_LEN)
        if j < 0:
            raise CallSyntaxError("a string is not closed with <escape>", i)
        value, i = s[i + _ESC_LEN : j], j + _ESC_LEN
    else:
        value, i = _parse_value(s, i, depth)
    if i < n and s[i] in _WHITESPACE:
        i = _skip_ws(s, i)
    return value, i


def _parse_object(s: str, i: int, depth: int) -> tuple[dict[str, Any], int]:
    """The object whose ``{`` is at ``s[i]``."""
    if depth > MAX_DEPTH:
        raise CallSyntaxError("values nest too deeply", i)
    n = len(s)
    i += 1
    result: dict[str, Any] = {}
    while True:
        if i >= n:
            raise CallSyntaxError("the arguments are not closed with }", i)
        c = s[i]
        if c in _WHITESPACE:
            i = _skip_ws(s, i)
            if i >= n:
                raise CallSyntaxError("the arguments are not closed with }", i)
            c = s[i]
        if c == "}" and not result:
            return result, i + 1
        j = s.find(":", i)  # an <escape>d or "quoted" key is no identifier: _parse_key
        if j > i and s[i:j].isidentifier():  # the common case, inlined: a bare name
            key, i = s[i:j], j
        else:
            key, i = _parse_key(s, i)
        if key in result:
            raise CallSyntaxError(f"argument {key!r} is given twice", i)
        result[key], i = _parse_member_value(s, i + 1, key, depth)
        if i >= n:
            raise CallSyntaxError("the arguments are not closed with }", i)
        c = s[i]
        if c == ",":
            i += 1
        elif c == "}":
            return result, i + 1
        else:
            raise CallSyntaxError(f"expected ',' or '}}' but found {c!r}", i)


def parse_arguments(text: str) -> dict[str, Any]:
    """Parse ``{k:v,…}`` on its own (raises ``CallSyntaxError``)."""
    i = _skip_ws(text, 0)
    if i >= len(text) or text[i] != "{":
        raise CallSyntaxError("expected '{'", i)
    value, end = _parse_object(text, i, 1)
    if _skip_ws(text, end) != len(text):
        raise CallSyntaxError("unexpected text after the arguments", end)
    return value


def json_depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (counted without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _parse_arguments_at(s: str, brace: int) -> tuple[dict[str, Any], int]:
    """The arguments whose ``{`` is at ``s[brace]``: FunctionGemma's ``{k:v,…}``, or a JSON
    object inside the braces, as the template writes arguments given as a JSON string."""
    inner = _skip_ws(s, brace + 1)
    if not s.startswith("{", inner):
        return _parse_object(s, brace, 1)
    try:
        value, end = _JSON.raw_decode(s, inner)
    except (ValueError, RecursionError):
        raise CallSyntaxError(
            "the arguments are neither k:v pairs nor a JSON object", inner
        ) from None
    if not isinstance(value, dict):
        raise CallSyntaxError("the arguments are not an object", inner)
    if json_depth(value) > MAX_DEPTH:
        raise CallSyntaxError("values nest too deeply", inner)
    end = _skip_ws(s, end)
    if not s.startswith("}", end):
        raise CallSyntaxError("the arguments are not closed with }", end)
    return value, end + 1


def _parse_call_at(s: str, i: int) -> tuple[ParsedCall, int]:
    """Parse ``call:NAME{…}[<end_function_call>]`` starting at ``s[i]``."""
    block_start = i
    i = _skip_ws(s, i)
    if not s.startswith(_CALL_PREFIX, i):
        raise CallSyntaxError("expected 'call:NAME{' after <start_function_call>", i)
    i += len(_CALL_PREFIX)
    brace = s.find("{", i)
    if brace < 0:
        raise CallSyntaxError("expected '{' after the function name", i)
    name = s[i:brace].strip()
    if not name.isidentifier() and (not name or not _BAD_NAME.isdisjoint(name)):
        raise CallSyntaxError("the function name is missing or malformed", i)
    arguments, end = _parse_arguments_at(s, brace)
    after = end
    if after < len(s) and s[after] in _WHITESPACE:
        after = _skip_ws(s, after)
    if s.startswith(END_CALL, after):
        return ParsedCall(name, arguments, s[block_start:end], True), after + _END_LEN
    if after >= len(s):
        return ParsedCall(name, arguments, s[block_start:end], False), after
    raise CallSyntaxError(
        "unexpected text after the arguments (expected <end_function_call>)", after
    )


def parse_calls(text: str) -> ParseResult:
    """Every call in ``text``, in order. Never raises: problems come back as ``errors``."""
    calls: list[ParsedCall] = []
    errors: list[str] = []
    outside: list[str] = []
    start = text.find(START_CALL)
    if start < 0:
        head = _skip_ws(text, 0)
        if text.startswith(_CALL_PREFIX, head):
            try:
                call, end = _parse_call_at(text, head)
            except CallSyntaxError as exc:
                return ParseResult((), (f"{exc.message} (at offset {exc.position})",), text)
            return ParseResult((call,), (), text[end:].strip())
        reason = "the output contains no function call" if text.strip() else "the output is empty"
        return ParseResult((), (reason,), text)
    pos = 0
    while start >= 0:
        outside.append(text[pos:start])
        body = start + _START_LEN
        nxt = text.find(START_CALL, body)
        block_end = nxt if nxt >= 0 else len(text)
        # A block never reaches past the next start token: each block is read once, so
        # output full of start tokens stays linear (no rescanning to the end per block).
        block = text[body:block_end]
        try:
            call, used = _parse_call_at(block, 0)
            calls.append(call)
            pos = body + used
        except CallSyntaxError as exc:
            errors.append(
                f"call {len(calls) + len(errors) + 1}: {exc.message} "
                f"(at offset {body + exc.position})"
            )
            close = block.find(END_CALL)  # resume after this block's end token, if any
            pos = body + close + _END_LEN if close >= 0 else block_end
        start = nxt
    outside.append(text[pos:])
    return ParseResult(tuple(calls), tuple(errors), "".join(outside).strip())
