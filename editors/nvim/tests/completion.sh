#!/usr/bin/env bash
# Completion as you type and next edit suggestions in a real, interactive
# Neovim inside tmux, against the real gemini-ls and fakegemini (whose rules
# answer the completion and next edit prompts): Neovim 0.12's built-in
# inline completion, which the plugin enables, or the plugin's own ghost
# text before it. Writes nvim-completion.txt (the ghost text) and
# nvim-next-edit.txt (a predicted edit), what is not in the buffer marked
# «…» (tmux.sh's save_marked; a newer Neovim's named with its version,
# nvim-completion-0.12.txt), to build/screenshots (or
# $GEMINI_SCREENSHOTS_DIR), and appends one "pass completion ..." or
# "fail completion: why" line to the results file.
# Usage: completion.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bin=$1
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
work=$(mktemp -d)
ws="$work/project"
mkdir -p "$ws" "$work/home"
printf 'def mean(values):\n    total = sum(values)\n' >"$ws/stats.py"
printf 'def area(width, height):\n    return width * height\n' >"$ws/rect.py"
sent="$work/sent.txt"
: >"$sent"

sock="gemini-nvim-completion-$$" session=compl
name=completion
# shellcheck source=tmux.sh
. "$here/tmux.sh"

# What fail tells beside the last screen.
fail_details() {
  echo "  the client sent (last 15):"; tail -n 15 "$sent" | cut -c1-300 | sed 's/^/    /'
}

# wait_gone WHAT PATTERN: polls the screen until grep -E no longer finds
# PATTERN (and the screen settled).
wait_gone() {
  local what=$1 p=$2
  for _ in $(seq "${patience:-150}"); do
    screen=$(tm capture-pane -p -t "$session" 2>/dev/null)
    sleep 0.1
    if ! grep -qE -- "$p" <<<"$screen" && [ "$screen" = "$(tm capture-pane -p -t "$session" 2>/dev/null)" ]; then
      return 0
    fi
  done
  fail "timed out waiting for $what to go (still: $p)"
}

# wait_file WHAT FILE WANT: polls until FILE holds exactly WANT.
wait_file() {
  for _ in $(seq "${patience:-150}"); do
    [ "$(cat "$2")" = "$3" ] && return 0
    sleep 0.1
  done
  fail "$1: $2 holds $(printf '%q' "$(cat "$2")"), want $(printf '%q' "$3")"
}

# sent_count METHOD: how many times the client sent METHOD.
sent_count() { grep -c "^$1 " "$sent"; }

start_fake --script "$here/scripts/completion.json" --record "$work/requests.jsonl"

cmd=$(printf 'env HOME=%q GOOGLE_GEMINI_BASE_URL=%q GEMINI_API_KEY=test GEMINI_MODEL=gemini-2.5-pro GEMINI_LS=%q GEMINI_WORKSPACE=%q GEMINI_SENT=%q nvim -u NONE -i NONE -S %q' \
  "$work/home" "$url" "$bin/gemini-ls" "$ws" "$sent" "$here/completion_init.lua")
tm new-session -d -s "$session" -x 100 -y 20 "$cmd" || fail "tmux new-session failed"
wait_for "stats.py to open" 'stats\.py' '^    total = sum\(values\)'
version=$(nvim --version | head -1)
wait_for "gemini-ls to be ready in stats.py" '^gemini-ls ready'

# 1. Ghost text as you type: the rest of the line at the cursor and the
# lines below it, none of it in the buffer yet.
tm send-keys -t "$session" G o ret  # autoindent gives the four spaces
wait_for "the ghost text" '^    return total / len\(values\)' '^def median\(values\):' '^    ordered = sorted\(values\)'
# The ghost text marked «…» (completion_init.lua draws it in italics).
save_marked "$(picture completion)"
grep -qF '«urn total / len(values)»' "$(picture completion)" || fail "the ghost text is not marked as such: $(cat "$(picture completion)")"
grep -q '«.*ret' "$(picture completion)" && fail "what was typed is marked as ghost text: $(cat "$(picture completion)")"
grep -q '^textDocument/inlineCompletion ' "$sent" || fail "no textDocument/inlineCompletion was sent"
# gemini-ls hears what was shown, and the request took the diagnostics
# near the cursor (completion_init.lua set one) along, on 0.12's built-in
# too.
for _ in $(seq 100); do grep -q '^textDocument/didShowCompletion .*"insertText": "urn total' "$sent" && break; sleep 0.1; done
grep -q '^textDocument/didShowCompletion .*"insertText": "urn total' "$sent" || fail "no didShowCompletion for the suggestion shown"
grep -qF 'total is never read' "$work/requests.jsonl" \
  || fail "the model was not told the diagnostic; the client sent: $(grep '^textDocument/inlineCompletion ' "$sent" | tail -n 1)"

# 2. Esc clears it: it was never in the buffer.
tm send-keys -t "$session" Escape
wait_gone "the ghost text after Esc" 'def median'
grep -qE '^    ret *$' <<<"$screen" || fail "after Esc the line is not just what was typed"

