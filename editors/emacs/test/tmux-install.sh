#!/usr/bin/env bash
# The package installed as its users install it, in a real interactive
# Emacs (emacs -nw inside a detached tmux), with nothing on PATH that is
# gemini-ls:
#   - M-x package-install-file on gemini-ls-VERSION.tar (the package make
#     dist ships, made by editors/emacs/make-package.sh);
#   - M-x gemini-ls-install-server from a release directory (a file: URL
#     holding gemini-ls-OS-ARCH.tar.gz and SHA256SUMS, as make dist writes
#     them), checked and unpacked into ~/.emacs.d/gemini-ls;
#   - a Python file opens with eglot's own server for Python (a stand-in
#     pyright-langserver on PATH), and the chat (M-x gemini-ls-chat, a
#     prompt, C-c C-c) gets the model's answer from the installed
#     gemini-ls while the Python buffer keeps its server
#     (emacs-install-chat.txt).
# Called by run.sh with GEMINI_LS_BIN and FAKEGEMINI_BIN set; prints
# "PASS tmux-install" or "FAIL tmux-install: why".
set -uo pipefail
sock="gemini-install-$$"
# shellcheck source=tmux.sh
. "$(dirname "$0")/tmux.sh"

fail() { fail_showing tmux-install "$@"; }

proj="$work/proj"
mkdir -p "$proj" "$work/home" "$work/bin" "$work/release"
printf 'def greet(name):\n    return "Hello, " + name\n' >"$proj/main.py"

# The release for this machine, as make dist makes it.
case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64) arch=arm64 ;;
  *) fail "no release for $(uname -m)" ;;
esac
archive="gemini-ls-linux-$arch.tar.gz"
cp "$GEMINI_LS_BIN" "$work/gemini-ls"
tar -C "$work" -czf "$work/release/$archive" gemini-ls
rm "$work/gemini-ls"
(cd "$work/release" && sha256sum "$archive" >SHA256SUMS)

# eglot's own entry for Python runs pyright-langserver --stdio: a language
# server of another name stands in for it.
ln -s "$GEMINI_LS_BIN" "$work/bin/pyright-langserver"

cat >"$work/script.json" <<JSON
{"rules": [$classifier_rule],
 "turns": [{"chunks": [{"text": "greet returns Hello and the name."}]}]}
JSON
trust "$proj"
start_fake --script "$work/script.json"

cat >"$work/init.el" <<EOF2
(setq package-directory-list
      (cons "/usr/share/emacs/site-lisp/elpa" package-directory-list)
      package-archives nil)
(package-initialize)
(setq inhibit-startup-screen t
      make-backup-files nil
      suggest-key-bindings nil
      gemini-ls-release-url "file://$work/release/"
      project-find-functions (list (lambda (_) (cons 'transient "$proj/"))))
(add-hook 'python-mode-hook #'eglot-ensure)
EOF2

export TERM=xterm-256color
tmux -L "$sock" -f /dev/null new-session -d -x 140 -y 40 \
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL TERM=xterm-256color HOME='$work/home' \
   PATH='$work/bin:/usr/local/bin:/usr/bin:/bin' GEMINI_API_KEY=test \
   GOOGLE_GEMINI_BASE_URL='$url' \
   emacs -nw -Q -l '$work/init.el'" || fail "tmux did not start"
wait_for 'scratch' "Emacs to start"

# mx COMMAND: M-x COMMAND RET, as typed.
mx() {
  keys M-x
  wait_for '^M-x' "the M-x prompt" 30
  type_text "$1"
  keys Enter
}

package=$(bash "$here/../make-package.sh" "$work/dist") || fail "make-package.sh made no package"
version=$(basename "$package" .tar); version=${version#gemini-ls-}
elpa="$work/home/.emacs.d/elpa/gemini-ls-$version"
mx package-install-file
wait_for 'Package file name' "package-install-file's question" 5
keys C-a C-k
type_text "$package"
keys Enter
until [[ -f "$elpa/gemini-ls.el" ]]; do
  ((SECONDS < 60)) || fail "package-install-file installed nothing in ~/.emacs.d/elpa"
  sleep 0.2
done
# package-install-file byte-compiles it next, Emacs busy meanwhile: slow
# on a loaded machine.
# all_compiled: every file of the package has its .elc.
all_compiled() {
  local el
  for el in "$elpa"/gemini-ls*.el; do
    case $el in *-pkg.el | *-autoloads.el) continue ;; esac
    [[ -f ${el}c ]] || return 1
  done
}
until all_compiled; do
  ((SECONDS < 180)) || fail "package-install-file did not byte-compile every file of the package"
  sleep 0.2
done

mx gemini-ls-install-server
# --version's words after the version: the commit, or why none is known
# (a build without version control information, as CI's -buildvcs=false).
wait_for 'installed gemini-ls [^ ]+( \(commit ([0-9a-f]+(-dirty)?|unknown: built without version control information)\))? in ~/\.emacs\.d/gemini-ls' "the server to be installed" 30
[[ -x "$work/home/.emacs.d/gemini-ls/gemini-ls" ]] || fail "no executable ~/.emacs.d/gemini-ls/gemini-ls"

keys C-x C-f
wait_for 'Find file' "find-file's question" 5
keys C-a C-k
type_text "$proj/main.py"
keys Enter
wait_for '\[eglot:' "eglot to connect the Python buffer's own server" 30

mx gemini-ls-chat
wait_for 'Prompt \(C-c C-c sends\)' "the chat's prompt area" 10
type_text 'What does greet do?'
keys C-c C-c
wait_for 'greet returns Hello and the name\.' "the model's answer in the chat" 30
screen >"$(picture emacs-install-chat)"

# The Python buffer still talks to its own server.
keys C-x o
wait_for '\[eglot:' "the Python buffer" 5
keys M-:
wait_for '^Eval:' "the M-: prompt" 5
type_text '(message "PYSERVER %s" (car (last (split-string (car (process-command (jsonrpc--process (eglot-current-server)))) "/"))))'
keys Enter
wait_for 'PYSERVER pyright-langserver' "the Python buffer's server to be pyright-langserver" 5
echo "PASS tmux-install"
