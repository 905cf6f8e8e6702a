#!/usr/bin/env bash
# Drives a real Helix (hx, no plugin: only editors/helix/languages.toml) in a
# detached tmux against the real gemini-ls and fakegemini, as a user of the
# README would: a code action, `:lsp-workspace-command gemini.prompt`, an edit
# shown in Helix's window/showMessageRequest popup and applied, one rejected,
# the conversation going on across prompts, its transcript, gemini.newSession,
# gemini.cancel, a diff too long for the popup (Show diff), Always Apply
# holding for the next prompt, a shell command declined, the model's
# question answered, a plan approved, a subagent's report in the
# transcript, an edit of two changes taken one by one, and completion as you type as an item of Helix's completion
# menu (inlineCompletion.completionItems), asked as the user types and with
# Ctrl-x. The transcript is checked as a user reads it: named for the
# conversation, wrapped at words (the markdown soft-wrap of
# languages.toml), each answer once after its question, the report as
# prose. The model is the default one, auto, as a user who chose none has
# it. Each scenario checks the screens (tmux capture-pane) and what
# reached the model (fakegemini --record).
#
# Run by editors/newer-editors.sh sid in a Debian sid chroot (Helix is in
# Debian only there), with GEMINI_LS_BIN and FAKEGEMINI_BIN set; it runs
# anywhere hx, tmux and git are. Screens go to
# ${GEMINI_SCREENSHOTS_DIR:-build/screenshots} as helix-*.txt. Prints
# "PASS name" or "FAIL name: why" per scenario, "NOTE ..." for what Helix was
# seen to do that no scenario asserts, and "N passed, N failed" last; exits 1
# if any failed. HELIX_TEST_KEEP=1 keeps the work directory (Helix's log with
# every LSP message, the requests the model got).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
shots="${GEMINI_SCREENSHOTS_DIR:-$root/build/screenshots}"
mkdir -p "$shots"
: "${GEMINI_LS_BIN:?set GEMINI_LS_BIN to the gemini-ls binary}"
: "${FAKEGEMINI_BIN:?set FAKEGEMINI_BIN to the fakegemini binary}"
command -v hx >/dev/null || { echo "helix: hx is not installed"; echo "0 passed, 1 failed"; exit 1; }

work="$(mktemp -d)"
sock="gemini-helix-$$"
fake_pid=""
passed=0 failed=0
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  [[ -n "$fake_pid" ]] && kill "$fake_pid" 2>/dev/null
  # HELIX_TEST_KEEP=1 keeps Helix's log, the requests and the files.
  if [[ -n "${HELIX_TEST_KEEP:-}" ]]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

screen() { tmux -L "$sock" capture-pane -p; }
keys() { tmux -L "$sock" send-keys "$@"; }

# A scenario is a function that returns 1 after saying why with `why`.
why=""
bad() { why="$*"; return 1; }
scenario() {
  local name=$1
  why=""
  if "$name"; then
    echo "PASS $name"; passed=$((passed + 1))
  else
    echo "FAIL $name: $why"; failed=$((failed + 1))
    echo "--- screen ---"; screen; echo "---"
    echo "--- gemini-ls traffic (last 15 lines of Helix's log) ---"
    grep -E 'transport|lsp' "$work/hx.log" 2>/dev/null | tail -n 15 | cut -c1-400
    echo "---"
  fi
}

# wait_for REGEX WHAT [SECONDS]: polls the screen until REGEX appears.
wait_for() {
  local deadline=$((SECONDS + ${3:-30}))
  until screen | grep -Eq -- "$1"; do
    ((SECONDS < deadline)) || { bad "timed out waiting for $2"; return 1; }
    sleep 0.2
  done
}

# wait_gone REGEX WHAT [SECONDS]: polls the screen until REGEX is gone.
wait_gone() {
  local deadline=$((SECONDS + ${3:-30}))
  while screen | grep -Eq -- "$1"; do
    ((SECONDS < deadline)) || { bad "timed out waiting for $2 to go"; return 1; }
    sleep 0.2
  done
}

# Helix reads an Escape followed at once by a key as Alt-key: one key at a time.
esc() { keys Escape; sleep 0.3; }

# cmd LINE: types a : command and runs it.
cmd() {
  esc
  keys :
  wait_for '^:' "the command line" 5 || return 1
  keys -l "$1"
  keys Enter
}

# pick TEXT WHAT: moves the selection of the open menu (code actions, the
# showMessageRequest popup) down to the item containing TEXT and chooses it.
# The default theme shows the selected item on white.
pick() {
  local i
  for i in $(seq 12); do
    if tmux -L "$sock" capture-pane -p -e | grep -F -- "$1" | grep -qF $'\e[48;2;255;255;255m'; then
      keys Enter
      return 0
    fi
    keys Down
    sleep 0.3
  done
  bad "could not select \"$1\" in $2"
}

