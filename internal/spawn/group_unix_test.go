//go:build unix

package spawn_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/spawn/spawntest"
)

// backgrounding is a shell that leaves a child holding its stdout and
// exits, the child's pid written to pidFile.
func backgrounding(ctx context.Context, pidFile string) *spawn.Cmd {
	return spawn.Command(ctx, testHelper, "sh", "-c", `sleep 300 & echo $! > "$1"`, "sh", pidFile)
}

// TestKillEndsWhatTheCommandLeft: a command that exited leaving a child
// holding its output ends in spawn.ErrWaitDelay; the child is in its group,
// and Kill ends it.
func TestKillEndsWhatTheCommandLeft(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	cmd := backgrounding(context.Background(), pidFile)
	cmd.Stdout = new(discard)
	cmd.WaitDelay = 100 * time.Millisecond
	if err := cmd.Run(); !errors.Is(err, spawn.ErrWaitDelay) {
		t.Fatalf("Run = %v, want %v", err, spawn.ErrWaitDelay)
	}
	child := spawntest.PID(t, pidFile)
	if members := cmd.Members(); !slices.Contains(members, strconv.Itoa(child)) {
		t.Errorf("Members = %v, want the child %d among them", members, child)
	}
	if err := cmd.Kill(); err != nil {
		t.Fatal(err)
	}
	spawntest.WaitGone(t, child)
	if err := cmd.Kill(); err != nil {
		t.Errorf("killing an empty group: %v", err)
	}
	if members := cmd.Members(); members != nil {
		t.Errorf("Members of an empty group = %v", members)
	}
}

// TestCancelKillsTheGroup: the end of the command's context kills it and
// its children at once.
func TestCancelKillsTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := spawn.Command(ctx, testHelper, "sh", "-c", `sleep 300 & echo $! > "$1"; wait`, "sh", pidFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child := spawntest.PID(t, pidFile)
	cancel()
	if err := cmd.Wait(); err == nil {
		t.Error("a cancelled command succeeded")
	}
	spawntest.WaitGone(t, child)
}

func TestKillOfACommandNeverStarted(t *testing.T) {
	cmd := spawn.Command(context.Background(), testHelper, filepath.Join(t.TempDir(), "missing"))
	if err := cmd.Run(); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Run = %v, want not found", err)
	}
	if err := cmd.Kill(); err != nil {
		t.Errorf("Kill = %v", err)
	}
}

// discard is a Writer that is not an *os.File, so that exec copies the
// output through a pipe and waits for it.
type discard struct{}

func (*discard) Write(p []byte) (int, error) { return len(p), nil }
