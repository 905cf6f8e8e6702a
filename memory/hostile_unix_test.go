//go:build unix

package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileContextFilesSkipped: a FIFO, a symlink leading out of the
// project and an oversized file, each named GEMINI.md, are skipped without
// blocking, and the other files still load.
func TestHostileContextFilesSkipped(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), "global rules")
	if err := syscall.Mkfifo(filepath.Join(tr.root, "GEMINI.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(tr.base, "secret.md")
	write(t, secret, "SECRET")
	if err := os.Symlink(secret, filepath.Join(tr.repo, "a", "GEMINI.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tr.repo, "GEMINI.md"), strings.Repeat("x", MaxFileSize+1))
	if err := os.MkdirAll(filepath.Join(tr.root, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(tr.root, "c", "GEMINI.md"), 0o644); err != nil {
		t.Fatal(err)
	}

	l := tr.loader(t)
	done := make(chan string, 1)
	go func() {
		got, err := l.SystemMemory(context.Background())
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	var got string
	select {
	case got = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("SystemMemory blocked on a hostile context file")
	}
	if !strings.Contains(got, "global rules") {
		t.Errorf("the readable file did not load:\n%s", got)
	}
	for _, bad := range []string{"SECRET", "xxxx", filepath.Join(tr.root, "GEMINI.md")} {
		if strings.Contains(got, bad) {
			t.Errorf("%q reached the memory:\n%s", bad, got)
		}
	}

	// A subdirectory's FIFO is skipped by Discover too.
	jit := make(chan string, 1)
	go func() { jit <- l.Discover(context.Background(), "s", filepath.Join(tr.root, "c", "x.go")) }()
	select {
	case got := <-jit:
		if got != "" {
			t.Errorf("Discover returned a FIFO's block:\n%s", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Discover blocked on a FIFO")
	}
}

func TestImportOfFIFONoted(t *testing.T) {
	tr := newTree(t)
	if err := syscall.Mkfifo(filepath.Join(tr.root, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tr.root, "GEMINI.md"), "@./pipe.md")
	l := tr.loader(t)
	done := make(chan string, 1)
	go func() {
		got, _ := l.SystemMemory(context.Background())
		done <- got
	}()
	select {
	case got := <-done:
		if !strings.Contains(got, "\n<!-- Import failed: ./pipe.md - ") || !strings.Contains(got, "FIFO") {
			t.Errorf("the FIFO import is not noted:\n%s", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("importing a FIFO blocked")
	}
}
