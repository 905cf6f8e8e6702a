package sharedlock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// quick is the protocol with durations a test can wait out.
func quick() timing {
	return timing{stale: 400 * time.Millisecond, update: 50 * time.Millisecond, maxWait: 600 * time.Millisecond,
		firstRetry: 5 * time.Millisecond, maxRetry: 20 * time.Millisecond}
}

// The lock is the directory <file>.lock, there while held and gone after.
func TestLockIsADirectoryBesideTheFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "trustedFolders.json")
	l, err := Acquire(t.Context(), file)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(file + ".lock"); err != nil || !info.IsDir() {
		t.Fatalf("while held, %s.lock: %v, %v", file, info, err)
	}
	if err := l.Held(); err != nil {
		t.Errorf("Held of a lock just taken: %v", err)
	}
	l.Release()
	if _, err := os.Stat(file + ".lock"); !os.IsNotExist(err) {
		t.Errorf("after Release, %s.lock: %v", file, err)
	}
	if err := l.Held(); err == nil {
		t.Error("Held of a released lock is nil")
	}
}

// The lock of a file reached through a symbolic link is beside the file
// the link leads to, as proper-lockfile's realpath puts it.
func TestLockOfASymlinkIsTheTargets(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "settings.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	platformtest.Symlink(t, target, link)
	l, err := Acquire(t.Context(), link)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if l.Dir() != target+".lock" {
		t.Errorf("the lock of %s is %s, want %s.lock", link, l.Dir(), target)
	}
}

// A second taker waits while the lock is held and gets it once released.
func TestAcquireWaitsForTheHolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	first, err := Acquire(t.Context(), file)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		second, err := Acquire(t.Context(), file)
		if err == nil {
			second.Release()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("a second Acquire returned (%v) while the lock was held", err)
	case <-time.After(300 * time.Millisecond):
	}
	first.Release()
	if err := <-got; err != nil {
		t.Fatalf("the second Acquire, after Release: %v", err)
	}
}

// A lock directory whose modification time is older than Stale was left
// by a holder that died: it is taken over at once.
func TestStaleLockIsTakenOver(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.Mkdir(file+".lock", 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-Stale - time.Second)
	if err := os.Chtimes(file+".lock", old, old); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	l, err := Acquire(ctx, file)
	if err != nil {
		t.Fatalf("Acquire over a stale lock: %v", err)
	}
	defer l.Release()
	info, err := os.Stat(file + ".lock")
	if err != nil || time.Since(info.ModTime()) > time.Minute {
		t.Errorf("the lock taken over is %v, %v: not made anew", info, err)
	}
}

// A lock kept fresh by its holder is never taken over: the wait ends
// with an error naming the file and the lock directory.
func TestFreshLockIsWaitedForThenRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	holder, err := acquire(t.Context(), file, quick())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Release()
	start := time.Now()
	_, err = acquire(t.Context(), file, quick())
	var busy *BusyError
	if !errors.As(err, &busy) {
		t.Fatalf("Acquire of a held lock = %v, want a BusyError", err)
	}
	if waited := time.Since(start); waited < quick().maxWait {
		t.Errorf("gave up after %v, before the %v wait", waited, quick().maxWait)
	}
	if msg := err.Error(); !strings.Contains(msg, file) || !strings.Contains(msg, file+".lock") || !strings.Contains(msg, "nothing was changed") {
		t.Errorf("the error does not name the file and its lock: %s", msg)
	}
	if err := holder.Held(); err != nil {
		t.Errorf("the holder lost its lock to the waiter: %v", err)
	}
}

// The wait ends with the context, the context's error kept.
func TestAcquireEndsWithItsContext(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	holder, err := Acquire(t.Context(), file)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Release()
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err = Acquire(ctx, file)
	var busy *BusyError
	if !errors.As(err, &busy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire with its context ending = %v", err)
	}
}

// While held, the lock directory's modification time keeps moving, so
// that it never looks stale.
func TestHeldLockIsRefreshed(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	l, err := acquire(t.Context(), file, quick())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	old := time.Now().Add(-time.Hour)
	l.mu.Lock()
	err = os.Chtimes(l.dir, old, old)
	if err == nil {
		l.info, err = os.Stat(l.dir) // as if made an hour ago
	}
	l.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if info, err := os.Stat(l.dir); err == nil && time.Since(info.ModTime()) < time.Minute {
			if err := l.Held(); err != nil {
				t.Fatalf("after a refresh: %v", err)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the held lock's modification time was not refreshed")
}

// A lock removed, or removed and taken by another, is no longer held,
// and Held says so.
func TestCompromisedLockIsNotHeld(t *testing.T) {
	for _, replace := range []bool{false, true} {
		file := filepath.Join(t.TempDir(), "f")
		l, err := Acquire(t.Context(), file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(l.Dir()); err != nil {
			t.Fatal(err)
		}
		if replace {
			if err := os.Mkdir(l.Dir(), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		err = l.Held()
		if err == nil || !strings.Contains(err.Error(), file) {
			t.Errorf("replaced %v: Held = %v, want an error naming %s", replace, err, file)
		}
		l.Release()
		if _, err := os.Stat(l.Dir()); replace && err != nil {
			t.Errorf("Release removed the other holder's lock: %v", err)
		}
	}
}
