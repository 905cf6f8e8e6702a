#!/usr/bin/env bash
# The review's diff headers for a file of no project, in a real
# interactive Emacs (emacs -nw inside a detached tmux): a folder under
# /tmp that is no repository, as a user's first try is, and no
# project-find-functions of the test's. The model edits greet.py there;
# the review names it --- a/greet.py, relative to the folder the chat's
# server works in, as diff-mode and magit read a diff, never
# a//tmp/.../greet.py (emacs-review-path.txt); accepted, the file holds
# the change.
# Called by run.sh with GEMINI_LS_BIN and FAKEGEMINI_BIN set; prints
# "PASS tmux-review-path" or "FAIL tmux-review-path: why".
set -uo pipefail
sock="gemini-review-path-$$"
# shellcheck source=tmux.sh
. "$(dirname "$0")/tmux.sh"

fail() { fail_showing tmux-review-path "$@"; }

proj="$work/demo"
mkdir -p "$proj"
printf 'def greet(name):\n    return "Hello, " + name\n' >"$proj/greet.py"
cat >"$work/script.json" <<JSON
{"rules": [$classifier_rule],
 "turns": [
  {"chunks": [{"call": {"name": "replace", "args": {
    "file_path": "greet.py",
    "old_string": "    return \"Hello, \" + name\n",
    "new_string": "    return \"Hi, \" + name\n"}}}]},
  {"text": "greet says Hi now."}
 ]}
JSON
trust "$proj"
start_fake --script "$work/script.json"

init_el
cat >>"$work/init.el" <<EOF2
(setq gemini-ls-server-command "$GEMINI_LS_BIN"
      inhibit-startup-screen t
      make-backup-files nil
      save-silently t
      suggest-key-bindings nil)
EOF2

export TERM=xterm-256color
tmux -L "$sock" -f /dev/null new-session -d -x 140 -y 40 \
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL \
   TERM=xterm-256color HOME='$work/home' GEMINI_API_KEY=test GOOGLE_GEMINI_BASE_URL='$url' \
   emacs -nw -Q -l '$work/init.el' greet.py" || fail "tmux did not start"
wait_for 'Hello, ' "greet.py to open"

keys M-:
wait_for '^Eval:' "the M-: prompt" 5
type_text '(message "PROJECT %S" (project-current))'
keys Enter
wait_for '^"?PROJECT nil' "greet.py to be in no project" 5

keys M-x
wait_for '^M-x' "the M-x prompt" 5
type_text gemini-ls-chat
keys Enter
wait_for 'Prompt \(C-c C-c sends\)' "the chat's prompt area" 20
type_text 'make greet say Hi'
keys C-c C-c
wait_for '^--- a/' "the review's diff" 30
shot="$(screen)"
grep -q '^--- a/greet\.py$' <<<"$shot" || fail "the review does not name --- a/greet.py"
grep -q '^+++ b/greet\.py$' <<<"$shot" || fail "the review does not name +++ b/greet.py"
grep -q '^--- a//' <<<"$shot" && fail "the review names an absolute path after a/"
printf '%s\n' "$shot" >"$(picture emacs-review-path)"
keys A
wait_for 'greet says Hi now\.' "the answer after the change was accepted" 30
grep -q 'return "Hi, " + name' "$proj/greet.py" || fail "greet.py does not hold the change: $(cat "$proj/greet.py")"
echo "PASS tmux-review-path"
