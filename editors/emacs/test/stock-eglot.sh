#!/usr/bin/env bash
# Drives a real interactive Emacs with stock eglot and NO gemini-ls package
# (emacs -nw -Q in a detached tmux, loading only eglot and
# test/stock/init.el, which is what editors/emacs/README.md's "Without the
# package: stock eglot" section tells users to add) against the real
# gemini-ls and fakegemini:
#   a. a prompt whose answer takes 12 s (over eglot's 10 s request timeout)
#      completes, and Emacs answers keys meanwhile;
#   b. a code action's change, asked through window/showMessageRequest with
#      the diff in the question, is applied (Apply, then eglot 1.9's own
#      y/n): the buffer shows it and the model is told it was applied;
#   c. a change rejected at gemini-ls's question: the model is told declined;
#   d. a question left with C-g (eglot answers nothing), then gemini.cancel
#      ends the prompt; gemini.newSession starts a new conversation;
#   c. in it, a change to a file no buffer visits declined with n at eglot's
#      own y/n: the model is told declined (Emacs 30's eglot answers
#      "applied" there, but opens nothing, which gemini-ls sees).
# The model's requests (fakegemini --record) show what it was told and that
# successive prompts continue one conversation.
# Emacs 28 with elpa-eglot 1.9 and Emacs 30's built-in eglot both work:
# eglot 1.9 asks its own y/n before every server edit, newer eglot asks only
# when eglot-confirm-server-edits says so (it is set for the n case).
# Screens go to eglot-stock-*.txt in build/screenshots (or
# $GEMINI_SCREENSHOTS_DIR). Called by run.sh with GEMINI_LS_BIN and
# FAKEGEMINI_BIN set; prints "PASS stock-eglot" or "FAIL stock-eglot: why".
set -uo pipefail
sock="gemini-eglot-$$"
# shellcheck source=tmux.sh
. "$(dirname "$0")/tmux.sh"

# The screens are kept with the temporary directory's name replaced by one of
# the same length, so they line up and do not change from run to run.
placeholder="$(sed 's/[^/]/x/g; s|^/xxx/|/tmp/|' <<<"$work")"
shot() { screen | sed "s|$work|$placeholder|g" >"$shots/$1"; }

fail() {
  echo "FAIL stock-eglot: $*"
  if tmux -L "$sock" has-session 2>/dev/null; then
    echo "--- screen ---"; screen; echo "---"
    dump_events
    [[ -f "$work/messages.txt" ]] && { echo "--- *Messages* (tail) ---"; tail -n 30 "$work/messages.txt"; }
    [[ -f "$work/events.txt" ]] && { echo "--- eglot events (tail) ---"; tail -n 80 "$work/events.txt"; }
  fi
  [[ -f "$work/fake.log" ]] && { echo "--- fakegemini ---"; cat "$work/fake.log"; }
  [[ -f "$work/server.log" ]] && { echo "--- gemini-ls log (tail) ---"; tail -n 60 "$work/server.log"; }
  if [[ -f "$work/server.pid" ]] && kill -QUIT "$(cat "$work/server.pid")" 2>/dev/null; then
    sleep 1
    echo "--- gemini-ls goroutines (SIGQUIT) ---"; cat "$work/server.stderr"
  fi
  exit 1
}


# mx COMMAND: M-x COMMAND RET, as a user types it.
mx() {
  keys M-x
  wait_for '^M-x' "the M-x prompt" 10
  type_text "$1"
  keys Enter
}

# eval_lisp FORM: M-: FORM RET.
eval_lisp() {
  keys M-:
  wait_for '^Eval:' "the M-: prompt" 10
  type_text "$1"
  keys Enter
}

# elisp FORM: evaluates FORM in the Emacs under test through emacsclient
# (the test's init starts a server), without touching its screen.
elisp() { timeout 10 emacsclient -s "$work/emacs-server/server" --eval "$1" 2>&1; }

