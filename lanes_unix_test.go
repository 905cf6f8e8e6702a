//go:build unix

package geminils

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

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
