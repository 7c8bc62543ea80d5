"""Parse and check a tool's ``#### Command`` block (DESIGN §4).

A template is exactly one simple command made of words: the program, then arguments,
with ``{{placeholders}}`` inside words. It is never run by a shell, so anything a shell
would interpret (pipes, lists, redirects, ``$``, globs ...) is refused at load time with
its own stable code instead of being passed through as confusing literal text.

How a template is read:

1. Placeholders are found first and replaced by inert sentinel characters of the same
   length (``MARK`` then ``PAD``), so the shell-level parsers never see braces or colons
   and every position still points at the same place in the source.
2. Fast path: a regular expression accepts templates made only of plain characters,
   quoted strings and escapes — text that cannot form any shell construct — and yields
   the word spans directly.
3. Otherwise (slow path) a small lexer reports the lexical constructs bashlex does not
   model well (``$``-expansions, backticks, globs, brace expansion, comments ...) and
   **bashlex** parses the structure (pipes, lists, redirects, compound commands).
4. Each word's source span is unquoted by :func:`quoting.remove_quotes` and split into
   literals and placeholders; both paths share this step, and a test asserts they give
   identical results.

Diagnostic codes (stable; see ``CODES`` for a one-line summary of each).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from gibberish.skills.model import (
    CommandTemplate,
    Diagnostic,
    Literal,
    ParameterDefinition,
    ParameterType,
    Placeholder,
    PlaceholderKind,
    Severity,
    TemplateWord,
)
from gibberish.skills.quoting import remove_quotes

__all__ = ["CODES", "check_template", "parse_template"]

CODES: dict[str, str] = {
    "E-TEMPLATE-SYNTAX": "the command cannot be parsed (unbalanced quote, stray token ...)",
    "E-EMPTY-COMMAND": "the Command block holds no command",
    "E-SHELL-PIPE": "a pipe `|`",
    "E-SHELL-LIST": "several commands: `&&`, `||`, `;` or one command per line",
    "E-SHELL-BACKGROUND": "`&` (run in the background)",
    "E-SHELL-REDIRECT": "a redirection: `>`, `>>`, `<`, `2>&1`, `<<<` ...",
    "E-SHELL-VARIABLE": "a variable: `$VAR`, `${X}`, `$1`, or a bare `$`",
    "E-SHELL-SUBSTITUTION": "command substitution: `$(...)` or backticks",
    "E-SHELL-ARITHMETIC": "arithmetic expansion: `$((...))` or `$[...]`",
    "E-SHELL-PROCESS-SUBSTITUTION": "process substitution: `<(...)` or `>(...)`",
    "E-SHELL-SUBSHELL": "a subshell `( ... )` or a group `{ ...; }`",
    "E-SHELL-COMPOUND": "shell syntax: `if`, `for`, `while`, `case`, `time`, functions ...",
    "E-SHELL-NEGATION": "`!` negating a command",
    "E-SHELL-GLOB": "an unquoted glob character: `*`, `?` or `[`",
    "E-SHELL-BRACE": "brace expansion: `{a,b}` or `{1..3}`",
    "E-SHELL-ANSI-C": "an ANSI-C string `$'...'`",
    "E-SHELL-LOCALE": 'a locale string `$"..."`',
    "E-SHELL-ASSIGNMENT": "an environment assignment before the program: `NAME=value cmd`",
    "E-SHELL-COMMENT": "a `#` comment",
    "E-PLACEHOLDER-SYNTAX": "a malformed `{{...}}` placeholder",
    "E-PLACEHOLDER-PROGRAM": "a placeholder in the program word",
    "E-FLAG-PLACEHOLDER-NOT-WORD": "a `{{x:--flag}}` / `{{x:--flag=}}` inside a longer word",
    "E-PLACEHOLDER-IN-INLINE-CODE": "a placeholder inside code given to a shell/interpreter",
    "W-INLINE-SHELL": "a shell or interpreter is given inline code (`sh -c`, `python -c` ...)",
    "E-UNKNOWN-PLACEHOLDER": "a placeholder names no declared parameter",
    "W-UNUSED-PARAMETER": "a declared parameter is not used by the command",
    "E-FLAG-EQUALS-BOOLEAN": "`{{x:--flag=}}` on a boolean parameter",
    "E-BAD-PLACEHOLDER-DEFAULT": "`{{x:default}}` whose default is not valid for the type",
    "W-DEFAULT-ON-REQUIRED": "`{{x:default}}` on a required parameter (never used)",
    "W-CONFLICTING-DEFAULT": "the table default and `{{x:default}}` disagree",
}
__doc__ = (__doc__ or "") + "\n" + "\n".join(f"* ``{c}``: {d}" for c, d in CODES.items()) + "\n"

MARK = "\ue000"
"""Sentinel for the first character of a placeholder (a private-use code point)."""
PAD = "\ue001"
"""Sentinel for the remaining characters of a placeholder."""

_SCRIPT_HINT = "put it in a script under scripts/ and call that script from the command"

# ---------------------------------------------------------------------------------------
# Placeholders

_PLACEHOLDER_RE = re.compile(r"\{\{[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::([^{}\n]*))?\}\}")
_FLAG_RE = re.compile(r"--?[A-Za-z0-9][A-Za-z0-9_.:+-]*=?")


@dataclass(frozen=True, slots=True)
class _Problem:
    """A diagnostic before it gets a line: code, span in the source, message."""

    code: str
    start: int
    message: str
    warning: bool = False


def _quote(text: str) -> str:
    """Show offending template text in a message: in backticks unless it holds one."""
    return f'"{text}"' if "`" in text else f"`{text}`"


@functools.lru_cache(maxsize=1024)
def _classify(name: str, modifier: str | None) -> tuple[Placeholder, TemplateWord] | str:
    """``{{name:modifier}}`` as a Placeholder (and the word that is just it), or the reason
    it is malformed. Cached: the same placeholders recur across a skills folder."""
    result = _placeholder(name, modifier)
    if isinstance(result, str):
        return result
    return result, TemplateWord((result,))


def _placeholder(name: str, modifier: str | None) -> Placeholder | str:
    """Turn ``{{name:modifier}}`` into a Placeholder, or return why it is malformed."""
    if modifier is None:
        return Placeholder(name)
    mod = modifier.strip()
    if mod.startswith("-"):
        if _FLAG_RE.fullmatch(mod) is None:
            return (
                f"the flag {mod!r} is not an option name; write {{{{{name}:-f}}}}, "
                f"{{{{{name}:--flag}}}} or {{{{{name}:--flag=}}}}"
            )
        kind = PlaceholderKind.FLAG_EQUALS if mod.endswith("=") else PlaceholderKind.FLAG
        return Placeholder(name, kind, mod)
    if any(c in mod for c in "'\"`\\"):
        return (
            "a default is used exactly as written, so it may not contain quotes or "
            f"backslashes; write {{{{{name}:{mod.strip(chr(39) + chr(34))}}}}}"
        )
    return Placeholder(name, PlaceholderKind.DEFAULT, mod)


_Hole = tuple[int, Placeholder, TemplateWord]
"""Where a placeholder starts in the source, what it means, and the word made of it alone."""
_BAD_CHAR_RE = re.compile(f"[\x00{MARK}{PAD}]")
_MASKS = [MARK + PAD * (n - 1) if n else "" for n in range(256)]


def _find_placeholders(source: str) -> tuple[str, list[_Hole], list[_Problem]]:
    """Return the source with placeholders masked, the placeholders, and syntax problems."""
    holes: list[_Hole] = []
    problems: list[_Problem] = []
    if "{{" not in source:
        return source, holes, problems

    def mask(m: re.Match[str]) -> str:
        result = _classify(m[1], m[2])
        if isinstance(result, str):
            problems.append(_Problem("E-PLACEHOLDER-SYNTAX", m.start(), f"`{m[0]}`: {result}."))
            return m[0]
        holes.append((m.start(), *result))
        n = m.end() - m.start()
        return _MASKS[n] if n < len(_MASKS) else MARK + PAD * (n - 1)

    marked = _PLACEHOLDER_RE.sub(mask, source)
    at = marked.find("{{")
    while at != -1:
        if not any(p.start == at for p in problems):
            close = source.find("}}", at)
            eol = source.find("\n", at)
            end = len(source) if eol == -1 else eol
            if close != -1 and close < end:
                end = close + 2
            problems.append(
                _Problem(
                    "E-PLACEHOLDER-SYNTAX",
                    at,
                    f"`{source[at:end]}` is not a placeholder. Placeholders are "
                    "{{name}}, {{name:default}}, {{name:--flag}} or {{name:--flag=}} with a "
                    "name made of letters, digits and _. If the program needs literal "
                    f"`{{{{`, {_SCRIPT_HINT}.",
                )
            )
        at = marked.find("{{", at + 2)
    return marked, holes, problems


# ---------------------------------------------------------------------------------------
# Fast path: a regular expression for templates that cannot contain shell syntax

_PLAIN = r"""[^\s'"\\$`|&;<>()*?\[\]{}#!]"""
_UNIT = rf"""(?:{_PLAIN}++|'[^']*+'|"[^"\\$`]*+(?:\\[\s\S][^"\\$`]*+)*+"|\\[^\n])"""
_WORD = rf"(?:{_UNIT}(?:{_UNIT}|\\\n)*+)"
_BLANK = r"(?:[ \t\n]|\\\n)*+"
_FAST_RE = re.compile(rf"{_BLANK}(?:{_WORD}(?:(?:[ \t]|\\\n)++{_WORD})*+)?{_BLANK}")
_WORD_RE = re.compile(_WORD)
_NEEDS_TOKENIZER = re.compile(r"['\"\\]")
_RESERVED = frozenset(
    [
        "case",
        "coproc",
        "do",
        "done",
        "elif",
        "else",
        "esac",
        "fi",
        "for",
        "function",
        "if",
        "in",
        "select",
        "then",
        "until",
        "while",
        "time",
    ]
)
_ASSIGNMENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


def _fast_words(marked: str) -> list[str] | None:
    """The raw words when ``marked`` is plain words only; None means "use the slow path"."""
    if _FAST_RE.fullmatch(marked) is None:
        return None
    # Without quotes or backslashes only space, tab and newline can separate words here.
    plain = _NEEDS_TOKENIZER.search(marked) is None
    words = marked.split() if plain else _WORD_RE.findall(marked)
    if words:
        first = words[0]
        if first in _RESERVED or "\\" in first or ("=" in first and _ASSIGNMENT_RE.match(first)):
            return None
    return words


# ---------------------------------------------------------------------------------------
# Slow path, part 1: lexical constructs (bashlex either misses them or cannot parse them)

_OPERATOR_CHARS = frozenset("|&;<>()")
_SPECIAL_PARAMS = frozenset("0123456789@*#?-$!")


def _skip_quoted(text: str, i: int) -> int:
    """Index after the quoted string starting at ``i`` (``'`` or ``"``), or len(text)."""
    if text[i] == "'":
        j = text.find("'", i + 1)
        return len(text) if j == -1 else j + 1
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
        elif text[j] == '"':
            return j + 1
        else:
            j += 1
    return len(text)


def _skip_parens(text: str, i: int) -> int:
    """Index after the ``(...)`` group starting at ``text[i] == '('`` (quote-aware)."""
    depth = 0
    j = i
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c in "'\"":
            j = _skip_quoted(text, j)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(text)


def _skip_backticks(text: str, i: int) -> int:
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
        elif text[j] == "`":
            return j + 1
        else:
            j += 1
    return len(text)


class _Lexer:
    """Walks the masked source once, tracking quotes, and reports lexical constructs."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.problems: list[_Problem] = []
        self.unbalanced = False
        self.inert: list[tuple[int, int]] = []
        """Spans of quoted or escaped text: plain word content whatever the characters."""

    def structure_only(self) -> str:
        """The text with quoted/escaped content replaced by ``x`` (same positions).

        bashlex is only asked for structure; its handling of odd characters inside quotes
        (a backtick in single quotes, say) is buggy, and the words are unquoted by
        :func:`remove_quotes` from the original text anyway.
        """
        if not self.inert:
            return self.text
        pieces = []
        last = 0
        for start, end in self.inert:
            pieces.append(self.text[last:start])
            pieces.append("x" * (end - start))
            last = end
        pieces.append(self.text[last:])
        return "".join(pieces)

    def add(self, code: str, start: int, end: int, what: str) -> None:
        self.problems.append(_Problem(code, start, f"{_quote(self.source[start:end])} {what}"))

    def run(self) -> None:
        text, n = self.text, len(self.text)
        i = 0
        word_start = True
        while i < n:
            c = text[i]
            if c in " \t\n":
                word_start = True
                i += 1
            elif c == "\\":
                if i + 1 >= n:
                    self.add(
                        "E-TEMPLATE-SYNTAX",
                        i,
                        i + 1,
                        "ends the command: a backslash at the end continues nothing. "
                        "Remove it, or put it in quotes ('\\') if it is part of an argument.",
                    )
                    i += 1
                elif text[i + 1] == "\n":
                    i += 2  # line continuation: invisible, word_start unchanged
                else:
                    word_start = False
                    self.inert.append((i + 1, i + 2))
                    i += 2
            elif c in _OPERATOR_CHARS:
                if c in "<>" and i + 1 < n and text[i + 1] == "(":
                    end = _skip_parens(text, i + 1)
                    self.add(
                        "E-SHELL-PROCESS-SUBSTITUTION",
                        i,
                        end,
                        f"is process substitution, which needs a shell; {_SCRIPT_HINT}.",
                    )
                    word_start = False
                    i = end
                else:  # structure: reported by bashlex
                    word_start = True
                    i += 1
            elif c == "#" and word_start:
                end = text.find("\n", i)
                end = n if end == -1 else end
                self.add(
                    "E-SHELL-COMMENT",
                    i,
                    end,
                    "is a shell comment: the rest of the line would be ignored. Put `#` "
                    "in quotes ('#') if it belongs to an argument, or delete the comment.",
                )
                i = end
            else:
                word_start = False
                i = self.word_char(i)

    def word_char(self, i: int) -> int:
        text, n = self.text, len(self.text)
        c = text[i]
        if c == "'":
            end = _skip_quoted(text, i)
            if end == n and (end - 1 <= i or text[end - 1] != "'"):
                self.unbalanced_quote(i, "'")
            else:
                self.inert.append((i + 1, end - 1))
            return end
        if c == '"':
            return self.double_quoted(i)
        if c == "$":
            return self.dollar(i, in_double=False)
        if c == "`":
            return self.backtick(i)
        if c in "*?[":
            self.add(
                "E-SHELL-GLOB",
                i,
                i + 1,
                "is a shell wildcard, and no shell expands it here. Put the argument in "
                "quotes if you mean the character (URLs with `?` must be quoted); to "
                f"match files, {_SCRIPT_HINT}.",
            )
            return i + 1
        if c == "{":
            return self.brace(i)
        return i + 1

    def unbalanced_quote(self, i: int, quote: str) -> None:
        self.unbalanced = True
        eol = self.text.find("\n", i)
        self.add(
            "E-TEMPLATE-SYNTAX",
            i,
            len(self.text) if eol == -1 else eol,
            f"opens a {'single' if quote == chr(39) else 'double'} quote ({quote}) that "
            "is never closed. Add the closing quote.",
        )

    def double_quoted(self, i: int) -> int:
        text, n = self.text, len(self.text)
        j = i + 1
        expands = False
        while j < n:
            c = text[j]
            if c == '"':
                if not expands:
                    self.inert.append((i + 1, j))
                return j + 1
            expands = expands or c in "$`"
            if c == "\\":
                j += 2
            elif c == "$":
                j = self.dollar(j, in_double=True)
            elif c == "`":
                j = self.backtick(j)
            else:
                j += 1
        self.unbalanced_quote(i, '"')
        return n

    def backtick(self, i: int) -> int:
        end = _skip_backticks(self.text, i)
        self.add(
            "E-SHELL-SUBSTITUTION",
            i,
            end,
            f"is command substitution, which needs a shell; {_SCRIPT_HINT}, or quote "
            "the backtick with single quotes if it is meant literally.",
        )
        return end

    def dollar(self, i: int, *, in_double: bool) -> int:
        text, n = self.text, len(self.text)
        nxt = text[i + 1] if i + 1 < n else ""
        literal = "single quotes ('$')" if not in_double else "a backslash (\\$)"
        if nxt == "'" and not in_double:
            j = i + 2
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            end = min(j + 1, n)
            self.add(
                "E-SHELL-ANSI-C",
                i,
                end,
                "is a bash ANSI-C string, which only a shell decodes. Write the text "
                "directly in single quotes, or pass escapes through a script under scripts/.",
            )
            return end
        if nxt == '"' and not in_double:
            self.add(
                "E-SHELL-LOCALE",
                i,
                i + 2,
                'starts a bash locale string ($"..."), which needs a shell. Drop the `$` '
                "and keep the double-quoted text.",
            )
            return i + 1
        if text.startswith("((", i + 1) or nxt == "[":
            end = _skip_parens(text, i + 1) if nxt == "(" else text.find("]", i) + 1 or n
            self.add(
                "E-SHELL-ARITHMETIC",
                i,
                end,
                "is shell arithmetic, which no shell evaluates here. Compute the value in "
                f"the caller, take it as an integer parameter, or {_SCRIPT_HINT}.",
            )
            return end
        if nxt == "(":
            end = _skip_parens(text, i + 1)
            self.add(
                "E-SHELL-SUBSTITUTION",
                i,
                end,
                f"is command substitution, which needs a shell; {_SCRIPT_HINT}.",
            )
            return end
        if nxt == "{":
            close = text.find("}", i)
            end = n if close == -1 else close + 1
        elif nxt.isascii() and (nxt.isalpha() or nxt == "_"):
            end = i + 2
            while end < n and text[end].isascii() and (text[end].isalnum() or text[end] == "_"):
                end += 1
        elif nxt and nxt in _SPECIAL_PARAMS:
            end = i + 2
        else:
            self.add(
                "E-SHELL-VARIABLE",
                i,
                i + 1,
                f"is a bare dollar sign, which a shell might expand. Quote it with {literal} "
                "if you mean the character.",
            )
            return i + 1
        self.add(
            "E-SHELL-VARIABLE",
            i,
            end,
            "is a shell variable, and no shell expands it here. Declare a parameter and "
            "use {{name}}, read the environment in a script under scripts/, or quote it "
            f"with {literal} if you mean the text.",
        )
        return end

    def brace(self, i: int) -> int:
        """Report ``{a,b}`` / ``{1..3}`` brace expansion; a lone ``{}`` is just text."""
        text, n = self.text, len(self.text)
        depth = 0
        expands = False
        j = i
        while j < n:
            c = text[j]
            if c in " \t\n" or c in _OPERATOR_CHARS:
                break
            if c == "\\":
                j += 2
                continue
            if c in "'\"":
                j = _skip_quoted(text, j)
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    if expands:
                        self.add(
                            "E-SHELL-BRACE",
                            i,
                            j + 1,
                            "is brace expansion, which needs a shell. Write the arguments "
                            "out one by one, or quote the braces if they are meant literally.",
                        )
                        return j + 1
                    break
            elif depth == 1 and (c == "," or text.startswith("..", j)):
                expands = True
            j += 1
        return i + 1


# ---------------------------------------------------------------------------------------
# Slow path, part 2: structure from bashlex

_STRUCTURE_TEXT = {
    "E-SHELL-PIPE": "is a pipe: a template runs exactly one program, without a shell",
    "E-SHELL-LIST": "chains several commands: a template runs exactly one program",
    "E-SHELL-BACKGROUND": "runs a command in the background, which needs a shell",
    "E-SHELL-REDIRECT": "is a redirection, which needs a shell (the output is captured for you)",
    "E-SHELL-SUBSHELL": "is a subshell or command group, which needs a shell",
    "E-SHELL-COMPOUND": "is shell syntax (a compound command), which needs a shell",
    "E-SHELL-NEGATION": "negates the command's exit status, which needs a shell",
    "E-SHELL-ASSIGNMENT": "sets an environment variable, which needs a shell",
}


def _structural(code: str, start: int, end: int, source: str) -> _Problem:
    snippet = source[start:end].strip() or source[start : start + 1]
    return _Problem(code, start, f"{_quote(snippet)} {_STRUCTURE_TEXT[code]}; {_SCRIPT_HINT}.")


def _walk(node: Any, source: str, out: list[_Problem]) -> None:
    """Report every structural construct under ``node`` (not descending into words)."""
    kind = node.kind
    if kind == "command":
        for part in node.parts:
            if part.kind == "redirect":
                out.append(_structural("E-SHELL-REDIRECT", *part.pos, source))
            elif part.kind == "assignment":
                out.append(_structural("E-SHELL-ASSIGNMENT", *part.pos, source))
            elif part.kind != "word":
                _walk(part, source, out)
    elif kind == "pipeline":
        for part in node.parts:
            if part.kind == "pipe":
                out.append(_structural("E-SHELL-PIPE", *part.pos, source))
            elif part.kind == "reservedword":
                out.append(_structural("E-SHELL-NEGATION", *part.pos, source))
            else:
                _walk(part, source, out)
    elif kind == "list":
        for part in node.parts:
            if part.kind == "operator":
                code = "E-SHELL-BACKGROUND" if part.op == "&" else "E-SHELL-LIST"
                out.append(_structural(code, *part.pos, source))
            else:
                _walk(part, source, out)
    elif kind == "compound":
        first = node.list[0] if node.list else None
        grouping = first is not None and first.kind == "reservedword" and first.word in "({"
        code = "E-SHELL-SUBSHELL" if grouping else "E-SHELL-COMPOUND"
        if source.startswith("((", node.pos[0]):
            start, end = node.pos
            out.append(
                _Problem(
                    "E-SHELL-ARITHMETIC",
                    start,
                    f"{_quote(source[start:end])} is shell arithmetic, which needs a shell; "
                    f"{_SCRIPT_HINT}.",
                )
            )
            return
        out.append(_structural(code, *node.pos, source))
    else:  # function, if, for, while, until, and anything newer
        out.append(_structural("E-SHELL-COMPOUND", *node.pos, source))


_NOT_IMPLEMENTED_RE = re.compile(r"(?<![\w-])(time|case|select|coproc|\(\()(?![\w-])")


def _without_trailing_continuations(text: str) -> str:
    """Drop blanks and backslash-newlines at the very end: bash ignores them, bashlex
    reports an unexpected end of input (and a block ending in a backslash is common)."""
    end = len(text)
    while True:
        kept = len(text[:end].rstrip(" \t\n"))
        run = kept - len(text[:kept].rstrip("\\"))
        if run % 2 == 0 or kept == end:
            return text[:kept]
        if text[kept] != "\n":  # an escaped blank: part of the last word
            return text[: kept + 1]
        end = kept - 1  # a continuation: drop it and look again


def _bashlex_words(marked: str, source: str) -> tuple[list[tuple[int, int]], list[_Problem], bool]:
    """Word spans of the single simple command, the structural problems, and whether
    bashlex failed to parse at all."""
    import bashlex  # imported lazily: only templates that need it pay for it
    import bashlex.errors

    try:
        trees = bashlex.parse(marked)
    except NotImplementedError:
        m = _NOT_IMPLEMENTED_RE.search(marked)
        start, end = (m.start(), m.end()) if m else (0, len(marked))
        if m and m.group(1) == "((":
            end = _skip_parens(marked, start + 1)
            problem = _Problem(
                "E-SHELL-ARITHMETIC",
                start,
                f"{_quote(source[start:end])} is shell arithmetic, which needs a shell; {_SCRIPT_HINT}.",
            )
            return [], [problem], True
        return [], [_structural("E-SHELL-COMPOUND", start, end, source)], True
    except bashlex.errors.ParsingError as exc:
        pos = min(max(exc.position or 0, 0), max(len(marked) - 1, 0))
        problem = _Problem(
            "E-TEMPLATE-SYNTAX",
            pos,
            f"The command cannot be read as one simple command ({exc.message}, near "
            f"`{source[pos : pos + 20].strip()}`). Check quotes and special characters; "
            f"for shell syntax, {_SCRIPT_HINT}.",
        )
        return [], [problem], True
    except Exception as exc:  # bashlex has rough edges; never let them escape
        problem = _Problem(
            "E-TEMPLATE-SYNTAX",
            0,
            f"The command cannot be read as one simple command ({exc}). Check quotes "
            f"and special characters; for shell syntax, {_SCRIPT_HINT}.",
        )
        return [], [problem], True
    problems: list[_Problem] = []
    if len(trees) > 1:
        start = trees[1].pos[0]
        line_end = marked.find("\n", start)
        problems.append(
            _Problem(
                "E-SHELL-LIST",
                start,
                f"`{source[start : len(marked) if line_end == -1 else line_end]}` is a second "
                "command on its own line: a template runs exactly one program. End a line "
                f"with a backslash to continue the same command, or {_SCRIPT_HINT}.",
            )
        )
    for tree in trees:
        _walk(tree, source, problems)
    if problems or not trees:
        return [], problems, False
    return [p.pos for p in trees[0].parts if p.kind == "word"], [], False


# ---------------------------------------------------------------------------------------
# Words and their checks (shared by both paths)


_LITERAL_WORDS: dict[str, tuple[TemplateWord, bool]] = {}
"""Plain words seen before (``git``, ``--json`` ...) and whether each names an interpreter.
Both are immutable facts about the raw text, so they are shared between templates."""
_FLAG_KINDS = (PlaceholderKind.FLAG, PlaceholderKind.FLAG_EQUALS)


@dataclass(slots=True)
class _Words:
    words: list[TemplateWord]
    flag_inside: list[int]
    """Indexes of words where a ``{{x:--flag}}`` sits inside a longer word."""
    interpreter: bool
    """Whether some literal word names a shell/interpreter (inline-code checks needed)."""
    suspicious: bool
    """Whether :func:`_word_problems` could find anything at all."""


def _literal_word(raw: str) -> tuple[TemplateWord, bool]:
    entry = _LITERAL_WORDS.get(raw)
    if entry is None:
        text = remove_quotes(raw)
        entry = (TemplateWord((Literal(text),)), _INTERPRETER_RE.fullmatch(text) is not None)
        if len(_LITERAL_WORDS) < 20_000:
            _LITERAL_WORDS[raw] = entry
    return entry


def _build_words(
    raws: Sequence[str], starts: Sequence[int] | None, holes: Sequence[_Hole]
) -> _Words:
    """TemplateWords from raw word texts (placeholders masked).

    Placeholders are taken from ``holes`` in order; ``starts`` (word positions, when
    known) lets holes outside any word (say, in a comment) be skipped.
    """
    words: list[TemplateWord] = []
    append = words.append
    flag_inside: list[int] = []
    interpreter = False
    cache = _LITERAL_WORDS
    next_hole = 0
    for k, raw in enumerate(raws):
        entry = cache.get(raw)
        if entry is not None:
            append(entry[0])
            interpreter = interpreter or entry[1]
            continue
        if MARK not in raw:
            word, named = _literal_word(raw)
            append(word)
            interpreter = interpreter or named
            continue
        if starts is not None:
            while holes[next_hole][0] < starts[k]:
                next_hole += 1
        if raw[0] == MARK and not raw[1:].strip(PAD):  # the whole word is one placeholder
            append(holes[next_hole][2])
            next_hole += 1
            continue
        pieces = remove_quotes(raw).replace(PAD, "").split(MARK)
        fragments: list[Literal | Placeholder] = [Literal(pieces[0])] if pieces[0] else []
        for piece in pieces[1:]:
            placeholder = holes[next_hole][1]
            next_hole += 1
            fragments.append(placeholder)
            if piece:
                fragments.append(Literal(piece))
            if placeholder.kind in _FLAG_KINDS and (len(pieces) > 2 or pieces[0] or piece):
                flag_inside.append(k)
        append(TemplateWord(tuple(_mark_url_query(fragments))))
    suspicious = interpreter or bool(flag_inside) or MARK in raws[0]
    return _Words(words, flag_inside, interpreter, suspicious)


def _mark_url_query(fragments: list[Literal | Placeholder]) -> list[Literal | Placeholder]:
    """Flag placeholders after the first ``?`` of an ``http(s)://`` word (percent-encoded)."""
    head = fragments[0]
    if not isinstance(head, Literal) or not head.text[:8].lower().startswith(
        ("http://", "https://")
    ):
        return fragments
    in_query = False
    out: list[Literal | Placeholder] = []
    for f in fragments:
        if isinstance(f, Literal):
            in_query = in_query or "?" in f.text
        elif in_query:
            f = replace(f, in_url_query=True)
        out.append(f)
    return out


# A program (any directory, optional version suffix) that runs code given inline. Each
# named group is a family; _INLINE_OPTIONS says which options take the code.
_INTERPRETER_RE = re.compile(
    r"(?:.*/)?(?:"
    r"(?P<shell>(?:ba|z|da|k|mk|a|fi|c|tc|ya)?sh)"
    r"|(?P<python>(?:python|pypy)[0-9.]*)"
    r"|(?P<node>node(?:js)?|bun)"
    r"|(?P<perl>perl[0-9.]*)"
    r"|(?P<ruby>ruby[0-9.]*)"
    r"|(?P<php>php[0-9.]*)"
    r"|(?P<eval>lua(?:jit)?[0-9.]*|osascript|Rscript|R)"
    r"|(?P<pwsh>pwsh|powershell)"
    r")"
)
_INLINE_OPTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    # family: (short option letters whose argument is code, long options taking code)
    "shell": ("c", ("--command",)),
    "python": ("c", ()),
    "node": ("ep", ("--eval", "--print")),
    "perl": ("eE", ()),
    "ruby": ("e", ()),
    "php": ("r", ("--run",)),
    "eval": ("e", ()),
    "pwsh": ("c", ("-command", "-Command", "--command")),
}


