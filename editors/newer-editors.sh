#!/usr/bin/env bash
# Runs the Neovim plugin's and the Emacs package's tests with newer editors
# than Debian bookworm's (Neovim 0.7, Emacs 28 + elpa-eglot), inside a Debian
# chroot:
#   newer-editors.sh trixie   Neovim 0.10 and Emacs 30 with its built-in eglot
#   newer-editors.sh testing  the newest Neovim that reached Debian testing
#                             (0.12 in November 2026)
#   newer-editors.sh sid      Helix (Debian's hx, 25.07) with no plugin, driven
#                             in tmux (editors/helix/test/run.sh)
#   newer-editors.sh testing acp-clients
#                             codecompanion.nvim in Neovim 0.12 driving
#                             `gemini-ls acp` (editors/acp-clients)
#   newer-editors.sh trixie acp-clients
#                             agent-shell in Emacs 30 driving `gemini-ls acp`
#   newer-editors.sh trixie emacs
#                             the Emacs package's tests alone, in Emacs 30
#
# GEMINI_LS_TEST_FILTER=agents runs only the Neovim tests whose names
# contain it (the runner's first argument), and no Emacs tests.
#
# The chroot (debootstrap minbase, ~40 s and ~550 MB the first time) is kept
# at ${GEMINI_LS_CHROOTS:-$HOME/.cache/gemini-ls}/SUITE and reused. gemini-ls,
# fakegemini and fakegithub are built here as static binaries, so the chroot
# needs no Go;
# the repository is bind-mounted at /repo. The screens the tests capture go to
# $chroot/var/tmp/gemini-ls-screenshots, not to build/screenshots; Helix's,
# the ACP clients', copilot-lsp.nvim's, testing's Neovim's and the Emacs
# package's in Emacs 30 (helix-*.txt, acp-*.txt, nvim-copilot-lsp-*.txt: only
# Neovim 0.11 and newer make them; nvim-*-0.12.txt, emacs-*-30.txt) are
# copied from there to the
# repository's build/screenshots (or $GEMINI_SCREENSHOTS_DIR), which
# `make screenshots` copies to docs/screenshots.
#
# The tests run in their own mount and PID namespaces: whatever way the run
# ends, its mounts vanish and the processes it started end with it, and
# nothing is mounted on the host.
#
# Needs root (debootstrap, unshare, chroot). Exit status 1 if any test fails.
set -euo pipefail

shots=/var/tmp/gemini-ls-screenshots

