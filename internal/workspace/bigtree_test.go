package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace/workspacetest"
)

// bigTree is a directory of 100,000 files, built by the first test that
// needs it and removed after the last.
var bigTree workspacetest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	bigTree.Remove()
	os.Exit(code)
}

func bigWorkspace(t *testing.T) (*Workspace, workspacetest.BigTree) {
	t.Helper()
	tree := bigTree.Get(t)
	w, err := New([]string{tree.Root}, NewDocuments())
	if err != nil {
		t.Fatal(err)
	}
	return w, tree
}

func TestReadDirListsAHugeDirectoryWhole(t *testing.T) {
	w, tree := bigWorkspace(t)
	entries, om, err := w.ReadDir(t.Context(), tree.Dir)
	if err != nil || om != (Omitted{}) {
		t.Fatalf("ReadDir: %+v, %v", om, err)
	}
	if len(entries) != workspacetest.ManyFiles {
		t.Fatalf("ReadDir listed %d entries, want %d", len(entries), workspacetest.ManyFiles)
	}
	for i, e := range entries {
		if want := fmt.Sprintf("f%06d.txt", i); e.Name != want || e.IsDir {
			t.Fatalf("entry %d is %+v, want the file %s: not sorted or not whole", i, e, want)
		}
	}
}

func TestWalkReadsBigDirectoriesWhole(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	// b/ is bigger than a batch.
	const big = dirBatch + 5
	writeFiles(t, root, map[string]string{"a/x": ""})
	if err := os.Mkdir(filepath.Join(root, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range big {
		if err := os.WriteFile(filepath.Join(root, "b", fmt.Sprintf("%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Open documents come after disk's entries, once.
	w.Documents().Open(Document{Path: filepath.Join(root, "b", "unsaved.go"), Text: "x"})
	w.Documents().Open(Document{Path: filepath.Join(root, "b", "00000"), Text: "on disk too"})

	var mu sync.Mutex
	var paths []string
	if _, err := w.Walk(t.Context(), root, WalkOptions{}, func(e DirEntry) error {
		mu.Lock()
		defer mu.Unlock()
		paths = append(paths, e.Path)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := 2 + 1 + big + 1; len(paths) != want {
		t.Errorf("Walk visited %d entries, want %d", len(paths), want)
	}
	slices.Sort(paths)
	if len(slices.Compact(slices.Clone(paths))) != len(paths) {
		t.Error("Walk visited an entry twice")
	}
	if _, found := slices.BinarySearch(paths, filepath.Join(root, "b", "unsaved.go")); !found {
		t.Error("Walk missed the unsaved document in a big directory")
	}
}
