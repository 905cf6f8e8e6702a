#!/bin/sh
# A project's tool call command: call.sh NAME, the JSON arguments on stdin.
input=$(cat)
case "$1" in
echo) printf '{"tool": "%s", "args": %s, "dir": "%s"}\n' "$1" "$input" "$PWD" ;;
fail) echo "partial output"; echo "it broke" >&2; exit 3 ;;
killed) kill -9 $$ ;;
warn) echo '{"ok": true}'; echo "deprecated" >&2 ;;
hang) sleep 300 & echo $! > hang.pid; wait ;;
*) echo "unknown tool $1" >&2; exit 2 ;;
esac
