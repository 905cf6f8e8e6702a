#!/usr/bin/env bash
# A background agent on GitHub Actions (issue 98) in a real interactive
# Emacs (emacs -nw inside a detached tmux), against the real gemini-ls,
# fakegemini and fakegithub: the project is a git repository whose origin
# is a local bare repository, and fakegithub plays GitHub's API and its
# runner (it runs `gemini-ls action' in a clone of origin, which pushes
# the branch and opens the pull request through it). b in
# M-x gemini-ls-agents starts the agent: its row says GitHub and goes
# queued or working, then done with its pull request and the file it
# wrote, once the server fetched its branch into a local worktree
# (emacs-background.txt); fakegithub's /_fake/state holds the dispatch
# with the task as its prompt; w opens the pull request (the browser is
# a function that notes the URL); l reviews its work and A lands it:
# the file is in the user's tree (emacs-background-land.txt); f sends a
# follow-up, which reaches the pull request as an @gemini-ls comment.
# Called by run.sh with GEMINI_LS_BIN, FAKEGEMINI_BIN and FAKEGITHUB_BIN
# set; prints "PASS tmux-background" or "FAIL tmux-background: why".
set -uo pipefail
sock="gemini-background-$$"
# shellcheck source=tmux.sh
. "$(dirname "$0")/tmux.sh"

gh_pid=""
trap '[[ -n "$gh_pid" ]] && kill "$gh_pid" 2>/dev/null; cleanup' EXIT
fail() {
  [[ -f "$work/github.log" ]] && { echo "--- fakegithub ---"; tail -n 60 "$work/github.log"; }
  fail_showing tmux-background "$@"
}

# fake_state: fakegithub's /_fake/state, with bash's own /dev/tcp (no
# curl in the test's Debian packages).
fake_state() {
  local hostport="${gh_url#http://}"
  exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}" || return 1
  printf 'GET /_fake/state HTTP/1.0\r\nHost: %s\r\n\r\n' "$hostport" >&3
  cat <&3
  exec 3<&-
}

proj="$work/proj"
origin="$work/origin.git"
mkdir -p "$proj/.github/workflows"
printf 'def greet(name):\n    return "Hello, " + name\n' >"$proj/greet.py"
# Any content: fakegithub does not read the workflow, gemini-ls checks
# it is there.
printf 'name: gemini-ls\non: workflow_dispatch\n' >"$proj/.github/workflows/gemini-ls.yml"
git -C "$proj" init -q -b main
git -C "$proj" -c user.name=t -c user.email=t@example.com add .
git -C "$proj" -c user.name=t -c user.email=t@example.com commit -q -m "greet"
git clone -q --bare "$proj" "$origin"
git -C "$proj" remote add origin "$origin"
git -C "$proj" fetch -q origin

# The runner's agent gets the task, then gemini-ls action's instructions;
# once it wrote the file, the same conversation holds the words it said
# with its call, so that rule comes first. The follow-up runs the
# workflow again with the comment's text.
cat >"$work/script.json" <<JSON
{"rules": [$classifier_rule,
  {"contains": "Writing VERBOSE.md.", "turn": {"text": "VERBOSE.md says how to be verbose.\nSummary: Add VERBOSE.md"}},
  {"contains": "Adding the loud line.", "turn": {"text": "VERBOSE.md is louder.\nSummary: Say it louder in VERBOSE.md"}},
  {"contains": "write a verbose note", "turn": {"chunks": [
    {"text": "Writing VERBOSE.md."},
    {"call": {"name": "write_file", "args": {
      "file_path": "VERBOSE.md", "content": "Run with --verbose to see more.\n"}}}]}},
  {"contains": "say it louder", "turn": {"chunks": [
    {"text": "Adding the loud line."},
    {"call": {"name": "write_file", "args": {
      "file_path": "VERBOSE.md", "content": "Run with --verbose to see MORE.\n"}}}]}}
 ],
 "turns": []}
JSON
trust "$proj"
start_fake --script "$work/script.json"

# fakegithub, with the environment gemini-ls gets: its runner's agent
# talks to the same fake model.
token="ghs-test-token"
export TERM=xterm-256color
env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL -u GITHUB_TOKEN -u GH_TOKEN \
  HOME="$work/home" GEMINI_API_KEY=test GOOGLE_GEMINI_BASE_URL="$url" \
  "$FAKEGITHUB_BIN" -repo ada/proj -token "$token" -origin "$origin" -runner "$GEMINI_LS_BIN" \
  -addr-file "$work/github.addr" 2>"$work/github.log" &
gh_pid=$!
gh_url=""
for _ in $(seq 300); do
  [[ -s "$work/github.addr" ]] && gh_url="$(tr -d '\n' <"$work/github.addr")"
  [[ -n "$gh_url" ]] && break
  sleep 0.1
