package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/background"
	"github.com/gemini-ls/gemini-ls/internal/fleet"
)

// runDelegate is gemini-ls delegate: a task started on GitHub Actions
// (package background), followed until its pull request is there and
// its branch fetched into a worktree for review.
func runDelegate(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("delegate", flag.ContinueOnError)
	var prompt, base, model, dir string
	var noWait bool
	fs.StringVar(&prompt, "p", "", "The task for the agent on GitHub Actions")
	fs.StringVar(&prompt, "prompt", "", "The task (as -p)")
	fs.StringVar(&base, "base", "", "The branch to start from (default: this one when GitHub has it, else the default branch)")
	fs.StringVar(&model, "m", "", "The Gemini model (default: the workflow's)")
	fs.StringVar(&model, "model", "", "The Gemini model (as -m)")
	fs.StringVar(&dir, "C", ".", "The repository to work on")
	fs.BoolVar(&noWait, "no-wait", false, "Start the run and end at once, without following it")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(stderr, "gemini-ls delegate: say what the agent is to do with -p \"the task\"")
		return 2
	}
	r, err := background.Open(ctx, background.Where{Dir: dir, Getenv: os.Getenv})
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls delegate: %v\n", err)
		return 1
	}
	s, err := r.Dispatch(ctx, background.Task{Prompt: prompt, Base: base, Model: model})
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls delegate: %v\n", err)
		return 1
	}
	if s.Note != "" {
		fmt.Fprintln(stderr, s.Note)
	}
	fmt.Fprintf(stderr, "Started on GitHub Actions in %s from %s: the task %s, on the branch %s.\n", r.Repo, s.Base, s.Name, s.Branch())
	if noWait {
		fmt.Fprintf(stdout, "%s\n", s.Branch())
		return 0
	}
	fmt.Fprintln(stderr, "Following its run (Ctrl-C stops following, not the run).")
	ended, err := r.Follow(ctx, s.Watch, s.Branch(), func(st background.Step) {
		if st.Run.HTMLURL != "" {
			fmt.Fprintf(stderr, "%s: %s\n", st.State, st.Run.HTMLURL)
		} else {
			fmt.Fprintf(stderr, "%s\n", st.State)
		}
	})
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls delegate: following the run: %v\n", err)
		return 1
	}
	if ended.State != fleet.Done {
		fmt.Fprintf(stderr, "gemini-ls delegate: %s\n", ended.Err)
		return 1
	}
	if ended.Pull.Number == 0 {
		fmt.Fprintf(stderr, "The agent changed nothing, so there is no pull request (%s).\n", ended.Run.HTMLURL)
		return 0
	}
	fmt.Fprintf(stdout, "Pull request #%d: %s\n", ended.Pull.Number, ended.Pull.HTMLURL)
	wt, err := r.Fetch(ctx, s.Name, s.Branch())
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls delegate: %v\n", err)
		return 1
	}
	rel, err := filepath.Rel(r.Project, wt.Path)
	if err != nil {
		rel = wt.Path
	}
	fmt.Fprintf(stdout, "Its work is in %s, on the branch %s; see it with: git diff %s...%s\n", rel, wt.Branch, abbrev(wt.Base), wt.Branch)
	fmt.Fprintf(stdout, "Land it from your editor's agents view, or: git merge %s; drop it with: git worktree remove %s\n", wt.Branch, rel)
	return 0
}

// abbrev is a commit's first digits, as git shows it.
func abbrev(c string) string {
	if len(c) > shortCommit {
		return c[:shortCommit]
	}
	return c
}
