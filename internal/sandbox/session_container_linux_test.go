package sandbox

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// containerSessionFor is a docker session over a fresh workspace, and
// the fake docker's runs.
func containerSessionFor(t *testing.T) (se *Session, root string, runs func() [][]string) {
	t.Helper()
	runs = sandboxtest.FakeDocker(t)
	root = t.TempDir()
	cfg := Config{Command: Docker, Image: "gemini-ls-test-image", Why: "the test"}
	return sessionOf(t, cfg, func() []string { return []string{root} }, t.TempDir()), root, runs
}

// The point of the session: its commands share one `docker run`, whose
// command is the supervisor, mounted read-only, under docker's init,
// with the policy of a container per command.
func TestContainerSessionRunsOneContainer(t *testing.T) {
	se, root, runs := containerSessionFor(t)
	for range 5 {
		mustSh(t, se, root, `true`)
	}
	all := runs()
	if len(all) != 1 {
		t.Fatalf("%d docker runs for 5 commands, want 1: %q", len(all), all)
	}
	self, _ := os.Executable()
	args := all[0]
	for _, want := range [][]string{
		{"--volume", self + ":" + supervisorInContainer + ":ro"},
		{"--volume", root + ":" + root},
		{"--network", "none"},
		{"--env", "SANDBOX=gemini-ls-docker"},
		{"gemini-ls-test-image", supervisorInContainer, SupervisorArg, containerArg},
	} {
		if !containsRun(args, want) {
			t.Errorf("docker %q lacks %q", args, want)
		}
	}
	if !slices.Equal(args[len(args)-4:], []string{"gemini-ls-test-image", supervisorInContainer, SupervisorArg, containerArg}) {
		t.Errorf("docker %q does not end with the image and the supervisor", args)
	}
}

func containsRun(args, run []string) bool {
	for i := range args {
		if i+len(run) <= len(args) && slices.Equal(args[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// gemini-ls gone, its end of the pipe is closed: the supervisor ends,
// and the container with it, killing the command that ran.
func TestContainerSessionEndsWithGeminiLsSideOfThePipe(t *testing.T) {
	se, root, _ := containerSessionFor(t)
	mustSh(t, se, root, `true`)
	b := se.box
	type end struct {
		exit Exit
		err  error
	}
	running := make(chan end, 1)
	go func() {
		_, exit, err := sh(t, context.Background(), se, root, `sleep 100`)
		running <- end{exit, err}
	}()
	time.Sleep(200 * time.Millisecond)
	b.req.Close()
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the container outlived gemini-ls's side of its pipe")
	}
	if err := syscall.Kill(b.cmd.Process.Pid, 0); err == nil {
		t.Errorf("the container's process %d still runs", b.cmd.Process.Pid)
	}
	select {
	case e := <-running:
		if e.err == nil && e.exit.Signal != "SIGKILL" {
			t.Errorf("the command of a container gone ended with %+v", e.exit)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the command of a container gone still runs")
	}
}

// As with --env, a command gets the container's environment and what
// its caller added, not gemini-ls's own.
func TestContainerSessionPassesTheAddedEnvironment(t *testing.T) {
	t.Setenv("GEMINI_LS_HOSTS_OWN", "host")
	se, root, _ := containerSessionFor(t)
	var out bytes.Buffer
	exit, err := se.Run(t.Context(), Command{
		Args: []string{"bash", "-c", `echo "own=${GEMINI_LS_HOSTS_OWN-none} added=$ADDED sandbox=$SANDBOX home=$HOME"`},
		Dir:  root, Env: append(os.Environ(), "ADDED=yes"), Stdout: &out, Stderr: &out,
	})
	if err != nil || exit.Code != 0 {
		t.Fatalf("%v %+v %q", err, exit, out.String())
	}
	if want := "own=none added=yes sandbox=gemini-ls-docker home=/\n"; out.String() != want {
		t.Errorf("the command's environment: %q, want %q", out.String(), want)
	}
}

// What a command leaves in /tmp (and /dev/shm), even a directory it made
// unwritable, is gone before the next command; the workspace mounted
// under /tmp is not touched.
func TestContainerSessionSweepsTmpBetweenCommands(t *testing.T) {
	se, root, _ := containerSessionFor(t)
	if !strings.HasPrefix(root, "/tmp/") {
		t.Logf("the workspace %s is not under /tmp", root)
	}
	mustSh(t, se, root, `echo kept > kept; mkdir -p /tmp/d/e && touch /tmp/d/e/f /tmp/g /dev/shm/h && chmod 500 /tmp/d/e /tmp/d`)
	out := mustSh(t, se, root, `ls -A /tmp/d /tmp/g /dev/shm/h 2>/dev/null | wc -l; cat kept`)
	if out != "0\nkept\n" {
		t.Errorf("after a command that wrote /tmp: %q, want the sweep, and the workspace kept", out)
	}
	if data, err := os.ReadFile(filepath.Join(root, "kept")); err != nil || string(data) != "kept\n" {
		t.Errorf("the workspace's file: %q %v", data, err)
	}
}

// gemini-ls passes itself as the supervisor: a docker sandbox made by New
// then has a session on Linux.
func TestNewGivesContainersASession(t *testing.T) {
	sandboxtest.FakeDocker(t)
	self, _ := os.Executable()
	root := t.TempDir()
	sb, err := New(Config{Command: Podman, Image: "gemini-ls-test-image", Why: "the test", Supervisor: []string{self, SupervisorArg}},
		func() []string { return []string{root} }, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	se := sb.Session()
	if se == nil {
		t.Fatal("a podman sandbox given a supervisor has no session")
	}
	if out := mustSh(t, se, root, `echo "$SANDBOX"`); out != "gemini-ls-podman\n" {
		t.Errorf("podman's session: %q", out)
	}
}
