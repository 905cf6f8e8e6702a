package lsp

import (
	"errors"
	"testing"

	"github.com/gemini-ls/gemini-ls/dialog"
)

// The final message and the progress's last line say why a turn ended,
// and the summary is what the model said last.
func TestCommandOutcomeMessages(t *testing.T) {
	for _, tc := range []struct {
		res              dialog.PromptResult
		message, summary string
	}{
		{dialog.PromptResult{StopReason: dialog.StopEndTurn, Text: "I'll add it.\n\nDone: added.\nMore."}, "Gemini: I'll add it.\n\nDone: added.\nMore.", "Gemini: Done: added."},
		{dialog.PromptResult{StopReason: dialog.StopLoopDetected, Text: "again and again"}, "Gemini: stopped because the model was repeating itself. again and again", "Gemini: stopped because the model was repeating itself"},
		{dialog.PromptResult{StopReason: dialog.StopMaxTurns, Text: "so far"}, "Gemini: stopped after too many model requests. so far", "Gemini: stopped after too many model requests"},
		{dialog.PromptResult{StopReason: dialog.StopCancelled}, "Gemini: cancelled.", "Gemini: cancelled"},
		{dialog.PromptResult{StopReason: dialog.StopCancelled, Text: "half"}, "Gemini: cancelled. half", "Gemini: cancelled"},
		{dialog.PromptResult{StopReason: dialog.StopError, Err: errors.New("quota")}, "Gemini: failed: quota.", "Gemini: failed: quota"},
	} {
		if got := answerMessage(tc.res); got != tc.message {
			t.Errorf("%s: message %q, want %q", tc.res.StopReason, got, tc.message)
		}
		if got := summary(tc.res); got != tc.summary {
			t.Errorf("%s: summary %q, want %q", tc.res.StopReason, got, tc.summary)
		}
	}
}
