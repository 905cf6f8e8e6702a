package sandboxtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// RootlessUser is the unprivileged user, with subordinate ids, that runs
// the tests' rootless podman. `make test-go` creates it.
const RootlessUser = "gemini-ls-rootless"

// Rootless is a rootless podman readied for a test, run by RootlessUser.
type Rootless struct {
	// Dir is the test's directory, the user's, which everyone may read:
	// what the user's processes run, read and write goes there.
	Dir string
	// Image is the test image (Podman's), in the user's own store.
	Image string
	// Env is what a process of the user's needs to run podman: PATH,
	// HOME (a home of its own in Dir), XDG_RUNTIME_DIR and, on a machine
	// like CI's, CONTAINERS_CONF.
	Env []string
	// UID and GID are the user's.
	UID, GID int
}

// RootlessPodman readies podman, run by RootlessUser, as most users run
// it: in the user's own user namespace. The test must run as root (to
// act as the user); outside CI it is skipped where it cannot run.
func RootlessPodman(t *testing.T) *Rootless {
	t.Helper()
	if os.Getuid() != 0 {
		need(t, fmt.Errorf("the test runs as root, to run podman as %s", RootlessUser))
	}
	uid, gid := lookupRootlessUser(t)
	path := RealPath()
	t.Setenv("PATH", path)
	for _, tool := range []string{"podman", "newuidmap"} {
		if _, err := exec.LookPath(tool); err != nil {
			need(t, fmt.Errorf("rootless podman needs %s (apt-get install podman uidmap): %w", tool, err))
		}
	}
	r := newRootlessDir(t, uid, gid)
	home, runtime := filepath.Join(r.Dir, "home"), filepath.Join(r.Dir, "run")
	r.Env = []string{"PATH=" + path, "HOME=" + home, "XDG_RUNTIME_DIR=" + runtime, "USER=" + RootlessUser, "LOGNAME=" + RootlessUser}
	run := podmanRunner(func(args ...string) *exec.Cmd { return r.Command(t, "podman", args...) })
	// podman warns on stderr where / is not a shared mount (CI's), which
	// containers without mounts of their own do not mind.
	if out, err := r.Command(t, "podman", "info", "--format", "{{.Host.Security.Rootless}}").Output(); err != nil || strings.TrimSpace(string(out)) != "true" {
		need(t, fmt.Errorf("podman does not run rootless as %s: %v\n%s", RootlessUser, err, out))
	}
	var err error
	if r.Image, err = testImage(run); err != nil {
		need(t, err)
	}
	// The sandbox's containers have no network unless allowed, so the
	// probe needs none (rootless, slirp4netns or pasta would give one).
	// The workarounds go where the user can read them.
	firstContainer(t, "rootless podman", run, filepath.Join(r.Dir, "conf"), func(conf string) {
		r.Env = append(r.Env, "CONTAINERS_CONF="+conf)
	}, "run", "--rm", "--network", "none", r.Image, "true")
	return r
}

// Command is name run as the user, with Env, failing t if it has not
// ended within CommandTimeout.
func (r *Rootless) Command(t *testing.T, name string, args ...string) *exec.Cmd {
	cmd := boundedCommand(t, CommandTimeout, name, args...)
	cmd.Env = r.Env
	cmd.Dir = r.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(r.UID), Gid: uint32(r.GID)}}
	return cmd
}

// Chown gives path, and all it holds, to the user.
func (r *Rootless) Chown(t *testing.T, path string) {
	t.Helper()
	err := filepath.WalkDir(path, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, r.UID, r.GID)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// lookupRootlessUser is RootlessUser's ids.
func lookupRootlessUser(t *testing.T) (uid, gid int) {
	t.Helper()
	u, err := user.Lookup(RootlessUser)
	if err != nil {
		need(t, fmt.Errorf("the test runs podman as the user %s, with subordinate ids (make test-go creates it): %w", RootlessUser, err))
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s's ids: %q, %q", RootlessUser, u.Uid, u.Gid)
	}
	return uid, gid
}

// newRootlessDir makes the test's directory, Rootless.Dir, with a home
// and a runtime directory for the user, and removes it after the test
// with what rootless podman left running there.
func newRootlessDir(t *testing.T, uid, gid int) *Rootless {
	t.Helper()
	dir, err := os.MkdirTemp("", "gemini-ls-rootless-")
	if err != nil {
		t.Fatal(err)
	}
	r := &Rootless{Dir: dir, UID: uid, GID: gid}
	home, runtime := filepath.Join(dir, "home"), filepath.Join(dir, "run")
	for _, d := range []string{home, runtime} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.Chown(t, dir)
	t.Cleanup(func() {
		// Rootless podman keeps the user's namespace open with a pause
		// process, which would outlive the test.
		if pid, err := os.ReadFile(filepath.Join(runtime, "libpod", "tmp", "pause.pid")); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err == nil {
				syscall.Kill(n, syscall.SIGKILL)
			}
		}
		os.RemoveAll(dir)
	})
	return r
}
