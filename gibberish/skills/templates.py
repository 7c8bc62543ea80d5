"""Parse and check a tool's ``#### Command`` block (docs/adr/0003-no-shell-ever.md).

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
5. The words are checked: the program (a literal, not a relative path), ``./``
   arguments, URLs, and, when the program or some word names a program that runs code
   (a shell, an interpreter, ``env``, ``sudo``, ``ssh``, ``awk`` ...), the command line
   of each such program (:func:`programs.scan_command`, which knows those programs).
   Plain words remember whether they name such a program, so the common template skips
   all of this.

The cross-check against the tool's parameter table (``check_template``) lives in
:mod:`gibberish.skills.template_params`. The diagnostic codes of both are stable;
``CODES`` lists every one with a one-line summary.

Decisions beyond docs/adr/0003-no-shell-ever.md:

* Placeholder names are ``[A-Za-z_][A-Za-z0-9_]*`` (blanks inside the braces are allowed)
  and are recognised inside quotes too. A modifier starting with ``-`` is a flag, so
  ``{{n:-1}}`` is the flag ``-1``. A default is used exactly as written and may not hold
  quotes or backslashes (they would read as quoting that never happens).
* ``{{x:--flag}}`` and ``{{x:--flag=}}`` must be words of their own (they become whole
  arguments).
* A ``#`` comment and a bare ``$`` are refused rather than silently dropped or kept.
* Backslash-newlines and blank lines at the end of the block are ignored.
* Values are never interpreted here, but programs interpret some of their arguments;
  :mod:`gibberish.skills.programs` says how placeholders there are judged.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from gibberish.lazy import lazy_pattern
from gibberish.skills.model import (
    CommandTemplate,
    Diagnostic,
    Literal,
    Placeholder,
    PlaceholderKind,
    Severity,
    TemplateWord,
)
from gibberish.skills.programs import MARK, is_interpreter, knows_program, scan_command
from gibberish.skills.quoting import SCRIPT_HINT, ShellScan, remove_quotes, show, skip_parens
from gibberish.skills.quoting import Issue as _Problem
from gibberish.skills.render import url_parts

__all__ = ["CODES", "PLACEHOLDER_RE", "parse_template", "template_words"]

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
    "E-PLACEHOLDER-COMMAND-POSITION": (
        "a value could choose what runs: the program of a wrapper (`env`, `sudo`, "
        "`timeout` ...), an interpreter's script or module, or the words before them"
    ),
    "E-RELATIVE-PROGRAM": "a program path relative to the working folder (`scripts/x.sh`)",
    "W-RELATIVE-ARGUMENT": "a `./` argument: relative to the working folder, not the skill",
    "E-PLACEHOLDER-IN-HOST": "a placeholder in the host part of an `http://` or `https://` URL",
    "E-FLAG-PLACEHOLDER-NOT-WORD": "a `{{x:--flag}}` / `{{x:--flag=}}` inside a longer word",
    "E-PLACEHOLDER-IN-INLINE-CODE": (
        "a placeholder inside code a program runs: `sh -c`, `python -c`, an awk or sed "
        "program, an ssh or watch command, `env -S`, ssh -o settings ..."
    ),
    "W-INLINE-SHELL": (
        "a shell or interpreter is given inline code (`sh -c`, `python -c`, awk, "
        "`ssh host cmd` ...)"
    ),
    "E-UNKNOWN-PLACEHOLDER": "a placeholder names no declared parameter",
    "W-UNUSED-PARAMETER": "a declared parameter is not used by the command",
    "E-FLAG-EQUALS-BOOLEAN": "`{{x:--flag=}}` on a boolean parameter",
    "E-BAD-PLACEHOLDER-DEFAULT": "`{{x:default}}` whose default is not valid for the type",
    "W-DEFAULT-ON-REQUIRED": "`{{x:default}}` on a required parameter (never used)",
    "W-CONFLICTING-DEFAULT": "the table default and `{{x:default}}` disagree",
}

# A placeholder is masked by ``MARK`` (its first character) then ``PAD`` (each other one).
# MARK comes from programs.py, whose scan reads it as "a placeholder here"; both are
# refused in source text (``_BAD_CHAR_RE``), so literal text never holds them.
PAD = "\ue001"
"""Sentinel for the remaining characters of a placeholder (a private-use code point)."""


# ---------------------------------------------------------------------------------------
# Placeholders

PLACEHOLDER_RE = lazy_pattern(r"\{\{[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::([^{}\n]*))?\}\}")
_FLAG_RE = lazy_pattern(r"--?[A-Za-z0-9][A-Za-z0-9_.:+-]*=?")


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
_BAD_CHAR_RE = lazy_pattern(f"[\x00{MARK}{PAD}]")
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

    marked = PLACEHOLDER_RE.sub(mask, source)
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
# Plain ``*`` inside quotes (a run of non-quote characters cannot give back a quote, so
# nothing backtracks there): with ``*+`` there, the ``re`` of Python 3.11.2 (Debian 12's)
# matched ``echo "unterminated`` as two plain words; 3.11.7 did not.
_UNIT = rf"""(?:{_PLAIN}++|'[^']*'|"[^"\\$`]*(?:\\[\s\S][^"\\$`]*)*"|\\[^\n])"""
_WORD = rf"(?:{_UNIT}(?:{_UNIT}|\\\n)*+)"
_BLANK = r"(?:[ \t\n]|\\\n)*+"
_FAST_RE = lazy_pattern(rf"{_BLANK}(?:{_WORD}(?:(?:[ \t]|\\\n)++{_WORD})*+)?{_BLANK}")
_WORD_RE = lazy_pattern(_WORD)
_NEEDS_TOKENIZER = lazy_pattern(r"['\"\\]")
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
_ASSIGNMENT_RE = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


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
    if kind in _PART_CODES:
        codes = _PART_CODES[kind]
        for part in node.parts:
            code = codes.get(part.kind)
            if part.kind == "operator":
                code = "E-SHELL-BACKGROUND" if part.op == "&" else "E-SHELL-LIST"
            if code is not None:
                start, end = part.pos
                out.append(_structural(code, start, end, source))
            elif part.kind != "word":
                _walk(part, source, out)
    elif kind == "compound":
        out.append(_compound(node, source))
    else:  # function, if, for, while, until, and anything newer
        start, end = node.pos
        out.append(_structural("E-SHELL-COMPOUND", start, end, source))