# routing: what marks the default model's (auto) routing request, one per
# prompt, which the script's rule answers.
routing='You are a specialized Task Routing AI'
# chat_requests: the requests that reached the model, as recorded, but the
# routing ones.
chat_requests() { grep -vF "$routing" "$work/requests.jsonl" 2>/dev/null; }
# request N: the Nth of them.
request() { chat_requests | sed -n "${1}p"; }
# wait_requests N: until the model has had N of them.
wait_requests() {
  local deadline=$((SECONDS + 30))
  until (($(chat_requests | wc -l) >= $1)); do
    ((SECONDS < deadline)) || { bad "the model had $(chat_requests | wc -l) requests, not $1"; return 1; }
    sleep 0.2
  done
}

proj="$work/proj"
mkdir -p "$proj"
cat >"$proj/greet.py" <<'PY'
def greet(name):
    return "Hello, " + name


# TODO: add a farewell function
def main():
    print(greet("world"))
PY
# Where completion_item types.
cat >"$proj/shop.py" <<'PY'
def total(prices):
    return sum(prices)


def main():
    prices = [3, 4, 5]
PY
# Where one_by_one's edit makes two changes four lines apart.
for i in $(seq 12); do echo "n$i = $i"; done >"$proj/nums.py"
git -C "$proj" init -q . # Helix's workspace root is the nearest .git
# The plan plan_approval's model presents, where the user's settings put
# plans (a session's own plans directory is made only with the session).
mkdir -p "$proj/.gemini/plans"
printf '# Cache the greeting\n\n1. Build the greeting once.\n2. Return it from greet.\n' >"$proj/.gemini/plans/cache.md"

# The model's turns, in the order the scenarios ask for them (a rule for the
# completions, at the end).
cat >"$work/script.json" <<'JSON'
{"turns": [
  {"text": "Here is the plan for the TODO.\n\nA farewell would mirror greet."},
  {"chunks": [
    {"text": "I'll make the greeting say Hi."},
    {"call": {"name": "replace", "args": {
      "file_path": "greet.py",
      "old_string": "    return \"Hello, \" + name\n",
      "new_string": "    return \"Hi, \" + name\n"}}}
  ]},
  {"text": "Done: greet now says Hi."},
  {"chunks": [
    {"call": {"name": "replace", "args": {
      "file_path": "greet.py",
      "old_string": "    return \"Hi, \" + name\n",
      "new_string": "    return \"Hi, \" + name + \"!\"\n"}}}
  ]},
  {"text": "Left it as it is."},
  {"text": "A fresh start."},
  {"delay": "60s", "text": "Too late."}
JSON
# A change whose diff is too long for the question: Show diff, then Always
# Apply; then an edit that is not asked about; then a shell command. Last,
# the rules for completions: every request for one (its prompt marks the
# cursor with <|cursor|>) gets, whenever it comes and without taking a turn,
# " * 2" after "prices = [3, 4, 5]" and else this continuation of "print(to".
long=$(for i in $(seq 12); do printf 'def f%d():\\n    return %d\\n\\n\\n' "$i" "$i"; done)
cat >>"$work/script.json" <<JSON
  ,{"chunks": [{"call": {"name": "write_file", "args": {"file_path": "greet.py", "content": "$long"}}}]},
  {"text": "Rewrote greet.py."},
  {"chunks": [{"call": {"name": "replace", "args": {
      "file_path": "greet.py",
      "old_string": "    return 12\n",
      "new_string": "    return 144\n"}}}]},
  {"text": "Changed f12 without asking."},
  {"chunks": [{"call": {"name": "run_shell_command", "args": {"command": "touch marker"}}}]},
  {"text": "I did not run it."},
  {"chunks": [{"call": {"name": "ask_user", "args": {"questions": [{
      "header": "Database", "question": "Which database should the service use?",
      "type": "choice", "multiSelect": false,
      "options": [{"label": "PostgreSQL", "description": "Relational, what production runs."},
                  {"label": "SQLite", "description": "One file, nothing to run."}]}]}}}]},
  {"text": "SQLite it is: one file, nothing to run."},
  {"chunks": [{"call": {"name": "enter_plan_mode", "args": {"reason": "Design the cache first"}}}]},
  {"chunks": [{"call": {"name": "exit_plan_mode", "args": {"plan_filename": "cache.md"}}}]},
  {"text": "Implementing the plan: the greeting is built once."},
  {"chunks": [{"call": {"name": "invoke_agent", "args": {
      "agent_name": "codebase_investigator",
      "prompt": "Map the project: which files are there and what do they hold?"}}}]},
  {"chunks": [{"call": {"name": "list_directory", "args": {"dir_path": "."}}}]},
  {"chunks": [{"call": {"name": "read_file", "args": {"file_path": "shop.py"}}}]},
  {"chunks": [{"call": {"name": "complete_task", "args": {"report": {
      "SummaryOfFindings": "The project is two Python files: greet.py builds greetings, and shop.py sums prices.",
      "ExplorationTrace": ["Listed the project root.", "Read shop.py."],
      "RelevantLocations": [{"FilePath": "shop.py", "Reasoning": "Sums the prices.", "KeySymbols": ["total"]}]}}}}]},
  {"text": "The investigator found two files: greet.py and shop.py."},
  {"chunks": [{"call": {"name": "write_file", "args": {"file_path": "nums.py",
      "content": "n1 = 1\nn2 = 2\nn3 = \"three\"\nn4 = 4\nn5 = 5\nn6 = 6\nn7 = 7\nn8 = \"eight\"\nn9 = 9\nn10 = 10\nn11 = 11\nn12 = 12\n"}}}]},
  {"text": "Spelt out the numbers you kept."}
],
 "rules": [{"contains": "You are a specialized Task Routing AI", "turn": {"text": "{\"reasoning\": \"A short task.\", \"model_choice\": \"flash\", \"complexity_reasoning\": \"A short task.\", \"complexity_score\": 10}"}},
           {"contains": "5]<|cursor|>", "turn": {"text": " * 2"}},
           {"contains": "<|cursor|>", "turn": {"text": "tal(prices))"}}]}
