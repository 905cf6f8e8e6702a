#!/usr/bin/env bash
# gemini-ls.el as MELPA checks a package: byte-compiled without a warning,
# checkdoc clean, and package-lint clean where Debian's package-lint knows
# Emacs 28 (0.17 or newer: trixie's; bookworm's 0.16 predates Emacs 28 and
# calls every package that needs it uninstallable). package-lint asks the
# package archives whether eglot is installable; offline, GNU ELPA's entry
# for eglot stands in for them. Exit status 1 on any finding.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp "$here/../gemini-ls.el" "$tmp/"
init='(progn
  (setq package-directory-list (cons "/usr/share/emacs/site-lisp/elpa" package-directory-list))
  (package-initialize))'
status=0
linted=""

out=$(cd "$tmp" && emacs --batch -Q --eval "$init" -L . \
  --eval '(setq byte-compile-error-on-warn t)' -f batch-byte-compile gemini-ls.el 2>&1) || status=1
grep -E 'Warning|Error' <<<"$out" && status=1

out=$(cd "$tmp" && emacs --batch -Q --eval "$init" --eval '(checkdoc-file "gemini-ls.el")' 2>&1)
grep -E '^gemini-ls\.el:' <<<"$out" && status=1

version=$(emacs --batch -Q --eval "$init" --eval '(princ (if (and (require (quote lisp-mnt)) (locate-library "package-lint")) (with-temp-buffer (insert-file-contents (locate-library "package-lint.el")) (lm-header "Version")) ""))' 2>/dev/null)
if [[ -z $version ]]; then
  echo "lint: no package-lint (Debian: elpa-package-lint)"; status=1
elif emacs --batch -Q --eval "(kill-emacs (if (version< \"$version\" \"0.17\") 0 1))"; then
  echo "lint: package-lint $version predates Emacs 28: its checks run with trixie's"
else
  out=$(cd "$tmp" && emacs --batch -Q --eval "$init" --eval '(progn
    (require (quote package-lint))
    (setq package-archive-contents
          (list (list (quote eglot)
                      (package-desc-create :name (quote eglot) :version (quote (1 17))
                                           :archive "gnu" :kind (quote tar))))))' \
    -f package-lint-batch-and-exit gemini-ls.el 2>&1) || { echo "$out"; status=1; }
  linted=", package-lint $version clean"
fi
[[ $status == 0 ]] && echo "lint: gemini-ls.el byte-compiles cleanly and is checkdoc clean$linted"
exit $status
