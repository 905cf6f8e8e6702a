package packaging

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// mutation is one fault put into a good registry file, and a part of
// the error the file's validator must report for it.
type mutation[T any] struct {
	name   string
	mutate func(T) T
	want   string
}

// testMutations holds validate to its claims: good (a fresh copy of the
// committed file at each call) draws no error, and each mutation of it
// draws one containing the mutation's want. A mutation that changes
// nothing fails, so that no case passes because the file it edits
// changed.
func testMutations[T any](t *testing.T, good func() T, validate func(T) []string, ms []mutation[T]) {
	t.Helper()
	t.Run("unmutated", func(t *testing.T) {
		for _, err := range validate(good()) {
			t.Errorf("the committed file draws: %s", err)
		}
	})
	for _, m := range ms {
		t.Run(m.name, func(t *testing.T) {
			bad := m.mutate(good())
			if reflect.DeepEqual(bad, good()) {
				t.Fatal("the mutation changed nothing: the committed file changed, so change the case")
			}
			errs := validate(bad)
			for _, err := range errs {
				if strings.Contains(err, m.want) {
					return
				}
			}
			t.Errorf("no error mentions %q; the errors: %q", m.want, errs)
		})
	}
}

// replace is the mutation of a text that replaces old's first
// occurrence with new.
func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// filesUnder is good for testMutations on a tree of files: at each call,
// a fresh copy of the files at paths (slash-separated) under root.
func filesUnder(t *testing.T, root string, paths ...string) func() fstest.MapFS {
	t.Helper()
	files := fstest.MapFS{}
	for _, path := range paths {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		files[path] = &fstest.MapFile{Data: data}
	}
	return func() fstest.MapFS {
		fsys := fstest.MapFS{}
		for path, f := range files {
			fsys[path] = &fstest.MapFile{Data: slices.Clone(f.Data)}
		}
		return fsys
	}
}

// edit is the mutation of a tree of files that replaces old's first
// occurrence with new in path's text.
func edit(path, old, new string) func(fstest.MapFS) fstest.MapFS {
	return func(fsys fstest.MapFS) fstest.MapFS {
		fsys[path].Data = []byte(replace(old, new)(string(fsys[path].Data)))
		return fsys
	}
}
