//go:build unix

package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/fifotest"
)

func TestReadFileRefusesDevices(t *testing.T) {
	// With /dev as a root, /dev/zero is inside the roots: only the file
	// type stops the read.
	root := t.TempDir()
	w, err := New([]string{root, "/dev"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	symlink(t, "/dev/zero", filepath.Join(w.Roots()[0], "zero"))
	for _, p := range []string{"/dev/zero", "/dev/urandom", filepath.Join(w.Roots()[0], "zero")} {
		var err error
		if n := allocated(func() { err = readErr(t, w, p) }); n > 1<<20 {
			t.Errorf("reading %s allocated %d bytes", p, n)
		}
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a device, not a regular file") {
			t.Errorf("reading %s: %v, want ErrNotRegular naming a device", p, err)
		}
	}
	if _, err := w.PrepareChange(t.Context(), "/dev/zero", "x"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("PrepareChange of a device: %v", err)
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadFileRefusesFIFOsWithoutBlocking(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	fifo := filepath.Join(root, "fifo")
	mkfifo(t, fifo)
	symlink(t, "fifo", filepath.Join(root, "to-fifo"))
	for _, p := range []string{fifo, filepath.Join(root, "to-fifo")} {
		err := readErr(t, w, p)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a named pipe (FIFO), not a regular file") {
			t.Errorf("reading %s: %v", p, err)
		}
	}
	if _, err := w.PrepareChange(t.Context(), fifo, "x"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("PrepareChange of a FIFO: %v", err)
	}
}

func TestListingsSkipSpecialFiles(t *testing.T) {
	root := t.TempDir()
	w, err := New([]string{root, "/dev"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	root = w.Roots()[0]
	writeFiles(t, root, map[string]string{"ok.txt": ""})
	mkfifo(t, filepath.Join(root, "fifo"))
	symlink(t, "/dev/zero", filepath.Join(root, "zero")) // inside the /dev root
	symlink(t, "fifo", filepath.Join(root, "to-fifo"))

	var mu sync.Mutex
	var names []string
	om, err := w.Walk(context.Background(), root, WalkOptions{}, func(e DirEntry) error {
		mu.Lock()
		defer mu.Unlock()
		names = append(names, e.Name)
		return nil
	})
	if err != nil || len(names) != 1 || names[0] != "ok.txt" || om.Special != 3 || om.Skipped() != 3 {
		t.Errorf("Walk = %v, %+v, %v; want only ok.txt and 3 special files", names, om, err)
	}
	entries, om, err := w.ReadDir(context.Background(), root)
	if err != nil || len(entries) != 1 || om.Special != 3 {
		t.Errorf("ReadDir = %+v, %+v, %v", entries, om, err)
	}
	// A FIFO where a directory is expected fails to open instead of blocking.
	err = finishWithin(t, 5*time.Second, func() error {
		_, _, err := w.ReadDir(context.Background(), filepath.Join(root, "fifo"))
		return err
	})
	if err == nil {
		t.Error("listing a FIFO succeeded")
	}
}

func TestOpeningConfirmsTheFileThatWasChecked(t *testing.T) {
	_, root := newTestWorkspace(t, map[string]string{"a": "a", "b": "b"})
	stat := func(name string) os.FileInfo {
		fi, err := os.Stat(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	mkfifo(t, filepath.Join(root, "fifo"))
	if err := confirmOpened("a", stat("a"), stat("a")); err != nil {
		t.Errorf("the same file: %v", err)
	}
	// a swapped for b, or for a FIFO, between the stat and the open
	if err := confirmOpened("a", stat("a"), stat("b")); err == nil || !strings.Contains(err.Error(), "replaced while being opened") {
		t.Errorf("another file: %v", err)
	}
	if err := confirmOpened("a", stat("a"), stat("fifo")); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a FIFO: %v", err)
	}
}

// A file replaced by a FIFO between the proposal and the write is refused
// by the staleness check, which reads it as every read does: without
// blocking on the pipe.
func TestWriteFileStaleCheckDoesNotBlockOnAFIFO(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a.txt": "before\n"})
	path := filepath.Join(root, "a.txt")
	c, err := w.PrepareChange(t.Context(), path, "after\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, path)
	done := make(chan error, 1)
	go func() { done <- WriteFile(t.Context(), c, c.After) }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("WriteFile over a FIFO: %v, want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("WriteFile blocked on a FIFO put in the file's place")
	}
}

// A file the walk listed as a regular file is read without another stat
// by path, so what a swap since the listing put there is refused by the
// open and the fstat: a FIFO without blocking, a symlink (to a secret
// outside the roots, or to a device) without being followed.
func TestReadEntryRefusesWhatWasSwappedInSinceTheListing(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"fifo": "x", "out": "x", "dev": "x"})
	listed := map[string]DirEntry{}
	var mu sync.Mutex
	if _, err := w.Walk(t.Context(), root, WalkOptions{}, func(e DirEntry) error {
		mu.Lock()
		defer mu.Unlock()
		listed[e.Name] = e
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, swap := range map[string]func(path string){
		"fifo": func(p string) { mkfifo(t, p) },
		"out":  func(p string) { symlink(t, secret, p) },
		"dev":  func(p string) { symlink(t, "/dev/zero", p) },
	} {
		p := filepath.Join(root, name)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		swap(p)
		var buf []byte
		f, err := w.ReadEntryInto(t.Context(), listed[name], MaxFileSize, &buf)
		if err == nil || strings.Contains(string(f.Content), "SECRET") {
			t.Errorf("%s swapped since the listing: read %q, %v; want it refused", name, f.Content, err)
		}
	}
}

// A FIFO named .gitignore, .geminiignore or .git/info/exclude is not read
// (rules of it there are none) and never blocks a listing; a regular
// ignore file beside it still applies.
func TestIgnoreFilesThatAreFIFOsDoNotBlock(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"sub/.geminiignore": "*.log\n", "sub/a.log": "", "sub/b.txt": "", ".git/info/": ""})
	for _, name := range []string{".gitignore", ".geminiignore", ".git/info/exclude", "sub/.gitignore"} {
		fifotest.Make(t, filepath.Join(root, filepath.FromSlash(name)))
	}
	var entries []DirEntry
	var ignored bool
	var listErr, ignoredErr error
	fifotest.Returns(t, "listing a directory under FIFO ignore files", func() {
		entries, _, listErr = w.ReadDir(t.Context(), filepath.Join(root, "sub"))
		ignored, ignoredErr = w.Ignored(t.Context(), filepath.Join(root, "sub", "a.log"))
	})
	if listErr != nil || ignoredErr != nil {
		t.Fatalf("ReadDir: %v; Ignored: %v", listErr, ignoredErr)
	}
	if !ignored {
		t.Error("sub/.geminiignore's rule does not apply beside a FIFO .gitignore")
	}
	for _, e := range entries {
		if want := e.Name == "a.log"; e.Name != ".gitignore" && e.Name != ".geminiignore" && e.Ignored != want {
			t.Errorf("%s: ignored %v, want %v", e.Name, e.Ignored, want)
		}
	}
}
