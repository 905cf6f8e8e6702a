#!/usr/bin/env bash
# debs.sh PACKAGE...: installs, as root, those of the Debian packages that
# are not installed, with one apt-get and without their recommends, and
# says which. The make targets, the VS Code suite's setup and the chroot
# makers all install through it.
#
# One apt at a time: make test-editors runs suites at once, each installing
# its own packages, and an apt-get that finds dpkg's lock taken fails. So
# each waits here for the others (flock).
set -euo pipefail
missing=()
for p in "$@"; do
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == *' ok installed' ]] || missing+=("$p")
done
((${#missing[@]})) || exit 0
echo "debs: apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
exec flock /var/lock/gemini-ls-apt.lock sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@" >/dev/null' _ "${missing[@]}"
