// Package spawntest tells a test whether processes a command started
// are gone: the command writes a child's pid ($!) to a file, the test
// reads it (PID) and waits for the process to end (WaitGone).
package spawntest

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// patience bounds every wait here: far longer than a kill takes on a
// loaded machine, short enough that a leak fails the test rather than
// hanging it.
const patience = 20 * time.Second

// PID waits for file to hold a process id and returns it.
func PID(t testing.TB, file string) int {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		data, _ := os.ReadFile(file)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no process id in %s after %s: %q", file, patience, data)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// WaitGone waits until process pid has ended, failing t if it outlives the
// deadline (and then killing it, so that the test leaves nothing behind).
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for Alive(pid) {
		if time.Now().After(deadline) {
			Kill(pid)
			t.Fatalf("process %d still runs %s later", pid, patience)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
