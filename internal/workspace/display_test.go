package workspace

import (
	"path/filepath"
	"testing"
)

// A path is shown relative to the first root when inside it, else as
// given; no workspace shows it as given.
func TestDisplay(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	w, err := New([]string{first, second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	root := w.Roots()[0]
	for path, want := range map[string]string{
		filepath.Join(root, "a", "b.go"):          "a/b.go",
		root:                                      ".",
		filepath.Join(w.Roots()[1], "c.go"):       filepath.Join(w.Roots()[1], "c.go"),
		filepath.Join(filepath.Dir(root), "x.go"): filepath.Join(filepath.Dir(root), "x.go"),
		root + "x/y.go":                           root + "x/y.go", // a sibling sharing the root's prefix
	} {
		if got := w.Display(path); got != want {
			t.Errorf("Display(%q) = %q, want %q", path, got, want)
		}
	}
	var none *Workspace
	if got := none.Display("/a/b.go"); got != "/a/b.go" {
		t.Errorf("a nil workspace shows %q", got)
	}
}
