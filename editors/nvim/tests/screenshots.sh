#!/usr/bin/env bash
# Drives a real, interactive Neovim inside a detached tmux against the real
# gemini-ls and fakegemini, as a user with the default model (Auto) sees
# it, and writes what the screen shows, each scenario in a chat of its own
# (:GeminiNewSession), to build/screenshots (or $GEMINI_SCREENSHOTS_DIR):
# nvim-chat.txt (an answer, its thought folded), nvim-review.txt (the
# review tab, named in the tab line with its keys), nvim-rewind.txt
# (:GeminiRewind's list), nvim-commands.txt (":Gemini /" and <Tab>
# completing the user's custom commands), nvim-ask.txt and
# nvim-ask-answered.txt (the model's ask_user question, then the answer
# recorded after it), nvim-subagent.txt (a subagent's run folded under its
# call, its report's summary as prose and its details folded),
# nvim-prompt.txt (a two-line prompt typed in the prompt area and sent),
# nvim-edit-selection.txt (:GeminiEdit's rewrite in review) and
# nvim-plan.txt (a plan's approval, the plan open beside the chat). A
# newer Neovim's pictures carry its version (nvim-chat-0.12.txt, tmux.sh's
# picture). The screenshots are made by the tests rather than by hand;
# `make screenshots` copies them into docs/screenshots. Appends one "pass
# screenshots ..." or "fail screenshots: why" line to the results file.
# Usage: screenshots.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bin=$1
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
work=$(mktemp -d)
ws="$work/project"
mkdir -p "$ws"
printf 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n' >"$ws/numbers.txt"
# The user's custom commands, in a HOME of the run's own; the workspace is
# trusted (an untrusted one loads none, nor its settings).
home="$work/home"
mkdir -p "$home/.gemini/commands"
printf 'description = "Review a file for bugs"\nprompt = "Please review {{args}} line by line."\n' >"$home/.gemini/commands/review.toml"
printf 'description = "Explain the code"\nprompt = "Explain {{args}}."\n' >"$home/.gemini/commands/explain.toml"
printf '{"%s": "TRUST_FOLDER"}\n' "$ws" >"$home/.gemini/trustedFolders.json"
# Plans in the project, where the test writes the one the model presents
# (a session's own plans directory is made only with the session).
mkdir -p "$ws/.gemini/plans"
printf '{"general": {"plan": {"directory": ".gemini/plans"}}}\n' >"$ws/.gemini/settings.json"
printf '# Cache the numbers\n\n1. Read numbers.txt once.\n2. Keep its lines in memory.\n' >"$ws/.gemini/plans/cache.md"

sock="gemini-nvim-$$" session=shot
name=screenshots
# shellcheck source=tmux.sh
. "$here/tmux.sh"


# shot NAME: saves the screen last waited for as the picture NAME.
shot() { printf '%s\n' "$screen" >"$(picture "$1")"; }

# new_chat: the next scenario in a chat of its own, beside numbers.txt,
# with nothing of the last one on the screen.
new_chat() {
  tm send-keys -t shot Escape ':GeminiNewSession' Enter ':only' Enter ':buffer numbers.txt' Enter ':echo' Enter
}

start_fake --script "$here/scripts/screenshots.json" --record "$work/requests.jsonl"

# No GEMINI_MODEL: the default model, Auto, as a user who chose none has.
cmd=$(printf 'env -u GEMINI_MODEL HOME=%q GOOGLE_GEMINI_BASE_URL=%q GEMINI_API_KEY=test GEMINI_LS=%q GEMINI_WORKSPACE=%q nvim -u NONE -i NONE -S %q' \
  "$home" "$url" "$bin/gemini-ls" "$ws" "$here/screenshots_init.lua")
tm new-session -d -s shot -x 160 -y 60 "$cmd" || fail "tmux new-session failed"
wait_for "numbers.txt to open" 'numbers\.txt'

tm send-keys -t shot ':Gemini what is in this file?' Enter
wait_for "the streamed answer" 'Every entry is lower case\.' 'one to ten, one per line' '^## Gemini|│## Gemini' 'Gemini · Auto'
grep -qF 'numbers.txt spells out the numbers one to ten' <<<"$screen" || fail "chat capture lacks the answer text"
grep -q 'end_turn' <<<"$screen" && fail "the chat shows the protocol's end_turn"
# The thought folded, its fold text readable, no fold markers; the status
# line names the model as the user chose it (Auto), the mode as 0.61 does,
# and the chat's keys.
grep -qE '│> Thought: Reading numbers\.txt  \(1 more line\) *$' <<<"$screen" || fail "the thought is not one folded line saying what it hides"
grep -qF '{{{' <<<"$screen" && fail "fold markers in the chat"
grep -qE 'Gemini · Auto( → [^ ]+)? · manual +<CR> prompt · <C-c> cancel · q close' <<<"$screen" || fail "the chat's status line lacks the model, the mode or the keys"
shot chat

