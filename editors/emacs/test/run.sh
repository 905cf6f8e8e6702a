#!/usr/bin/env bash
# Builds gemini-ls and the fake Gemini API, then runs the ERT tests in
# batch Emacs (gemini-ls-test.el, and gemini-ls-schema-test.el: the package
# held to docs/protocol.schema.json), then tmux-screens.sh: a real interactive Emacs in tmux that
# writes build/screenshots/emacs-*.txt, stock-eglot.sh: the same with
# stock eglot and no gemini-ls package (eglot-stock-*.txt),
# tmux-completion.sh: completion as you type in a real Emacs
# (emacs-completion*.txt), tmux-install.sh: the package installed with
# package-install-file and the server with gemini-ls-install-server, the
# chat working beside a Python buffer's own server (emacs-install-*.txt),
# tmux-trust.sh: the folder trust question with its choices on screen
# (emacs-trust*.txt), tmux-startup.sh: the server's start-up problems told
# in the chat (emacs-startup-problems.txt), tmux-review-path.sh: the
# review's headers for a file of no project (emacs-review-path.txt),
# tmux-review-autosave.sh: no proposal on disk before it is accepted, with
# auto-save-visited-mode on (emacs-review-autosave-*.txt),
# tmux-review-hunks.sh: two changes four lines apart, one accepted and one
# rejected, and a hunk split with diff-split-hunk (emacs-review-hunks*.txt,
# emacs-review-split.txt),
# tmux-agents.sh: the agents view, two agents in worktrees of their own,
# one landed and one discarded (emacs-agents*.txt), tmux-background.sh: a
# background agent run by fakegithub's runner, its pull request's branch
# landed from the agents view (emacs-background*.txt), and
# lint.sh: byte-compiler, checkdoc and package-lint clean; each is one
# more test in the count. ERT tests skipped (a language server missing) are
# neither, and said.
# The last line is "N passed, N failed"; exit status 1 on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# GEMINI_LS_BIN and FAKEGEMINI_BIN (both set), and FAKEGITHUB_BIN, name
# prebuilt binaries, for runs without Go (editors/newer-editors.sh runs
# this inside a chroot).
if [[ -z "${GEMINI_LS_BIN:-}" || -z "${FAKEGEMINI_BIN:-}" ]]; then
  (cd "$root" && go build -o "$tmp/gemini-ls" ./cmd/gemini-ls \
    && go build -o "$tmp/fakegemini" ./internal/agent/geminitest/cmd/fakegemini)
  export GEMINI_LS_BIN="$tmp/gemini-ls" FAKEGEMINI_BIN="$tmp/fakegemini"
fi
# FAKEGITHUB_BIN: the fake GitHub (API and runner) of tmux-background.sh.
if [[ -z "${FAKEGITHUB_BIN:-}" ]]; then
  (cd "$root" && go build -o "$tmp/fakegithub" ./internal/github/githubtest/cmd/fakegithub)
  export FAKEGITHUB_BIN="$tmp/fakegithub"
fi
# The language servers the tests of gemini/languageFeature run beside
# gemini-ls (gopls, pyright), as `make langservers' installs them (in the
# real HOME, replaced below).
export GEMINI_LS_LANGSERVERS="${GEMINI_LS_LANGSERVERS:-$HOME/.cache/gemini-ls/langservers/bin}"
# In editors/newer-editors.sh's chroots: its gopls, and the Go it runs.
if [[ -n "${GEMINI_GOPLS:-}" && -x "$GEMINI_GOPLS" ]]; then
  GEMINI_LS_LANGSERVERS=$(dirname "$GEMINI_GOPLS")
  [[ -z "${GEMINI_GOPLS_PATH:-}" ]] || PATH="$GEMINI_GOPLS_PATH:$PATH"
fi
export HOME="$tmp/home"; mkdir -p "$HOME/.gemini"
# The user answered the folder trust question already for the tests'
# projects, made in the temporary directory ("Don't trust": untrusted, as
# they were): only the test of the question, with a HOME of its own, is
# asked it.
printf '{"%s": "DO_NOT_TRUST"}' "${TMPDIR:-/tmp}" >"$HOME/.gemini/trustedFolders.json"
# Which Emacs and which eglot (Debian's elpa-eglot or the built-in one)
# the tests ran with, for the log.
print_versions='(progn (require (quote eglot))
  (message "GNU Emacs %s; eglot %s from %s" emacs-version
    (package-version-join
      (if (assq (quote eglot) package-alist)
          (package-desc-version (cadr (assq (quote eglot) package-alist)))
        (alist-get (quote eglot) package--builtin-versions)))
    (symbol-file (quote eglot-ensure) (quote defun))))'
status=0
emacs --batch -Q \
  --eval "(progn (setq package-directory-list (cons \"/usr/share/emacs/site-lisp/elpa\" package-directory-list)) (package-initialize))" \
  --eval "$print_versions" \
  -L "$here/.." -L "$here" \
  -l gemini-ls-test.el -l gemini-ls-schema-test.el \
  --eval '(setq byte-compile-error-on-warn nil)' \
  -f ert-run-tests-batch-and-exit 2>&1 | tee "$tmp/out" || status=$?
line="$(grep -E '^Ran [0-9]+ tests?, [0-9]+ results? as expected' "$tmp/out" | tail -1 || true)"
if [[ -z "$line" ]]; then
  echo "0 passed, 1 failed"
  exit 1
fi
total="$(sed -E 's/^Ran ([0-9]+) tests?.*/\1/' <<<"$line")"
passed="$(sed -E 's/.*, ([0-9]+) results? as expected.*/\1/' <<<"$line")"
# Skipped: the tests that run a language server (gopls, pyright) where it
# is not installed, or cannot run (the chroots of newer-editors.sh have
# neither Go nor Node.js).
skipped="$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")"
skipped=${skipped:-0}
failed=$((total - passed - skipped))
for screens in tmux-screens.sh stock-eglot.sh tmux-completion.sh tmux-install.sh tmux-trust.sh \
  tmux-startup.sh tmux-review-path.sh tmux-review-autosave.sh tmux-review-hunks.sh tmux-agents.sh tmux-background.sh \
  lint.sh; do
  if bash "$here/$screens"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
done
if [[ $skipped -gt 0 ]]; then
  echo "$skipped skipped: no language server to run beside gemini-ls (make langservers, with go and node on PATH)"
fi
echo "$passed passed, $failed failed"
[[ $status -eq 0 && $failed -eq 0 ]]
