#!/usr/bin/env bash
# The plugin installed from a clone, as a user of Neovim 0.7 to 0.11 with
# no plugin manager installs it, in a real Neovim in tmux, with neither
# gemini-ls nor Go on PATH: the README's clone block (its git URL made a
# file: URL of a repository laid out as this one) run as written in a home
# of the test's own, init.lua calling setup(). `:help gemini` then opens
# the plugin's help (the plugin wrote its tags; a clone has none), and
# :GeminiInstall installs gemini-ls from a release directory and :Gemini
# gets the model's answer from it. Screens go to nvim-clone-*.txt in
# build/screenshots (or $GEMINI_SCREENSHOTS_DIR). Appends "pass clone ..."
# lines, or one "fail clone: why" line, to the results file.
# Usage: clone.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bin=$(cd "$1" && pwd)
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
work=$(mktemp -d)
sock="gemini-nvim-clone-$$" session=clone
name=clone
# shellcheck source=tmux.sh
. "$here/tmux.sh"

# The repository the README's URL names: this one's plugin, at the same
# path, committed as git has it (no doc/tags, which .gitignore leaves out).
src="$work/gemini-ls"
mkdir -p "$src/editors"
cp -R "$repo/editors/nvim" "$src/editors/nvim"
rm -f "$src/editors/nvim/doc/tags"
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

# The README's clone block, run as written in the test's home, the URL
# the local repository's.
home="$work/home"
mkdir -p "$home/.config/nvim" "$home/.gemini"
awk '/<!-- clone.sh runs this block -->/ { on = 1; next } on && /^```sh$/ { sh = 1; next } sh && /^```$/ { exit } sh' \
  "$here/../README.md" >"$work/clone-block.sh"
grep -q 'git clone' "$work/clone-block.sh" || fail "no clone block in editors/nvim/README.md"
sed -i "s|https://github.com/gemini-ls/gemini-ls|file://$src|" "$work/clone-block.sh"
env -u XDG_DATA_HOME -u XDG_CONFIG_HOME HOME="$home" bash -e "$work/clone-block.sh" >"$work/clone-block.out" 2>&1 ||
  fail "the README's clone block failed: $(cat "$work/clone-block.out")"
plugin="$home/.local/share/nvim/site/pack/gemini/start/gemini-ls"
[ -f "$plugin/lua/gemini/init.lua" ] || fail "no plugin at $plugin after the clone block"
[ -e "$plugin/doc/tags" ] && fail "the clone has doc/tags before Neovim ran"
printf 'require("gemini").setup({ release_url = "file://%s/" })\n' "$release" >"$home/.config/nvim/init.lua"

ws="$work/project"
mkdir -p "$ws"
# The folder trust question answered already (as run.sh and pack.sh do).
printf '{"%s": "DO_NOT_TRUST"}' "$ws" >"$home/.gemini/trustedFolders.json"
printf 'a TODO here\n' >"$ws/notes.txt"
start_fake --script "$here/scripts/prompt.json"
path=/usr/local/bin:/usr/bin:/bin
PATH=$path builtin command -v gemini-ls >/dev/null && fail "gemini-ls is on PATH"
cmd=$(printf 'cd %q && env -u XDG_DATA_HOME -u XDG_CONFIG_HOME -u XDG_STATE_HOME PATH=%q HOME=%q GOOGLE_GEMINI_BASE_URL=%q GEMINI_API_KEY=test GEMINI_MODEL=gemini-2.5-pro nvim -i NONE notes.txt' \
  "$ws" "$path" "$home" "$url")
tm new-session -d -s "$session" -x 120 -y 30 "$cmd" || fail "tmux new-session failed"
wait_for "notes.txt with the plugin loaded" '^a TODO here' 'notes\.txt'

command 'help gemini-review'
wait_for "the plugin's help" 'gemini\.txt' 'REVIEWING A CHANGE'
printf '%s\n' "$screen" >"$(picture clone-help)"
[ -f "$plugin/doc/tags" ] || fail ":help found the plugin's help, but there is no $plugin/doc/tags"
pass ":help gemini-review opens the plugin's help from the README's clone route"
command q

command GeminiInstall
wait_for ":GeminiInstall" 'installed gemini-ls [^ ]+'
[ -x "$home/.local/share/nvim/gemini-ls/gemini-ls" ] || fail "no gemini-ls in stdpath('data')/gemini-ls"
command 'Gemini read the numbers'
wait_for "the model's answer in the chat" 'Two lines read\.'
printf '%s\n' "$screen" >"$(picture clone-chat)"
pass ":GeminiInstall and :Gemini work from the README's clone route"
