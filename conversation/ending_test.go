package conversation

import (
	"errors"
	"testing"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/dialog"
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
	} {
		if got := Headline(c.res); got != c.headline {
			t.Errorf("%s: headline %q, want %q", c.res.StopReason, got, c.headline)
		}
		if got := Explanation(c.res); got != c.explanation {
			t.Errorf("%s: explanation %q, want %q", c.res.StopReason, got, c.explanation)
		}
	}
}
