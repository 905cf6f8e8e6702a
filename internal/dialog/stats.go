package dialog

import (
	"time"
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
	// ErrorsByType counts the Errors by the name Gemini CLI 0.61 counts
	// them under (its errorsByType: ApiError, TypeError, …); nil when
	// there were none.
	ErrorsByType map[string]int
	Latency      time.Duration // summed over the requests
	Tokens       Usage
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

// CallDecision is the user's answer to a call, as Gemini CLI 0.61 counts
// them (ToolCallDecision): a call that ran with nobody asked (the mode or
// a rule allowed it) counts as accepted; "" for a call that never reached
// the question (refused by a rule, not found, invalid).
type CallDecision string

const (
	DecisionAccept CallDecision = "accept"
	// DecisionReject: the user said no, or nobody could be asked (a
	// headless run refuses what needs asking).
	DecisionReject CallDecision = "reject"
	// DecisionModify: the user changed the proposed edit, then took it.
	DecisionModify CallDecision = "modify"
	// DecisionAutoAccept: the user allowed it for the rest of the
	// session ("always allow").
	DecisionAutoAccept CallDecision = "auto_accept"
)

// Decisions counts the answers of each kind.
type Decisions struct {
	Accept, Reject, Modify, AutoAccept int
}

// Add counts one answer.
func (d *Decisions) Add(decision CallDecision) {
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