done
[[ -n "$gh_url" ]] || fail "fakegithub wrote no address"

chat_init_el
cat >>"$work/init.el" <<EOF2
(setq save-silently t
      ;; Emacs compiling its own libraries in the background, under a
      ;; fresh HOME, shows its warnings over the view otherwise.
      native-comp-async-report-warnings-errors 'silent)
;; The browser: the URLs it was asked to open, for the test to read.
(defvar gemini-ls-test-opened nil)
(setq gemini-ls-browse-url-function
      (lambda (url) (push url gemini-ls-test-opened) (message "OPENED %s" url)))
EOF2

# gh finds no login in the test's HOME: the server takes GITHUB_TOKEN.
tmux -L "$sock" -f /dev/null new-session -d -x 140 -y 40 \
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL -u GH_TOKEN \
   TERM=xterm-256color HOME='$work/home' GEMINI_API_KEY=test GOOGLE_GEMINI_BASE_URL='$url' \
   GITHUB_REPOSITORY=ada/proj GITHUB_API_URL='$gh_url' GITHUB_TOKEN='$token' \
   emacs -nw -Q -l '$work/init.el' greet.py" || fail "tmux did not start"
wait_for 'Hello, ' "greet.py to open"

keys M-x
wait_for '^M-x' "the M-x prompt" 5
type_text gemini-ls-agents
keys Enter
wait_for 'No agents yet: \+ starts one, b one on GitHub' "the empty agents view" 30
wait_for 'Task +State +Elapsed +Tokens +Files +Runs on' "the agents view's columns" 5

keys b
wait_for "Background agent's task \(runs on GitHub\):" "the task's prompt" 5
type_text 'write a verbose note'
keys Enter
wait_for 'write a verbose note +(queued|working|done) .*GitHub: run' "the background agent's row" 30

# The run: fakegithub clones origin and runs gemini-ls action, which
# pushes gemini/<task> and opens the pull request; the server follows the
# run every few seconds, then fetches the branch into a worktree.
wait_for 'write a verbose note +done .*1 file \+1 −0 +GitHub: run, PR #[0-9]+' \
  "the agent done, its pull request and file" 180
shot="$(screen)"
printf '%s\n' "$shot" >"$(picture emacs-background)"

state="$(fake_state)" || fail "fakegithub's state did not answer"
grep -q '"dispatches"' <<<"$state" || fail "no dispatches in fakegithub's state: $state"
grep -Eq '"prompt": *"write a verbose note"' <<<"$state" ||
  fail "fakegithub got no dispatch with the task as its prompt: $state"
git -C "$origin" for-each-ref --format='%(refname:short)' refs/heads/gemini/ | grep -q . ||
  fail "no gemini/ branch on origin: $(git -C "$origin" for-each-ref)"
worktree="$(ls -d "$proj"/.gemini/worktrees/*/ 2>/dev/null | head -1)"
[[ -n "$worktree" && -f "$worktree/VERBOSE.md" ]] || fail "no local worktree holds VERBOSE.md"
[[ -e "$proj/VERBOSE.md" ]] && fail "VERBOSE.md reached the user's tree before landing"

# w: the pull request, in the browser.
keys 'M-<'
keys w
wait_for 'OPENED http://127\.0\.0\.1:[0-9]+/.*/pull/[0-9]+|OPENED https?://.*/pull/[0-9]+' \
  "the pull request opened in the browser" 10

# l: its work reviewed as a change to the user's tree; A lands it.
keys 'M-<'
keys l
wait_for '^\+Run with --verbose to see more\.' "the agent's file in the review" 30
keys A
wait_for 'Landed' "landing's message" 30
shot="$(screen)"
printf '%s\n' "$shot" >"$(picture emacs-background-land)"
grep -q 'Run with --verbose to see more.' "$proj/VERBOSE.md" 2>/dev/null ||
  fail "VERBOSE.md is not in the user's tree after landing"

# f: a follow-up, a comment on its pull request.
keys M-x
wait_for '^M-x' "the M-x prompt" 5
type_text gemini-ls-agents
keys Enter
wait_for 'write a verbose note' "the agents view again" 10
keys 'M-<'
keys f
wait_for 'Follow-up for the agent' "the follow-up's prompt" 5
type_text 'say it louder'
keys Enter
wait_for 'runs again on GitHub|write a verbose note +(queued|working)' "the follow-up taken" 30
state="$(fake_state)" || fail "fakegithub's state did not answer"
grep -Eq '@gemini-ls[^"]*say it louder' <<<"$state" ||
  fail "the follow-up is no @gemini-ls comment on the pull request: $state"
echo "PASS tmux-background"
