package agent

import (
	"maps"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/tools"
)

// Stats is what a session's model requests and tool calls came to since
// this process started or resumed it, by model and by tool, as Gemini
// CLI's /stats model and /stats tools count them. Unlike SessionInfo's
// usage, it is not saved with the session.
type Stats struct {
	Models map[string]ModelStats
	Tools  map[string]ToolStats
}

// ModelStats counts the requests made to one model: each attempt,
// retries included. Tokens are the answered requests'.
type ModelStats struct {
	Requests int
	Errors   int
	Latency  time.Duration // summed over the requests
	Tokens   Usage
}

// ToolStats counts the calls of one tool that ran or were refused.
type ToolStats struct {
	Calls   int
	Success int // status ok
	Fail    int // error, rejected or cancelled
	// Duration is summed over the calls, from the call's start to its
	// result, the wait for the user's answer included.
	Duration  time.Duration
	Decisions Decisions
}

// Decision is the user's answer to a call that asked, as Gemini CLI
// counts them (ToolCallDecision); "" when nobody was asked.
type Decision string

const (
	DecisionAccept Decision = "accept"
	// DecisionReject: the user said no, or nobody could be asked (a
	// headless run refuses what needs asking).
	DecisionReject Decision = "reject"
	// DecisionModify: the user changed the proposed edit, then took it.
	DecisionModify Decision = "modify"
	// DecisionAutoAccept: the user allowed it for the rest of the
	// session ("always allow").
	DecisionAutoAccept Decision = "auto_accept"
)

// Decisions counts the answers of each kind.
type Decisions struct {
	Accept, Reject, Modify, AutoAccept int
}

func (d *Decisions) Add(decision Decision) {
	switch decision {
	case DecisionAccept:
		d.Accept++
	case DecisionReject:
		d.Reject++
	case DecisionModify:
		d.Modify++
	case DecisionAutoAccept:
		d.AutoAccept++
	}
}

// statsRecord is a session's Stats as they grow. Safe for concurrent
// use: a front end reads it while a prompt adds to it.
type statsRecord struct {
	mu sync.Mutex
	s  Stats
}

// request records one request to model that took latency; u is its
// usage when it was answered.
func (r *statsRecord) request(model string, latency time.Duration, u Usage, failed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.s.Models == nil {
		r.s.Models = map[string]ModelStats{}
	}
	m := r.s.Models[model]
	m.Requests++
	if failed {
		m.Errors++
	}
	m.Latency += latency
	m.Tokens = m.Tokens.Add(u)
	r.s.Models[model] = m
}

// call records one call of tool that ended with status after d.
func (r *statsRecord) call(tool string, status tools.Status, d time.Duration, decision Decision) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.s.Tools == nil {
		r.s.Tools = map[string]ToolStats{}
	}
	t := r.s.Tools[tool]
	t.Calls++
	if status == tools.StatusOK {
		t.Success++
	} else {
		t.Fail++
	}
	t.Duration += d
	t.Decisions.Add(decision)
	r.s.Tools[tool] = t
}

func (r *statsRecord) snapshot() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{Models: maps.Clone(r.s.Models), Tools: maps.Clone(r.s.Tools)}
}

// Stats is what the session's requests and calls came to so far.
func (s *Session) Stats() Stats { return s.stats.snapshot() }
