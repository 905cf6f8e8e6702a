#!/usr/bin/env bash
# Runs README.md's commands on a clean machine: a fresh Debian bookworm
# root holding only what a new user starts from (debootstrap minbase plus
# git, make and ca-certificates), with this machine's Go and Node copied in.
# It clones this repository's HEAD (committed work only) into the root and
# runs COMMAND in the clone, as root with CI=true, then checks that the
# clone's `git status` is still clean. The root is entered as a machine's /
# (pivot_root), not chroot'ed into, so the command may make user namespaces
# as on a contributor's machine: the sandbox tests' bubblewrap needs them.
#
#   editors/clean-machine.sh                        .ci/run: make lint, make test
#   editors/clean-machine.sh make test-nvim test-emacs
#   editors/clean-machine.sh --keep make test-go    keep the root to look in
#
# The pristine root (~40 s to make) is kept at
# ${GEMINI_LS_CHROOTS:-$HOME/.cache/gemini-ls}/clean-bookworm; every run works
# in a copy of it that is deleted afterwards (unless --keep), so each run
# starts clean: every Debian package, Go module, npm package and nested
# chroot the command needs is fetched again. Only the host's way to the
# network comes along: /etc/resolv.conf, the certificate authorities in
# /usr/local/share/ca-certificates, and proxy and registry variables. Apt's sources are those of a
# fresh Debian 12 install: bookworm, bookworm-updates and bookworm-security.
#
# Go comes from `go env GOROOT` (bind-mounted read-only at /usr/local/go).
# Node is copied to the same place: from the prefix it runs from (/usr for
# NodeSource's package, ~/.nvm/versions/node/vX for nvm's) its binary, its
# headers, npm and corepack, and nothing else npm installed there.
#
# The command runs in its own mount and PID namespaces (as in
# newer-editors.sh): its mounts vanish and its processes end with it.
# Needs root (debootstrap, unshare, pivot_root). Exit status: the command's, or 1
# if it passed but left the clone dirty.
set -euo pipefail

die() { echo "clean-machine: $*" >&2; exit 1; }

# Inside the namespaces (see the end of the file): mount, enter, run, check.
if [ "${1:-}" = --in-namespace ]; then
  c=$2 node_bin=$3 goroot=$4; shift 4
  # The fresh root becomes this mount namespace's / by pivot_root, as a
  # machine's / is, not by chroot: the kernel lets no chrooted process make
  # a user namespace, and the sandbox tests' bubblewrap makes one, as it
  # does on a contributor's machine. pivot_root needs the new root to be a
  # mount point (and so does unshare --propagation, in newer-editors.sh);
  # --rbind keeps what is mounted under it.
  mount --rbind "$c" "$c"
  mount -t proc proc "$c/proc"
  mount --bind /dev "$c/dev"
  mount --bind /dev/pts "$c/dev/pts"
  mount -t tmpfs -o mode=1777 tmpfs "$c/dev/shm" # Chromium's shared memory
  mount -t sysfs -o ro sysfs "$c/sys"
  mkdir -p "$c/usr/local/go"
  mount --bind -o ro "$goroot" "$c/usr/local/go"
  path=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  case ":$path:" in *":$node_bin:"*) ;; *) path=$node_bin:$path ;; esac
  # How the host reaches the network (proxies, registries, Node's extra CA
  # file), if it was told.
  pass=()
  for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY GOPROXY npm_config_registry NODE_EXTRA_CA_CERTS; do
    [ -n "${!v:-}" ] && pass+=("$v=${!v}")
  done
  # The host's tree is detached once the fresh root is /: from here on every
  # program run is the fresh root's.
  old=$(basename "$(mktemp -d "$c/.host-root.XXXXXX")")
  cd "$c"
  pivot_root . "$old"
  cd /
  umount -l "/$old"
  rmdir "/$old"
  set +e
  /usr/bin/env -i PATH="$path" HOME=/root LANG=C.UTF-8 TERM=xterm-256color CI=true "${pass[@]}" \
    bash -c 'cd /root/gemini-ls && exec "$@"' bash "$@"
  status=$?
  set -e
  dirty=$(/usr/bin/env -i PATH="$path" HOME=/root git -C /root/gemini-ls status --porcelain --ignored=no)
  if [ -n "$dirty" ]; then
    echo "clean-machine: the command left the clone dirty:" >&2
    echo "$dirty" >&2
    [ "$status" = 0 ] && status=1
  fi
  exit "$status"
fi

