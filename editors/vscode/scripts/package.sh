#!/usr/bin/env bash
# Builds the extension from a clean install of the locked dependencies, then
# packages it:
#   package.sh [-o DIR]             DIR/gemini-ls.vsix, which carries no
#                                   server: it runs gemini.serverPath's or
#                                   PATH's gemini-ls
#   package.sh [-o DIR] TARGET=BIN ...
#                                   DIR/gemini-ls-TARGET.vsix for each VS Code
#                                   platform TARGET (linux-x64, win32-arm64,
#                                   ...), carrying BIN as server/gemini-ls (or
#                                   gemini-ls.exe on win32), which the
#                                   extension runs unless gemini.serverPath
#                                   names another; DIR defaults to dist
set -euo pipefail
out=dist
if [[ ${1:-} == -o ]]; then
  out=$(mkdir -p "$2" && cd "$2" && pwd)
  shift 2
fi
cd "$(dirname "$0")/.."
npm ci --no-audit --no-fund --loglevel=error
npm run build --silent

# The README the Marketplace shows, its relative links made URLs of this
# commit (scripts/marketplace-readme.mjs): $COMMIT (make dist's, -dirty
# dropped), else the checkout's HEAD.
commit=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || true)}
commit=${commit%-dirty}
[[ $commit =~ ^[0-9a-f]{40}$ ]] || { echo "package.sh: not a git checkout: set COMMIT to the commit's 40-digit hash" >&2; exit 2; }
readme=dist/marketplace/README.md
mkdir -p "${readme%/*}"
node scripts/marketplace-readme.mjs "$commit" README.md "$readme"

# vsce_package ARGS... is vsce package, failed on any warning as well as
# on an error: the Marketplace and Open VSX take a package vsce warns of
# only after a question nobody is there to answer in the release workflow.
vsce_package() {
  local log
  log=$(mktemp)
  npx vsce package --no-dependencies --readme-path "$readme" "$@" 2>&1 | tee "$log"
  if grep -q 'WARNING' "$log"; then
    echo "package.sh: vsce warned (above); the release would be held on it" >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
}

if (($# == 0)); then
  rm -rf server
  vsce_package -o "$out/gemini-ls.vsix"
  exit
fi
# server/ holds one platform's binary at a time, and only while it is packaged.
trap 'rm -rf server' EXIT
for pair in "$@"; do
  target=${pair%%=*} bin=${pair#*=}
  [[ $pair == *=* && -f $bin ]] || { echo "package.sh: want TARGET=BINARY, got $pair" >&2; exit 2; }
  exe=gemini-ls
  [[ $target == win32-* ]] && exe=gemini-ls.exe
  rm -rf server && mkdir server
  cp "$bin" "server/$exe"
  chmod 755 "server/$exe"
  vsce_package --target "$target" -o "$out/gemini-ls-$target.vsix"
done
