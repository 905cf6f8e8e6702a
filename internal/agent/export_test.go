package agent

import (
	"context"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/bounded"
)

// SetSubagentDeadline makes deadline bound a's subagent runs, for a test
// to end one when it chooses.
func SetSubagentDeadline(a *Agent, deadline func(ctx context.Context, d time.Duration) (context.Context, Pauser, context.CancelFunc)) {
	a.deadline = deadline
}

// ReportDisplay is reportDisplay, for its test.
var ReportDisplay = reportDisplay

// MaxBlanks is maxBlanks, for its test.
const MaxBlanks = maxBlanks

// LimitClosed bounds the ids a remembers of the sessions it dropped
// unsaved to n, for its test.
func LimitClosed(a *Agent, n int) { a.closed = bounded.New[string, struct{}](n) }
