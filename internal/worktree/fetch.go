package worktree

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/fetchsource"
)

// Fetch brings origin's branch into the worktree named name of the
// project dir is in: fetched into refs/remotes/origin/<branch>, then a
// new worktree .gemini/worktrees/<name> on a local branch of the same
// name, or, when that worktree is there already (a run of the same task
// again), fast-forwarded to it. A worktree whose branch has commits or
// changes origin's has not is left as it is and the error says so.
// Base is where the branch forked from the project's HEAD. config is
// git configuration for the fetch alone, key then value (a token's
// header for origin), given through the environment, never argv.
func Fetch(ctx context.Context, dir, name, branch string, config ...string) (*Worktree, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	project, err := ProjectRoot(ctx, dir)
	if err != nil {
		return nil, err
	}
	if _, err := git(ctx, project, "check-ref-format", "--branch", branch); err != nil {
		return nil, fmt.Errorf("git refuses %q as a branch name", branch)
	}
	remote := "refs/remotes/origin/" + branch
	if _, err := gitConfigured(ctx, project, config, "fetch", "--no-tags", "--quiet", "origin", "+refs/heads/"+branch+":"+remote); err != nil {
		return nil, fmt.Errorf("fetching %s from origin: %w", branch, err)
	}
	path := filepath.Join(project, filepath.FromSlash(Dir), name)
	w := &Worktree{Name: name, Path: path, Branch: branch, Project: project}
	if _, err := os.Lstat(path); err == nil {
		if held, _ := git(ctx, path, "rev-parse", "--abbrev-ref", "HEAD"); held != branch {
			return nil, fmt.Errorf("%s holds the branch %s, not %s: move it away to fetch %s", path, held, branch, branch)
		}
		if _, err := git(ctx, path, "merge", "--ff-only", "--quiet", remote); err != nil {
			return nil, fmt.Errorf("bringing %s up to origin's %s: %w", path, branch, err)
		}
	} else if _, err := git(ctx, project, "worktree", "add", "--quiet", "-B", branch, "--", path, remote); err != nil {
		return nil, fmt.Errorf("making the worktree of %s: %w", branch, err)
	}
	if head, err := git(ctx, project, "rev-parse", "HEAD"); err == nil {
		w.Base, _ = git(ctx, path, "merge-base", "HEAD", head)
	}
	return w, nil
}

// gitConfigured is git with config (key, value pairs) added to the safe
// environment's.
func gitConfigured(ctx context.Context, dir string, config []string, args ...string) (string, error) {
	var stdout bytes.Buffer
	if err := runGitEnv(ctx, dir, fetchsource.WithGitConfig(fetchsource.SafeGitEnv(os.Environ()), config...), &stdout, args...); err != nil {
		return "", err
	}
	return strings.TrimSpace(stdout.String()), nil
}

// RemoteURL is the URL of the repository at dir's remote name, "" and
// an error when it has none.
func RemoteURL(ctx context.Context, dir, name string) (string, error) {
	return git(ctx, dir, "remote", "get-url", "--", name)
}

// CurrentBranch is the branch checked out at dir, "" when none (a
// detached HEAD).
func CurrentBranch(ctx context.Context, dir string) (string, error) {
	b, err := git(ctx, dir, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return "", err
	}
	return b, nil
}
