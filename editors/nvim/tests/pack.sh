#!/usr/bin/env bash
# The plugin installed as a Neovim 0.12 user installs it, in a real Neovim
# in tmux, with neither gemini-ls nor Go on PATH: the README's vim.pack
# block (its git URL made a file: URL of a repository laid out as this one,
# the plugin in editors/nvim) clones it, :GeminiInstall installs gemini-ls
# from a release directory (a file: URL holding the archive for this
# machine and SHA256SUMS, as make dist writes them), and :Gemini gets the
# model's answer from it. Screens go to nvim-pack-*.txt in build/screenshots
# (or $GEMINI_SCREENSHOTS_DIR). Appends "pass pack ..." lines, or one
# "fail pack: why" line, to the results file.
# Usage: pack.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bin=$(cd "$1" && pwd)
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
work=$(mktemp -d)
sock="gemini-nvim-pack-$$" session=pack
name=pack
# shellcheck source=tmux.sh
. "$here/tmux.sh"

# The repository the README's URL names: this one's plugin, at the same
# path, committed.
src="$work/gemini-ls"
mkdir -p "$src/editors"
cp -R "$repo/editors/nvim" "$src/editors/nvim"
cp "$repo/LICENSE" "$src/"
git -C "$src" init -q
git -C "$src" add -A
git -C "$src" -c user.name=test -c user.email=test@example.com commit -qm plugin || fail "git commit failed"

# The release for this machine.
case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64) arch=arm64 ;;
  *) fail "no release for $(uname -m)" ;;
esac
release="$work/release"
mkdir -p "$release" "$work/stage"
cp "$bin/gemini-ls" "$work/stage/"
tar -C "$work/stage" -czf "$release/gemini-ls-linux-$arch.tar.gz" gemini-ls
(cd "$release" && sha256sum "gemini-ls-linux-$arch.tar.gz" >SHA256SUMS)

# The README's vim.pack block is the init.lua, pointed at the local
# repository and release.
awk '/<!-- pack.sh runs this block -->/ { on = 1; next } on && /^```lua$/ { lua = 1; next } lua && /^```$/ { exit } lua' \
  "$here/../README.md" >"$work/init.lua"
grep -q 'vim.pack.add' "$work/init.lua" || fail "no vim.pack block in editors/nvim/README.md"
sed -i -e "s|https://github.com/gemini-ls/gemini-ls|file://$src|" \
  -e "s|setup({})|setup({ release_url = \"file://$release/\" })|" "$work/init.lua"

ws="$work/project"
mkdir -p "$ws" "$work/home/.gemini"
# The folder trust question answered already (as run.sh and stock.sh do):
# this test is about the install, trust_spec.lua about the question.
printf '{"%s": "DO_NOT_TRUST"}' "$ws" >"$work/home/.gemini/trustedFolders.json"
printf 'a TODO here\n' >"$ws/notes.txt"
start_fake --script "$here/scripts/prompt.json"
path=/usr/local/bin:/usr/bin:/bin
PATH=$path builtin command -v gemini-ls >/dev/null && fail "gemini-ls is on PATH"
PATH=$path builtin command -v go >/dev/null && fail "go is on PATH"
cmd=$(printf 'cd %q && env PATH=%q HOME=%q XDG_CONFIG_HOME=%q XDG_DATA_HOME=%q XDG_STATE_HOME=%q GOOGLE_GEMINI_BASE_URL=%q GEMINI_API_KEY=test GEMINI_MODEL=gemini-2.5-pro nvim -u %q -i NONE notes.txt' \
  "$ws" "$path" "$work/home" "$work/home/.config" "$work/home/.local/share" "$work/home/.local/state" "$url" "$work/init.lua")
tm new-session -d -s "$session" -x 120 -y 30 "$cmd" || fail "tmux new-session failed"

# vim.pack asks before it installs.
wait_for "vim.pack's question" 'These plugins will be installed' 'gemini-ls' 'Proceed\?'
tm send-keys -t "$session" y
wait_for "notes.txt with the plugin loaded" '^a TODO here' 'notes\.txt'
# The plugin loaded, with no server yet: it said how to get one, once.
command messages
wait_for "the hint to run :GeminiInstall in :messages" 'gemini-ls is not installed.*:GeminiInstall installs it'
[ "$(grep -c 'GeminiInstall installs it' <<<"$screen")" = 1 ] || fail "the hint was given more than once"
tm send-keys -t "$session" Enter
wait_for "notes.txt again" '^a TODO here' 'notes\.txt'
plugin="$work/home/.local/share/nvim/site/pack/core/opt/gemini-ls"
[ -f "$plugin/editors/nvim/lua/gemini/init.lua" ] || fail "vim.pack did not clone the plugin into $plugin"
pass "vim.pack.add clones the repository and the plugin loads from editors/nvim"

command GeminiInstall
wait_for ":GeminiInstall" 'installed gemini-ls [^ ]+'
printf '%s\n' "$screen" >"$shots/nvim-pack-install.txt"
[ -x "$work/home/.local/share/nvim/gemini-ls/gemini-ls" ] || fail "no gemini-ls in stdpath('data')/gemini-ls"
pass ":GeminiInstall installs gemini-ls from the release"

command 'Gemini read the numbers'
wait_for "the model's answer in the chat" 'Two lines read\.'
printf '%s\n' "$screen" >"$shots/nvim-pack-chat.txt"
pass ":Gemini answers through the installed gemini-ls"
