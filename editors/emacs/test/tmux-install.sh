#!/usr/bin/env bash
# The package installed as its users install it, in a real interactive
# Emacs (emacs -nw inside a detached tmux), with nothing on PATH that is
# gemini-ls:
#   - M-x package-install-file on gemini-ls-VERSION.tar as `make
#     emacs-package' makes it in a clone (editors/emacs/make-package.sh,
#     the package make dist ships);
#   - M-x gemini-ls-chat with no server yet: the chat and its header say
#     so and how to install one (emacs-install-noserver.txt);
#   - offline, in an 80-column Emacs: M-x gemini-ls-install-server from a
#     release host that takes the connection and never answers; the
#     progress is one line the echo area holds (emacs-install-offline.txt),
#     and within its time-out (5 s here) the install gives up and offers a
#     build with Go (emacs-install-fallback.txt); y builds it with a
#     stand-in go on PATH and installs
#     it, with go build in the clone the package names (make emacs-package
#     built it there); a release host whose name does not resolve is
#     offline at once, the clone's build offered (emacs-install-unresolved.txt);
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

# A stand-in for Go: it notes how it ran, then "builds" gemini-ls where
# go build -o puts it.
cat >"$work/bin/go" <<'GO'
#!/bin/sh
printf '%s\n' "$PWD" "CGO_ENABLED=$CGO_ENABLED" "GOBIN=$GOBIN" "$*" >"$(dirname "$0")/go.args"
[ "$1" = build ] || { echo "fake go: want build, got $*" >&2; exit 2; }
cp "$GEMINI_LS_BIN" "$3"
GO
chmod +x "$work/bin/go"

# Offline: a release host that takes the connection and never answers
# (a batch Emacs, which every machine running this test has; its port on
# stderr, which batch Emacs does not buffer).
emacs --batch -Q --eval '(let ((s (make-network-process :name "silent" :server t :host "127.0.0.1"
                                                       :service t :filter (quote ignore))))
  (message "%d" (process-contact s :service))
  (while t (accept-process-output nil 60)))' 2>"$work/silent.port" &
