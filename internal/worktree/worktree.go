package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/fetchsource"
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
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("%s already exists: name another worktree", path)
	}
	w := &Worktree{Name: name, Path: path, Branch: branch, Project: project, Base: base}
	for attempt := 1; ; attempt++ {
		_, err := git(ctx, project, "worktree", "add", "-b", branch, "--", path)
		if err == nil {
			return w, nil
		}
		if attempt == addAttempts || !racedAnotherAdd(err) {
			return nil, err
		}
		// git left the branch it had made; another try makes the
		// worktree whole, after the other add is done.
		w.undoPartialAdd(ctx)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt*(20+rand.IntN(40))) * time.Millisecond):
		}
	}
}

// addAttempts bounds the tries of a git worktree add that raced another.
const addAttempts = 5

// racedAnotherAdd reports whether git worktree add failed because
// another add of the same repository ran at once: git reads every
// worktree's commondir as it adds one, and the other's may be created
// but not yet written ("failed to read .git/worktrees/x/commondir"),
// which git (2.39 to 2.55 at least) does not guard against.
func racedAnotherAdd(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "failed to read") && (strings.Contains(msg, "commondir") || strings.Contains(msg, "gitdir"))
}

// undoPartialAdd removes what an add of w that raced another made: git
// creates the branch (worktree add -b) before it reads the other
// worktrees and dies, and nothing else, so the branch is deleted while
// it still points at Base and no worktree holds it. Nothing is pruned:
// a prune would take another add's directory still being made.
func (w *Worktree) undoPartialAdd(ctx context.Context) {
	if _, err := os.Lstat(w.Path); err == nil {
		return // made after all; the next try says so
	}
	if head, err := git(ctx, w.Project, "rev-parse", "--verify", "-q", "refs/heads/"+w.Branch); err == nil && head == w.Base {
		_, _ = git(ctx, w.Project, "branch", "-D", "--", w.Branch)
	}
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
	var stdout bytes.Buffer
	if err := runGit(ctx, dir, &stdout, args...); err != nil {
		return "", err
	}
	return strings.TrimSpace(stdout.String()), nil
}

// runGit runs git with args in dir through the door, with Gemini CLI's
// safe git environment, its output to stdout; its error names the
// command and git's last words.
func runGit(ctx context.Context, dir string, stdout io.Writer, args ...string) error {
	return runGitEnv(ctx, dir, fetchsource.SafeGitEnv(os.Environ()), stdout, args...)
}

// runGitEnv is runGit with the environment env.
func runGitEnv(ctx context.Context, dir string, env []string, stdout io.Writer, args ...string) error {
	err := fetchsource.RunGit(ctx, dir, env, stdout, args...)
	if errors.Is(err, fetchsource.ErrNoGit) {
		return errors.New("git is not installed (worktrees need it)")
	}
	return err
}

// List is the worktrees of project's Dir that git knows, after git has
// pruned those whose directory is gone (git worktree prune): a worktree
// deleted by hand is forgotten, its branch kept. Each one's Base is the
// commit its branch forked from project's HEAD (git merge-base), what an
// agent's work is measured against after a restart. The prune would
// take the directory of an add still under way (Create), so a caller
// that does both at once serialises them.
func List(ctx context.Context, project string) ([]*Worktree, error) {
	if _, err := git(ctx, project, "worktree", "prune"); err != nil {
		return nil, err
	}
	out, err := git(ctx, project, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	head, _ := git(ctx, project, "rev-parse", "HEAD")
	dir := filepath.Join(project, filepath.FromSlash(Dir))
	var list []*Worktree
	for _, block := range strings.Split(out, "\n\n") {
		var path, branch string
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "worktree "):
				path = strings.TrimPrefix(line, "worktree ")
			case strings.HasPrefix(line, "branch refs/heads/"):
				branch = strings.TrimPrefix(line, "branch refs/heads/")
			}
		}
		if path == "" || !sameDir(dir, filepath.Dir(path)) {
			continue
		}
		w := &Worktree{Name: filepath.Base(path), Path: path, Branch: branch, Project: project}
		if head != "" {
			w.Base, _ = git(ctx, path, "merge-base", "HEAD", head)
		}
		list = append(list, w)
	}
	return list, nil
}

// sameDir reports whether a and b are one directory, links followed.
func sameDir(a, b string) bool {
	ai, errA := os.Stat(a)
	bi, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ai, bi)
}

// Status is how a file of a worktree's work differs from its base.
type Status string

const (
	Added    Status = "added"
	Modified Status = "modified"
	Deleted  Status = "deleted"
)

// Change is one file of a worktree's work: its path relative to the
// worktree (slashes), and its text at the base and in the worktree now.
type Change struct {
	Path   string
	Status Status
	Base   string // "" when Added
	Now    string // "" when Deleted
}

