#!/usr/bin/env bash
# The agents view (:GeminiAgents, issue 97) in a real, interactive Neovim
# in tmux against the real gemini-ls and fakegemini, in a git repository:
# two agents started with n, each in a worktree of its own, both rows on
# screen while they work (the elapsed time counting), the shell question
# of one put to the user naming that agent (nvim-agents-question.txt),
# both done; r reviews and lands the first one's work through the
# plugin's usual review (nvim-agents-review.txt; ga accepts it), app.txt
# on disk holds it and the land's result shows (nvim-agents.txt); d
# discards the second once the server's question is answered: its row,
# worktree and branch gone. <CR> opens an agent's chat, which no agent's
# updates reached before. Appends "pass agents ..."
# lines, or one "fail agents: why" line, to the results file.
# Usage: agents.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bin=$(cd "$1" && pwd)
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
work=$(mktemp -d)
ws="$work/project"
mkdir -p "$ws" "$work/home/.gemini"
printf 'hello\n' >"$ws/app.txt"
# Trusted: an untrusted folder holds every session, agents too, to the
# default approval mode, where an agent is asked about each edit.
printf '{"%s": "TRUST_FOLDER"}' "$ws" >"$work/home/.gemini/trustedFolders.json"
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.com GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.com
git -C "$ws" init -q -b main && git -C "$ws" add app.txt && git -C "$ws" commit -qm base || { echo "fail agents: git init"; exit 1; }
sent="$work/sent.txt"
: >"$sent"
sock="gemini-nvim-agents-$$" session=agents
name=agents
# shellcheck source=tmux.sh
. "$here/tmux.sh"
fail_details() {
  echo "  the client sent (last 10):"; tail -n 10 "$sent" | cut -c1-300 | sed 's/^/    /'
  echo "  fakegemini:"; tail -n 5 "$work/fake.err" | sed 's/^/    /'
}

start_fake --script "$here/scripts/agents.json" --record "$work/requests.jsonl"
cmd=$(printf 'cd %q && env HOME=%q GOOGLE_GEMINI_BASE_URL=%q GEMINI_API_KEY=test GEMINI_MODEL=gemini-2.5-pro GEMINI_LS=%q GEMINI_WORKSPACE=%q GEMINI_SENT=%q GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.com GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.com nvim -u %q -i NONE app.txt' \
  "$ws" "$work/home" "$url" "$bin/gemini-ls" "$ws" "$sent" "$here/review_init.lua")
tm new-session -d -s "$session" -x 140 -y 34 "$cmd" || fail "tmux new-session failed"
wait_for "app.txt with gemini-ls ready" '^hello' 'gemini-ls ready'

command GeminiAgents
wait_for "the empty agents view" 'Gemini agents · <CR> chat · n new' 'No agents yet: n starts one\.'
# n: the task, then the worktree's name, each read with vim.ui.input.
start_agent() {
  tm send-keys -t "$session" n
  wait_for "the task's input" "^Agent's task:"
  tm send-keys -t "$session" -l "$1"; tm send-keys -t "$session" Enter
  wait_for "the name's input" "^Its worktree's name \(empty: generated\):"
  tm send-keys -t "$session" -l "$2"; tm send-keys -t "$session" Enter
}
start_agent 'make app.txt greet from alpha' alpha
start_agent 'write beta.txt with a shell command' beta
wait_for "both agents working" '^● write beta\.txt with a shell command +working +[0-9]+s' '^● make app\.txt greet from alpha +working +[0-9]+s'
pass "n starts two agents, each a row of the view while it works"
# The timer redraws alpha's elapsed time while it works.
first=$(grep -oE 'alpha +working +[0-9]+s' <<<"$screen" | grep -oE '[0-9]+s$')
counted=
for _ in $(seq 30); do
  now=$(tm capture-pane -p -t "$session" | grep -oE 'alpha +working +[0-9]+s' | grep -oE '[0-9]+s$')
  [ -n "$now" ] && [ "$now" != "$first" ] && { counted=1; break; }
  sleep 0.1
