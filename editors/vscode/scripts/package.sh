#!/usr/bin/env bash
# Builds dist/gemini-ls.vsix from a clean install of the locked dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci
npm run build
npx vsce package --no-dependencies -o dist/gemini-ls.vsix
