package geminils

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// The binary carries README.md and every docs/*.md as they are in the
// repository, by their paths, and nothing else.
func TestDocs(t *testing.T) {
	want, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, "README.md")
	if len(want) < 2 {
		t.Fatalf("the repository has no docs/*.md: %v", want)
	}
	n := 0
	err = fs.WalkDir(Docs(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Errorf("%d files carried, want %d (%v)", n, len(want), want)
	}
	for _, p := range want {
		got, err := fs.ReadFile(Docs(), filepath.ToSlash(p))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		disk, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(disk) {
			t.Errorf("%s differs from the repository's", p)
		}
	}
}
