#!/bin/sh
# declarations.sh GEMINI_JS MODEL: runs Gemini CLI (node GEMINI_JS, e.g.
# node_modules/@google/gemini-cli/bundle/gemini.js) headless against
# fakegemini and prints, as sorted JSON, every function it declares to MODEL:
# {name: {"parameters": [...], "required": [...]}}. Its output for 0.61 is
# internal/tools/testdata/declarations-0.61-MODEL.json, which tools' tests hold the
# built-in tools to; re-run it against a newer Gemini CLI to see what moved.
set -eu
gemini_js=${1:?usage: declarations.sh GEMINI_JS MODEL}
model=${2:?usage: declarations.sh GEMINI_JS MODEL}
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home/.gemini" "$work/project"
printf '{"%s": "TRUST_FOLDER"}\n' "$work/project" >"$work/home/.gemini/trustedFolders.json"
# No routing, no next-speaker check: one request, the one that declares the tools.
cat >"$work/home/.gemini/settings.json" <<'JSON'
{"security": {"auth": {"selectedType": "gemini-api-key"}},
 "model": {"skipNextSpeakerCheck": true},
 "experimental": {"useModelRouter": false},
 "general": {"disableAutoUpdate": true}}
JSON
# Enough answers for whatever side requests the CLI makes first.
printf '[{"text":"done"},{"text":"done"},{"text":"done"},{"text":"done"}]\n' >"$work/turns.json"
(cd "$repo" && go build -o "$work/fakegemini" ./internal/agent/geminitest/cmd/fakegemini)
(cd "$work/project" && HOME="$work/home" "$work/fakegemini" --script "$work/turns.json" --record "$work/requests.jsonl" -- \
	node "$gemini_js" -m "$model" --approval-mode yolo -p "hello" -o text >"$work/out" 2>"$work/err") || true
node -e '
const fs = require("fs");
const out = {};
for (const line of fs.readFileSync(process.argv[1], "utf8").split("\n")) {
  if (!line) continue;
  const body = JSON.parse(line).body;
  for (const t of (body && body.tools) || []) {
    for (const d of t.functionDeclarations || []) {
      const s = d.parametersJsonSchema || d.parameters || {};
      out[d.name] = {parameters: Object.keys(s.properties || {}).sort(), required: [...(s.required || [])].sort()};
    }
  }
}
if (Object.keys(out).length === 0) { console.error("no functionDeclarations were sent"); process.exit(1); }
const sorted = {};
for (const k of Object.keys(out).sort()) sorted[k] = out[k];
console.log(JSON.stringify(sorted, null, 1));
' "$work/requests.jsonl"
