#!/usr/bin/env bash
# Remakes the pinned snapshots in this directory from the clients' git
# repositories (CI cannot reach them: the tests unpack these tarballs).
#
#   update.sh NAME GIT_DIR COMMIT
#
# NAME is one of the snapshots below; GIT_DIR a clone (bare or not) that
# has COMMIT. Only the files the clients load are kept, with their LICENSE.
# Then say the new commit in README.md here and in the top-level README's
# ACP section, which names the version each snippet was checked against.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# = 3 ] || { sed -n 2,10p "$0" >&2; exit 2; }
name=$1 git_dir=$2 commit=$3
case $name in
  codecompanion.nvim) paths=(LICENSE lua plugin queries) ;;
  plenary.nvim) paths=(LICENSE lua/plenary plugin) ;;
  agent-shell) paths=(LICENSE ':(glob)*.el') ;;
  acp.el) paths=(LICENSE acp.el acp-traffic.el) ;;
  shell-maker) paths=(LICENSE shell-maker.el markdown-overlays.el markdown-overlays-tables.el) ;;
  *) echo "update.sh: unknown snapshot $name" >&2; exit 2 ;;
esac
out="$here/$name.tar.gz"
# Fixed owner, order and times, so the same commit makes the same bytes.
git --git-dir="$git_dir" archive --format=tar --prefix="$name/" "$commit" -- "${paths[@]}" |
  gzip -9n >"$out.tmp"
mv "$out.tmp" "$out"
echo "$name $(git --git-dir="$git_dir" rev-parse "$commit") $(du -k "$out" | cut -f1) KB"
