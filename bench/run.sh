#!/usr/bin/env bash
# Runs gemini-ls's benchmarks (docs/benchmarks.md) and prints the figures
# next to their targets. Nothing here passes or fails on time: the exit
# status is non-zero only if a benchmark could not run.
#
#   bench/run.sh            # about four minutes on 2 cores
#   N=200 EDIT_N=50 bench/run.sh
#   COMPLETION=0 bench/run.sh   # without the completion benchmarks (1 min)
#   COMPLETION=only bench/run.sh  # the completion benchmarks alone (4 min)
#
# N is the iteration count of the spawn and turn benchmarks, EDIT_N of the
# 20,000-line edit (the fake model and lsptest's editor keep every 1.2 MB
# request and update they see, so with many more iterations the benchmark
# process's own garbage collection starts to show in the figures).
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-100}
EDIT_N=${EDIT_N:-30}
# COMPLETION_N is the iteration count of the completion overhead and
# assembly benchmarks, REPLAY_N of the typing session's replays (47 s
# each, three editors).
COMPLETION=${COMPLETION:-1}
COMPLETION_N=${COMPLETION_N:-300}
REPLAY_N=${REPLAY_N:-1}
out=$(mktemp)
step=$(mktemp)
trap 'rm -f "$out" "$step"' EXIT

echo "gemini-ls benchmarks: $(go version | cut -d' ' -f3-), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo

# run CMD...: echo and run a go test command, keep its output for the
# summary, show its result lines, and fail if it failed.
run() {
	echo "\$ $*"
	local status=0
	"$@" >"$step" 2>&1 || status=$?
	cat "$step" >>"$out"
	if [ "$status" -ne 0 ]; then
		cat "$step"
		return "$status"
	fi
	grep -E '^(Benchmark|ok)' "$step" || true
}
if [ "$COMPLETION" != only ]; then
	run go test -run '^$' -bench 'SpawnToInitialize|Turn8ToolCalls|HeadlessRun8ToolCalls' -benchtime "${N}x" -count 1 ./bench/
	run go test -run '^$' -bench 'WriteFile50ChangesOn20000Lines' -benchtime "${EDIT_N}x" -count 1 ./bench/
	run go test -run '^$' -bench '50On20000Lines' -count 1 ./internal/workspace/
fi
if [ "$COMPLETION" != 0 ]; then
	run go test -run '^$' -bench 'InlineCompletionOverhead/server=process|CompletionContextAssembly' -benchtime "${COMPLETION_N}x" -count 1 ./bench/
	run go test -run '^$' -bench 'CompletionLiveHeap' -benchtime 3x -count 1 ./bench/
	# The replay fails on a stale suggestion or a superseded request not
	# aborted; its figures are still wanted, and the exit status says so.
	run go test -run '^$' -bench 'TypingReplay' -benchtime "${REPLAY_N}x" -count 1 ./bench/ || replay_failed=1
fi

# metric BENCH UNIT: the value of UNIT on BENCH's result line.
metric() {
	awk -v bench="$1" -v unit="$2" '
		$1 ~ "^"bench"(-[0-9]+)?$" { for (i = 3; i < NF; i++) if ($(i+1) == unit) { print $i; exit } }
	' "$out"
}
nsms() { awk -v ns="$1" 'BEGIN { printf "%.2f", ns / 1e6 }'; }

row() { printf '%-52s %10s %10s %10s  %s\n' "$@"; }
if [ "$COMPLETION" != only ]; then
echo
printf '%-52s %10s %10s %10s  %s\n' "target" "median" "p90" "max" "goal"
row "1. spawn -> initialize result (ms)" \
	"$(metric BenchmarkSpawnToInitialize init-median-ms)" \
	"$(metric BenchmarkSpawnToInitialize init-p90-ms)" \
	"$(metric BenchmarkSpawnToInitialize init-max-ms)" "<= 15"
row "   same, trivial Go LSP server (ms)" \
	"$(metric BenchmarkSpawnToInitialize trivial-init-median-ms)" "" "" ""
row "   gemini-ls / trivial server, per iteration (ratio)" \
	"$(metric BenchmarkSpawnToInitialize init-ratio-median)" \
	"$(metric BenchmarkSpawnToInitialize init-ratio-p90)" "" "<= 1.5"
row "   trivial server linking genai / trivial (ratio)" \
	"$(metric BenchmarkSpawnToInitialize genai-floor-ratio-median)" "" "" ""
row "   trivial server linking every dependency / trivial" \
	"$(metric BenchmarkSpawnToInitialize deps-floor-ratio-median)" "" "" ""
row "   peak RSS after initialize: gemini-ls (MiB)" \
	"$(metric BenchmarkSpawnToInitialize rss-median-MB)" "" "" ""
row "   same, the trivial server (MiB)" \
	"$(metric BenchmarkSpawnToInitialize trivial-rss-median-MB)" "" "" ""
row "   same, the trivial server linking genai (MiB)" \
	"$(metric BenchmarkSpawnToInitialize genai-floor-rss-median-MB)" "" "" ""
row "   same, the trivial server linking every dependency" \
	"$(metric BenchmarkSpawnToInitialize deps-floor-rss-median-MB)" "" "" ""
row "2. 8-call turn: non-model time per call (ms)" \
	"$(metric BenchmarkTurn8ToolCalls overhead/call-median-ms)" \
	"$(metric BenchmarkTurn8ToolCalls overhead/call-p90-ms)" \
	"$(metric BenchmarkTurn8ToolCalls overhead/call-max-ms)" "<= 5"
