#!/usr/bin/env bash
# Drives a real, interactive Neovim inside a detached tmux against the real
# gemini-ls and fakegemini, and writes what the screen shows to
# nvim-chat.txt, nvim-review.txt, nvim-commands.txt (":Gemini /" and
# <Tab> completing the user's custom commands), nvim-ask.txt (the model's
# ask_user question), nvim-rewind.txt (:GeminiRewind's list) and
# nvim-subagent.txt (a subagent's run nested in the chat) and nvim-prompt.txt
# (a two-line prompt typed in the prompt area and sent) and
# nvim-edit-selection.txt (:GeminiEdit's rewrite in review) in build/screenshots (or
# $GEMINI_SCREENSHOTS_DIR), so the screenshots are made by the tests rather
# than by hand; `make screenshots` copies them into docs/screenshots. Appends
# one "pass screenshots ..." or "fail screenshots: why" line to the results
# file.
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
# trusted (an untrusted one loads none).
home="$work/home"
mkdir -p "$home/.gemini/commands"
printf 'description = "Review a file for bugs"\nprompt = "Please review {{args}} line by line."\n' >"$home/.gemini/commands/review.toml"
printf 'description = "Explain the code"\nprompt = "Explain {{args}}."\n' >"$home/.gemini/commands/explain.toml"
printf '{"%s": "TRUST_FOLDER"}\n' "$ws" >"$home/.gemini/trustedFolders.json"

sock="gemini-nvim-$$" session=shot
# shellcheck source=tmux.sh
. "$here/tmux.sh"

fail() {
  echo "fail screenshots: $*" | tee -a "$results"
  if [ -n "${screen:-}" ]; then echo "  last screen:"; sed 's/^/    /' <<<"$screen"; fi
  exit 1
}

start_fake --script "$here/scripts/screenshots.json" --record "$work/requests.jsonl"

cmd=$(printf 'env HOME=%q GOOGLE_GEMINI_BASE_URL=%q GEMINI_API_KEY=test GEMINI_MODEL=gemini-2.5-pro GEMINI_LS=%q GEMINI_WORKSPACE=%q nvim -u NONE -i NONE -S %q' \
  "$home" "$url" "$bin/gemini-ls" "$ws" "$here/screenshots_init.lua")
tm new-session -d -s shot -x 160 -y 60 "$cmd" || fail "tmux new-session failed"
wait_for "numbers.txt to open" 'numbers\.txt'

tm send-keys -t shot ':Gemini what is in this file?' Enter
wait_for "the streamed answer" 'Every entry is lower case\.' 'one to ten, one per line' '^## Gemini|│## Gemini'
grep -qF 'numbers.txt spells out the numbers one to ten' <<<"$screen" || fail "chat capture lacks the answer text"
grep -q 'end_turn' <<<"$screen" && fail "the chat shows the protocol's end_turn"
grep -qF '## Gemini' <<<"$screen" || fail "chat capture lacks the chat buffer"
printf '%s\n' "$screen" >"$shots/nvim-chat.txt"

tm send-keys -t shot ':Gemini write two in capitals' Enter
wait_for "the review diff tab" 'ga accept, gr reject' '^ *two +│' '│ *TWO *$'
grep -qE '^ *two +│' <<<"$screen" || fail "review capture lacks the original line (two) on the left"
grep -qE '│ *TWO *$' <<<"$screen" || fail "review capture lacks the proposed line (TWO) on the right"
grep -q ' original: numbers\.txt' <<<"$screen" || fail "review capture lacks the left side's label, original"
grep -q ' proposed: numbers\.txt' <<<"$screen" || fail "review capture lacks the right side's label, proposed"
printf '%s\n' "$screen" >"$shots/nvim-review.txt"
[ "$(sed -n 2p "$ws/numbers.txt")" = two ] || fail "numbers.txt changed on disk before accepting"

tm send-keys -t shot ga
for _ in $(seq 150); do [ "$(sed -n 2p "$ws/numbers.txt")" = TWO ] && break; sleep 0.1; done
[ "$(sed -n 2p "$ws/numbers.txt")" = TWO ] || fail "numbers.txt not changed on disk after ga: $(tr '\n' ' ' <"$ws/numbers.txt")"
wait_for "the turn to end after accepting" 'Changed two to TWO\.'

# "/" lists the commands with their descriptions; <Tab> opens Neovim's
# completion menu in its place (the list shown once); "/rev<Tab>" is sent.
tm send-keys -t shot ':Gemini /'
wait_for "the commands' descriptions" '/chat +Save, resume' '/explain +Explain the code' '/review +Review a file for bugs'
printf '%s\n' "$screen" >"$shots/nvim-commands.txt"
tm send-keys -t shot Tab
wait_for "the completion menu" '^:Gemini /about *$' ' /review +'
grep -q 'Explain the code' <<<"$screen" && fail "the descriptions stayed beside the completion menu: the commands shown twice"
tm send-keys -t shot C-u 'Gemini /rev' Tab
wait_for "/rev<Tab> to complete /review" '^:Gemini /review *$'
tm send-keys -t shot ' numbers.txt' Enter
wait_for "the answer to /review" 'Reviewed numbers\.txt: the numbers are in order\.'
grep -q 'Explain the code' <<<"$screen" && fail "the descriptions stayed open after the prompt was sent"
tail -n 1 "$work/requests.jsonl" | grep -qF 'Please review numbers.txt line by line.' \
  || fail "the model did not get /review's expansion: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"