// Work is what the worktree holds that its Base did not: every file
// changed, committed or not, untracked ones included (not those git
// ignores), as the worktree's files hold them now. A file over maxSize,
// or not text, is refused with an error naming it: work is landed as
// text edits.
func (w *Worktree) Work(ctx context.Context, maxSize int64) ([]Change, error) {
	if w.Base == "" {
		return nil, fmt.Errorf("the worktree %s has no base commit to compare with", w.Path)
	}
	diff, err := git(ctx, w.Path, "diff", "--name-status", "--no-renames", "-z", w.Base, "--")
	if err != nil {
		return nil, err
	}
	others, err := git(ctx, w.Path, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, err
	}
	var changes []Change
	fields := strings.Split(diff, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		status := map[string]Status{"A": Added, "M": Modified, "D": Deleted, "T": Modified}[fields[i]]
		if status == "" {
			continue
		}
		changes = append(changes, Change{Path: fields[i+1], Status: status})
	}
	for _, p := range strings.Split(others, "\x00") {
		if p != "" {
			changes = append(changes, Change{Path: p, Status: Added})
		}
	}
	for i := range changes {
		c := &changes[i]
		if c.Status != Added {
			if c.Base, err = w.baseText(ctx, c.Path, maxSize); err != nil {
				return nil, err
			}
		}
		if c.Status != Deleted {
			if c.Now, err = readText(filepath.Join(w.Path, filepath.FromSlash(c.Path)), maxSize); err != nil {
				return nil, err
			}
		}
	}
	return changes, nil
}

// baseText is path's text at the worktree's Base.
func (w *Worktree) baseText(ctx context.Context, path string, maxSize int64) (string, error) {
	var out bytes.Buffer
	lw := &limitWriter{w: &out, left: maxSize}
	if err := runGit(ctx, w.Path, lw, "show", w.Base+":"+path); err != nil {
		if lw.over {
			return "", fmt.Errorf("%s is over %d bytes at the base, too large to land as text", path, maxSize)
		}
		return "", fmt.Errorf("reading %s at %s: %w", path, w.Base, err)
	}
	return checkText(path, out.Bytes())
}

// readText is the text of the file at path, at most maxSize bytes.
func readText(path string, maxSize int64) (string, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file, which cannot be landed as text", path)
	}
	if info.Size() > maxSize {
		return "", fmt.Errorf("%s is over %d bytes, too large to land as text", path, maxSize)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return checkText(path, b)
}

// checkText is b as text, or why it is not: landed work is text edits.
func checkText(path string, b []byte) (string, error) {
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return "", fmt.Errorf("%s is not UTF-8 text, which cannot be landed as an edit: merge the branch with git instead", path)
	}
	return string(b), nil
}

var errTooLarge = errors.New("output too large")

// limitWriter takes at most left bytes, then fails, over.
type limitWriter struct {
	w    *bytes.Buffer
	left int64
	over bool
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		l.over = true
		return 0, errTooLarge
	}
	l.left -= int64(len(p))
	return l.w.Write(p)
}

// Commit commits everything the worktree holds that is new on its
// branch (untracked files included, ignored ones not), with message;
// nothing to commit is not an error.
func (w *Worktree) Commit(ctx context.Context, message string) error {
	if _, err := git(ctx, w.Path, "add", "-A", "--", "."); err != nil {
		return err
	}
	if status, err := git(ctx, w.Path, "status", "--porcelain"); err != nil || status == "" {
		return err
	}
	_, err := git(ctx, w.Path, append(identity(ctx, w.Path), "commit", "--no-verify", "-q", "-m", message)...)
	return err
}

// identity is git's options naming gemini-ls as the author of a commit
// in dir where git has no identity configured (a fresh machine, a CI
// runner), and none where it has: the user's own name stands.
func identity(ctx context.Context, dir string) []string {
	var opts []string
	if name, _ := git(ctx, dir, "config", "user.name"); name == "" {
		opts = append(opts, "-c", "user.name=gemini-ls")
	}
	if email, _ := git(ctx, dir, "config", "user.email"); email == "" {
		opts = append(opts, "-c", "user.email=gemini-ls@localhost")
	}
	return opts
}

// MergeInto merges the worktree's branch into the project's checked-out
// branch (git merge --no-ff), as the user asked; a merge git stops (a
// conflict, local changes it would overwrite) is aborted, so the
// project's tree is as it was, and the error says why.
func (w *Worktree) MergeInto(ctx context.Context, message string) error {
	args := append(identity(ctx, w.Project), "merge", "--no-ff", "--no-edit", "-m", message, w.Branch)
	if _, err := git(ctx, w.Project, args...); err != nil {
		_, _ = git(context.WithoutCancel(ctx), w.Project, "merge", "--abort")
		return fmt.Errorf("git could not merge %s: %w", w.Branch, err)
	}
	return nil
}
