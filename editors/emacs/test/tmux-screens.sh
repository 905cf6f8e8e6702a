#!/usr/bin/env bash
# Drives a real interactive Emacs (emacs -nw inside a detached tmux) against
# the real gemini-ls and fakegemini: prompt, review, accept, then a shell
# command rejected with C-g, then a prompt starting with "/" whose TAB
# completes the user's commands (two custom commands in the run's own HOME).
# It writes the screens to emacs-chat.txt, emacs-review.txt and
# emacs-commands.txt in build/screenshots, then answers the model's
# ask_user question (emacs-ask.txt) and lists the prompts to rewind to
# (emacs-rewind.txt), then types a two-line prompt in the chat buffer and
# sends it with C-c C-c (emacs-prompt.txt, emacs-prompt-sent.txt), and
# checks them, the mode line's
# Gemini status, the file on disk and what reached the model. Called by run.sh with
# GEMINI_LS_BIN and FAKEGEMINI_BIN set; prints "PASS tmux-screens" or
# "FAIL tmux-screens: why".
# GEMINI_SCREENSHOTS_DIR, when set, receives the screens instead of
# build/screenshots; `make screenshots` copies them into docs/screenshots.
set -uo pipefail
sock="gemini-emacs-$$"
# shellcheck source=tmux.sh
. "$(dirname "$0")/tmux.sh"

fail() { fail_showing tmux-screens "$@"; }

proj="$work/proj"
mkdir -p "$proj"
cat >"$proj/greet.py" <<'PY'
def greet(name):
    return "Hello, " + name


def main():
    print(greet("world"))
PY
original="$(cat "$proj/greet.py")"

cat >"$work/script.json" <<'JSON'
[
  {"chunks": [
    {"thought": true, "text": "**Planning the change** The greeting lives in greet."},
    {"text": "I'll make the greeting say **Hi** instead of Hello.\n"},
    {"call": {"name": "replace", "args": {
      "file_path": "greet.py",
      "old_string": "    return \"Hello, \" + name\n",
      "new_string": "    return \"Hi, \" + name + \"!\"\n"}}}
  ]},
  {"text": "Done: `greet` now returns `Hi, <name>!`."},
  {"chunks": [{"call": {"name": "run_shell_command", "args": {"command": "touch marker"}}}]},
  {"text": "I did not run it."},
  {"text": "Reviewed greet.py: it looks fine."},
  {"chunks": [{"call": {"name": "ask_user", "args": {"questions": [{
    "header": "Database", "question": "Which database should the service use?",
    "type": "choice", "multiSelect": false,
    "options": [{"label": "PostgreSQL", "description": "Relational, what production runs."},
                {"label": "SQLite", "description": "One file, nothing to run."}]}]}}}]},
  {"text": "SQLite it is: one file, nothing to run."},
  {"text": "Both lines reached me."}
]
JSON

# The user's custom commands, in a HOME of the run's own; the workspace is
# trusted (an untrusted one loads none).
mkdir -p "$work/home/.gemini/commands"
printf 'description = "Review a file for bugs"\nprompt = "Please review {{args}} line by line."\n' \
  >"$work/home/.gemini/commands/review.toml"
printf 'description = "Explain the code"\nprompt = "Explain {{args}}."\n' \
  >"$work/home/.gemini/commands/explain.toml"

start_fake --script "$work/script.json" --record "$work/requests.jsonl"

cat >"$work/init.el" <<EOF2
(setq package-directory-list
      (cons "/usr/share/emacs/site-lisp/elpa" package-directory-list))
