//go:build unix

package checkpoint_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/fifotest"
)

// A FIFO for the project's .gitignore, which a checkpoint copies, fails
// the checkpoint naming it instead of blocking it.
func TestCheckpointDoesNotBlockOnAFIFOGitignore(t *testing.T) {
	p := newProject(t)
	gitignore := filepath.Join(p.root, ".gitignore")
	if err := os.Remove(gitignore); err != nil {
		t.Fatal(err)
	}
	fifotest.Make(t, gitignore)
	var err error
	fifotest.Returns(t, "the checkpoint", func() {
		err = p.store.Checkpoint(context.Background(), request(filepath.Join(p.root, "keep.txt")))
	})
	if err == nil || !fifotest.Named(err.Error(), gitignore) {
		t.Errorf("Checkpoint = %v; want an error naming the FIFO", err)
	}
}
