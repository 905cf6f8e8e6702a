package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// hugeDirectory is a workspace whose root holds 100,000 files and a .gitignore.
func hugeDirectory(b *testing.B) (*Workspace, string) {
	b.Helper()
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range 100_000 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%06d.txt", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	w, err := New([]string{root}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return w, w.Roots()[0]
}

func BenchmarkReadDir100k(b *testing.B) {
	w, root := hugeDirectory(b)
	for b.Loop() {
		if _, _, err := w.ReadDir(b.Context(), root); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWalk100k(b *testing.B) {
	w, root := hugeDirectory(b)
	for b.Loop() {
		if _, err := w.Walk(b.Context(), root, WalkOptions{}, func(DirEntry) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