_PART_CODES: dict[str, dict[str, str]] = {
    "command": {"redirect": "E-SHELL-REDIRECT", "assignment": "E-SHELL-ASSIGNMENT"},
    "pipeline": {"pipe": "E-SHELL-PIPE", "reservedword": "E-SHELL-NEGATION"},
    "list": {},
}
"""Node kind -> the code of each kind of part it reports (a list's operators are
``&`` or ``&&``/``||``/``;``); other parts are walked into."""


def _compound(node: Any, source: str) -> _Problem:
    """``( ... )``, ``{ ...; }``, ``(( ... ))`` and other compound commands."""
    start, end = node.pos
    if source.startswith("((", start):
        return _Problem(
            "E-SHELL-ARITHMETIC",
            start,
            f"{show(source[start:end])} is shell arithmetic, which needs a shell; {SCRIPT_HINT}.",
        )
    first = node.list[0] if node.list else None
    grouping = first is not None and first.kind == "reservedword" and first.word in "({"
    return _structural("E-SHELL-SUBSHELL" if grouping else "E-SHELL-COMPOUND", start, end, source)


_NOT_IMPLEMENTED_RE = lazy_pattern(r"(?<![\w-])(time|case|select|coproc|\(\()(?![\w-])")


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

_F_INTERPRETER = 1
"""The word names a shell or interpreter: its code options are checked wherever it is."""
_F_PROGRAM = 2
"""The word names a program whose command line is analysed (wrappers, ssh, awk ...)."""
_F_DOT = 4
"""The word starts with ``./`` or ``../``: as an argument it is relative to the run's
working folder, not to the skill."""
_F_RELATIVE = 8
"""The word holds a ``/`` but is not absolute, ``./`` or ``~/``: as the program it would be
looked up in the run's working folder."""
_DOT_OPTION_RE = lazy_pattern(r"--?[A-Za-z0-9][A-Za-z0-9_.-]*=\.\.?/")