# 3. Back in insert mode it comes again; M-w takes its first word (the
# rest still shown), Esc leaves that word alone in the buffer.
tm send-keys -t "$session" a
wait_for "the ghost text again" '^    return total / len\(values\)' '^def median\(values\):'
# M-w, Esc and :w typed at once, as a quick hand does: the word goes in
# before Esc leaves insert mode (Neovim 0.12's built-in would take it
# after the keys typed with the one that asked for it, and Esc drops it).
tm send-keys -t "$session" M-w Escape ':w' Enter
wait_for "one word taken" '^    return *$'
for _ in $(seq 100); do grep -q '^textDocument/didPartiallyAcceptCompletion .*"acceptedLength": 3' "$sent" && break; sleep 0.1; done
grep -q '^textDocument/didPartiallyAcceptCompletion .*"acceptedLength": 3' "$sent" || fail "M-w did not send didPartiallyAcceptCompletion"
grep -q 'def median' <<<"$screen" && fail "the rest of the suggestion stayed after Esc"

# 4. The rest comes back (gemini-ls types through its last suggestion);
# Tab takes it whole.
tm send-keys -t "$session" a
wait_for "the rest of the suggestion" '^    return total / len\(values\)' '^def median\(values\):'
# Tab, Esc and :w typed at once: Tab's acceptance lands first.
tm send-keys -t "$session" Tab Escape ':w' Enter
wait_file "Tab accepted the suggestion" "$ws/stats.py" "$(printf 'def mean(values):\n    total = sum(values)\n    return total / len(values)\n\n\ndef median(values):\n    ordered = sorted(values)')"
for _ in $(seq 100); do grep -q '^workspace/executeCommand .*gemini.acceptCompletion' "$sent" && break; sleep 0.1; done
grep -q '^workspace/executeCommand .*gemini.acceptCompletion' "$sent" || fail "accepting did not run gemini.acceptCompletion"

# 5. With nothing shown, Tab does what the user mapped it to
# (completion_init.lua: two spaces).
tm send-keys -t "$session" A Tab x Escape ':w' Enter
wait_file "Tab without a suggestion" "$ws/stats.py" "$(printf 'def mean(values):\n    total = sum(values)\n    return total / len(values)\n\n\ndef median(values):\n    ordered = sorted(values)  x')"

# 6. The plugin's own ghost text (before 0.12; the built-in leaves it to
# gemini-ls): a request a keystroke supersedes is cancelled at once.
builtin=$(nvim --headless -u NONE -i NONE +'lua io.stdout:write(vim.lsp.inline_completion and "yes" or "no")' +qa 2>/dev/null)
if [ "$builtin" = no ]; then
  tm send-keys -t "$session" o slow
  for _ in $(seq 100); do grep -q '^textDocument/inlineCompletion .*"position": {"character": 8, "line": 7}' "$sent" && break; sleep 0.1; done
  grep -q '^textDocument/inlineCompletion .*"position": {"character": 8, "line": 7}' "$sent" || fail "no request after slow"
  cancels=$(grep -c '^\$/cancelRequest ' "$sent")
  tm send-keys -t "$session" er
  for _ in $(seq 100); do [ "$(grep -c '^\$/cancelRequest ' "$sent")" -gt "$cancels" ] && break; sleep 0.1; done
  [ "$(grep -c '^\$/cancelRequest ' "$sent")" -gt "$cancels" ] || fail "the request before the keystroke was not cancelled"
  tm send-keys -t "$session" Escape ':w' Enter
fi

# 7. Next edit: rename width in rect.py's first line; gemini-ls predicts
# the same rename in the next, shown below it; Esc dismisses it,
# :Gemini nextedit asks again, Tab applies it.
tm send-keys -t "$session" ':edit rect.py' Enter
wait_for "rect.py to open" '^    return width \* height'
tm send-keys -t "$session" fw ciw w Escape
wait_for "the next edit" '^def area\(w, height\):' '^    return width \* height +Gemini: <Tab> accepts, <Esc> dismisses' '^    return w \* height *$'
save_marked "$(picture next-edit)"
grep -qxF '    «return w * height»' "$(picture next-edit)" && grep -qF ' «Gemini: <Tab> accepts, <Esc> dismisses»' "$(picture next-edit)" || fail "the next edit's new line is not marked as not in the buffer: $(cat "$(picture next-edit)")"
grep -q '^gemini/nextEdit .*"version"' "$sent" || fail "gemini/nextEdit was sent without the version: $(grep '^gemini/nextEdit' "$sent" | head -3)"
tm send-keys -t "$session" Escape
wait_gone "the next edit after Esc" 'return w \* height'
tm send-keys -t "$session" ':Gemini nextedit' Enter
wait_for "the next edit asked for" '^    return width \* height +Gemini: <Tab> accepts' '^    return w \* height *$'
tm send-keys -t "$session" Tab
tm send-keys -t "$session" ':w' Enter
wait_file "Tab accepted the next edit" "$ws/rect.py" "$(printf 'def area(w, height):\n    return w * height')"

echo "pass completion ($version) ghost text shown (didShowCompletion, the diagnostics sent), cleared by Esc, a word taken with M-w, the rest accepted with Tab (gemini.acceptCompletion run), Tab as the user mapped it without one, a superseded request cancelled (before 0.12); a next edit shown, dismissed with Esc, asked with :Gemini nextedit and accepted with Tab; wrote $(picture completion) and $(picture next-edit)" | tee -a "$results"
