#!/usr/bin/env bash
# The prompt area's "/" completion in a real Neovim in tmux, for a user
# whose own 'completeopt' inserts the first match ("menu", Neovim 0.7's
# default is "menu,preview"): "/" opens the commands' menu with nothing
# inserted, and typing "model" after it leaves "/model", not "/aboutmodel"
# (nvim-prompt-slash.txt). Back in the file, the user's 'completeopt' is
# as it was. Appends "pass prompt_slash ..." lines, or one
# "fail prompt_slash: why" line, to the results file.
# Usage: prompt_slash.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bin=$(cd "$1" && pwd)
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
work=$(mktemp -d)
sock="gemini-nvim-prompt-slash-$$" session=slash
name=prompt_slash
# shellcheck source=tmux.sh
. "$here/tmux.sh"

ws="$work/project" home="$work/home"
mkdir -p "$ws" "$home/.gemini"
printf '{"%s": "DO_NOT_TRUST"}' "$ws" >"$home/.gemini/trustedFolders.json"
printf 'a TODO here\n' >"$ws/notes.txt"
cat >"$work/init.lua" <<LUA
vim.opt.runtimepath:prepend("$here/..")
vim.opt.swapfile = false
vim.opt.shortmess:append("I")
-- The user's own: the first match inserted at once.
vim.o.completeopt = "menu"
vim.cmd("runtime plugin/gemini.lua")
require("gemini").setup({ cmd = { "$bin/gemini-ls" } })
LUA
start_fake --script "$here/scripts/none.json"
cmd=$(printf 'cd %q && env HOME=%q GOOGLE_GEMINI_BASE_URL=%q GEMINI_API_KEY=test GEMINI_MODEL=gemini-2.5-pro nvim -u %q -i NONE notes.txt' \
  "$ws" "$home" "$url" "$work/init.lua")
tm new-session -d -s "$session" -x 160 -y 30 "$cmd" || fail "tmux new-session failed"
wait_for "notes.txt" '^a TODO here' 'notes\.txt'

command Gemini
wait_for "the prompt area" '<C-s> send · <C-c> cancel'
tm send-keys -t "$session" /
wait_for "the commands' menu on /" '/about ' '/model '
# The prompt area's first line: just "/", nothing of the menu inserted.
grep -qE '(^|│)/about *$' <<<"$screen" && fail "the first match was inserted on /"
tm send-keys -t "$session" -l model
tm send-keys -t "$session" Escape
wait_for "the typed command" '(^|│)/model *$'
printf '%s\n' "$screen" >"$(picture prompt-slash)"
grep -q 'aboutmodel' <<<"$screen" && fail "the prompt area holds /aboutmodel"
pass "/ then model in the prompt area is /model, with the user's completeopt=menu"

command 'wincmd t'
command 'echo "completeopt=" . &completeopt'
wait_for "the user's completeopt" '^completeopt='
grep -q '^completeopt=menu *$' <<<"$screen" || fail "the user's completeopt is not as it was: $(tail -n 1 <<<"$screen")"
pass "the user's completeopt is as it was outside the prompt area"
