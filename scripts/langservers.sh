#!/usr/bin/env bash
# Installs, at pinned versions, the language servers the tests of
# internal/codeintel/langclient start: gopls (go install), and pyright's
# pyright-langserver and typescript-language-server with the TypeScript
# beside it (npm ci from scripts/langservers' lockfile), into $DIR/bin,
# DIR=${XDG_CACHE_HOME:-$HOME/.cache}/gemini-ls/langservers.
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

# The npm servers: their stamp is the lockfile's hash, so a new pin
# reinstalls them.
lock=$(sha256sum "$here/langservers/package-lock.json" | cut -c1-16)
if [ "$(cat "$dir/npm.stamp" 2>/dev/null)" != "$lock" ] || { [ ! -e "$dir/bin/pyright-langserver" ] && [ ! -e "$dir/bin/pyright-langserver.cmd" ]; }; then
  echo "langservers: installing $(grep -o '"[a-z-]*": "[0-9.]*"' "$here/langservers/package.json" | tr -d '"' | tr '\n' ' ')into $dir/npm"
  rm -rf "$dir/npm" "$dir/pyright" "$dir/pyright.stamp"
  mkdir -p "$dir/npm"
  cp "$here/langservers/package.json" "$here/langservers/package-lock.json" "$dir/npm/"
  (cd "$dir/npm" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  case "$(uname -s)" in
  MINGW* | MSYS* | CYGWIN*)
    # Windows (the GitHub runner's Git Bash): a link would be a copy of
    # npm's shim, which finds its module relative to itself; a .cmd that
    # names it is what Go's exec.LookPath finds.
    printf '@node "%%~dp0..\\npm\\node_modules\\pyright\\langserver.index.js" %%*\r\n' >"$dir/bin/pyright-langserver.cmd"
    printf '@node "%%~dp0..\\npm\\node_modules\\typescript-language-server\\lib\\cli.mjs" %%*\r\n' >"$dir/bin/typescript-language-server.cmd" ;;
  *)
    ln -sfn "$dir/npm/node_modules/.bin/pyright-langserver" "$dir/bin/pyright-langserver"
    ln -sfn "$dir/npm/node_modules/.bin/typescript-language-server" "$dir/bin/typescript-language-server" ;;
  esac
  echo "$lock" >"$dir/npm.stamp"
fi