# messages: *Messages* (where eglot's "Server reports" go) in $work/messages.txt.
messages() {
  rm -f "$work/messages.txt"
  elisp "(with-current-buffer \"*Messages*\" (write-region nil nil \"$work/messages.txt\" nil 'silent))" >/dev/null
  [[ -f "$work/messages.txt" ]] && cat "$work/messages.txt"
}

# wait_answer REGEX WHAT: waits until REGEX is in the conversation's
# transcript on disk (polling Emacs itself through emacsclient would keep
# it from ever being idle, and Emacs 30's eglot sends didChange only once
# idle), then checks that eglot showed it: eglot 1.9 leaves the message in
# the echo area; newer eglot opens the transcript right after it
# (window/showDocument), whose "Reverting file" takes the echo area, so
# there *Messages* is checked.
wait_answer() {
  local deadline=$((SECONDS + ${3:-30}))
  until cat "$work"/state/gemini-ls/transcripts/*.md 2>/dev/null | grep -Eq -- "$1"; do
    ((SECONDS < deadline)) || fail "timed out waiting for $2 in the transcript"
    sleep 0.2
  done
  wait_message "$1" "$2" 10
}

# wait_message REGEX WHAT [SECONDS]: waits for eglot's message: on the
# screen with eglot 1.9, else in *Messages* (see wait_answer).
wait_message() {
  if [[ -n "$eglot_asks" ]]; then
    wait_for "$1" "$2 in the echo area" "${3:-30}"
    return
  fi
  local deadline=$((SECONDS + ${3:-30}))
  until messages | grep -Eq -- "$1"; do
    ((SECONDS < deadline)) || fail "timed out waiting for $2 in *Messages*"
    sleep 1
  done
}

# dump_events: eglot's events buffer into $work/events.txt (for failures).
dump_events() {
  messages >/dev/null
  elisp "(with-current-buffer (jsonrpc-events-buffer (with-current-buffer \"greet.py\" (eglot-current-server))) (write-region nil nil \"$work/events.txt\" nil 'silent))" >/dev/null
}

# back_to_greet: greet.py alone in the frame (Emacs 30 pops the transcript
# up through window/showDocument; eglot 1.9 has none).
back_to_greet() {
  keys C-x b
  wait_for 'Switch to buffer' "the buffer prompt" 10
  type_text greet.py
  keys Enter
  keys C-x 1
  wait_for 'greet\.py +' "greet.py's mode line" 10
}

# The model's requests fakegemini recorded.
nreq() { local n; n="$(grep -c enerateContent "$work/rec.jsonl" 2>/dev/null)"; echo "${n:-0}"; }
wait_requests() {
  local deadline=$((SECONDS + ${2:-20}))
  until (($(nreq) >= $1)); do
    ((SECONDS < deadline)) || fail "timed out waiting for the model's request $1 (have $(nreq))"
    sleep 0.2
  done
}
# record N response|text: request N's function responses or text (stock/record.el).
record() { emacs --batch -Q -l "$here/stock/record.el" -f stock-record "$work/rec.jsonl" "$@" 2>&1; }

emacs_major="$(emacs --batch -Q --eval '(princ emacs-major-version)' 2>/dev/null)"
[[ "$emacs_major" =~ ^[0-9]+$ ]] || fail "could not tell Emacs's version"
# eglot 1.9 (Debian's elpa-eglot, Emacs 28) asks its own y/n before every
# server edit; Emacs 29+'s eglot only for files not visited, by default.
if ((emacs_major < 29)); then eglot_asks=1; else eglot_asks=""; fi

proj="$work/proj"
mkdir -p "$proj" "$work/bin" "$work/state"
cat >"$proj/greet.py" <<'PY'
def greet(name):
    # TODO: say Hi instead of Hello
    return "Hello, " + name


def shout(name):
    return greet(name).upper()


def main():
    print(greet("world"))
PY
# A file no buffer visits, for the change declined at eglot's own y/n:
# eglot 1.9 asks about every change, Emacs 30's eglot (by default) about
# changes to files not visited.
cat >"$proj/run.py" <<'PY'
from greet import greet

print(greet("world"))
PY

# 1: the 12 s answer (a). 2-3: the TODO's change, applied (b). 4-5: a change
# rejected at gemini-ls's question (c). 6: a question left with C-g, then the
# prompt cancelled. 7-8: in a new conversation, a change declined at eglot's
# y/n (c).
# The turns a command starts take 500 ms, as a real model's do: Emacs 28's
# jsonrpc leaves a message that arrives in the same read as the answer to
# its synchronous workspace/executeCommand unread until the server sends
# something more, so an instant question would never show (the server waits
# for its answer meanwhile).
cat >"$work/script.json" <<'JSON'
[
  {"delay": "12s", "text": "The greeting is built in `greet`,\nand `shout` upper-cases it."},
  {"delay": "500ms", "chunks": [
    {"text": "I'll make the greeting say Hi and drop the TODO."},
    {"call": {"name": "replace", "args": {
      "file_path": "greet.py",
      "old_string": "    # TODO: say Hi instead of Hello\n    return \"Hello, \" + name\n",
      "new_string": "    return \"Hi, \" + name\n"}}}
  ]},
  {"text": "Done: greet now says Hi."},
  {"delay": "500ms", "chunks": [
    {"text": "Shouting with three exclamation marks."},
    {"call": {"name": "replace", "args": {
      "file_path": "greet.py",
      "old_string": "    return greet(name).upper()\n",
      "new_string": "    return greet(name).upper() + \"!!!\"\n"}}}
  ]},
  {"text": "Understood, shout stays as it is."},
  {"delay": "500ms", "chunks": [
    {"text": "Being polite."},
    {"call": {"name": "replace", "args": {
      "file_path": "greet.py",
      "old_string": "    return \"Hi, \" + name\n",
      "new_string": "    return \"Dear \" + name\n"}}}
  ]},
  {"delay": "500ms", "chunks": [
    {"call": {"name": "replace", "args": {
      "file_path": "run.py",
      "old_string": "print(greet(\"world\"))\n",
      "new_string": "print(greet(\"world\").upper())\n"}}}
  ]},
  {"text": "All right, main keeps calling greet."}
]
JSON

start_fake --script "$work/script.json" --record "$work/rec.jsonl"

# gemini-ls on PATH, as the README's eglot-server-programs entry expects;
# its debug log is shown when the test fails.
# On failure, its goroutines are dumped (SIGQUIT) from its stderr copy.
cat >"$work/bin/gemini-ls" <<EOF2
#!/usr/bin/env bash
echo \$\$ >"$work/server.pid"
exec "$GEMINI_LS_BIN" "\$@" --log-file "$work/server.log" --log-level debug 2> >(tee -a "$work/server.stderr" >&2)
EOF2
chmod +x "$work/bin/gemini-ls"

# The README's lines (stock/init.el) must be the ones tested.
while IFS= read -r line; do
  [[ -z "$line" || "$line" == \;* ]] && continue
  grep -qF -- "$line" "$here/../README.md" || fail "README.md lacks stock/init.el's line: $line"
done <"$here/stock/init.el"

# Only eglot: Debian's elpa-eglot (which -Q does not activate) or the
# built-in one; then the user's configuration.
cat >"$work/init.el" <<EOF2
(setq package-directory-list
      (cons "/usr/share/emacs/site-lisp/elpa" package-directory-list))
(package-initialize)
(require 'eglot)
(load "$here/stock/init.el" nil t)
(require 'server)
(setq server-socket-dir "$work/emacs-server")
(server-start) ; for the test's emacsclient --eval
(setq inhibit-startup-screen t
      make-backup-files nil
      ;; A fresh HOME: Emacs 28 compiles eglot's dependencies natively in
      ;; the background and would pop their warnings up.
      native-comp-async-report-warnings-errors 'silent)
EOF2

export TERM=xterm-256color
tmux -L "$sock" -f /dev/null new-session -d -x 130 -y 50 \
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI TERM=xterm-256color HOME='$HOME' \
   PATH='$work/bin':\"\$PATH\" XDG_STATE_HOME='$work/state' XDG_CACHE_HOME='$work/cache' GEMINI_API_KEY=test \
   GEMINI_MODEL=gemini-test GOOGLE_GEMINI_BASE_URL='$url' \
   emacs -nw -Q -l '$work/init.el' greet.py" || fail "tmux did not start"

wait_for 'greet\.py +' "Emacs to show greet.py" 30
mx eglot
wait_for "\\[eglot\\] Connected! Server \`gemini-ls' now managing" "eglot to connect" 30

# a. A prompt answered after 12 s. The command returns at once, so Emacs
# reads keys while the model thinks.
mx my-gemini-prompt
wait_for 'Ask Gemini:' "my-gemini-prompt's question" 10
type_text 'Where is the greeting built?'
keys Enter
start=$SECONDS
eval_lisp '(message "Emacs still answers keys")'
wait_for 'Emacs still answers keys' "Emacs to answer keys while the prompt runs" 8
! screen | grep -q 'greeting is built in' || fail "the answer came before the scripted 12 s"
shot eglot-stock-waiting.txt
wait_answer 'and `shout` upper-cases it' "the 12 s answer" 60
((SECONDS - start >= 10)) || fail "the answer came after $((SECONDS - start)) s, before the scripted delay"
{ screen; messages; } | grep -q 'Timed out' && fail "eglot reported Timed out"
shot eglot-stock-answer.txt
if [[ -z "$eglot_asks" ]]; then
  back_to_greet
fi

# b. The TODO's code action: the change is asked about with its diff, then
# (eglot 1.9) eglot asks its own y/n; the edit lands.
keys 'M-<'
keys C-n
mx eglot-code-actions
wait_for 'Pick an action' "eglot's code action question" 15
type_text 'Gemini: implement'
keys Enter
wait_for 'Gemini wants to edit greet\.py' "gemini-ls's question about the change" 30
wait_for 'Choose an option' "the question's options" 5
shot eglot-stock-question.txt
grep -qF -- '-    return "Hello, " + name' "$shots/eglot-stock-question.txt" \
  || fail "the question lacks the diff's - line"
grep -qF -- '+    return "Hi, " + name' "$shots/eglot-stock-question.txt" \
  || fail "the question lacks the diff's + line"
keys Enter # the default, Apply
if [[ -n "$eglot_asks" ]]; then
  wait_for 'Proceed\? \(y or n\)' "eglot's own y/n" 15
  shot eglot-stock-confirm.txt
  keys y
fi
wait_answer 'Done: greet now says Hi' "the answer after the applied change"
wait_requests 3
shot eglot-stock-applied.txt
if [[ -z "$eglot_asks" ]]; then back_to_greet; fi
screen | grep -qF 'return "Hi, " + name' || fail "greet.py's buffer does not show the change"
screen | grep -q 'TODO: say Hi' && fail "greet.py's buffer still shows the TODO"
out="$(record 3 response)"
grep -q 'Success' <<<"$out" || fail "the model was not told the change was applied: $out"
echo "stock-eglot: applied, the model read: $out"
# One conversation: the code action's request carries the first prompt.
record 2 text | grep -qF 'Where is the greeting built?' \
  || fail "the second prompt did not continue the first one's session"

# c. A change rejected at gemini-ls's question.
mx my-gemini-prompt
wait_for 'Ask Gemini:' "my-gemini-prompt's question" 10
type_text 'make shout louder'
keys Enter
wait_for 'Gemini wants to edit greet\.py' "the question about the shout change" 30
wait_for 'Choose an option' "the question's options" 5
# eglot puts the first action, Apply, in as the initial input.
keys C-a C-k
type_text Reject
keys Enter
wait_answer 'shout stays as it is' "the answer after the rejection"
wait_requests 5
shot eglot-stock-rejected.txt
out="$(record 5 response)"
grep -qi 'declined\|rejected\|not applied' <<<"$out" || fail "the model was not told the change was rejected: $out"
echo "stock-eglot: rejected at gemini-ls's question, the model read: $out"
grep -qF 'upper() + "!!!"' "$proj/greet.py" && fail "the rejected change reached greet.py on disk"
if [[ -z "$eglot_asks" ]]; then back_to_greet; fi
screen | grep -qF '"!!!"' && fail "the rejected change is in greet.py's buffer"

# C-g at the question leaves it unanswered (eglot sends no answer when its
# handler is quit: "error in process filter: Quit"); gemini.cancel ends the
# prompt. Then a new conversation.
mx my-gemini-prompt
wait_for 'Ask Gemini:' "my-gemini-prompt's question" 10
type_text 'make greet polite'
keys Enter
wait_for 'Gemini wants to edit greet\.py' "the question about the polite change" 30
wait_for 'Choose an option' "the question's options" 5
keys C-g
wait_for 'Quit' "C-g to quit the question" 10
mx my-gemini-cancel
# Emacs 28's jsonrpc may leave the message that follows gemini.cancel's
# answer unread until the server sends more (see the script's delays): it
# then shows with the next command's traffic, so only newer eglot is sure
# to show it here; eglot 1.9's *Messages* is checked after the next command.
if [[ -z "$eglot_asks" ]]; then
  wait_message 'Gemini: cancelled' "the cancelled prompt's message"
  shot eglot-stock-cancelled.txt
fi
deadline=$((SECONDS + 15))
until cat "$work"/state/gemini-ls/transcripts/*.md 2>/dev/null | grep -q '^_Cancelled\._'; do
  ((SECONDS < deadline)) || fail "the transcript does not say the prompt was cancelled"
  sleep 0.2
done
grep -qF 'Dear ' "$proj/greet.py" && fail "the cancelled change reached greet.py"
if [[ -z "$eglot_asks" ]]; then back_to_greet; fi
screen | grep -qF 'Dear ' && fail "the cancelled change is in greet.py's buffer"
(($(nreq) == 6)) || fail "the model was asked again after the cancel ($(nreq) requests)"
mx my-gemini-new-conversation
wait_message 'Gemini: a new conversation' "gemini.newSession's message" 10
messages | grep -q 'Gemini: cancelled' || fail "eglot never showed the cancelled prompt's message"

# c. Applied at gemini-ls's question, declined at eglot's own y/n, which
# both eglots ask for run.py, a file no buffer visits.
mx my-gemini-prompt
wait_for 'Ask Gemini:' "my-gemini-prompt's question" 10
type_text 'make run.py shout'
keys Enter
wait_for 'Gemini wants to edit run\.py' "the question about run.py" 30
wait_for 'Choose an option' "the question's options" 5
keys Enter # Apply
wait_for 'Proceed\? \(y or n\)' "eglot's own y/n" 15
keys n
wait_answer 'main keeps calling greet' "the answer after n at eglot's y/n"
wait_requests 8
shot eglot-stock-declined.txt
record 7 text | grep -qF 'Where is the greeting built?' \
  && fail "the prompt after gemini.newSession still continued the first conversation"
out="$(record 8 response)"
# Emacs 30's eglot answers {"applied": true} even after n, and opens
# nothing; gemini-ls sees that and tells the model the truth.
grep -qi 'declined\|not applied' <<<"$out" || fail "the model was not told the change was declined: $out"
echo "stock-eglot: declined at eglot's y/n, the model read: $out"
grep -qF '.upper())' "$proj/run.py" && fail "the declined change reached run.py"
echo "PASS stock-eglot"
