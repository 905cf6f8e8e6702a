//go:build unix

package sessionstore

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO named like a session file is skipped without blocking.
func TestSharedSkipsAFIFO(t *testing.T) {
	s, root := sharedStore(t)
	mustAppend(t, s, Turn{Meta: sharedMeta(root, NewID(), 1), History: sharedHistory(1)})
	chats := filepath.Dir(chatsFiles(t, s)[0])
	if err := syscall.Mkfifo(filepath.Join(chats, "session-2026-01-01T00-00-aaaaaaaa.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	within(t, "listing", func() {
		if list, err := s.ListShared(context.Background(), ""); err != nil || len(list) != 1 {
			t.Errorf("list = %+v, %v", list, err)
		}
	})
}
