#!/usr/bin/env bash
# make fuzz-smoke / make fuzz: every Go fuzz target of the module, each
# `func FuzzX(f *testing.F)` of a _test.go file, found by reading the
# files (no build needed to list them), so a new target joins without a
# list to keep. Go fuzzes one target per `go test` invocation: each runs
# for FUZZTIME with one fuzzing worker and its unit tests skipped, its
# seeds and testdata/fuzz/FuzzX corpus first, FUZZJOBS of them at a time.
# A failing input is written to the package's testdata/fuzz/FuzzX (commit
# it with the fix) and the target's output shown; new interesting inputs
# stay in Go's cache.
#   FUZZTIME          how long each target runs (3s; a count such as 1000x)
#   FUZZMINIMIZETIME  how long a new input is minimised (1x: hardly at all,
#                     so a short run spends its time fuzzing)
#   FUZZJOBS          targets run at once (the number of CPUs)
#   FUZZ              a regexp of the targets to run (all)
set -euo pipefail
cd "$(dirname "$0")/.."

export FUZZTIME=${FUZZTIME:-3s} FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-1x}
jobs=${FUZZJOBS:-$(getconf _NPROCESSORS_ONLN)}
only=${FUZZ:-.}

# "./dir FuzzX" for each target, in the order of the tree.
targets=$(git ls-files --cached --others --exclude-standard -- '*_test.go' ':!:internal/geminicli/npm' |
	sort -u | sed 's#^#./#' |
	xargs grep -HoE '^func Fuzz[A-Za-z0-9_]*\([A-Za-z_][A-Za-z0-9_]* \*testing\.F\)' |
	sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#\1 \2#' |
	awk -v only="$only" '$2 ~ only')

# fuzz_one runs one target, saying only how it went unless it failed.
# Go's fuzzing coordinator can itself fail a run whose time ran out while
# a worker was busy ("context deadline exceeded", no input at fault: seen
# on a loaded machine, twice in a row for one target in CI); such a run is
# tried again, up to three times in all, and said so. A real finding
# writes its input ("Failing input written to") and is never tried again.
fuzz_one() {
	local log try
	log=$(mktemp)
	for try in 1 2 3; do
		if go test -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZETIME" -parallel 1 "$1" >"$log" 2>&1; then
			local execs
			execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1)
			echo "fuzz: ok $2 ($1): ${execs:-its corpus alone, no time left to fuzz}"
			rm -f "$log"
			return 0
		fi
		if [[ $try != 3 ]] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written to' "$log"; then
			echo "fuzz: $2 ($1): the fuzzing coordinator's time ran out with no failing input; trying again"
			continue
		fi
		break
	done
	echo "fuzz: FAIL $2 ($1)"
	cat "$log"
	rm -f "$log"
	return 1
}
export -f fuzz_one

start=$SECONDS
count=$(grep -c . <<<"$targets" || true)
echo "fuzz: $count targets, $FUZZTIME each, $jobs at a time"
status=0
xargs -P "$jobs" -L 1 bash -c 'fuzz_one "$@"' _ <<<"$targets" || status=1
echo "fuzz: $count targets in $((SECONDS - start)) s"
exit $status
