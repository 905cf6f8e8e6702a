package workspace

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// Close lets go of the roots the workspace keeps open at once, not when
// the collector finds them; the workspace reads on after it, opening
// them again.
func TestCloseLetsGoOfTheKeptRoots(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a.go": "package a\n"})
	read := func() {
		t.Helper()
		if f, err := w.ReadFile(context.Background(), filepath.Join(root, "a.go"), 1<<10); err != nil || string(f.Content) != "package a\n" {
			t.Fatalf("ReadFile = %q, %v", f.Content, err)
		}
	}
	read()
	if n := platformtest.OpenOn(t, root); n == 0 {
		t.Fatal("no descriptor kept on the root after a read: nothing to close")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := platformtest.OpenOn(t, root); n != 0 {
		t.Errorf("%d descriptors still open on the root after Close", n)
	}
	read()
	w.Close()
}
