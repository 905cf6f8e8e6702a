#!/usr/bin/env bash
# Drives a real interactive Emacs (emacs -nw inside a detached tmux) against
# the real gemini-ls and fakegemini, with the default model (auto) as a
# user has it, through the chat's scenarios, each on a page of its own (a
# new session starts on an empty chat):
#   - a prompt from the file, its review (emacs-review), accepted
#     (emacs-chat); a shell command rejected with C-g; the session's
#     prompts to rewind to (emacs-rewind);
#   - the chat's menu, C-c C-d (emacs-menu), whose n starts a new session;
#   - "/" and TAB in the chat's prompt area listing the user's commands
#     (emacs-commands), /review completed and sent;
#   - the model's question in the minibuffer (emacs-ask), answered: the
#     answer recorded under it in the chat (emacs-ask-answered);
#   - a two-line prompt typed in the prompt area (emacs-prompt), sent
#     with C-c C-c (emacs-prompt-sent);
#   - a shell command allowed, named while it runs as the chat names it
#     (emacs-running);
#   - a subagent's report as prose, its details folded (emacs-subagent),
#     then unfolded with TAB (emacs-subagent-details);
#   - plan mode: the plan shown and its approval asked (emacs-plan-approval).
# It checks the screens, the mode and header lines, the file on disk and
# what reached the model. The screens go to build/screenshots (or
# $GEMINI_SCREENSHOTS_DIR), named by picture (tmux.sh): emacs-chat.txt
# from Emacs 28, emacs-chat-30.txt from Emacs 30. Called by run.sh with
# GEMINI_LS_BIN and FAKEGEMINI_BIN set; prints "PASS tmux-screens" or
# "FAIL tmux-screens: why".
set -uo pipefail
sock="gemini-emacs-$$"
# shellcheck source=tmux.sh
. "$(dirname "$0")/tmux.sh"

fail() { fail_showing tmux-screens "$@"; }

proj="$work/proj"
mkdir -p "$proj/.gemini/plans"
cat >"$proj/greet.py" <<'PY'
def greet(name):
    return "Hello, " + name


def main():
    print(greet("world"))
PY
original="$(cat "$proj/greet.py")"
# Plans in the project, where the scenario's model finds its plan.
printf '{"general": {"plan": {"directory": ".gemini/plans"}}}\n' >"$proj/.gemini/settings.json"
printf '# Cache greet\n\n1. Keep each name'"'"'s greeting in a dict.\n2. Return the kept one when the name comes again.\n' \
  >"$proj/.gemini/plans/cache.md"

cat >"$work/script.json" <<JSON
{"rules": [$classifier_rule],
 "turns": [
  {"chunks": [
    {"thought": true, "text": "**Planning the change** The greeting lives in greet."},
    {"text": "I'll make the greeting say **Hi** instead of Hello.\n"},
    {"call": {"name": "replace", "args": {
      "file_path": "greet.py",
      "old_string": "    return \"Hello, \" + name\n",
      "new_string": "    return \"Hi, \" + name + \"!\"\n"}}}
  ]},
  {"text": "Done: \`greet\` now returns \`Hi, <name>!\`."},
  {"chunks": [{"call": {"name": "run_shell_command", "args": {"command": "touch marker"}}}]},
  {"text": "I did not run it."},
  {"text": "Reviewed greet.py: it looks fine."},
  {"chunks": [{"call": {"name": "ask_user", "args": {"questions": [{
    "header": "Database", "question": "Which database should the service use?",
    "type": "choice", "multiSelect": false,
    "options": [{"label": "PostgreSQL", "description": "Relational, what production runs."},
                {"label": "SQLite", "description": "One file, nothing to run."}]}]}}}]},
  {"text": "SQLite it is: one file, nothing to run."},
  {"text": "Both lines reached me."},
  {"chunks": [{"call": {"name": "run_shell_command", "args": {"command": "sleep 4", "description": "Run the tests"}}}]},
  {"text": "The tests passed."},
  {"chunks": [{"call": {"name": "invoke_agent", "args": {"agent_name": "codebase_investigator",
    "prompt": "Map the project: which files are there and what do they hold?"}}}]},
  {"chunks": [{"call": {"name": "list_directory", "args": {"dir_path": "."}}}]},
  {"chunks": [{"text": "The project holds one file; reading it."},
              {"call": {"name": "read_file", "args": {"file_path": "greet.py"}}}]},
  {"chunks": [{"call": {"name": "complete_task", "args": {"report": {
    "SummaryOfFindings": "The project is one file, greet.py: greet builds the greeting and main prints it for the world.",
    "ExplorationTrace": ["Listed the project root.", "Read greet.py."],
    "RelevantLocations": [{"FilePath": "greet.py", "Reasoning": "The only file.", "KeySymbols": ["greet", "main"]}]}}}}]},
  {"text": "The investigator found one file, greet.py, which greets the world."},
  {"chunks": [{"call": {"name": "enter_plan_mode", "args": {"reason": "Design the cache first"}}}]},
  {"chunks": [{"call": {"name": "exit_plan_mode", "args": {"plan_filename": "cache.md"}}}]},
  {"text": "Implementing the plan."}
 ]}
