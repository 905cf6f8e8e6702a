#!/usr/bin/env bash
# :GeminiInstall falling back to a build with Go, in a real interactive
# Neovim in tmux, 80 columns wide: no release to be had (release_url a
# host that takes the connection and never answers: a port the editor
# listens on and never accepts), a stand-in for Go first on PATH
# (fakego/go) that builds only when the test lets it. While the download
# waits, the progress line fits the command line, second after second,
# never asking for Enter (nvim-install-progress.txt); the download gives up
# after its time-out and Go builds, :messages saying why
# (nvim-install-fallback.txt);
# while Go builds, the progress line counts the seconds and Neovim answers
# keystrokes (nvim-install-building.txt); the build ends installed, said
# in a line that fits (nvim-install-done.txt); a second build, which says
# so in a line that fits, is stopped by :GeminiInstall cancel
# (nvim-install-cancelled.txt). Appends "pass install ..." lines, or
# one "fail install: why" line, to the results file.
# Usage: install.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bin=$(cd "$1" && pwd)
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
work=$(mktemp -d)
sock="gemini-nvim-install-$$" session=install
name=install
# shellcheck source=tmux.sh
. "$here/tmux.sh"

ws="$work/project" go="$work/go"
mkdir -p "$ws" "$go" "$work/release" "$work/home"
printf 'a TODO here\n' >"$ws/notes.txt"
cat >"$work/init.lua" <<LUA
vim.opt.runtimepath:prepend("$here/..")
vim.opt.swapfile = false
vim.opt.shortmess:append("I")
vim.cmd("runtime plugin/gemini.lua")
-- A download host that never answers: the connection is taken (the
-- kernel does that for a listening socket) and nothing is ever sent.
local silent = vim.loop.new_tcp()
assert(silent:bind("127.0.0.1", 0))
assert(silent:listen(8, function() end))
local url = ("http://127.0.0.1:%d/gemini-ls/gemini-ls/releases/latest/download/"):format(silent:getsockname().port)
require("gemini.install").timeouts = { connect = 5, stall = 5, stall_bytes = 1024 }
require("gemini").setup({ release_url = url })
LUA
path=$here/fakego:/usr/local/bin:/usr/bin:/bin
cmd=$(printf 'cd %q && env PATH=%q HOME=%q XDG_DATA_HOME=%q XDG_STATE_HOME=%q FAKEGO_DIR=%q GEMINI_LS=%q nvim -u %q -i NONE notes.txt' \
  "$ws" "$path" "$work/home" "$work/home/.local/share" "$work/home/.local/state" "$go" "$bin/gemini-ls" "$work/init.lua")
tm new-session -d -s "$session" -x 80 -y 20 "$cmd" || fail "tmux new-session failed"
wait_for "notes.txt" '^a TODO here' 'notes\.txt'

command GeminiInstall
started=$SECONDS
# The download waits: one progress line, cut to the command line's space,
# updated each second without a Press ENTER.
wait_for "the progress line" '^Gemini: downloading gemini-ls-linux-[a-z0-9]+\.tar\.gz… [0-9]+ s'
for n in 1 2 3; do
  wait_for "the progress line at $n s" "^Gemini: downloading gemini-ls-linux-[a-z0-9]+\.tar\.gz… $n s"
  grep -q 'Press ENTER' <<<"$screen" && fail "the progress line asked for Enter at $n s"
  [ "$(tail -n 1 <<<"$screen" | wc -L)" -le 80 ] || fail "the last line is wider than the screen"
done
printf '%s\n' "$screen" >"$(picture install-progress)"
pass "the progress line fits the command line, updated each second without asking for Enter"
# Given up after the time-out: Go builds, the progress line says so.
patience=300 wait_for "go to start" '^Gemini: building gemini-ls with Go… [0-9]+ s \(:GeminiInstall'
took=$((SECONDS - started))
grep -q 'Press ENTER' <<<"$screen" && fail "the fallback to Go asked for Enter"
[ "$took" -le 12 ] || fail "the fallback to Go came $took s after :GeminiInstall; the time-out is 5 s"
pass "a download host that never answers is given up after the time-out ($took s), and Go builds instead"
# Why it builds, in :messages whole (the command line had it cut in the
# middle). :messages wraps it at the screen's edge, which drops a space
# that falls there: read as one line, each space optional.
command messages
wait_for ":messages" 'Press ENTER'
said='Gemini: cannot download http://127\.0\.0\.1:[0-9]+/gemini-ls/gemini-ls/releases/latest/download/gemini-ls-linux-[a-z0-9]+\.tar\.gz: less than 1024 bytes a second came for 5 s; building gemini-ls with Go instead, from the plugin.s checkout \(the first build takes minutes; :GeminiInstall cancel stops it\)'
tr -d '\n' <<<"$screen" | grep -qE "${said// / ?}" || fail ":messages does not say why Go builds"
printf '%s\n' "$screen" >"$(picture install-fallback)"
pass ":messages says why Go builds: the download's time-out"
tm send-keys -t "$session" Enter
[ -s "$go/go.pid" ] || fail "the progress line shows, but go did not start"
# Go is still building (it waits for go-on): a keystroke is answered now.
tm send-keys -t "$session" -l 'Ohello while Go builds'
tm send-keys -t "$session" Escape
wait_for "the typed line, with go still building" '^hello while Go builds' '^a TODO here'
[ -e "$go/go-on" ] && fail "go-on exists before the keystroke was answered"
[ -x "$work/home/.local/share/nvim/gemini-ls/gemini-ls" ] && fail "installed before go ended"
# Left alone, the progress line comes back, counting.
wait_for "the progress line after the typing" 'building gemini-ls with Go… [0-9]+ s' '^hello while Go builds'
printf '%s\n' "$screen" >"$(picture install-building)"
pass "Neovim answers keystrokes while :GeminiInstall's build with Go runs"

touch "$go/go-on"
wait_for "the install to end" 'installed gemini-ls [^ ]+'
printf '%s\n' "$screen" >"$(picture install-done)"
grep -q 'Press ENTER' <<<"$screen" && fail "the line saying it was installed asked for Enter"
[ -x "$work/home/.local/share/nvim/gemini-ls/gemini-ls" ] || fail "no gemini-ls in stdpath('data')/gemini-ls"
pass ":GeminiInstall's build with Go installs gemini-ls when it ends"

rm "$go/go-on" "$go/go.pid" "$work/home/.local/share/nvim/gemini-ls/gemini-ls"
command 'GeminiInstall build'
wait_for "go to start again" '^Gemini: building gemini-ls with Go… [0-9]+ s'
grep -q 'Press ENTER' <<<"$screen" && fail ":GeminiInstall build's first line asked for Enter"
command 'GeminiInstall cancel'
wait_for "the cancel" 'the install was cancelled after [0-9]+ s; nothing was installed'
printf '%s\n' "$screen" >"$(picture install-cancelled)"
pid=$(cat "$go/go.pid")
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "go (pid $pid) still runs after :GeminiInstall cancel"
touch "$go/go-on"
sleep 0.5
[ -e "$work/home/.local/share/nvim/gemini-ls/gemini-ls" ] && fail "installed after :GeminiInstall cancel"
pass ":GeminiInstall cancel stops the build and installs nothing"