JSON

"$FAKEGEMINI_BIN" --script "$work/script.json" --record "$work/requests.jsonl" >"$work/fake.out" 2>"$work/fake.log" &
fake_pid=$!
url=""
for _ in $(seq 300); do # up to 30 s: a loaded machine can be slow to start it
  url="$(sed -n 's/^GOOGLE_GEMINI_BASE_URL=//p' "$work/fake.out")"
  [[ -n "$url" ]] && break
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "FAIL start: fakegemini printed no URL"; cat "$work/fake.log"; echo "0 passed, 1 failed"; exit 1
fi

# Helix's configuration as the README has it: the languages.toml snippet
# (with this gemini-ls, and its completion line uncommented) and
# display-progress-messages; approvalMode is left at default, and Helix's
# completion settings at theirs.
home="$work/home"
mkdir -p "$home/.config/helix" "$home/.gemini"
# The folder trust question answered already ("Don't trust": untrusted, as
# it was); the Go tests cover the question (cmd/gemini-ls, lsptest).
printf '{"%s": "DO_NOT_TRUST"}' "$proj" >"$home/.gemini/trustedFolders.json"
printf '{"general": {"plan": {"directory": ".gemini/plans"}}}\n' >"$home/.gemini/settings.json"
completion_line='config = { inlineCompletion = { completionItems = true } }'
sed -e "s|^command = \"gemini-ls\"|command = \"$GEMINI_LS_BIN\"|" \
  -e "s|^# $completion_line\$|$completion_line|" \
  "$here/../languages.toml" >"$home/.config/helix/languages.toml"
grep -q "^command = \"$GEMINI_LS_BIN\"" "$home/.config/helix/languages.toml" \
  || { echo "FAIL start: languages.toml has no command = \"gemini-ls\" line"; echo "0 passed, 1 failed"; exit 1; }
grep -qxF "$completion_line" "$home/.config/helix/languages.toml" \
  || { echo "FAIL start: languages.toml has no \"# $completion_line\" line"; echo "0 passed, 1 failed"; exit 1; }
cat >"$home/.config/helix/config.toml" <<'TOML'
[editor.lsp]
display-progress-messages = true
TOML

# No GEMINI_MODEL: the default model, auto, routed once a prompt.
tmux -L "$sock" -f /dev/null new-session -d -x 120 -y 40 \
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL TERM=xterm-256color \
   HOME='$home' XDG_CONFIG_HOME='$home/.config' GEMINI_API_KEY=test \
   GOOGLE_GEMINI_BASE_URL='$url' hx -v --log '$work/hx.log' greet.py; sleep 600" \
  || { echo "FAIL start: tmux did not start"; echo "0 passed, 1 failed"; exit 1; }

# note TEXT: an observation of Helix's behaviour, printed, not asserted.
note() { echo "NOTE $*"; }

log_has() { grep -qF -- "$1" "$work/hx.log"; }

start() {
  wait_for 'greet\.py' "Helix with greet.py" || return 1
  local deadline=$((SECONDS + 30))
  until log_has '"method":"initialized"'; do
    ((SECONDS < deadline)) || { bad "gemini-ls was not initialized (Helix's log)"; return 1; }
    sleep 0.2
  done
}

