//go:build unix

package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/fifotest"
)

// TestHostileContextFilesSkipped: a FIFO, a symlink leading out of the
// project and an oversized file, each named GEMINI.md, are skipped without
// blocking, and the other files still load.
func TestHostileContextFilesSkipped(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), "global rules")
	fifotest.Make(t, filepath.Join(tr.root, "GEMINI.md"))
	secret := filepath.Join(tr.base, "secret.md")
	write(t, secret, "SECRET")
	if err := os.Symlink(secret, filepath.Join(tr.repo, "a", "GEMINI.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tr.repo, "GEMINI.md"), strings.Repeat("x", MaxFileSize+1))
	fifotest.Make(t, filepath.Join(tr.root, "c", "GEMINI.md"))

	l := tr.loader(t)
	var got string
	fifotest.Returns(t, "SystemMemory", func() {
		var err error
		if got, err = l.SystemMemory(context.Background()); err != nil {
			t.Error(err)
		}
	})
	if !strings.Contains(got, "global rules") {
		t.Errorf("the readable file did not load:\n%s", got)
	}
	for _, bad := range []string{"SECRET", "xxxx", filepath.Join(tr.root, "GEMINI.md")} {
		if strings.Contains(got, bad) {
			t.Errorf("%q reached the memory:\n%s", bad, got)
		}
	}

	// A subdirectory's FIFO is skipped by Discover too.
	fifotest.Returns(t, "Discover", func() {
		if got := l.Discover(context.Background(), "s", filepath.Join(tr.root, "c", "x.go")); got != "" {
			t.Errorf("Discover returned a FIFO's block:\n%s", got)
		}
	})
}

func TestImportOfFIFONoted(t *testing.T) {
	tr := newTree(t)
	fifotest.Make(t, filepath.Join(tr.root, "pipe.md"))
	write(t, filepath.Join(tr.root, "GEMINI.md"), "@./pipe.md")
	l := tr.loader(t)
	fifotest.Returns(t, "importing a FIFO", func() {
		got, _ := l.SystemMemory(context.Background())
		if !strings.Contains(got, "\n<!-- Import failed: ./pipe.md - ") || !strings.Contains(got, "FIFO") {
			t.Errorf("the FIFO import is not noted:\n%s", got)
		}
	})
}