tm send-keys -t shot ':Gemini write two in capitals' Enter
wait_for "the review diff tab" 'Gemini: edit numbers\.txt \(\+1 −1\)' 'ga accept, gr reject' '^ *two +│' '│ *TWO *$'
grep -qE '^ *two +│' <<<"$screen" || fail "review capture lacks the original line (two) on the left"
grep -qE '│ *TWO *$' <<<"$screen" || fail "review capture lacks the proposed line (TWO) on the right"
grep -q ' original: numbers\.txt' <<<"$screen" || fail "review capture lacks the left side's label, original"
grep -q ' proposed: numbers\.txt' <<<"$screen" || fail "review capture lacks the right side's label, proposed"
# The tab line names the review and keeps its keys, whatever the command
# line shows since.
head -n 1 <<<"$screen" | grep -qE 'Gemini: edit numbers\.txt \(\+1 −1\) .*ga accept, gr reject, gx drop hunk, gy take hunk' \
  || fail "the review's tab line lacks its name or its keys: $(head -n 1 <<<"$screen")"
head -n 1 <<<"$screen" | grep -qF '2+ numbers.txt' && fail "the tab line names the review by its windows' file"
tm send-keys -t shot ':echo "a later message"' Enter
wait_for "the review's keys after a message" '^:?a later message|^a later message' 'ga accept, gr reject'
shot review
[ "$(sed -n 2p "$ws/numbers.txt")" = two ] || fail "numbers.txt changed on disk before accepting"

tm send-keys -t shot ga
for _ in $(seq 150); do [ "$(sed -n 2p "$ws/numbers.txt")" = TWO ] && break; sleep 0.1; done
[ "$(sed -n 2p "$ws/numbers.txt")" = TWO ] || fail "numbers.txt not changed on disk after ga: $(tr '\n' ' ' <"$ws/numbers.txt")"
wait_for "the turn to end after accepting" 'Changed two to TWO\.'

# :GeminiRewind lists the session's prompts with the files each changed;
# an empty answer leaves the session alone.
tm send-keys -t shot ':GeminiRewind' Enter
wait_for "the rewind list" 'Rewind to before' '1: what is in this file\?' '2: write two in capitals  \[numbers\.txt\]'
grep -qE '[0-9]+: [0-9]+\. ' <<<"$screen" && fail "the rewind list numbers its rows twice"
shot rewind
tm send-keys -t shot Enter

# "/" lists the commands with their descriptions; <Tab> opens Neovim's
# completion menu in its place (the list shown once); "/rev<Tab>" is sent.
new_chat
tm send-keys -t shot ':Gemini /'
wait_for "the commands' descriptions" '/chat +Save, resume' '/hooks +Manage hooks' '… [0-9]+ more: type more of the name, or <Tab> for all'
shot commands
# Typing more of the name narrows the list to what fits.
tm send-keys -t shot 't'
wait_for "the commands starting /t" '/tasks +' '/tools +List the tools the model can call'
grep -q 'more: type more' <<<"$screen" && fail "the narrowed list still says it is cut"
tm send-keys -t shot BSpace
tm send-keys -t shot Tab
wait_for "the completion menu" '^:Gemini /about *$' ' /review +'
grep -q 'Manage hooks' <<<"$screen" && fail "the descriptions stayed beside the completion menu: the commands shown twice"
tm send-keys -t shot C-u 'Gemini /rev' Tab
wait_for "/rev<Tab> to complete /review" '^:Gemini /review *$'
tm send-keys -t shot ' numbers.txt' Enter
wait_for "the answer to /review" 'Reviewed numbers\.txt: the numbers are in order\.'
grep -q 'Explain the code' <<<"$screen" && fail "the descriptions stayed open after the prompt was sent"
tail -n 1 "$work/requests.jsonl" | grep -qF 'Please review numbers.txt line by line.' \
  || fail "the model did not get /review's expansion: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"

# The model's ask_user question, as vim.ui.select shows it, and in the
# chat once, as the line of the call that asks it; 2 picks SQLite, which
# the chat records after the question.
new_chat
tm send-keys -t shot ':Gemini set up storage' Enter
# The chat shows the call asking before the prompt does (it is drawn
# before vim.ui.select holds the screen), so the picture is the same
# every run.
wait_for "the model's question" 'Database: Which database should the service use\?' '1: PostgreSQL — Relational, what production runs\.' '2: SQLite — One file, nothing to run\.' '3: Other… \(answer in your own words\)' '4: Decline' 'Asking user: Which database should the service use\? \(running\)'
[ "$(grep -c 'Which database should the service use?' <<<"$screen")" = 2 ] \
  || fail "the question is not shown once in the chat and once where it is answered"
shot ask
tm send-keys -t shot 2 Enter
wait_for "the answer after the question" 'SQLite it is: one file, nothing to run\.' '│- ✓ Asking user: Which database should the service use\? \(ok\) \[communicate\] *$' '│  Database → SQLite *$'
shot ask-answered
tail -n 1 "$work/requests.jsonl" | grep -qF '{\"answers\":{\"0\":\"SQLite\"}}' \
  || fail "the model was not told SQLite: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"

