#!/usr/bin/env bash
# bench/before-after.sh REV: issue 66's table for the tree at REV and this
# one, in one run (docs/benchmarks.md, "Before and after, in one run").
# Both trees' binaries are measured by this tree's benchmarks, in turn,
# round after round, so that both meet the same load: spawn → initialize
# against a trivial server, the 8-call turn (warm and as a fresh process),
# the headless turn against Gemini CLI 0.61 (`make gemini-cli`) and
# among 1,000 saved sessions and in quick succession, and the soak. The sandbox's figure is this tree's BenchmarkSandboxedEcho, which
# times both paths itself: a bwrap per command (the path before the
# session) and the session's sandbox. About 25 minutes on 2 cores.
#
#   bench/before-after.sh b182b68a   # ROUNDS=2 N=60 HEADLESS_N=6 SAVED_N=10 QUICK_N=20 SANDBOX_N=100
#   SOAK=0 ROUNDS=1 N=3 HEADLESS_N=1 SAVED_N=1 QUICK_N=1 SANDBOX_N=3 bench/before-after.sh REV  # a quick look
#   KEEP=dir bench/before-after.sh REV  # keep each run's output and the soak reports
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: bench/before-after.sh REV}
ROUNDS=${ROUNDS:-2}
N=${N:-60}
HEADLESS_N=${HEADLESS_N:-6}
SAVED_N=${SAVED_N:-10}
QUICK_N=${QUICK_N:-20}
SANDBOX_N=${SANDBOX_N:-100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "before-after: $rev against $(git rev-parse --short HEAD); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir "$work/src"
git archive "$rev" | tar -x -C "$work/src"
(cd "$work/src" && CGO_ENABLED=0 go build -o "$work/before" ./cmd/gemini-ls)
CGO_ENABLED=0 go build -o "$work/after" ./cmd/gemini-ls
go test -c -o "$work/bench.test" ./bench

# measure TREE ROUND ARGS...: this tree's benchmarks against TREE's binary,
# appended to that round's output.
measure() {
	local tree=$1 round=$2
	shift 2
	(cd bench && GEMINI_LS_TEST_BINARY="$work/$tree" "$work/bench.test" -test.run '^$' "$@") \
		>>"$work/$tree-$round.txt" 2>&1 || { cat "$work/$tree-$round.txt"; exit 1; }
}
for round in $(seq "$ROUNDS"); do
	for tree in before after; do
		echo "round $round: $tree"
		measure "$tree" "$round" -test.bench 'SpawnToInitialize$|Turn8ToolCalls$|Turn8ToolCallsFreshProcess$' -test.benchtime "${N}x"
		measure "$tree" "$round" -test.bench 'HeadlessVsGeminiCLI$' -test.benchtime "${HEADLESS_N}x"
		measure "$tree" "$round" -test.bench 'HeadlessAmongSavedSessions$' -test.benchtime "${SAVED_N}x"
		measure "$tree" "$round" -test.bench 'HeadlessInQuickSuccession$' -test.benchtime "${QUICK_N}x"
	done
	measure after "$round" -test.bench 'SandboxedEcho$' -test.benchtime "${SANDBOX_N}x"
done
for tree in before after; do
	[ "${SOAK:-1}" = 1 ] || break
	echo "soak: $tree"
	mkdir -p "$work/soak-$tree"
	GEMINI_LS_SOAK=1 GEMINI_LS_SOAK_REPORT="$work/soak-$tree/soak.md" measure "$tree" 1 -test.bench 'Soak(LSP|ACP|ACPLeftOpen)$' -test.benchtime 1x -test.timeout 60m
done
echo
list() { ls "$work/$1"-*.txt | paste -sd, -; }
go run ./bench/benchcheck -before "$(list before)" -after "$(list after)"
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP" && cp -r "$work"/*.txt "$work"/soak-* "$KEEP"/ 2>/dev/null || true
	echo "runs kept in $KEEP"
fi
