#!/bin/sh
# Show the last notes of the gibberish notes file.
# Usage: read-notes.sh [count]
set -eu

count="${1:-20}"
case "$count" in
    '' | *[!0-9]*)
        echo "read-notes: count must be a whole number, not '$count'" >&2
        exit 2
        ;;
esac

file="${XDG_DATA_HOME:-$HOME/.local/share}/gibberish/notes.md"
if [ ! -f "$file" ]; then
    echo "No notes yet ($file does not exist)."
    exit 0
fi
tail -n "$count" -- "$file"
