package agent

import (
	"maps"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// statsRecord is a session's Stats as they grow. Safe for concurrent
// use: a front end reads it while a prompt adds to it.
type statsRecord struct {
	mu sync.Mutex
	s  dialog.Stats
}

// request records one request to model that took latency; u is its
// usage when it was answered, errorType the name it failed under
// (requestErrorType), "" when it did not fail.
func (r *statsRecord) request(model string, latency time.Duration, u dialog.Usage, errorType string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.s.Models == nil {
		r.s.Models = map[string]dialog.ModelStats{}
	}
	m := r.s.Models[model]
	m.Requests++
	if errorType != "" {
		m.Errors++
		m.ErrorsByType = maps.Clone(m.ErrorsByType) // a snapshot may hold the old one
		if m.ErrorsByType == nil {
			m.ErrorsByType = map[string]int{}
		}
		m.ErrorsByType[errorType]++
	}
	m.Latency += latency
	m.Tokens = m.Tokens.Add(u)
	r.s.Models[model] = m
}

// call records one call of tool that ended with status after d.
func (r *statsRecord) call(tool string, status dialog.Status, d time.Duration, decision dialog.CallDecision) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.s.Tools == nil {
		r.s.Tools = map[string]dialog.ToolStats{}
	}
	t := r.s.Tools[tool]
	t.Calls++
	if status == dialog.StatusOK {
		t.Success++
	} else {
		t.Fail++
	}
	t.Duration += d
	t.Decisions.Add(decision)
	r.s.Tools[tool] = t
}

func (r *statsRecord) snapshot() dialog.Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return dialog.Stats{Models: maps.Clone(r.s.Models), Tools: maps.Clone(r.s.Tools)}
}

// statsRecord is where the session's requests and calls count: a
// subagent's, in the session that runs it.
func (s *Session) statsRecord() *statsRecord {
	if s.parent != nil {
		return s.parent.statsRecord()
	}
	return &s.stats
}

// Stats is what the session's requests and calls came to so far.
func (s *Session) Stats() dialog.Stats { return s.stats.snapshot() }