code_action() {
  keys 5 g g
  sleep 0.3
  keys Space; sleep 0.3; keys a
  wait_for "Gemini: implement" "the code action menu" || return 1
  screen >"$shots/helix-code-actions.txt"
  ! screen | grep -q 'Gemini: explain' \
    || bad "\"explain\" is offered for a cursor, not a selection" || return 1
  pick "Gemini: implement" "the code action menu" || return 1
  wait_for 'Gemini: Here is the plan for the TODO' "the answer in the status line" || return 1
  wait_requests 1 || return 1
  request 1 | grep -qF 'add a farewell function' || bad "the model was not told the TODO" || return 1
  # The command answers at once; the turn goes on in the background.
  log_has '"status":"started"' || bad "gemini.prompt did not answer {\"status\": \"started\"}" || return 1
  grep -qF "$routing" "$work/requests.jsonl" || bad "the prompt was not routed: the model is not the default, auto" || return 1
  # Named for the conversation: its day, its first prompt, its id's start.
  wait_for 'transcripts/[0-9]{4}-[0-9]{2}-[0-9]{2}-implement-this-todo-in-greet-py-[0-9a-f]{8}\.md' "the transcript, named for the conversation (window/showDocument), to open" || return 1
  wait_for 'A farewell would mirror greet' "the answer in the transcript" || return 1
  # The prompt's one line is wrapped at a word, not cut at the window's
  # edge: its end is on the screen.
  wait_for '^ +↪ is done\.$' "the end of the prompt's line, wrapped at a word" 5 || return 1
  screen >"$shots/helix-answer.txt"
}

# edit_applied: a gemini.prompt through :lsp-workspace-command; the edit it
# proposes is shown in the popup with its diff, and applied.
edit_applied() {
  cmd 'o greet.py' || return 1
  wait_for '^ NOR .*greet\.py' "greet.py" 10 || return 1
  cmd 'lsp-workspace-command gemini.prompt "make greet say Hi"' || return 1
  wait_for 'Gemini wants to edit greet\.py' "the question about the edit" || return 1
  wait_for 'Reject' "the popup's actions" 5 || return 1
  screen >"$shots/helix-popup.txt"
  grep -qF -- '-    return "Hello, " + name' "$shots/helix-popup.txt" || bad "the question lacks the diff's - line" || return 1
  grep -qF -- '+    return "Hi, " + name' "$shots/helix-popup.txt" || bad "the question lacks the diff's + line" || return 1
  grep -q 'Always Apply' "$shots/helix-popup.txt" || bad "the popup lacks Always Apply" || return 1
  pick Apply "the edit's popup" || return 1
  wait_for 'Done: greet now says Hi' "the answer after the edit" || return 1
  # The transcript is open in Helix (it syncs it to gemini-ls), so a later
  # prompt does not show it again: Helix would put it in front of the code.
  sleep 1
  if screen | grep -q '^ NOR .*transcripts/.*\.md'; then
    bad "a later prompt brought the transcript to the front" || return 1
  fi
  # Helix's status line drops line breaks; the lines end in a space.
  screen | grep -q 'say Hi\. Done: greet' || bad "the answer's paragraphs run together in the status line" || return 1
  wait_requests 3 || return 1
  request 3 | grep -qF 'Successfully modified file' || bad "the model was not told the edit was applied: $(request 3 | grep -o '"functionResponse".\{0,200\}')" || return 1
  cmd 'o greet.py' || return 1
  wait_for '^ NOR .*greet\.py \[\+\]' "greet.py, modified and unsaved" 10 || return 1
  wait_for 'return "Hi, " \+ name' "the edit in the buffer" 5 || return 1
  screen >"$shots/helix-applied.txt"
}

# conversation: the second prompt continued the first one's session.
conversation() {
  wait_requests 2 || return 1
  request 2 | grep -qF 'make greet say Hi' || bad "request 2 is not the second prompt" || return 1
  request 2 | grep -qF 'add a farewell function' || bad "the second prompt's request lacks the first prompt (a new session?)" || return 1
  request 2 | grep -qF 'A farewell would mirror greet' || bad "the second prompt's request lacks the first answer" || return 1
}

edit_rejected() {
  cmd 'lsp-workspace-command gemini.prompt "add an exclamation mark"' || return 1
  wait_for 'Gemini wants to edit greet\.py' "the question about the edit" || return 1
  wait_for 'Reject' "the popup's actions" 5 || return 1
  pick Reject "the edit's popup" || return 1
  wait_for 'Left it as it is' "the answer after the rejection" || return 1
  wait_requests 5 || return 1
  request 5 | grep -qF 'declined' || bad "the model was not told the edit was declined: $(request 5 | grep -o '"functionResponse".\{0,200\}')" || return 1
  cmd 'o greet.py' || return 1
  wait_for '^ NOR .*greet\.py' "greet.py" 10 || return 1
  wait_for 'return "Hi, " \+ name$' "greet.py as it was" 5 || return 1
  ! screen | grep -qF '"!"' || bad "the rejected edit is in the buffer" || return 1
}

