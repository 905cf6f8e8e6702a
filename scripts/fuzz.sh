#!/usr/bin/env bash
# make fuzz-smoke / make fuzz: every Go fuzz target of the module (each
# func FuzzX(*testing.F) in a _test.go file), found by `go test -list`, so
# a new target joins without a list to keep. Go fuzzes one target per
# `go test` invocation: each runs for FUZZTIME with its unit tests skipped,
# one after the other, its seeds and testdata/fuzz/FuzzX corpus first.
# A failing input is written to the package's testdata/fuzz/FuzzX (commit
# it with the fix); new interesting inputs stay in Go's cache.
#   FUZZTIME          how long each target runs (3s; a count such as 1000x)
#   FUZZMINIMIZETIME  how long a new input is minimised (1x: hardly at all,
#                     so a short run spends its time fuzzing)
#   FUZZ              a regexp of the targets to run (all)
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-3s}
minimize=${FUZZMINIMIZETIME:-1x}
only=${FUZZ:-.}

# `go test -list` prints a package's matching names, then its "ok" line.
targets=$(go test -list '^Fuzz' ./... | awk '
	/^Fuzz/ { names = names " " $1; next }
	/^ok/   { if (names != "") print $2 names; names = "" }')

failed=()
count=0
start=$SECONDS
while read -r pkg names; do
	for name in $names; do
		[[ $name =~ $only ]] || continue
		count=$((count + 1))
		echo "fuzz: $name ($pkg) for $fuzztime"
		if ! go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "$pkg"; then
			failed+=("$name ($pkg)")
		fi
	done
done <<<"$targets"

echo "fuzz: $count targets in $((SECONDS - start)) s"
if ((${#failed[@]})); then
	printf 'fuzz: FAILED %s\n' "${failed[@]}"
	exit 1
fi
