package worktree

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// origin is a bare clone of dir, made dir's origin, and a second clone
// of it standing for the runner that pushes to it.
func origin(t *testing.T, dir string) (bare, runner string) {
	t.Helper()
	bare = filepath.Join(t.TempDir(), "origin.git")
	g(t, dir, "clone", "-q", "--bare", dir, bare)
	g(t, dir, "remote", "add", "origin", bare)
	runner = filepath.Join(t.TempDir(), "runner")
	g(t, dir, "clone", "-q", bare, runner)
	return bare, runner
}

// push commits file holding text on branch in the runner's clone and
// pushes it.
func push(t *testing.T, runner, branch, file, text string) {
	t.Helper()
	if out := g(t, runner, "branch", "--list", branch); out == "" {
		g(t, runner, "checkout", "-q", "-b", branch)
	}
	if err := os.WriteFile(filepath.Join(runner, file), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	g(t, runner, "add", file)
	g(t, runner, "commit", "-qm", "work")
	g(t, runner, "push", "-q", "origin", branch)
}

func TestFetchBringsABranchIntoItsOwnWorktreeThenFastForwardsIt(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	_, runner := origin(t, dir)
	push(t, runner, "gemini/verbose-3f9a", "b.txt", "one\n")

	w, err := Fetch(ctx, dir, "verbose-3f9a", "gemini/verbose-3f9a")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, ".gemini", "worktrees", "verbose-3f9a"); w.Path != want || w.Branch != "gemini/verbose-3f9a" || w.Project != dir {
		t.Fatalf("the worktree is %+v, want it at %s on gemini/verbose-3f9a", w, want)
	}
	if b, err := os.ReadFile(filepath.Join(w.Path, "b.txt")); err != nil || string(b) != "one\n" {
		t.Fatalf("b.txt in the worktree: %q, %v", b, err)
	}
	if head := g(t, dir, "rev-parse", "HEAD"); w.Base != head {
		t.Errorf("Base = %s, want the user's HEAD %s, where the branch forked", w.Base, head)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt reached the user's tree: %v", err)
	}
	work, err := w.Work(ctx, 1<<20)
	if err != nil || len(work) != 1 || work[0].Path != "b.txt" || work[0].Status != Added {
		t.Errorf("its work is %+v, %v; want b.txt added", work, err)
	}

	// The same task run again: the worktree follows origin.
	push(t, runner, "gemini/verbose-3f9a", "b.txt", "two\n")
	if _, err := Fetch(ctx, dir, "verbose-3f9a", "gemini/verbose-3f9a"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(w.Path, "b.txt")); string(b) != "two\n" {
		t.Errorf("b.txt after the second fetch: %q, want two", b)
	}

	// A worktree the user committed to is not moved under them.
	g(t, w.Path, "commit", "-q", "--allow-empty", "-m", "mine")
	push(t, runner, "gemini/verbose-3f9a", "b.txt", "three\n")
	if _, err := Fetch(ctx, dir, "verbose-3f9a", "gemini/verbose-3f9a"); err == nil || !strings.Contains(err.Error(), "bringing") {
		t.Errorf("fetching over a worktree with a commit of its own: %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(filepath.Join(w.Path, "b.txt")); string(b) != "two\n" {
		t.Errorf("b.txt after the refused fetch: %q, want two still", b)
	}
}

func TestFetchRefusesWhatOriginDoesNotHave(t *testing.T) {
	dir := repo(t)
	origin(t, dir)
	if _, err := Fetch(context.Background(), dir, "nope", "gemini/nope"); err == nil || !strings.Contains(err.Error(), "fetching gemini/nope from origin") {
		t.Errorf("Fetch of a branch origin lacks: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".gemini")); !os.IsNotExist(err) {
		t.Errorf("a failed fetch left %v", err)
	}
	if _, err := Fetch(context.Background(), dir, "../x", "gemini/x"); err == nil {
		t.Error("Fetch took the name ../x")
	}
}
