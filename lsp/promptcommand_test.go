package lsp

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/agent"
)

// The final message and the progress's last line say why a turn ended,
// and the summary is what the model said last.
func TestCommandOutcomeMessages(t *testing.T) {
	for _, tc := range []struct {
		res              promptResult
		message, summary string
	}{
		{promptResult{StopReason: string(agent.StopEndTurn), Text: "I'll add it.\n\nDone: added.\nMore."}, "Gemini: I'll add it.\n\nDone: added.\nMore.", "Gemini: Done: added."},
		{promptResult{StopReason: string(agent.StopLoopDetected), Text: "again and again"}, "Gemini: stopped because the model was repeating itself. again and again", "Gemini: stopped because the model was repeating itself"},
		{promptResult{StopReason: string(agent.StopMaxTurns), Text: "so far"}, "Gemini: stopped after too many model requests. so far", "Gemini: stopped after too many model requests"},
		{promptResult{StopReason: string(agent.StopCancelled)}, "Gemini: cancelled.", "Gemini: cancelled"},
		{promptResult{StopReason: string(agent.StopCancelled), Text: "half"}, "Gemini: cancelled. half", "Gemini: cancelled"},
		{promptResult{StopReason: string(agent.StopError), Error: "quota"}, "Gemini: failed: quota.", "Gemini: failed: quota"},
	} {
		if got := answerMessage(tc.res); got != tc.message {
			t.Errorf("%s: message %q, want %q", tc.res.StopReason, got, tc.message)
		}
		if got := summary(tc.res); got != tc.summary {
			t.Errorf("%s: summary %q, want %q", tc.res.StopReason, got, tc.summary)
		}
	}
}
