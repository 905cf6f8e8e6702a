# Sourced by the tests that drive a real Neovim in tmux (screenshots.sh,
# stock.sh, review.sh and the others): a private tmux server for one
# interactive Neovim, so nothing collides with the user's or another run's,
# a wait for what its screen shows, and how a test reports. The sourcing
# script sets name (its word in the results file), results, sock (the
# server's name), session and work (removed at exit), and may define
# fail_details (what a failure tells beside the last screen); fakegemini is
# started by start_fake, from $bin.
export TERM=xterm-256color
# The pictures of Neovim 0.7, the oldest supported, are named as they
# always were (nvim-chat.txt); a newer Neovim's carry its version
# (nvim-chat-0.12.txt), so one run's do not overwrite the other's.
nvim_version=$(nvim --version | sed -n '1s/^NVIM v\([0-9]*\.[0-9]*\).*/\1/p')
# picture NAME: the file the picture NAME goes to, in $shots.
picture() {
  if [ "$nvim_version" = 0.7 ]; then echo "$shots/nvim-$1.txt"; else echo "$shots/nvim-$1-$nvim_version.txt"; fi
}
tm() { tmux -L "$sock" -f /dev/null "$@"; }

# fail WHY: a "fail NAME: WHY" line in the results, the last screen and
# fail_details' account after it; the test ends.
fail() {
  echo "fail $name: $*" | tee -a "$results"
  if [ -n "${screen:-}" ]; then echo "  last screen:"; sed 's/^/    /' <<<"$screen"; fi
  if declare -F fail_details >/dev/null; then fail_details; fi
  exit 1
}
# pass WHAT: a "pass NAME WHAT" line in the results.
pass() { echo "pass $name $*" | tee -a "$results"; }
# command CMD: runs the Ex command CMD, from Normal mode.
command() { tm send-keys -t "$session" Escape; tm send-keys -t "$session" -l ":$1"; tm send-keys -t "$session" Enter; }
# shellcheck source=../../italic-marks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../italic-marks.sh"
fake=
cleanup() {
  tm kill-server 2>/dev/null
  # kill-server leaves the socket file behind.
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"
  [ -n "$fake" ] && kill "$fake" 2>/dev/null && wait "$fake" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# wait_for WHAT PATTERN...: polls the screen (for $patience tenths of a
# second, 150 unless set) until grep -E finds every PATTERN in one capture.
# One pattern is not enough: Neovim redraws in pieces, so a capture can hold
# the new message over the old windows; and the screen must have settled
# (unchanged for 0.1 s), so a saved capture is a whole frame. The last
# capture is left in $screen.
wait_for() {
  local what=$1; shift
  for _ in $(seq "${patience:-150}"); do
    screen=$(tm capture-pane -p -t "$session" 2>/dev/null)
    local p all=1
    for p in "$@"; do grep -qE -- "$p" <<<"$screen" || { all=0; break; }; done
    sleep 0.1
    [ "$all" = 1 ] && [ "$screen" = "$(tm capture-pane -p -t "$session" 2>/dev/null)" ] && return 0
  done
  fail "timed out waiting for $what (want all of: $*)"
}

# start_fake ARGS...: starts $bin/fakegemini with ARGS and sets url to its
# address; up to 30 s, as a loaded machine can be slow to start it.
start_fake() {
  "$bin/fakegemini" "$@" >"$work/fake.out" 2>"$work/fake.err" &
  fake=$!
  for _ in $(seq 600); do
    grep -qs GOOGLE_GEMINI_BASE_URL "$work/fake.out" && break
    kill -0 "$fake" 2>/dev/null || break # it died: fake.err says why
    sleep 0.05
  done
  url=$(sed -n 's/^GOOGLE_GEMINI_BASE_URL=//p' "$work/fake.out" | head -1)
  [ -n "$url" ] || fail "fakegemini did not start: $(cat "$work/fake.err")"
}

# save_marked FILE: writes the screen to FILE with what Neovim draws in
# italics marked «like this», and a line saying so (italic-marks.sh).
save_marked() {
  tm capture-pane -e -p -t "$session" | mark_italics >"$1"
}
