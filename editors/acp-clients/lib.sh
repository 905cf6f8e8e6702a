# shellcheck shell=bash
# Sourced by codecompanion/run.sh and agent-shell/run.sh: the machinery of
# a scenario that drives a real editor with a third-party ACP client in a
# private tmux server against the real `gemini-ls acp` and fakegemini.
#
# The sourcing script sets name (the client, for messages and screen file
# names) before sourcing, then defines scenarios as functions that return 1
# after saying why with `bad`, and runs each with `scenario FUNCTION`;
# `finish` prints "N passed, N failed" and exits 1 if any failed.
#
# Needs GEMINI_LS_BIN and FAKEGEMINI_BIN (newer-editors.sh sets them in its
# chroot). Screens go to ${GEMINI_SCREENSHOTS_DIR:-build/screenshots} as
# acp-NAME-*.txt. ACP_CLIENTS_KEEP=1 keeps each scenario's directory.
set -uo pipefail
: "${name:?set name (the client) before sourcing lib.sh}"
lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$lib_dir/../.." && pwd)
vendor="$lib_dir/vendor"
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
: "${GEMINI_LS_BIN:?set GEMINI_LS_BIN to the gemini-ls binary}"
: "${FAKEGEMINI_BIN:?set FAKEGEMINI_BIN to the fakegemini binary}"
export LANG=${LANG:-C.UTF-8} TERM=xterm-256color

# The clients' snapshots, unpacked once per run (vendor/README.md).
clients=$(mktemp -d)
for tarball in "$vendor"/*.tar.gz; do
  tar -xzf "$tarball" -C "$clients" || { echo "cannot unpack $tarball"; echo "0 passed, 1 failed"; exit 1; }
done

passed=0 failed=0
why=""
work="" fake="" sock=""

bad() { why="$*"; return 1; }

# tm: the scenario's own tmux server; the editor is its only pane.
tm() { tmux -L "$sock" -f /dev/null "$@"; }
screen() { tm capture-pane -p -t editor 2>/dev/null; }
keys() { tm send-keys -t editor "$@"; }
# type TEXT: types TEXT literally.
type_text() { tm send-keys -t editor -l -- "$1"; }

# setup: a fresh work directory with project/ (the editor's cwd, a git
# repository as a user's would be), home/ and bin/gemini-ls on PATH, as the
# README's snippets expect gemini-ls to be.
setup() {
  work=$(mktemp -d)
  mkdir -p "$work/project" "$work/home/.gemini" "$work/bin"
  # The folder trust question answered already ("Don't trust": untrusted,
  # as it was); the Go tests cover the question (cmd/gemini-ls, acptest).
  printf '{"%s": "DO_NOT_TRUST"}' "$work/project" >"$work/home/.gemini/trustedFolders.json"
  ln -s "$GEMINI_LS_BIN" "$work/bin/gemini-ls"
  git -C "$work/project" init -q
  sock="acp-$name-$$-$RANDOM"
}

teardown() {
  tm kill-server 2>/dev/null
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"
  if [ -n "$fake" ]; then kill "$fake" 2>/dev/null; wait "$fake" 2>/dev/null; fi
  fake=""
  if [ -n "${ACP_CLIENTS_KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}

# start_fake SCRIPT_JSON: serves the model's turns (internal/agent/geminitest's
# format) and records every request to $work/requests.jsonl; sets url.
start_fake() {
  printf '%s\n' "$1" >"$work/turns.json"
  "$FAKEGEMINI_BIN" --script "$work/turns.json" --record "$work/requests.jsonl" >"$work/fake.out" 2>"$work/fake.err" &
  fake=$!
  local _
  for _ in $(seq 600); do
    grep -qs GOOGLE_GEMINI_BASE_URL "$work/fake.out" && break
    kill -0 "$fake" 2>/dev/null || break
    sleep 0.05
  done
  url=$(sed -n 's/^GOOGLE_GEMINI_BASE_URL=//p' "$work/fake.out" | head -1)
  [ -n "$url" ] || bad "fakegemini did not start: $(cat "$work/fake.err")"
}

# start_editor COMMAND...: runs COMMAND in the project directory in a
# 100x45 tmux pane, with gemini-ls on PATH pointed at the fake model.
start_editor() {
  tm new-session -d -s editor -x 100 -y 45 -c "$work/project" \
    env -u TMUX HOME="$work/home" PATH="$work/bin:$PATH" \
    GOOGLE_GEMINI_BASE_URL="$url" GEMINI_API_KEY=fake-key GEMINI_MODEL=gemini-2.5-pro "$@"
}

# wait_for WHAT PATTERN... [--for TENTHS]: polls the screen until grep -E
# finds every PATTERN in one settled capture (unchanged for 0.1 s); the
# capture is left in $last_screen.
wait_for() {
  local what=$1 tenths=300 _ p all
  shift
  local patterns=()
  while [ $# -gt 0 ]; do
    if [ "$1" = --for ]; then tenths=$2; shift 2; else patterns+=("$1"); shift; fi
  done
  for _ in $(seq "$tenths"); do
    last_screen=$(screen)
    all=1
    for p in "${patterns[@]}"; do grep -qE -- "$p" <<<"$last_screen" || { all=0; break; }; done
    sleep 0.1
    [ "$all" = 1 ] && [ "$last_screen" = "$(screen)" ] && return 0
  done
  bad "timed out waiting for $what (want all of: ${patterns[*]})"
}

# save_screen NAME: keeps the current screen as acp-$name-NAME.txt.
save_screen() { screen >"$shots/acp-$name-$1.txt"; }

# requests: how many requests reached the model.
requests() {
  if [ -f "$work/requests.jsonl" ]; then grep -c . "$work/requests.jsonl"; else echo 0; fi
}

# function_response N TOOL: the first key and string value of the response
# of a TOOL call in model request N (from 1), as JSON text
# ("name":"TOOL","response":{"output":"..."): the chroots have no JSON tool.
function_response() {
  sed -n "${1}p" "$work/requests.jsonl" |
    grep -oE "\"name\":\"$2\",\"response\":\\{\"[A-Za-z]+\":\"([^\"\\\\]|\\\\.)*\"" | head -1
}

# wait_requests N WHAT: waits until N requests reached the model.
wait_requests() {
  local _
  for _ in $(seq 300); do
    [ "$(requests)" -ge "$1" ] && return 0
    sleep 0.1
  done
  bad "timed out waiting for $2 (the model got $(requests) requests, want $1)"
}

scenario() {
  why=""
  setup
  if "$1"; then
    echo "PASS $1"
    passed=$((passed + 1))
  else
    echo "FAIL $1: $why"
    failed=$((failed + 1))
    echo "--- screen ---"; screen; echo "---"
    if [ -s "$work/fake.err" ]; then echo "--- fakegemini ---"; cat "$work/fake.err"; echo "---"; fi
  fi
  teardown
}

finish() {
  rm -rf "$clients"
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
}