keep=
if [ "${1:-}" = --keep ]; then keep=1; shift; fi
[ $# -gt 0 ] || set -- .ci/run
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, unshare, pivot_root); run it as root or with sudo"
repo=$(cd "$(dirname "$0")/.." && pwd)
mirror=${GEMINI_LS_MIRROR:-http://deb.debian.org/debian}
security=${GEMINI_LS_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
goroot=$(go env GOROOT) || die "needs Go on PATH"
node=$(command -v node) || die "needs Node on PATH"
node=$(realpath "$node")

cache=${GEMINI_LS_CHROOTS:-$HOME/.cache/gemini-ls}
mkdir -p "$cache"
base=$(realpath -m "$cache/clean-bookworm")
packages=(git make ca-certificates)
stamp="bookworm ${packages[*]}"

# Made under an exclusive lock, copied under a shared one.
exec 9>"$base.lock"
flock 9
if [ ! -f "$base/.gemini-ls-chroot" ] || [ "$(cat "$base/.gemini-ls-chroot")" != "$stamp" ]; then
  bash "$repo/scripts/debs.sh" debootstrap debian-archive-keyring ||
    die "could not install debootstrap (apt-get install debootstrap)"
  rm -rf "$base" "$base.partial"
  echo "clean-machine: making a Debian bookworm root at $base"
  start=$SECONDS
  if ! unshare --mount --propagation private \
      debootstrap --variant=minbase --include="$(IFS=,; echo "${packages[*]}")" \
      bookworm "$base.partial" "$mirror" >"$base.debootstrap.log" 2>&1; then
    tail -n 30 "$base.debootstrap.log" >&2
    die "debootstrap failed (log: $base.debootstrap.log)"
  fi
  cat >"$base.partial/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
  rm -rf "$base.partial"/var/cache/apt/archives/*.deb "$base.partial"/var/lib/apt/lists/*
  echo "$stamp" >"$base.partial/.gemini-ls-chroot"
  mv "$base.partial" "$base"
  echo "clean-machine: root made in $((SECONDS - start)) s"
fi
flock -s 9

work=$(mktemp -d "$cache/clean-run.XXXXXX")
cleanup() {
  # Never through a mount: the namespace's mounts are gone once it ended.
  if [ -z "$keep" ]; then rm -rf "$work"; else echo "clean-machine: kept $work/root"; fi
}
trap cleanup EXIT
c=$work/root
echo "clean-machine: copying the root to $c"
cp -a "$base" "$c"
# Copied: another run may remake the pristine root from here on (it waited
# for this copy, not for this whole run).
exec 9>&-
# The network as the host sees it: its resolver, and the certificate
# authorities it added (a TLS-inspecting proxy's, say).
cp /etc/resolv.conf "$c/etc/resolv.conf"
# debootstrap writes no /etc/hosts; the Debian installer writes this one.
[ -e "$c/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$c/etc/hosts"
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$c/usr/local/share/ca-certificates/"
  chroot "$c" update-ca-certificates >/dev/null 2>&1 || die "update-ca-certificates failed in the fresh root"
fi

bin=$(dirname "$node")
prefix=$(dirname "$bin")
echo "clean-machine: copying Node $("$node" --version) from $prefix"
parts=("${bin#/}/node" "${prefix#/}/include/node" "${prefix#/}/lib/node_modules/npm")
for tool in npm npx corepack; do
  [ -L "$bin/$tool" ] && parts+=("${bin#/}/$tool")
done
[ -d "$prefix/lib/node_modules/corepack" ] && parts+=("${prefix#/}/lib/node_modules/corepack")
tar -C / -cf - "${parts[@]}" | tar -C "$c" -xf -

git clone -q "$repo" "$c/root/gemini-ls"
echo "clean-machine: $(git -C "$c/root/gemini-ls" log -1 --format='%h %s' | cut -c1-80)"
echo "clean-machine: running $* in the clone"
start=$SECONDS
# unshare ignores SIGINT and SIGTERM while its child runs; SIGKILL makes it
# (--kill-child) kill the namespace's first process, and so every process in it.
unshare --mount --propagation private --pid --fork --kill-child \
  bash "$0" --in-namespace "$c" "$bin" "$goroot" "$@" &
ns=$!
trap 'kill -KILL "$ns" 2>/dev/null; wait "$ns"; exit 130' INT TERM HUP
status=0
wait "$ns" || status=$?
echo "clean-machine: $* exited $status after $((SECONDS - start)) s"
exit "$status"
