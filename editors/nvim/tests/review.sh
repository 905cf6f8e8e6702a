#!/usr/bin/env bash
# A review opened from the prompt area's Insert mode, in a real,
# interactive Neovim in tmux, as a new user meets it: app.py opened with
# :edit once gemini-ls runs (the plugin set up in init.lua, filetype
# detection on after it), a prompt typed in the prompt area and sent with <C-s>
# while still in Insert mode. The review opens in Normal mode
# (nvim-review-from-insert.txt), the tab it came from named by its file
# (app.py), not by the prompt area it was sent from, and gr, which its tab line names, rejects
# it: nothing typed lands in the proposal. A second review: Insert mode's
# keys cannot change the proposal (E21), gi makes it editable on purpose,
# which the tab line says (nvim-review-editing.txt), and ga keeps the
# proposal with the user's line. Throughout, no completion is asked in
# the buffer under review, and app.py was opened with its language,
# python. Appends "pass review ..." lines, or one "fail review: why" line,
# to the results file.
# Usage: review.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bin=$(cd "$1" && pwd)
results=$2
shots="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
mkdir -p "$shots"
work=$(mktemp -d)
ws="$work/project"
mkdir -p "$ws" "$work/home/.gemini"
printf 'def add(a, b):\n    return a + b\n' >"$ws/app.py"
printf 'a TODO here\n' >"$ws/notes.txt"
printf '{"%s": "DO_NOT_TRUST"}' "$ws" >"$work/home/.gemini/trustedFolders.json"
sent="$work/sent.txt"
: >"$sent"
sock="gemini-nvim-review-$$" session=review
name=review
# shellcheck source=tmux.sh
. "$here/tmux.sh"
# What fail tells beside the last screen.
fail_details() {
  echo "  the client sent (last 10):"; tail -n 10 "$sent" | cut -c1-300 | sed 's/^/    /'
}
# no_completion_asked: the client asked no completion or next edit, and
# the model was asked none.
no_completion_asked() {
  grep -E '^(textDocument/inlineCompletion|gemini/nextEdit|textDocument/copilotInlineEdit) ' "$sent" &&
    fail "the client asked for a completion or a next edit $1"
  grep -qF '<|cursor|>' "$work/requests.jsonl" && fail "the model was asked for a completion $1"
  return 0
}
# app_py: what the app.py buffer holds, as :echo shows it.
app_py() {
  command "echo join(getbufline('app.py', 1, '\$'), ' | ')"
}

start_fake --script "$here/scripts/review_insert.json" --record "$work/requests.jsonl"
cmd=$(printf 'cd %q && env HOME=%q GOOGLE_GEMINI_BASE_URL=%q GEMINI_API_KEY=test GEMINI_MODEL=gemini-2.5-pro GEMINI_LS=%q GEMINI_WORKSPACE=%q GEMINI_SENT=%q nvim -u %q -i NONE notes.txt' \
  "$ws" "$work/home" "$url" "$bin/gemini-ls" "$ws" "$sent" "$here/review_init.lua")
tm new-session -d -s "$session" -x 140 -y 30 "$cmd" || fail "tmux new-session failed"
# app.py opened once gemini-ls runs (for notes.txt): its didOpen goes at
# once, with the language the buffer has then.
wait_for "notes.txt with gemini-ls ready" '^a TODO here' 'gemini-ls ready'
command 'edit app.py'
wait_for "app.py" '^    return a \+ b'
for _ in $(seq 50); do grep -q '^textDocument/didOpen .*app\.py' "$sent" && break; sleep 0.1; done
grep -q '^textDocument/didOpen .*"languageId": "python"' "$sent" ||
  fail "app.py was not opened as python: $(grep '^textDocument/didOpen' "$sent" | cut -c1-200)"
pass "a file opened after start-up is opened with its language (didOpen's languageId python)"

# The prompt area, in Insert mode; the prompt sent with <C-s>, Insert
# mode still on.
command Gemini
wait_for "the prompt area in Insert mode" '<C-s> send' '^-- INSERT --'
tm send-keys -t "$session" -l 'make add subtract'
tm send-keys -t "$session" C-s
wait_for "the review" 'Gemini: edit app\.py \(\+1 −1\)' 'ga accept, gr reject' '│ *return a - b'
printf '%s\n' "$screen" >"$(picture review-from-insert)"
grep -q -- '-- INSERT --' <<<"$screen" && fail "the review opened in Insert mode"
# The tab the prompt was sent from is named by its file, not "prompt".
grep -qE '^ app\.py  Gemini: edit app\.py' <<<"$screen" || fail "the tab line does not name app.py's tab by its file: $(head -n 1 <<<"$screen")"
pass "a review sent from the prompt area's Insert mode opens in Normal mode, the tab it came from named app.py"
tm send-keys -t "$session" g r
wait_for "the answer after the reject" 'Left add as it was\.'
app_py
wait_for "app.py's text" '^def add\(a, b\): \|     return a \+ b *$'
[ "$(cat "$ws/app.py")" = "$(printf 'def add(a, b):\n    return a + b')" ] || fail "app.py changed on disk: $(cat "$ws/app.py")"
grep -E '^textDocument/didChange .*(gr|GHOST)' "$sent" && fail "what was typed reached the proposal"
no_completion_asked "in the review"
pass "gr rejects the review, nothing typed lands in the proposal, and no completion is asked there"

# The second review: Insert mode's keys cannot change the proposal.
command Gemini
wait_for "the prompt area in Insert mode again" '<C-s> send' '^-- INSERT --'
tm send-keys -t "$session" -l 'try again'
tm send-keys -t "$session" C-s
wait_for "the second review" 'Gemini: edit app\.py \(\+1 −1\)' 'gi edit' '│ *return a - b'
grep -q -- '-- INSERT --' <<<"$screen" && fail "the second review opened in Insert mode"
tm send-keys -t "$session" -l 'ixyz'
wait_for "Neovim refusing the change" "E21: Cannot make changes, 'modifiable' is off"
tm send-keys -t "$session" Escape
grep -q 'xyz' <<<"$screen" && fail "keys typed into the proposal without gi changed it"
# gi: the proposal editable, said in the tab line, in Insert mode. (A
# pause after Escape, which a key right after it would make Alt-key.)
sleep 0.3
tm send-keys -t "$session" g i
wait_for "the proposal being edited" 'editing the proposal: ga accept, gr reject' '^-- INSERT --'
tm send-keys -t "$session" Escape
sleep 0.3
tm send-keys -t "$session" -l 'O# checked by hand'
tm send-keys -t "$session" Escape
sleep 0.3
wait_for "the line typed into the proposal" '│ *# checked by hand'
printf '%s\n' "$screen" >"$(picture review-editing)"
no_completion_asked "while the proposal was edited on purpose"
tm send-keys -t "$session" g a
wait_for "the answer after accepting" 'add subtracts now, with your note\.'
for _ in $(seq 50); do grep -q 'checked by hand' "$ws/app.py" && break; sleep 0.1; done
[ "$(cat "$ws/app.py")" = "$(printf '# checked by hand\ndef add(a, b):\n    return a - b')" ] || fail "app.py after ga: $(cat "$ws/app.py")"
pass "Insert mode cannot change a proposal; gi edits it on purpose, the tab line says so, and ga keeps it as edited"
