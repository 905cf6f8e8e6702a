package background

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/fetchsource"
	"github.com/gemini-ls/gemini-ls/internal/ghtask"
	"github.com/gemini-ls/gemini-ls/internal/github"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/worktree"
)

// Workflow is the workflow file a task is dispatched to, the one
// /setup-github writes.
const Workflow = "gemini-ls.yml"

// BranchPrefix begins a background task's branch: gemini/<task>.
const BranchPrefix = "gemini/"

// titlePrefix begins a run's display title (the workflow's run-name).
const titlePrefix = "gemini-ls: "

// DefaultPoll is how often a run is asked about.
const DefaultPoll = 5 * time.Second

// Remote is the GitHub repository of the user's local one, with the
// user's token.
type Remote struct {
	// Repo is the repository on GitHub.
	Repo github.Repo
	// Project is the local repository's root.
	Project string
	// Poll is how often a run is asked about.
	Poll time.Duration

	gh     *github.Client
	header []string // git config giving origin the token, key then value
}

// Where says where Open looks: the directory, the environment, and the
// token the editor gives ("" for none).
type Where struct {
	Dir    string
	Getenv func(string) string
	Token  string
	// HTTP is the client the API is called with; nil is
	// http.DefaultClient.
	HTTP *http.Client
}

// Open finds the GitHub repository of the local repository at w.Dir and
// the user's token. The repository is GITHUB_REPOSITORY's (owner/name)
// when set, else origin's on github.com; the API GITHUB_API_URL's, else
// GitHub's own.
func Open(ctx context.Context, w Where) (*Remote, error) {
	project, err := worktree.ProjectRoot(ctx, w.Dir)
	if err != nil {
		return nil, fmt.Errorf("an agent on GitHub works on a git repository: %w", err)
	}
	origin, _ := worktree.RemoteURL(ctx, project, "origin")
	var repo github.Repo
	if name := strings.TrimSpace(w.Getenv("GITHUB_REPOSITORY")); name != "" {
		if repo, err = github.ParseRepo(name); err != nil {
			return nil, fmt.Errorf("GITHUB_REPOSITORY: %w", err)
		}
	} else if r, ok := github.RepoOfRemote(origin); ok {
		repo = r
	} else if origin == "" {
		return nil, fmt.Errorf("%s has no remote named origin, so there is no GitHub repository to run the agent in: add one (git remote add origin https://github.com/OWNER/NAME)", project)
	} else {
		return nil, fmt.Errorf("origin (%s) is not a repository on github.com; set GITHUB_REPOSITORY=OWNER/NAME to name the one to run the agent in", origin)
	}
	token, err := findToken(ctx, project, w)
	if err != nil {
		return nil, err
	}
	gh, err := github.New(w.Getenv("GITHUB_API_URL"), token, w.HTTP)
	if err != nil {
		return nil, err
	}
	return &Remote{Repo: repo, Project: project, Poll: DefaultPoll, gh: gh, header: fetchsource.TokenHeader(origin, token)}, nil
}

// errNoToken says how to give gemini-ls a token.
var errNoToken = errors.New("gemini-ls needs your GitHub token to run an agent on GitHub Actions: sign in to GitHub in your editor, run `gh auth login`, or set GITHUB_TOKEN")

// findToken is the editor's token, else gh's, else the environment's.
func findToken(ctx context.Context, dir string, w Where) (string, error) {
	if t := strings.TrimSpace(w.Token); t != "" {
		return t, nil
	}
	cmd := spawn.Command(ctx, spawn.Helper{Name: "gh"}, "gh", "auth", "token")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err == nil {
		if t := strings.TrimSpace(out.String()); t != "" {
			return t, nil
		}
	}
	for _, name := range []string{"GITHUB_TOKEN", "GH_TOKEN"} {
		if t := strings.TrimSpace(w.Getenv(name)); t != "" {
			return t, nil
		}
	}
	return "", errNoToken
}

// Task is what the user asks of an agent on GitHub.
type Task struct {
	Prompt string
	// Base is the branch to start from: "" for the branch checked out
	// here when GitHub has it, else the repository's default branch.
	Base string
	// Model is the Gemini model, "" for the workflow's.
	Model string
}

