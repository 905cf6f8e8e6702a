package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The getdents reader lists what os.ReadDir lists, typed the same, across
// many buffers' worth of names of every length.
func TestDirentReaderListsWhatReadDirLists(t *testing.T) {
	dir := t.TempDir()
	for i := range 3000 {
		name := strconv.Itoa(i) + strings.Repeat("n", i%250) // up to 254 bytes

		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, sub := range []string{"d1", "ünï", "with space"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("d1", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names dirNames
	r := names.reader()
	defer r.release()
	var got []direntName
	for eof := false; !eof; {
		var batch []direntName
		if batch, eof, err = r.read(f, 100); err != nil {
			t.Fatal(err)
		}
		if len(batch) > 100 {
			t.Fatalf("asked for 100 entries, got %d", len(batch))
		}
		got = append(got, batch...)
	}
	slices.SortFunc(got, func(a, b direntName) int { return strings.Compare(a.name, b.name) })
	if len(got) != len(want) {
		t.Fatalf("listed %d entries, os.ReadDir %d", len(got), len(want))
	}
	for i, de := range want {
		if got[i].name != de.Name() || got[i].typ != de.Type() {
			t.Errorf("entry %d: %q %v, os.ReadDir: %q %v", i, got[i].name, got[i].typ, de.Name(), de.Type())
		}
	}
}

// A walk cancelled before its goroutines took the top directory, which it
// opened to begin with, still closes it.
func TestWalkCancelledBeforeItBeganClosesTheDirectory(t *testing.T) {
	// Bigger than a batch, so that the directory is still open after it.
	files := map[string]string{}
	for i := range dirBatch + 10 {
		files[strconv.Itoa(i)] = ""
	}
	w, root := newTestWorkspace(t, files)
	openFiles := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(fds)
	}
	// The root's handles, kept open for the workspace's life (bases.go),
	// are opened first.
	if _, err := w.Stat(root); err != nil {
		t.Fatal(err)
	}
	before := openFiles()
	for range 20 {
		ctx, cancel := context.WithCancel(t.Context())
		// Stat is asked while the top directory is read, before the
		// walk's goroutines start.
		_, err := w.Walk(ctx, root, WalkOptions{Stat: func(string) bool { cancel(); return false }}, func(DirEntry) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Walk: %v, want the cancel", err)
		}
	}
	if after := openFiles(); after > before {
		t.Errorf("%d files open before the walks, %d after", before, after)
	}
}
