#!/usr/bin/env bash
# copilot-lsp.nvim, unchanged (the pinned snapshot in vendor/), with
# gemini-ls in place of Copilot's language server and no gemini-ls plugin,
# configured with the Lua block of editors/nvim/README.md's section "In
# copilot-lsp.nvim, without this plugin" (extracted, so the README is what
# is tested). A real, interactive Neovim in tmux against the real gemini-ls
# and fakegemini: the user renames count to total on line 2 of report.py;
# copilot-lsp asks textDocument/copilotInlineEdit, and the model's answer
# renames count's two uses, on lines 33 and 34, out of view. <Tab> jumps to
# line 33, where the edit shows (nvim-copilot-lsp-next-edit.txt), <Tab>
# applies it; the use on line 34 follows with no model call
# (nvim-copilot-lsp-follow-up.txt) and is applied the same way. Screens go
# to build/screenshots (or $GEMINI_SCREENSHOTS_DIR); appends one "pass
# copilot_lsp ..." or "fail copilot_lsp: why" line to the results file.
# copilot-lsp needs Neovim 0.11 or newer: with an older one this says so
# and runs nothing (editors/newer-editors.sh testing runs it).
# Usage: copilot_lsp.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bin=$(cd "$1" && pwd)
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
if [ "$(nvim --headless -u NONE -i NONE +'lua io.stdout:write(vim.fn.has("nvim-0.11"))' +qa 2>/dev/null)" != 1 ]; then
  echo "copilot-lsp.nvim needs Neovim 0.11 or newer: not run with $(nvim --version | head -1)"
  exit 0
fi
mkdir -p "$shots"
work=$(mktemp -d)
ws="$work/project"
mkdir -p "$ws" "$work/home" "$work/plugins" "$work/bin"
sent="$work/sent.txt"
requests="$work/requests.jsonl"
: >"$sent"

sock="gemini-nvim-copilot-lsp-$$" session=copilot
name=copilot_lsp
# shellcheck source=tmux.sh
. "$here/tmux.sh"

# What fail tells beside the last screen.
fail_details() {
  echo "  the client sent (last 15):"; tail -n 15 "$sent" | cut -c1-300 | sed 's/^/    /'
}

# wait_sent WHAT PATTERN: polls until the client sent a message matching
# grep -E PATTERN.
wait_sent() {
  for _ in $(seq "${patience:-150}"); do
    grep -qE -- "$2" "$sent" && return 0
    sleep 0.1
  done
  screen=$(tm capture-pane -p -t "$session" 2>/dev/null)
  fail "timed out waiting for $1 (want a message matching $2)"
}
# model_calls: the next edit requests that reached the model.
model_calls() { grep -c 'user_cursor_is_here' "$requests"; }

tar -xzf "$here/vendor/copilot-lsp.tar.gz" -C "$work/plugins" || fail "cannot unpack vendor/copilot-lsp.tar.gz"
ln -s "$bin/gemini-ls" "$work/bin/gemini-ls"
git -C "$ws" init -q
{
  printf 'def report(items):\n    count = len(items)\n'
  for i in $(seq 30); do printf '    # step %d\n' "$i"; done
  printf '    print(count, "items")\n    return count\n'
} >"$ws/report.py"

# The README's Lua block of the section is the init.lua.
awk '/^### In copilot-lsp.nvim/ { on = 1; next } on && /^#/ { on = 0 }
  on && /^```lua$/ { lua = 1; next } lua && /^```$/ { lua = 0; print ""; next } lua' \
  "$here/../README.md" >"$work/init.lua"
grep -q 'copilot-lsp.nes' "$work/init.lua" || fail "no init.lua in editors/nvim/README.md's section \"In copilot-lsp.nvim\""

start_fake --script "$here/scripts/copilot_lsp.json" --record "$requests"

# gemini-ls from PATH, as the README's cmd = { "gemini-ls" } has it;
# copilot-lsp put on the runtimepath before the init.lua, as a plugin
# manager does.
cmd=$(printf 'cd %q && env PATH=%q GOOGLE_GEMINI_BASE_URL=%q GEMINI_API_KEY=test GEMINI_MODEL=gemini-2.5-pro HOME=%q GEMINI_SENT=%q nvim -i NONE --cmd %q -u %q -S %q report.py' \
  "$ws" "$work/bin:$PATH" "$url" "$work/home" "$sent" "set runtimepath^=$work/plugins/copilot-lsp" "$work/init.lua" "$here/copilot_lsp_helper.lua")
