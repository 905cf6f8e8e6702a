#!/usr/bin/env bash
# gemini-ls's start-up problems told where the user looks, in a real,
# interactive Neovim in tmux, 80 columns wide as it starts: a broken
# ~/.gemini/settings.json, an MCP server that cannot start (named by the
# system settings, in a trusted folder) and no credentials. Neovim starts
# with no Press ENTER, one line pointing to the chat; :Gemini opens the
# chat, which says each problem once: the settings file and that it was
# ignored, the MCP server and that its tools are unavailable, the missing
# key and how to sign in; its status line says no credentials
# (nvim-startup-problems.txt). Opening the chat again tells nothing more.
# Appends "pass startup ..." lines, or one "fail startup: why" line, to
# the results file.
# Usage: startup.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bin=$(cd "$1" && pwd)
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
work=$(mktemp -d)
sock="gemini-nvim-startup-$$" session=startup
name=startup
# shellcheck source=tmux.sh
. "$here/tmux.sh"
# command, with a pause after Escape, as this test has sent it since it was
# written (tmux.sh's sends the keys at once).
command() { tm send-keys -t "$session" Escape; sleep 0.2; tm send-keys -t "$session" -l ":$1"; tm send-keys -t "$session" Enter; }

ws="$work/project"
mkdir -p "$ws" "$work/home/.gemini"
printf 'a TODO here\n' >"$ws/notes.txt"
# A comma missing: the file does not parse.
printf '{\n  "model": {"name": "gemini-2.5-pro"}\n  "general": {}\n}\n' >"$work/home/.gemini/settings.json"
printf '{"mcpServers": {"docs": {"command": "%s"}}}\n' "$work/no-such-mcp-server" >"$work/system-settings.json"
cat >"$work/init.lua" <<LUA
vim.opt.runtimepath:prepend("$here/..")
vim.opt.swapfile = false
vim.opt.shortmess:append("I")
require("gemini").setup({ cmd = { "$bin/gemini-ls" } })
LUA
echo '[]' >"$work/script.json"
start_fake --script "$work/script.json"
cmd=$(printf 'cd %q && env -u GEMINI_API_KEY -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL HOME=%q XDG_STATE_HOME=%q GEMINI_CLI_TRUST_WORKSPACE=true GEMINI_CLI_SYSTEM_SETTINGS_PATH=%q GOOGLE_GEMINI_BASE_URL=%q nvim -u %q -i NONE notes.txt' \
  "$ws" "$work/home" "$work/home/.local/state" "$work/system-settings.json" "$url" "$work/init.lua")
tm new-session -d -s "$session" -x 80 -y 30 "$cmd" || fail "tmux new-session failed"
wait_for "notes.txt" '^a TODO here' 'notes\.txt'
# The problems come as gemini-ls starts: one line points to the chat.
wait_for "the line pointing to the chat" '^Gemini: .*(in the chat|chat \(:Gemini\))'
grep -q 'Press ENTER' <<<"$screen" && fail "Neovim stopped for Enter at start-up"
[ "$(tail -n 1 <<<"$screen" | wc -L)" -le 80 ] || fail "the line pointing to the chat is wider than the screen"
pass "the start-up problems stop nothing: one line, which fits, points to the chat"

# Wide enough for the chat to show them whole.
tm resize-window -t "$session" -x 200 -y 50
command Gemini
wait_for "the problems in the chat" '> Warning: settings file .*settings\.json:3:' '> Warning: MCP server docs failed to start; its' \
  '> No credentials: GEMINI_API_KEY environment variable not found' '> In Neovim, :GeminiLogin signs in with Google\.' \
  'no credentials: :GeminiLogin'
# The chat wraps: what it says is read as one line, each space optional
# where a line ends.
joined=$(tr -d '\n' <<<"$screen")
for said in 'the file was ignored' 'its tools are unavailable'; do
  grep -qE "${said// / ?}" <<<"$joined" || fail "the chat does not say \"$said\""
done
printf '%s\n' "$screen" >"$(picture startup-problems)"
pass "the chat says each start-up problem: the settings file ignored, the MCP server's tools unavailable, the missing key and how to sign in"

# Once: opening the chat again tells nothing more.
command close
command Gemini
wait_for "the chat again" '> No credentials: GEMINI_API_KEY'
for what in '> Warning: settings file' '> Warning: MCP server docs' '> No credentials'; do
  n=$(grep -cF -- "$what" <<<"$screen")
  [ "$n" = 1 ] || fail "the chat tells \"$what\" $n times"
done
pass "each start-up problem is told once"