# transcript: the conversation's transcript, one file for its three prompts;
# Helix does not reload a file changed on disk, :reload does.
transcript() {
  local path
  path=$(grep -o '"method":"window/showDocument","params":{"uri":"file://[^"]*' "$work/hx.log" | tail -1 | sed 's|.*"file://||')
  [[ -n "$path" ]] || bad "no window/showDocument in Helix's log" || return 1
  [[ $path == *.md ]] || bad "the document shown is not a transcript: $path" || return 1
  grep -qF 'make greet say Hi' "$path" && grep -qF 'add an exclamation mark' "$path" \
    || bad "the transcript $path lacks the conversation's prompts" || return 1
  cmd "o $path" || return 1
  cmd 'reload' || return 1
  esc
  keys g e
  wait_for 'add an exclamation mark' "the last prompt in the transcript" 10 || return 1
  wait_for 'Edit greet\.py\*\* — rejected' "the rejected edit in the transcript" 5 || return 1
  screen >"$shots/helix-transcript.txt"
  # A turn that simply ended says nothing more; no protocol word shows.
  ! grep -q 'end_turn' "$shots/helix-transcript.txt" \
    || bad "the transcript shows the stop reason end_turn" || return 1
  # Each answer once, under the call that asked: Apply, then the decline.
  grep -A1 -F -- '- **Edit greet.py** — ok' "$path" | grep -qx '  → Apply' \
    || bad "the transcript lacks the Apply answered under the edit: $(cat "$path")" || return 1
  grep -A1 -F -- '- **Edit greet.py** — rejected' "$path" | grep -qx '  → declined' \
    || bad "the transcript lacks the edit's decline under it: $(cat "$path")" || return 1
  [[ $(grep -c '→' "$path") == 2 ]] || bad "the transcript records $(grep -c '→' "$path") answers, not the two given: $(cat "$path")" || return 1
}

new_session() {
  cmd 'lsp-workspace-command gemini.newSession' || return 1
  sleep 1
  cmd 'lsp-workspace-command gemini.prompt "start afresh"' || return 1
  wait_for 'Gemini: A fresh start' "the answer in the new session" || return 1
  wait_requests 6 || return 1
  request 6 | grep -qF 'start afresh' || bad "request 6 is not the new session's prompt" || return 1
  ! request 6 | grep -qF 'make greet say Hi' || bad "the new session's request has the old conversation" || return 1
}

cancel() {
  cmd 'o greet.py' || return 1
  cmd 'lsp-workspace-command gemini.prompt "take your time"' || return 1
  wait_requests 7 || return 1
  wait_for 'take your time' "the prompt in the progress" || return 1
  screen >"$shots/helix-progress.txt"
  cmd 'lsp-workspace-command gemini.cancel' || return 1
  wait_for '[Cc]ancel' "the cancellation in the status line" || return 1
  screen >"$shots/helix-cancelled.txt"
  ! screen | grep -q 'Too late' || bad "the cancelled turn's answer was shown" || return 1
}

long_diff() {
  cmd 'o greet.py' || return 1
  cmd 'lsp-workspace-command gemini.prompt "rewrite greet.py"' || return 1
  wait_for 'Gemini wants to edit greet\.py' "the question about the long edit" || return 1
  wait_for 'Show diff' "the Show diff action" 5 || return 1
  screen | grep -q 'a diff of [0-9]* lines' || bad "the question does not say how long the diff is" || return 1
  pick 'Show diff' "the long edit's popup" || return 1
  wait_for '^ NOR .*\.diff' "the .diff file (window/showDocument)" 10 || return 1
  wait_for 'Gemini wants to edit greet\.py' "the question asked again" 10 || return 1
  wait_for '^\+def f12\(\):|\+def f1\(\):' "the diff's lines beside the question" 5 || return 1
  screen >"$shots/helix-show-diff.txt"
  pick 'Always Apply' "the long edit's popup, asked again" || return 1
  wait_for 'Rewrote greet\.py' "the answer after the long edit" || return 1
  wait_requests 9 || return 1
  request 9 | grep -qF 'Successfully' || bad "the model was not told the long edit was applied: $(request 9 | grep -o '"functionResponse".\{0,200\}')" || return 1
}

# always_apply: "Always Apply" holds for the next prompt of the conversation.
always_apply() {
  local asked
  asked=$(grep -c '"method":"window/showMessageRequest"' "$work/hx.log")
  cmd 'o greet.py' || return 1
  cmd 'lsp-workspace-command gemini.prompt "make f12 return 144"' || return 1
  wait_for 'Changed f12 without asking' "the answer after the edit" || return 1
  [[ $(grep -c '"method":"window/showMessageRequest"' "$work/hx.log") == "$asked" ]] \
    || bad "the edit was asked about after Always Apply" || return 1
  wait_requests 11 || return 1
  request 11 | grep -qF 'Successfully modified' || bad "the model was not told the edit was applied: $(request 11 | grep -o '"functionResponse".\{0,200\}')" || return 1
  cmd 'o greet.py' || return 1
  esc
  keys g e
  wait_for 'return 144' "the edit in the buffer" 10 || return 1
  # With a conversation going, the code actions offer to start over.
  keys Space; sleep 0.3; keys a
  wait_for 'Gemini: new conversation' "the new conversation code action" || return 1
  screen >"$shots/helix-code-actions-conversation.txt"
  esc
}

