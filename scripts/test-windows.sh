#!/usr/bin/env bash
# Runs the Windows build's tests under Wine (issue 57): every package's test
# binary, cross-built for windows/amd64, runs under Debian trixie's Wine 10 in
# a chroot, from its package directory (Wine's Z: drive is the chroot's /, the
# repository bind-mounted at /repo), with the environment a Windows user has:
# USERPROFILE, APPDATA, ComSpec and the rest from Wine, no HOME.
#
#   scripts/test-windows.sh                   every package
#   scripts/test-windows.sh ./internal/tools  some packages
#   TEST_WINDOWS_LOGS=dir scripts/...          keep each package's output there
#   TEST_WINDOWS_RUN=regexp scripts/...        only the tests it matches
#
# The end-to-end package runs against a gemini-ls.exe built here
# (GEMINI_LS_TEST_BINARY); only its tests named in windowsE2E run, since the
# rest drive Unix editors and tools (the editors' tests stay Linux-only).
#
# Prints one line per package (passed, skipped, failed) and every skip's
# reason, then the totals. Exit status 1 if any test failed or any test
# binary did not end cleanly.
#
# The chroot (debootstrap minbase and wine64, no i386) is kept at
# ${GEMINI_LS_CHROOTS:-$HOME/.cache/gemini-ls}/trixie-wine with a Wine prefix
# made once in it. Needs root (debootstrap, unshare, chroot).
set -euo pipefail

windowsE2E='^TestWindows'

if [ "${1:-}" = --in-namespace ]; then
  c=$2 repo=$3 bin=$4; shift 4
  mount -t proc proc "$c/proc"
  mount --bind /dev "$c/dev"
  mount --bind /dev/pts "$c/dev/pts"
  mount -t tmpfs -o mode=1777 tmpfs "$c/tmp"
  mkdir -p "$c/repo" "$c/tmp/bin" "$c/tmp/out"
  mount --bind "$repo" "$c/repo"
  cp -r "$bin"/. "$c/tmp/bin/"
  # A prefix of this run's own: runs may share the chroot, and a Wine
  # prefix is written by its wineserver.
  cp -a "$c/opt/wineprefix" "$c/tmp/wineprefix"
  # Wine's processes see the Unix environment too: no HOME in it, as on
  # Windows, and a writable TMP of Windows's own. No CI either: under CI a
  # test fails when a program it runs is missing (git, bash, node), since
  # CI installs them; this Windows has none of them by its nature, so such
  # a test is skipped here, by name, as on a contributor's machine (the
  # Windows runner of .github/workflows/ci.yml has them, and CI set).
  run_wine() {
    chroot "$c" /usr/bin/env -i PATH=/usr/bin:/bin WINEPREFIX=/tmp/wineprefix \
      WINEDEBUG=-all LANG=C.UTF-8 \
      GEMINI_LS_TEST_BINARY='Z:\tmp\bin\gemini-ls.exe' \
      "$@"
  }
  # run_package NAME DIR runs one test binary from its package directory.
  run_package() {
    local name=$1 dir=$2 start=$SECONDS rc args=(-test.v -test.timeout 15m)
    if [ -n "${TEST_WINDOWS_RUN:-}" ]; then
      args+=(-test.run "$TEST_WINDOWS_RUN")
    elif [ "$name" = cmd_gemini-ls_e2e ]; then
      args+=(-test.run "$windowsE2E")
    fi
    set +e
    run_wine sh -c 'cd "$1" && shift && exec timeout -k 10 1000 wine "$@"' _ "/repo/$dir" "/tmp/bin/$name.test.exe" "${args[@]}" \
      >"$c/tmp/out/$name.log" 2>&1
    rc=$?
    set -e
    echo "$rc $((SECONDS - start))" >"$c/tmp/out/$name.rc"
    cp "$c/tmp/out/$name.log" "$c/tmp/out/$name.rc" "$bin/out/"
  }
  # As many at a time as there are processors, the largest binaries (the
  # most tests) first, so that no long one starts last.
  jobs_max=$(nproc)
  while read -r _ name dir; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
    run_package "$name" "$dir" &
  done < <(while read -r name dir; do echo "$(stat -c %s "$bin/$name.test.exe") $name $dir"; done <"$bin/packages" | sort -rn)
  wait
  run_wine wineserver -k 2>/dev/null || true
  exit 0
