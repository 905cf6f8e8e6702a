#!/usr/bin/env bash
# The agents view in a real interactive Emacs (emacs -nw inside a detached
# tmux) against the real gemini-ls and fakegemini, in a git repository:
# M-x gemini-ls-agents, + starts two agents (alpha edits greet.py, beta
# writes notes.txt), each in its own worktree; both rows show, alpha done
# while beta works (emacs-agents.txt), then both done with the file each
# changed, the main tree still untouched; l on alpha opens its work for
# review, A accepts it, and *gemini land* says what landed
# (emacs-agents-land.txt): greet.py on disk holds alpha's change; RET on
# alpha opens its chat (the chat held nothing of the agents before),
# with its answer and not beta's; D on beta,
# answered Discard, removes its worktree and its branch, and its row goes.
# Called by run.sh with GEMINI_LS_BIN and FAKEGEMINI_BIN set; prints
# "PASS tmux-agents" or "FAIL tmux-agents: why".
set -uo pipefail
sock="gemini-agents-$$"
# shellcheck source=tmux.sh
. "$(dirname "$0")/tmux.sh"

fail() { fail_showing tmux-agents "$@"; }

proj="$work/proj"
mkdir -p "$proj"
printf 'def greet(name):\n    return "Hello, " + name\n' >"$proj/greet.py"
git -C "$proj" init -q -b main
git -C "$proj" -c user.name=t -c user.email=t@example.com add greet.py
git -C "$proj" -c user.name=t -c user.email=t@example.com commit -q -m "greet"

# Two agents at once share one fake model: each request is answered by
# the rule its text holds, not in turn. A follow-up holds the words the
# model said with its call ("Editing greet.py."), so its rule comes first.
cat >"$work/script.json" <<JSON
{"rules": [$classifier_rule,
  {"contains": "Editing greet.py.", "turn": {"text": "greet says Hi now."}},
  {"contains": "Writing notes.txt.", "turn": {"delay": "8s", "text": "notes.txt is written."}},
  {"contains": "make greet say Hi", "turn": {"chunks": [
    {"text": "Editing greet.py."},
    {"call": {"name": "replace", "args": {
      "file_path": "greet.py",
      "old_string": "    return \"Hello, \" + name\n",
      "new_string": "    return \"Hi, \" + name\n"}}}]}},
  {"contains": "write a note", "turn": {"chunks": [
    {"text": "Writing notes.txt."},
    {"call": {"name": "write_file", "args": {
      "file_path": "notes.txt", "content": "greet greets.\n"}}}]}}
 ],
 "turns": []}
JSON
trust "$proj"
start_fake --script "$work/script.json"

chat_init_el
cat >>"$work/init.el" <<EOF2
(setq save-silently t)
EOF2

export TERM=xterm-256color
tmux -L "$sock" -f /dev/null new-session -d -x 140 -y 40 \
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL \
   TERM=xterm-256color HOME='$work/home' GEMINI_API_KEY=test GOOGLE_GEMINI_BASE_URL='$url' \
   emacs -nw -Q -l '$work/init.el' greet.py" || fail "tmux did not start"
wait_for 'Hello, ' "greet.py to open"

keys M-x
wait_for '^M-x' "the M-x prompt" 5
type_text gemini-ls-agents
keys Enter
wait_for 'No agents yet' "the empty agents view" 30
wait_for 'Task +State +Elapsed +Tokens +Files' "the agents view's columns" 5

# start NAME TASK: + in the view, the task, then the worktree's name.
start() {
  keys +
  wait_for "Agent's task:" "the task's prompt" 5
  type_text "$2"
  keys Enter
  wait_for "worktree's name" "the worktree name's prompt" 5
  type_text "$1"
  keys Enter
}
start alpha 'make greet say Hi'
wait_for 'make greet say Hi +(working|done)' "alpha's row" 30
start beta 'write a note on greet'
wait_for 'write a note on greet +(working|done)' "beta's row" 30
grep -q 'make greet say Hi' <<<"$(screen)" || fail "alpha's row went when beta started"