// Started is a task dispatched.
type Started struct {
	// Name is the task's: its branch is BranchPrefix+Name, its worktree
	// .gemini/worktrees/<Name>.
	Name string
	// Base is the branch it starts from.
	Base string
	// Note says what the user did not ask for (another base), "" when
	// nothing.
	Note  string
	Watch *Watch
}

// Branch is the task's branch.
func (s Started) Branch() string { return BranchPrefix + s.Name }

// Dispatch starts task on GitHub: the workflow dispatched on the
// repository's default branch, the task's name and base among its
// inputs. The run is found later, by Follow.
func (r *Remote) Dispatch(ctx context.Context, task Task) (Started, error) {
	prompt := strings.TrimSpace(task.Prompt)
	if prompt == "" {
		return Started{}, errors.New("the task is empty: say what the agent is to do")
	}
	repo, err := r.gh.Repository(ctx, r.Repo)
	if err != nil {
		return Started{}, err
	}
	s := Started{Name: ghtask.Name(prompt, suffix()), Base: strings.TrimSpace(task.Base)}
	if s.Base == "" {
		s.Base = repo.DefaultBranch
		if here, _ := worktree.CurrentBranch(ctx, r.Project); here != "" && here != repo.DefaultBranch {
			if ok, err := r.gh.HasBranch(ctx, r.Repo, here); err != nil {
				return Started{}, err
			} else if ok {
				s.Base = here
			} else {
				s.Note = fmt.Sprintf("Your branch %s is not on GitHub, so the agent starts from %s.", here, repo.DefaultBranch)
			}
		}
	}
	watch, err := r.watch(ctx, "workflow_dispatch", titlePrefix+s.Name)
	if err != nil {
		return Started{}, err
	}
	inputs := map[string]string{"prompt": prompt, "task": s.Name, "base": s.Base}
	if task.Model != "" {
		inputs["model"] = task.Model
	}
	if err := r.gh.DispatchWorkflow(ctx, r.Repo, Workflow, repo.DefaultBranch, inputs); err != nil {
		var e *github.Error
		if errors.As(err, &e) && e.Status == http.StatusNotFound {
			return Started{}, fmt.Errorf("%s has no workflow %s on %s that takes a dispatch: run /setup-github, then commit and push .github/workflows/%s (%w)", r.Repo, Workflow, repo.DefaultBranch, Workflow, err)
		}
		return Started{}, err
	}
	s.Watch = watch
	return s, nil
}

// FollowUp asks the agent of pull request number for more: a comment
// naming @gemini-ls, which runs the workflow again on the pull
// request's branch. Follow follows that run.
func (r *Remote) FollowUp(ctx context.Context, number int, prompt string) (*Watch, error) {
	prompt = strings.TrimSpace(prompt)
	if prompt == "" {
		return nil, errors.New("the follow-up is empty: say what the agent is to do")
	}
	w, err := r.watch(ctx, "issue_comment", fmt.Sprintf("%s#%d", titlePrefix, number))
	if err != nil {
		return nil, err
	}
	if _, err := r.gh.CreateComment(ctx, r.Repo, number, ghtask.Mention+" "+prompt); err != nil {
		return nil, err
	}
	return w, nil
}

// watch is a Watch of the next run of event titled title: the runs
// there now are not it.
func (r *Remote) watch(ctx context.Context, event, title string) (*Watch, error) {
	runs, err := r.gh.Runs(ctx, r.Repo, Workflow, event)
	if err != nil {
		var e *github.Error
		if errors.As(err, &e) && e.Status == http.StatusNotFound {
			return nil, fmt.Errorf("%s has no workflow %s: run /setup-github, then commit and push .github/workflows/%s (%w)", r.Repo, Workflow, Workflow, err)
		}
		return nil, err
	}
	w := &Watch{Event: event, Title: title, Before: map[int64]bool{}}
	for _, run := range runs {
		w.Before[run.ID] = true
	}
	return w, nil
}

// suffix is four random hex digits.
func suffix() string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Fetch brings branch into the worktree name of the local repository,
// for review (worktree.Fetch), with the token for an https origin.
func (r *Remote) Fetch(ctx context.Context, name, branch string) (*worktree.Worktree, error) {
	return worktree.Fetch(ctx, r.Project, name, branch, r.header...)
}

// WorktreePath is where task name's work is fetched to.
func (r *Remote) WorktreePath(name string) string {
	return filepath.Join(r.Project, filepath.FromSlash(worktree.Dir), name)
}
