#!/usr/bin/env bash
# Neovim with NO gemini-ls plugin: only its built-in LSP client, configured
# with the Lua blocks of editors/nvim/README.md's section "Without the
# plugin: Neovim's built-in client" (extracted from the README, so the README
# is what is tested). A real, interactive Neovim in a detached tmux talks to
# the real gemini-ls and fakegemini (which records what reaches the model):
#   a. a prompt whose model answer takes 12 s: the command answers at once,
#      progress shows on the command line, the answer comes as showMessage;
#   b. an edit asked with window/showMessageRequest (inputlist, with the
#      diff) and applied by typing 1, in an LF file and in a CRLF file with
#      emoji and CJK before the change; the model is told it was applied;
#   c. an edit rejected by typing 3; the model is told it was declined.
# Screens go to nvim-stock-*.txt in build/screenshots (or
# $GEMINI_SCREENSHOTS_DIR). Appends "pass stock ..." lines, or one
# "fail stock: why" line, to the results file.
# Usage: stock.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bin=$(cd "$1" && pwd)
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
work=$(mktemp -d)
ws="$work/project"
mkdir -p "$ws" "$work/home/.gemini"
# The folder trust question answered already ("Don't trust": untrusted, as
# it was); asked, it would hold the screen (lsptest covers it).
printf '{"%s": "DO_NOT_TRUST"}' "$ws" >"$work/home/.gemini/trustedFolders.json"
printf 'one\ntwo\nthree\nfour\nfive\n' >"$ws/numbers.txt"
printf 'alpha\r\n😀 世界 beta\r\ngamma\r\n' >"$ws/dos.txt"
log="$work/client.jsonl"      # what the client received (stock/helper.lua)
requests="$work/requests.jsonl" # what reached the model (fakegemini --record)
: >"$log"

export LANG=${LANG:-C.UTF-8}
sock="gemini-nvim-stock-$$" session=stock
name=stock
# shellcheck source=tmux.sh
. "$here/tmux.sh"

# What fail tells beside the last screen.
fail_details() {
  echo "  client log:"; sed 's/^/    /' "$log"
}

# wait_log WHAT PATTERN [TENTHS]: polls the client log for a line matching
# grep -E PATTERN.
# Meanwhile it answers "Press ENTER" prompts, as a user would.
wait_log() {
  local i
  for i in $(seq "${3:-150}"); do
    grep -qE -- "$2" "$log" && return 0
    [ $((i % 10)) = 0 ] && hit_enter
    sleep 0.1
  done
  screen=$(tm capture-pane -p -t stock 2>/dev/null)
  fail "timed out waiting for $1 in the client log (want: $2)"
}
# last_request: the last request that reached the model.
last_request() { tail -n 1 "$requests"; }
# hit_enter: answers a "Press ENTER" prompt if the screen shows one.
hit_enter() {
  screen=$(tm capture-pane -p -t stock 2>/dev/null)
  if grep -q 'Press ENTER or type command to continue' <<<"$screen"; then
    tm send-keys -t stock Enter
    sleep 0.3
  fi
}
# command LINE: types an Ex command line in Normal mode.
command() { hit_enter; tm send-keys -t stock Escape; tm send-keys -t stock -l ":$1"; tm send-keys -t stock Enter; }
# back FILE: newer Neovims open the transcript (window/showDocument), the
# first time in the current window, later in a split: back to FILE alone.
back() { [ "$newer" = 1 ] && command "buffer $1 | silent! only"; }
# ask FILE: waits for the question about an edit of FILE. Neovim up to
# 0.11 gets window/showMessageRequest (inputlist); Neovim 0.12 supports
# change annotations, so gemini-ls sends the edit with needsConfirmation and
# Neovim asks with confirm() ("Apply all changes? [Y]es, (N)o"). Sets $asked
# to "list" or "confirm".
ask() {
  asked=
  for _ in $(seq 300); do
    screen=$(tm capture-pane -p -t stock 2>/dev/null)
    if grep -qE "Gemini wants to edit $1" <<<"$screen" && grep -q 'Reject' <<<"$screen" && grep -q 'Type number' <<<"$screen"; then asked=list
    elif grep -qE "Gemini: edit $1" <<<"$screen" && grep -q 'Apply all changes?' <<<"$screen" && grep -qF '[Y]es, (N)o' <<<"$screen"; then asked=confirm
    fi
    sleep 0.1
    [ -n "$asked" ] && [ "$screen" = "$(tm capture-pane -p -t stock 2>/dev/null)" ] && return 0
    asked=
  done
  fail "timed out waiting for the question about $1"
}
# answer apply|reject: answers the question ask saw.
answer() {
  case $asked-$1 in
    list-apply) tm send-keys -t stock 1 Enter ;;
    list-reject) tm send-keys -t stock 3 Enter ;;
    confirm-apply) tm send-keys -t stock y ;;
    confirm-reject) tm send-keys -t stock n ;;
  esac
}
save() { printf '%s\n' "$screen" >"$shots/nvim-stock-$1.txt"; }