def _inline_code_words(words: Sequence[TemplateWord]) -> list[tuple[int, int]]:
    """(interpreter word index, code word index) for each ``sh -c CODE``-like pair.

    Short option clusters count when the code letter is last (``-lc``, ``-ne``);
    ``--eval=CODE`` carries the code in the option word itself.
    """
    found: list[tuple[int, int]] = []
    for i, word in enumerate(words):
        m = _INTERPRETER_RE.fullmatch(word.literal_text) if word.is_literal else None
        if m is None:
            continue
        letters, longs = _INLINE_OPTIONS[m.lastgroup or "shell"]
        j = i + 1
        while j < len(words):
            head = words[j].fragments[0]
            opt = head.text if isinstance(head, Literal) else ""
            if any(opt.startswith(long + "=") for long in longs):
                found.append((i, j))
                j += 1
                continue
            if not words[j].is_literal or not opt.startswith("-") or opt == "--":
                break
            if opt in longs or (
                not opt.startswith("--") and opt[1:].isalpha() and opt[-1] in letters
            ):
                if j + 1 < len(words):
                    found.append((i, j + 1))
                j += 2
            else:
                j += 1
    return found


def _word_problems(built: _Words, starts: Sequence[int]) -> list[_Problem]:
    problems: list[_Problem] = []
    words = built.words
    if not words[0].is_literal:
        problems.append(
            _Problem(
                "E-PLACEHOLDER-PROGRAM",
                starts[0],
                f"The program `{words[0].literal_text}` contains a placeholder: a value may "
                "never choose which program runs. Write the program literally and pass the "
                "value as an argument (or switch on it inside a script under scripts/).",
            )
        )
    for k in dict.fromkeys(built.flag_inside):
        word = words[k]
        for ph in word.placeholders:
            if ph.kind in _FLAG_KINDS:
                problems.append(
                    _Problem(
                        "E-FLAG-PLACEHOLDER-NOT-WORD",
                        starts[k],
                        f"`{{{{{ph.name}:{ph.modifier}}}}}` must be a word on its own (it "
                        f"becomes whole arguments), but it is part of `{word.literal_text}`. "
                        "Separate it with a space.",
                    )
                )
    if not built.interpreter:
        return problems
    for interp, code in _inline_code_words(words):
        name = words[interp].literal_text
        code_word = words[code]
        if code_word.placeholders:
            problems.append(
                _Problem(
                    "E-PLACEHOLDER-IN-INLINE-CODE",
                    starts[code],
                    f"`{code_word.literal_text}` is code run by `{name}` and contains a "
                    "placeholder, so a value would be parsed as code (injection). Pass the "
                    "value as a separate argument after the code and read it there (for sh: "
                    "sh -c '... \"$1\"' sh {{value}}), or move the code into a script under "
                    "scripts/.",
                )
            )
        else:
            problems.append(
                _Problem(
                    "W-INLINE-SHELL",
                    starts[interp],
                    f"`{name}` is given inline code (`{code_word.literal_text[:40]}`), which "
                    "is hard to review; consider a script under scripts/.",
                    warning=True,
                )
            )
    return problems


