"""Bash's lexical rules, the parts a command template needs (docs/adr/0004-own-quote-removal.md).

Two jobs, both about how bash reads characters inside words:

* :func:`remove_quotes` turns one word's source text into the argument bash would pass.
* :class:`ShellScan` finds what a shell would *expand* (``$VAR``, ``$(...)``, backticks,
  globs, brace expansion, comments ...) so the template parser can refuse it with a
  precise code; bashlex (used for structure) either misses these or cannot parse them.

Quote removal:

bashlex's ``WordNode.word`` flattens mixed quoting such as ``a"b c"'d'`` inconsistently,
and ``shlex`` follows POSIX rules that differ from bash in corners (and docs/adr/0004-own-quote-removal.md rules it
out), so each word's *source span* is unquoted here with bash's rules:

* ``'...'``: everything literal, backslashes included.
* ``"..."``: a backslash escapes only ``$``, a backtick, ``"``, ``\\`` and newline (the
  pair backslash-newline disappears); any other backslash stays.
* unquoted: a backslash makes the next character literal; backslash-newline disappears.

Shell expansions (``$``, backticks, globs) are *not* handled: the template parser rejects
them before a word gets here, so whatever reaches this function is plain text.
"""

from __future__ import annotations

import re

from msgspec import Struct

from gibberish.lazy import lazy_pattern

SCRIPT_HINT = "put it in a script under scripts/ and call that script from the command"
"""The way out for anything that needs a shell; ends most template error messages."""

_NEEDS_WORK = lazy_pattern(r"['\"\\]")
_TOKEN = lazy_pattern(
    r"""'(?P<sq>[^']*)'?"""  # single-quoted: literal (a missing close quote is tolerated)
    r"""|"(?P<dq>[^"\\]*+(?:\\[\s\S][^"\\]*+)*+)"?"""  # double-quoted: escapes handled below
    r"""|\\(?P<esc>[\s\S]?)"""  # unquoted backslash escape (or a lone trailing backslash)
    r"""|(?P<plain>[^'"\\]+)"""
)
_DQ_ESCAPE = lazy_pattern(r'\\([$`"\\\n])')


def _dq_unescape(match: re.Match[str]) -> str:
    char = match.group(1)
    return "" if char == "\n" else char


def remove_quotes(text: str) -> str:
    """Return the word ``text`` (its raw source) with bash quote removal applied.

    >>> remove_quotes('''a"b c"'d' ''')
    'ab cd '
    """
    if _NEEDS_WORK.search(text) is None:
        return text
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        value = m.group(kind)  # type: ignore[arg-type]
        if kind == "dq":
            if "\\" in value:
                value = _DQ_ESCAPE.sub(_dq_unescape, value)
        elif kind == "esc":
            if value == "\n":
                continue
            if value == "":  # a backslash at the very end stays a backslash
                value = "\\"
        out.append(value)
    return "".join(out)


class Issue(Struct, frozen=True):
    """A problem found in a template before it gets a file and line: its code, where it
    starts in the source, and a message a person understands."""

    code: str
    start: int
    message: str
    warning: bool = False


def show(text: str) -> str:
    """Show offending template text in a message: in backticks unless it holds one."""
    return f'"{text}"' if "`" in text else f"`{text}`"


# ---------------------------------------------------------------------------------------
# Lexical constructs (bashlex either misses them or cannot parse them)

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


def skip_parens(text: str, i: int) -> int:
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


