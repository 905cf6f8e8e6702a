#!/usr/bin/env bash
# Completion as you type in a real interactive Emacs (emacs -nw inside a
# detached tmux) with the gemini-ls package, against the real gemini-ls and
# fakegemini, whose rules answer the completion prompts:
#   - typing " = s" after "subtotal" shows the model's two lines as ghost
#     text at point, in the shadow face (checked in the screen's colours),
#     with nothing inserted: emacs-completion.txt, where the ghost text,
#     drawn here in italics too, is marked «…» (tmux.sh's save_marked);
#   - C-g takes it away (emacs-completion-dismissed.txt, nothing marked);
#     typing again brings it back;
#   - M-f takes its first word, TAB the rest: the buffer, saved, holds it
#     (emacs-completion-accepted.txt, nothing marked);
#   - TAB with no suggestion indents, as python-mode's TAB does.
# Called by run.sh with GEMINI_LS_BIN and FAKEGEMINI_BIN set; prints
# "PASS tmux-completion" or "FAIL tmux-completion: why". Screens go to
# build/screenshots (or $GEMINI_SCREENSHOTS_DIR), named by picture (tmux.sh).
set -uo pipefail
sock="gemini-completion-$$"
# shellcheck source=tmux.sh
. "$(dirname "$0")/tmux.sh"

fail() { fail_showing tmux-completion "$@"; }


proj="$work/proj"
mkdir -p "$proj"
cat >"$proj/prices.py" <<'PY'
TAX = 0.2


def total(prices):
    """The sum of the prices, tax included."""
    subtotal
PY

# A completion prompt holds the file with <|cursor|> at point: the one
# after "subtotal = s" is answered with the rest of the function, any
# other with nothing.
cat >"$work/script.json" <<'JSON'
{"turns": [],
 "rules": [
   {"contains": "    subtotal = s<|cursor|>",
    "turn": {"text": "um(prices)\n    return subtotal * (1 + TAX)"}},
   {"contains": "<|cursor|>", "turn": {"text": ""}}
 ]}
JSON

trust "$proj"
start_fake --script "$work/script.json" --record "$work/requests.jsonl"

