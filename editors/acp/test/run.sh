#!/usr/bin/env bash
# Runs editors/acp/test/acp.test.mjs: the ACP reference SDK's client
# (@agentclientprotocol/sdk, installed here by npm ci from the committed
# lockfile) against the real `gemini-ls acp`, the fake Gemini API and the
# test MCP server. Last line: "N passed, N failed"; exits 1 if any failed.
#
#   editors/acp/test/run.sh [FILTER]                 # scenarios whose name contains FILTER
#   ACP_TRANSCRIPT=docs/acp.md editors/acp/test/run.sh   # also rewrite the transcript in docs/acp.md
#
# GEMINI_LS_BIN, FAKEGEMINI_BIN and MCPSERVER_BIN (all set) name prebuilt
# binaries; else they are built here. ACP_TEST_KEEP=1 keeps each
# scenario's directory (the agent's log, the model's requests).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${GEMINI_LS_BIN:-}" ] || [ -z "${FAKEGEMINI_BIN:-}" ] || [ -z "${MCPSERVER_BIN:-}" ]; then
  (cd "$repo" &&
    CGO_ENABLED=0 go build -o "$tmp/gemini-ls" ./cmd/gemini-ls &&
    go build -o "$tmp/fakegemini" ./internal/agent/geminitest/cmd/fakegemini &&
    go build -o "$tmp/mcpserver" ./internal/tools/mcp/testdata/mcpserver)
  export GEMINI_LS_BIN="$tmp/gemini-ls" FAKEGEMINI_BIN="$tmp/fakegemini" MCPSERVER_BIN="$tmp/mcpserver"
fi
# npm ci only when the installed packages are not the lockfile's.
if ! cmp -s "$here/package-lock.json" "$here/node_modules/.package-lock.json.ci" 2>/dev/null; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$here/package-lock.json" "$here/node_modules/.package-lock.json.ci"
fi
if [ -n "${ACP_TRANSCRIPT:-}" ]; then
  case "$ACP_TRANSCRIPT" in /*) ;; *) export ACP_TRANSCRIPT="$repo/$ACP_TRANSCRIPT" ;; esac
fi
node --version
cd "$here"
node acp.test.mjs "$@"