class ShellScan:
    """One pass over a template, tracking bash's quoting, that reports the lexical
    constructs a shell would expand (``$``-anything, backticks, globs, braces, ``#``).

    ``text`` has placeholders masked by inert characters; ``source`` is the original, used
    to quote the offending text in messages (same positions). Operators (``| & ; < > ( )``)
    are left to bashlex, which sees the structure.
    """

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.problems: list[Issue] = []
        self.unbalanced = False
        """True when a quote is never closed (then nothing else can be trusted)."""
        self.inert: list[tuple[int, int]] = []
        """Spans of quoted or escaped text: plain word content whatever the characters."""
        self.word_begin = -1
        """Where the current word starts (-1 between words); brace expansion is per word."""
        self.run()

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
        self.problems.append(Issue(code, start, f"{show(self.source[start:end])} {what}"))

    def run(self) -> None:
        text, n = self.text, len(self.text)
        i = 0
        word_start = True
        while i < n:
            c = text[i]
            if c in " \t\n":
                word_start = True
                self.end_word(i)
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
                    self.begin_word(i)
                    word_start = False
                    self.inert.append((i + 1, i + 2))
                    i += 2
            elif c in _OPERATOR_CHARS:
                if c in "<>" and i + 1 < n and text[i + 1] == "(":
                    self.begin_word(i)
                    end = skip_parens(text, i + 1)
                    self.add(
                        "E-SHELL-PROCESS-SUBSTITUTION",
                        i,
                        end,
                        f"is process substitution, which needs a shell; {SCRIPT_HINT}.",
                    )
                    word_start = False
                    i = end
                else:  # structure: reported by bashlex
                    word_start = True
                    self.end_word(i)
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
                self.begin_word(i)
                word_start = False
                i = self.word_char(i)
        self.end_word(n)

    def begin_word(self, i: int) -> None:
        if self.word_begin == -1:
            self.word_begin = i

    def end_word(self, i: int) -> None:
        """The word that started at ``word_begin`` ends at ``i``: look for brace expansion."""
        begin, self.word_begin = self.word_begin, -1
        if begin == -1 or "{" not in self.text[begin:i]:
            return
        for start, end in brace_expansions(self.text[begin:i]):
            self.add(
                "E-SHELL-BRACE",
                begin + start,
                begin + end,
                "is brace expansion, which needs a shell. Write the arguments out one by "
                "one, or quote the braces if they are meant literally.",
            )

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
                f"match files, {SCRIPT_HINT}.",
            )
            return i + 1
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
            f"is command substitution, which needs a shell; {SCRIPT_HINT}, or quote "
            "the backtick with single quotes if it is meant literally.",
        )
        return end

    def dollar(self, i: int, *, in_double: bool) -> int:
        """A ``$`` at ``i``: report what it starts; return where scanning goes on."""
        text = self.text
        nxt = text[i + 1 : i + 2]
        if nxt == "'" and not in_double:
            return self.ansi_c(i)
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
            end = skip_parens(text, i + 1) if nxt == "(" else text.find("]", i) + 1 or len(text)
            self.add(
                "E-SHELL-ARITHMETIC",
                i,
                end,
                "is shell arithmetic, which no shell evaluates here. Compute the value in "
                f"the caller, take it as an integer parameter, or {SCRIPT_HINT}.",
            )
            return end
        if nxt == "(":
            end = skip_parens(text, i + 1)
            self.add(
                "E-SHELL-SUBSTITUTION",
                i,
                end,
                f"is command substitution, which needs a shell; {SCRIPT_HINT}.",
            )
            return end
        return self.variable(i, nxt, in_double=in_double)

    def ansi_c(self, i: int) -> int:
        """``$'...'``."""
        text, n = self.text, len(self.text)
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

    def variable(self, i: int, nxt: str, *, in_double: bool) -> int:
        """``$NAME``, ``${...}``, ``$1``, ``$?`` ..., or a bare ``$``."""
        text, n = self.text, len(self.text)
        literal = "single quotes ('$')" if not in_double else "a backslash (\\$)"
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


# ---------------------------------------------------------------------------------------
# Brace expansion, exactly as bash decides it (braces.c: brace_expand, brace_gobbler,
# expand_seqterm). Quoted and escaped characters never count; ``{`` opens an expansion
# only when a matching ``}`` follows *after* an unquoted ``,`` or ``..`` at its own level
# (so ``{a},b}`` expands to ``a}`` and ``b``, but ``a{b}c`` is text); a ``{`` that starts
# the word and is followed by ``}`` is not an opening brace (``find -exec rm {} +``).

_BLANK_OR_END = frozenset(" \t\n")
_INTMAX = 2**63
_DIGITS = "0123456789"


def _gobble(text: str, i: int, satisfy: str) -> int:
    """bash's ``brace_gobbler``: the index of the unquoted ``satisfy`` that ends the scan
    from ``i`` at nesting level 0 (a ``}`` only once a ``,`` or ``..`` was seen), or -1."""
    n = len(text)
    level = 0
    commas = 0 if satisfy == "}" else 1
    quoted = ""
    while i < n:
        c = text[i]
        skipped = _skip_quoting(text, i, quoted)
        if skipped is not None:
            i, quoted, opened = skipped
            level += opened
            continue
        if c == satisfy and level == 0 and commas:
            if not (c == "{" and _lone_open_brace(text, i)):
                return i
        elif c == "{":
            level += 1
        elif c == "}" and level:
            level -= 1
        elif satisfy == "}" and level == 0 and _is_brace_separator(text, i):
            commas += 1
        i += 1
    return -1


def _skip_quoting(text: str, i: int, quoted: str) -> tuple[int, str, int] | None:
    """What quoting does at ``i`` inside a brace scan: (next index, quote now open, levels
    opened), or None when ``text[i]`` is an ordinary character."""
    c = text[i]
    if c == "\\" and quoted != "'":
        return i + 2, quoted, 0
    if c == "$" and quoted != "'" and text.startswith("{", i + 1):
        return i + 2, quoted, 0 if quoted else 1  # ${ counts as an escaped, nested brace
    if quoted:
        return i + 1, "" if c == quoted else quoted, 0
    if c in "\"'`":
        return i + 1, c, 0
    if c in "$<>" and text.startswith("(", i + 1):
        return skip_parens(text, i + 1), "", 0
    return None


def _lone_open_brace(text: str, i: int) -> bool:
    """A ``{`` that starts a word and is followed by a blank or ``}`` opens nothing."""
    before = i == 0 or text[i - 1] in _BLANK_OR_END
    return before and (i + 1 >= len(text) or text[i + 1] in _BLANK_OR_END or text[i + 1] == "}")


