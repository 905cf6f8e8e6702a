//go:build unix

// Package fifotest plants named pipes where configuration files belong
// and runs loaders against them with a deadline: opening a FIFO to read
// waits for a writer, so a loader that opens one hangs, and the test must
// fail instead of hanging with it.
package fifotest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// deadline bounds a loader that should return at once; far beyond what a
// loaded machine needs, it only turns a hang into a failure.
const deadline = 30 * time.Second

// Make creates a FIFO at path, and the directories above it. When the
// test ends it opens the FIFO for writing, without blocking, so that a
// loader left waiting on it (the test failed) is let go.
func Make(t testing.TB, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// ENXIO when no reader waits: nothing to let go.
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return path
}

// Returns runs f and fails t at once if f has not returned within the
// deadline: what blocked on a FIFO, named by what.
func Returns(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Fatalf("%s did not return within %v: it blocked on a FIFO", what, deadline)
	}
}

// Named reports whether a line of text, a loader's notices or a
// program's stderr, names path as a named pipe: what a loader that skipped
// the FIFO must say.
func Named(text, path string) bool {
	for line := range strings.Lines(text) {
		if strings.Contains(line, path) && strings.Contains(line, "named pipe") {
			return true
		}
	}
	return false
}
