#!/bin/sh
# Hand a web address to the desktop's default browser.
#
# gibberish ends every process a run leaves behind when the run ends, so a browser
# started as our child would close at once. systemd-run --user starts the opener in the
# user's session instead, where it outlives this run; without systemd, xdg-open is run
# directly (fine when the browser is already open: it only passes the address on).
set -u
url=${1:-}
case "$url" in
  http://*|https://*) ;;
  *) echo "Not a web address: '$url'. It must start with https:// or http://." >&2; exit 2 ;;
esac
if command -v systemd-run >/dev/null 2>&1 \
  && systemd-run --user --quiet --collect -- xdg-open "$url" 2>/dev/null; then
  echo "Opened $url"
  exit 0
fi
if ! command -v xdg-open >/dev/null 2>&1; then
  echo "xdg-open is not installed; install xdg-utils to open web pages." >&2
  exit 127
fi
xdg-open "$url" && echo "Opened $url"
