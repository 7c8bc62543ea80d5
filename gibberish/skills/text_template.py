"""A command template known by its text alone, its words parsed when first needed.

The parse cache stores every template this way (docs/performance.md, "The parse cache keeps command templates as text"):
a warm load of 1,000 skills used to restore some 27,000 word, fragment and tuple objects
for 5,000 templates, more than half of all it restored, though almost no template is
looked at in a process (rendering a run, fingerprinting a skill). A template's words
are a pure function of its text, and the parser's code is part of the cache's stamp, so
parsing the text again gives the words the first parse gave. The parser is imported
only then: a start the cache answers imports none of it.
"""

from __future__ import annotations

from typing import Any

from gibberish.skills.model import CommandTemplate, TemplateWord


class TextTemplate(CommandTemplate):
    """Equal to the :class:`CommandTemplate` a parse of the same text and line gives."""

    __slots__ = ()

    def __init__(self, source: str, line: int | None = None) -> None:
        super().__init__(source, None, line)

    def __reduce__(self) -> tuple[Any, ...]:
        return as_text(self)

    @property
    def words(self) -> tuple[TemplateWord, ...]:
        words = self._words
        if words is None:
            from gibberish.skills.templates import template_words  # the parser, when needed

            words = template_words(self.source)
            object.__setattr__(self, "_words", words)
        return words


def as_text(template: CommandTemplate) -> tuple[Any, ...]:
    """How a pickler stores ``template``: its text and line, restored by ``from_text``."""
    return (from_text, (template.source, template.line))


def from_text(source: str, line: int | None) -> TextTemplate:
    """A :class:`TextTemplate` of ``source`` and ``line``, restored from a pickle: only a
    text and a line number (or None) are taken."""
    if not isinstance(source, str) or not (line is None or type(line) is int):
        raise TypeError("a command template is restored from its text and line")
    template = _new(TextTemplate)
    _set(template, "source", source)
    _set(template, "_words", None)
    _set(template, "line", line)
    return template


_new = object.__new__
_set = object.__setattr__
