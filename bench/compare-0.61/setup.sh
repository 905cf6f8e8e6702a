# Sourced by models.sh and hooks.sh: checks that $1 is an installed
# @google/gemini-cli package (the directory with bundle/gemini.js), sets
# gcli to its bundle, moves to the repository's root, makes the temporary
# directory tmp (removed at exit unless KEEP=1) and builds fakegemini and
# gemini-ls into it.
if [ $# -ne 1 ] || [ ! -f "$1/bundle/gemini.js" ]; then
	echo "usage: $0 PATH/TO/@google/gemini-cli (the directory with bundle/gemini.js)" >&2
	exit 2
fi
gcli=$(cd "$1" && pwd)/bundle/gemini.js
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "kept in $tmp" >&2; else trap 'rm -rf "$tmp"' EXIT; fi

go build -o "$tmp/fakegemini" ./internal/agent/geminitest/cmd/fakegemini
go build -o "$tmp/gemini-ls" ./cmd/gemini-ls