(package-initialize)
(add-to-list 'load-path "$here/..")
(require 'gemini-ls)
(setq gemini-ls-server-command "$GEMINI_LS_BIN"
      inhibit-startup-screen t
      make-backup-files nil
      save-silently t ; keeps the temp path out of the captured echo area
      ;; "You can run the command … with M-x ge-pr RET" shows for a while
      ;; after M-x, its abbreviation changing with the package's commands.
      suggest-key-bindings nil
      project-find-functions (list (lambda (_) (cons 'transient "$proj/"))))
;; No Python language server here: eglot runs gemini-ls for Python.
(gemini-ls-register 'python-mode)
(add-hook 'python-mode-hook #'eglot-ensure)
EOF2

export TERM=xterm-256color
tmux -L "$sock" -f /dev/null new-session -d -x 160 -y 45 \
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI TERM=xterm-256color HOME='$work/home' GEMINI_CLI_TRUST_WORKSPACE=true GEMINI_API_KEY=test \
   GEMINI_MODEL=gemini-test \
   GOOGLE_GEMINI_BASE_URL='$url' \
   emacs -nw -Q -l '$work/init.el' greet.py" || fail "tmux did not start"

# ask PROMPT: M-x gemini-ls-prompt, as a user types it.
ask() {
  tmux -L "$sock" send-keys M-x
  wait_for '^M-x' "the M-x prompt" 5
  tmux -L "$sock" send-keys -l 'gemini-ls-prompt'
  tmux -L "$sock" send-keys Enter
  wait_for 'Ask Gemini:' "the prompt question" 5
  [[ $# -gt 0 ]] || return 0
  tmux -L "$sock" send-keys -l "$1"
  tmux -L "$sock" send-keys Enter
}

wait_for '\[eglot:' "eglot to connect"
wait_for '\) Gemini \(gemi' "the idle status and the model in the mode line" 5
ask 'make greet say Hi'

wait_for '\*gemini review\*' "the review buffer"
wait_for '\|\+    return "Hi, " \+ name \+ "!"' "the diff's + line" 5
screen >"$shots/emacs-review.txt"
grep -qF -- '|-    return "Hello, " + name' "$shots/emacs-review.txt" \
  || fail "review screen lacks the diff's - line"
grep -q 'Gemini: edit greet.py' "$shots/emacs-review.txt" \
  || fail "review screen lacks the change's label"
grep -q 'Gemini:reviewing' "$shots/emacs-review.txt" \
  || fail "review screen's mode line lacks Gemini:reviewing"
# The help lines fit the review's window (80 columns here): no item is
# cut in two by a continuation line.
grep -q 'R: reject all' "$shots/emacs-review.txt" \
  || fail "review screen's help line cuts 'R: reject all'"
! grep -q '\\$' "$shots/emacs-review.txt" \
  || fail "review screen has a continued (wrapped) line"

tmux -L "$sock" send-keys A
wait_for 'Done: `greet` now returns' "the answer after the review"
wait_for 'Edit greet.py \[ok\]' "the edit's tool line to say ok" 5
wait_for 'say \*\*Hi\*\* instead of Hello' "the streamed answer" 5
wait_for '\) Gemini \(gemi' "the idle status once the answer is in" 5
screen >"$shots/emacs-chat.txt"
grep -q '> thought: Planning the change' "$shots/emacs-chat.txt" \
  || fail "chat screen lacks the folded thought"
! grep -q 'The greeting lives in greet' "$shots/emacs-chat.txt" \
  || fail "chat screen shows the thought's text, which should be folded"
grep -q 'make greet say Hi' "$shots/emacs-chat.txt" \
  || fail "chat screen lacks the prompt"

deadline=$((SECONDS + 5))
until grep -q 'return "Hi, " + name + "!"' "$proj/greet.py"; do
  ((SECONDS < deadline)) || fail "greet.py on disk was not changed: $(cat "$proj/greet.py")"
  sleep 0.2
done
[[ "$(cat "$proj/greet.py")" != "$original" ]] || fail "greet.py unchanged"

# The question is asked from a timer, where quitting is inhibited: C-g
# must still answer it, as a rejection.
ask 'make a marker'
wait_for 'Allow shell command\? touch marker' "the shell command's question"
tmux -L "$sock" send-keys C-g
wait_for 'Shell touch marker \[rejected\]' "C-g to reject the command"
wait_for 'I did not run it' "the answer after the rejection" 5
[[ ! -e "$proj/marker" ]] || fail "the rejected command ran"

# "/" then TAB lists the commands with their descriptions; "rev" TAB
# completes /review, sent with an argument.
ask
tmux -L "$sock" send-keys -l '/'
tmux -L "$sock" send-keys Tab
wait_for '/review +Review a file for bugs' "the commands' completions"
wait_for '/explain +Explain the code' "the second command's completion" 5
screen >"$shots/emacs-commands.txt"
grep -q 'Ask Gemini: /' "$shots/emacs-commands.txt" || fail "commands screen lacks the prompt"
tmux -L "$sock" send-keys -l 'rev'
tmux -L "$sock" send-keys Tab
wait_for 'Ask Gemini: /review *$' "TAB to complete /review" 5
tmux -L "$sock" send-keys -l ' greet.py'
tmux -L "$sock" send-keys Enter
wait_for 'Reviewed greet.py: it looks fine' "the answer to /review"
tail -n 1 "$work/requests.jsonl" | grep -qF 'Please review greet.py line by line.' \
  || fail "the model did not get /review's expansion: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"

# The model's ask_user question in the minibuffer, TAB listing its
# options with what each means; "SQ" TAB completes SQLite, sent with RET.
ask 'set up storage'
wait_for 'Database: Which database should the service use\?' "the model's question"
tmux -L "$sock" send-keys Tab
wait_for 'SQLite +— One file, nothing to run\.' "the question's options" 5
wait_for 'Decline' "the question's Decline" 5
screen >"$shots/emacs-ask.txt"
grep -q 'Gemini:asking' "$shots/emacs-ask.txt" \
  || fail "question screen's mode line lacks Gemini:asking"
! grep -q 'Gemini:reviewing' "$shots/emacs-ask.txt" \
  || fail "question screen's mode line says reviewing, with nothing to review"
grep -Eq 'PostgreSQL +— Relational, what production runs\.' "$shots/emacs-ask.txt" \
  || fail "question screen lacks the first option"
tmux -L "$sock" send-keys -l 'SQ'
tmux -L "$sock" send-keys Tab
wait_for 'should the service use\? SQLite$' "TAB to complete SQLite" 5
tmux -L "$sock" send-keys Enter
wait_for 'SQLite it is: one file, nothing to run\.' "the answer after the question"
tail -n 1 "$work/requests.jsonl" | grep -qF '{\"answers\":{\"0\":\"SQLite\"}}' \
  || fail "the model was not told SQLite: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"

# M-x gemini-ls-rewind lists the session's prompts with the files each
# changed; C-g leaves the session alone.
tmux -L "$sock" send-keys M-x
wait_for '^M-x' "the M-x prompt" 5
tmux -L "$sock" send-keys -l 'gemini-ls-rewind'
tmux -L "$sock" send-keys Enter
wait_for 'Rewind to before:' "the rewind question"
tmux -L "$sock" send-keys Tab
wait_for '1\. make greet say Hi  \[greet\.py\]' "the rewind list" 5
wait_for '4\. set up storage' "the rewind list's last prompt" 5
screen >"$shots/emacs-rewind.txt"
tmux -L "$sock" send-keys C-g

# A prompt of two lines typed in the chat buffer itself, below its marker
# line, and sent with C-c C-c; the header line tells the keys.
tmux -L "$sock" send-keys C-x o
wait_for 'C-c C-c send · C-c C-k cancel' "the chat's header line with the keys" 5
tmux -L "$sock" send-keys 'M->'
tmux -L "$sock" send-keys -l 'Check greet.py once more:'
tmux -L "$sock" send-keys Enter
tmux -L "$sock" send-keys -l '  does it greet the world?'
# The chat is beside the file (Emacs 28 here) or below it (Emacs 30).
wait_for '(^|\|)  does it greet the world\?' "the prompt's second line in the chat's prompt area" 5
screen >"$shots/emacs-prompt.txt"
grep -q '── Prompt (C-c C-c sends) ──' "$shots/emacs-prompt.txt" \
  || fail "prompt screen lacks the marker line"
tmux -L "$sock" send-keys C-c C-c
wait_for 'Both lines reached me\.' "the answer to the two-line prompt"
tail -n 1 "$work/requests.jsonl" | grep -qF 'Check greet.py once more:\n  does it greet the world?' \
  || fail "the model did not get both lines: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"
screen >"$shots/emacs-prompt-sent.txt"
grep -Eq '(^|\|)Check greet.py once more:' "$shots/emacs-prompt-sent.txt" \
  || fail "the sent prompt is not in the transcript"
[[ "$(grep -c 'Check greet.py once more:' "$shots/emacs-prompt-sent.txt")" -eq 1 ]] \
  || fail "the prompt area still holds the prompt sent"
# The window scrolled only as far as the answer needed: the prompt area is
# at its bottom (rows 2-43 of 45), under the transcript, not recentred.
marker_row=$(grep -n '── Prompt (C-c C-c sends) ──' "$shots/emacs-prompt-sent.txt" | cut -d: -f1)
[[ "$marker_row" -ge 40 ]] \
  || fail "the prompt's marker line is on row $marker_row of 45 after the answer, not at the window's bottom"
echo "PASS tmux-screens"
