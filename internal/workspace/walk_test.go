package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/workspace/workspacetest"
)

// The parallel walk's selection is checked against Walk's by every test
// that lists through walkNames; these check what is its own.

func TestWalkControl(t *testing.T) {
	files := map[string]string{"c": ""}
	for _, d := range []string{"a", "b", "e"} {
		for i := range 5 {
			files[fmt.Sprintf("%s/%d", d, i)] = ""
		}
	}
	w, root := newTestWorkspace(t, files)
	// A symlinked directory inside the roots is reported but not entered.
	symlink(t, filepath.Join(root, "b"), filepath.Join(root, "d-link"))
	var mu sync.Mutex
	var seen []string
	record := func(e DirEntry) string {
		rel, _ := filepath.Rel(root, e.Path)
		rel = filepath.ToSlash(rel)
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, rel)
		return rel
	}

	// SkipDir for a directory: it is not entered; for a file: the rest
	// of its directory is skipped, in name order.
	if _, err := w.Walk(t.Context(), root, WalkOptions{}, func(e DirEntry) error {
		switch record(e) {
		case "a", "b/2":
			return fs.SkipDir
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(seen, ComparePaths)
	if want := []string{"a", "b", "b/0", "b/1", "b/2", "c", "d-link", "e", "e/0", "e/1", "e/2", "e/3", "e/4"}; !slices.Equal(seen, want) {
		t.Errorf("SkipDir: saw %v, want %v", seen, want)
	}

	// SkipAll ends the walk without an error; any other error ends it
	// with that error.
	for _, stop := range []error{fs.SkipAll, errors.New("boom")} {
		var calls atomic.Int32
		_, err := w.Walk(t.Context(), root, WalkOptions{}, func(e DirEntry) error {
			calls.Add(1)
			if e.Name == "1" {
				return stop
			}
			return nil
		})
		if want := error(nil); stop != fs.SkipAll {
			want = stop
			if !errors.Is(err, want) {
				t.Errorf("fn's error %v: Walk returned %v", stop, err)
			}
		} else if err != nil {
			t.Errorf("SkipAll: Walk returned %v", err)
		}
		// Each directory stops at its "1" at the latest.
		if n := calls.Load(); n >= int32(len(files)+4) {
			t.Errorf("%v: fn called %d times, the whole tree", stop, n)
		}
	}

	// A directory gone between its parent's listing and its own is counted.
	w2, root2 := newTestWorkspace(t, map[string]string{"a/x": "", "b/y": ""})
	om, err := w2.Walk(t.Context(), root2, WalkOptions{}, func(e DirEntry) error {
		if e.Name == "a" {
			return os.RemoveAll(e.Path)
		}
		return nil
	})
	if err != nil || om.Unreadable != 1 || om.Skipped() != 1 {
		t.Errorf("Walk: %+v, %v; want one unreadable directory", om, err)
	}
}

func TestWalkUsesEveryCore(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core")
	}
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("d%d/f", i)] = ""
	}
	w, root := newTestWorkspace(t, files)
	// Every goroutine waits in fn until another is in fn too: a walk
	// calling fn from one goroutine at a time would never get past the
	// first.
	var inside atomic.Int32
	both := make(chan struct{})
	var once sync.Once
	err := finishWithin(t, time.Minute, func() error {
		_, err := w.Walk(t.Context(), root, WalkOptions{}, func(e DirEntry) error {
			if e.IsDir {
				return nil
			}
			if inside.Add(1) == 2 {
				once.Do(func() { close(both) })
			}
			<-both
			return nil
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWalkSeesEveryEntryOfAHugeDirectory(t *testing.T) {
	w, tree := bigWorkspace(t)
	var mu sync.Mutex
	seen := map[string]bool{}
	om, err := w.Walk(t.Context(), tree.Root, WalkOptions{}, func(e DirEntry) error {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := seen[e.Path]; ok {
			t.Errorf("%s visited twice", e.Path)
		}
		seen[e.Path] = !e.IsDir
		return nil
	})
	if err != nil || om != (Omitted{}) {
		t.Fatalf("Walk: %+v, %v", om, err)
	}
	files := 0
	for _, isFile := range seen {
		if isFile {
			files++
		}
	}
	if files != workspacetest.ManyFiles {
		t.Errorf("Walk visited %d files, want %d", files, workspacetest.ManyFiles)
	}
	for _, path := range append([]string{tree.Late}, tree.Matches...) {
		if !seen[path] {
			t.Errorf("Walk missed %s", path)
		}
	}
}

func TestWalkOfAHugeDirectoryStopsWhenCancelled(t *testing.T) {
	w, tree := bigWorkspace(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var visited, afterCancel atomic.Int32
	err := finishWithin(t, time.Minute, func() error {
		_, err := w.Walk(ctx, tree.Root, WalkOptions{}, func(DirEntry) error {
			if ctx.Err() != nil {
				afterCancel.Add(1)
			}
			if visited.Add(1) == workspacetest.ManyFiles/2 {
				cancel()
			}
			return nil
		})
		return err
	})
	// Goroutines already in fn when the cancel came finish that call.
	if !errors.Is(err, context.Canceled) || visited.Load() >= workspacetest.ManyFiles || afterCancel.Load() >= int32(runtime.GOMAXPROCS(0)) {
		t.Errorf("Walk cancelled after %d entries: %v, %d entries visited, %d after the cancel", workspacetest.ManyFiles/2, err, visited.Load(), afterCancel.Load())
	}
}

func TestComparePaths(t *testing.T) {
	ordered := []string{"", "a", "a/b", "a/z", "a-b", "a.go", "ab", "b", "b/a/c", "b/a0"}
	for i, a := range ordered {
		for j, b := range ordered {
			if got, want := ComparePaths(a, b), cmpIndex(i, j); got != want {
				t.Errorf("ComparePaths(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func cmpIndex(i, j int) int {
	switch {
	case i < j:
		return -1
	case i > j:
		return 1
	}
	return 0
}
