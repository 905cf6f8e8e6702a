# Sourced by tmux-screens.sh, tmux-completion.sh, tmux-install.sh and
# stock-eglot.sh, after they set sock (the name of a private tmux server)
# and define fail (reports, exits; fail_showing does it for most): a work
# directory removed at exit with the server and fakegemini, where the
# screens go and what each is called, keys typed, and waits for what the
# screen shows.
here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
shots="${GEMINI_SCREENSHOTS_DIR:-$root/build/screenshots}"
mkdir -p "$shots"
# picture NAME: the file of the screen NAME. The oldest Emacs the package
# supports (Debian bookworm's 28) takes NAME.txt; a newer one, as
# newer-editors.sh runs in a chroot, NAME-MAJOR.txt (emacs-chat-30.txt).
emacs_major="$(emacs --batch -Q --eval '(princ emacs-major-version)' 2>/dev/null)"
picture() {
  if [[ $emacs_major == 28 ]]; then
    echo "$shots/$1.txt"
  else
    echo "$shots/$1-$emacs_major.txt"
  fi
}
# The fake model's rule for the routing classifier: the default model,
# auto, asks it which model a prompt goes to, as a user's Gemini CLI does;
# it answers a simple task's score, taking no scripted turn.
classifier_rule='{"contains": "complexity_score", "turn": {"text": "{\"complexity_reasoning\": \"A simple task.\", \"complexity_score\": 10}"}}'
# trust DIR: the user answered the folder trust question for DIR, in the
# test's HOME ($work/home), with "Trust folder".
trust() {
  mkdir -p "$work/home/.gemini"
  printf '{"%s": "TRUST_FOLDER"}\n' "$1" >"$work/home/.gemini/trustedFolders.json"
}
# init_el: writes $work/init.el's start: Debian's ELPA packages (eglot
# among them) and this package loaded; the caller appends its settings.
init_el() {
  cat >"$work/init.el" <<EOF
(setq package-directory-list
      (cons "/usr/share/emacs/site-lisp/elpa" package-directory-list))
(package-initialize)
(add-to-list 'load-path "$here/..")
(require 'gemini-ls)
EOF
}
# chat_init_el: init_el, then a chat's plain set-up: gemini-ls from
# $GEMINI_LS_BIN, no start-up screen, backups or key hints, and $proj as
# the project.
chat_init_el() {
  init_el
  cat >>"$work/init.el" <<EOF
(setq gemini-ls-server-command "$GEMINI_LS_BIN"
      inhibit-startup-screen t
      make-backup-files nil
      suggest-key-bindings nil
      project-find-functions (list (lambda (_) (cons 'transient "$proj/"))))
EOF
}
work="$(mktemp -d)"
fake_pid=""
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  [[ -n "$fake_pid" ]] && kill "$fake_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

screen() { tmux -L "$sock" capture-pane -p; }
# shellcheck source=../../italic-marks.sh
. "$here/../../italic-marks.sh"
# save_marked FILE: writes the screen to FILE with what Emacs draws in
# italics marked «like this», and a line saying so (italic-marks.sh): the
# tests that show ghost text draw it in italics.
save_marked() { tmux -L "$sock" capture-pane -e -p | mark_italics >"$1"; }
keys() { tmux -L "$sock" send-keys "$@"; }
type_text() { tmux -L "$sock" send-keys -l "$1"; }

# fail_showing TEST WHY...: reports TEST failed, with the screen and
# fakegemini's log, and exits.
fail_showing() {
  local test="$1"
  shift
  echo "FAIL $test: $*"
  if tmux -L "$sock" has-session 2>/dev/null; then
    echo "--- screen ---"; screen; echo "---"
  fi
  [[ -f "$work/fake.log" ]] && { echo "--- fakegemini ---"; cat "$work/fake.log"; }
  exit 1
}

# wait_for REGEX WHAT [SECONDS]: polls the screen until REGEX appears.
wait_for() {
  local deadline=$((SECONDS + ${3:-20}))
  until screen | grep -Eq -- "$1"; do
    ((SECONDS < deadline)) || fail "timed out waiting for $2"
    sleep 0.2
  done
}

# wait_gone REGEX WHAT [SECONDS]: polls the screen until REGEX is gone.
wait_gone() {
  local deadline=$((SECONDS + ${3:-20}))
  while screen | grep -Eq -- "$1"; do
    ((SECONDS < deadline)) || fail "timed out waiting for $2"
    sleep 0.2
  done
}

# start_fake ARGS...: starts $FAKEGEMINI_BIN with ARGS (its log in
# $work/fake.log) and sets url to its address; up to 30 s, as a loaded
# machine can be slow to start it.
start_fake() {
  "$FAKEGEMINI_BIN" "$@" >"$work/fake.out" 2>"$work/fake.log" &
  fake_pid=$!
  url=""
  for _ in $(seq 300); do
    url="$(sed -n 's/^GOOGLE_GEMINI_BASE_URL=//p' "$work/fake.out")"
    [[ -n "$url" ]] && break
    sleep 0.1
  done
  [[ -n "$url" ]] || fail "fakegemini printed no URL"
}
