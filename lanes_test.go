package geminils

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// lanesCommand is scripts/lanes.sh running lanes in dir.
func lanesCommand(t *testing.T, dir string, lanes ...string) *exec.Cmd {
	t.Helper()
	platformtest.Tool(t, "bash")
	script, err := filepath.Abs("scripts/lanes.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "bash", append([]string{script}, lanes...)...)
	cmd.Dir = dir
	return cmd
}

// scripts/lanes.sh, which make test-editors runs the editors' suites
// with, runs its lanes at once (lane 1 waits for a file lane 2 makes),
// prints lane 2's output whole after lane 1's, and fails when a lane
// fails, having let the other finish.
func TestLanesRunAtOnceAndFailWhenOneDoes(t *testing.T) {
	dir := t.TempDir()
	lanes := func(lane1, lane2 string) (string, error) {
		out, err := lanesCommand(t, dir, lane1, lane2).CombinedOutput()
		return string(out), err
	}

	// Each lane waits (10 s at most) for a file the other makes, lane 2
	// only once lane 1's is there: one after the other, in either order,
	// they would fail.
	waitFor := func(f string) string {
		return "for i in $(seq 100); do [ -e " + f + " ] && break; sleep 0.1; done; [ -e " + f + " ]"
	}
	out, err := lanes("touch one && "+waitFor("two")+" && echo one-saw-two",
		waitFor("one")+" && echo two-first && touch two && echo two-last")
	if err != nil {
		t.Fatalf("two lanes that pass: %v\n%s", err, out)
	}
	one, two := strings.Index(out, "\none-saw-two\n"), strings.Index(out, "\ntwo-first\ntwo-last\n")
	if one < 0 || two < one {
		t.Errorf("lane 2's output is not whole after lane 1's:\n%s", out)
	}

	out, err = lanes("exit 4", "sleep 0.5; echo two-ended")
	if err == nil || !strings.Contains(out, "two-ended") || !strings.Contains(out, "'exit 4': exit status 4") {
		t.Errorf("lane 1 failing: %v\n%s", err, out)
	}
	out, err = lanes("echo one", "echo two; exit 3")
	if err == nil || !strings.Contains(out, "'echo two; exit 3': exit status 3") {
		t.Errorf("lane 2 failing: %v\n%s", err, out)
	}
}

// Ended by SIGTERM (a CI run's timeout, say), lanes.sh ends each lane's
// command too, lane 1's among them, which runs in the foreground of no
// one: none is left running.
func TestLanesEndWithTheirScript(t *testing.T) {
	dir := t.TempDir()
	lane := func(n string) string { return "echo $$ > " + n + ".pid; exec sleep 300" }
	cmd := lanesCommand(t, dir, lane("one"), lane("two"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := map[string]int{}
	for deadline := time.Now().Add(10 * time.Second); len(pids) < 2 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, n := range []string{"one", "two"} {
			if b, err := os.ReadFile(filepath.Join(dir, n+".pid")); err == nil && strings.HasSuffix(string(b), "\n") {
				pids[n], _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
		}
	}
	if len(pids) < 2 {
		t.Fatalf("the lanes did not start: %v", pids)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err == nil {
			t.Error("lanes.sh ended by SIGTERM exited 0")
		}
	case <-time.After(5 * time.Second):
		t.Error("lanes.sh still runs 5 s after SIGTERM")
	}
	for n, pid := range pids {
		gone := false
		for deadline := time.Now().Add(5 * time.Second); !gone && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			gone = syscall.Kill(pid, 0) != nil
		}
		if !gone {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("lane %s's command (pid %d) still runs after lanes.sh ended", n, pid)
		}
	}
}
