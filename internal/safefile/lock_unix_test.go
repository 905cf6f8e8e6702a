//go:build unix

package safefile

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A second LockDir of the directory, from the same process, waits for the
// first to unlock.
func TestLockDirExcludes(t *testing.T) {
	dir := t.TempDir()
	unlock, err := LockDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := LockDir(ctx, dir); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("LockDir of a locked directory = %v, want it to wait until ctx ends", err)
	}
	unlock()
	again, err := LockDir(t.Context(), dir)
	if err != nil {
		t.Fatalf("LockDir after unlock: %v", err)
	}
	again()
}
