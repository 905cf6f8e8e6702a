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

func TestRootPassesOverASandboxMadeGit(t *testing.T) {
	repo := t.TempDir()
	sub := filepath.Join(repo, "a", "b")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(sub, ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Root(sub); got != repo {
		t.Errorf("Root(%s) = %q, want %q", sub, got, repo)
	}
	if got := Root(t.TempDir()); got != "" {
		t.Errorf("Root outside any repository = %q", got)
	}
}
