"""Quote removal for one template word, done by us rather than by bashlex or shlex.

bashlex's ``WordNode.word`` flattens mixed quoting such as ``a"b c"'d'`` inconsistently,
and ``shlex`` follows POSIX rules that differ from bash in corners (and DESIGN §4 rules it
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

_NEEDS_WORK = re.compile(r"['\"\\]")
_TOKEN = re.compile(
    r"""'(?P<sq>[^']*)'?"""  # single-quoted: literal (a missing close quote is tolerated)
    r"""|"(?P<dq>[^"\\]*+(?:\\[\s\S][^"\\]*+)*+)"?"""  # double-quoted: escapes handled below
    r"""|\\(?P<esc>[\s\S]?)"""  # unquoted backslash escape (or a lone trailing backslash)
    r"""|(?P<plain>[^'"\\]+)"""
)
_DQ_ESCAPE = re.compile(r'\\([$`"\\\n])')


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