_LITERAL_WORDS: dict[str, tuple[TemplateWord, int]] = {}
"""Plain words seen before (``git``, ``--json`` ...) and their ``_F_*`` flags. Both are
immutable facts about the raw text, so they are shared between templates."""
_FLAG_KINDS = (PlaceholderKind.FLAG, PlaceholderKind.FLAG_EQUALS)


def _dot_argument(text: str, *, complete: bool) -> bool:
    """Whether an argument starting with ``text`` is a ``./`` or ``../`` path (alone or
    after ``--option=``); ``complete``: text is the whole word (``./`` alone is fine)."""
    if text.startswith(("./", "../")):
        return not complete or text not in ("./", "../")
    m = _DOT_OPTION_RE.match(text)
    return m is not None and (not complete or m.end() < len(text))


def _word_flags(text: str) -> int:
    flags = 0
    name = text.rsplit("/", 1)[-1]
    if knows_program(name):
        flags = _F_PROGRAM | (_F_INTERPRETER if is_interpreter(name) else 0)
    if _dot_argument(text, complete=True):
        flags |= _F_DOT
    if "/" in text and not text.startswith(("/", "./", "~/")):
        flags |= _F_RELATIVE
    return flags


class _Words(Struct):
    words: list[TemplateWord]
    flag_inside: list[int]
    """Indexes of words where a ``{{x:--flag}}`` sits inside a longer word."""
    url_host: list[int]
    """Indexes of words with a placeholder in the host part of an ``http(s)://`` URL."""
    first: int
    """``_F_*`` flags of the program word."""
    later: int
    """``_F_*`` flags of the other words, or-ed together."""
    suspicious: bool
    """Whether :func:`_word_problems` could find anything at all."""


def _literal_word(raw: str) -> tuple[TemplateWord, int]:
    entry = _LITERAL_WORDS.get(raw)
    if entry is None:
        text = remove_quotes(raw)
        entry = (TemplateWord((Literal(text),)), _word_flags(text))
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
    flag_inside: list[int] = []
    url_host: list[int] = []
    flags: list[int] = []
    cache = _LITERAL_WORDS
    next_hole = 0
    for k, raw in enumerate(raws):
        entry = cache.get(raw) or (None if MARK in raw else _literal_word(raw))
        if entry is None:
            if starts is not None:
                while holes[next_hole][0] < starts[k]:
                    next_hole += 1
            entry, next_hole, inside, in_host = _placeholder_word(raw, holes, next_hole)
            if inside:
                flag_inside.append(k)
            if in_host:
                url_host.append(k)
        words.append(entry[0])
        flags.append(entry[1])
    later = 0
    for f in flags[1:]:
        later |= f
    first = flags[0] if flags else 0
    suspicious = bool(
        (first & (_F_PROGRAM | _F_RELATIVE))
        or (later & (_F_INTERPRETER | _F_DOT))
        or flag_inside
        or url_host
        or MARK in raws[0]
    )
    return _Words(words, flag_inside, url_host, first, later, suspicious)


