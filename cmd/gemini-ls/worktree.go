package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/cmdline"
	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/shellquote"
	"github.com/gemini-ls/gemini-ls/internal/worktree"
)

// worktreeOff is 0.61's refusal of --worktree without the setting (its
// parseArguments' check).
const worktreeOff = "The --worktree flag is only available when experimental.worktrees is enabled in your settings."

// runWorktree is the git worktree a run works in: one it made (-w),
// which it removes at its end when nothing changed, or one it was
// started in (a session resumed there), which it keeps.
type runWorktree struct {
	w       *worktree.Worktree
	created bool
}

// enterWorktree makes the worktree -w asks for, as 0.61's setupWorktree
// does before anything else runs, and moves the run into its root
// (f.dir): the tools' root, the memory, the sessions and the paths of
// the other flags are the worktree's. Without -w it finds the worktree
// the run was started in, if any. It returns the exit status, or 0 to
// go on.
func (f *runFlags) enterWorktree(ctx context.Context, stderr io.Writer) (*runWorktree, int) {
	dir, err := filepath.Abs(f.dir)
	if err != nil {
		return nil, 0 // runWorkspace says why
	}
	if f.worktree == nil {
		if !inWorktreesDir(dir) {
			return nil, 0 // no git call for a run anywhere else
		}
		if w, ok := worktree.Of(ctx, dir); ok {
			return &runWorktree{w: w}, 0
		}
		return nil, 0
	}
	if !f.worktreesEnabled(dir) {
		// 0.61's sentence as its yargs says it, on a line of its own.
		fmt.Fprintf(stderr, "%s\ngemini-ls run: %s\n", worktreeOff, cmdline.SeeHelp("run"))
		return nil, exitError
	}
	// 0.61 names a worktree given no name by its clock (worktree.GeneratedName).
	w, err := worktree.Create(ctx, dir, *f.worktree, time.Now())
	if err != nil {
		// 0.61's words (worktreeSetup.ts), then why.
		fmt.Fprintf(stderr, "gemini-ls run: Failed to create or switch to worktree: %v\n", err)
		return nil, exitError
	}
	f.dir = w.Path
	return &runWorktree{w: w, created: true}, 0
}

// worktreesEnabled is experimental.worktrees in the settings of dir, as
// 0.61 reads them before it makes the worktree: the workspace's only in
// a trusted folder.
func (f *runFlags) worktreesEnabled(dir string) bool {
	getenv := os.Getenv
	if f.skipTrust {
		getenv, _ = withEnv(getenv, os.LookupEnv, "GEMINI_CLI_TRUST_WORKSPACE", "true")
	}
	trust, _ := settings.DecideTrust(getenv, []string{dir})
	// Its problems are told when the run reads the settings for use.
	set, _ := settings.Load(getenv, []string{dir}, trust)
	return set.Experimental.Worktrees
}

// inWorktreesDir reports whether dir is below a .gemini/worktrees
// directory, where a run may be in a worktree of its project.
func inWorktreesDir(dir string) bool {
	parts := strings.Split(filepath.ToSlash(dir), "/")
	for i := range parts[:max(len(parts)-2, 0)] {
		if parts[i] == configfiles.Gemini && parts[i+1] == configfiles.Worktrees {
			return true
		}
	}
	return false
}

// leave ends the run's use of its worktree: one it made and left
// unmodified is removed with its branch, as 0.61's maybeCleanup does;
// any other is kept, and stderr (never stdout, which holds the answer)
// says where it is and how to resume, merge or remove it, as 0.61's
// session summary does (SessionSummaryDisplay). Removal runs even after
// a cancelled run.
func (rw *runWorktree) leave(ctx context.Context, sessionID string, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	w := rw.w
	if rw.created {
		removed, err := w.Finish(ctx)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "gemini-ls: the worktree %s held no change, but it could not be removed: %v\n", w.Path, err)
		case removed:
			fmt.Fprintf(stderr, "gemini-ls: the worktree %s held no change and was removed, with its branch %s.\n", w.Path, w.Branch)
			return
		default:
			fmt.Fprintf(stderr, "gemini-ls: the worktree %s holds this session's changes, on the branch %s, and was kept.\n", w.Path, w.Branch)
		}
	} else {
		fmt.Fprintf(stderr, "gemini-ls: this session ran in the worktree %s, on the branch %s, which is kept.\n", w.Path, w.Branch)
	}
	path := shellquote.Quote(w.Path)
	resume := "gemini-ls run"
	if sessionID != "" {
		resume += " --resume " + shellquote.Quote(sessionID)
	}
	fmt.Fprintf(stderr, "To resume work in this worktree: cd %s && %s\n", path, resume)
	if w.Branch != "" {
		fmt.Fprintf(stderr, "To merge it: commit your work there, then: cd %s && git merge %s\n", shellquote.Quote(w.Project), shellquote.Quote(w.Branch))
		fmt.Fprintf(stderr, "To remove manually: git worktree remove --force %s && git branch -D %s\n", path, shellquote.Quote(w.Branch))
		return
	}
	fmt.Fprintf(stderr, "To remove manually: git worktree remove --force %s\n", path)
}