# shell_command: a shell command is asked about too; Esc dismisses the
# question, which declines it.
shell_command() {
  cmd 'lsp-workspace-command gemini.prompt "make a marker"' || return 1
  wait_for 'touch marker' "the question about the command" || return 1
  wait_for 'Allow Once' "the question's actions" 5 || return 1
  screen >"$shots/helix-shell-question.txt"
  grep -q 'Always Allow' "$shots/helix-shell-question.txt" || bad "the question lacks Always Allow" || return 1
  keys Escape
  wait_for 'I did not run it' "the answer after Esc" || return 1
  wait_requests 13 || return 1
  [[ ! -e "$proj/marker" ]] || bad "the dismissed command ran" || return 1
  request 13 | grep -qiE 'declined|rejected|cancel' || bad "the model was not told the command was declined: $(request 13 | grep -o '"functionResponse".\{0,200\}')" || return 1
}

# ask_question: in a conversation of its own, the model's ask_user
# question in the popup, its options' words with it; SQLite is picked.
ask_question() {
  cmd 'lsp-workspace-command gemini.newSession' || return 1
  sleep 1
  cmd 'o shop.py' || return 1
  cmd 'lsp-workspace-command gemini.prompt "pick a database for the service"' || return 1
  wait_for 'Which database should the service use\?' "the model's question" || return 1
  wait_for 'SQLite: One file, nothing to run\.' "the options' words" 5 || return 1
  wait_for ' Decline *$' "the popup's actions" 5 || return 1
  screen >"$shots/helix-ask.txt"
  pick SQLite "the question's popup" || return 1
  wait_for 'SQLite it is' "the answer after the question" || return 1
  wait_requests 15 || return 1
  request 15 | grep -qF 'SQLite' || bad "the model was not told SQLite: $(request 15 | grep -o '"functionResponse".\{0,200\}')" || return 1
}

# plan_approval: entering plan mode is asked (Allow Once), then the plan
# opens in Helix (window/showDocument) and its approval is asked over it
# without repeating it; "Yes, manually accept edits" approves it.
plan_approval() {
  cmd 'o shop.py' || return 1
  cmd 'lsp-workspace-command gemini.prompt "plan a cache for the greeting"' || return 1
  wait_for 'Design the cache first' "the question to enter plan mode" || return 1
  wait_for 'Allow Once' "its actions" 5 || return 1
  pick 'Allow Once' "the plan mode question" || return 1
  wait_for '^ NOR .*cache\.md' "the plan, open in Helix" || return 1
  wait_for 'Approve the plan in cache\.md, open in the editor\?' "the plan's approval" || return 1
  wait_for 'Yes, manually accept edits' "the approval's actions" 5 || return 1
  [[ $(screen | grep -c 'Return it from greet') == 1 ]] || bad "the plan is shown more than once" || return 1
  screen >"$shots/helix-plan.txt"
  pick 'Yes, manually accept edits' "the plan's approval" || return 1
  wait_for 'Implementing the plan' "the answer after the approval" || return 1
  wait_requests 18 || return 1
  request 18 | grep -qF 'Plan approved' || bad "the model was not told the plan was approved: $(request 18 | grep -o '"functionResponse".\{0,200\}')" || return 1
}

