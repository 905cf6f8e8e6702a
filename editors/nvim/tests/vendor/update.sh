#!/usr/bin/env bash
# Remakes the pinned snapshot of copilot-lsp.nvim that copilot_lsp.sh
# drives (the tests never reach GitHub: they unpack this tarball).
#
#   update.sh GIT_DIR COMMIT
#
# GIT_DIR is a clone (bare or not) of github.com/copilotlsp-nvim/copilot-lsp
# that has COMMIT. Only the files Neovim loads are kept, with the LICENSE.
# Then say the new commit in README.md here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# = 2 ] || { sed -n 2,9p "$0" >&2; exit 2; }
git_dir=$1 commit=$2
out="$here/copilot-lsp.tar.gz"
# Fixed owner, order and times, so the same commit makes the same bytes.
git --git-dir="$git_dir" archive --format=tar --prefix=copilot-lsp/ "$commit" -- LICENSE lua plugin |
  gzip -9n >"$out.tmp"
mv "$out.tmp" "$out"
echo "copilot-lsp $(git --git-dir="$git_dir" rev-parse "$commit") $(du -k "$out" | cut -f1) KB"
