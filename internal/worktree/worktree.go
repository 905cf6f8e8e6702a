package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/fetchsource"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// Dir is where a project's worktrees are, under its root, as in 0.61
// (getWorktreePath).
const Dir = configfiles.Gemini + "/" + configfiles.Worktrees

// BranchPrefix begins every worktree's branch name (0.61's createWorktree).
const BranchPrefix = "worktree-"

// Worktree is one session's git worktree.
type Worktree struct {
	// Name is its directory's name under Dir.
	Name string
	// Path is its directory, absolute.
	Path string
	// Branch is the branch checked out in it: BranchPrefix+Name.
	Branch string
	// Project is the root of the repository it belongs to, where Dir is.
	Project string
	// Base is the commit it was made from (or, resumed, its HEAD as the
	// session began): Finish compares its HEAD with it.
	Base string
}

// GeneratedName is the name 0.61 gives a worktree given none
// (WorktreeService.setup): now as an ISO time in UTC, its ':' and '.'
// and the 'T' as '-', the 'Z' dropped, then '-' and four base-36 digits.
func GeneratedName(now time.Time) string {
	stamp := now.UTC().Format("2006-01-02-15-04-05.000")
	stamp = strings.ReplaceAll(stamp, ".", "-")
	suffix := ""
	for range 4 {
		suffix += strconv.FormatInt(int64(rand.IntN(36)), 36)
	}
	return stamp + "-" + suffix
}

// CheckName refuses a name git would take but that would escape
// .gemini/worktrees or read as an option; git's own rules for the
// branch name come after (Create asks git check-ref-format).
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("the worktree name is empty")
	case strings.Contains(name, ".."):
		return fmt.Errorf("the worktree name %q holds \"..\": a worktree is a directory of %s, never beside it", name, Dir)
	case strings.HasPrefix(name, "-"):
		return fmt.Errorf("the worktree name %q begins with \"-\", which git would read as an option", name)
	case strings.ContainsAny(name, `/\`):
		return fmt.Errorf("the worktree name %q holds a path separator: it names one directory of %s", name, Dir)
	}
	return nil
}

// Create makes a worktree named name (generated when "") for the
// project dir is in: .gemini/worktrees/<name> under the repository's
// main root, on a new branch worktree-<name> from that root's HEAD, as
// 0.61's setup and createWorktree do. now is for a generated name.
func Create(ctx context.Context, dir, name string, now time.Time) (*Worktree, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = GeneratedName(now)
	}
	if err := CheckName(name); err != nil {
		return nil, err
	}
	branch := BranchPrefix + name
	project, err := ProjectRoot(ctx, dir)
	if err != nil {
		return nil, err
	}
	if _, err := git(ctx, project, "check-ref-format", "--branch", branch); err != nil {
		return nil, fmt.Errorf("git refuses %q as a branch name, so the worktree name %q cannot be used", branch, name)
	}
	base, err := git(ctx, project, "rev-parse", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("%s has no commit to make a worktree from: %w", project, err)
	}
	path := filepath.Join(project, filepath.FromSlash(Dir), name)
	if _, err := git(ctx, project, "worktree", "add", "-b", branch, "--", path); err != nil {
		return nil, err
	}
	return &Worktree{Name: name, Path: path, Branch: branch, Project: project, Base: base}, nil
}

// ProjectRoot is the root of the repository dir is in, its main
// worktree's even from a linked one: the directory holding git's common
// directory, as 0.61's getProjectRootForWorktree has it.
func ProjectRoot(ctx context.Context, dir string) (string, error) {
	common, err := git(ctx, dir, "rev-parse", "--git-common-dir")
	if err != nil {
		return "", fmt.Errorf("%s is not in a git repository: %w", dir, err)
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	return filepath.Dir(filepath.Clean(common)), nil
}

// Of is the worktree dir is in, when that is one of its project's
// (under .gemini/worktrees), as 0.61's resolveWorktreeSettings finds it
// for a session started there; its Base is its HEAD now. ok is false
// elsewhere, and outside git.
func Of(ctx context.Context, dir string) (w *Worktree, ok bool) {
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, false
	}
	project, err := ProjectRoot(ctx, top)
	if err != nil {
		return nil, false
	}
	if !within(filepath.Join(project, filepath.FromSlash(Dir)), top) {
		return nil, false
	}
	head, err := git(ctx, top, "rev-parse", "HEAD")
	if err != nil {
		return nil, false
	}
	branch, _ := git(ctx, top, "branch", "--show-current")
	return &Worktree{Name: filepath.Base(top), Path: top, Branch: branch, Project: project, Base: head}, true
}

// within reports whether path is below dir, links followed, as 0.61's
// isGeminiWorktree compares real paths.
func within(dir, path string) bool {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Modified reports whether the worktree holds anything new: a change
// git status shows (untracked files included), or a HEAD that is no
// longer Base, as 0.61's hasWorktreeChanges. A git that fails counts as
// modified, so that nothing is removed on a guess.
func (w *Worktree) Modified(ctx context.Context) bool {
	status, err := git(ctx, w.Path, "status", "--porcelain")
	if err != nil || status != "" {
		return true
	}
	head, err := git(ctx, w.Path, "rev-parse", "HEAD")
	return err != nil || head != w.Base
}

// Remove removes the worktree and deletes its branch, as 0.61's
// cleanupWorktree (git worktree remove --force, git branch -D).
func (w *Worktree) Remove(ctx context.Context) error {
	if _, err := os.Lstat(w.Path); err != nil {
		return nil // gone already
	}
	if _, err := git(ctx, w.Project, "worktree", "remove", "--force", "--", w.Path); err != nil {
		return fmt.Errorf("removing the worktree %s: %w", w.Path, err)
	}
	if w.Branch == "" {
		return nil
	}
	if _, err := git(ctx, w.Project, "branch", "-D", "--", w.Branch); err != nil {
		return fmt.Errorf("deleting the branch %s: %w", w.Branch, err)
	}
	return nil
}

// Finish ends the session's use of a worktree it created: removed
// (worktree and branch) when unmodified, as 0.61's
// WorktreeService.maybeCleanup does, else kept. It reports whether it
// was removed.
func (w *Worktree) Finish(ctx context.Context) (removed bool, err error) {
	if w.Modified(ctx) {
		return false, nil
	}
	if err := w.Remove(ctx); err != nil {
		return false, err
	}
	return true, nil
}

// git runs git with args in dir through the door and returns its
// output, trimmed; its error names the command and git's last words.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := spawn.Command(ctx, spawn.Helper{Name: "git"}, "git", args...)
	cmd.Dir = dir
	cmd.Env = fetchsource.SafeGitEnv(os.Environ())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, spawn.ErrNotFound) {
			return "", errors.New("git is not installed (worktrees need it)")
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if last := lastLine(stderr.String()); last != "" {
			return "", fmt.Errorf("git %s: %s", args[0], last)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return strings.TrimSpace(stdout.String()), nil
}

// lastLine is the last line of s that is not blank.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
