#!/usr/bin/env bash
# Nothing reaches disk before the user's yes, whatever writes buffers
# behind their back: a real, interactive Neovim in tmux with
# 'autowriteall' and an auto-save autocmd that writes every buffer on
# TextChanged, TextChangedI, InsertLeave, FocusLost and BufLeave
# (review_autosave_init.lua). Four reviews, each edited on purpose with
# gi, then the autocmds triggered (the typing itself, Escape, a focus-out
# from the terminal, :wa, leaving the window and the tab and coming
# back): an edit to app.py, open in the first tab, and a new file,
# test_app.py, each unchanged or absent on disk until ga, then as accepted
# with the user's line (nvim-review-autosave.txt, nvim-review-autosave-new.txt);
# then an edit to app.py and a new file test_more.py, each rejected with
# gr: nothing changed, app.py's buffer included. Appends "pass review_autosave ..." lines, or one
# "fail review_autosave: why" line, to the results file.
# Usage: review_autosave.sh BIN_DIR RESULTS_FILE  (BIN_DIR holds gemini-ls and fakegemini)
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
printf '{"%s": "DO_NOT_TRUST"}' "$ws" >"$work/home/.gemini/trustedFolders.json"
sent="$work/sent.txt" saves="$work/autosave.log"
: >"$sent"
: >"$saves"
sock="gemini-nvim-review-autosave-$$" session=review_autosave
name=review_autosave
# shellcheck source=tmux.sh
. "$here/tmux.sh"
fail_details() {
  echo "  the auto-save autocmd ran (last 20):"; tail -n 20 "$saves" | sed 's/^/    /'
  echo "  app.py on disk:"; sed 's/^/    /' "$ws/app.py"
  echo "  the files of the workspace: $(ls "$ws")"
}
# disk_is FILE TEXT WHEN: FILE on disk holds TEXT (printf's format).
# shellcheck disable=SC2059 # TEXT is a format, for its \n
disk_is() {
  [ "$(cat "$ws/$1")" = "$(printf "$2")" ] || fail "$1 on disk $3: $(cat "$ws/$1")"
}
# absent FILE WHEN: FILE is not on disk.
absent() {
  [ ! -e "$ws/$1" ] || fail "$1 is on disk $2: $(cat "$ws/$1")"
}
# prompt TEXT: sends TEXT from the prompt area.
prompt() {
  command Gemini
  wait_for "the prompt area" '<C-s> send' '^-- INSERT --'
  tm send-keys -t "$session" -l "$1"
  tm send-keys -t "$session" C-s
}
# edit_and_tempt LINE: edits the proposal on purpose (gi, then LINE
# opened above the first line, in Insert mode and in Normal mode), then does all that makes the auto-save
# autocmd or 'autowriteall' write: Escape (InsertLeave), a focus-out from
# the terminal (FocusLost), :wa, the window and the tab left and come
# back to (BufLeave).
edit_and_tempt() {
  : >"$saves"
  tm send-keys -t "$session" g i
  wait_for "the proposal being edited" 'editing the proposal: ga accept' '^-- INSERT --'
  tm send-keys -t "$session" Escape
  sleep 0.3
  tm send-keys -t "$session" g g
  # The line typed with a typo, taken out in Normal mode (TextChanged).
  tm send-keys -t "$session" -l "O$1X"
  tm send-keys -t "$session" Escape
  sleep 0.3
  tm send-keys -t "$session" x
  wait_for "the line typed into the proposal" "│ *$1"
  sleep 0.3
  # What a terminal sends when it loses the focus (xterm's focus events,
  # which Neovim asks for).
  tm send-keys -t "$session" -l $'\e[O'
  sleep 0.3
  command wa
  sleep 0.3
  tm send-keys -t "$session" C-w h
  sleep 0.3
  tm send-keys -t "$session" C-w l
  sleep 0.3
  tm send-keys -t "$session" g t
  wait_for "the first tab" '^def add\(a, b\):'
  tm send-keys -t "$session" g t
  wait_for "the review's tab again" "│ *$1"
}
# ran_in_proposal FILE: the auto-save autocmd ran in the proposal,
# gemini://proposed/FILE, on each of its events.
ran_in_proposal() {
  local event
  for event in TextChangedI TextChanged InsertLeave FocusLost BufLeave; do
    grep -qE "^$event gemini://proposed/$1\$" "$saves" || fail "the auto-save autocmd did not run on $event in the proposal"
  done
}

