#!/usr/bin/env bash
# Installs, at pinned versions, the language servers the tests of
# internal/codeintel/langclient start: gopls (go install) and pyright's
# pyright-langserver (npm ci from scripts/langservers' lockfile), into
# $DIR/bin, DIR=${XDG_CACHE_HOME:-$HOME/.cache}/gemini-ls/langservers.
# Idempotent: a server already at its pinned version is left alone,
# so a second run does nothing and prints nothing.
set -euo pipefail

GOPLS_VERSION=v0.23.0
here=$(cd "$(dirname "$0")" && pwd)
dir=${XDG_CACHE_HOME:-$HOME/.cache}/gemini-ls/langservers
mkdir -p "$dir/bin"

# gopls says its own version.
if ! "$dir/bin/gopls" version 2>/dev/null | grep -qx "golang.org/x/tools/gopls $GOPLS_VERSION"; then
  echo "langservers: installing gopls $GOPLS_VERSION into $dir/bin"
  GOBIN="$dir/bin" GOWORK=off go install "golang.org/x/tools/gopls@$GOPLS_VERSION"
fi

# pyright: its stamp is the lockfile's hash, so a new pin reinstalls it.
lock=$(sha256sum "$here/langservers/package-lock.json" | cut -c1-16)
if [ "$(cat "$dir/pyright.stamp" 2>/dev/null)" != "$lock" ] || { [ ! -e "$dir/bin/pyright-langserver" ] && [ ! -e "$dir/bin/pyright-langserver.cmd" ]; }; then
  echo "langservers: installing pyright ($(grep -o '"pyright": "[^"]*"' "$here/langservers/package.json")) into $dir/pyright"
  rm -rf "$dir/pyright"
  mkdir -p "$dir/pyright"
  cp "$here/langservers/package.json" "$here/langservers/package-lock.json" "$dir/pyright/"
  (cd "$dir/pyright" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  case "$(uname -s)" in
  MINGW* | MSYS* | CYGWIN*)
    # Windows (the GitHub runner's Git Bash): a link would be a copy of
    # npm's shim, which finds its module relative to itself; a .cmd that
    # names it is what Go's exec.LookPath finds.
    printf '@node "%%~dp0..\\pyright\\node_modules\\pyright\\langserver.index.js" %%*\r\n' >"$dir/bin/pyright-langserver.cmd" ;;
  *) ln -sfn "$dir/pyright/node_modules/.bin/pyright-langserver" "$dir/bin/pyright-langserver" ;;
  esac
  echo "$lock" >"$dir/pyright.stamp"
fi
