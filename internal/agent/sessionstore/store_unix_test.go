//go:build unix

package sessionstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// within fails the test if f has not returned after 5 s: a FIFO opened
// for reading blocks until a writer comes.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

func TestHostileFilesAreSkippedWithoutBlocking(t *testing.T) {
	s := newStore(t)
	mustAppend(t, s, Turn{Meta: meta("real", 1), History: richHistory(1)})
	dir := s.Dir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A symlink to a valid session file elsewhere: following it would let
	// anyone who can write the directory point the store at any file.
	other := newStore(t)
	mustAppend(t, other, Turn{Meta: meta("link", 1), History: richHistory(1)})
	if err := os.Symlink(filepath.Join(other.Dir(), "link.jsonl"), filepath.Join(dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}

	within(t, "List", func() {
		metas, err := s.List(context.Background(), "")
		if err != nil || len(metas) != 1 || metas[0].ID != "real" {
			t.Errorf("List = %+v, %v; want only the regular session file", metas, err)
		}
	})
	for _, id := range []string{"fifo", "link", "dir"} {
		within(t, "Load "+id, func() {
			if _, err := s.Load(context.Background(), id); !errors.Is(err, ErrNotRegular) {
				t.Errorf("Load(%s) = %v; want ErrNotRegular", id, err)
			}
		})
		within(t, "Append "+id, func() {
			if err := s.Append(context.Background(), Turn{Meta: meta(id, 2), History: richHistory(2)}); !errors.Is(err, ErrNotRegular) {
				t.Errorf("Append(%s) = %v; want ErrNotRegular", id, err)
			}
		})
	}
	if got := mustLoad(t, other, "link"); len(got.History) != 4 || got.Meta.Prompts != 1 {
		t.Errorf("the symlink's target was changed: %d contents, %d prompts", len(got.History), got.Meta.Prompts)
	}
}
