//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/fifotest"
)

func TestReadRefusesAFIFO(t *testing.T) {
	path := fifotest.Make(t, filepath.Join(t.TempDir(), "fifo"))
	var err error
	fifotest.Returns(t, "Read of a FIFO", func() { _, err = Read(path, 1<<20) })
	if err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("Read of a FIFO = %v", err)
	}
}

// A symlink to a regular file is read (users link their dotfiles); one to
// a FIFO is refused without blocking.
func TestReadFollowsSymlinksToRegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "real"), []byte("text"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(filepath.Join(dir, "link"), 100); err != nil || string(data) != "text" {
		t.Errorf("Read of a symlink to a file = %q, %v", data, err)
	}
	fifotest.Make(t, filepath.Join(dir, "fifo"))
	if err := os.Symlink("fifo", filepath.Join(dir, "pipe-link")); err != nil {
		t.Fatal(err)
	}
	var err error
	fifotest.Returns(t, "Read of a symlink to a FIFO", func() { _, err = Read(filepath.Join(dir, "pipe-link"), 100) })
	if err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("Read of a symlink to a FIFO = %v", err)
	}
}

func TestReadDirRefusesAFIFO(t *testing.T) {
	path := fifotest.Make(t, filepath.Join(t.TempDir(), "dir"))
	var err error
	fifotest.Returns(t, "ReadDir of a FIFO", func() { _, err = ReadDir(path, 0) })
	if err == nil || !strings.Contains(err.Error(), "named pipe (FIFO), not a directory") {
		t.Errorf("ReadDir of a FIFO = %v", err)
	}
}
