"""What a record's hash leaves out, said once for every record that needs it.

A dataclass field could be kept out of the hash (``hash=False``, ``compare=False``); a
msgspec Struct has no word for that (docs/adr/0100). A record whose fields include a
list or a mapping (a parameter's default, a skill's other frontmatter) sets
``__hash__ = hash_without("default")``: the hash reads every other field, found from the
class itself, so a field added later is hashed too.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any


def hash_without(*left_out: str) -> Callable[[Any], int]:
    """A ``__hash__`` over every field of the record but ``left_out``."""
    keys: dict[type, Callable[[Any], Any]] = {}

    def __hash__(self: Any) -> int:
        key = keys.get(type(self))
        if key is None:
            names = [n for n in type(self).__struct_fields__ if n not in left_out]
            key = keys[type(self)] = attrgetter(*names)
        return hash(key(self))

    return __hash__
