package conversation

import (
	"errors"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/apierror"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Every way a turn ends has its words, the same for every front end.
func TestHeadlineAndExplanation(t *testing.T) {
	for _, c := range []struct {
		res                   dialog.PromptResult
		headline, explanation string
	}{
		{dialog.PromptResult{StopReason: dialog.StopEndTurn}, "", ""},
		{dialog.PromptResult{StopReason: dialog.StopCancelled}, "cancelled", "Cancelled."},
		{dialog.PromptResult{StopReason: dialog.StopMaxTurns, Err: agent.ErrMaxTurns}, "stopped after too many model requests", "Reached max session turns for this session."},
		{dialog.PromptResult{StopReason: dialog.StopMaxTurns}, "stopped after too many model requests", "Stopped after too many model requests; send another prompt to go on."},
		{dialog.PromptResult{StopReason: dialog.StopLoopDetected}, "stopped because the model was repeating itself", "Stopped because the model was repeating itself (a loop was detected). Rephrase or narrow the request to go on."},
		{dialog.PromptResult{StopReason: dialog.StopMaxTokens, Err: dialog.ErrAnswerCut}, "the answer was cut at the model's output token limit", "The model's answer was cut at its output token limit (finish reason MAX_TOKENS)."},
		{dialog.PromptResult{StopReason: dialog.StopMaxTokens}, "the answer was cut at the model's output token limit", "The answer was cut at the model's output token limit."},
		{dialog.PromptResult{StopReason: dialog.StopError, Err: errors.New("quota exhausted")}, "failed: quota exhausted", "Failed: quota exhausted."},
		{dialog.PromptResult{StopReason: dialog.StopError}, "failed: the turn failed", "Failed: the turn failed."},
		// A model request's failure is its sentence, which says what to do.
		{dialog.PromptResult{StopReason: dialog.StopError, Err: &apierror.Error{Kind: apierror.InvalidKey, Sentence: "The API key in GEMINI_API_KEY is not valid: run gemini-ls login.", Err: errors.New("Error 400")}},
			"The API key in GEMINI_API_KEY is not valid: run gemini-ls login", "The API key in GEMINI_API_KEY is not valid: run gemini-ls login."},
	} {
		o := outcomeOf(c.res, nil)
		if got := o.Headline(); got != c.headline {
			t.Errorf("%s: headline %q, want %q", c.res.StopReason, got, c.headline)
		}
		if got := o.Explanation(); got != c.explanation {
			t.Errorf("%s: explanation %q, want %q", c.res.StopReason, got, c.explanation)
		}
	}
}

// A turn's ending is said in the wires' word for the agent's stop reason,
// whichever it was.
func TestEndingReasonIsTheStopReason(t *testing.T) {
	for _, r := range []dialog.StopReason{dialog.StopEndTurn, dialog.StopCancelled, dialog.StopMaxTurns, dialog.StopError, dialog.StopMaxTokens, dialog.StopLoopDetected} {
		if got := outcomeOf(dialog.PromptResult{StopReason: r}, nil).Ending.Reason(); got != string(r) {
			t.Errorf("a turn that stopped for %s: reason %q", r, got)
		}
	}
	for _, e := range []Ending{NotRun, Busy, Unknown, Refused} {
		if got := e.Reason(); got != string(dialog.StopError) {
			t.Errorf("a prompt that did not run (%d): reason %q, want error", e, got)
		}
	}
}