# ---------------------------------------------------------------------------------------
# Public API


def _analyse(
    source: str, *, allow_fast: bool
) -> tuple[tuple[TemplateWord, ...] | None, list[_Problem]]:
    """The words of ``source`` (None when it has errors) and every problem found."""
    bad = _BAD_CHAR_RE.search(source)
    if bad is not None:
        why = {"\x00": "a NUL byte"}.get(bad[0], f"U+{ord(bad[0]):04X}, a reserved character")
        message = f"The command contains {why}, which cannot appear in a command. Remove it."
        return None, [_Problem("E-TEMPLATE-SYNTAX", bad.start(), message)]

    marked, holes, problems = _find_placeholders(source)
    raws = _fast_words(marked) if allow_fast and not problems else None
    if raws:
        built = _build_words(raws, None, holes)
        if not built.suspicious:  # the common case: nothing more to check
            return tuple(built.words), []
    starts: list[int] | None = None
    if raws is None:
        lexer = _Lexer(marked, source)
        lexer.run()
        problems.extend(lexer.problems)
        spans: list[tuple[int, int]] = []
        trimmed = _without_trailing_continuations(lexer.structure_only())
        if not lexer.unbalanced and trimmed.strip():
            spans, structural, failed = _bashlex_words(trimmed, source)
            # When bashlex chokes on something the lexer already explained (``$((``,
            # ``$'``), its own complaint would only repeat it less clearly.
            if not (failed and lexer.problems):
                problems.extend(structural)
        raws = [marked[s:e] for s, e in spans]
        starts = [s for s, _ in spans]
    if not raws and not problems:
        problems.append(
            _Problem(
                "E-EMPTY-COMMAND",
                0,
                "The Command block is empty: write the program and its arguments, e.g. "
                "`git status --short`.",
            )
        )
    words: tuple[TemplateWord, ...] | None = None
    if raws and not any(p.code == "E-PLACEHOLDER-SYNTAX" for p in problems):
        if starts is not None:
            built = _build_words(raws, starts, holes)
        else:  # fast path with something to report: find where the words start
            starts = [m.start() for m in _WORD_RE.finditer(marked)]
        problems.extend(_word_problems(built, starts))
        words = tuple(built.words)
    if any(not p.warning for p in problems):
        words = None
    problems.sort(key=lambda p: p.start)
    return words, problems