# subagent_report: the model hands the project to codebase_investigator;
# the transcript lists its calls under the call, then its report as prose
# (its summary, then its fields in words), and the conversation's answers
# each once after its question.
subagent_report() {
  cmd 'o shop.py' || return 1
  cmd 'lsp-workspace-command gemini.prompt "map the project"' || return 1
  wait_for 'The investigator found two files' "the answer after the subagent's report" || return 1
  wait_requests 23 || return 1
  local path
  path=$(grep -o '"method":"window/showDocument","params":{"uri":"file://[^"]*transcripts/[^"]*' "$work/hx.log" | tail -1 | sed 's|.*"file://||')
  [[ $path == */transcripts/*-pick-a-database-for-the-service-*.md ]] || bad "the third conversation's transcript is $path" || return 1
  local want
  for want in '- **Asking user: Which database should the service use?** — ok' '  → SQLite' \
    '- **Design the cache first** — ok' '  → Allow Once' '> Approval mode: plan' \
    '  → Yes, manually accept edits' '> Approval mode: manual' \
    "- **Delegating to agent 'codebase_investigator'** — ok" '  - **ReadFile shop.py** — ok' \
    '  The project is two Python files: greet.py builds greetings, and shop.py sums prices.' \
    '  Details:' '  - Exploration trace:' '    - File path: shop.py'; do
    grep -qxF -- "$want" "$path" || bad "the transcript lacks the line \"$want\": $(cat "$path")" || return 1
  done
  [[ $(grep -c 'SQLite$' "$path") == 1 ]] || bad "the answer SQLite is not in the transcript once: $(cat "$path")" || return 1
  ! grep -qE '```|SummaryOfFindings|<details>|invoke_agent|ask_user' "$path" || bad "markup or a tool's name leaks into the transcript: $(cat "$path")" || return 1
  cmd "o $path" || return 1
  cmd 'reload' || return 1
  esc
  keys g e
  wait_for 'The project is two Python files' "the report in the transcript" 10 || return 1
  wait_for 'Key symbols:' "the report's details" 5 || return 1
  screen >"$shots/helix-subagent.txt"
}

# one_by_one: an edit of two changes four lines apart, taken one by one
# from the popup: the first applied, the second rejected. The buffer holds
# exactly the first; the model and the transcript are told it was
# accepted in part.
one_by_one() {
  cmd 'o nums.py' || return 1
  cmd 'lsp-workspace-command gemini.prompt "spell out 3 and 8"' || return 1
  wait_for 'Gemini wants to edit nums\.py' "the question about the edit" || return 1
  wait_for 'One by One' "the One by One action" 5 || return 1
  screen >"$shots/helix-one-by-one.txt"
  pick 'One by One' "the edit's popup" || return 1
  wait_for 'Change 1 of 2 to nums\.py, at line 3' "the first change's question" || return 1
  ! screen | grep -qF 'eight' || bad "the first change's question shows the second change" || return 1
  pick Apply "the first change's popup" || return 1
  wait_for 'Change 2 of 2 to nums\.py, at line 8' "the second change's question" || return 1
  screen >"$shots/helix-one-by-one-second.txt"
  pick Reject "the second change's popup" || return 1
  wait_for 'Spelt out the numbers you kept' "the answer after the edit" || return 1
  wait_requests 25 || return 1
  request 25 | grep -qF 'accepted 1 of the 2 separate changes' || bad "the model was not told 1 of 2: $(request 25 | grep -o '"functionResponse".\{0,200\}')" || return 1
  cmd 'o nums.py' || return 1
  esc
  keys g g
  wait_for '^ +3 +n3 = "three" *$' "line 3 spelt out" 10 || return 1
  wait_for '^ +8 +n8 = 8 *$' "line 8 as it was" 5 || return 1
  screen >"$shots/helix-one-by-one-applied.txt"
  local path
  path=$(grep -o '"method":"window/showDocument","params":{"uri":"file://[^"]*transcripts/[^"]*' "$work/hx.log" | tail -1 | sed 's|.*"file://||')
  grep -qxF -- '- **WriteFile nums.py** — accepted in part: 1 of 2 changes' "$path" \
    || bad "the transcript does not say accepted in part: $(cat "$path")" || return 1
}

# health_servers LANG HOME: the language servers `hx --health LANG` says
# Helix configures for LANG with HOME's configuration, one a line.
health_servers() {
  HOME="$2" XDG_CONFIG_HOME="$2/.config" hx --health "$1" 2>&1 \
    | sed -e 's/\x1b\[[0-9;]*m//g' \
    | awk '/^Configured language servers:/ {on = 1; next}
           on && /^  [^ ]+ [^:]+:/ {sub(/^  [^ ]+ /, ""); sub(/:.*/, ""); print; next}
           on {exit}'
}

# default_servers_kept: Helix replaces a language's language-servers rather
# than adding to it (issue 62), so for each language the snippet names,
# Helix with the snippet configures its own defaults (as with no
# configuration at all), in order, then gemini-ls.
default_servers_kept() {
  local bare="$work/bare" lang defaults got
  mkdir -p "$bare"
  for lang in $(sed -n '/^\[\[language\]\]$/{n;s/^name = "\(.*\)"$/\1/p}' "$here/../languages.toml"); do
    defaults=$(health_servers "$lang" "$bare")
    got=$(health_servers "$lang" "$home")
    [[ -n "$defaults" ]] || { bad "hx --health $lang lists no default server"; return 1; }
    [[ "$got" == "$defaults"$'\n'"gemini-ls" ]] \
      || { bad "$lang: the snippet configures $(echo $got); Helix's defaults are $(echo $defaults): want them all, then gemini-ls"; return 1; }
  done
}

