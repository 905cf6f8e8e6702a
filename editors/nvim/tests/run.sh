#!/usr/bin/env bash
# Runs the plugin's headless tests against the real gemini-ls and the fake
# Gemini API. Last line: "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# GEMINI_LS_BIN, FAKEGEMINI_BIN and FAKEGITHUB_BIN (all set) name prebuilt
# binaries, for runs without Go (editors/newer-editors.sh runs this inside
# a chroot).
if [ -n "${GEMINI_LS_BIN:-}" ] && [ -n "${FAKEGEMINI_BIN:-}" ] && [ -n "${FAKEGITHUB_BIN:-}" ]; then
  ln -s "$GEMINI_LS_BIN" "$tmp/gemini-ls" && ln -s "$FAKEGEMINI_BIN" "$tmp/fakegemini" && ln -s "$FAKEGITHUB_BIN" "$tmp/fakegithub"
else
  (cd "$repo" && go build -o "$tmp/gemini-ls" ./cmd/gemini-ls && go build -o "$tmp/fakegemini" ./internal/agent/geminitest/cmd/fakegemini \
    && go build -o "$tmp/fakegithub" ./internal/github/githubtest/cmd/fakegithub)
fi || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
nvim --version | head -1
# gopls for the specs of gemini/languageFeature (make langservers installs
# it), named before HOME changes.
export GEMINI_GOPLS="${GEMINI_GOPLS:-${XDG_CACHE_HOME:-$HOME/.cache}/gemini-ls/langservers/bin/gopls}"
# Go's caches, named before HOME changes too: link.sh's offline build
# (GOPROXY=off) finds the modules only in the machine's module cache.
if command -v go >/dev/null; then
  export GOMODCACHE="${GOMODCACHE:-$(go env GOMODCACHE)}" GOCACHE="${GOCACHE:-$(go env GOCACHE)}"
fi
# Saved sessions and settings go to a home of the run's own, never the
# user's (after the build, which uses Go's cache there).
export HOME="$tmp/home" XDG_STATE_HOME="$tmp/home/.local/state"
mkdir -p "$HOME"
results="$tmp/results"
: >"$results"
for spec in "$here"/*_spec.lua; do
  [ -n "${1:-}" ] && [[ "$spec" != *"$1"* ]] && continue
  script=$(sed -n 's/^-- script: *//p' "$spec" | head -1)
  ws="$tmp/ws-$(basename "$spec" .lua)"
  mkdir -p "$ws"
  # The user answered the folder trust question for this workspace
  # already ("Don't trust": untrusted, as it was), so that only
  # trust_spec.lua, which starts from no answer, is asked it.
  mkdir -p "$HOME/.gemini"
  printf '{"%s": "DO_NOT_TRUST"}' "$ws" >"$HOME/.gemini/trustedFolders.json"
  printf 'a TODO here\n' >"$ws/notes.txt"
  printf 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n' >"$ws/numbers.txt"
  requests="$tmp/requests-$(basename "$spec" .lua).jsonl"
  echo "== $(basename "$spec") ($script)"
  before=$(wc -l <"$results")
  # fakegemini runs nvim with GOOGLE_GEMINI_BASE_URL pointing at itself, and
  # stops when nvim ends; its status is nvim's, or 1 if nvim passed but
  # asked for a turn the script lacks.
  GEMINI_API_KEY=test GEMINI_MODEL=gemini-2.5-pro GEMINI_LS="$tmp/gemini-ls" \
    GEMINI_SPEC="$spec" GEMINI_WORKSPACE="$ws" GEMINI_TEST_RESULTS="$results" GEMINI_REQUESTS="$requests" \
    "$tmp/fakegemini" --script "$here/scripts/$script" --record "$requests" -- \
    timeout 60 nvim --headless -u NONE -i NONE -S "$here/init.lua" 2>&1 | sed 's/^/  /'
  status=${PIPESTATUS[0]}; echo
  # A spec that dies (or hangs) before reporting must not pass unnoticed.
  if [ "$status" != 0 ] || [ "$(wc -l <"$results")" = "$before" ]; then
    echo "fail $(basename "$spec"): nvim exited with status $status after reporting $(( $(wc -l <"$results") - before )) results" >>"$results"
  fi
done
# Real interactive Neovim in tmux, each writing its screens to
# build/screenshots (or $GEMINI_SCREENSHOTS_DIR): screenshots.sh with our
# plugin (nvim-*.txt), review.sh (a review sent from Insert mode,
# nvim-review-*.txt), review_autosave.sh (reviews kept off the disk
# until ga whatever writes buffers, nvim-review-autosave*.txt), startup.sh (start-up problems told in the chat,
# nvim-startup-problems.txt), stock.sh with Neovim's built-in client and no plugin,
# configured as the README says (nvim-stock-*.txt), completion.sh,
# copilot_lsp.sh with copilot-lsp.nvim and no plugin
# (nvim-copilot-lsp-*.txt; Neovim 0.11 and newer), install.sh
# (:GeminiInstall's build with Go in the background, nvim-install-*.txt),
# clone.sh (the README's clone route, :help from it, nvim-clone-*.txt),
# agents.sh (:GeminiAgents with two agents in worktrees, nvim-agents*.txt),
# background.sh (:GeminiBackground against fakegithub, an agent on GitHub
# Actions landed from the agents view, nvim-agents-background*.txt)
# prompt_slash.sh (/model typed in the prompt area stays /model,
# nvim-prompt-slash.txt), link.sh (the README's clone route offline with
# the real Go: :GeminiInstall builds from the linked clone, a failed build
# told in one line, nvim-link-*.txt) and pack.sh (nvim-pack-*.txt).
# tmux_test NAME SECONDS: runs NAME.sh, recording a failure it did not.
tmux_test() {
  [ -z "$filter" ] || [[ $1 == *"$filter"* ]] || return 0
  echo "== $1.sh"
  timeout "$2" bash "$here/$1.sh" "$tmp" "$results" 2>&1 | sed 's/^/  /'
  status=${PIPESTATUS[0]}; echo
  if [ "$status" != 0 ] && ! grep -q "^fail $1" "$results"; then
    echo "fail $1: $1.sh exited with status $status" >>"$results"
  fi
}
filter=${1:-}
tmux_test screenshots 60
tmux_test review 90
tmux_test review_autosave 240
tmux_test startup 60
tmux_test stock 240
tmux_test completion 120
tmux_test prompt_slash 90
tmux_test copilot_lsp 120
tmux_test install 90
tmux_test clone 120
# link.sh builds gemini-ls with the real Go, which a chroot without Go
# (editors/newer-editors.sh) lacks.
if command -v go >/dev/null; then
  tmux_test link 600
else
  echo "== link.sh: no Go on PATH to build gemini-ls from the clone with"
fi
tmux_test agents 120
tmux_test background 180
# pack.sh: the README's vim.pack install from a git URL, then
# :GeminiInstall; vim.pack came with Neovim 0.12 (Debian testing's runs it).
if nvim --headless -u NONE -i NONE -c 'lua vim.cmd(vim.pack and "qall!" or "cquit!")' 2>/dev/null; then
  tmux_test pack 120
else
  echo "== pack.sh: $(nvim --version | head -1) has no vim.pack (0.12+); Debian testing's Neovim runs it"
fi
passed=$(grep -c '^pass ' "$results")
failed=$(grep -c '^fail ' "$results")
grep '^fail ' "$results"
echo; echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