JSON

# The user's custom commands, in a HOME of the run's own; the workspace is
# trusted (an untrusted one loads none).
mkdir -p "$work/home/.gemini/commands"
printf 'description = "Review a file for bugs"\nprompt = "Please review {{args}} line by line."\n' \
  >"$work/home/.gemini/commands/review.toml"
printf 'description = "Explain the code"\nprompt = "Explain {{args}}."\n' \
  >"$work/home/.gemini/commands/explain.toml"
trust "$proj"

start_fake --script "$work/script.json" --record "$work/requests.jsonl"

init_el
cat >>"$work/init.el" <<EOF2
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
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL TERM=xterm-256color HOME='$work/home' GEMINI_API_KEY=test \
   GOOGLE_GEMINI_BASE_URL='$url' \
   emacs -nw -Q -l '$work/init.el' greet.py" || fail "tmux did not start"

# mx COMMAND: M-x COMMAND RET, as typed.
mx() {
  keys M-x
  wait_for '^M-x' "the M-x prompt" 5
  type_text "$1"
  keys Enter
}

# ask PROMPT: M-x gemini-ls-prompt in the file, as a user types it.
ask() {
  mx gemini-ls-prompt
  wait_for 'Ask Gemini:' "the prompt question" 5
  type_text "$1"
  keys Enter
}

# chat_send TEXT: types TEXT in the chat's prompt area, C-c C-c sends it.
chat_send() {
  keys 'M->'
  type_text "$1"
  keys C-c C-c
}

# new_session: C-c C-n in the chat, which starts on an empty page.
new_session() {
  mx gemini-ls-chat
  keys C-c C-n
  wait_gone '## You' "the new session's empty chat" 5
}

# last_request_has TEXT: the model's last request holds TEXT.
last_request_has() {
  tail -n 1 "$work/requests.jsonl" | grep -qF -- "$1"
}

wait_for '\[eglot:' "eglot to connect"
# The default model, as a user sees it, beside the idle status.
wait_for '\) Gemini \(Auto\)' "the idle status and the model in the mode line" 10

# A prompt from the file; its change to review.
ask 'make greet say Hi'
wait_for '\*gemini review\*' "the review buffer"
wait_for '\|\+    return "Hi, " \+ name \+ "!"' "the diff's + line" 5
shot="$(picture emacs-review)"
screen >"$shot"
grep -qF -- '|-    return "Hello, " + name' "$shot" || fail "review screen lacks the diff's - line"
grep -q 'Gemini: edit greet.py' "$shot" || fail "review screen lacks the change's label"
grep -q 'Gemini:reviewing' "$shot" || fail "review screen's mode line lacks Gemini:reviewing"
# The help lines fit the review's window (80 columns here): no item is
# cut in two by a continuation line.
grep -q 'R: reject all' "$shot" || fail "review screen's help line cuts 'R: reject all'"
! grep -q '\\$' "$shot" || fail "review screen has a continued (wrapped) line"

