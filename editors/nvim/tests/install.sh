#!/usr/bin/env bash
# :GeminiInstall falling back to a build with Go, in a real interactive
# Neovim in tmux: no release to be had (release_url a file: URL of an empty
# directory), a stand-in for Go first on PATH (fakego/go) that builds only
# when the test lets it. It says why it builds (nvim-install-fallback.txt);
# while Go builds, the progress line counts the
# seconds and Neovim answers keystrokes (nvim-install-building.txt); the
# build ends installed (nvim-install-done.txt); a second build is stopped
# by :GeminiInstall cancel (nvim-install-cancelled.txt). Appends "pass
# install ..." lines, or one "fail install: why" line, to the results file.
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
# shellcheck source=tmux.sh
. "$here/tmux.sh"
fail() {
  echo "fail install: $*" | tee -a "$results"
  if [ -n "${screen:-}" ]; then echo "  last screen:"; sed 's/^/    /' <<<"$screen"; fi
  exit 1
}
pass() { echo "pass install $*" | tee -a "$results"; }
command() { tm send-keys -t "$session" Escape; tm send-keys -t "$session" -l ":$1"; tm send-keys -t "$session" Enter; }

ws="$work/project" go="$work/go"
mkdir -p "$ws" "$go" "$work/release" "$work/home"
printf 'a TODO here\n' >"$ws/notes.txt"
cat >"$work/init.lua" <<LUA
vim.opt.runtimepath:prepend("$here/..")
vim.opt.swapfile = false
vim.opt.shortmess:append("I")
vim.cmd("runtime plugin/gemini.lua")
require("gemini").setup({ release_url = "file://$work/release/" })
LUA
path=$here/fakego:/usr/local/bin:/usr/bin:/bin
cmd=$(printf 'cd %q && env PATH=%q HOME=%q XDG_DATA_HOME=%q XDG_STATE_HOME=%q FAKEGO_DIR=%q GEMINI_LS=%q nvim -u %q -i NONE notes.txt' \
  "$ws" "$path" "$work/home" "$work/home/.local/share" "$work/home/.local/state" "$go" "$bin/gemini-ls" "$work/init.lua")
tm new-session -d -s "$session" -x 160 -y 20 "$cmd" || fail "tmux new-session failed"
wait_for "notes.txt" '^a TODO here' 'notes\.txt'

command GeminiInstall
# Told why it builds, and how long it may take, in more lines than the
# command line holds: Neovim asks for Enter, which is answered at once.
wait_for "the fallback to Go" 'cannot read .*/release/gemini-ls-linux-.*building gemini-ls with Go instead \(the first' 'build takes minutes; :GeminiInstall cancel stops it\)' 'Press ENTER'
printf '%s\n' "$screen" >"$(picture install-fallback)"
tm send-keys -t "$session" Enter
wait_for "go to start" 'building gemini-ls with Go… [0-9]+ s \(:GeminiInstall cancel stops it\)'
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
[ -x "$work/home/.local/share/nvim/gemini-ls/gemini-ls" ] || fail "no gemini-ls in stdpath('data')/gemini-ls"
pass ":GeminiInstall's build with Go installs gemini-ls when it ends"

rm "$go/go-on" "$go/go.pid" "$work/home/.local/share/nvim/gemini-ls/gemini-ls"
command 'GeminiInstall build'
wait_for "go to start again" 'building gemini-ls with Go… [0-9]+ s'
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
