#!/usr/bin/env bash
# Spawn → ACP initialize answered, gemini-ls against Gemini CLI's ACP mode,
# in turn in one run (docs/benchmarks.md, "ACP: spawn to initialize").
#
#   bench/acp-initialize.sh          # 10 pairs
#   N=20 bench/acp-initialize.sh
#
# bench/acpinit spawns each agent, writes one initialize request and stops
# the clock when the answer is read; it also reads the resident memory of
# the agent's processes then (Gemini CLI relaunches itself in a second node
# process, so its figure is the sum of both). The two commands alternate,
# gemini-ls first, and the ratio is taken pair by pair.
#
# Gemini CLI (@google/gemini-cli, $GEMINI_CLI_VERSION) is installed from the
# npm registry into ~/.cache/gemini-ls/gemini-cli (or $GEMINI_LS_CACHE/…),
# never into the repository. Both agents get the same environment: a fresh
# HOME, GEMINI_API_KEY=fake and GOOGLE_GEMINI_BASE_URL pointing at
# fakegemini (neither calls the model to answer initialize), and a fresh
# empty directory as cwd. Nothing passes or fails on time.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

N=${N:-10}
GEMINI_CLI_VERSION=${GEMINI_CLI_VERSION:-0.61.0}
cache=${GEMINI_LS_CACHE:-$HOME/.cache/gemini-ls}/gemini-cli
tmp=$(mktemp -d)
fake_pid=
cleanup() {
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

gemini="$cache/node_modules/.bin/gemini"
installed=$(node -p "require('$cache/node_modules/@google/gemini-cli/package.json').version" 2>/dev/null || true)
if [ "$installed" != "$GEMINI_CLI_VERSION" ]; then
	echo "installing @google/gemini-cli@$GEMINI_CLI_VERSION into $cache"
	mkdir -p "$cache"
	npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "@google/gemini-cli@$GEMINI_CLI_VERSION" >/dev/null
fi

CGO_ENABLED=0 go build -o "$tmp/gemini-ls" ./cmd/gemini-ls
go build -o "$tmp/acpinit" ./bench/acpinit
go build -o "$tmp/fakegemini" ./internal/agent/geminitest/cmd/fakegemini

echo '[{"text": "unused"}]' >"$tmp/turns.json"
"$tmp/fakegemini" --script "$tmp/turns.json" >"$tmp/fake.out" 2>/dev/null &
fake_pid=$!
for _ in $(seq 50); do grep -q GOOGLE_GEMINI_BASE_URL "$tmp/fake.out" && break; sleep 0.1; done
url=$(sed -n 's/^GOOGLE_GEMINI_BASE_URL=//p' "$tmp/fake.out")

mkdir -p "$tmp/home" "$tmp/project"
# agent NAME COMMAND...: one spawn of COMMAND in a clean environment;
# prints NAME and acpinit's line.
agent() {
	local name=$1
	shift
	local line
	line=$(cd "$tmp/project" && env -i PATH="$PATH" HOME="$tmp/home" TERM=dumb \
		GEMINI_API_KEY=fake GOOGLE_GEMINI_BASE_URL="$url" "$tmp/acpinit" "$@")
	echo "$name $line"
}

echo "ACP spawn -> initialize: $N pairs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo "gemini-ls $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?'), Gemini CLI $("$gemini" --version 2>/dev/null), node $(node --version)"
# One untimed round each: the first start of either reads its files from disk.
agent warmup "$tmp/gemini-ls" acp >/dev/null
agent warmup "$gemini" --acp >/dev/null
for i in $(seq "$N"); do
	agent gemini-ls "$tmp/gemini-ls" acp
	agent gemini-cli "$gemini" --acp
done | tee "$tmp/runs"

# The summary: medians, and the per-pair ratio's median.
awk '
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{
	split($2, ms, "="); split($3, rss, "=")
	if ($1 == "gemini-ls") { n++; ls[n] = ms[2]; lsr[n] = rss[2] / 1024 }
	else { m++; cli[m] = ms[2]; clir[m] = rss[2] / 1024; ratio[m] = ls[m] / cli[m] }
}
END {
	printf "\n%-34s %12s %12s\n", "", "gemini-ls", "Gemini CLI"
	printf "%-34s %12.1f %12.1f\n", "spawn -> initialize, median (ms)", median(ls, n), median(cli, m)
	printf "%-34s %12.1f %12.1f\n", "RSS after initialize, median (MB)", median(lsr, n), median(clir, m)
	r = median(ratio, m)
	printf "\ngemini-ls / Gemini CLI, per pair, median: %.4f (1/%.0f); goal <= 1/100\n", r, 1 / r
}' "$tmp/runs"
