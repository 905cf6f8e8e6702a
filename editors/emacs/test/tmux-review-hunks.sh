#!/usr/bin/env bash
# One change at a time, in a real interactive Emacs (emacs -nw inside a
# detached tmux). The model rewrites a 12-line file with two changes four
# lines apart: the review shows them as two hunks; a accepts the first,
# r rejects the second, q answers (emacs-review-hunks.txt): the file holds
# exactly the first, and the edit's line in the chat says "accepted in
# part: 1 of 2 changes" (emacs-review-hunks-chat.txt). Then the model
# replaces line 10 with two lines, one change: diff-mode's own C-c C-s
# (diff-split-hunk) splits it before the second line, r rejects that part,
# p p and a accept the first (emacs-review-split.txt): the file gets the
# first line alone, nothing the user rejected.
# Called by run.sh with GEMINI_LS_BIN and FAKEGEMINI_BIN set; prints
# "PASS tmux-review-hunks" or "FAIL tmux-review-hunks: why".
set -uo pipefail
sock="gemini-review-hunks-$$"
# shellcheck source=tmux.sh
. "$(dirname "$0")/tmux.sh"

fail() { fail_showing tmux-review-hunks "$@"; }

proj="$work/demo"
mkdir -p "$proj"
lines() { for i in $(seq 12); do
  case $i in
    3) printf '%s\n' "${L3:-line 3}" ;;
    7) printf '%s\n' "${L7:-line 7}" ;;
    10) printf '%s\n' "${L10:-line 10}" ;;
    *) printf 'line %d\n' "$i" ;;
  esac
done; }
lines >"$proj/notes.txt"
both="$(L3='LINE THREE' L7='LINE SEVEN' lines | sed 's/$/\\n/' | tr -d '\n')"
cat >"$work/script.json" <<JSON
{"rules": [$classifier_rule],
 "turns": [
  {"chunks": [{"call": {"name": "write_file", "args": {
    "file_path": "notes.txt", "content": "$both"}}}]},
  {"text": "I shouted two lines."},
  {"chunks": [{"call": {"name": "replace", "args": {
    "file_path": "notes.txt",
    "old_string": "line 10\n",
    "new_string": "TEN\nTEN AND A HALF\n"}}}]},
  {"text": "Line ten is two now."}
 ]}
JSON
trust "$proj"
start_fake --script "$work/script.json"

chat_init_el
cat >>"$work/init.el" <<EOF2
(setq save-silently t)
EOF2

export TERM=xterm-256color
tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 64 \
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL \
   TERM=xterm-256color HOME='$work/home' GEMINI_API_KEY=test GOOGLE_GEMINI_BASE_URL='$url' \
   emacs -nw -Q -l '$work/init.el' notes.txt" || fail "tmux did not start"
wait_for '^line 12' "notes.txt to open"

keys M-x
wait_for '^M-x' "the M-x prompt" 5
type_text gemini-ls-chat
keys Enter
wait_for 'Prompt \(C-c C-c sends\)' "the chat's prompt area" 20
type_text 'shout lines 3 and 7'
keys C-c C-c
wait_for '^\+LINE SEVEN' "the review's diff" 30
[[ $(screen | grep -c '^@@ ') == 2 ]] || fail "the two changes are not two hunks"
keys a
wait_for '\[accepted\]' "the first hunk accepted" 5
keys r
wait_for '\[rejected\]' "the second hunk rejected" 5
# Both hunks in sight, with their decisions.
keys 'M-<'
wait_for '^Gemini proposes' "the review's top" 5
grep -q '^@@ -1,6 +1,6 @@  \[accepted\]' <<<"$(screen)" || fail "the first hunk is not shown accepted"
printf '%s\n' "$(screen)" >"$(picture emacs-review-hunks)"
keys q
wait_for 'I shouted two lines\.' "the answer after the review" 30
wait_for 'accepted in part: 1 of 2 changes' "the chat to say the edit was accepted in part" 10
printf '%s\n' "$(screen)" >"$(picture emacs-review-hunks-chat)"
want="$(L3='LINE THREE' lines)"
[[ "$(cat "$proj/notes.txt")" == "$want" ]] || fail "notes.txt does not hold exactly the first change: $(cat "$proj/notes.txt")"

type_text 'make line 10 two lines'
keys C-c C-c
wait_for '^\+TEN AND A HALF' "the second review's diff" 30
[[ $(screen | grep -c '^@@ ') == 1 ]] || fail "the one change is not one hunk"
keys C-s
type_text '+TEN AND'
keys Enter C-a C-c C-s
wait_for '^@@ -11,' "the split" 5
[[ $(screen | grep -c '^@@ ') == 2 ]] || fail "diff-split-hunk did not make two hunks"
keys r
wait_for '\[rejected\]' "the second part rejected" 5
screen | grep -q 'Wrong type argument' && fail "r on the split's second part raised an error"
# r moved point past the last hunk: p, p back to the first part.
keys p p a
wait_for '\[accepted\]' "the first part accepted" 5
printf '%s\n' "$(screen)" >"$(picture emacs-review-split)"
[[ $(screen | grep -c '\[rejected\]') == 1 ]] || fail "the second part is no longer rejected after a"
keys q
wait_for 'Line ten is two now\.' "the answer after the second review" 30
want="$(L3='LINE THREE' L10='TEN' lines)"
[[ "$(cat "$proj/notes.txt")" == "$want" ]] || fail "notes.txt does not hold the split's first part alone: $(cat "$proj/notes.txt")"
echo "PASS tmux-review-hunks"
