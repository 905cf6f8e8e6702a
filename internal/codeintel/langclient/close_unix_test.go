//go:build unix

package langclient

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
)

// TestCloseEndsServers: Close shuts a server down, or kills one that
// does not exit; either way its process is gone when Close returns.
func TestCloseEndsServers(t *testing.T) {
	for _, mode := range []string{fakeOK, fakeStubborn} {
		t.Run(mode, func(t *testing.T) {
			root, file, log := fakeProject(t, mode)
			m := fakeManager(t, root)
			m.closeWait = 10 * time.Millisecond
			if _, err := m.Ask(context.Background(), request(codeintel.Hover, file, "one\n")); err != nil {
				t.Fatal(err)
			}
			var pids []int
			for _, sl := range m.servers {
				pids = append(pids, sl.srv.cmd.Process.Pid)
			}
			if len(pids) != 1 {
				t.Fatalf("%d servers running, want 1", len(pids))
			}
			if err := m.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(pids[0], 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("the server's process %d after Close: kill 0 = %v, want ESRCH", pids[0], err)
			}
			if got := received(t, log); !slices.Contains(got, "shutdown") {
				t.Errorf("the server received %v, want shutdown", got)
			}
		})
	}
}

// TestCloseWhileStarting: Close does not wait for a server that never
// finishes its handshake; its process is gone when Close returns.
func TestCloseWhileStarting(t *testing.T) {
	root, file, log := fakeProject(t, fakeMute)
	m := fakeManager(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := m.Ask(ctx, request(codeintel.Hover, file, "one\n")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Ask = %v, want the context's end", err)
	}
	pid := loggedPID(t, log)
	if err := m.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the starting server's process %d after Close: kill 0 = %v, want ESRCH", pid, err)
	}
}

// loggedPID waits for the fake to log its pid, which a loaded machine may
// take a while to start doing: the server is still starting, never
// answering, so it is there to be seen.
func loggedPID(t *testing.T, log string) int {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(log)
		for _, line := range strings.Split(string(data), "\n") {
			if n, ok := strings.CutPrefix(line, "pid "); ok {
				if pid, err := strconv.Atoi(strings.TrimSpace(n)); err == nil {
					return pid
				}
			}
		}
	}
	t.Fatal("the fake logged no pid in 30 s")
	return 0
}