# Inside the namespaces (see the end of the file): mount, run, summarize.
if [ "${1:-}" = --in-namespace ]; then
  c=$2 repo=$3 bin=$4 suite=$5 tests=$6 goroot=$7
  mount -t proc proc "$c/proc"
  mount --bind /dev "$c/dev"
  mount --bind /dev/pts "$c/dev/pts"
  mount -t tmpfs -o mode=1777 tmpfs "$c/tmp"
  mkdir -p "$c/repo" "$c/tmp/bin" "$c/tmp/home"
  mount --bind "$repo" "$c/repo"
  cp "$bin/gemini-ls" "$bin/fakegemini" "$bin/fakegithub" "$c/tmp/bin/"
  # gopls, for the Neovim plugin's gemini/languageFeature specs, and the
  # host's Go, which gopls runs (not on the tests' PATH: GEMINI_GOPLS_PATH
  # is gopls' own).
  if [ -x "$bin/gopls" ]; then
    cp "$bin/gopls" "$c/tmp/bin/"
    mkdir -p "$c/tmp/go"
    mount --bind "$goroot" "$c/tmp/go"
  fi
  rm -rf "${c:?}$shots"
  mkdir -p "$c$shots"

  in_chroot() {
    chroot "$c" /usr/bin/env -i \
      PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin \
      HOME=/tmp/home LANG=C.UTF-8 TERM=xterm-256color \
      GEMINI_LS_BIN=/tmp/bin/gemini-ls FAKEGEMINI_BIN=/tmp/bin/fakegemini FAKEGITHUB_BIN=/tmp/bin/fakegithub \
      GEMINI_GOPLS=/tmp/bin/gopls GEMINI_GOPLS_PATH=/tmp/go/bin:/usr/local/bin:/usr/bin:/bin \
      GEMINI_SCREENSHOTS_DIR="$shots" \
      "$@"
  }
  summary=()
  failed=0
  # run_suite NAME RUNNER EDITOR: runs one editor's test runner in the chroot
  # and records its "N passed, N failed" line.
  run_suite() {
    local name=$1 runner=$2 version out status last start=$SECONDS
    version=$(in_chroot "$3" --version | head -1)
    echo
    echo "== $name tests with $version (Debian $suite chroot)"
    out="$c/tmp/$name.log"
    set +e
    in_chroot timeout -k 10 900 bash "/repo/$runner" ${GEMINI_LS_TEST_FILTER:+"$GEMINI_LS_TEST_FILTER"} 2>&1 | tee "$out"
    status=${PIPESTATUS[0]}
    set -e
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -1 || true)
    [ -n "$last" ] || last="no result line"
    [ "$status" = 0 ] || failed=1
    summary+=("$name ($version): $last, exit status $status, $((SECONDS - start)) s")
    # Each failure again, last: a CI log's tail, past the screens copied
    # below, names what failed.
    local f
    while IFS= read -r f; do summary+=("  $f"); done < <(grep -E '^(fail|FAIL) | *FAILED ' "$out" | cut -c1-300)
  }
  if [ "$tests" = acp-clients ] && [ "$suite" = testing ]; then
    run_suite codecompanion.nvim editors/acp-clients/codecompanion/run.sh nvim
  elif [ "$tests" = acp-clients ]; then
    run_suite agent-shell editors/acp-clients/agent-shell/run.sh emacs
  elif [ "$tests" = emacs ]; then
    run_suite Emacs editors/emacs/test/run.sh emacs
  elif [ "$suite" = sid ]; then
    run_suite Helix editors/helix/test/run.sh hx
  else
    run_suite Neovim editors/nvim/tests/run.sh nvim
    # Asked inside: /usr/bin/emacs is an absolute symlink into the
    # chroot's /etc/alternatives, which the host may not have.
    if [ -z "${GEMINI_LS_TEST_FILTER:-}" ] && in_chroot test -x /usr/bin/emacs; then
      run_suite Emacs editors/emacs/test/run.sh emacs
    fi
  fi
  echo
  echo "newer-editors: screens captured in $c$shots"
  # Helix's, the ACP clients', copilot-lsp's and Emacs 30's screens are made only here: into
  # build/screenshots (or $GEMINI_SCREENSHOTS_DIR), as the host's runners
  # do, for make screenshots.
  dest="${GEMINI_SCREENSHOTS_DIR:-$repo/build/screenshots}"
  # And the newest Neovim's pictures of the plugin, named with its version
  # (nvim-chat-0.12.txt), beside bookworm's 0.7 ones the host takes.
  newest=
  if [ "$suite" = testing ] && [ "$tests" = editors ]; then
    newest=$(in_chroot nvim --version | sed -n '1s/^NVIM v\([0-9]*\.[0-9]*\).*/\1/p')
  fi
  for f in "$c$shots"/helix-* "$c$shots"/acp-* "$c$shots"/nvim-copilot-lsp-* ${newest:+"$c$shots"/nvim-*-"$newest".txt} "$c$shots"/emacs-*-[0-9][0-9].txt; do
    [ -e "$f" ] || continue
    mkdir -p "$dest"
    cp "$f" "$dest/"
    echo "newer-editors: copied ${f##*/} to $dest"
  done
  printf 'newer-editors: %s\n' "${summary[@]}"
  exit "$failed"
fi

die() { echo "newer-editors: $*" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/.." && pwd)
mirror=${GEMINI_LS_MIRROR:-http://deb.debian.org/debian}
suite=${1:-trixie}
# editors: our Neovim plugin's and Emacs package's tests (Helix's in sid);
# acp-clients: third-party ACP clients (codecompanion.nvim in testing's
# Neovim, agent-shell in trixie's Emacs); emacs: the Emacs package's alone
# (trixie's Emacs 30).
tests=${2:-editors}
case $suite/$tests in
  */editors | testing/acp-clients | trixie/acp-clients | trixie/emacs) ;;
  *) die "no $tests tests for $suite: editors (any suite), acp-clients (testing, trixie) or emacs (trixie)" ;;
esac
# The editors, and what the runners use that minbase lacks: tmux for the
# screenshot tests, git as on the host (project.el asks VC; vim.pack clones
# with it), package-lint for the Emacs package's lint.sh. procps for
# looking into a stuck run. curl in trixie for agent-shell: its shell-maker
# refuses every prompt without curl 7.76 or newer; in testing for the
# Neovim plugin's :GeminiInstall, which downloads with it (its time-out
# tests: install_spec.lua, install.sh).
case $suite in
  trixie) packages=(neovim emacs-nox elpa-package-lint tmux git procps curl) ;;
  # Testing rather than sid: only installable packages migrate there.
  # Its Emacs is trixie's 30 with fixes; Neovim is what moves.
  testing) packages=(neovim tmux git procps curl) ;;
  # Helix reached Debian only in sid (the hx package).
  sid) packages=(hx tmux git procps) ;;
  *) die "unknown suite $suite: trixie, testing or sid" ;;
