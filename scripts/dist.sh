#!/usr/bin/env bash
# make dist: the release artefacts, in dist/ (or $DIST):
#   gemini-ls-OS-ARCH.tar.gz    the server, static (CGO_ENABLED=0), for linux
#                               and darwin on amd64 and arm64, with LICENSE
#                               and README.md
#   gemini-ls-windows-ARCH.zip  the same for Windows (gemini-ls.exe)
#   gemini-ls-TARGET.vsix       the VS Code extension carrying the server of
#                               its platform (linux-x64, darwin-arm64,
#                               win32-x64, ...)
#   gemini-ls-nvim.tar.gz       the Neovim plugin, shaped as a plugin
#                               repository (lua/, plugin/, doc/, lsp/) under
#                               gemini-ls.nvim/
#   gemini-ls-VERSION.tar       the Emacs package (VERSION: gemini-ls.el's
#                               Version header), its files under
#                               gemini-ls-VERSION/ with gemini-ls-pkg.el:
#                               M-x package-install-file
#                               (editors/emacs/make-package.sh)
#   SHA256SUMS                  every artefact's sha256: sha256sum -c SHA256SUMS
# The version is $VERSION, else the release tag vX.Y.Z at HEAD (v dropped),
# else none is stamped and the server calls itself the next release's -dev
# (cmd/gemini-ls/version.go), never a bare commit hash. The commit is
# $COMMIT, else `git rev-parse HEAD`, with -dirty when the tree has changes
# (as Go records them). `gemini-ls --version` names both. Archives are
# reproducible: their files carry the commit's time and no owner.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
die() { echo "dist: $*" >&2; exit 1; }

version=${VERSION:-$(git describe --tags --exact-match --match 'v[0-9]*.[0-9]*.[0-9]*' HEAD 2>/dev/null || true)}
version=${version#v}
commit=${COMMIT:-}
if [[ -z $commit ]] && commit=$(git rev-parse HEAD 2>/dev/null); then
  [[ -z $(git status --porcelain 2>/dev/null) ]] || commit+=-dirty
fi
[[ -n $commit ]] || die "not a git checkout: set COMMIT (and VERSION for a release)"
ldflags="-s -w -X main.commit=$commit"
[[ -z $version ]] || ldflags+=" -X main.version=$version"
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
dist=$(mkdir -p "${DIST:-dist}" && cd "${DIST:-dist}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -f "$dist"/gemini-ls* "$dist"/SHA256SUMS

# Go's OS/ARCH and VS Code's name for the same platform.
platforms=(
  linux/amd64=linux-x64 linux/arm64=linux-arm64
  darwin/amd64=darwin-x64 darwin/arm64=darwin-arm64
  windows/amd64=win32-x64 windows/arm64=win32-arm64
)

# stamp DIR: every file under DIR gets the commit's time, for archives that
# are the same bytes from the same commit.
stamp() { find "$1" -exec touch -h -d "@$epoch" {} +; }

vsix_pairs=()
for p in "${platforms[@]}"; do
  goos=${p%%/*} rest=${p#*/}
  goarch=${rest%%=*} target=${rest#*=}
  exe=gemini-ls
  [[ $goos == windows ]] && exe=gemini-ls.exe
  dir=$work/$goos-$goarch
  mkdir -p "$dir"
  start=$SECONDS
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
    -ldflags "$ldflags" \
    -o "$dir/$exe" ./cmd/gemini-ls
  echo "dist: built $goos/$goarch in $((SECONDS - start)) s"
  cp LICENSE README.md "$dir/"
  stamp "$dir"
  if [[ $goos == windows ]]; then
    (cd "$dir" && zip -qX "$dist/gemini-ls-$goos-$goarch.zip" "$exe" LICENSE README.md)
  else
    tar -C "$dir" --sort=name --owner=0 --group=0 --numeric-owner -cf - "$exe" LICENSE README.md |
      gzip -9n >"$dist/gemini-ls-$goos-$goarch.tar.gz"
  fi
  vsix_pairs+=("$target=$dir/$exe")
done

start=$SECONDS
bash editors/vscode/scripts/package.sh -o "$dist" "${vsix_pairs[@]}" >"$work/vsce.log" 2>&1 ||
  { cat "$work/vsce.log" >&2; die "packaging the VS Code extension failed"; }
echo "dist: packaged ${#vsix_pairs[@]} .vsix in $((SECONDS - start)) s"

nvim=$work/gemini-ls.nvim
mkdir -p "$nvim"
cp -R editors/nvim/lua editors/nvim/plugin editors/nvim/doc editors/nvim/lsp editors/nvim/README.md LICENSE "$nvim/"
stamp "$nvim"
tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner -cf - gemini-ls.nvim |
  gzip -9n >"$dist/gemini-ls-nvim.tar.gz"

SOURCE_DATE_EPOCH=$epoch bash editors/emacs/make-package.sh "$dist" >/dev/null

(cd "$dist" && sha256sum gemini-ls* >SHA256SUMS)
# What the servers say they are, in their own words where one runs here.
host=$work/$(go env GOOS)-$(go env GOARCH)/gemini-ls
named="gemini-ls ${version:-<next>-dev} (commit $commit)"
[[ ! -x $host ]] || named=$("$host" --version)
echo "dist: $named in $dist:"
(cd "$dist" && ls -l gemini-ls* SHA256SUMS | awk '{ printf "  %10d  %s\n", $5, $9 }')
