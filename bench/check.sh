#!/usr/bin/env bash
# make bench-check: runs the benchmarks behind the figures docs/benchmarks.md
# follows ("Guarding the figures"), and compares each with its previous value
# in bench/figures.json: a figure more than 20% worse is flagged REGRESSION,
# a task's tokens (BenchmarkTokens, against Gemini CLI 0.61 when it is
# installed) more than 5% more, and the exit status is then 1. Not part of CI's pass/fail (the machine's
# load moves the times); run it before each release. About 4 minutes on 2
# cores, most of it the soak (BenchmarkSoakLSP, BenchmarkSoakACP).
#
#   bench/check.sh            # compare with bench/figures.json
#   UPDATE=1 bench/check.sh   # and take this run's figures as the new ones
#   N=100 bench/check.sh      # more iterations of the spawn and turn benchmarks
#   TOKENS=0 bench/check.sh   # without the token tasks (~10 minutes with 0.61)
#   SOAK=short bench/check.sh # the soak's -short size (its figures then
#                             # compare 300 prompts with 2,000: a quick look only)
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-60}
SANDBOX_N=${SANDBOX_N:-100}
UPDATE=${UPDATE:-0}
SOAK=${SOAK:-full}
out=$(mktemp)
reports=$(mktemp -d)
trap 'rm -rf "$out" "$reports"' EXIT

machine="$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'), $(go version | cut -d' ' -f3)"
echo "bench-check: $machine"

# bench ARGS...: echo and run one go test -bench command into the log.
bench() {
	# Quoted, so that the line can be pasted into a shell.
	printf "$ go test -run '^\$' -count 1"
	printf ' %q' "$@"
	echo
	local status=0
	go test -run '^$' -count 1 "$@" >>"$out" 2>&1 || status=$?
	if [ "$status" -ne 0 ]; then
		cat "$out"
		echo "bench-check: a benchmark failed (above)" >&2
		exit "$status"
	fi
}
bench -bench 'SpawnToInitialize$|Turn8ToolCalls$|Turn8ToolCallsFreshProcess$' -benchtime "${N}x" ./bench/
bench -bench 'HeadlessAmongSavedSessions$' -benchtime 20x ./bench/
bench -bench 'HeadlessInQuickSuccession$' -benchtime 30x ./bench/
bench -bench 'SandboxVsBareBwrap$' -benchtime "${SANDBOX_N}x" ./bench/
if [ "${TOKENS:-1}" != 0 ]; then
	bench -bench '^BenchmarkTokens$' -benchtime 1x -timeout 60m ./bench/
fi
short=
[ "$SOAK" = short ] && short=-short
GEMINI_LS_SOAK=1 GEMINI_LS_SOAK_REPORT="$reports/soak.md" bench $short -bench 'Soak(LSP|ACP|ACPLeftOpen)$' -benchtime 1x -timeout 60m ./bench/
cat "$reports"/soak-*.md
echo

update=()
[ "$UPDATE" = 1 ] && update=(-update -commit "$(git rev-parse --short HEAD)" -machine "$machine")
go run ./bench/benchcheck -figures bench/figures.json "${update[@]}" <"$out"
