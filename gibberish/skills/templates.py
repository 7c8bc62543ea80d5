"""Parse and check a tool's ``#### Command`` block (DESIGN §4).

A template is exactly one simple command made of words: the program, then arguments,
with ``{{placeholders}}`` inside words. It is never run by a shell, so anything a shell
would interpret (pipes, lists, redirects, ``$``, globs ...) is refused at load time with
its own stable code instead of being passed through as confusing literal text.

How a template is read:

1. Placeholders are found first and replaced by inert sentinel characters of the same
   length (``MARK`` then ``PAD``), so the shell-level parsers never see braces or colons
   and every position still points at the same place in the source.
2. Fast path: one regular expression accepts templates made only of plain characters,
   quoted strings and escapes — text that cannot form any shell construct — and the
   words fall out of it directly. Nearly every real template takes this path, which is
   about twenty times faster than bashlex (loading a large skills folder parses
   thousands of templates).
3. Slow path, for anything else: :class:`quoting.ShellScan` reports the lexical
   constructs (``$``-expansions, backticks, globs, brace expansion, comments ...) and
   **bashlex** parses the structure (pipes, lists, redirects, compound commands), each
   refused with its own code. A template that passes both gives the same words as the
   fast path would; a test runs both paths over generated templates to prove it.
4. Each word's source text is unquoted by :func:`quoting.remove_quotes` and split into
   literals and placeholders (shared by both paths).

The diagnostic codes are stable; ``CODES`` lists every one with a one-line summary.

Decisions where DESIGN §4 is silent:

* Placeholder names are ``[A-Za-z_][A-Za-z0-9_]*`` (blanks inside the braces are allowed)
  and are recognised inside quotes too. A modifier starting with ``-`` is a flag, so
  ``{{n:-1}}`` is the flag ``-1``. A default is used exactly as written and may not hold
  quotes or backslashes (they would read as quoting that never happens).
* ``{{x:--flag}}`` and ``{{x:--flag=}}`` must be words of their own (they become whole
  arguments).
* A ``#`` comment and a bare ``$`` are refused rather than silently dropped or kept.
* Backslash-newlines and blank lines at the end of the block are ignored.
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
from gibberish.skills.quoting import SCRIPT_HINT, ShellScan, remove_quotes, show, skip_parens
from gibberish.skills.quoting import Issue as _Problem
from gibberish.skills.render import RenderError, coerce_value

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

MARK = "\ue000"
"""Sentinel for the first character of a placeholder (a private-use code point)."""
PAD = "\ue001"
"""Sentinel for the remaining characters of a placeholder."""


# ---------------------------------------------------------------------------------------
# Placeholders

_PLACEHOLDER_RE = re.compile(r"\{\{[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::([^{}\n]*))?\}\}")
_FLAG_RE = re.compile(r"--?[A-Za-z0-9][A-Za-z0-9_.:+-]*=?")


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
MAX_TEMPLATE_CHARS = 100_000
"""Longer blocks are refused: no command line needs it, and every pass stays cheap."""
_MAX_PLACEHOLDER_PROBLEMS = 20
"""Enough to show the pattern; a block full of ``{{`` should not take long to reject."""
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
    reported = {p.start for p in problems}
    at = marked.find("{{")
    while at != -1 and len(problems) < _MAX_PLACEHOLDER_PROBLEMS:
        if at not in reported:
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
                    f"`{{{{`, {SCRIPT_HINT}.",
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
# Slow path: structure from bashlex

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
    return _Problem(code, start, f"{show(snippet)} {_STRUCTURE_TEXT[code]}; {SCRIPT_HINT}.")


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
                    f"{show(source[start:end])} is shell arithmetic, which needs a shell; "
                    f"{SCRIPT_HINT}.",
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
            end = skip_parens(marked, start + 1)
            problem = _Problem(
                "E-SHELL-ARITHMETIC",
                start,
                f"{show(source[start:end])} is shell arithmetic, which needs a shell; {SCRIPT_HINT}.",
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
            f"for shell syntax, {SCRIPT_HINT}.",
        )
        return [], [problem], True
    except Exception as exc:  # bashlex has rough edges; never let them escape
        problem = _Problem(
            "E-TEMPLATE-SYNTAX",
            0,
            f"The command cannot be read as one simple command ({exc}). Check quotes "
            f"and special characters; for shell syntax, {SCRIPT_HINT}.",
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
                f"with a backslash to continue the same command, or {SCRIPT_HINT}.",
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
    if len(source) > MAX_TEMPLATE_CHARS:
        message = (
            f"The command is {len(source)} characters long (the limit is "
            f"{MAX_TEMPLATE_CHARS}); {SCRIPT_HINT}."
        )
        return None, [_Problem("E-TEMPLATE-SYNTAX", 0, message)]
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
        lexer = ShellScan(marked, source)
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

    Errors: a placeholder that names no parameter (``E-UNKNOWN-PLACEHOLDER``, once per
    name), ``{{x:--flag=}}`` on a boolean, a ``{{x:default}}`` whose default is not a
    valid value of the type. Warnings: a parameter the command never uses, a default on a
    required parameter, two defaults that disagree. ``line`` is the block's first line
    (default: the template's own); each diagnostic points at the placeholder's line.
    """
    if line is None:
        line = template.line
    where = _placeholder_lines(template, line)
    params = {p.name: p for p in parameters}
    out: list[Diagnostic] = []

    def add(code: str, message: str, at: int | None) -> None:
        severity = Severity.WARNING if code.startswith("W-") else Severity.ERROR
        out.append(Diagnostic(severity, code, message, file, at))

    seen: set[tuple[str, PlaceholderKind, str | None]] = set()
    unknown: set[str] = set()
    for word in template.words:
        for ph in word.placeholders:
            if (ph.name, ph.kind, ph.modifier) in seen:
                continue
            seen.add((ph.name, ph.kind, ph.modifier))
            at = where.get(ph.name, line)
            param = params.get(ph.name)
            if param is None:
                if ph.name not in unknown:
                    unknown.add(ph.name)
                    declared = ", ".join(sorted(params)) or "none"
                    add(
                        "E-UNKNOWN-PLACEHOLDER",
                        f"{{{{{ph.name}}}}} is not a parameter of this tool (declared: "
                        f"{declared}). Add it to the Parameters table or fix the spelling.",
                        at,
                    )
            elif ph.kind is PlaceholderKind.FLAG_EQUALS and param.type is ParameterType.BOOLEAN:
                flag = (ph.modifier or "").rstrip("=")
                add(
                    "E-FLAG-EQUALS-BOOLEAN",
                    f"`{{{{{ph.name}:{ph.modifier}}}}}` gives a value after `=`, but "
                    f"'{ph.name}' is a boolean. Write {{{{{ph.name}:{flag}}}}} to pass "
                    f"`{flag}` only when it is true, or {{{{{ph.name}}}}} for true/false text.",
                    at,
                )
            elif ph.kind is PlaceholderKind.DEFAULT:
                for code, message in _default_problems(ph, param):
                    add(code, message, at)
    used = template.placeholder_names
    for p in parameters:
        if p.name not in used:
            add(
                "W-UNUSED-PARAMETER",
                f"Parameter '{p.name}' is declared but the command never uses it; add "
                f"{{{{{p.name}}}}} to the command or remove it from the table.",
                p.line if p.line is not None else line,
            )
    return out


def _default_problems(ph: Placeholder, param: ParameterDefinition) -> list[tuple[str, str]]:
    """(code, message) for a ``{{x:default}}`` that cannot or will not be used as written."""
    text = ph.modifier or ""
    shown = f"`{{{{{ph.name}:{text}}}}}`"
    try:
        value = coerce_value(param, [text] if param.type is ParameterType.ARRAY else text)
    except RenderError as exc:
        return [
            (
                "E-BAD-PLACEHOLDER-DEFAULT",
                f"The default in {shown} is not a valid {param.type.value}: {exc.message}",
            )
        ]
    if param.required:
        return [
            (
                "W-DEFAULT-ON-REQUIRED",
                f"'{ph.name}' is required, so the default in {shown} is never used. Make the "
                "parameter optional or drop the default.",
            )
        ]
    if param.default is not None:
        try:
            table = coerce_value(param, param.default)
        except RenderError:
            table = param.default
        if table != value:
            return [
                (
                    "W-CONFLICTING-DEFAULT",
                    f"'{ph.name}' has the default {param.default!r} in the Parameters table "
                    f"and {text!r} in the command; the table's wins. Keep only one.",
                )
            ]
    return []