# proposal_is_scratch FILE: the window on the right holds a scratch
# buffer, gemini://proposed/FILE, highlighted as python, unlisted.
proposal_is_scratch() {
  command "echo 'proposal: ' . bufname() . ', ' . &buftype . ', ' . &filetype . ', listed ' . &buflisted"
  wait_for "the proposal's buffer" "^proposal: gemini://proposed/$1, nofile, python, listed 0 *\$"
}

start_fake --script "$here/scripts/review_autosave.json" --record "$work/requests.jsonl"
cmd=$(printf 'cd %q && env HOME=%q GOOGLE_GEMINI_BASE_URL=%q GEMINI_API_KEY=test GEMINI_MODEL=gemini-2.5-pro GEMINI_LS=%q GEMINI_WORKSPACE=%q GEMINI_SENT=%q GEMINI_AUTOSAVE_LOG=%q nvim -u %q -i NONE app.py' \
  "$ws" "$work/home" "$url" "$bin/gemini-ls" "$ws" "$sent" "$saves" "$here/review_autosave_init.lua")
tm new-session -d -s "$session" -x 140 -y 30 "$cmd" || fail "tmux new-session failed"
wait_for "app.py with gemini-ls ready" '^    return a \+ b' 'gemini-ls ready'

# An edit to app.py, open in the first tab: not on disk until ga.
prompt 'make add subtract'
wait_for "the review of app.py" 'Gemini: edit app\.py \(\+1 −1\)' 'gi edit' '│ *return a - b'
proposal_is_scratch app.py
edit_and_tempt '# checked by hand'
printf '%s\n' "$screen" >"$(picture review-autosave)"
disk_is app.py 'def add(a, b):\n    return a + b' "before ga"
ran_in_proposal app.py
pass "an edit to an open file, edited with gi, stays off the disk before ga though 'autowriteall', the auto-save autocmd and :wa ran in it"
tm send-keys -t "$session" g a
wait_for "the answer after accepting" 'add subtracts now, with your note\.'
disk_is app.py '# checked by hand\ndef add(a, b):\n    return a - b' "after ga"
pass "ga writes the edit as accepted, with the user's line"

# A new file: absent until ga.
prompt 'add a test'
wait_for "the review of test_app.py" 'Gemini: .*test_app\.py' 'gi edit' '│ *assert add\(3, 1\) == 2'
proposal_is_scratch test_app.py
edit_and_tempt '# written by hand'
printf '%s\n' "$screen" >"$(picture review-autosave-new)"
absent test_app.py "before ga"
ran_in_proposal test_app.py
pass "a new file, edited with gi, is not created before ga though 'autowriteall', the auto-save autocmd and :wa ran in it"
tm send-keys -t "$session" g a
wait_for "the answer after accepting the new file" 'test_app\.py written, with your line\.'
disk_is test_app.py '# written by hand\nfrom app import add\n\nassert add(3, 1) == 2' "after ga"
pass "ga creates the new file as accepted, with the user's line"

# An edit and a new file, each rejected: nothing changes.
prompt 'swap the operands'
wait_for "the second review of app.py" 'Gemini: edit app\.py \(\+1 −1\)' 'gi edit' '│ *return b - a'
edit_and_tempt '# not wanted'
disk_is app.py '# checked by hand\ndef add(a, b):\n    return a - b' "before gr"
ran_in_proposal app.py
tm send-keys -t "$session" g r
wait_for "the answer after rejecting the edit" 'Left app\.py as it was\.'
disk_is app.py '# checked by hand\ndef add(a, b):\n    return a - b' "after gr"
command "echo 'app.py: ' . join(getbufline(bufnr('app.py'), 1, '\$'), ' | ') . (getbufvar(bufnr('app.py'), '&modified') ? ' (modified)' : '')"
wait_for "app.py's buffer" '^app\.py: # checked by hand \| def add\(a, b\): \|     return a - b *$'
prompt 'add another test'
wait_for "the review of test_more.py" 'Gemini: .*test_more\.py' 'gi edit' '│ *assert add\(1, 3\) == 2'
edit_and_tempt '# not wanted either'
absent test_more.py "before gr"
ran_in_proposal test_more.py
tm send-keys -t "$session" g r
wait_for "the answer after rejecting the new file" 'No second test, then\.'
absent test_more.py "after gr"
disk_is app.py '# checked by hand\ndef add(a, b):\n    return a - b' "at the end"
disk_is test_app.py '# written by hand\nfrom app import add\n\nassert add(3, 1) == 2' "at the end"
pass "gr leaves an edit and a new file off the disk, and the file's buffer as it was"
