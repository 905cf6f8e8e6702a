// Package locktest checks that a writer of a file shared with Gemini CLI
// honours its lock (internal/sharedlock) as Gemini CLI's own writer
// would find it: a fresh lock directory is waited for, and one kept fresh
// for ever makes the write give up, with the file unchanged.
package locktest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"
)

// Waits runs write while file's lock directory, <file>.lock, exists and
// is fresh, as Gemini CLI's is while it writes: write must not return, nor
// change file, for a second; once the directory is removed it must
// return nil, with no lock left behind. The caller then checks what
// write wrote.
func Waits(t testing.TB, file string, write func(context.Context) error) {
	t.Helper()
	before, beforeErr := os.ReadFile(file)
	if err := os.Mkdir(file+".lock", 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- write(t.Context()) }()
	select {
	case err := <-done:
		t.Fatalf("the write returned (%v) while %s.lock was held", err, file)
	case <-time.After(time.Second):
	}
	if now, err := os.ReadFile(file); string(now) != string(before) || (err == nil) != (beforeErr == nil) {
		t.Fatalf("%s was written while its lock was held:\n%s", file, now)
	}
	if err := os.Remove(file + ".lock"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the write, once the lock was removed: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the write did not end within a minute of the lock's removal")
	}
	if _, err := os.Stat(file + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the write left its lock behind: %v", err)
	}
}

// Refused runs write while file's lock directory is held and kept fresh
// by another (a live holder, which never releases it), its context
// ending after a second: write must fail with an error naming file and
// the lock directory and saying nothing was changed, and leave file as
// it was.
func Refused(t testing.TB, file string, write func(context.Context) error) {
	t.Helper()
	before, beforeErr := os.ReadFile(file)
	if err := os.Mkdir(file+".lock", 0o755); err != nil {
		t.Fatal(err)
	}
	holding, stop := context.WithCancel(t.Context())
	defer stop()
	go func() { // the holder's refresh, sooner than proper-lockfile's
		for holding.Err() == nil {
			now := time.Now()
			_ = os.Chtimes(file+".lock", now, now)
			time.Sleep(100 * time.Millisecond)
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	err := write(ctx)
	if err == nil {
		t.Fatalf("%s was written under another's lock", file)
	}
	for _, want := range []string{file, file + ".lock", "nothing was changed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if now, err := os.ReadFile(file); string(now) != string(before) || (err == nil) != (beforeErr == nil) {
		t.Errorf("%s was changed:\n%s", file, now)
	}
}