# The README's Lua blocks of the section, in order, are the init.lua.
awk '/^## Without the plugin/ { on = 1; next } on && /^## / { on = 0 }
  on && /^```lua$/ { lua = 1; next } lua && /^```$/ { lua = 0; print ""; next } lua' \
  "$here/../README.md" >"$work/init.lua"
grep -q 'vim.lsp.start_client' "$work/init.lua" || fail "no init.lua in editors/nvim/README.md's section \"Without the plugin\""

start_fake --script "$here/stock/script.json" --record "$requests"

# gemini-ls from PATH, as the README's cmd = { "gemini-ls" } has it; a home
# of its own, so sessions and transcripts land in $work.
cmd=$(printf 'cd %q && env PATH=%q GOOGLE_GEMINI_BASE_URL=%q GEMINI_API_KEY=test GEMINI_MODEL=gemini-2.5-pro HOME=%q XDG_STATE_HOME=%q GEMINI_STOCK_LOG=%q nvim -u %q -i NONE -S %q numbers.txt' \
  "$ws" "$bin:$PATH" "$url" "$work/home" "$work/state" "$log" "$work/init.lua" "$here/stock/helper.lua")
tm new-session -d -s stock -x 120 -y 40 "$cmd" || fail "tmux new-session failed"
wait_for "numbers.txt to open" '^two' 'numbers\.txt'
version=$(tm send-keys -t stock ':lua vim.api.nvim_echo({{"version " .. vim.version().major .. "." .. vim.version().minor}}, false, {})' Enter; sleep 0.5; tm capture-pane -p -t stock | sed -n 's/^version \([0-9.]*\).*/\1/p')
[ -n "$version" ] || { screen=$(tm capture-pane -p -t stock); fail "could not read Neovim's version"; }
echo "Neovim $version"
minor=${version#*.}
newer=0; [ "$minor" -ge 8 ] && newer=1

# a. A slow answer. execute_command is deprecated (with a warning) from 0.11.
if [ "$minor" -lt 11 ]; then
  command 'lua vim.lsp.buf.execute_command({command = "gemini.prompt", arguments = {"What is in numbers.txt?"}})'
else
  command 'lua vim.lsp.buf_request(0, "workspace/executeCommand", {command = "gemini.prompt", arguments = {"What is in numbers.txt?"}})'
fi
# The model answers after 12 s: the command's answer must come well before.
wait_log "the answer to workspace/executeCommand" '"what": ?"workspace/executeCommand"' 80
grep -qE '"status": ?"started"' "$log" || fail "workspace/executeCommand did not answer {status: started}: $(grep executeCommand "$log")"
grep -qE '"what": ?"window/showMessage"' "$log" && fail "the answer came before the command returned: $(cat "$log")"
patience=100 wait_for "the progress on the command line" 'Read.*numbers\.txt|numbers\.txt.*Read'
save progress
patience=300 wait_log "the answer (window/showMessage)" 'Gemini: .*counts from one to ten' 300
if [ "$newer" = 0 ]; then
  # 0.7 writes the message with nvim_out_write: only its last line stays
  # on the command line; :messages shows it whole.
  wait_for "the answer's last line on the screen" '^Transcript: '
  save answer-0.7
  command messages
  wait_for "the answer in :messages" 'counts from one to ten' 'Each number has a line of its own'
  save messages-0.7
  transcript=$(grep -o 'Transcript: [^"]*' "$log" | head -1 | cut -c13-)
  [ -n "$transcript" ] || fail "the final message of Neovim 0.7 does not say where the transcript is"
  grep -q 'counts from one to ten' "$transcript" || fail "the transcript $transcript lacks the answer"
else
  wait_for "the transcript" 'counts from one to ten'
  save answer
fi
pass "a: the command answered at once (status started), progress showed, the 12 s answer came as showMessage (Neovim $version)"

# b. An edit, asked with the diff and applied.
hit_enter
command 'edit numbers.txt'
wait_for "numbers.txt again" '^two' '^three'
command 'Gemini write two in capitals'
ask 'numbers\.txt'
save ask
if [ "$asked" = confirm ]; then
  echo "note: Neovim $version asked with confirm() for an edit with needsConfirmation: no diff shown"
elif ! { grep -qE '^ *-two' <<<"$screen" && grep -qE '^ *\+TWO' <<<"$screen"; }; then
  fail "the question does not show the diff (-two, +TWO)"
fi
answer apply
wait_log "the model's last answer" 'Changed two to TWO' 300
hit_enter
back numbers.txt
wait_for "the applied edit in the buffer" '^TWO' '^three'
save applied
last_request | grep -q 'Successfully modified file: [^"]*numbers\.txt' || fail "the model was not told the edit was applied: $(last_request | head -c 2000)"
last_request | grep -q 'What is in numbers.txt?' || fail "the second prompt did not continue the conversation of the first"
command 'write'
wait_for "numbers.txt saved" 'numbers\.txt.* written'
[ "$(cat "$ws/numbers.txt")" = "$(printf 'one\nTWO\nthree\nfour\nfive')" ] || fail "numbers.txt on disk: $(od -c "$ws/numbers.txt" | head)"
pass "b: asked ($asked$([ "$asked" = list ] && echo ", with the diff")), Apply put the edit in the buffer; the model was told; the prompt continued the conversation (Neovim $version)"

command 'edit dos.txt'
wait_for "dos.txt" '^alpha' 'beta'
command 'set fileformat?'
wait_for "dos.txt's fileformat" 'fileformat=dos'
command 'Gemini write beta in capitals'
ask 'dos\.txt'
save ask-crlf
answer apply
wait_log "the model's last answer" 'Changed beta to BETA' 300
hit_enter
back dos.txt
wait_for "the applied edit in the CRLF buffer" '😀 世界 BETA' '^alpha' '^gamma'
save crlf
last_request | grep -q 'Successfully modified file: [^"]*dos\.txt' || fail "the model was not told the CRLF edit was applied: $(last_request | head -c 2000)"
command 'write'
wait_for "dos.txt saved" 'dos\.txt.* written'
[ "$(od -c "$ws/dos.txt")" = "$(printf 'alpha\r\n😀 世界 BETA\r\ngamma\r\n' | od -c)" ] || fail "dos.txt on disk: $(od -c "$ws/dos.txt")"
pass "b: an edit after emoji and CJK in a CRLF (fileformat=dos) file applied and saved with CRLF (Neovim $version)"

# c. An edit rejected.
command 'edit numbers.txt'
wait_for "numbers.txt again" '^TWO' '^three'
command 'Gemini write three in capitals'
ask 'numbers\.txt'
answer reject
wait_log "the model's last answer" 'three stays as it is' 300
hit_enter
back numbers.txt
wait_for "the unchanged buffer" '^TWO' '^three'
save rejected
if ! last_request | grep -q 'the user declined the edit'; then
  [ "$asked" = confirm ] && echo "note: Neovim $version answers workspace/applyEdit with applied: true after (N)o in its confirm(), and leaves the buffer as it was"
  fail "the model was not told the edit was declined: $(last_request | grep -o '"functionResponse":{[^}]*}}' | tail -1)"
fi
[ "$(sed -n 3p "$ws/numbers.txt")" = three ] || fail "numbers.txt changed on disk after Reject"
pass "c: Reject ($asked) declined the edit; the buffer kept three; the model was told it was declined (Neovim $version)"

# d. A new conversation, and a prompt cancelled while the model thinks.
command 'GeminiNew'
wait_log "the new conversation's message" 'a new conversation'
before=$(wc -l <"$requests")
command 'Gemini count to a hundred'
patience=100 wait_for "the progress of the slow prompt" 'count to a hundred'
[ "$(wc -l <"$requests")" -gt "$before" ] || fail "the slow prompt did not reach the model"
last_request | grep -q 'write three in capitals' && fail "the prompt after :GeminiNew still carried the earlier conversation"
save cancel-progress
command 'GeminiCancel'
wait_log "the cancelled prompt's message" '[Cc]ancel' 100
hit_enter
# On 0.7 the last line of the message, the transcript's path, is what shows.
wait_for "the message of the cancelled prompt" '[Cc]ancelled|^Transcript: '
save cancelled
pass "d: :GeminiNew started a new conversation; :GeminiCancel stopped the running prompt (Neovim $version)"

command 'qa!'
for _ in $(seq 50); do tm has-session -t stock 2>/dev/null || break; sleep 0.1; done
kill "$fake" && wait "$fake"
fake_status=$?; fake=
# fakegemini exits 1 (and says why) if a request was not in its script.
[ "$fake_status" = 0 ] || fail "fakegemini: $(cat "$work/fake.err")"
exit 0
