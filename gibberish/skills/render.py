"""Turn a tool's template and a set of arguments into an argv (docs/adr/0007-placeholders-and-values.md).

Pure: no process is started and the filesystem is not read. Values are substituted
*after* the template was split into words, so a value is always exactly one argument
(an array whose placeholder is a whole word gives one argument per item) and nothing in
a value is ever interpreted — not spaces, quotes, ``$``, ``*``, ``;`` or ``~``.

Every problem a caller can cause is a :class:`RenderError` whose message names the
parameter and says what was expected, because it ends up in front of a person (or a
model that has to correct its call).

Decisions beyond docs/adr/0007-placeholders-and-values.md:

* A value of ``None`` means "not given". The caller's value wins over the Parameters
  table default, which wins over a ``{{x:default}}``.
* An array with ``{{x:--tag}}`` repeats the flag per item (``--tag a --tag b``); with
  ``{{x:--tag=}}`` each item is one ``--tag=item`` argument.
* The ``-`` guard covers text values (strings, array items) the caller sent; numbers
  (``-5`` is a number, not an option) and the author's own defaults are exempt. In a
  longer word it checks the word as assembled: when any caller value is in it and it
  starts with ``-`` (``{{n}}{{s}}`` with -1 and ``rf`` gives ``-1rf``; ``{{v}}-x`` with an
  empty value gives ``-x``), it is refused, unless the template word itself starts with
  a literal ``-`` (``--name={{v}}``) or every caller value in it is a number and the word
  is a number (``{{a}}{{b}}`` gives ``-12``). ``+`` and ``@`` are not guarded: ``+1``
  is a common number and ``@file``/``+cmd`` are forms only some programs read (see
  docs/skill-format.md).
* Inside an ``http(s)://`` URL (anywhere in a word, as in ``--url=https://...``), values
  after the first ``?`` or ``#`` are percent-encoded whole (``quote(v, safe="")``), values
  in the path too, so that a value stays one path segment (``/`` becomes ``%2F``; a value
  that is only dots becomes ``%2E``s), and a value in the host part is refused (the
  template parser already rejects it).
* ``~/`` at the start of a word written in the template means home even if the author
  quoted it: there is no shell here, so quoting it to keep a literal ``~`` is not a thing
  anyone means.
* An integer accepts a whole float (``5.0``, as JSON often has it); a number given as text
  is passed on in Python's canonical spelling (``"1e3"`` becomes ``1000.0``).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import quote

from gibberish.lazy import lazy_pattern
from gibberish.skills.model import (
    Literal,
    ParameterDefinition,
    ParameterType,
    Placeholder,
    PlaceholderKind,
    TemplateWord,
    ToolDefinition,
)

__all__ = ["RenderError", "coerce_value", "render", "url_parts"]


class RenderError(ValueError):
    """An argument cannot be turned into a command line; ``message`` says why."""

    def __init__(self, message: str, parameter: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.parameter = parameter


_INT_RE = lazy_pattern(r"[+-]?[0-9]+")
_NUMBER_RE = lazy_pattern(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _no_nul(param: ParameterDefinition, text: str, what: str = "") -> str:
    if "\x00" in text:
        raise RenderError(
            f"The value for '{param.name}'{what} contains a NUL byte (\\0), which no "
            "command-line argument can hold. Remove it.",
            param.name,
        )
    return text


def coerce_value(param: ParameterDefinition, value: object) -> object:
    """Check ``value`` against the parameter's type and return it in canonical form.

    integer -> int, number -> int or float, boolean -> bool, array -> list[str],
    string -> str. Raises :class:`RenderError` naming the parameter otherwise.
    """
    value = _COERCE.get(param.type, _to_string)(param, value)
    if param.minimum is not None or param.maximum is not None:
        _check_range(param, value)
    return value


def _check_range(param: ParameterDefinition, value: object) -> None:
    """``integer 1..100``: a number outside the range is refused (``git log -n -5`` would
    print every commit)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return
    low, high = param.minimum, param.maximum
    if (low is None or value >= low) and (high is None or value <= high):
        return
    if low is not None and high is not None:
        allowed = f"between {low} and {high}"
    else:
        allowed = f"at least {low}" if low is not None else f"at most {high}"
    raise RenderError(
        f"Parameter '{param.name}' must be {allowed}, got {_show(value)}.", param.name
    )


def _exact_int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:  # more digits than Python converts
        return None


def _to_integer(param: ParameterDefinition, value: object) -> object:
    result: int | None = None
    if isinstance(value, bool):
        pass
    elif isinstance(value, int):
        result = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        result = int(value)
    elif isinstance(value, str) and _INT_RE.fullmatch(value.strip()):
        result = _exact_int(value.strip())
    if result is None:
        raise RenderError(
            f"Parameter '{param.name}' expects an integer (a whole number such as 5), got "
            f"{_show(value)}.",
            param.name,
        )
    return result