# A subagent's run, folded under its invoke_agent call once it reported;
# its report's summary as prose under it, its details folded.
new_chat
tm send-keys -t shot ':Gemini how is the project laid out?' Enter
wait_for "the answer after the subagent's report" 'The investigator found one file, numbers\.txt' \
  '│- ✓ Delegating to agent .codebase_investigator. \(ok\)  \([0-9]+ more lines\)' \
  '│  The project is one file, numbers\.txt, the numbers one to ten spelled out, one *$' '│  per line\. *$' \
  '│  Details: Exploration trace, Relevant locations  \([0-9]+ more lines\)'
grep -qE '"SummaryOfFindings"|```json|\{\{\{' <<<"$screen" && fail "the report shows as JSON, or with fold markers"
shot subagent

# The prompt area under the chat: :Gemini opens it in insert mode, its
# key hints in the winbar (0.8+) or status line (0.7); a prompt of two
# lines is typed and sent with <C-s>, and reaches the model as typed.
new_chat
tm send-keys -t shot ':Gemini' Enter
wait_for "the prompt area's key hints" '<C-s> send · <C-c> cancel · <Up>/<Down> history · / commands · @ files'
# "/" at the start opens the commands' menu, with their descriptions.
tm send-keys -t shot /
wait_for "the commands' menu on /" '/explain +Explain the code' '/review +Review a file for bugs'
tm send-keys -t shot C-e BSpace
tm send-keys -t shot 'numbers.txt lists one to ten,' Enter 'are they in order?'
wait_for "the typed lines in the prompt area" '^ *numbers\.txt lists one to ten, *$|│numbers\.txt lists one to ten, *$' 'are they in order\?'
tm send-keys -t shot C-s
wait_for "the answer to the two-line prompt" 'Both lines arrived: the list, then the question about it\.' 'numbers\.txt lists one to ten,' '<C-s> send · <C-c> cancel'
shot prompt
tail -n 1 "$work/requests.jsonl" | grep -qF 'numbers.txt lists one to ten,\nare they in order?' \
  || fail "the model did not get the two lines as typed: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"

# :GeminiEdit on a range: the instruction given, one model call, the
# rewrite in the review tab (no chat), ga keeps it and a message says so.
tm send-keys -t shot Escape ':only' Enter ':buffer numbers.txt' Enter ':4,5GeminiEdit shout these' Enter
wait_for "the review of the edited selection" 'Gemini: edit numbers\.txt \(\+2 −2\)' '^ *four +│' '│ *FOUR *$' '│ *FIVE *$'
shot edit-selection
tail -n 1 "$work/requests.jsonl" | grep -qF 'three\n\u003cselection\u003efour\nfive\n\u003c/selection\u003esix' \
  || fail "the model was not sent the selected lines: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"
tail -n 1 "$work/requests.jsonl" | grep -qF '"tools"' && fail "the edit of a selection was sent with tools"
tm send-keys -t shot ga
for _ in $(seq 150); do [ "$(sed -n 4p "$ws/numbers.txt")" = FOUR ] && break; sleep 0.1; done
[ "$(sed -n 4,5p "$ws/numbers.txt" | tr '\n' ' ')" = "FOUR FIVE " ] || fail "numbers.txt not changed on disk after ga: $(tr '\n' ' ' <"$ws/numbers.txt")"
wait_for "the edit's outcome" 'Gemini edited the selection in numbers\.txt\.'

# Plan mode: entering it is asked (1 allows it), the status line says
# plan, the plan opens beside the chat and its approval is asked; 2
# approves it into manual edits.
new_chat
tm send-keys -t shot ':Gemini plan a cache for the numbers' Enter
wait_for "the question to enter plan mode" 'Enter Plan Mode' '1: Allow once'
tm send-keys -t shot 1 Enter
wait_for "the plan's approval" '# Cache the numbers' 'Plan Approval: approve the plan in cache\.md\?' '1: Yes, automatically accept edits' '2: Yes, manually accept edits' '│> Mode: plan'
grep -qF '2. Keep its lines in memory.' <<<"$screen" || fail "the plan is not shown"
[ "$(grep -c '2\. Keep its lines in memory\.' <<<"$screen")" = 1 ] || fail "the plan is shown more than once"
grep -qF 'Design the cache first' <<<"$screen" || fail "the chat lacks the call that entered plan mode"
grep -qF '→ Allow once' <<<"$screen" && fail "the answer to entering plan mode is not folded with its call's output"
shot plan
tm send-keys -t shot 2 Enter
wait_for "the plan approved" 'Implementing the plan: numbers\.txt is read once and kept\.' 'Plan Approval → Yes, manually accept edits' 'Gemini · Auto( → [^ ]+)? · manual '

echo "pass screenshots ($(nvim --version | head -1)) wrote $(picture chat) and the rest: the chat wrapped and folded, its status line with the model, the mode and the keys; the review tab named in the tab line with its keys after a message; ga saved the edit; /rev<Tab> sent /review's expansion; the question shown once, 2 answered it and the chat recorded SQLite; a subagent's report as prose with its details folded; a two-line prompt sent; :4,5GeminiEdit reviewed and kept; a plan approved into manual edits" | tee -a "$results"
