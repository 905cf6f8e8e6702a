package conversation

import (
	"errors"
	"testing"

	"github.com/gemini-ls/gemini-ls/agent"
)

// Every way a turn ends has its words, the same for every front end.
func TestHeadlineAndExplanation(t *testing.T) {
	for _, c := range []struct {
		res                   agent.PromptResult
		headline, explanation string
	}{
		{agent.PromptResult{StopReason: agent.StopEndTurn}, "", ""},
		{agent.PromptResult{StopReason: agent.StopCancelled}, "cancelled", "Cancelled."},
		{agent.PromptResult{StopReason: agent.StopMaxTurns, Err: agent.ErrMaxTurns}, "stopped after too many model requests", "Reached max session turns for this session."},
		{agent.PromptResult{StopReason: agent.StopMaxTurns}, "stopped after too many model requests", "Stopped after too many model requests; send another prompt to go on."},
		{agent.PromptResult{StopReason: agent.StopLoopDetected}, "stopped because the model was repeating itself", "Stopped because the model was repeating itself (a loop was detected). Rephrase or narrow the request to go on."},
		{agent.PromptResult{StopReason: agent.StopMaxTokens, Err: agent.ErrAnswerCut}, "the answer was cut at the model's output token limit", "The model's answer was cut at its output token limit (finish reason MAX_TOKENS)."},
		{agent.PromptResult{StopReason: agent.StopMaxTokens}, "the answer was cut at the model's output token limit", "The answer was cut at the model's output token limit."},
		{agent.PromptResult{StopReason: agent.StopError, Err: errors.New("quota exhausted")}, "failed: quota exhausted", "Failed: quota exhausted."},
		{agent.PromptResult{StopReason: agent.StopError}, "failed: the turn failed", "Failed: the turn failed."},
	} {
		if got := Headline(c.res); got != c.headline {
			t.Errorf("%s: headline %q, want %q", c.res.StopReason, got, c.headline)
		}
		if got := Explanation(c.res); got != c.explanation {
			t.Errorf("%s: explanation %q, want %q", c.res.StopReason, got, c.explanation)
		}
	}
}
