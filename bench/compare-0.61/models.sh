#!/usr/bin/env bash
# The model of every request, Gemini CLI 0.61 and gemini-ls side by side
# (docs/benchmarks.md, "Model routing against Gemini CLI 0.61").
#
#   bench/compare-0.61/models.sh PATH/TO/@google/gemini-cli
#
# PATH is an installed @google/gemini-cli package (the directory holding
# bundle/gemini.js). Each case runs both agents headless (`-p`, JSON output)
# against fakegemini with the same script, the same settings (a fresh HOME
# with model.name, API-key auth and a trusted workspace) and
# GEMINI_API_KEY=fake, and prints the requests the fake received:
# method, model, and "classifier" for a routing classifier's request.
# Case names say what the classifier answers: low / high complexity, an
# HTTP 400, or text that is no JSON. AGENTS="gemini-ls" runs one side only.
set -euo pipefail
if [ $# -ne 1 ] || [ ! -f "$1/bundle/gemini.js" ]; then
	echo "usage: $0 PATH/TO/@google/gemini-cli (the directory with bundle/gemini.js)" >&2
	exit 2
fi
gcli=$(cd "$1" && pwd)/bundle/gemini.js
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/fakegemini" ./agent/geminitest/cmd/fakegemini
go build -o "$tmp/gemini-ls" ./cmd/gemini-ls

low='{"text":"{\"complexity_reasoning\":\"Simple read.\",\"complexity_score\":10}"}'
high='{"text":"{\"complexity_reasoning\":\"Architecture.\",\"complexity_score\":95}"}'
flash='{"text":"{\"reasoning\":\"Simple read.\",\"model_choice\":\"flash\"}"}'
pro='{"text":"{\"reasoning\":\"Architecture.\",\"model_choice\":\"pro\"}"}'
fail='{"error":{"code":400,"message":"classifier refused"}}'
garbage='{"text":"not json"}'
call='{"chunks":[{"call":{"name":"list_directory","args":{"dir_path":"."}}}]}'
done_='{"text":"Done."}'

# case name, model.name, script turns (classifier first where one is asked).
cases=(
	"auto-low|auto|$low,$call,$done_"
	"auto-high|auto|$high,$call,$done_"
	"auto-classifier-fails|auto|$fail,$done_"
	"auto-classifier-garbage|auto|$garbage,$done_"
	"auto-gemini-3-low|auto-gemini-3|$low,$done_"
	"auto-gemini-2.5-flash|auto-gemini-2.5|$flash,$done_"
	"auto-gemini-2.5-pro|auto-gemini-2.5|$pro,$done_"
	"pro|pro|$done_"
	"flash|flash|$done_"
	"flash-lite|flash-lite|$done_"
	"gemini-2.5-flash|gemini-2.5-flash|$done_"
)

# run AGENT CASE MODEL SCRIPT: prints one line per request the fake got.
run() {
	local agent=$1 name=$2 model=$3 script=$4
	local dir="$tmp/$agent-$name"
	mkdir -p "$dir/home/.gemini" "$dir/ws"
	printf '{"%s":"TRUST_FOLDER"}\n' "$dir/ws" >"$dir/home/.gemini/trustedFolders.json"
	printf '{"model":{"name":"%s"},"security":{"auth":{"selectedType":"gemini-api-key"}}}\n' "$model" >"$dir/home/.gemini/settings.json"
	printf '[%s]\n' "$script" >"$dir/script.json"
	echo "hello" >"$dir/ws/README.md"
	local cmd
	if [ "$agent" = gemini-cli ]; then
		cmd=(node "$gcli" -p "list the files here" -o json)
	else
		cmd=("$tmp/gemini-ls" run -p "list the files here" --output-format json --approval-mode yolo)
	fi
	[ "$agent" = gemini-cli ] && cmd+=(--approval-mode yolo)
	(cd "$dir/ws" && HOME="$dir/home" GEMINI_API_KEY=fake timeout 120 \
		"$tmp/fakegemini" --script "$dir/script.json" --record "$dir/requests.jsonl" -- "${cmd[@]}" \
		>"$dir/out.json" 2>"$dir/err.txt") || true
	if [ ! -s "$dir/requests.jsonl" ]; then
		echo "    (no request; $(tail -1 "$dir/err.txt"))"
		return
	fi
	python3 - "$dir/requests.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    system = json.dumps(r["body"].get("systemInstruction", ""))
    kind = "classifier" if "Task Routing AI" in system else ""
    print(f"    {r['method']:22} {r['model']:38} {kind}")
PY
}

for c in "${cases[@]}"; do
	IFS='|' read -r name model script <<<"$c"
	echo "== $name (model.name: $model)"
	for agent in ${AGENTS:-gemini-cli gemini-ls}; do
		echo "  $agent"
		run "$agent" "$name" "$model" "$script"
	done
done
