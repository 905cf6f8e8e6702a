//go:build unix

package fetchsource

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO is refused rather than read: reading one waits for a writer.
func TestCopyDirRefusesFIFO(t *testing.T) {
	src := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(src, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CopyDir(src, filepath.Join(t.TempDir(), "x")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a FIFO: %v", err)
	}
}
