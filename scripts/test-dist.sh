#!/usr/bin/env bash
# make dist from a clean clone of this checkout's commit: every artefact is
# there, SHA256SUMS names each and `sha256sum -c` verifies it, each .vsix
# carries its platform's server, the archives hold what they should, the
# server for this machine names the version and the commit in --version, as
# does a plain go build of the clone (-dirty once it has a change), and the
# clone is still clean. Go's build cache is this machine's, so a second
# run relinks rather than recompiles. The last line is "N passed, N failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { # check WHAT COMMAND...: runs COMMAND, recording WHAT passed or failed.
  local what=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "pass $what"; else failed=$((failed + 1)); echo "FAIL $what"; fi
}
finish() { echo "$passed passed, $failed failed"; [ "$failed" = 0 ]; exit; }

commit=$(git -C "$repo" rev-parse HEAD)
clone=$tmp/gemini-ls
git clone -q "$repo" "$clone" && git -C "$clone" checkout -q "$commit" || { echo "FAIL cloning $repo"; failed=1; finish; }
# A release tag at the commit names the version; else the servers are the
# next release's -dev, and never name themselves by a bare commit hash.
tag=$(git -C "$clone" describe --tags --exact-match --match 'v[0-9]*.[0-9]*.[0-9]*' 2>/dev/null)
if [ -n "$tag" ]; then version=${tag#v}; else version='[0-9]+\.[0-9]+\.[0-9]+-dev'; fi
short=${commit:0:12}
start=$SECONDS
if ! (cd "$clone" && make dist) >"$tmp/dist.log" 2>&1; then
  tail -n 40 "$tmp/dist.log"
  echo "FAIL make dist"; failed=1; finish
fi
echo "test-dist: make dist took $((SECONDS - start)) s in a clean clone"
dist=$clone/dist

# The Emacs package is named by its own Version header.
emacs_version=$(sed -nE 's/^;; Version: (.*)$/\1/p' "$clone/editors/emacs/gemini-ls.el")
emacs_pkg=gemini-ls-$emacs_version
artefacts=(SHA256SUMS "$emacs_pkg.tar" gemini-ls-nvim.tar.gz)
for p in linux-amd64 linux-arm64 darwin-amd64 darwin-arm64; do artefacts+=("gemini-ls-$p.tar.gz"); done
for p in windows-amd64 windows-arm64; do artefacts+=("gemini-ls-$p.zip"); done
for t in linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64; do artefacts+=("gemini-ls-$t.vsix"); done
check "make dist makes every artefact, and nothing else" \
  diff <(printf '%s\n' "${artefacts[@]}" | sort) <(ls "$dist" | sort)
check "SHA256SUMS names every artefact" \
  diff <(printf '%s\n' "${artefacts[@]}" | grep -v '^SHA256SUMS$' | sort) <(awk '{ print $2 }' "$dist/SHA256SUMS" | sort)
check "sha256sum -c SHA256SUMS verifies every artefact" \
  bash -c 'cd "$1" && sha256sum --quiet -c SHA256SUMS' _ "$dist"

# Not grep -q: it would stop reading at the first match, and under
# pipefail the listing's SIGPIPE would fail the check now and then.
vsix_has() { unzip -Z1 "$dist/gemini-ls-$1.vsix" | grep -xF "extension/server/$2" >/dev/null; }
for t in linux-x64 linux-arm64 darwin-x64 darwin-arm64; do check "gemini-ls-$t.vsix carries server/gemini-ls" vsix_has "$t" gemini-ls; done
for t in win32-x64 win32-arm64; do check "gemini-ls-$t.vsix carries server/gemini-ls.exe" vsix_has "$t" gemini-ls.exe; done
holds() { [ "$(tar -tzf "$dist/$1" | sort | tr '\n' ' ')" = "$2" ]; }
for p in linux-amd64 linux-arm64 darwin-amd64 darwin-arm64; do
  check "gemini-ls-$p.tar.gz holds gemini-ls, LICENSE and README.md" holds "gemini-ls-$p.tar.gz" "LICENSE README.md gemini-ls "
done
zip_holds() { [ "$(unzip -Z1 "$dist/$1" | sort | tr '\n' ' ')" = "LICENSE README.md gemini-ls.exe " ]; }
for p in windows-amd64 windows-arm64; do check "gemini-ls-$p.zip holds gemini-ls.exe, LICENSE and README.md" zip_holds "gemini-ls-$p.zip"; done
check "gemini-ls-nvim.tar.gz is a plugin at gemini-ls.nvim/" \
  bash -c 'tar -tzf "$1" | grep -qx gemini-ls.nvim/lua/gemini/init.lua && tar -tzf "$1" | grep -qx gemini-ls.nvim/plugin/gemini.lua' _ "$dist/gemini-ls-nvim.tar.gz"
# Every file of the plugin but its tests, so that what the README names
# (lsp/gemini_ls.lua for vim.lsp.enable, doc/ for :help) is in it.
nvim_holds() {
  diff <(tar -tzf "$dist/gemini-ls-nvim.tar.gz" | grep -v '/$' | sort) \
    <({ echo gemini-ls.nvim/LICENSE; git -C "$clone" ls-files editors/nvim | grep -v '^editors/nvim/tests/' |
      sed 's|^editors/nvim/|gemini-ls.nvim/|'; } | sort)
}
check "gemini-ls-nvim.tar.gz holds every file of editors/nvim but its tests (lsp/gemini_ls.lua among them), and LICENSE" nvim_holds
# package-install-file's form of a multi-file package: the directory
# first, then the package's files and its gemini-ls-pkg.el.
emacs_holds() {
  [ "$(tar -tf "$dist/$emacs_pkg.tar" | head -1)" = "$emacs_pkg/" ] &&
    diff <(tar -tf "$dist/$emacs_pkg.tar" | sed 1d | sort) \
      <({ echo "$emacs_pkg/gemini-ls-pkg.el"; (cd "$clone/editors/emacs" && ls gemini-ls*.el | sed "s|^|$emacs_pkg/|"); } | sort) &&
    for f in "$clone"/editors/emacs/gemini-ls*.el; do
      cmp -s <(tar -xOf "$dist/$emacs_pkg.tar" "$emacs_pkg/${f##*/}") "$f" || return 1
    done
}
check "$emacs_pkg.tar is the Emacs package: its files and gemini-ls-pkg.el under $emacs_pkg/" emacs_holds

case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; *) arch=unknown ;; esac
mkdir -p "$tmp/linux"
tar -xzf "$dist/gemini-ls-linux-$arch.tar.gz" -C "$tmp/linux"
# says WANT COMMAND...: COMMAND prints exactly WANT, an extended regexp.
says() { local want=$1; shift; local got; got=$("$@" 2>&1); echo "test-dist: $* says: $got"; grep -Eqx "$want" <<<"$got"; }
check "the linux $arch server's --version names the version and the commit" \
  says "gemini-ls $version \(commit $short\)" "$tmp/linux/gemini-ls" --version
check "the clone is clean after make dist" test -z "$(git -C "$clone" status --porcelain)"

# A plain go build of the checkout names its commit too, from what Go
# records of version control, and -dirty once the tree has a change. Built
# as make dist built this machine's server (-trimpath, no cgo), so Go's
# cache has its packages and only the link is new; -buildvcs=auto because
# this machine's GOFLAGS may turn the stamp off, which a user's do not.
gobuild() { (cd "$clone" && GOFLAGS=-buildvcs=auto CGO_ENABLED=0 go build -trimpath -o "$tmp/built" ./cmd/gemini-ls) && "$tmp/built" --version; }
check "go build of the checkout names its commit in --version" says "gemini-ls $version \(commit $short\)" gobuild
touch "$clone/uncommitted.txt"
check "go build of a modified checkout names its commit -dirty" says "gemini-ls $version \(commit $short-dirty\)" gobuild
rm -f "$clone/uncommitted.txt"
finish
