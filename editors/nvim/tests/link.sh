#!/usr/bin/env bash
# The README's clone route for Neovim 0.7 to 0.11, offline, in a real
# Neovim in tmux with the real Go: the README's clone block (its git URL
# made a file: URL of a repository holding this checkout's files) run as
# written in a home of the test's own, init.lua calling setup({}) as the
# README says. No release can be downloaded (no network; GOPROXY=off, so
# no go install …@latest can succeed either): :GeminiInstall builds from
# the clone the linked plugin came in, its real path, not the link's
# (nvim-link-installed.txt). Then the clone's build is broken on purpose
# and :GeminiInstall build fails: one line on the command line, no E115,
# no stack trace, no Press ENTER, Go's output in a window of its own
# (nvim-link-failed.txt). Appends "pass link ..." lines, or one
# "fail link: why" line, to the results file.
# Usage: link.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
work=$(mktemp -d)
sock="gemini-nvim-link-$$" session=link
name=link
# shellcheck source=tmux.sh
. "$here/tmux.sh"

builtin command -v go >/dev/null || fail "no go on PATH"
# The repository the README's URL names: this checkout's files as they
# are (committed or not), committed in a repository of their own.
src="$work/gemini-ls"
mkdir -p "$src"
(cd "$repo" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$src") || fail "copying the checkout failed"
rm -f "$src/editors/nvim/doc/tags"
git -C "$src" init -q
git -C "$src" add -A
git -C "$src" -c user.name=test -c user.email=test@example.com commit -qm gemini-ls || fail "git commit failed"

home="$work/home"
mkdir -p "$home/.config/nvim" "$home/.gemini"
awk '/<!-- clone.sh runs this block -->/ { on = 1; next } on && /^```sh$/ { sh = 1; next } sh && /^```$/ { exit } sh' \
  "$here/../README.md" >"$work/clone-block.sh"
grep -q 'ln -s' "$work/clone-block.sh" || fail "no linking clone block in editors/nvim/README.md"
sed -i "s|https://github.com/gemini-ls/gemini-ls|file://$src|" "$work/clone-block.sh"
env -u XDG_DATA_HOME -u XDG_CONFIG_HOME HOME="$home" bash -e "$work/clone-block.sh" >"$work/clone-block.out" 2>&1 ||
  fail "the README's clone block failed: $(cat "$work/clone-block.out")"
clone="$home/.local/share/nvim/gemini-ls"
plugin="$home/.local/share/nvim/site/pack/gemini/start/gemini-ls"
[ -L "$plugin" ] || fail "the clone block did not link the plugin into $plugin"
# As the README says; the release URL the default, which offline fails.
echo 'require("gemini").setup({})' >"$home/.config/nvim/init.lua"

ws="$work/project"
mkdir -p "$ws"
printf '{"%s": "DO_NOT_TRUST"}' "$ws" >"$home/.gemini/trustedFolders.json"
printf 'a TODO here\n' >"$ws/notes.txt"
path=$(dirname "$(builtin command -v go)"):/usr/local/bin:/usr/bin:/bin
PATH=$path builtin command -v gemini-ls >/dev/null && fail "gemini-ls is on PATH"
# Offline: GOPROXY=off, so Go can fetch nothing (go install …@latest
# cannot succeed), and no toolchain download. The module and build caches
# are the ones `make install` filled (the README's clone route comes after
# it), so the clone builds with what is here. No GOFLAGS: the README's user
# has none, and CI's -buildvcs=false would leave the build unstamped.
cmd=$(printf 'cd %q && env -u XDG_DATA_HOME -u XDG_CONFIG_HOME -u XDG_STATE_HOME -u GOFLAGS PATH=%q HOME=%q GOPROXY=off GOTOOLCHAIN=local GOMODCACHE=%q GOCACHE=%q https_proxy=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9 GEMINI_API_KEY=test nvim -i NONE notes.txt' \
  "$ws" "$path" "$home" "$(go env GOMODCACHE)" "$(go env GOCACHE)")
tm new-session -d -s "$session" -x 100 -y 24 "$cmd" || fail "tmux new-session failed"
wait_for "notes.txt with the plugin loaded" '^a TODO here' 'notes\.txt'

command GeminiInstall
# Go builds gemini-ls from the clone: minutes on a busy machine.
patience=6000 wait_for ":GeminiInstall's build from the clone" 'installed gemini-ls [^ ]+'
printf '%s\n' "$screen" >"$(picture link-installed)"
installed="$home/.local/share/nvim/gemini-ls/gemini-ls"
[ -x "$installed" ] || fail "no gemini-ls in stdpath('data')/gemini-ls"
# Built from the clone: Go stamps the clone's commit (go install …@latest
# would stamp none; offline it cannot fetch anything anyway).
go version -m "$installed" | grep -q "vcs.revision=$(git -C "$clone" rev-parse HEAD)" ||
  fail "the installed gemini-ls was not built from the clone: $(go version -m "$installed" | grep -E 'mod|vcs')"
grep -qE 'E115|Press ENTER|stack traceback' <<<"$screen" && fail "the install's messages broke Neovim's command line"
command messages
wait_for ":messages" "from the plugin.s checkout"
tr -d '\n' <<<"$screen" | grep -q 'go install' && fail ":messages names go install although the plugin came in a clone"
pass ":GeminiInstall builds from the clone the linked plugin came in, offline"
tm send-keys -t "$session" Enter
command 'messages clear'

# A build that fails, with Go's output of several lines.
printf 'package main\n\nfunc broken() { undefinedOne(); undefinedTwo() }\n' >"$clone/cmd/gemini-ls/broken.go"
command 'GeminiInstall build'
patience=3000 wait_for "the failed build" "was not installed: go build failed; Go's output is in the window below" 'undefined: undefinedOne'
printf '%s\n' "$screen" >"$(picture link-failed)"
grep -qE 'E115|Press ENTER|stack traceback|Error executing' <<<"$screen" && fail "the failure broke Neovim's command line"
last=$(tail -n 1 <<<"$screen")
grep -q '^Gemini: gemini-ls was not installed: go build failed' <<<"$last" || fail "the last line is not the failure: $last"
[ "$(wc -L <<<"$last")" -le 100 ] || fail "the failure's line is wider than the screen"
# Above it, the window with Go's output, not more message lines.
grep -q 'Gemini: gemini-ls was not installed' <<<"$(head -n -1 <<<"$screen")" && fail "the failure takes more than one line"
pass "a failed build says so in one line, Go's output in a window below, no E115, no Press ENTER"
