# Sourced by the editors' tmux tests (editors/nvim/tests/tmux.sh,
# editors/emacs/test/tmux.sh): mark_italics reads a screen captured with
# tmux capture-pane -e -p and writes it with what the editor drew in
# italics marked «like this», and a line saying so. The tests draw text
# that is not in the buffer (ghost text, a next edit's new lines) in
# italics, so a text picture tells it from typed text; capture-pane -e
# keeps the attributes as SGR sequences, which this turns into the marks.
mark_italics() {
  awk -v legend="«…»: ghost text (drawn in italics), not in the buffer" '
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
      -e 's/[ \t]*$//' -e 's/\x01/«/g' -e 's/\x02/»/g'
}