def _placeholder_word(
    raw: str, holes: Sequence[_Hole], next_hole: int
) -> tuple[tuple[TemplateWord, int], int, bool, bool]:
    """A word holding placeholders, taken from ``holes`` from ``next_hole`` on: (the word
    and its ``_F_*`` flags), the next unused hole, whether a ``{{x:--flag}}`` sits inside
    it, and whether a placeholder sits in a URL's host."""
    if raw[0] == MARK and not raw[1:].strip(PAD):  # the whole word is one placeholder
        return (holes[next_hole][2], 0), next_hole + 1, False, False
    text = remove_quotes(raw).replace(PAD, "")
    pieces = text.split(MARK)
    fragments: list[Literal | Placeholder] = [Literal(pieces[0])] if pieces[0] else []
    inside = False
    for piece in pieces[1:]:
        placeholder = holes[next_hole][1]
        next_hole += 1
        fragments.append(placeholder)
        if piece:
            fragments.append(Literal(piece))
        inside = inside or (
            placeholder.kind in _FLAG_KINDS and (len(pieces) > 2 or bool(pieces[0]) or bool(piece))
        )
    word = TemplateWord(tuple(fragments))
    in_host = False
    if "://" in text:
        word, in_host = _mark_url(word)
    head = pieces[0]
    dot = head[:1] in "-." and _dot_argument(head, complete=False)
    return (word, _F_DOT if dot else 0), next_hole, inside, in_host


def _mark_url(word: TemplateWord) -> tuple[TemplateWord, bool]:
    """Mark the placeholders in the query part of the word's ``http(s)://`` URL (their
    values are percent-encoded) and say whether one sits in the host part."""
    parts = url_parts(word)
    if parts is None:
        return word, False
    fragments = tuple(
        replace(f, in_url_query=True) if part == "query" and isinstance(f, Placeholder) else f
        for f, part in zip(word.fragments, parts, strict=True)
    )
    return TemplateWord(fragments), "host" in parts


def _word_problems(built: _Words, starts: Sequence[int]) -> list[_Problem]:
    """Everything wrong with the words themselves: the program, flag placeholders inside
    longer words, URL hosts, ``./`` arguments, and what code-running programs make of
    the words (:func:`programs.scan_command`)."""
    problems = _program_problems(built, starts)
    problems += _flag_inside_problems(built, starts)
    problems += [
        _Problem(
            "E-PLACEHOLDER-IN-HOST",
            starts[k],
            f"`{built.words[k].literal_text}` has a placeholder in the host part of a URL "
            "(before `://`, or between `://` and the next `/`), where a value could send "
            "the request to another host (`@evil.example`, `evil.example#`). Write the "
            "host literally and put values in the path or the query.",
        )
        for k in built.url_host
    ]
    if built.later & _F_DOT:
        problems += _dot_argument_problems(built.words, starts)
    if (built.first & _F_PROGRAM) or (built.later & _F_INTERPRETER):
        scan = scan_command(tuple(built.words))
        problems += [
            _Problem(code, starts[k], message, warning=warning)
            for code, k, message, warning in scan.problems
        ]
    return problems


def _program_problems(built: _Words, starts: Sequence[int]) -> list[_Problem]:
    program = built.words[0]
    if not program.is_literal:
        return [
            _Problem(
                "E-PLACEHOLDER-PROGRAM",
                starts[0],
                f"The program `{program.literal_text}` contains a placeholder: a value may "
                "never choose which program runs. Write the program literally and pass the "
                "value as an argument (or switch on it inside a script under scripts/).",
            )
        ]
    if not built.first & _F_RELATIVE:
        return []
    text = program.literal_text
    fixed = "./scripts/..." if text.startswith("..") else "./" + text
    return [
        _Problem(
            "E-RELATIVE-PROGRAM",
            starts[0],
            f"The program `{text}` is a relative path, so it would be looked up in the "
            "run's working folder (the focused repository), not in the skill. Write "
            f"`{fixed}` to run the skill's own file, or give an absolute path.",
        )
    ]


def _flag_inside_problems(built: _Words, starts: Sequence[int]) -> list[_Problem]:
    return [
        _Problem(
            "E-FLAG-PLACEHOLDER-NOT-WORD",
            starts[k],
            f"`{{{{{ph.name}:{ph.modifier}}}}}` must be a word on its own (it "
            f"becomes whole arguments), but it is part of `{built.words[k].literal_text}`. "
            "Separate it with a space.",
        )
        for k in dict.fromkeys(built.flag_inside)
        for ph in built.words[k].placeholders
        if ph.kind in _FLAG_KINDS
    ]


