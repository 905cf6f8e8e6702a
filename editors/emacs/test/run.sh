#!/usr/bin/env bash
# Builds gemini-ls and the fake Gemini API, then runs the ERT tests in
# batch Emacs, then tmux-screens.sh: a real interactive Emacs in tmux that
# writes docs/screenshots/emacs-*.txt (one more test in the count).
# The last line is "N passed, N failed"; exit status 1 on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/gemini-ls" ./cmd/gemini-ls \
  && go build -o "$tmp/fakegemini" ./agent/geminitest/cmd/fakegemini)
export GEMINI_LS_BIN="$tmp/gemini-ls" FAKEGEMINI_BIN="$tmp/fakegemini"
export HOME="$tmp/home"; mkdir -p "$HOME"
status=0
emacs --batch -Q \
  --eval "(progn (setq package-directory-list (cons \"/usr/share/emacs/site-lisp/elpa\" package-directory-list)) (package-initialize))" \
  -L "$here/.." -L "$here" \
  -l gemini-ls-test.el \
  --eval '(setq byte-compile-error-on-warn nil)' \
  -f ert-run-tests-batch-and-exit 2>&1 | tee "$tmp/out" || status=$?
line="$(grep -E '^Ran [0-9]+ tests?, [0-9]+ results? as expected' "$tmp/out" | tail -1 || true)"
if [[ -z "$line" ]]; then
  echo "0 passed, 1 failed"
  exit 1
fi
total="$(sed -E 's/^Ran ([0-9]+) tests?.*/\1/' <<<"$line")"
passed="$(sed -E 's/.*, ([0-9]+) results? as expected.*/\1/' <<<"$line")"
failed=$((total - passed))
if bash "$here/tmux-screens.sh"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[[ $status -eq 0 && $failed -eq 0 ]]
