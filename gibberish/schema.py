"""Typed keys of ``config.toml``: each table is a tuple of :class:`Key`, read one way.

A feature declares its own table (``assistant.settings.MODEL_TABLE``,
``voice.settings.VOICE_TABLE``) and ``gibberish.settings`` composes them, the way
``skills/frontmatter.py`` composes its field checkers. A file a person edited by hand
can hold anything TOML allows, so every check takes any value: a wrong one becomes a
notice naming the key, the value and what is allowed (and the default is kept); a key
nobody declared becomes a notice too, with the closest known name when it looks like a
typo. Reading a table never raises.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

from msgspec import Struct, field


class Invalid(Exception):
    """Raised by a check: the value is not allowed."""


Check = Callable[[Any], Any]
"""Takes a value from the file, returns it as stored, or raises :class:`Invalid`."""


class Key(Struct, frozen=True):
    name: str
    allowed: str
    """What is allowed, in words, for the notice: "true or false", "0 to 60 seconds"."""
    check: Check
    table: Table | None = None
    """For a sub-table: its keys; ``check`` then builds the value from the valid ones."""


def boolean(name: str) -> Key:
    def check(value: Any) -> bool:
        if not isinstance(value, bool):
            raise Invalid
        return value

    return Key(name, "true or false", check)


def text(name: str, allowed: str = "a text in quotes") -> Key:
    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise Invalid
        return value

    return Key(name, allowed, check)


def number(name: str, low: float, high: float, unit: str = "", *, whole: bool = False) -> Key:
    """A number from ``low`` to ``high`` (a whole one when ``whole``); ``true`` is not 1."""
    kind = "a whole number" if whole else "a number"
    allowed = f"{kind} from {low:g} to {high:g}{' ' + unit if unit else ''}"

    def check(value: Any) -> float | int:
        accepted = int if whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, accepted):
            raise Invalid
        if not low <= value <= high:
            raise Invalid
        return value if whole else float(value)

    return Key(name, allowed, check)


def choice(name: str, options: type[Enum]) -> Key:
    """One of an enum's values; stored as the enum member."""
    values = [str(member.value) for member in options]

    def check(value: Any) -> Enum:
        if not isinstance(value, str) or value not in values:
            raise Invalid
        return options(value)

    return Key(name, "one of " + ", ".join(repr(v) for v in values), check)


def text_list(name: str, allowed: str = "a list of texts in quotes") -> Key:
    def check(value: Any) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise Invalid
        return tuple(value)

    return Key(name, allowed, check)


def custom(name: str, allowed: str, check: Check) -> Key:
    """A key with its own check (which may also raise ``ValueError`` or ``TypeError``)."""
    return Key(name, allowed, check)


def section(table: Table, build: Callable[..., Any]) -> Key:
    """A sub-table (``[model]``): its keys are read one by one, ``build(**valid)`` kept."""
    return Key(table.section, "a table", lambda valid: build(**valid), table)


def show(value: Any) -> str:
    """A value as the notice quotes it: TOML-like and never endless."""
    text_ = repr(value)
    return text_ if len(text_) <= 80 else text_[:77] + "..."


class Table(Struct, frozen=True):
    """The keys of one TOML table; ``section`` is its dotted name ("" for the top)."""

    section: str
    keys: tuple[Key, ...]
    refused: Mapping[str, str] = field(default_factory=dict)
    """Keys read nowhere on purpose, and the sentence that says why (``model.api_key``)."""

    def dotted(self, key: str) -> str:
        return f"{self.section}.{key}" if self.section else key

    def read(self, raw: Any, where: str, notices: list[str]) -> dict[str, Any]:
        """The valid values of ``raw``; a notice in ``notices`` for everything else."""
        if not isinstance(raw, dict):
            notices.append(
                f"{where}: [{self.section}] must be a table, not {show(raw)}; using the defaults."
            )
            return {}
        by_name = {k.name: k for k in self.keys}
        values: dict[str, Any] = {}
        for name, value in raw.items():
            key = by_name.get(name)
            if key is None:
                notices.append(self._unknown(name, where))
                continue
            if key.table is not None:
                values[name] = key.check(key.table.read(value, where, notices))
                continue
            try:
                values[name] = key.check(value)
            except (Invalid, ValueError, TypeError):
                notices.append(
                    f"{where}: {self.dotted(name)} = {show(value)} is not valid; "
                    f"allowed: {key.allowed}. Using the default."
                )
        return values

    def _unknown(self, name: str, where: str) -> str:
        refused = self.refused.get(name)
        if refused:
            return f"{where}: {self.dotted(name)} {refused}"
        known = [k.name for k in self.keys]
        import difflib  # only for a name that is not known

        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f" (did you mean {self.dotted(close[0])}?)" if close else ""
        return (
            f"{where}: unknown setting {self.dotted(str(name))} ignored{hint}; "
            f"known: {', '.join(known)}."
        )