def _number_from_text(text: str) -> int | float | None:
    if not _NUMBER_RE.fullmatch(text):
        return None
    if _INT_RE.fullmatch(text) and (exact := _exact_int(text)) is not None:
        return exact
    number = float(text)
    return number if math.isfinite(number) else None


def _to_number(param: ParameterDefinition, value: object) -> object:
    result: int | float | None = None
    if isinstance(value, bool):
        pass
    elif isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        result = value
    elif isinstance(value, str):
        result = _number_from_text(value.strip())
    if result is None:
        raise RenderError(
            f"Parameter '{param.name}' expects a number (such as 12 or 12.5), got {_show(value)}.",
            param.name,
        )
    return result


def _to_boolean(param: ParameterDefinition, value: object) -> object:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    word = value.strip().lower() if isinstance(value, str) else None
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise RenderError(
        f"Parameter '{param.name}' expects a boolean (true/false, yes/no or 1/0), got "
        f"{_show(value)}.",
        param.name,
    )


def _to_array(param: ParameterDefinition, value: object) -> object:
    name = param.name
    if isinstance(value, str):
        raise RenderError(
            f"Parameter '{name}' expects a list of strings, got the single text "
            f"{_show(value)}. Text is never split into items: pass a list such as "
            f"[{_show(value)}].",
            name,
        )
    if not isinstance(value, list | tuple):
        raise RenderError(
            f"Parameter '{name}' expects a list of strings, got {_show(value)}.", name
        )
    return [_array_item(param, index, item) for index, item in enumerate(value)]


def _array_item(param: ParameterDefinition, index: int, item: object) -> str:
    name = param.name
    if isinstance(item, str):
        return _no_nul(param, item, f" (item {index})")
    if not isinstance(item, int | float) or isinstance(item, bool):
        raise RenderError(
            f"Parameter '{name}' expects a list of strings, but item {index} is {_show(item)}.",
            name,
        )
    if isinstance(item, float) and not math.isfinite(item):
        raise RenderError(
            f"Item {index} of '{name}' is {item!r}, which is not a usable number.", name
        )
    return str(item)


def _to_string(param: ParameterDefinition, value: object) -> object:
    """Text (and the coercion for any type this module does not know yet)."""
    name = param.name
    if isinstance(value, str):
        return _no_nul(param, value)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise RenderError(f"Parameter '{name}' expects text, got {_show(value)}.", name)
    if isinstance(value, float) and not math.isfinite(value):
        raise RenderError(
            f"Parameter '{name}' expects text, got {value!r}, which is not a usable number.",
            name,
        )
    return str(value)


_COERCE: dict[ParameterType, Callable[[ParameterDefinition, object], object]] = {
    ParameterType.INTEGER: _to_integer,
    ParameterType.NUMBER: _to_number,
    ParameterType.BOOLEAN: _to_boolean,
    ParameterType.ARRAY: _to_array,
    ParameterType.STRING: _to_string,
}