@functools.lru_cache(maxsize=4096)
def _analyse_cached(
    source: str,
) -> tuple[tuple[TemplateWord, ...] | None, tuple[tuple[_Problem, int], ...]]:
    """Parse results do not depend on file or line, and reloading a skills folder parses
    the same templates again: keep the recent ones (problems with their line offset)."""
    words, problems = _analyse(source, allow_fast=True)
    return words, tuple((p, source.count("\n", 0, p.start)) for p in problems)


def _diagnostics(
    problems: Sequence[tuple[_Problem, int]], file: str | None, line: int | None
) -> list[Diagnostic]:
    return [
        Diagnostic(
            Severity.WARNING if p.warning else Severity.ERROR,
            p.code,
            p.message,
            file,
            None if line is None else line + offset,
        )
        for p, offset in problems
    ]


def _parse(
    source: str, file: str | None, line: int | None, *, allow_fast: bool
) -> tuple[CommandTemplate | None, list[Diagnostic]]:
    """Uncached parse; ``allow_fast=False`` forces the bashlex path (used by tests)."""
    source = source.replace("\r\n", "\n")
    words, problems = _analyse(source, allow_fast=allow_fast)
    located = [(p, source.count("\n", 0, p.start)) for p in problems]
    template = None if words is None else CommandTemplate(source, words, line)
    return template, _diagnostics(located, file, line)


