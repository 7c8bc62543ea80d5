#!/bin/sh
# Show the notes that contain a text, ignoring case.
# Usage: search-notes.sh [--] TEXT
# The text is matched as a fixed string (never a pattern).
set -eu

if [ "${1:-}" = "--" ]; then
    shift
fi
text="$*"
if [ -z "$text" ]; then
    echo "search-notes: nothing to look for" >&2
    exit 2
fi

file="${XDG_DATA_HOME:-$HOME/.local/share}/gibberish/notes.md"
if [ ! -f "$file" ]; then
    echo "No notes yet ($file does not exist)."
    exit 0
fi
grep -i -F -e "$text" -- "$file" || echo "No note contains '$text'."