def _text(value: object) -> str:
    """The argv text of a coerced scalar value; arrays are joined with spaces."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(value)
    return str(value)


_ABSENT = object()


class _Renderer:
    """Holds the resolved values of one call while the words are rendered."""

    def __init__(self, tool: ToolDefinition, args: Mapping[str, object], home: Path) -> None:
        self.tool = tool
        self.home = home
        self.params = {p.name: p for p in tool.parameters}
        self.values: dict[str, object] = {}
        self.from_caller: set[str] = set()
        for key in args:
            if key not in self.params:
                names = ", ".join(self.params) or "none"
                raise RenderError(
                    f"Tool '{tool.name}' has no parameter '{key}'. Its parameters are: {names}.",
                    key,
                )
        for p in tool.parameters:
            raw = args.get(p.name)
            if raw is not None:
                self.values[p.name] = coerce_value(p, raw)
                self.from_caller.add(p.name)
            elif p.default is not None:
                try:
                    self.values[p.name] = coerce_value(p, p.default)
                except RenderError as exc:
                    raise RenderError(
                        f"The default of '{p.name}' in the skill is invalid: {exc.message}",
                        p.name,
                    ) from None
            elif p.required:
                about = f" ({p.description})" if p.description else ""
                raise RenderError(
                    f"Missing required parameter '{p.name}' ({p.type.value}){about}.", p.name
                )

    def resolve(self, ph: Placeholder) -> tuple[ParameterDefinition, object, bool]:
        """(parameter, value or _ABSENT, whether the value came from the caller)."""
        param = self.params.get(ph.name)
        if param is None:
            raise RenderError(
                f"The command of '{self.tool.name}' uses {{{{{ph.name}}}}}, which is not one "
                "of its parameters; the skill needs fixing.",
                ph.name,
            )
        if ph.name in self.values:
            return param, self.values[ph.name], ph.name in self.from_caller
        if ph.kind is PlaceholderKind.DEFAULT:
            text = ph.modifier or ""
            try:
                value = coerce_value(param, [text] if param.type is ParameterType.ARRAY else text)
            except RenderError as exc:
                raise RenderError(
                    f"The default in {{{{{ph.name}:{text}}}}} is invalid: {exc.message}",
                    ph.name,
                ) from None
            return param, value, False
        return param, _ABSENT, False

    def guard(self, param: ParameterDefinition, text: str, guarded: bool) -> str:
        if guarded and text.startswith("-"):
            raise RenderError(
                f"The value for '{param.name}' ({_show(text)}) starts with '-', so the "
                f"program could read it as an option rather than as {param.name}; it was "
                "refused to prevent argument injection. If such values are legitimate, the "
                f"skill author can put a literal `--` before {{{{{param.name}}}}} in the "
                "command (most programs treat everything after `--` as plain arguments).",
                param.name,
            )
        return text

    def whole(self, ph: Placeholder, guarded: bool) -> list[str]:
        """A word that is exactly one placeholder: zero, one or several arguments."""
        param, value, caller = self.resolve(ph)
        if value is _ABSENT:
            return []
        check = guarded and caller
        if ph.kind is PlaceholderKind.FLAG:
            return self.flag(ph.modifier or "", param, value, check)
        if ph.kind is PlaceholderKind.FLAG_EQUALS:
            items = value if isinstance(value, list) else [_text(value)]
            return [(ph.modifier or "") + item for item in items]
        if isinstance(value, list):
            return [self.guard(param, item, check) for item in value]
        text = _text(value)
        if isinstance(value, str):
            self.guard(param, text, check)
        return [text]

    def flag(self, flag: str, param: ParameterDefinition, value: object, check: bool) -> list[str]:
        """``{{x:--flag}}``: the flag alone (boolean), or the flag before each value."""
        if param.type is ParameterType.BOOLEAN:
            return [flag] if value else []
        if isinstance(value, list):
            out: list[str] = []
            for item in value:
                out += [flag, self.guard(param, item, check)]
            return out
        text = _text(value)
        if isinstance(value, str):
            self.guard(param, text, check)
        return [flag, text]

    def word(self, word: TemplateWord, guarded: bool) -> list[str]:
        """One template word: no argument (absent value), one, or several (arrays)."""
        ph = word.whole_placeholder
        if ph is not None:
            return self.whole(ph, guarded)
        parts: list[str] = []
        url = url_parts(word)
        callers: list[tuple[ParameterDefinition, bool]] = []
        """Caller values in the word: (parameter, whether the value was text)."""
        for index, frag in enumerate(word.fragments):
            if isinstance(frag, Placeholder):
                text = self.fragment(frag, url[index] if url else "", callers)
                if text is None:
                    return []  # an absent optional value removes its whole word
            else:
                text = frag.text
                if index == 0:
                    text = _expand_home(text, self.home, whole=len(word.fragments) == 1)
            parts.append(text)
        joined = "".join(parts)
        if guarded and callers and joined.startswith("-"):
            self.guard_joined(word, joined, callers)
        return [joined]

    def fragment(
        self, frag: Placeholder, part: str, callers: list[tuple[ParameterDefinition, bool]]
    ) -> str | None:
        """The text of a placeholder inside a longer word; None when its value is absent."""
        param, value, caller = self.resolve(frag)
        if value is _ABSENT:
            return None
        if frag.kind in (PlaceholderKind.FLAG, PlaceholderKind.FLAG_EQUALS):
            raise RenderError(
                f"{{{{{frag.name}:{frag.modifier}}}}} must be a word on its own in the "
                f"command of '{self.tool.name}'; the skill needs fixing.",
                frag.name,
            )
        if caller:
            callers.append((param, isinstance(value, str | list)))
        return self.url_value(frag, _text(value), part)

    def guard_joined(
        self, word: TemplateWord, joined: str, callers: list[tuple[ParameterDefinition, bool]]
    ) -> None:
        """Refuse a word made with caller values that starts with ``-`` (unless written so)."""
        head = word.fragments[0]
        written = isinstance(head, Literal) and head.text.startswith("-")
        numeric = not any(is_text for _, is_text in callers) and _NUMBER_RE.fullmatch(joined)
        if written or numeric:
            return
        names = ", ".join(dict.fromkeys(f"'{p.name}'" for p, _ in callers))
        raise RenderError(
            f"The argument {_show(joined)}, made with the value of {names}, starts "
            "with '-', so the program could read it as an option; it was refused to "
            "prevent argument injection. If such values are legitimate, the skill "
            "author can put a literal `--` before it in the command (most programs "
            "treat everything after `--` as plain arguments).",
            callers[0][0].name,
        )

    def url_value(self, ph: Placeholder, text: str, part: str) -> str:
        """A value placed inside an ``http(s)://`` word, encoded for where it sits."""
        if ph.in_url_query or part == "query":
            return quote(text, safe="")
        if part == "path":
            text = quote(text, safe="")
            # a value may not step out of its path segment, not even as . or ..
            return "%2E" * len(text) if text and not text.strip(".") else text
        if part == "host":
            raise RenderError(
                f"The command of '{self.tool.name}' puts {{{{{ph.name}}}}} in the host part "
                "of a URL, where a value could send the request to another host; the skill "
                "needs fixing.",
                ph.name,
            )
        return text


