package lsp

import (
	"errors"
	"testing"

	"github.com/gemini-ls/gemini-ls/agent"
)

// The final message and the progress's last line say why a turn ended,
// and the summary is what the model said last.
func TestCommandOutcomeMessages(t *testing.T) {
	for _, tc := range []struct {
		res              agent.PromptResult
		message, summary string
	}{
		{agent.PromptResult{StopReason: agent.StopEndTurn, Text: "I'll add it.\n\nDone: added.\nMore."}, "Gemini: I'll add it.\n\nDone: added.\nMore.", "Gemini: Done: added."},
		{agent.PromptResult{StopReason: agent.StopLoopDetected, Text: "again and again"}, "Gemini: stopped because the model was repeating itself. again and again", "Gemini: stopped because the model was repeating itself"},
		{agent.PromptResult{StopReason: agent.StopMaxTurns, Text: "so far"}, "Gemini: stopped after too many model requests. so far", "Gemini: stopped after too many model requests"},
		{agent.PromptResult{StopReason: agent.StopCancelled}, "Gemini: cancelled.", "Gemini: cancelled"},
		{agent.PromptResult{StopReason: agent.StopCancelled, Text: "half"}, "Gemini: cancelled. half", "Gemini: cancelled"},
		{agent.PromptResult{StopReason: agent.StopError, Err: errors.New("quota")}, "Gemini: failed: quota.", "Gemini: failed: quota"},
	} {
		if got := answerMessage(tc.res); got != tc.message {
			t.Errorf("%s: message %q, want %q", tc.res.StopReason, got, tc.message)
		}
		if got := summary(tc.res); got != tc.summary {
			t.Errorf("%s: summary %q, want %q", tc.res.StopReason, got, tc.summary)
		}
	}
}
