package gitmark

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTop(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, files ...string) string {
		d := filepath.Join(dir, name)
		for _, f := range files {
			p := filepath.Join(d, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct {
		dir  string
		want bool
	}{
		{mk("repo", ".git/HEAD", ".git/config"), true},
		{mk("worktree", ".git"), true},
		// What the sandbox makes where there was no repository.
		{mk("sandboxed", ".git/config", ".git/hooks/.keep"), false},
		{mk("plain"), false},
	} {
		if got := Top(c.dir); got != c.want {
			t.Errorf("Top(%s) = %v, want %v", filepath.Base(c.dir), got, c.want)
		}
	}
}