keys A
wait_for 'Done: `greet` now returns' "the answer after the review"
wait_for 'Edit greet.py \[ok\]' "the edit's tool line to say ok" 5
wait_for 'say \*\*Hi\*\* instead of Hello' "the streamed answer" 5
# The chat's header line: ready, the model auto routed the prompt to, the
# session's tokens (none cached by the fake, its context under 1%: neither
# said).
wait_for '(^|\|) ready · Auto → [^ ]+ · [0-9.]+k? tokens +C-c C-c send · C-c C-d menu' "the chat's header line, ready" 5
shot="$(picture emacs-chat)"
screen >"$shot"
grep -q '> thought: Planning the change' "$shot" || fail "chat screen lacks the folded thought"
! grep -q 'The greeting lives in greet' "$shot" || fail "chat screen shows the thought's text, which should be folded"
grep -q 'make greet say Hi' "$shot" || fail "chat screen lacks the prompt"
# The chat's mode line says Gemini once: its mode, no status beside it.
chat_mode_line="$(grep '\*gemini\* ' "$shot" | sed 's/.*|//')"
grep -Eq '\(Gemini( [A-Za-z]+)*\) -*$' <<<"$chat_mode_line" || fail "the chat's mode line is not just its mode: $chat_mode_line"
[[ "$(grep -o 'Gemini' <<<"$chat_mode_line" | wc -l)" == 1 ]] \
  || fail "the chat's mode line says Gemini more than once: $chat_mode_line"

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
keys C-g
wait_for 'Shell touch marker \[rejected\]' "C-g to reject the command"
wait_for 'I did not run it' "the answer after the rejection" 5
[[ ! -e "$proj/marker" ]] || fail "the rejected command ran"

# M-x gemini-ls-rewind lists the session's prompts with the files each
# changed; C-g leaves the session alone.
mx gemini-ls-rewind
wait_for 'Rewind to before:' "the rewind question"
keys Tab
wait_for '1\. make greet say Hi  \[greet\.py\]' "the rewind list" 5
wait_for '2\. make a marker' "the rewind list's last prompt" 5
screen >"$(picture emacs-rewind)"
keys C-g

# The chat's menu, as gptel's and agent-shell's: its n starts a new
# session, on an empty page.
mx gemini-ls-chat
keys C-c C-d
wait_for 'n New session' "the menu" 5
wait_for 'a Approval mode \(Default\)…' "the menu's approval mode" 5
shot="$(picture emacs-menu)"
screen >"$shot"
grep -q 'k Cancel the prompt' "$shot" || fail "the menu lacks cancel"
grep -q 'w Rewind…' "$shot" || fail "the menu lacks rewind"
grep -q 'x Delete a session…' "$shot" || fail "the menu lacks delete a session"
grep -Eq 'm Model \(Auto → [^)]+\)…' "$shot" || fail "the menu lacks the model"
keys n
wait_gone '## You' "the new session's empty chat" 5
wait_gone 'n New session' "the menu to close" 5

# "/" then TAB in the chat's prompt area lists the commands with their
# descriptions; "rev" TAB completes /review, sent with an argument.
keys 'M->'
type_text '/'
keys Tab
# The first lines of the list: Emacs 30 shows fewer below the chat.
wait_for '/about +Show the version, the model' "the commands' completions"
wait_for '/explain +Explain the code' "the user's command's completion" 5
shot="$(picture emacs-commands)"
screen >"$shot"
grep -Eq '(^|\|)/$' "$shot" || fail "commands screen lacks the / typed in the prompt area"
! grep -q 'Ask Gemini:' "$shot" || fail "commands screen shows the minibuffer's prompt, not the chat's"
type_text 'rev'
keys Tab
wait_for '(^|\|)/review *$' "TAB to complete /review" 5
type_text ' greet.py'
keys C-c C-c
wait_for 'Reviewed greet.py: it looks fine' "the answer to /review"
last_request_has 'Please review greet.py line by line.' \
  || fail "the model did not get /review's expansion: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"

# The model's question in the minibuffer, TAB listing its options with
# what each means; "SQ" TAB completes SQLite, sent with RET; the chat
# records the answer under the question, which it shows once.
new_session
chat_send 'set up storage'
wait_for 'Database: Which database should the service use\?' "the model's question"
keys Tab
wait_for 'SQLite +— One file, nothing to run\.' "the question's options" 5
wait_for 'Decline' "the question's Decline" 5
shot="$(picture emacs-ask)"
screen >"$shot"
wait_for '(^|\|) asking · Auto' "the header line to say asking" 5
grep -q 'Gemini:asking' "$shot" || fail "question screen's mode line lacks Gemini:asking"
! grep -q 'reviewing' "$shot" || fail "question screen says reviewing, with nothing to review"
grep -Eq 'PostgreSQL +— Relational, what production runs\.' "$shot" || fail "question screen lacks the first option"
type_text 'SQ'
keys Tab
wait_for 'should the service use\? SQLite$' "TAB to complete SQLite" 5
keys Enter
wait_for 'SQLite it is: one file, nothing to run\.' "the answer after the question"
wait_for '(^|\|)  Database → SQLite$' "the answer recorded under the question" 5
shot="$(picture emacs-ask-answered)"
screen >"$shot"
[[ "$(grep -c 'Which database should the service use' "$shot")" == 1 ]] \
  || fail "the chat shows the question more than once"
