package geminils

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// cleanMachineRoot runs command the way editors/clean-machine.sh runs it in
// its fresh root, but in a root made in a second rather than by debootstrap:
// this machine's / under a throwaway overlay, with an empty /root holding a
// one-commit clone at /root/gemini-ls, and a Go root holding only a file
// named MARKER. It returns the script's exit status and standard error.
func cleanMachineRoot(t *testing.T, command ...string) (int, string) {
	t.Helper()
	platformtest.Linux(t, "editors/clean-machine.sh makes a Debian root with unshare, overlayfs and pivot_root")
	script, err := filepath.Abs("editors/clean-machine.sh")
	if err != nil {
		t.Fatal(err)
	}
	// In the script's own namespaces (a private mount namespace, a PID
	// namespace): the overlay and every mount under it vanish with them.
	setup := `set -euo pipefail
d=$1 script=$2; shift 2
mount -t tmpfs tmpfs "$d"
mkdir "$d/upper" "$d/work" "$d/root" "$d/go"
: >"$d/go/MARKER"
mount -t overlay overlay -o lowerdir=/,upperdir="$d/upper",workdir="$d/work" "$d/root"
mount -t tmpfs tmpfs "$d/root/root"
git init -q "$d/root/root/gemini-ls"
git -C "$d/root/root/gemini-ls" -c user.name=t -c user.email=t@t commit -q --allow-empty -m first
exec bash "$script" --in-namespace "$d/root" /usr/bin "$d/go" "$@"
`
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--mount", "--propagation", "private", "--pid", "--fork", "--kill-child",
		"bash", "-c", setup, "bash", t.TempDir(), script}, command...)
	cmd := exec.CommandContext(ctx, "unshare", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &exit) && ctx.Err() == nil:
		return exit.ExitCode(), stderr.String()
	default:
		t.Fatalf("running editors/clean-machine.sh's fresh root (it needs root, as make test does): %v\n%s", err, stderr.String())
		return 0, ""
	}
}

// editors/clean-machine.sh makes its fresh root the command's / as a
// machine's is (pivot_root), so the command may make a user namespace, as
// the sandbox tests' bubblewrap does on a contributor's machine: in a
// chroot the kernel refuses one. The command runs in the clone, with
// CI=true, Go's root read-only at /usr/local/go, and nothing of the host's
// mounts left.
func TestCleanMachineRunsCommandAsOnAMachine(t *testing.T) {
	// The script sets CI=true itself, whatever runs it.
	t.Setenv("CI", "no")
	check := `set -u
unshare --user --map-root-user true || { echo "no user namespace" >&2; exit 10; }
[ "$CI" = true ] || { echo "CI=$CI" >&2; exit 11; }
[ "$PWD" = /root/gemini-ls ] || { echo "in $PWD" >&2; exit 12; }
[ -e /usr/local/go/MARKER ] || { echo "no Go root" >&2; exit 13; }
! touch /usr/local/go/written 2>/dev/null || { echo "Go root writable" >&2; exit 14; }
[ "$(awk '$5 == "/" { print $5 }' /proc/self/mountinfo)" = / ] || { echo "/ is no mount point" >&2; exit 15; }
[ "$(wc -l </proc/self/mountinfo)" -le 8 ] || { echo "host mounts left:" >&2; cat /proc/self/mountinfo >&2; exit 16; }
exit 0`
	if status, stderr := cleanMachineRoot(t, "bash", "-c", check); status != 0 {
		t.Errorf("the command in the fresh root exited %d:\n%s", status, stderr)
	}
}

// The script exits with the command's status, and with 1 when a command
// that passed left the clone dirty, naming what it left.
func TestCleanMachineStatus(t *testing.T) {
	if status, stderr := cleanMachineRoot(t, "bash", "-c", "exit 3"); status != 3 {
		t.Errorf("a command exiting 3: the script exited %d, want 3\n%s", status, stderr)
	}
	status, stderr := cleanMachineRoot(t, "touch", "left-behind")
	if status != 1 || !strings.Contains(stderr, "left the clone dirty") || !strings.Contains(stderr, "left-behind") {
		t.Errorf("a command leaving a file in the clone: the script exited %d, want 1 and the file named\n%s", status, stderr)
	}
}
