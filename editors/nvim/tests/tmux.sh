# Sourced by screenshots.sh and stock.sh: a private tmux server for one
# interactive Neovim, so nothing collides with the user's or another run's,
# and a wait for what its screen shows. The sourcing script sets sock (the
# server's name), session, work (removed at exit) and fail (reports, exits);
# fakegemini is started by start_fake, from $bin.
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
# italics marked «like this», and a line saying so: the tests draw text
# that is not in the buffer (ghost text, a next edit's new lines) in
# italics, so a text picture tells it from typed text. capture-pane -e
# keeps the attributes as SGR sequences, which this turns into the marks.
save_marked() {
  tm capture-pane -e -p -t "$session" | awk -v legend="«…»: ghost text (drawn in italics), not in the buffer" '
    # sgr PARAMS: whether italics are on after an SGR sequence with PARAMS
    # (3 sets them, 23 and 0 reset them; 38 and 48 take colour arguments).
    function sgr(params, on,    n, p, i) {
      if (params == "") return 0
      n = split(params, p, /[;:]/)
      for (i = 1; i <= n; i++) {
        if (p[i] == 38 || p[i] == 48 || p[i] == 58) { i += (p[i + 1] == 5) ? 2 : 4; continue }
        if (p[i] == 0 || p[i] == "") on = 0
        else if (p[i] == 3) on = 1
        else if (p[i] == 23) on = 0
      }
      return on
    }
    {
      line = $0; out = italic ? "\001" : ""
      while ((i = index(line, "\033[")) > 0) {
        out = out substr(line, 1, i - 1)
        rest = substr(line, i + 2)
        if (match(rest, /^[0-9;:]*[A-Za-z]/)) {
          final = substr(rest, RLENGTH, 1)
          params = substr(rest, 1, RLENGTH - 1)
          line = substr(rest, RLENGTH + 1)
          if (final == "m") {
            was = italic; italic = sgr(params, italic)
            if (!was && italic) out = out "\001"
            if (was && !italic) out = out "\002"
          }
        } else {
          line = rest
        }
      }
      out = out line
      if (italic) out = out "\002"
      print out
    }
    END { print legend }' |
    # The marks go in as bytes of their own, then become « and »: around
    # the words (spaces at a mark's ends left outside it), a pair around
    # nothing but spaces dropped, trailing spaces gone as in a capture
    # without -e.
    sed -e 's/\x01\( *\)\x02/\1/g' -e 's/\x01\( \+\)/\1\x01/g' -e 's/\( \+\)\x02/\x02\1/g' \
      -e 's/[ \t]*$//' -e 's/\x01/«/g' -e 's/\x02/»/g' >"$1"
}
