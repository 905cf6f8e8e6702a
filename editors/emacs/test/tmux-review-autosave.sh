#!/usr/bin/env bash
# Nothing reaches the disk before the user's yes (issue 96), in a real
# interactive Emacs (emacs -nw inside a detached tmux) with
# auto-save-visited-mode on every second, and Python buffers handed to
# gemini-ls by eglot-ensure. The model edits greet.py, then writes
# test_greet.py: while each is reviewed, past the auto-save interval and
# after (save-some-buffers t), greet.py on disk is the original and
# test_greet.py does not exist. RET in the review shows greet.py's
# proposal, a buffer visiting no file, in python-mode, not managed by eglot
# (emacs-review-autosave-proposal.txt); the user types a line there,
# which is no more saved, and C-c C-c accepts: greet.py holds the change
# and the user's line. A: test_greet.py is made
# (emacs-review-autosave-new.txt shows its review). Then an edit of
# greet.py and a new notes.md, each rejected: after the interval and
# save-some-buffers, greet.py is as accepted and notes.md absent.
# Called by run.sh with GEMINI_LS_BIN and FAKEGEMINI_BIN set; prints
# "PASS tmux-review-autosave" or "FAIL tmux-review-autosave: why".
set -uo pipefail
sock="gemini-review-autosave-$$"
# shellcheck source=tmux.sh
. "$(dirname "$0")/tmux.sh"

fail() { fail_showing tmux-review-autosave "$@"; }

proj="$work/demo"
mkdir -p "$proj"
printf 'def greet(name):\n    return "Hello, " + name\n' >"$proj/greet.py"
original="$(cat "$proj/greet.py")"
cat >"$work/script.json" <<JSON
{"rules": [$classifier_rule],
 "turns": [
  {"chunks": [{"call": {"name": "replace", "args": {
    "file_path": "greet.py",
    "old_string": "    return \"Hello, \" + name\n",
    "new_string": "    return \"Hi, \" + name\n"}}}]},
  {"chunks": [{"call": {"name": "write_file", "args": {
    "file_path": "test_greet.py",
    "content": "from greet import greet\n\n\ndef test_greet():\n    assert greet(\"Ada\") == \"Hi, Ada\"\n"}}}]},
  {"text": "Both changes are in."},
  {"chunks": [{"call": {"name": "replace", "args": {
    "file_path": "greet.py",
    "old_string": "    return \"Hi, \" + name\n",
    "new_string": "    return \"Hey, \" + name\n"}}}]},
  {"text": "Left greet.py as it was."},
  {"chunks": [{"call": {"name": "write_file", "args": {
    "file_path": "notes.md", "content": "# Notes\n"}}}]},
  {"text": "No notes then."}
 ]}
JSON
trust "$proj"
start_fake --script "$work/script.json"

chat_init_el
cat >>"$work/init.el" <<EOF2
(setq save-silently t
      auto-save-visited-interval 1)
(auto-save-visited-mode 1)
;; eglot runs gemini-ls for Python, and starts it for every Python buffer.
(gemini-ls-register 'python-mode)
(add-hook 'python-mode-hook #'eglot-ensure)
EOF2

export TERM=xterm-256color
tmux -L "$sock" -f /dev/null new-session -d -x 140 -y 40 \
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL \
   TERM=xterm-256color HOME='$work/home' GEMINI_API_KEY=test GOOGLE_GEMINI_BASE_URL='$url' \
   emacs -nw -Q -l '$work/init.el' greet.py" || fail "tmux did not start"
wait_for '\[eglot:' "eglot to connect"

mx() {
  keys M-x
  wait_for '^M-x' "the M-x prompt" 5
  type_text "$1"
  keys Enter
}
ask() {
  mx gemini-ls-prompt
  wait_for 'Ask Gemini:' "the prompt question" 5
  type_text "$1"
  keys Enter
}
# evaluate EXPR: M-: EXPR RET.
evaluate() {
  keys M-:
  wait_for '^Eval:' "the M-: prompt" 5
  type_text "$1"
  keys Enter
}
# saved_everything: past auto-save-visited-interval (1 s) twice over, then
# save-some-buffers as C-x s answered with ! would.
saved_everything() {
  sleep 2.5
  evaluate '(progn (save-some-buffers t) (message "SAVED-ALL"))'
  wait_for 'SAVED-ALL' "save-some-buffers" 5
}
# disk_is FILE TEXT WHEN: FILE in the project holds TEXT.
disk_is() {
  [[ "$(cat "$proj/$1")" == "$2" ]] || fail "$1 on disk $3: $(cat "$proj/$1")"
}
absent() {
  [[ ! -e "$proj/$1" ]] || fail "$1 exists $2: $(cat "$proj/$1")"
}

ask 'make greet say Hi and test it'
wait_for '^--- a/greet\.py' "greet.py's review"
saved_everything
disk_is greet.py "$original" "changed while its review was open"
absent test_greet.py "before its review"

# RET: the proposal, where the user adds a line.
keys Enter
wait_for "Gemini's proposal for greet\.py, not saved" "the proposal's header line"
evaluate '(message "PROPOSAL %S %S %S %S" buffer-file-name major-mode (bound-and-true-p eglot--managed-mode) gemini-ls-completion-mode)'
wait_for 'PROPOSAL nil python-mode nil nil' "the proposal to visit no file, in python-mode, unmanaged" 5
keys 'M->'
type_text '# Reviewed by me.'
keys Enter
saved_everything
shot="$(screen)"
printf '%s\n' "$shot" >"$(picture emacs-review-autosave-proposal)"
grep -q 'return "Hi, " + name' <<<"$shot" || fail "the proposal does not show the change"
disk_is greet.py "$original" "changed after the user edited the proposal"
keys C-c C-c
accepted="$(printf 'def greet(name):\n    return "Hi, " + name\n# Reviewed by me.')"
deadline=$((SECONDS + 10))
until [[ "$(cat "$proj/greet.py")" == "$accepted" ]]; do
  ((SECONDS < deadline)) || fail "greet.py is not as accepted: $(cat "$proj/greet.py")"
  sleep 0.2
done

wait_for '^--- a/test_greet\.py' "test_greet.py's review" 30
saved_everything
absent test_greet.py "while its review was open"
shot="$(screen)"
printf '%s\n' "$shot" >"$(picture emacs-review-autosave-new)"
grep -q '^+def test_greet' <<<"$shot" || fail "the new file's review lacks its + lines"
keys A
wait_for 'Both changes are in\.' "the answer after both were accepted" 30
[[ -f "$proj/test_greet.py" ]] || fail "test_greet.py was not made when accepted"
grep -q 'assert greet("Ada") == "Hi, Ada"' "$proj/test_greet.py" || fail "test_greet.py: $(cat "$proj/test_greet.py")"
disk_is greet.py "$accepted" "changed after it was accepted"

# Rejected: nothing changes, whatever saves.
ask 'say Hey instead'
wait_for '^--- a/greet\.py' "the second review of greet.py" 30
saved_everything
disk_is greet.py "$accepted" "changed while the second review was open"
keys R
wait_for 'Edit greet\.py \[rejected\]' "the edit's tool line to say rejected" 30
saved_everything
disk_is greet.py "$accepted" "changed after the edit was rejected"

ask 'keep notes'
wait_for '^--- a/notes\.md' "notes.md's review" 30
saved_everything
absent notes.md "while its review was open"
keys R
wait_for '\[rejected\]' "the new file's tool line to say rejected" 30
saved_everything
absent notes.md "after it was rejected"
echo "PASS tmux-review-autosave"
