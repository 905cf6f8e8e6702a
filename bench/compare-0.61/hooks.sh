#!/usr/bin/env bash
# What a BeforeTool hook hears and what policy rules' argsPattern deny,
# Gemini CLI 0.61 and gemini-ls side by side (docs/benchmarks.md, "Hooks and
# policies against Gemini CLI 0.61").
#
#   bench/compare-0.61/hooks.sh PATH/TO/@google/gemini-cli
#
# PATH is an installed @google/gemini-cli package (the directory holding
# bundle/gemini.js). Both agents run headless (`-p`, yolo) against
# fakegemini with one script: one call per model answer of read_file,
# grep_search, glob, list_directory, replace, run_shell_command and an MCP
# server's echo (internal/tools/mcp/testdata/mcpserver, named "tester"), some of which
# a policy rule denies by argsPattern and one a higher rule allows again.
# Same settings for both: a fresh HOME with API-key auth, model.name
# gemini-2.5-pro (no routing classifier to take a scripted answer), a trusted
# workspace, a BeforeTool command hook that appends its stdin to a file, and
# ~/.gemini/policies/rules.toml.
#
# For each agent it prints, in order, every BeforeTool hook input (without
# session_id, transcript_path, cwd and timestamp; the temporary directory
# written $TMP) and every function response sent back to the model, as
# "ok", "error" or "denied: MESSAGE" when a policy rule denied the call. It
# diffs the two and exits 1 when they differ. KEEP=1 keeps the directory.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
go build -o "$tmp/mcpserver" ./internal/tools/mcp/testdata/mcpserver

# One call per model answer, so both agents run them in this order. Each
# has a thought signature: without one Gemini CLI sends the call back with
# "skip_thought_signature_validator", which the fake cannot decode.
calls=(
	'read_file|{"file_path":"a.txt"}'
	'read_file|{"file_path":"secret.txt"}'
	'read_file|{"file_path":"a.txt","start_line":2,"end_line":3}'
	'grep_search|{"pattern":"TODO","include_pattern":"*.txt"}'
	'glob|{"pattern":"**/*.txt"}'
	'list_directory|{"dir_path":"sub"}'
	'replace|{"file_path":"a.txt","old_string":"TODO one","new_string":"DONE one","instruction":"Mark the first item done."}'
	'replace|{"file_path":"secret.txt","old_string":"the secret","new_string":"no secret","instruction":"Reveal it."}'
	'run_shell_command|{"command":"echo hello","description":"Say hello."}'
	'run_shell_command|{"command":"echo secret-stuff"}'
	'run_shell_command|{"command":"echo secret-but-allowed"}'
	'mcp_tester_echo|{"message":"hi"}'
	'mcp_tester_echo|{"message":"forbidden words"}'
)
script=""
for c in "${calls[@]}"; do
	script+="{\"chunks\":[{\"call\":{\"name\":\"${c%%|*}\",\"args\":${c#*|}},\"thoughtSignature\":\"c2lnbmF0dXJl\"}]},"
done
script+='{"text":"Done."}'

# The rules deny by argsPattern, matched against the call's arguments as
# 0.61 writes them (sorted keys, no spaces); the last allows one of the
# commands the one before it denies, by priority.
policy='
[[rule]]
toolName = "read_file"
argsPattern = "\"file_path\":\"secret\\.txt\""
decision = "deny"
priority = 100
deny_message = "Secrets stay secret."

[[rule]]
toolName = "replace"
argsPattern = "\"file_path\":\"secret\\.txt\""
decision = "deny"
priority = 100
deny_message = "Not that file."

[[rule]]
toolName = "mcp_tester_echo"
argsPattern = "\"message\":\"forbidden"
decision = "deny"
priority = 100
deny_message = "Mind your words."

[[rule]]
toolName = "run_shell_command"
argsPattern = "\"command\":\"echo secret"
decision = "deny"
priority = 100
deny_message = "No secrets on the command line."

