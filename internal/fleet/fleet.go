package fleet

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/worktree"
)

// State is where an agent is: a closed set, each its own word on the
// wire.
type State string

const (
	// Queued: a background agent's run waits for a runner on GitHub.
	Queued State = "queued"
	// Working: a turn of its runs (a background agent's run runs).
	Working State = "working"
	// Waiting: its turn waits for the user (a confirmation, a question).
	Waiting State = "waiting"
	// Done: its last turn ended as it should.
	Done State = "done"
	// Failed: its last turn ended on an error.
	Failed State = "failed"
	// Stopped: its last turn was cancelled, or its server ended during
	// it; the session resumes.
	Stopped State = "stopped"
	// Discarded: its worktree and branch are gone; told once, then the
	// agent leaves the fleet.
	Discarded State = "discarded"
)

// File is one file of an agent's work, with its lines added and removed
// against the worktree's base.
type File struct {
	Path           string // relative to the worktree, slashes
	Status         worktree.Status
	Added, Removed int
}

// Agent is one agent as the front ends see it: a copy, never shared.
type Agent struct {
	// SessionID is its session's; "" for a worktree found on disk with
	// no session saved.
	SessionID string
	// Title is its task: its first prompt's first line.
	Title    string
	State    State
	Worktree worktree.Worktree
	// StartedAt is its first prompt's time; EndedAt its last turn's end,
	// zero while one runs.
	StartedAt, EndedAt time.Time
	// Tokens are its session's so far.
	Tokens int
	Files  []File
	// Question is what it waits for (Waiting).
	Question string
	// Err is why its last turn failed (Failed), ErrKind the failure's
	// kind where an editor offers a fix.
	Err, ErrKind string
	// Background is where an agent that runs on GitHub Actions is; nil
	// for an agent of this machine. Its Worktree is where its branch is
	// fetched to, there once Background.Fetched.
	Background *Background
}

// Background is a background agent's place on GitHub.
type Background struct {
	// ID names it to the front ends: "bg-" and its first run's id.
	ID string
	// Repository is owner/name.
	Repository string
	// RunID and RunURL are its newest run's.
	RunID  int64
	RunURL string
	// PullNumber and PullURL are its pull request's, 0 and "" until it
	// has one.
	PullNumber int
	PullURL    string
	// Fetched: its branch is in its Worktree, for review.
	Fetched bool
}

// Config is what a Fleet tells its front end.
type Config struct {
	// Changed is told each agent that changed, after the change, outside
	// the fleet's lock; it must not block.
	Changed func(Agent)
}

// Fleet is the agents of one server, by worktree path.
type Fleet struct {
	cfg    Config
	mu     sync.Mutex
	agents map[string]*Agent
}

// New is an empty fleet.
func New(cfg Config) *Fleet {
	return &Fleet{cfg: cfg, agents: map[string]*Agent{}}
}

// Title is the task a prompt gives an agent: its first line that holds
// something, at most 80 characters.
func Title(prompt string) string {
	for line := range strings.Lines(prompt) {
		if line = strings.TrimSpace(line); line != "" {
			if r := []rune(line); len(r) > 80 {
				return string(r[:79]) + "…"
			}
			return line
		}
	}
	return ""
}

// Add puts a in the fleet, in place of any agent of its worktree, and
// tells the front end.
func (f *Fleet) Add(a Agent) {
	f.mu.Lock()
	f.agents[a.Worktree.Path] = new(copyOf(&a))
	f.mu.Unlock()
	f.tell(a)
}

// Update changes the agent of the worktree at path with change, and
// tells the front end; false when the fleet has no such agent.
func (f *Fleet) Update(path string, change func(*Agent)) bool {
	f.mu.Lock()
	a, ok := f.agents[path]
	if !ok {
		f.mu.Unlock()
		return false
	}
	change(a)
	c := copyOf(a)
	if a.State == Discarded {
		delete(f.agents, path)
	}
	f.mu.Unlock()
	f.tell(c)
	return true
}

// BySession is the agent whose session is id.
func (f *Fleet) BySession(id string) (Agent, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.agents {
		if id != "" && a.SessionID == id {
			return copyOf(a), true
		}
	}
	return Agent{}, false
}

// ByName is the agent of the worktree named name.
func (f *Fleet) ByName(name string) (Agent, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.agents {
		if a.Worktree.Name == name {
			return copyOf(a), true
		}
	}
	return Agent{}, false
}

// List is every agent, the most recently started first.
func (f *Fleet) List() []Agent {
	f.mu.Lock()
	out := make([]Agent, 0, len(f.agents))
	for _, a := range f.agents {
		out = append(out, copyOf(a))
	}
	f.mu.Unlock()
	slices.SortFunc(out, func(a, b Agent) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Worktree.Name, b.Worktree.Name)
	})
	return out
}

func copyOf(a *Agent) Agent {
	c := *a
	c.Files = slices.Clone(a.Files)
	if a.Background != nil {
		b := *a.Background
		c.Background = &b
	}
	return c
}

// ByBackground is the background agent whose Background.ID is id.
func (f *Fleet) ByBackground(id string) (Agent, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.agents {
		if a.Background != nil && a.Background.ID == id {
			return copyOf(a), true
		}
	}
	return Agent{}, false
}

func (f *Fleet) tell(a Agent) {
	if f.cfg.Changed != nil {
		f.cfg.Changed(a)
	}
}

// ByPath is the agent of the worktree at path.
func (f *Fleet) ByPath(path string) (Agent, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.agents[path]
	if !ok {
		return Agent{}, false
	}
	return copyOf(a), true
}
