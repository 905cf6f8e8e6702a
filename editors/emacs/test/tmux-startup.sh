#!/usr/bin/env bash
# The server's start-up problems told where the user looks, in a real
# interactive Emacs (emacs -nw inside a detached tmux): with a broken
# ~/.gemini/settings.json, an MCP server that cannot start (named by the
# system settings, in a trusted folder) and no credentials, M-x
# gemini-ls-chat starts the chat's server and the chat says each, once:
# the settings file and that it was ignored, the MCP server and that its
# tools are unavailable, the missing key and how to sign in; its header
# says "no credentials", not "ready" (emacs-startup-problems.txt).
# Called by run.sh with GEMINI_LS_BIN and FAKEGEMINI_BIN set; prints
# "PASS tmux-startup" or "FAIL tmux-startup: why".
set -uo pipefail
sock="gemini-startup-$$"
# shellcheck source=tmux.sh
. "$(dirname "$0")/tmux.sh"

fail() { fail_showing tmux-startup "$@"; }

proj="$work/proj"
mkdir -p "$proj" "$work/home/.gemini"
printf 'a TODO here\n' >"$proj/notes.txt"
# A comma missing: the file does not parse.
printf '{\n  "model": {"name": "gemini-2.5-pro"}\n  "general": {}\n}\n' >"$work/home/.gemini/settings.json"
printf '{"mcpServers": {"docs": {"command": "%s"}}}\n' "$work/no-such-mcp-server" >"$work/system-settings.json"
echo "[]" >"$work/script.json"
start_fake --script "$work/script.json"

chat_init_el

export TERM=xterm-256color
tmux -L "$sock" -f /dev/null new-session -d -x 140 -y 40 \
  "cd '$proj' && env -u GEMINI_API_KEY -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL \
   TERM=xterm-256color HOME='$work/home' GEMINI_CLI_TRUST_WORKSPACE=true \
   GEMINI_CLI_SYSTEM_SETTINGS_PATH='$work/system-settings.json' GOOGLE_GEMINI_BASE_URL='$url' \
   emacs -nw -Q -l '$work/init.el' notes.txt" || fail "tmux did not start"
wait_for 'a TODO here' "notes.txt to open"

keys M-x
wait_for '^M-x' "the M-x prompt" 5
type_text gemini-ls-chat
keys Enter
wait_for 'Prompt \(C-c C-c sends\)' "the chat's prompt area" 20
wait_for '^> Warning: settings file .*/\.gemini/settings\.json:3:' "the broken settings file in the chat" 20
wait_for 'the file was ignored' "the chat to say the settings file was ignored" 5
wait_for '^> Warning: MCP server docs failed to start; its tools are unavailable' "the MCP server that did not start in the chat" 20
wait_for '^> No credentials: GEMINI_API_KEY environment variable not found' "the missing key in the chat" 20
wait_for '^> In Emacs, M-x gemini-ls-login signs in with Google\.' "how to sign in, in the chat" 5
wait_for '^ no credentials: M-x gemini-ls-login' "the header to say there are no credentials" 5
shot="$(screen)"
grep -q '^ ready' <<<"$shot" && fail "the header says ready without credentials"
printf '%s\n' "$shot" >"$(picture emacs-startup-problems)"

# Once: opening the chat again tells nothing more.
keys M-x
wait_for '^M-x' "the M-x prompt" 5
type_text gemini-ls-chat
keys Enter
sleep 1
for what in 'settings file' 'MCP server docs' 'No credentials'; do
  n=$(screen | grep -c "$what")
  [[ $n == 1 ]] || fail "the chat tells \"$what\" $n times"
done
echo "PASS tmux-startup"
