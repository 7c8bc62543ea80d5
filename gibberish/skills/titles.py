"""A skill's or a tool's name as a person reads it: ``git_log`` → "Git log".

Here, below every front end, so that the sentences the trust layer writes (the approval's
reason, shown by the tray and the command line alike) name a tool by its title, as the
menu, the command bar and the form do, and keep the identifier for the *Details*.
"""

from __future__ import annotations


def title(name: str) -> str:
    """``git_log`` → "Git log", ``list-large`` → "List large" (the name when it has no word)."""
    words = name.replace("_", " ").replace("-", " ").split()
    if not words:
        return name
    text = " ".join(words)
    return text[0].upper() + text[1:]