# completion_item: with inlineCompletion.completionItems (the languages.toml
# line), typing "print(to" on a new line shows the model's continuation as
# an item of Helix's completion menu, asked by Helix's own trigger (its
# default completion-timeout and completion-trigger-len: two word characters
# before the cursor); typing on through it needs no model call; Tab selects
# it (its documentation says Gemini), Enter inserts it. Last: its model
# requests would come between the chat's.
completion_item() {
  log_has '"completionProvider"' || bad "gemini-ls offered no completionProvider (the languages.toml line?)" || return 1
  cmd 'o shop.py' || return 1
  wait_for '^ NOR .*shop\.py' "shop.py" 10 || return 1
  esc
  keys g e
  wait_for ' 6:[0-9]+ *$' "the cursor on the last line, 6" 5 || return 1
  keys o
  wait_for '^ INS' "insert mode" 5 || return 1
  # Helix closes the bracket: the line is "print(to)", the cursor before ")".
  keys -l 'print(to'
  # The menu's row: the item's label and its kind.
  wait_for 'total\(prices\) +text *$' "the Gemini item in Helix's completion menu" || return 1
  log_has '"method":"textDocument/completion"' || bad "Helix sent no textDocument/completion" || return 1
  grep -qE 'print\(to(\\u003c|<)\|cursor\|' "$work/requests.jsonl" \
    || bad "no completion request with print(to<|cursor|> reached the model" || return 1
  # Typing on through the suggestion: Helix asks again (the list is
  # incomplete) and gemini-ls answers from what it suggested, with no model
  # call: the item is still there.
  local calls answers
  calls=$(grep -c 'cursor|' "$work/requests.jsonl")
  answers=$(grep -c 'gemini-ls <- {"jsonrpc":"2.0","id":[0-9]*,"result":{"isIncomplete"' "$work/hx.log")
  keys -l 't'
  local deadline=$((SECONDS + 10))
  until (($(grep -c 'gemini-ls <- {"jsonrpc":"2.0","id":[0-9]*,"result":{"isIncomplete"' "$work/hx.log") > answers)); do
    ((SECONDS < deadline)) || bad "Helix did not ask again after \"t\" (or had no answer)" || return 1
    sleep 0.2
  done
  grep 'gemini-ls <- {"jsonrpc":"2.0","id":[0-9]*,"result":{"isIncomplete"' "$work/hx.log" | tail -n 1 | grep -qF '"label":"total(prices)"' \
    || bad "the answer after \"tot\" is not the item total(prices)" || return 1
  wait_for 'print\(tot\)' "\"tot\" typed" 5 || return 1
  wait_for 'total\(prices\) +text *$' "the Gemini item after \"tot\"" 5 || return 1
  (($(grep -c 'cursor|' "$work/requests.jsonl") == calls)) \
    || bad "typing through the suggestion called the model again" || return 1
  keys Tab
  wait_for ' Gemini *$' "the selected item's documentation (Gemini)" 10 || return 1
  screen >"$shots/helix-completion.txt"
  keys Enter
  wait_gone 'total\(prices\) +text *$' "the completion menu" 10 || return 1
  # The item replaced "to" and kept Helix's ")": one line, as typed.
  wait_for '^ +7 +print\(total\(prices\)\)$' "the accepted completion on line 7" 5 || return 1
  screen >"$shots/helix-completion-accepted.txt"
  cmd 'w' || return 1
  local deadline=$((SECONDS + 10))
  until [[ $(tail -n 1 "$proj/shop.py") == '    print(total(prices))' ]]; do
    ((SECONDS < deadline)) || bad "shop.py ends with \"$(tail -n 1 "$proj/shop.py")\", not the completion" || return 1
    sleep 0.2
  done
}

# completion_invoked: after a bracket Helix does not ask by itself; Ctrl-x
# in insert mode asks, and the Gemini item (no word before the cursor) is
# the continuation alone.
completion_invoked() {
  esc
  keys 6 g g
  wait_for ' 6:[0-9]+ *$' "the cursor on line 6" 5 || return 1
  keys A
  wait_for '^ INS' "insert mode at the end of line 6" 5 || return 1
  keys C-x
  wait_for '\* 2 +text *$' "the Gemini item after Ctrl-x" || return 1
  keys Tab
  wait_for ' Gemini *$' "the selected item's documentation (Gemini)" 10 || return 1
  keys Enter
  wait_gone '\* 2 +text *$' "the completion menu" 10 || return 1
  wait_for '^ +6 +prices = \[3, 4, 5\] \* 2$' "the accepted completion on line 6" 5 || return 1
  esc
}

scenario start
scenario default_servers_kept
scenario code_action
scenario edit_applied
scenario conversation
scenario edit_rejected
scenario transcript
scenario new_session
scenario cancel
scenario long_diff
scenario always_apply
scenario shell_command
scenario ask_question
scenario plan_approval
scenario subagent_report
scenario one_by_one
scenario completion_item
scenario completion_invoked

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
