#!/usr/bin/env bash
# Background agents (:GeminiBackground, issue 98) in a real, interactive
# Neovim in tmux against the real gemini-ls, fakegemini and fakegithub (the
# loopback GitHub, which plays the runner with the real `gemini-ls action`),
# in a git repository whose origin is a local bare repository:
# :GeminiBackground with a task reaches fakegithub's dispatch with the
# prompt; the agent's row in :GeminiAgents says GitHub and goes to done
# with its run and pull request under it (nvim-agents-background.txt); its
# branch, fetched into a worktree, is reviewed and landed with r and ga:
# cloud.txt, the runner's edit, is then in the user's tree; f sends a
# follow-up, posted on the pull request, and its run's commit is fetched
# into the worktree. Appends
# "pass background ..." lines, or one "fail background: why" line, to the
# results file.
# Usage: background.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls,
# fakegemini and fakegithub)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bin=$(cd "$1" && pwd)
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
work=$(mktemp -d)
ws="$work/project"
origin="$work/origin.git"
mkdir -p "$ws/.github/workflows" "$work/home/.gemini"
printf 'hello\n' >"$ws/app.txt"
# Any workflow: fakegithub does not read it, the server asks that it exist.
printf 'name: gemini-ls\non: workflow_dispatch\njobs: {}\n' >"$ws/.github/workflows/gemini-ls.yml"
printf '{"%s": "TRUST_FOLDER"}' "$ws" >"$work/home/.gemini/trustedFolders.json"
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.com GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.com
sent="$work/sent.txt"
: >"$sent"
sock="gemini-nvim-background-$$" session=background
name=background
token=gho_background_test
# shellcheck source=tmux.sh
. "$here/tmux.sh"
{ git -C "$ws" init -q -b main && git -C "$ws" add -A && git -C "$ws" commit -qm base \
  && git clone -q --bare "$ws" "$origin" && git -C "$ws" remote add origin "$origin" \
  && git -C "$ws" fetch -q origin && git -C "$ws" branch -q -u origin/main; } || fail "making the repository and its origin"
github=
fail_details() {
  echo "  the client sent (last 10):"; tail -n 10 "$sent" | cut -c1-300 | sed 's/^/    /'
  echo "  fakegemini:"; tail -n 5 "$work/fake.err" | sed 's/^/    /'
  echo "  fakegithub:"; tail -n 20 "$work/github.err" | sed 's/^/    /'
  [ -n "$github" ] && { echo "  fakegithub's state:"; curl -s "$github/_fake/state" | cut -c1-2000 | sed 's/^/    /'; }
}
stop_github() { [ -n "${github_pid:-}" ] && kill "$github_pid" 2>/dev/null && wait "$github_pid" 2>/dev/null; }
trap 'stop_github; cleanup' EXIT

start_fake --script "$here/scripts/background.json" --record "$work/requests.jsonl"
# The runner inherits fakegithub's environment: the same model, key and
# home as gemini-ls's.
env_common=(HOME="$work/home" GOOGLE_GEMINI_BASE_URL="$url" GEMINI_API_KEY=test GEMINI_MODEL=gemini-2.5-pro)
env "${env_common[@]}" "$bin/fakegithub" -repo ada/proj -token "$token" -origin "$origin" -runner "$bin/gemini-ls" \
  -addr-file "$work/github.addr" 2>"$work/github.err" &
github_pid=$!
for _ in $(seq 600); do
  [ -s "$work/github.addr" ] && break
  kill -0 "$github_pid" 2>/dev/null || break
  sleep 0.05
done
github=$(cat "$work/github.addr" 2>/dev/null)
[ -n "$github" ] || fail "fakegithub did not start: $(cat "$work/github.err")"

cmd=$(printf 'cd %q && env %q %q %q %q GEMINI_LS=%q GEMINI_WORKSPACE=%q GEMINI_SENT=%q GITHUB_REPOSITORY=ada/proj GITHUB_API_URL=%q GITHUB_TOKEN=%q nvim -u %q -i NONE app.txt' \
  "$ws" "${env_common[@]}" "$bin/gemini-ls" "$ws" "$sent" "$github" "$token" "$here/review_init.lua")
tm new-session -d -s "$session" -x 160 -y 34 "$cmd" || fail "tmux new-session failed"
wait_for "app.txt with gemini-ls ready" '^hello' 'gemini-ls ready'

