//go:build unix

package lsp

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A file replaced by a FIFO while its edit waits is read as the tools read
// files, without blocking on the pipe: the edit is stale.
func TestStaleCheckDoesNotBlockOnAFIFO(t *testing.T) {
	root := t.TempDir()
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(ws.Roots()[0], "a.txt")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Server{docs: workspace.NewDocuments(), agentState: agentState{ws: ws}, life: context.Background()}
	change := workspace.FileChange{Path: path, Exists: true, Before: "before\n", After: "after\n"}
	got := make(chan string, 1)
	go func() { got <- (presenter{s: s}).staleReason(change) }()
	select {
	case reason := <-got:
		if reason != "the file changed on disk after the change was proposed" {
			t.Errorf("stale reason = %q", reason)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stale check blocked on a FIFO")
	}
}