# beta's model answers its second request after 8 s: alpha is done while
# beta works, its time counting.
wait_for 'make greet say Hi +done .*1 file \+1 −1' "alpha done, greet.py changed" 60
# The view counts its time each second: 2 s or more shows it counted.
wait_for 'write a note on greet +working +([2-9]|[1-9][0-9])s +[0-9.]+k?' "beta at work, its time counting" 10
printf '%s\n' "$(screen)" >"$(picture emacs-agents)"
wait_for 'write a note on greet +done .*1 file \+1 −0' "beta done" 60
shot="$(screen)"
# Newest first.
[[ "$(grep -n 'write a note on greet' <<<"$shot" | cut -d: -f1)" -lt \
   "$(grep -n 'make greet say Hi' <<<"$shot" | cut -d: -f1)" ]] || fail "beta, the newer, is not first"
grep -q 'is done' <<<"$shot" || fail "the echo area did not say an agent is done"
[[ -f "$proj/.gemini/worktrees/alpha/greet.py" ]] || fail "alpha has no worktree"
grep -q 'Hi, ' "$proj/.gemini/worktrees/alpha/greet.py" || fail "alpha's worktree lacks its change"
grep -q 'Hello, ' "$proj/greet.py" || fail "the main tree changed before landing: $(cat "$proj/greet.py")"
[[ -e "$proj/notes.txt" ]] && fail "beta's note reached the main tree"

# Land alpha: its row is the second.
keys 'M-<'
keys n
keys l
wait_for '^\+    return "Hi, " \+ name' "alpha's change in the review" 30
keys A
wait_for 'Landed' "landing's message" 30
shot="$(screen)"
printf '%s\n' "$shot" >"$(picture emacs-agents-land)"
grep -q 'return "Hi, " + name' "$proj/greet.py" || fail "greet.py does not hold alpha's change: $(cat "$proj/greet.py")"

# The agents' words stayed out of the chat, which showed no agent.
keys M-:
wait_for '^Eval:' "the M-: prompt" 5
type_text '(message "CHAT-HAS-AGENTS %S" (and (get-buffer "*gemini*") (with-current-buffer "*gemini*" (string-match-p "greet says Hi\\|notes.txt is written" (buffer-string)))))'
keys Enter
wait_for '^"?CHAT-HAS-AGENTS nil' "the chat to hold nothing of the agents" 5

# RET on alpha: its chat, what it did.
keys M-x
wait_for '^M-x' "the M-x prompt" 5
type_text gemini-ls-agents
keys Enter
wait_for 'make greet say Hi' "the agents view again" 10
keys 'M-<'
keys n
keys Enter
wait_for 'Continuing: make greet say Hi' "alpha's chat" 20
wait_for 'greet says Hi now\.' "alpha's answer in its chat" 10
grep -q 'notes\.txt is written' <<<"$(screen)" && fail "beta's answer shows in alpha's chat"

# Discard beta, the first row.
keys M-x
wait_for '^M-x' "the M-x prompt" 5
type_text gemini-ls-agents
keys Enter
wait_for 'write a note on greet' "the agents view again" 10
keys 'M-<'
keys D
wait_for 'Discard the agent' "the server's question" 30
# eglot offers the first action, Discard, typed in already (eglot 1.9)
# or as the default: the answer is typed afresh either way.
keys C-a C-k
type_text Discard
keys Enter
wait_gone 'write a note on greet' "beta's row to go" 30
[[ -e "$proj/.gemini/worktrees/beta" ]] && fail "beta's worktree is still there"
git -C "$proj" rev-parse -q --verify worktree-beta >/dev/null && fail "beta's branch is still there"
[[ -e "$proj/notes.txt" ]] && fail "beta's note reached the main tree"
echo "PASS tmux-agents"