command 'GeminiBackground write cloud.txt saying hello from GitHub'
wait_for "the agent queued on GitHub" 'background agent “write cloud\.txt saying hello from GitHub” (queued|working) on GitHub'
command GeminiAgents
wait_for "the agent's row saying GitHub" '^. write cloud\.txt saying hello from GitHub +(queued|working|done) .* GitHub' '↳ on GitHub: o run http'
pass ":GeminiBackground starts an agent on GitHub, its row in the agents view saying so"
state=$(curl -s "$github/_fake/state")
grep -q '"prompt": *"write cloud.txt saying hello from GitHub"' <<<"$state" || fail "fakegithub's dispatches lack the prompt: $state"
pass "the workflow's dispatch reached fakegithub with the prompt"

patience=400 wait_for "the agent done, its pull request and work fetched" \
  '^✓ write cloud\.txt saying hello from GitHub +done .* GitHub +1 file \+1 −0' '↳ on GitHub: o run http.* · p PR #[0-9]+ http'
printf '%s\n' "$screen" >"$(picture agents-background)"
# The server's line saying so, told in one line: Neovim's own handler
# stopped at Press ENTER for it, and the screen with it (Neovim 0.12).
wait_for "the server's line saying the agent is done" 'Gemini: background agent “write cloud'
grep -q 'Press ENTER' <<<"$screen" && fail "the server's line stopped Neovim at Press ENTER"
pass "the row goes to done, with its run, its pull request and its file"
wt=$(ls -d "$ws"/.gemini/worktrees/*/ 2>/dev/null | head -1)
[ -n "$wt" ] && [ "$(cat "$wt/cloud.txt" 2>/dev/null)" = "hello from GitHub" ] || fail "cloud.txt in the fetched worktree ($wt): $(cat "$wt/cloud.txt" 2>&1)"
[ -e "$ws/cloud.txt" ] && fail "cloud.txt is in the user's tree before the land"
pass "the pull request's branch is fetched into a worktree, the user's tree untouched"

# r on the row: the review of its work, accepted with ga.
command "call search('write cloud')"
tm send-keys -t "$session" r
wait_for "the review of the agent's work" 'ga accept' 'hello from GitHub'
printf '%s\n' "$screen" >"$(picture agents-background-review)"
tm send-keys -t "$session" g a
wait_for "the land's result" 'Landed .*'
for _ in $(seq 50); do [ "$(cat "$ws/cloud.txt" 2>/dev/null)" = "hello from GitHub" ] && break; sleep 0.1; done
[ "$(cat "$ws/cloud.txt" 2>/dev/null)" = "hello from GitHub" ] || fail "cloud.txt after the land: $(cat "$ws/cloud.txt" 2>&1)"
pass "r reviews the agent's work, ga lands it: cloud.txt is in the user's tree"

# f on the row: a follow-up, posted on the pull request as an @gemini-ls
# comment; the workflow runs again on the branch, the row goes back to
# queued and to done, and the worktree is fast-forwarded to the new commit.
command GeminiAgents
command "call search('write cloud')"
tm send-keys -t "$session" f
wait_for "the follow-up's input" '^Follow-up for “write-cloud-txt-saying-hello-from-github-[0-9a-f]{4}” on GitHub:'
tm send-keys -t "$session" -l 'also write more.txt'; tm send-keys -t "$session" Enter
wait_for "the follow-up sent" 'follow-up sent to' '^. write cloud\.txt saying hello from GitHub +(queued|working) '
state=$(curl -s "$github/_fake/state")
grep -q '"@gemini-ls also write more.txt' <<<"$state" || fail "fakegithub's comments lack the follow-up: $state"
pass "f posts the follow-up on the pull request, and the row goes back to queued"
patience=400 wait_for "the agent done again" '^✓ write cloud\.txt saying hello from GitHub +done .* GitHub'
for _ in $(seq 50); do [ "$(cat "$wt/more.txt" 2>/dev/null)" = "more from GitHub" ] && break; sleep 0.1; done
[ "$(cat "$wt/more.txt" 2>/dev/null)" = "more from GitHub" ] || fail "more.txt in the worktree after the follow-up: $(cat "$wt/more.txt" 2>&1)"
pass "the follow-up's run ends done, its commit fetched into the worktree"