_URL_START_RE = lazy_pattern(r"https?://", re.IGNORECASE)
_HOST_END_RE = lazy_pattern(r"[/?#]")
_PATH_END_RE = lazy_pattern(r"[?#]")


@functools.lru_cache(maxsize=2048)
def url_parts(word: TemplateWord) -> tuple[str, ...] | None:
    """Where each fragment of ``word`` sits in the URL the word contains: ``"host"``
    (from ``://`` to the next ``/``, ``?`` or ``#`` of an ``http(s)://`` URL, and any
    placeholder before a ``://`` that no blank separates from it: ``{{scheme}}://host``
    lets a value write the whole URL), ``"path"``, ``"query"`` (from the first ``?`` or
    ``#`` on), or ``""`` (before the URL, and for literal text). None when no literal of
    the word contains ``://``."""
    if not any(isinstance(f, Literal) and "://" in f.text for f in word.fragments):
        return None
    parts = _http_parts(word)
    before = _before_scheme(word)
    if not before:
        return parts
    return tuple(
        "host" if k in before else (parts[k] if parts else "") for k in range(len(word.fragments))
    )


def _http_parts(word: TemplateWord) -> tuple[str, ...] | None:
    parts: list[str] = []
    state = ""
    for frag in word.fragments:
        if isinstance(frag, Placeholder):
            parts.append(state)
            continue
        parts.append("")
        text = frag.text
        at = 0
        if not state:
            m = _URL_START_RE.search(text)
            if m is None:
                continue
            state, at = "host", m.end()
        if state == "host":
            m = _HOST_END_RE.search(text, at)
            if m is None:
                continue
            state, at = ("path" if m[0] == "/" else "query"), m.end()
        if state == "path" and _PATH_END_RE.search(text, at):
            state = "query"
    return tuple(parts) if state else None


def _before_scheme(word: TemplateWord) -> set[int]:
    """Placeholders that come before the word's first ``://`` with no blank between."""
    found: set[int] = set()
    pending: list[int] = []
    for k, frag in enumerate(word.fragments):
        if isinstance(frag, Placeholder):
            pending.append(k)
            continue
        at = frag.text.find("://")
        head = frag.text if at == -1 else frag.text[:at]
        if any(c.isspace() for c in head):
            pending.clear()
        if at != -1:
            found.update(pending)
            return found
    return found


def _expand_home(text: str, home: Path, *, whole: bool) -> str:
    """A leading ``~/`` (or a word that is just ``~``) written in the template means home."""
    if text.startswith("~/"):
        return str(home) + text[1:]
    if whole and text == "~":
        return str(home)
    return text


def render(
    tool: ToolDefinition,
    args: Mapping[str, object],
    *,
    skill_dir: Path,
    home: Path | None = None,
) -> list[str]:
    """The argv for calling ``tool`` with ``args``; raises :class:`RenderError`.

    ``None`` as a value means "not given". A ``./path`` program is resolved against
    ``skill_dir`` (made absolute); ``~/`` at the start of a literal word means ``home``
    (default: the user's home folder). Values never get either treatment.
    """
    template = tool.command
    if template is None or not template.words:
        raise RenderError(f"Tool '{tool.name}' has no command to run.")
    program = template.words[0]
    if not program.is_literal:
        raise RenderError(
            f"The program of '{tool.name}' contains a placeholder; a value may not choose "
            "the program."
        )
    renderer = _Renderer(tool, args, home if home is not None else Path.home())
    try:
        end_of_options = next(
            i
            for i, w in enumerate(template.words)
            if i > 0 and w.is_literal and w.literal_text == "--"
        )
    except StopIteration:
        end_of_options = len(template.words)

    program_text = program.literal_text
    if program_text.startswith("./"):
        base = skill_dir if skill_dir.is_absolute() else skill_dir.absolute()
        argv = [str(base / program_text[2:])]
    else:
        argv = [_expand_home(program_text, renderer.home, whole=True)]
    for index, word in enumerate(template.words[1:], start=1):
        argv.extend(renderer.word(word, guarded=index < end_of_options))
    return argv
