package sessionstore

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// Append returns once the prompt is written, before its fsync: the
// session loads back at once while the fsync is still under way; Wait
// waits for it; and a failed fsync is told by the next Append.
func TestAppendDoesNotWaitForTheDisk(t *testing.T) {
	for _, shared := range []bool{true, false} {
		s, root := storeOf(t, shared)
		release := make(chan struct{})
		syncing := make(chan string, 4)
		fail := errors.New("input/output error")
		s.durable.sync = func(f *os.File) error {
			syncing <- f.Name()
			<-release
			return fail
		}
		id := NewID()
		done := make(chan error, 1)
		go func() {
			done <- s.Append(context.Background(), Turn{Meta: sharedMeta(root, id, 1), History: sharedHistory(1)})
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("shared=%v: append: %v", shared, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("shared=%v: Append waited for the fsync", shared)
		}
		if name := <-syncing; !strings.Contains(name, id[:8]) {
			t.Errorf("shared=%v: synced %s, not the session's file", shared, name)
		}
		if got := mustLoad(t, s, id); len(got.History) != len(sharedHistory(1)) {
			t.Errorf("shared=%v: loaded %d contents before the fsync, want %d", shared, len(got.History), len(sharedHistory(1)))
		}
		waited := make(chan struct{})
		go func() { s.Wait(); close(waited) }()
		select {
		case <-waited:
			t.Fatalf("shared=%v: Wait returned before the fsync ended", shared)
		case <-time.After(50 * time.Millisecond):
		}
		close(release)
		<-waited
		s.durable.sync = nil
		err := s.Append(context.Background(), Turn{Meta: sharedMeta(root, id, 2), History: sharedHistory(2)})
		if !errors.Is(err, fail) || !strings.Contains(err.Error(), "may not survive a power loss") {
			t.Errorf("shared=%v: the append after a failed fsync said %v", shared, err)
		}
		s.Wait()
		if got := mustLoad(t, s, id); got.Meta.Prompts != 2 {
			t.Errorf("shared=%v: the second prompt was not saved: %+v", shared, got.Meta)
		}
		if err := s.Append(context.Background(), Turn{Meta: sharedMeta(root, id, 3), History: sharedHistory(3)}); err != nil {
			t.Errorf("shared=%v: a failure was told twice: %v", shared, err)
		}
		s.Wait()
	}
}

// Delete and Replace wait for the store's own handle on the file, still
// open for its fsync, to be closed: Windows refuses to remove or rename
// over a file while a handle on it is open ("Sharing violation").
func TestDeleteAndReplaceWaitForTheFileToBeClosed(t *testing.T) {
	for _, shared := range []bool{true, false} {
		for _, op := range []string{"delete", "replace"} {
			s, root := storeOf(t, shared)
			release := make(chan struct{})
			s.durable.sync = func(*os.File) error {
				<-release
				return nil
			}
			id := NewID()
			if err := s.Append(context.Background(), Turn{Meta: sharedMeta(root, id, 1), History: sharedHistory(1)}); err != nil {
				t.Fatalf("shared=%v: append: %v", shared, err)
			}
			done := make(chan error, 1)
			go func() {
				if op == "delete" {
					done <- s.Delete(id)
					return
				}
				done <- s.Replace(context.Background(), Snapshot{Meta: sharedMeta(root, id, 1), History: sharedHistory(1)})
			}()
			select {
			case err := <-done:
				t.Fatalf("shared=%v: %s returned (%v) while the file was still open for its fsync", shared, op, err)
			case <-time.After(50 * time.Millisecond):
			}
			close(release)
			if err := <-done; err != nil {
				t.Errorf("shared=%v: %s: %v", shared, op, err)
			}
			s.Wait()
		}
	}
}

// storeOf is a store keeping 0.61's shared files for root, or, when not
// shared, gemini-ls's own files ("" root).
func storeOf(t *testing.T, shared bool) (*Store, string) {
	t.Helper()
	if shared {
		return sharedStore(t)
	}
	s, err := New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, ""
}
