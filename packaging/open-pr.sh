#!/usr/bin/env bash
# open-pr.sh UPSTREAM BRANCH TITLE SRC=DEST...
# Opens a pull request on the GitHub repository UPSTREAM (owner/name) that
# puts each file SRC of this checkout at DEST in UPSTREAM, from a fork in
# the account of GH_TOKEN (forked the first time), on BRANCH. Does nothing
# when UPSTREAM's default branch already has every file as it is here (the
# ACP registry and mason's Renovate bump versions themselves), or when the
# pull request is open already (then BRANCH is pushed anew).
# The release workflow runs it; it needs gh, git and GH_TOKEN.
set -euo pipefail
(($# >= 4)) || { echo "usage: open-pr.sh UPSTREAM BRANCH TITLE SRC=DEST..." >&2; exit 2; }
upstream=$1 branch=$2 title=$3
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gh auth setup-git
me=$(gh api user --jq .login)
git clone --quiet --depth 1 "https://github.com/$upstream.git" "$work/repo"
cd "$work/repo"
for pair in "$@"; do
  src=${pair%%=*} dest=${pair#*=}
  mkdir -p "$(dirname "$dest")"
  cp "$root/$src" "$dest"
  git add -- "$dest"
done
if git diff --cached --quiet; then
  echo "open-pr: $upstream already has these files as they are here"
  exit 0
fi

# The fork: made the first time, ready once gh can see it.
fork=$me/${upstream#*/}
if ! gh repo view "$fork" >/dev/null 2>&1; then
  gh repo fork "$upstream" --clone=false --default-branch-only
  for _ in $(seq 30); do
    gh repo view "$fork" >/dev/null 2>&1 && break
    sleep 5
  done
fi
git -c user.name="$me" -c user.email="$me@users.noreply.github.com" commit --quiet -m "$title"
git push --quiet --force "https://github.com/$fork.git" "HEAD:refs/heads/$branch"

if [[ -n $(gh pr list --repo "$upstream" --head "$branch" --author "$me" --state open --json number --jq '.[].number') ]]; then
  echo "open-pr: the pull request on $upstream from $fork:$branch is open; its branch is updated"
  exit 0
fi
gh pr create --repo "$upstream" --head "$me:$branch" --title "$title" \
  --body "$title, from the release workflow of https://github.com/gemini-ls/gemini-ls (docs/releasing.md). The files are checked there by this registry's own validators, at a pinned commit of this repository, before this pull request opens."