tm new-session -d -s "$session" -x 100 -y 24 "$cmd" || fail "tmux new-session failed"
wait_for "report.py to open" '^    count = len\(items\)' 'report\.py'
version=$(nvim --version | head -1)
wait_for "gemini-ls to be ready" '^gemini-ls ready'

# 1. The rename on line 2; the next edit comes, out of view.
tm send-keys -t "$session" 2 G ^ c i w
tm send-keys -t "$session" -l total
tm send-keys -t "$session" Escape
wait_sent "the next edit shown (didShowInlineEdit)" '^textDocument/didShowInlineEdit '
grep -qE '^textDocument/copilotInlineEdit .*"version": ?[0-9]' "$sent" || fail "no copilotInlineEdit with the document's version was sent"
calls=$(model_calls)
[ "$calls" -ge 1 ] || fail "no next edit request reached the model"

# 2. Tab jumps to it: the line it changes, the new line below (the jump
# leaves line 33 at the bottom of the window: zz shows what is below it).
tm send-keys -t "$session" Tab
wait_for "the jump to line 33" ' 33,11 '
tm send-keys -t "$session" z z
wait_for "the next edit at line 33" '^    print\(count, "items"\)' '^    print\(total, "items"\)' '^    return count'
printf '%s\n' "$screen" >"$shots/nvim-copilot-lsp-next-edit.txt"
grep -q '^    total = len(items)' "$ws/report.py" && fail "the rename was saved before it was accepted"

# 3. Tab applies it; the next use follows from the same answer.
shown=$(grep -c '^textDocument/didShowInlineEdit ' "$sent")
tm send-keys -t "$session" Tab
patience=150 wait_for "the edit applied and the next one shown" '^    print\(total, "items"\)' '^    return count' '^    return total'
grep -q '^    print(count' <<<"$screen" && fail "line 33 was not renamed"
for _ in $(seq 100); do [ "$(grep -c '^textDocument/didShowInlineEdit ' "$sent")" -gt "$shown" ] && break; sleep 0.1; done
printf '%s\n' "$screen" >"$shots/nvim-copilot-lsp-follow-up.txt"
[ "$(model_calls)" = "$calls" ] || fail "the model was asked again ($(model_calls) requests, $calls before) for a change it had foreseen"

# 4. Tab jumps to line 34, Tab applies it; saved, the rename is through.
tm send-keys -t "$session" Tab
wait_for "the jump to line 34" ' 34,12 '
tm send-keys -t "$session" Tab
# copilot-lsp applies the edit from a scheduled callback: a :w typed at
# once can be read before it runs and save the line unrenamed. Save once
# the buffer shows it applied, as a user would.
for _ in $(seq 100); do
  screen=$(tm capture-pane -p -t "$session" 2>/dev/null)
  grep -q '^    return count' <<<"$screen" || break
  sleep 0.1
done
grep -q '^    return count' <<<"$screen" && fail "Tab at line 34 did not apply the edit"
tm send-keys -t "$session" Escape ':w' Enter
want=$(sed 's/count/total/' "$ws/report.py")
for _ in $(seq 100); do [ "$(cat "$ws/report.py")" = "$want" ] && break; sleep 0.1; done
screen=$(tm capture-pane -p -t "$session" 2>/dev/null)
[ "$(cat "$ws/report.py")" = "$want" ] || fail "report.py is not renamed through: $(cat "$ws/report.py")"

echo "pass copilot_lsp ($version, copilot-lsp $(sed -n 's/.*| `\([0-9a-f]\{40\}\)`.*/\1/p' "$here/vendor/README.md" | cut -c1-12)) textDocument/copilotInlineEdit answered with the rename's next use 31 lines down, shown, jumped to and applied with Tab; the use after it followed with no model call and was applied; wrote nvim-copilot-lsp-next-edit.txt and nvim-copilot-lsp-follow-up.txt" | tee -a "$results"