last_request_has '{\"answers\":{\"0\":\"SQLite\"}}' \
  || fail "the model was not told SQLite: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"

# A prompt of two lines typed in the chat buffer itself, below its marker
# line, and sent with C-c C-c.
new_session
keys 'M->'
type_text 'Check greet.py once more:'
keys Enter
type_text '  does it greet the world?'
wait_for '(^|\|)  does it greet the world\?' "the prompt's second line in the chat's prompt area" 5
screen >"$(picture emacs-prompt)"
keys C-c C-c
wait_for 'Both lines reached me\.' "the answer to the two-line prompt"
# The answer shows before the turn ends: the picture waits for the end
# (the header line's "ready"), so it is the same frame each run.
wait_for '(^|\|) ready · ' "the turn to end after the answer" 10
last_request_has 'Check greet.py once more:\n  does it greet the world?' \
  || fail "the model did not get both lines: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"
shot="$(picture emacs-prompt-sent)"
screen >"$shot"
grep -Eq '(^|\|)Check greet.py once more:' "$shot" || fail "the sent prompt is not in the transcript"
[[ "$(grep -c 'Check greet.py once more:' "$shot")" -eq 1 ]] || fail "the prompt area still holds the prompt sent"

# A tool running: the header line and the mode line name it by the
# title the chat shows, not by the tool's name.
new_session
chat_send 'run the tests'
wait_for 'Allow shell command\? sleep 4' "the shell command's question"
keys y
wait_for '(^|\|) running Shell sleep 4' "the header line to name the running tool" 5
shot="$(picture emacs-running)"
screen >"$shot"
grep -q 'Shell sleep 4 (Run the tests) \[running\]' "$shot" || fail "the chat lacks the running call's line"
! grep -q 'run_shell_command' "$shot" || fail "the running tool is named by its tool name"
wait_for 'The tests passed\.' "the answer after the command"

# A subagent's report: its summary in words, its details folded under a
# line that TAB unfolds, as prose.
new_session
chat_send 'how is the project laid out?'
wait_for 'The investigator found one file' "the answer after the subagent"
wait_for 'Report: The project is one file, greet.py' "the report's summary" 5
wait_for '▸ Details: exploration trace, relevant locations' "the report's folded details" 5
shot="$(picture emacs-subagent)"
screen >"$shot"
! grep -q 'SummaryOfFindings\|ExplorationTrace\|[{}]' "$shot" || fail "the report shows as JSON"
! grep -q 'Exploration trace:' "$shot" || fail "the report's details are not folded"
keys C-r
type_text 'Details:'
keys Enter Tab
wait_for '▾ Details: exploration trace, relevant locations' "TAB to unfold the details" 5
wait_for '- File path: greet.py' "the details as prose" 5
screen >"$(picture emacs-subagent-details)"

# Plan mode: the model enters it (asked), writes its plan and asks for
# approval; the plan shows in its own buffer, the question in the
# minibuffer without it.
new_session
chat_send 'plan a cache for greet'
wait_for 'Enter Plan Mode' "the question to enter plan mode"
keys y
wait_for 'Plan Approval: approve the plan shown\? \(or type what to change\)' "the plan's approval question"
wait_for 'Keep each name.s greeting in a dict\.' "the plan shown" 5
keys Tab
wait_for 'Yes, manually accept edits +— Approves plan but requires confirmation' "the approval's options" 5
wait_for '(^|\|) asking · Auto → [^ ]+ · plan' "the header line to show plan mode" 5
screen >"$(picture emacs-plan-approval)"
type_text 'Yes, m'
keys Tab
wait_for 'change\) Yes, manually accept edits$' "TAB to complete the approval" 5
keys Enter
wait_for 'Implementing the plan\.' "the answer after the approval"
wait_for 'Plan Approval → Yes, manually accept edits' "the approval recorded in the chat" 5
wait_for '(^|\|) ready · Auto → [^ ]+ · [0-9.]+k? tokens +C-c C-c send' "the header line to leave plan mode" 5
echo "PASS tmux-screens"