esac
stamp="$suite ${packages[*]}"

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, unshare, chroot); run it as root or with sudo"

cache=${GEMINI_LS_CHROOTS:-$HOME/.cache/gemini-ls}/$suite
mkdir -p "$(dirname "$cache")"
chroot_dir=$(realpath -m "$cache")
partial="$chroot_dir.partial"
marker="$chroot_dir/.gemini-ls-chroot"

# remove DIR: deletes a chroot, but never through a mount: a bind-mounted
# repository inside it would be deleted too.
remove() {
  [ -e "$1" ] || return 0
  local mounted
  mounted=$(awk -v d="$1" '{ p = $5; gsub(/\\040/, " ", p); if (p == d || index(p, d "/") == 1) print p }' /proc/self/mountinfo)
  [ -z "$mounted" ] || die "not removing $1: unmount first: $(tr '\n' ' ' <<<"$mounted")"
  rm -rf "$1"
}

make_chroot() {
  bash "$repo/scripts/debs.sh" debootstrap debian-archive-keyring
  # Whatever is here is incomplete (no marker) or for another package list.
  remove "$partial"
  remove "$chroot_dir"
  echo "newer-editors: making a Debian $suite chroot at $chroot_dir"
  local log=$chroot_dir.debootstrap.log start=$SECONDS
  # In its own mount namespace, so an interrupted debootstrap leaves no
  # /proc mounted in the half-made chroot.
  if ! unshare --mount --propagation private \
      debootstrap --variant=minbase --include="$(IFS=,; echo "${packages[*]}")" \
      "$suite" "$partial" "$mirror" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "debootstrap $suite failed (log: $log)"
  fi
  rm -rf "$partial"/var/cache/apt/archives/*.deb "$partial"/var/lib/apt/lists/*
  # debootstrap ignores a Release file's Valid-Until; apt does not, and a
  # mirror's sid Release may be past it: let apt in the chroot accept it.
  if [ "$suite" = sid ]; then
    echo 'Acquire::Check-Valid-Until "false";' >"$partial/etc/apt/apt.conf.d/99gemini-ls-valid-until"
  fi
  echo "$stamp" >"$partial/.gemini-ls-chroot"
  # Renamed only when complete, so an interrupted debootstrap is never reused.
  mv "$partial" "$chroot_dir"
  echo "newer-editors: chroot made in $((SECONDS - start)) s"
}

# Made or replaced under an exclusive lock; used under a shared one, so runs
# may share the chroot but none replaces it under another.
exec 9>"$chroot_dir.lock"
flock 9
if [ -f "$marker" ] && [ "$(cat "$marker")" = "$stamp" ]; then
  echo "newer-editors: reusing the $suite chroot at $chroot_dir"
else
  make_chroot
fi
flock -s 9

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
echo "newer-editors: building static gemini-ls, fakegemini and fakegithub"
(cd "$repo" && CGO_ENABLED=0 go build -o "$bin/gemini-ls" ./cmd/gemini-ls \
  && CGO_ENABLED=0 go build -o "$bin/fakegemini" ./internal/agent/geminitest/cmd/fakegemini \
  && CGO_ENABLED=0 go build -o "$bin/fakegithub" ./internal/github/githubtest/cmd/fakegithub)
# make langservers' gopls, if there is one.
gopls=${GEMINI_GOPLS:-${XDG_CACHE_HOME:-$HOME/.cache}/gemini-ls/langservers/bin/gopls}
[ ! -x "$gopls" ] || cp "$gopls" "$bin/gopls"

# unshare ignores SIGINT and SIGTERM while its child runs; SIGKILL makes it
# (--kill-child) kill the namespace's first process, and so every process in it.
unshare --mount --propagation private --pid --fork --kill-child \
  bash "$0" --in-namespace "$chroot_dir" "$repo" "$bin" "$suite" "$tests" "$(go env GOROOT)" &
ns=$!
trap 'kill -KILL "$ns" 2>/dev/null; exit 130' INT TERM HUP
status=0
wait "$ns" || status=$?
exit "$status"