def parse_template(
    source: str, *, file: str | None = None, line: int | None = None
) -> tuple[CommandTemplate | None, list[Diagnostic]]:
    """Parse the text of a ``#### Command`` block into a template.

    ``line`` is the 1-based line in SKILL.md of the block's first content line; each
    diagnostic's line is offset from it. The template is None when any error was found;
    warnings come back alongside a usable template.
    """
    source = source.replace("\r\n", "\n")
    words, problems = _analyse_cached(source)
    template = None if words is None else CommandTemplate(source, words, line)
    return template, _diagnostics(problems, file, line) if problems else []


# ---------------------------------------------------------------------------------------
# Cross-check against the parameter table


def _placeholder_lines(template: CommandTemplate, line: int | None) -> dict[str, int | None]:
    """First line of each placeholder name in the template source."""
    found: dict[str, int | None] = {}
    for m in _PLACEHOLDER_RE.finditer(template.source):
        if m.group(1) not in found:
            found[m.group(1)] = (
                None if line is None else line + template.source.count("\n", 0, m.start())
            )
    return found


def check_template(
    template: CommandTemplate,
    parameters: Sequence[ParameterDefinition],
    *,
    file: str | None = None,
    line: int | None = None,
) -> list[Diagnostic]:
    """Cross-check a parsed template against the tool's parameter table.

    Errors: a placeholder that names no parameter, ``{{x:--flag=}}`` on a boolean, a
    ``{{x:default}}`` whose default is not a valid value of the type. Warnings: a
    parameter the command never uses, a default on a required parameter, two defaults
    that disagree.
    """
    from gibberish.skills.render import RenderError, coerce_value

    if line is None:
        line = template.line
    where = _placeholder_lines(template, line)
    params = {p.name: p for p in parameters}
    out: list[Diagnostic] = []

    def add(code: str, message: str, at: int | None, *, warning: bool = False) -> None:
        out.append(
            Diagnostic(Severity.WARNING if warning else Severity.ERROR, code, message, file, at)
        )

    seen: set[tuple[str, str | None, PlaceholderKind]] = set()
    unknown: set[str] = set()
    for word in template.words:
        for ph in word.placeholders:
            key = (ph.name, ph.modifier, ph.kind)
            if key in seen:
                continue
            seen.add(key)
            at = where.get(ph.name, line)
            param = params.get(ph.name)
            if param is None:
                if ph.name in unknown:
                    continue
                unknown.add(ph.name)
                declared = ", ".join(sorted(params)) or "none"
                add(
                    "E-UNKNOWN-PLACEHOLDER",
                    f"{{{{{ph.name}}}}} is not a parameter of this tool (declared: "
                    f"{declared}). Add it to the Parameters table or fix the spelling.",
                    at,
                )
                continue
            if ph.kind is PlaceholderKind.FLAG_EQUALS and param.type is ParameterType.BOOLEAN:
                flag = (ph.modifier or "").rstrip("=")
                add(
                    "E-FLAG-EQUALS-BOOLEAN",
                    f"`{{{{{ph.name}:{ph.modifier}}}}}` gives a value after `=`, but "
                    f"'{ph.name}' is a boolean. Write {{{{{ph.name}:{flag}}}}} to pass "
                    f"`{flag}` only when it is true, or {{{{{ph.name}}}}} for true/false text.",
                    at,
                )
            if ph.kind is PlaceholderKind.DEFAULT:
                _check_default(ph, param, at, add, coerce_value, RenderError)
    used = template.placeholder_names
    for p in parameters:
        if p.name not in used:
            add(
                "W-UNUSED-PARAMETER",
                f"Parameter '{p.name}' is declared but the command never uses it; add "
                f"{{{{{p.name}}}}} to the command or remove it from the table.",
                p.line if p.line is not None else line,
                warning=True,
            )
    return out


def _check_default(ph: Placeholder, param: ParameterDefinition, at, add, coerce, error) -> None:
    text = ph.modifier or ""
    try:
        value = coerce(param, [text] if param.type is ParameterType.ARRAY else text)
    except error as exc:
        add(
            "E-BAD-PLACEHOLDER-DEFAULT",
            f"The default in `{{{{{ph.name}:{text}}}}}` is not a valid {param.type.value}: "
            f"{exc.message}",
            at,
        )
        return
    if param.required:
        add(
            "W-DEFAULT-ON-REQUIRED",
            f"'{ph.name}' is required, so the default in `{{{{{ph.name}:{text}}}}}` is never "
            "used. Make the parameter optional or drop the default.",
            at,
            warning=True,
        )
    elif param.default is not None:
        try:
            table = coerce(param, param.default)
        except error:
            table = param.default
        if table != value:
            add(
                "W-CONFLICTING-DEFAULT",
                f"'{ph.name}' has the default {param.default!r} in the Parameters table "
                f"and {text!r} in the command; the table's wins. Keep only one.",
                at,
                warning=True,
            )
