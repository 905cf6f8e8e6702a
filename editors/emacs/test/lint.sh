#!/usr/bin/env bash
# The package's files (gemini-ls.el and its gemini-ls-*.el modules) as
# MELPA checks a package: each byte-compiled without a warning,
# checkdoc clean, and package-lint clean where Debian's package-lint knows
# Emacs 28 (0.17 or newer: trixie's; bookworm's 0.16 predates Emacs 28 and
# calls every package that needs it uninstallable), warnings included.
# package-lint asks the package archives whether eglot is installable;
# offline, an entry for GNU ELPA's eglot stands in for them. And it knows the
# libraries built into newer Emacsen that GNU ELPA also publishes for older
# ones (jsonrpc, seq, ...), but not eglot (built in from 29.1, on GNU ELPA
# for 26.3 and newer): told the same of eglot, it takes the declared
# (eglot "1.9") as it takes (jsonrpc ...), instead of asking for Emacs 29.
# Exit status 1 on any finding.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp "$here"/../gemini-ls*.el "$tmp/"
files=$(cd "$tmp" && ls gemini-ls*.el)
init='(progn
  (setq package-directory-list (cons "/usr/share/emacs/site-lisp/elpa" package-directory-list))
  (package-initialize))'
status=0
linted=""

# Each file in an Emacs of its own: a module compiles with what it
# requires, not with what another file happened to load.
for f in $files; do
  out=$(cd "$tmp" && emacs --batch -Q --eval "$init" -L . \
    --eval '(setq byte-compile-error-on-warn t)' -f batch-byte-compile "$f" 2>&1) || status=1
  grep -E 'Warning|Error' <<<"$out" && status=1

  out=$(cd "$tmp" && emacs --batch -Q --eval "$init" --eval "(checkdoc-file \"$f\")" 2>&1)
  grep -E "^$f:" <<<"$out" && status=1
done

version=$(emacs --batch -Q --eval "$init" --eval '(princ (if (and (require (quote lisp-mnt)) (locate-library "package-lint")) (with-temp-buffer (insert-file-contents (locate-library "package-lint.el")) (lm-header "Version")) ""))' 2>/dev/null)
if [[ -z $version ]]; then
  echo "lint: no package-lint (Debian: elpa-package-lint)"; status=1
elif emacs --batch -Q --eval "(kill-emacs (if (version< \"$version\" \"0.17\") 0 1))"; then
  echo "lint: package-lint $version predates Emacs 28: its checks run with trixie's"
else
  # package-lint-batch-and-exit reads the archives afresh; this seeds them
  # after, then lints as it does, warnings counting as findings.
  # package-lint-main-file: the modules' headers need no Version or
  # Package-Requires of their own, as the main file's are the package's.
  for f in $files; do
  out=$(cd "$tmp" && emacs --batch -Q --eval "$init" --eval "(setq package-lint-main-file \"gemini-ls.el\")" --eval '(progn
    (require (quote package-lint))
    (push (list (quote eglot)
                (package-desc-create :name (quote eglot) :version (quote (1 17))
                                     :archive "gnu" :kind (quote tar)))
          package-archive-contents)
    (push (list (quote eglot) "\\`eglot-") package-lint-backport-libraries)
    (with-temp-buffer
      (insert-file-contents (car command-line-args-left) t)
      (setq command-line-args-left nil)
      (emacs-lisp-mode)
      (let ((findings (package-lint-buffer)))
        (pcase-dolist (`(,line ,col ,type ,message) findings)
          (message "%s:%d:%d: %s: %s" (file-name-nondirectory buffer-file-name) line col type message))
        (kill-emacs (if findings 1 0)))))' "$f" 2>&1) || { echo "$out"; status=1; }
  done
  linted=", package-lint $version clean"
fi
[[ $status == 0 ]] && echo "lint: gemini-ls.el and its $(($(wc -w <<<"$files") - 1)) modules byte-compile cleanly and are checkdoc clean$linted"
exit $status