# The model's ask_user question, as vim.ui.select shows it; 2 picks SQLite.
tm send-keys -t shot ':Gemini set up storage' Enter
# The chat shows the call asking and the question before the prompt does
# (it is drawn before vim.ui.select holds the screen), so the picture is
# the same every run.
wait_for "the model's question" 'Database: Which database should the service use\?' '1: PostgreSQL — Relational, what production runs\.' '2: SQLite — One file, nothing to run\.' '3: Other… \(answer in your own words\)' '4: Decline' 'Asking user: Which database should the service use\? \(running\)' '> question: Database: Which database'
printf '%s\n' "$screen" >"$shots/nvim-ask.txt"
tm send-keys -t shot 2 Enter
wait_for "the answer after the question" 'SQLite it is: one file, nothing to run\.'
tail -n 1 "$work/requests.jsonl" | grep -qF '{\"answers\":{\"0\":\"SQLite\"}}' \
  || fail "the model was not told SQLite: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"

# :GeminiRewind lists the session's prompts with the files each changed;
# an empty answer leaves the session alone.
tm send-keys -t shot ':GeminiRewind' Enter
wait_for "the rewind list" 'Rewind to before' '1: what is in this file\?' '2: write two in capitals  \[numbers\.txt\]' '4: set up storage'
grep -qE '[0-9]+: [0-9]+\. ' <<<"$screen" && fail "the rewind list numbers its rows twice"
printf '%s\n' "$screen" >"$shots/nvim-rewind.txt"
tm send-keys -t shot Enter

# A subagent's run, nested under its invoke_agent call: its calls and
# its report in a fold of the chat, opened here to show it.
tm send-keys -t shot ':Gemini how is the project laid out?' Enter
wait_for "the answer after the subagent's report" 'The investigator found one file, numbers\.txt'
tm send-keys -t shot ":lua vim.api.nvim_win_call(vim.fn.bufwinid(require('gemini').chat.buf), function() vim.cmd('normal! zRG') end)" Enter
wait_for "the subagent's calls in the open fold" 'codebase_investigator' 'ReadFile|read_file' 'Report:'
printf '%s\n' "$screen" >"$shots/nvim-subagent.txt"

# The prompt area under the chat: :Gemini opens it in insert mode, its
# key hints in the winbar (0.8+) or status line (0.7); a prompt of two
# lines is typed and sent with <C-s>, and reaches the model as typed.
tm send-keys -t shot Escape ':Gemini' Enter
wait_for "the prompt area's key hints" '<C-s> send · <C-c> cancel · <Up>/<Down> history · / commands · @ files'
# "/" at the start opens the commands' menu, with their descriptions.
tm send-keys -t shot /
wait_for "the commands' menu on /" '/explain +Explain the code' '/review +Review a file for bugs'
tm send-keys -t shot C-e BSpace
tm send-keys -t shot 'numbers.txt lists one to ten,' Enter 'are they in order?'
wait_for "the typed lines in the prompt area" '^ *numbers\.txt lists one to ten, *$|│numbers\.txt lists one to ten, *$' 'are they in order\?'
tm send-keys -t shot C-s
wait_for "the answer to the two-line prompt" 'Both lines arrived: the list, then the question about it\.' 'numbers\.txt lists one to ten,' '<C-s> send · <C-c> cancel'
printf '%s\n' "$screen" >"$shots/nvim-prompt.txt"
tail -n 1 "$work/requests.jsonl" | grep -qF 'numbers.txt lists one to ten,\nare they in order?' \
  || fail "the model did not get the two lines as typed: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"

# :GeminiEdit on a range: the instruction given, one model call, the
# rewrite in the review tab (no chat), ga keeps it and a message says so.
tm send-keys -t shot Escape ':only' Enter ':buffer numbers.txt' Enter ':4,5GeminiEdit shout these' Enter
wait_for "the review of the edited selection" 'Gemini: edit numbers\.txt \(\+2 −2\)' '^ *four +│' '│ *FOUR *$' '│ *FIVE *$'
printf '%s\n' "$screen" >"$shots/nvim-edit-selection.txt"
tail -n 1 "$work/requests.jsonl" | grep -qF 'three\n\u003cselection\u003efour\nfive\n\u003c/selection\u003esix' \
  || fail "the model was not sent the selected lines: $(tail -n 1 "$work/requests.jsonl" | head -c 2000)"
tail -n 1 "$work/requests.jsonl" | grep -qF '"tools"' && fail "the edit of a selection was sent with tools"
tm send-keys -t shot ga
for _ in $(seq 150); do [ "$(sed -n 4p "$ws/numbers.txt")" = FOUR ] && break; sleep 0.1; done
[ "$(sed -n 4,5p "$ws/numbers.txt" | tr '\n' ' ')" = "FOUR FIVE " ] || fail "numbers.txt not changed on disk after ga: $(tr '\n' ' ' <"$ws/numbers.txt")"
wait_for "the edit's outcome" 'Gemini edited the selection in numbers\.txt\.'

echo "pass screenshots wrote nvim-edit-selection.txt (:4,5GeminiEdit reviewed, then kept with ga), nvim-prompt.txt (a two-line prompt sent from the prompt area, its key hints shown), nvim-chat.txt, nvim-review.txt, nvim-commands.txt, nvim-ask.txt, nvim-rewind.txt and nvim-subagent.txt from a real Neovim in tmux; ga saved the edit; /rev<Tab> sent /review's expansion; 2 answered the model's question; a subagent's run showed nested" | tee -a "$results"
