package workspace

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Two changes prepared from the same text and written at once (two
// subagents, two ACP sessions, headless): a change reaches disk only if
// disk still holds what it was prepared from, so one of them is ErrStale
// and disk holds the other. writeChecked holds the first write that
// passed its check, before its rename, until a second passes too or a
// while has gone: without the path's lock both pass and the second
// rename undoes the first; with it the second cannot reach its check.
func TestConcurrentWritesOfOneFileOneIsStale(t *testing.T) {
	path, c1, c2 := twoChangesOfOneFile(t)
	var passed atomic.Int32
	both := make(chan struct{})
	writeChecked = func() {
		if passed.Add(1) == 2 {
			close(both)
		}
		select {
		case <-both:
		case <-time.After(300 * time.Millisecond):
		}
	}
	t.Cleanup(func() { writeChecked = nil })
	errs := writeAtOnce(t, c1, c2)
	checkOneStale(t, path, errs, c1, c2)
}

// twoChangesOfOneFile are two changes of one new workspace's f.txt,
// each of a different line, prepared from the same text.
func twoChangesOfOneFile(t *testing.T) (path string, c1, c2 FileChange) {
	t.Helper()
	w, root := newTestWorkspace(t, map[string]string{"f.txt": "a\nb\n"})
	path = filepath.Join(root, "f.txt")
	c1, err := w.PrepareChange(t.Context(), path, "A\nb\n")
	if err != nil {
		t.Fatal(err)
	}
	c2, err = w.PrepareChange(t.Context(), path, "a\nB\n")
	if err != nil {
		t.Fatal(err)
	}
	return path, c1, c2
}

// The same without a hook: only the real window (check, temporary file,
// fsync, rename), many times.
func TestConcurrentWritesOfOneFileOneIsStaleUnhooked(t *testing.T) {
	for range 100 {
		path, c1, c2 := twoChangesOfOneFile(t)
		if !checkOneStale(t, path, writeAtOnce(t, c1, c2), c1, c2) {
			return
		}
	}
}

func writeAtOnce(t *testing.T, changes ...FileChange) []error {
	errs := make([]error, len(changes))
	var wg sync.WaitGroup
	for i, c := range changes {
		wg.Go(func() { errs[i] = WriteFile(t.Context(), c, c.After) })
	}
	wg.Wait()
	return errs
}

// checkOneStale checks that of two writes one succeeded, the other was
// stale, and disk holds the one that succeeded.
func checkOneStale(t *testing.T, path string, errs []error, c1, c2 FileChange) bool {
	t.Helper()
	disk := readRaw(t, path)
	switch {
	case errs[0] == nil && errs[1] == nil:
		t.Errorf("both writes succeeded; disk holds %q: one edit was lost, and both were reported applied", disk)
	case errs[0] != nil && errs[1] != nil:
		t.Errorf("both writes failed: %v; %v", errs[0], errs[1])
	case errs[0] == nil && disk != c1.After, errs[1] == nil && disk != c2.After:
		t.Errorf("disk holds %q, not the write that succeeded", disk)
	default:
		for _, err := range errs {
			if err != nil && !errors.Is(err, ErrStale) {
				t.Errorf("the losing write failed with %v, not ErrStale", err)
			}
		}
	}
	return !t.Failed()
}

// A write waiting for another write of its file gives up when its ctx is
// done, rather than waiting for ever on a holder that never lets go.
func TestWriteWaitingForTheLockEndsWithItsContext(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"f.txt": "a\n"})
	path := filepath.Join(root, "f.txt")
	c, err := w.PrepareChange(t.Context(), path, "b\n")
	if err != nil {
		t.Fatal(err)
	}
	release, err := w.HoldPath(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := WriteFile(ctx, c, c.After); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WriteFile while the path was held = %v, want the context's deadline", err)
	}
	release()
	if err := WriteFile(t.Context(), c, c.After); err != nil {
		t.Fatalf("WriteFile once the path was released: %v", err)
	}
	if got := readRaw(t, path); got != "b\n" {
		t.Errorf("disk holds %q", got)
	}
	if n := len(w.writes.held); n != 0 {
		t.Errorf("%d locks left in the table", n)
	}
}