init_el
cat >>"$work/init.el" <<EOF2
(setq gemini-ls-server-command "$GEMINI_LS_BIN"
      inhibit-startup-screen t
      make-backup-files nil
      save-silently t
      project-find-functions (list (lambda (_) (cons 'transient "$proj/"))))
;; Italics, which a capture-pane -e shows, so the picture can mark the
;; ghost text (save_marked in tmux.sh).
(set-face-attribute 'gemini-ls-completion-ghost nil :slant 'italic)
;; No Python language server here: eglot runs gemini-ls for Python.
(gemini-ls-register 'python-mode)
(add-hook 'python-mode-hook #'eglot-ensure)
EOF2

export TERM=xterm-256color
tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 16 \
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL TERM=xterm-256color HOME='$work/home' GEMINI_API_KEY=test \
   GOOGLE_GEMINI_BASE_URL='$url' \
   emacs -nw -Q -l '$work/init.el' prices.py" || fail "tmux did not start"

# Emacs 30's Flymake draws its indicators in a 2-column left margin.
m='^(  )?'

wait_for '\[eglot:' "eglot to connect"
wait_for '\) Gemini \(Auto\)' "the idle status and the default model in the mode line" 10

# After "subtotal"; typing " = s" shows the ghost text.
keys 'M->' C-b
type_text ' = s'
wait_for "$m"'    subtotal = sum\(prices\)$' "the ghost text's first line, at point"
wait_for "$m"'    return subtotal \* \(1 \+ TAX\)$' "the ghost text's second line" 5
shot="$(picture emacs-completion)"
save_marked "$shot"
# The picture marks the ghost text, and only it.
grep -Eqx "$m"'    subtotal = s«um\(prices\)»' "$shot" \
  || fail "the picture does not mark the ghost text's first line: $(grep -F 'subtotal =' "$shot")"
grep -Eqx "$m"'    «return subtotal \* \(1 \+ TAX\)»' "$shot" \
  || fail "the picture does not mark the ghost text's second line: $(grep -F 'return' "$shot")"
# (Its last line, the legend, names the marks.)
[[ "$(sed '$d' "$shot" | grep -o '«' | wc -l)" == 2 ]] || fail "the picture marks more than the ghost text: $(sed '$d' "$shot" | grep -F '«')"
# The ghost text is drawn in the shadow face (grey), the typed text not.
colours="$(tmux -L "$sock" capture-pane -p -e)"
grep -q $'\e\\[[0-9;]*m *um(prices)' <<<"$colours" \
  || fail "the ghost text is not drawn in a face of its own: $(grep -F 'subtotal' <<<"$colours" | cat -v)"
ghost_sgr="$(grep -o $'\e\\[[0-9;]*m *um(prices)' <<<"$colours" | head -1 | cat -v)"
[[ "$ghost_sgr" == *'38;5;'* || "$ghost_sgr" == *'90m'* || "$ghost_sgr" == *'2m'* ]] \
  || fail "the ghost text is not grey: $ghost_sgr"
echo "tmux-completion: the ghost text is drawn with $ghost_sgr"
# The cursor stays after what was typed, on the ghost text's first
# character.
read -r cx cy <<<"$(tmux -L "$sock" display-message -p '#{cursor_x} #{cursor_y}')"
line="$(screen | sed -n "$((cy + 1))p")"
before="${line%%um(prices)*}"
[[ "$line" == *'subtotal = sum(prices)' && "$cx" == "${#before}" ]] \
  || fail "the cursor is at column $cx of \"$line\", not on the ghost text's start (${#before})"
# Nothing was inserted: the buffer holds only what was typed.
[[ "$(tail -n 1 "$proj/prices.py")" == "    subtotal" ]] || fail "prices.py changed on disk"

# C-g takes it away.
keys C-g
wait_for "$m"'    subtotal = s$' "C-g to take the ghost text away" 5
screen | grep -q 'um(prices)' && fail "the ghost text stayed after C-g"
screen | grep -q 'return subtotal' && fail "the ghost text's second line stayed after C-g"
shot="$(picture emacs-completion-dismissed)"
save_marked "$shot"
sed '$d' "$shot" | grep -qF '«' && fail "the picture marks ghost text after C-g: $(grep -F '«' "$shot")"

# Typing again (DEL, s) brings it back; M-f takes "um", TAB the rest.
keys BSpace
type_text 's'
wait_for "$m"'    subtotal = sum\(prices\)$' "the ghost text again"
keys M-f
wait_for "$m"'    subtotal = sum\(prices\)$' "the rest after M-f" 5
keys Tab
wait_for "$m"'    return subtotal \* \(1 \+ TAX\)$' "the accepted text" 5
keys C-x C-s
deadline=$((SECONDS + 10))
until grep -q 'return subtotal \* (1 + TAX)' "$proj/prices.py"; do
  ((SECONDS < deadline)) || fail "prices.py on disk lacks the accepted text: $(cat "$proj/prices.py")"
  sleep 0.2
done
[[ "$(tail -n 2 "$proj/prices.py")" == "$(printf '    subtotal = sum(prices)\n    return subtotal * (1 + TAX)')" ]] \
  || fail "prices.py ends with $(tail -n 2 "$proj/prices.py")"
# The file is on disk before the mode line says so: the picture waits for
# it saved (no **) and no request pending (not [eglot:proj/1]).
wait_for '^-UU-:---.*\[eglot:proj\] ' "the mode line to show the file saved and nothing pending" 10
shot="$(picture emacs-completion-accepted)"
save_marked "$shot"
sed '$d' "$shot" | grep -qF '«' && fail "the picture marks accepted text as ghost text: $(grep -F '«' "$shot")"

# No suggestion: TAB is python-mode's again, which indents a line of
# the function's body.
keys 'M-<' C-n C-n C-n C-e Enter
type_text 'x'
keys C-a 'M-\'
wait_for "$m"'x$' "the new line unindented" 5
keys Tab
wait_for "$m"'    x$' "TAB to indent the line" 5

echo "PASS tmux-completion"
