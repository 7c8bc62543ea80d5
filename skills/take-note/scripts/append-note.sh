#!/bin/sh
# Append one dated line to the gibberish notes file.
# Usage: append-note.sh [--] TEXT...
# The text is written as-is (never interpreted); line breaks become spaces so that
# every note stays one Markdown list item.
set -eu

if [ "${1:-}" = "--" ]; then
    shift
fi
text=$(printf '%s' "$*" | tr '\r\n' '  ')
if [ -z "$(printf '%s' "$text" | tr -d ' \t')" ]; then
    echo "append-note: nothing to write" >&2
    exit 2
fi

dir="${XDG_DATA_HOME:-$HOME/.local/share}/gibberish"
file="$dir/notes.md"
mkdir -p -- "$dir"
printf -- '- %s %s\n' "$(date '+%Y-%m-%d %H:%M')" "$text" >>"$file"
echo "Noted in $file"