row "   same, first prompt of a fresh process (ms)" \
	"$(metric BenchmarkTurn8ToolCallsFreshProcess overhead/call-median-ms)" \
	"$(metric BenchmarkTurn8ToolCallsFreshProcess overhead/call-p90-ms)" \
	"$(metric BenchmarkTurn8ToolCallsFreshProcess overhead/call-max-ms)" "<= 5"
row "   tool execution alone per call (ms)" \
	"$(metric BenchmarkTurn8ToolCalls tool/call-median-ms)" \
	"$(metric BenchmarkTurn8ToolCalls tool/call-p90-ms)" \
	"$(metric BenchmarkTurn8ToolCalls tool/call-max-ms)" ""
row "   whole turn, headless \`run -p\`, exec to exit (ms)" \
	"$(metric BenchmarkHeadlessRun8ToolCalls run-median-ms)" \
	"$(metric BenchmarkHeadlessRun8ToolCalls run-p90-ms)" \
	"$(metric BenchmarkHeadlessRun8ToolCalls run-max-ms)" ""
row "3. peak RSS of that run, fresh process (MB)" \
	"$(metric BenchmarkTurn8ToolCallsFreshProcess rss-median-MB)" "" \
	"$(metric BenchmarkTurn8ToolCallsFreshProcess rss-max-MB)" "<= 40"
row "   peak RSS after $((N + 1)) prompts in one process (MB)" \
	"" "" "$(metric BenchmarkTurn8ToolCalls rss-peak-MB)" ""
W=BenchmarkWriteFile50ChangesOn20000Lines
row "4. 50-change edit, 20k lines, in memory (ms, mean)" \
	"$(nsms "$(metric BenchmarkApplyEdits50On20000Lines ns/op)")" "" "" "<= 10"
row "   via LSP, VS Code-like editor: gemini-ls (ms)" \
	"$(metric "$W/didChange=per-edit" server-median-ms)" \
	"$(metric "$W/didChange=per-edit" server-p90-ms)" \
	"$(metric "$W/didChange=per-edit" server-max-ms)" "<= 10"
row "     toolCall -> toolResult, editor included (ms)" \
	"$(metric "$W/didChange=per-edit" edit-median-ms)" \
	"$(metric "$W/didChange=per-edit" edit-p90-ms)" \
	"$(metric "$W/didChange=per-edit" edit-max-ms)" ""
row "     of it, the result's unified diff alone (ms, mean)" \
	"$(nsms "$(metric BenchmarkUnifiedDiff50On20000Lines ns/op)")" "" "" ""
row "   via LSP, lsptest editor (1.1 MB didChange) (ms)" \
	"$(metric "$W/didChange=one-span" server-median-ms)" \
	"$(metric "$W/didChange=one-span" server-p90-ms)" \
	"$(metric "$W/didChange=one-span" server-max-ms)" ""
fi

[ "$COMPLETION" != 0 ] || exit 0
replay_failed=${replay_failed:-0}
echo
printf '%-52s %10s %10s %10s  %s\n' "completion (docs/benchmarks.md)" "p50" "p99" "max" "goal"
O=BenchmarkInlineCompletionOverhead/server=process
A=BenchmarkCompletionContextAssembly
row "5. inlineCompletion overhead, model time out (ms)" \
	"$(metric "$O" overhead-p50-ms)" "$(metric "$O" overhead-p99-ms)" "$(metric "$O" overhead-max-ms)" "p50 <= 5, p99 <= 20"
row "6. context assembly (ms)" \
	"$(metric "$A" assembly-p50-ms)" "$(metric "$A" assembly-p99-ms)" "$(metric "$A" assembly-max-ms)" "<= 3"
V=BenchmarkTypingReplay/editor=vscode
C=BenchmarkTypingReplay/editor=no-cancel
Q=BenchmarkTypingReplay/editor=typing-only
printf '%-52s %10s %10s %10s  %s\n' "7. typing replay ($(metric "$V" keys) keys)" "vscode" "no-cancel" "typing" "goal"
row "   model calls per 100 keys" "$(metric "$V" calls/100keys)" "$(metric "$C" calls/100keys)" "" "<= 15"
row "   stale suggestions" "$(metric "$V" stale)" "$(metric "$C" stale)" "" "0"
row "     of them crossed the next didChange" "$(metric "$V" stale-crossed)" "$(metric "$C" stale-crossed)" "" ""
row "   answered from the cache (% of requests)" "$(metric "$V" cache-%-of-requests)" "$(metric "$C" cache-%-of-requests)" "" ">= 30"
row "   superseded upstream requests" "$(metric "$V" superseded-upstream)" "$(metric "$C" superseded-upstream)" "" ""
row "     aborted later than 10 ms" "$(metric "$V" aborts-over-10ms)" "$(metric "$C" aborts-over-10ms)" "" "0"
row "     not aborted" "$(metric "$V" not-aborted)" "$(metric "$C" not-aborted)" "" "0"
row "     superseded -> close, max (ms)" "$(metric "$V" abort-max-ms)" "$(metric "$C" abort-max-ms)" "" "<= 10"
row "8. RSS added by the replay (MiB)" "$(metric "$V" rss-added-MB)" "$(metric "$C" rss-added-MB)" "$(metric "$Q" rss-added-MB)" "<= 10"
row "   completion's live heap, in process (MB)" \
	"$(metric BenchmarkCompletionLiveHeap/completion=true heap-added-MB)" "" \
	"$(metric BenchmarkCompletionLiveHeap/completion=false heap-added-MB)" ""
if [ "$replay_failed" != 0 ]; then
	echo
	echo "The typing replay failed (above); its figures per replay are in its log lines."
	exit 1
fi
