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
# HTTP 400, or text that is no JSON. AGENTS="gemini-ls" runs one side only; KEEP=1 keeps the directory.
#
# The utility cases make the utility calls both agents have: "compress-*"
# runs a first prompt, then resumes the session (--resume latest) for a
# second whose tool call reports a prompt of 600000 tokens, past the
# default threshold (half of a 1048576-token window), so the history is
# summarised before the continuation; "search-*" calls google_web_search;
# "edit-fix-*" calls replace with an old_string the file lacks, with
# tools.disableLLMCorrection off (0.61's default is on, gemini-ls's off).
# Each request is labelled: classifier, compress, search, edit-fix.
set -euo pipefail
source "$(dirname "$0")/setup.sh"

low='{"text":"{\"complexity_reasoning\":\"Simple read.\",\"complexity_score\":10}"}'
high='{"text":"{\"complexity_reasoning\":\"Architecture.\",\"complexity_score\":95}"}'
flash='{"text":"{\"reasoning\":\"Simple read.\",\"model_choice\":\"flash\"}"}'
pro='{"text":"{\"reasoning\":\"Architecture.\",\"model_choice\":\"pro\"}"}'
fail='{"error":{"code":400,"message":"classifier refused"}}'
garbage='{"text":"not json"}'
call='{"chunks":[{"call":{"name":"list_directory","args":{"dir_path":"."}}}]}'
done_='{"text":"Done."}'
big='{"chunks":[{"call":{"name":"list_directory","args":{"dir_path":"."}}}],"usage":{"promptTokenCount":600000,"totalTokenCount":600010}}'
snap='{"text":"<state_snapshot>files listed</state_snapshot>"}'
search='{"chunks":[{"call":{"name":"google_web_search","args":{"query":"gemini cli"}}}]}'
found='{"text":"Gemini CLI is an agent."}'
edit='{"chunks":[{"call":{"name":"replace","args":{"file_path":"README.md","old_string":"hullo","new_string":"bye","instruction":"Replace the greeting with bye."}}}]}'
fixed='{"text":"{\"search\":\"hello\",\"replace\":\"bye\",\"explanation\":\"The greeting is hello.\",\"noChangesRequired\":false}"}'

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

# case name, model.name, first prompt's script, then the resumed prompt's
# (0.61 summarises twice, the summary and its check; gemini-ls once, and
# the snapshot left over answers its continuation).
compress_cases=(
	"compress-auto-low|auto|$low,$done_|$low,$big,$snap,$snap,$done_"
	"compress-auto-high|auto|$high,$done_|$high,$big,$snap,$snap,$done_"
	"compress-auto-gemini-2.5-flash|auto-gemini-2.5|$flash,$done_|$flash,$big,$snap,$snap,$done_"
	"compress-auto-gemini-2.5-pro|auto-gemini-2.5|$pro,$done_|$pro,$big,$snap,$snap,$done_"
	"compress-pro|pro|$done_|$big,$snap,$snap,$done_"
	"compress-flash|flash|$done_|$big,$snap,$snap,$done_"
	"compress-flash-lite|flash-lite|$done_|$big,$snap,$snap,$done_"
	"compress-gemini-2.5-flash|gemini-2.5-flash|$done_|$big,$snap,$snap,$done_"
	"compress-gemini-2.5-pro|gemini-2.5-pro|$done_|$big,$snap,$snap,$done_"
)

# case name, model.name, script: one prompt with a utility call.
utility_cases=(
	"search-auto-high|auto|$high,$search,$found,$done_"
	"search-gemini-2.5-pro|gemini-2.5-pro|$search,$found,$done_"
	"edit-fix-auto-low|auto|$low,$edit,$fixed,$done_"
	"edit-fix-pro|pro|$edit,$fixed,$done_"
)

# run AGENT CASE MODEL SCRIPT [RESUME]: prints one line per request the
# fake got; with RESUME (any word) the session of the case's last run is
# resumed.
run() {
	local agent=$1 name=$2 model=$3 script=$4 resume=${5:-}
	local dir="$tmp/$agent-$name"
	if [ -z "$resume" ]; then
		mkdir -p "$dir/home/.gemini" "$dir/ws"
		printf '{"%s":"TRUST_FOLDER"}\n' "$dir/ws" >"$dir/home/.gemini/trustedFolders.json"
		printf '{"model":{"name":"%s"},"tools":{"disableLLMCorrection":false},"security":{"auth":{"selectedType":"gemini-api-key"}}}\n' "$model" >"$dir/home/.gemini/settings.json"
		echo "hello" >"$dir/ws/README.md"
	fi
	printf '[%s]\n' "$script" >"$dir/script.json"
	rm -f "$dir/requests.jsonl"
	local cmd
	if [ "$agent" = gemini-cli ]; then
		cmd=(node "$gcli" -p "list the files here" -o json)
	else
		cmd=("$tmp/gemini-ls" run -p "list the files here" --output-format json --approval-mode yolo)
	fi
	[ "$agent" = gemini-cli ] && cmd+=(--approval-mode yolo)
	[ -n "$resume" ] && cmd+=(--resume latest)
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
    body = r["body"]
    system = json.dumps(body.get("systemInstruction", ""))
    tools = json.dumps(body.get("tools", []))
    kind = ""
    if "Task Routing AI" in system:
        kind = "classifier"
    elif "distilling chat history" in system:
        kind = "compress"
    elif "googleSearch" in tools:
        kind = "search"
    elif "failed search-and-replace" in system:
        kind = "edit-fix"
    config = ""
    if kind and r["method"] != "countTokens":
        gc = body.get("generationConfig", {})
        thinking = gc.get("thinkingConfig", {})
        parts = [f"{k} {gc[k]}" for k in ("temperature", "topP", "topK", "maxOutputTokens") if k in gc]
        parts += [f"thinking {k}={v}" for k, v in sorted(thinking.items())]
        config = ", ".join(parts) or "no generation config"
    print(f"    {r['method']:22} {r['model']:36} {kind:10} {config}".rstrip())
PY
}

for c in "${cases[@]}" "${utility_cases[@]}"; do
	IFS='|' read -r name model script <<<"$c"
	echo "== $name (model.name: $model)"
	for agent in ${AGENTS:-gemini-cli gemini-ls}; do
		echo "  $agent"
		run "$agent" "$name" "$model" "$script"
	done
done

for c in "${compress_cases[@]}"; do
	IFS='|' read -r name model first script <<<"$c"
	echo "== $name (model.name: $model; the resumed prompt)"
	for agent in ${AGENTS:-gemini-cli gemini-ls}; do
		echo "  $agent"
		run "$agent" "$name" "$model" "$first" >/dev/null
		run "$agent" "$name" "$model" "$script" resume
	done
done
