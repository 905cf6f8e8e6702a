#!/usr/bin/env bash
# make-package.sh DIR: writes DIR/gemini-ls-VERSION.tar, the Emacs package as
# M-x package-install-file takes a multi-file package (package.el's
# package-tar-file-info): an uncompressed tar whose first entry is the
# directory gemini-ls-VERSION/, holding every gemini-ls*.el and the
# gemini-ls-pkg.el that describes them, read from gemini-ls.el's headers.
# VERSION is gemini-ls.el's Version header. Prints the tar's path. The tar
# is reproducible: its files carry $SOURCE_DATE_EPOCH (else the last
# commit's time) and no owner.
# make-package.sh DIR --from-clone (make emacs-package): the package also
# names the clone it was built in (its file gemini-ls-clone), so that
# gemini-ls-install-server, offline, offers go build there; make dist's,
# which a release ships, names none.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
from_clone=${2:-}
main="$here/gemini-ls.el"
header() { sed -nE "s/^;; $1: (.*)$/\1/p" "$main" | head -1; }
version=$(header Version)
requires=$(header Package-Requires)
url=$(header URL)
keywords=$(header Keywords | sed -E 's/ *, */ /g; s/([^ ]+)/"\1"/g')
summary=$(sed -nE '1{s/^;;; gemini-ls\.el --- //; s/ +-\*-.*$//; p}' "$main")
[[ -n $version && -n $requires && -n $summary ]] || { echo "make-package: gemini-ls.el lacks a Version, Package-Requires or summary" >&2; exit 1; }
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg="$work/gemini-ls-$version"
mkdir "$pkg"
cp "$here"/gemini-ls*.el "$pkg/"
if [[ $from_clone == --from-clone ]]; then
  (cd "$here/../.." && pwd) >"$pkg/gemini-ls-clone"
fi
cat >"$pkg/gemini-ls-pkg.el" <<PKG
;;; gemini-ls-pkg.el --- The gemini-ls package's description  -*- no-byte-compile: t; lexical-binding: nil -*-
(define-package "gemini-ls" "$version"
  "$summary"
  '$requires
  :keywords '($keywords)
  :url "$url")
PKG
tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
  -cf "$out/gemini-ls-$version.tar" "gemini-ls-$version"
echo "$out/gemini-ls-$version.tar"
