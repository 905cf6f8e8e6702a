package background

import (
	"context"
	"fmt"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/fleet"
	"github.com/gemini-ls/gemini-ls/internal/github"
)

// Watch is the run a dispatch or a follow-up started, to be found and
// followed.
type Watch struct {
	// Event is the run's event: workflow_dispatch or issue_comment.
	Event string `json:"event"`
	// Title is its display title.
	Title string `json:"title"`
	// Run is the run, once found (ID 0 until then).
	Run github.Run `json:"run"`
	// Before are the runs of Event there were before: not it.
	Before map[int64]bool `json:"before,omitempty"`
}

// stateOf is where a run is, in the fleet's words: an agent's state.
func stateOf(run github.Run) fleet.State {
	switch {
	case run.ID == 0, run.Status == "queued", run.Status == "waiting", run.Status == "pending", run.Status == "requested":
		return fleet.Queued
	case run.Status != "completed":
		return fleet.Working
	case run.Conclusion == "success":
		return fleet.Done
	case run.Conclusion == "cancelled":
		return fleet.Stopped
	}
	return fleet.Failed
}

// Step is where a followed run is, told at each change.
type Step struct {
	State fleet.State
	Run   github.Run
}

// Ended is how a followed run ended.
type Ended struct {
	State fleet.State
	Run   github.Run
	// Pull is the branch's open pull request, Number 0 when none (the
	// agent changed nothing, or the run failed before opening one).
	Pull github.PullRequest
	// Err says why the run failed or was stopped.
	Err string
}

// Follow asks about w's run until it ends, telling each change to
// tell, then finds branch's open pull request. It asks after a second
// at first, then less and less often, at most every Poll: a run is
// found, and a short one seen done, soon, and a long one costs few
// requests. A failed request to the API is asked again at the next
// poll, until ctx ends.
func (r *Remote) Follow(ctx context.Context, w *Watch, branch string, tell func(Step)) (Ended, error) {
	last := fleet.State("")
	most := r.Poll
	if most <= 0 {
		most = DefaultPoll
	}
	poll := min(time.Second, most)
	for {
		if err := r.look(ctx, w); err != nil && ctx.Err() != nil {
			return Ended{}, ctx.Err()
		}
		if st := stateOf(w.Run); st != last {
			last = st
			tell(Step{State: st, Run: w.Run})
		}
		if w.Run.Status == "completed" {
			break
		}
		select {
		case <-ctx.Done():
			return Ended{}, ctx.Err()
		case <-time.After(poll):
		}
		poll = min(poll*3/2, most)
	}
	e := Ended{State: stateOf(w.Run), Run: w.Run}
	switch e.State {
	case fleet.Failed:
		e.Err = fmt.Sprintf("the run on GitHub ended %s: its log is at %s", w.Run.Conclusion, w.Run.HTMLURL)
	case fleet.Stopped:
		e.Err = fmt.Sprintf("the run on GitHub was cancelled: %s", w.Run.HTMLURL)
	}
	pr, ok, err := r.gh.OpenPullRequest(ctx, r.Repo, branch)
	if err != nil {
		return e, err
	}
	if ok {
		e.Pull = pr
	}
	return e, nil
}

// look finds w's run among the new ones, or asks about it again.
func (r *Remote) look(ctx context.Context, w *Watch) error {
	if w.Run.ID != 0 {
		run, err := r.gh.Run(ctx, r.Repo, w.Run.ID)
		if err == nil {
			w.Run = run
		}
		return err
	}
	runs, err := r.gh.Runs(ctx, r.Repo, Workflow, w.Event)
	if err != nil {
		return err
	}
	// Newest first: the oldest new run with the title is this one's.
	for i := len(runs) - 1; i >= 0; i-- {
		run := runs[i]
		if !w.Before[run.ID] && run.DisplayTitle == w.Title {
			w.Run = run
			return nil
		}
	}
	return nil
}