silent_pid=$!
trap 'kill "$silent_pid" 2>/dev/null; cleanup' EXIT
for _ in $(seq 50); do [[ -s "$work/silent.port" ]] && break; sleep 0.1; done
silent_port=$(cat "$work/silent.port")
[[ -n "$silent_port" ]] || fail "the silent release host did not start"

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
      gemini-ls-release-url "http://127.0.0.1:$silent_port/"
      gemini-ls-install-connect-timeout 5
      project-find-functions (list (lambda (_) (cons 'transient "$proj/"))))
(add-hook 'python-mode-hook #'eglot-ensure)
EOF2

export TERM=xterm-256color
tmux -L "$sock" -f /dev/null new-session -d -x 140 -y 40 \
  "cd '$proj' && env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GEMINI_MODEL TERM=xterm-256color HOME='$work/home' \
   PATH='$work/bin:/usr/local/bin:/usr/bin:/bin' GEMINI_API_KEY=test \
   GOOGLE_GEMINI_BASE_URL='$url' GEMINI_LS_BIN='$GEMINI_LS_BIN' \
   emacs -nw -Q -l '$work/init.el'" || fail "tmux did not start"
wait_for 'scratch' "Emacs to start"

# mx COMMAND: M-x COMMAND RET, as typed.
mx() {
  keys M-x
  wait_for '^M-x' "the M-x prompt" 30
  type_text "$1"
  keys Enter
}

# The package as a clone makes it: make emacs-package, or where there is
# no make (newer-editors.sh's chroot) the script its recipe runs.
# --no-print-directory: run from a make's recipe (make test-editors'
# lanes), make has -w in its MAKEFLAGS and would print its directory.
if command -v make >/dev/null; then
  package=$(make -s --no-print-directory -C "$root" emacs-package) || fail "make emacs-package made no package"
else
  package=$(bash "$root/editors/emacs/make-package.sh" "$root/build" --from-clone) || fail "make-package.sh made no package"
fi
[[ $package == "$root/build/gemini-ls-"*.tar && -f $package ]] || fail "make emacs-package made $package, not build/gemini-ls-VERSION.tar"
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

# No server yet: the chat says so, and how to install one, where it
# would say "ready".
mx gemini-ls-chat
wait_for '^> The gemini-ls server is not installed: M-x gemini-ls-install-server installs it' "the chat to say no server is installed" 10
wait_for 'no server: M-x gemini-ls-install-server' "the chat's header to say no server is installed" 5
screen | grep -q 'ready' && fail "the chat says ready with no server installed"
screen >"$(picture emacs-install-noserver)"

# Offline, in an 80-column terminal.
tmux -L "$sock" resize-window -x 80 -y 24
sleep 0.5
mx gemini-ls-install-server
asked_at=$SECONDS
# Counting the seconds, in one line the echo area holds.
wait_for '^Gemini: downloading gemini-ls-linux-[a-z0-9]+\.tar\.gz… [2-4] s' "the install's progress line" 10
last=$(screen | tail -1)
(( ${#last} < 80 )) || fail "the progress line is wider than the echo area: $last"
screen | tail -2 | head -1 | grep -q '^Gemini: ' && fail "the progress takes more than one line"
screen >"$(picture emacs-install-offline)"
wait_for 'no answer from 127\.0\.0\.1 in 5 s \(offline\?\)\.  Build gemini-ls with Go in' "the offer to build with Go" 15
(( SECONDS - asked_at <= 10 )) || fail "the install gave up after $((SECONDS - asked_at)) s, its time-out being 5 s"
screen >"$(picture emacs-install-fallback)"
keys y
wait_for '^Gemini: installed gemini-ls [^ ]+' "the build with Go to be installed" 30
[[ -x "$work/home/.emacs.d/gemini-ls/gemini-ls" ]] || fail "no executable ~/.emacs.d/gemini-ls/gemini-ls after the build with Go"
mapfile -t go_args <"$work/bin/go.args"
# The package names the clone make emacs-package built it in: go build there.
[[ ${go_args[3]} == "build -o "*"/gemini-ls ./cmd/gemini-ls" ]] || fail "go ran as: go ${go_args[3]}"
[[ ${go_args[0]} == "$root" && ${go_args[1]} == CGO_ENABLED=0 ]] || fail "go ran with ${go_args[*]}"
tmux -L "$sock" resize-window -x 140 -y 40
rm "$work/home/.emacs.d/gemini-ls/gemini-ls"

# Offline with a release host whose name does not resolve: said at once,
# no download waited for, and the clone's build offered.
keys M-:
wait_for '^Eval:' "the M-: prompt" 5
type_text '(setq gemini-ls-release-url "http://releases.gemini-ls.invalid/latest/")'
keys Enter
mx gemini-ls-install-server
wait_for 'cannot resolve releases\.gemini-ls\.invalid \(offline\?\)\.  Build gemini-ls with Go instead \(go build in' "the offer to build with Go, the name not resolving" 5
screen | grep -q 'downloading' && fail "the install waited for a download from a name that does not resolve"
screen >"$(picture emacs-install-unresolved)"
keys n
wait_for 'gemini-ls was not installed: cannot resolve' "the install to end on no" 5

# Online: the release, from a file: URL.
keys M-:
wait_for '^Eval:' "the M-: prompt" 5
type_text "(setq gemini-ls-release-url \"file://$work/release/\")"
keys Enter
mx gemini-ls-install-server
# --version's words after the version: the commit, or why none is known
# (a build without version control information, as CI's -buildvcs=false).
wait_for 'installed gemini-ls [^ ]+( \(commit ([0-9a-f]+(-dirty)?|unknown: built without version control information)\))? in ~/\.emacs\.d/gemini-ls' "the server to be installed" 30
[[ -x "$work/home/.emacs.d/gemini-ls/gemini-ls" ]] || fail "no executable ~/.emacs.d/gemini-ls/gemini-ls"

# One window, as before the chat was opened.
keys C-x 1
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
