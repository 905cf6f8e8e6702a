#!/usr/bin/env bash
# The folder trust question in a real interactive Emacs (emacs -nw inside
# a detached tmux), in a project nobody trusted yet: the first prompt asks
# it with its choices on screen, numbered as Gemini CLI numbers them, with
# no TAB needed to see them (emacs-trust.txt), the question saying what
# Decline does, and ? what each choice does, Don't trust remembered,
# Decline not (emacs-trust-help.txt); 1 trusts the folder, which
# Gemini CLI's trustedFolders.json records, and the prompt gets its answer
# (emacs-trust-answered.txt).
# Called by run.sh with GEMINI_LS_BIN and FAKEGEMINI_BIN set; prints
# "PASS tmux-trust" or "FAIL tmux-trust: why".
set -uo pipefail
sock="gemini-trust-$$"
# shellcheck source=tmux.sh
. "$(dirname "$0")/tmux.sh"

fail() { fail_showing tmux-trust "$@"; }

proj="$work/proj"
mkdir -p "$proj" "$work/home/.gemini"
printf 'a TODO here\n' >"$proj/notes.txt"
cat >"$work/script.json" <<JSON
{"rules": [$classifier_rule],
 "turns": [{"chunks": [{"text": "The folder is trusted, and notes.txt holds a TODO."}]}]}
JSON
start_fake --script "$work/script.json"

chat_init_el

export TERM=xterm-256color
tmux -L "$sock" -f /dev/null new-session -d -x 140 -y 40 \
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL -u GEMINI_CLI_TRUST_WORKSPACE \
   TERM=xterm-256color HOME='$work/home' GEMINI_API_KEY=test GOOGLE_GEMINI_BASE_URL='$url' \
   emacs -nw -Q -l '$work/init.el' notes.txt" || fail "tmux did not start"
wait_for 'a TODO here' "notes.txt to open"

keys M-x
wait_for '^M-x' "the M-x prompt" 5
type_text gemini-ls-chat
keys Enter
wait_for 'Prompt \(C-c C-c sends\)' "the chat's prompt area" 20
type_text 'What is in notes.txt?'
keys C-c C-c
# The question and all its answers, at once: nothing typed, no TAB.
# Emacs 28 brackets each key ([1] Trust folder), Emacs 30 shows it bare
# in its face (1 Trust folder): either way every choice is on screen.
wait_for '\[?1\]? Trust folder, \[?2\]? Trust parent folder, \[?3\]? Don.t trust, \[?4\]? Decline' "the trust question's choices" 30
shot="$(screen)"
grep -q 'Do you trust the files in this folder?' <<<"$shot" || fail "the choices show without their question"
grep -qF "$proj" <<<"$shot" || fail "the question does not name the folder"
printf '%s\n' "$shot" >"$(picture emacs-trust)"
grep -q 'Declining, or closing the question, answers nothing' <<<"$shot" \
  || fail "the question does not say what Decline does"
# ? says what each choice does: Don't trust is remembered, Decline is not.
keys '?'
wait_for 'Multiple Choice Help' "the choices' help, at ?" 10
# In columns, a choice's words under it.
help="$(screen)"
grep -q 'Restricted mode: none' <<<"$help" || fail "? does not say what Don't trust does"
grep -q 'remembered, so' <<<"$help" || fail "? does not say Don't trust is remembered"
grep -q 'Answer nothing,' <<<"$help" || fail "? does not say what Decline does"
grep -q 'remember nothing: the' <<<"$help" || fail "? does not say Decline remembers nothing"
printf '%s\n' "$help" >"$(picture emacs-trust-help)"
screen >"$(picture emacs-trust-help)"
keys 1
wait_for 'The folder is trusted, and notes\.txt holds a TODO\.' "the answer after trusting the folder" 30
grep -q 'Trust folder' <<<"$(screen)" || fail "the chat does not record the answer"
screen >"$(picture emacs-trust-answered)"
grep -q "\"$proj\": \"TRUST_FOLDER\"" "$work/home/.gemini/trustedFolders.json" 2>/dev/null \
  || fail "trustedFolders.json does not trust $proj: $(cat "$work/home/.gemini/trustedFolders.json" 2>&1)"
echo "PASS tmux-trust"