[[rule]]
toolName = "run_shell_command"
argsPattern = "\"command\":\"echo secret-but-allowed\""
decision = "allow"
priority = 200
'

# run AGENT: runs it in $tmp/run-AGENT and writes $tmp/AGENT.txt.
run() {
	local agent=$1
	local dir="$tmp/run-$agent"
	mkdir -p "$dir/home/.gemini/policies" "$dir/ws/sub"
	printf '{"%s":"TRUST_FOLDER"}\n' "$dir/ws" >"$dir/home/.gemini/trustedFolders.json"
	cat >"$dir/home/.gemini/settings.json" <<-JSON
		{"security": {"auth": {"selectedType": "gemini-api-key"}},
		 "model": {"name": "gemini-2.5-pro", "skipNextSpeakerCheck": true},
		 "experimental": {"useModelRouter": false},
		 "general": {"disableAutoUpdate": true},
		 "mcpServers": {"tester": {"command": "$tmp/mcpserver"}},
		 "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "name": "record",
		   "command": "{ cat; echo; } >> '$dir/hook-inputs.jsonl'"}]}]}}
	JSON
	printf '%s' "$policy" >"$dir/home/.gemini/policies/rules.toml"
	printf '[%s]\n' "$script" >"$dir/script.json"
	printf 'TODO one\nTODO two\nthree\n' >"$dir/ws/a.txt"
	printf 'the secret\n' >"$dir/ws/secret.txt"
	printf 'TODO nested\n' >"$dir/ws/sub/b.txt"
	: >"$dir/hook-inputs.jsonl"
	local cmd
	if [ "$agent" = gemini-cli ]; then
		cmd=(node "$gcli" -p "do the calls" -o json --approval-mode yolo)
	else
		cmd=("$tmp/gemini-ls" run -p "do the calls" --output-format json --approval-mode yolo)
	fi
	(cd "$dir/ws" && HOME="$dir/home" GEMINI_API_KEY=fake timeout 300 \
		"$tmp/fakegemini" --script "$dir/script.json" --record "$dir/requests.jsonl" -- "${cmd[@]}" \
		>"$dir/out.json" 2>"$dir/err.txt") || echo "$agent exited $? ($(tail -1 "$dir/err.txt"))" >&2
	python3 - "$dir" "$tmp" >"$tmp/$agent.txt" <<'PY'
import json, sys
dir, tmp = sys.argv[1], sys.argv[2]
dropped = {"session_id", "transcript_path", "cwd", "timestamp"}

def norm(v):
    """v with the temporary directory written $TMP."""
    return json.loads(json.dumps(v).replace(tmp, "$TMP"))

print("BeforeTool hook inputs:")
for line in open(f"{dir}/hook-inputs.jsonl"):
    if line.strip():
        hook = {k: v for k, v in json.loads(line).items() if k not in dropped}
        print("  " + json.dumps(norm(hook), sort_keys=True))

print("function responses:")
seen = 0
for line in open(f"{dir}/requests.jsonl"):
    contents = json.loads(line)["body"].get("contents", [])
    responses = [p["functionResponse"] for c in contents for p in c.get("parts", []) if "functionResponse" in p]
    for r in responses[seen:]:
        out = r.get("response", {})
        error = out.get("error")
        if isinstance(error, dict):
            error = error.get("message")
        if error and "denied by policy" in str(error):
            outcome = "denied: " + str(error)
        elif error:
            outcome = "error"
        else:
            outcome = "ok"
        print(f"  {r['name']:20} {outcome}")
    seen = max(seen, len(responses))
PY
}

for agent in gemini-cli gemini-ls; do
	run "$agent"
done
for agent in gemini-cli gemini-ls; do
	echo "== $agent"
	cat "$tmp/$agent.txt"
done
if diff -u --label gemini-cli --label gemini-ls "$tmp/gemini-cli.txt" "$tmp/gemini-ls.txt"; then
	echo "== the same"
else
	exit 1
fi