def _is_brace_separator(text: str, i: int) -> bool:
    """A ``,`` or a ``..`` (not right before ``}``)."""
    return text[i] == "," or (text.startswith("..", i) and text[i + 2 : i + 3] != "}")


def _has_separator(amble: str) -> bool:
    """An unescaped ``,`` anywhere in the braces (quotes do not count here, as in bash)."""
    i = 0
    while i < len(amble):
        if amble[i] == "\\":
            i += 2
        elif amble[i] == ",":
            return True
        else:
            i += 1
    return False


_SEQ_INT_RE = lazy_pattern(r"[ \t\n]*([+-]?[0-9]+)[ \t\n]*")
_SEQ_RHS_INT_RE = lazy_pattern(r"[+-]?[0-9]+")
_SEQ_INCR_RE = lazy_pattern(r"[ \t\n]*([+-]?[0-9]+)")


def _in_range(digits: str) -> bool:
    return -_INTMAX <= int(digits) < _INTMAX


def _is_sequence(amble: str) -> bool:
    """bash's ``expand_seqterm`` succeeds: ``{1..5}``, ``{a..e}``, ``{1..9..2}`` ..."""
    at = amble.find("..")
    if at == -1:
        return False
    lhs, rhs = amble[:at], amble[at + 2 :]
    if not lhs or not rhs:
        return False
    end = _sequence_end(rhs)
    if end is None:
        return False
    rhs_kind, rest = end
    return _sequence_start(lhs) == rhs_kind and _is_increment(rest)


def _sequence_start(lhs: str) -> str | None:
    m = _SEQ_INT_RE.fullmatch(lhs)
    if m is not None and _in_range(m[1]):
        return "int"
    if len(lhs) == 1 and lhs.isascii() and lhs.isalpha():
        return "char"
    return None


def _sequence_end(rhs: str) -> tuple[str, str] | None:
    """(``int`` or ``char``, what follows it) for the end of a sequence."""
    if rhs[0] in _DIGITS or (rhs[0] in "+-" and rhs[1:2] in _DIGITS and len(rhs) > 1):
        m = _SEQ_RHS_INT_RE.match(rhs)
        if m is None or not _in_range(m[0]):
            return None
        rest = rhs[m.end() :]
        return None if rest and rest[0] != "." else ("int", rest)
    if rhs[0].isascii() and rhs[0].isalpha() and (len(rhs) == 1 or rhs[1] == "."):
        return "char", rhs[1:]
    return None


def _is_increment(rest: str) -> bool:
    """Nothing, or ``..N``."""
    if not rest:
        return True
    if not rest.startswith("..") or len(rest) == 2:
        return False
    m = _SEQ_INCR_RE.fullmatch(rest[2:])
    return m is not None and _in_range(m[1])


def _join_continuations(word: str) -> tuple[str, list[int]]:
    """The word as bash's reader sees it (backslash-newline outside single quotes removed)
    and, for each of its characters, the index in ``word``."""
    if "\\\n" not in word:
        return word, list(range(len(word)))
    kept: list[int] = []
    quoted = ""
    i = 0
    while i < len(word):
        c = word[i]
        if c == "\\" and quoted != "'":
            if word.startswith("\n", i + 1):
                i += 2
                continue
            kept.append(i)
            if i + 1 < len(word):
                kept.append(i + 1)
            i += 2
            continue
        if c == quoted:
            quoted = ""
        elif not quoted and c in "'\"":
            quoted = c
        kept.append(i)
        i += 1
    return "".join(word[k] for k in kept), kept


def brace_expansions(word: str) -> list[tuple[int, int]]:
    """Spans ``(start, end)`` of the brace expansions bash would perform in ``word`` (the
    raw text of one word, quotes included): the outermost of nested ones, left to right."""
    text, where = _join_continuations(word)
    found: list[tuple[int, int]] = []
    base = 0
    # bash rescans from every ``{`` that finds no partner, which is quadratic on input
    # such as ``{a,{a,{a,...``; past this budget the word is reported as it stands.
    budget = 32 * len(text) + 4096
    while "," in text or ".." in text:  # without either, nothing can expand
        i = 0
        while True:
            start = _gobble(text, i, "{")
            if start == -1:
                return [(where[s], where[e - 1] + 1) for s, e in found]
            end = _gobble(text, start + 1, "}")
            if end != -1:
                break
            budget -= len(text) - start
            if budget < 0:
                found.append((base + start, base + len(text)))
                return [(where[s], where[e - 1] + 1) for s, e in found]
            i = start + 1
        amble = text[start + 1 : end]
        if _has_separator(amble) or _is_sequence(amble):
            found.append((base + start, base + end + 1))
        # bash expands what follows the braces on its own (the postamble)
        base += end + 1
        text = text[end + 1 :]
    return [(where[s], where[e - 1] + 1) for s, e in found]
