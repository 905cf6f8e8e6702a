package lsp

import (
	"errors"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
)

// The final message and the progress's last line say why a turn ended,
// and the summary is what the model said last.
func TestCommandOutcomeMessages(t *testing.T) {
	for _, tc := range []struct {
		o                conversation.Outcome
		message, summary string
	}{
		{conversation.Outcome{Ending: conversation.Done, Text: "I'll add it.\n\nDone: added.\nMore."}, "Gemini: I'll add it.\n\nDone: added.\nMore.", "Gemini: Done: added."},
		{conversation.Outcome{Ending: conversation.LoopDetected, Text: "again and again"}, "Gemini: stopped because the model was repeating itself. again and again", "Gemini: stopped because the model was repeating itself"},
		{conversation.Outcome{Ending: conversation.MaxTurns, Text: "so far"}, "Gemini: stopped after too many model requests. so far", "Gemini: stopped after too many model requests"},
		{conversation.Outcome{Ending: conversation.Cancelled}, "Gemini: cancelled.", "Gemini: cancelled"},
		{conversation.Outcome{Ending: conversation.Cancelled, Text: "half"}, "Gemini: cancelled. half", "Gemini: cancelled"},
		{conversation.Outcome{Ending: conversation.Failed, Err: errors.New("quota")}, "Gemini: failed: quota.", "Gemini: failed: quota"},
	} {
		if got := answerMessage(tc.o); got != tc.message {
			t.Errorf("%s: message %q, want %q", tc.o.Ending.Reason(), got, tc.message)
		}
		if got := summary(tc.o); got != tc.summary {
			t.Errorf("%s: summary %q, want %q", tc.o.Ending.Reason(), got, tc.summary)
		}
	}
}
