package worktree

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// repo is a git repository with one commit of a.txt, its path real.
func repo(t *testing.T) string {
	t.Helper()
	sandboxtest.NeedGit(t)
	dir := t.TempDir()
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g(t, dir, "init", "-q", "-b", "main")
	g(t, dir, "add", "a.txt")
	g(t, dir, "commit", "-qm", "first")
	return dir
}

// g runs git in dir, failing the test when it fails, and returns its
// output trimmed.
func g(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@e", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestCheckNameRefusesEscapesAndOptions(t *testing.T) {
	for _, name := range []string{"", "..", "a..b", "../x", "-x", "--", "a/b", `a\b`, "/abs"} {
		if err := CheckName(name); err == nil {
			t.Errorf("CheckName(%q) = nil, want an error", name)
		}
	}
	for _, name := range []string{"feature-search", "a.b", "x_1", "2026-01-02-03-04-05-678-ab12"} {
		if err := CheckName(name); err != nil {
			t.Errorf("CheckName(%q) = %v, want nil", name, err)
		}
	}
}

// 0.61's generated name: the ISO time, its separators as '-', and four
// base-36 digits (WorktreeService.setup).
func TestGeneratedNameIsGeminiCLIs(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 30, 45, 123e6, time.FixedZone("x", 3600))
	name := GeneratedName(now)
	if !regexp.MustCompile(`^2026-05-01-11-30-45-123-[0-9a-z]{4}$`).MatchString(name) {
		t.Errorf("GeneratedName = %q, want 2026-05-01-11-30-45-123-xxxx", name)
	}
}

// Create makes .gemini/worktrees/NAME on worktree-NAME from HEAD, even
// asked from a subdirectory; Finish removes it and its branch when
// nothing changed, and keeps it otherwise.
func TestCreateAndFinish(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	head := g(t, dir, "rev-parse", "HEAD")
	w, err := Create(ctx, sub, "clean", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, ".gemini", "worktrees", "clean")
	if w.Path != want || w.Branch != "worktree-clean" || w.Base != head || w.Project != dir {
		t.Fatalf("Create = %+v, want path %s, branch worktree-clean, base %s", w, want, head)
	}
	if got := g(t, w.Path, "branch", "--show-current"); got != "worktree-clean" {
		t.Errorf("the worktree is on %q", got)
	}
	if removed, err := w.Finish(ctx); err != nil || !removed {
		t.Fatalf("Finish of an unmodified worktree = %v, %v; want removed", removed, err)
	}
	if _, err := os.Stat(w.Path); !os.IsNotExist(err) {
		t.Errorf("the unmodified worktree is still there: %v", err)
	}
	if out := g(t, dir, "branch", "--list", "worktree-clean"); out != "" {
		t.Errorf("its branch is still there: %q", out)
	}

	for what, change := range map[string]func(w *Worktree){
		"an untracked file": func(w *Worktree) { os.WriteFile(filepath.Join(w.Path, "new.txt"), []byte("n"), 0o644) },
		"a commit": func(w *Worktree) {
			os.WriteFile(filepath.Join(w.Path, "a.txt"), []byte("b\n"), 0o644)
			g(t, w.Path, "commit", "-qam", "b")
		},
	} {
		w, err := Create(ctx, dir, "", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		change(w)
		if removed, err := w.Finish(ctx); err != nil || removed {
			t.Errorf("Finish of a worktree with %s = %v, %v; want kept", what, removed, err)
		}
		if _, err := os.Stat(w.Path); err != nil {
			t.Errorf("the worktree with %s is gone: %v", what, err)
		}
	}
}

// A name git refuses, a directory outside git, a repository without a
// commit: a clear error, and nothing made.
func TestCreateRefusals(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	for name, want := range map[string]string{
		"a b":    `git refuses "worktree-a b" as a branch name`,
		"x.lock": `git refuses "worktree-x.lock" as a branch name`,
		"../x":   `holds ".."`,
		"-f":     `begins with "-"`,
		"a/b":    "path separator",
	} {
		_, err := Create(ctx, dir, name, time.Now())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Create(%q) = %v, want an error saying %s", name, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".gemini")); !os.IsNotExist(err) {
		t.Errorf("a refused name made .gemini: %v", err)
	}
	if out := g(t, dir, "branch", "--list", "worktree-*"); out != "" {
		t.Errorf("a refused name made a branch: %q", out)
	}
	if _, err := Create(ctx, dir, "taken", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(ctx, dir, "taken", time.Now()); err == nil {
		t.Error("a second worktree of the same name was made")
	}

	notRepo := t.TempDir()
	if _, err := Create(ctx, notRepo, "x", time.Now()); err == nil || !strings.Contains(err.Error(), "not in a git repository") {
		t.Errorf("outside git: %v, want not in a git repository", err)
	}
	empty := t.TempDir()
	g(t, empty, "init", "-q")
	if _, err := Create(ctx, empty, "x", time.Now()); err == nil || !strings.Contains(err.Error(), "no commit") {
		t.Errorf("without a commit: %v, want no commit", err)
	}
}

// Of finds the worktree a session starts in, from any of its
// directories, and nothing in the main tree.
func TestOf(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	if w, ok := Of(ctx, dir); ok {
		t.Errorf("Of(main tree) = %+v", w)
	}
	made, err := Create(ctx, dir, "r", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(made.Path, "d"), 0o755)
	w, ok := Of(ctx, filepath.Join(made.Path, "d"))
	if !ok || w.Path != made.Path || w.Name != "r" || w.Branch != "worktree-r" || w.Project != dir {
		t.Errorf("Of(worktree/d) = %+v, %v; want %+v", w, ok, made)
	}
	if _, ok := Of(ctx, t.TempDir()); ok {
		t.Error("Of(outside git) found a worktree")
	}
}

// git worktree add is not safe to run twice at once on one repository
// (an add reads the other's commondir before it is written): many
// Creates at once all succeed, each worktree whole on its branch.
func TestCreatesAtOnceAllSucceed(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	const rounds, at = 4, 8
	for r := range rounds {
		errs := make(chan error, at)
		for i := range at {
			go func() {
				w, err := Create(ctx, dir, fmt.Sprintf("r%d-a%d", r, i), time.Now())
				if err == nil && g(t, w.Path, "branch", "--show-current") != w.Branch {
					err = fmt.Errorf("%s is not on %s", w.Path, w.Branch)
				}
				errs <- err
			}()
		}
		for range at {
			if err := <-errs; err != nil {
				t.Errorf("round %d: %v", r, err)
			}
		}
	}
	list, err := List(ctx, dir)
	if err != nil || len(list) != rounds*at {
		t.Errorf("List: %d worktrees, %v; want %d", len(list), err, rounds*at)
	}
}