def _dot_argument_problems(words: Sequence[TemplateWord], starts: Sequence[int]) -> list[_Problem]:
    problems = []
    for k in range(1, len(words)):
        head = words[k].fragments[0] if words[k].fragments else None
        if not isinstance(head, Literal) or not _dot_argument(
            head.text, complete=words[k].is_literal
        ):
            continue
        problems.append(
            _Problem(
                "W-RELATIVE-ARGUMENT",
                starts[k],
                f"`{words[k].literal_text}` is an argument, and arguments are not "
                "resolved against the skill folder: the program reads it relative to "
                "the run's working folder (the focused repository). To run a file of "
                "the skill, make it the program (`./scripts/x.py` with a `#!` line, "
                "executable); to mean the repository, drop the `./`.",
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
    refused = _refuse_unreadable(source)
    if refused is not None:
        return None, [refused]
    marked, holes, problems = _find_placeholders(source)
    raws = _fast_words(marked) if allow_fast and not problems else None
    built: _Words | None = None
    starts: list[int] = []
    if raws:
        built = _build_words(raws, None, holes)
        if not built.suspicious:  # the common case: nothing more to check
            return tuple(built.words), []
        starts = [m.start() for m in _WORD_RE.finditer(marked)]
    elif raws is None:  # the slow path
        raws, starts = _slow_words(marked, source, problems)
    words: tuple[TemplateWord, ...] | None = None
    if not raws and not problems:
        problems.append(
            _Problem(
                "E-EMPTY-COMMAND",
                0,
                "The Command block is empty: write the program and its arguments, e.g. "
                "`git status --short`.",
            )
        )
    elif raws and not any(p.code == "E-PLACEHOLDER-SYNTAX" for p in problems):
        if built is None:
            built = _build_words(raws, starts, holes)
        problems.extend(_word_problems(built, starts))
        words = tuple(built.words)
    problems.sort(key=lambda p: p.start)
    return (None if _has_error(problems) else words), problems


def _has_error(problems: list[_Problem]) -> bool:
    return any(not p.warning for p in problems)


def _refuse_unreadable(source: str) -> _Problem | None:
    """A block too long to parse, or holding a character no command can hold."""
    if len(source) > MAX_TEMPLATE_CHARS:
        message = (
            f"The command is {len(source)} characters long (the limit is "
            f"{MAX_TEMPLATE_CHARS}); {SCRIPT_HINT}."
        )
        return _Problem("E-TEMPLATE-SYNTAX", 0, message)
    bad = _BAD_CHAR_RE.search(source)
    if bad is None:
        return None
    why = {"\x00": "a NUL byte"}.get(bad[0], f"U+{ord(bad[0]):04X}, a reserved character")
    message = f"The command contains {why}, which cannot appear in a command. Remove it."
    return _Problem("E-TEMPLATE-SYNTAX", bad.start(), message)


def _slow_words(marked: str, source: str, problems: list[_Problem]) -> tuple[list[str], list[int]]:
    """Raw words and where they start, by the lexer (:class:`quoting.ShellScan`) and
    bashlex; their problems are added to ``problems``."""
    lexer = ShellScan(marked, source)
    problems.extend(lexer.problems)
    trimmed = _without_trailing_continuations(lexer.structure_only())
    if lexer.unbalanced or not trimmed.strip():
        return [], []
    spans, structural, failed = _bashlex_words(trimmed, source)
    # When bashlex chokes on something the lexer already explained (``$((``, ``$'``),
    # its own complaint would only repeat it less clearly.
    if not (failed and lexer.problems):
        problems.extend(structural)
    return [marked[s:e] for s, e in spans], [s for s, _ in spans]


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


def template_words(source: str) -> tuple[TemplateWord, ...]:
    """The words of a template's (already normalized) source, as ``parse_template`` made
    them: how a template restored from the parse cache gets its words back
    (``text_template.py``). A source with errors, which no stored template holds, has
    none: rendering it then says the tool has no command rather than running anything."""
    words, _problems = _analyse_cached(source)
    return words or ()