done
[ -n "$counted" ] || fail "alpha's elapsed time stayed $first while it worked"
# alpha is done first (its model answers sooner); beta asks to run its
# command, naming itself.
wait_for "alpha done, told" '^✓ make app\.txt greet from alpha +done .* 1 file \+1 −1' 'agent “alpha” is done'
pass "alpha's row says done with its file, and the user is told"
wait_for "beta's question naming it" 'Agent beta: .*echo beta > beta\.txt' 'Type number and <Enter>'
printf '%s\n' "$screen" >"$(picture agents-question)"
tm send-keys -t "$session" 1 Enter
wait_for "beta done" '^✓ write beta\.txt with a shell command +done .* 1 file \+1 −0'
pass "beta's shell question is put naming the agent, and beta is done once allowed"
[ -e "$ws/beta.txt" ] && fail "beta.txt was written in the main tree"
[ "$(cat "$ws/.gemini/worktrees/beta/beta.txt" 2>/dev/null)" = beta ] || fail "beta.txt in beta's worktree: $(cat "$ws/.gemini/worktrees/beta/beta.txt" 2>&1)"
[ "$(cat "$ws/app.txt")" = hello ] || fail "app.txt changed in the main tree before the land: $(cat "$ws/app.txt")"
pass "each agent's work is in its own worktree, the main tree untouched"

# r on alpha's row: the review of its work, accepted with ga.
command "call search('greet from alpha')"
tm send-keys -t "$session" r
wait_for "the review of alpha's work" 'land the agent "alpha"' 'ga accept' '│ *hello from alpha'
printf '%s\n' "$screen" >"$(picture agents-review)"
tm send-keys -t "$session" g a
wait_for "the land's result" 'Landed .*alpha' '^✓ make app\.txt greet from alpha'
for _ in $(seq 50); do [ "$(cat "$ws/app.txt")" = "hello from alpha" ] && break; sleep 0.1; done
[ "$(cat "$ws/app.txt")" = "hello from alpha" ] || fail "app.txt after the land: $(cat "$ws/app.txt")"
printf '%s\n' "$screen" >"$(picture agents)"
pass "r reviews alpha's work as a proposal, ga lands it on disk, and the result shows"

# <CR> on alpha's row: its chat, its session resumed there; nothing of
# either agent reached the chat before (its first lines are the resume's).
command GeminiAgents
command "call search('greet from alpha')"
tm send-keys -t "$session" Enter
wait_for "alpha's chat" 'continuing: make app\.txt greet from alpha' 'app\.txt greets from alpha now\.'
command "echo 'chat starts: ' . join(getbufline('gemini://chat', 1, 3), ' | ')"
wait_for "the chat's first lines" '^chat starts:  \| --- \| _\(continuing: make app\.txt greet from alpha\)_'
pass "<CR> opens alpha's chat, and no agent's updates reached the chat before"

# d on beta's row: the server asks first.
command GeminiAgents
command "call search('write beta')"
tm send-keys -t "$session" d
wait_for "the discard question" 'Discard the agent' 'Type number and <Enter>'
# vim.ui.select numbers its items "1. Discard" in Neovim 0.7, "1: Discard"
# from 0.10.
discard=$(grep -nE '^[0-9]+[.:] Discard$' <<<"$screen" | head -1 | sed -E 's/^[0-9]+:([0-9]+)[.:].*/\1/')
[ -n "$discard" ] || fail "no Discard action offered"
tm send-keys -t "$session" "$discard" Enter
wait_for "beta gone" 'discarded the agent “beta”'
grep -q 'write beta' <<<"$screen" && fail "beta's row is still shown"
[ -e "$ws/.gemini/worktrees/beta" ] && fail "beta's worktree is still there"
[ -n "$(git -C "$ws" branch --list worktree-beta)" ] && fail "beta's branch is still there"
pass "d discards beta once the user says so: its row, worktree and branch gone"