fi

die() { echo "test-windows: $*" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/.." && pwd)
mirror=${GEMINI_LS_MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, unshare, chroot); run it as root or with sudo"

packages=(wine wine64 ca-certificates)
stamp="trixie-wine ${packages[*]} prefix"
cache=${GEMINI_LS_CHROOTS:-$HOME/.cache/gemini-ls}/trixie-wine
mkdir -p "$(dirname "$cache")"
chroot_dir=$(realpath -m "$cache")
partial="$chroot_dir.partial"

make_chroot() {
  bash "$repo/scripts/debs.sh" debootstrap debian-archive-keyring
  rm -rf "$partial" "$chroot_dir"
  echo "test-windows: making a Debian trixie chroot with Wine at $chroot_dir"
  local log=$chroot_dir.debootstrap.log start=$SECONDS
  if ! unshare --mount --propagation private \
      debootstrap --variant=minbase --include="$(IFS=,; echo "${packages[*]}")" \
      trixie "$partial" "$mirror" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "debootstrap trixie failed (log: $log)"
  fi
  rm -rf "$partial"/var/cache/apt/archives/*.deb "$partial"/var/lib/apt/lists/*
  # Go's tests listen on localhost; minbase's /etc/hosts lacks it.
  grep -q '^127.0.0.1[[:space:]]\+localhost' "$partial/etc/hosts" 2>/dev/null ||
    echo '127.0.0.1 localhost' >>"$partial/etc/hosts"
  # The Wine prefix, made once (wineboot takes half a minute).
  unshare --mount --propagation private sh -c '
    mount -t proc proc "$1/proc" && mount --bind /dev "$1/dev" &&
    chroot "$1" /usr/bin/env -i PATH=/usr/bin:/bin WINEPREFIX=/opt/wineprefix WINEDEBUG=-all \
      sh -c "wineboot --init && wineserver -w"' _ "$partial" >>"$log" 2>&1 ||
    { tail -n 30 "$log" >&2; die "wineboot failed (log: $log)"; }
  echo "$stamp" >"$partial/.gemini-ls-chroot"
  mv "$partial" "$chroot_dir"
  echo "test-windows: chroot made in $((SECONDS - start)) s"
}

# Made or replaced under an exclusive lock, used under a shared one, so
# runs share the chroot at once. The marker is written last, under the
# exclusive lock, so a run that finds it finds a whole chroot.
exec 9>"$chroot_dir.lock"
ready() { [ -f "$chroot_dir/.gemini-ls-chroot" ] && [ "$(cat "$chroot_dir/.gemini-ls-chroot")" = "$stamp" ]; }
flock -s 9
if ready; then
  echo "test-windows: reusing the chroot at $chroot_dir"
else
  flock -u 9
  flock 9
  ready || make_chroot
  flock -s 9
fi

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
mkdir -p "$bin/out"
[ $# -gt 0 ] || set -- ./...
start=$SECONDS
cd "$repo"
export GOOS=windows GOARCH=amd64 CGO_ENABLED=0
go build -o "$bin/gemini-ls.exe" ./cmd/gemini-ls
: >"$bin/packages"
while read -r pkg dir; do
  [ -n "$pkg" ] || continue
  name=${pkg#github.com/gemini-ls/gemini-ls}
  name=${name#/}
  name=${name:-root}
  name=${name//\//_}
  rel=${dir#"$repo"}
  rel=${rel#/}
  rel=${rel:-.}
  if go test -c -o "$bin/$name.test.exe" "$pkg"; then
    echo "$name $rel" >>"$bin/packages"
  else
    echo "$rel" >>"$bin/uncompiled"
  fi
done < <(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' "$@")
unset GOOS GOARCH
echo "test-windows: built $(wc -l <"$bin/packages") test binaries in $((SECONDS - start)) s"

unshare --mount --propagation private --pid --fork --kill-child \
  bash "$0" --in-namespace "$chroot_dir" "$repo" "$bin" &
ns=$!
trap 'kill -KILL "$ns" 2>/dev/null; rm -rf "$bin"; exit 130' INT TERM HUP
wait "$ns" || true

if [ -n "${TEST_WINDOWS_LOGS:-}" ]; then
  mkdir -p "$TEST_WINDOWS_LOGS" && cp "$bin"/out/* "$TEST_WINDOWS_LOGS"/
fi

# The summary: a test binary that exited non-zero with no failing test in
# its output (a crash, a timeout) is a failure too.
total_pass=0 total_skip=0 total_fail=0 broken=0
while read -r name dir; do
  log=$bin/out/$name.log
  read -r rc secs <"$bin/out/$name.rc" 2>/dev/null || { rc=none secs=0; }
  p=$(grep -cE '^\s*--- PASS' "$log" || true)
  s=$(grep -cE '^\s*--- SKIP' "$log" || true)
  f=$(grep -cE '^\s*--- FAIL' "$log" || true)
  total_pass=$((total_pass + p)) total_skip=$((total_skip + s)) total_fail=$((total_fail + f))
  note=
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    broken=$((broken + 1))
    note=" (exit $rc with no failing test: see below)"
  fi
  printf 'test-windows: %-40s %4d passed %3d skipped %3d failed  %4d s%s\n' "$dir" "$p" "$s" "$f" "$secs" "$note"
  if [ "$f" != 0 ] || [ -n "$note" ]; then
    # Each failed test with what it said: go test -v prints a test's
    # messages before its --- FAIL line, under the last === RUN, CONT or
    # NAME naming it.
    awk '/^=== (RUN|CONT|NAME)/ { cur = $3; next }
         /^[[:space:]]*--- FAIL/ { print "    fail " $3; n = split(said[$3], l, "\n"); for (i = 1; i < n && i <= 20; i++) print "      " l[i]; next }
         /^[[:space:]]*--- / { next }
         { if (cur != "") said[cur] = said[cur] $0 "\n" }' "$log"
    # head may close the pipe early: not a failure of the summary.
    { grep -E -A15 '^panic:|timed out' "$log" || true; } | head -60 | sed 's/^/    /' || true
    [ "$f" != 0 ] || tail -20 "$log" | sed 's/^/    /'
    grep -E '^\s*--- FAIL' "$log" | sed "s|^ *--- FAIL: \([^ ]*\).*|$dir \1|" >>"$bin/failed" || true
  fi
  # Every skip with its reason: the line t.Skip printed, just before.
  # go test -v names the test whose output follows (=== RUN, CONT,
  # NAME) when parallel tests interleave.
  awk '/^=== (RUN|CONT|NAME)/ { cur = $3; next }
       /^[[:space:]]*--- SKIP/ { print "    skip " $3 ": " last[$3]; next }
       /^[[:space:]]*--- / { next }
       { l = $0; sub(/^[[:space:]]+/, "", l); if (cur != "") last[cur] = l }' "$log"
done <"$bin/packages"
if [ -s "$bin/uncompiled" ]; then
  broken=$((broken + $(wc -l <"$bin/uncompiled")))
  sed 's/^/test-windows: does not compile for Windows: /' "$bin/uncompiled"
fi
# The failed tests again, last: a CI log's tail names them.
[ ! -s "$bin/failed" ] || sed 's/^/test-windows: failed: /' "$bin/failed"
echo "test-windows: $total_pass passed, $total_skip skipped, $total_fail failed, $broken test binaries broken, in $((SECONDS - start)) s"
[ "$total_fail" = 0 ] && [ "$broken" = 0 ]
