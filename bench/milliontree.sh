#!/usr/bin/env bash
# Builds the synthetic tree of a million files (bench/milliontree) under
# DIR, /tmp/million-tree by default, and prints where it is; then runs
# the million-file benchmarks over it (docs/benchmarks.md, "A million
# files") unless BUILD_ONLY is set. Building takes about 20 s and 470 MB
# of disk; a tree already built is reused. Not part of `make test`.
#
#   bench/milliontree.sh [DIR]
#   BUILD_ONLY=1 bench/milliontree.sh /tmp/million-tree
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${1:-/tmp/million-tree}
tree=$(go run ./bench/milliontree "$dir")
echo "tree: $tree ($(df -h --output=avail "$tree" | tail -1 | tr -d ' ') free there)"
if [ -n "${BUILD_ONLY:-}" ]; then
	exit 0
fi
GEMINI_LS_MILLION_TREE=$tree go test -run '^$' -bench MillionFiles -benchtime 1x -count 1 -timeout 60m ./bench/
