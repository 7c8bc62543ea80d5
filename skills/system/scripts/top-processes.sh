#!/bin/sh
# List the processes using the most CPU or memory.
# Usage: top-processes.sh [cpu|mem] [count]
# A script because limiting the list needs a pipe, which a skill command cannot hold.
set -eu

sort_by="${1:-cpu}"
count="${2:-10}"

case "$sort_by" in
    cpu) key=-pcpu ;;
    mem) key=-rss ;;
    *)
        echo "top-processes: sort by 'cpu' or 'mem', not '$sort_by'" >&2
        exit 2
        ;;
esac
case "$count" in
    '' | *[!0-9]*)
        echo "top-processes: count must be a whole number, not '$count'" >&2
        exit 2
        ;;
esac
if [ "$count" -lt 1 ] || [ "$count" -gt 100 ]; then
    echo "top-processes: count must be between 1 and 100" >&2
    exit 2
fi

# One header line plus $count processes.
ps -eo pid,user,pcpu,pmem,rss,etime,comm --sort="$key" | head -n "$((count + 1))"
